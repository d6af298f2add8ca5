//! The end of an XDP program (FFPF's NIC level): what it does with the filter's
//! verdict. Every frame goes on to the host stack (`XDP_PASS`), since a monitor
//! must not take traffic away; an accepted one is first copied into the ring
//! buffer, and the counters say how many frames were seen, accepted, and lost to
//! a full ring.
//!
//! A ring buffer record is reserved whole, with a size fixed when the program is
//! made, so the epilogue reserves the smallest of a few sizes that holds the
//! bytes to copy: a short frame does not take `cap` bytes of the ring.

use crate::asm::{Alu, Asm, Cond, Label, Width, R0, R1, R10, R2, R3, R4};
use crate::helpers::{
    KTIME_GET_NS, MAP_LOOKUP_ELEM, RINGBUF_DISCARD, RINGBUF_RESERVE, RINGBUF_SUBMIT, XDP_LOAD_BYTES,
};
use crate::layout::{ADDR, ADDR2, CTX, KEY, VAL, XDP_CLASSES, XDP_HDR, XDP_LEN};

/// `XDP_PASS`: the frame goes on to the host stack.
const XDP_PASS: i32 = 2;

/// `bpf_redirect_map(map, key, flags)`; the low bits of `flags` are the
/// action when the map has no entry at `key`.
/// `xdp_md.rx_queue_index`.
const RX_QUEUE_INDEX: i16 = 16;

/// The counters' words.
const SEEN: i32 = 0;
const ACCEPTED: i32 = 1;
const FULL: i32 = 2;

/// The epilogue, entered with the verdict in r0 (0: rejected).
pub(crate) fn epilogue(a: &mut Asm, ring: i32, stats: i32, cap: u32) {
    let (pass, full) = (a.label(), a.label());
    counted(a, stats, pass);
    // ADDR: the wire length; ADDR2: the bytes to copy, 1 to `cap` (a bound the
    // verifier follows into the copy's length).
    a.ldx(Width::W, ADDR, R10, XDP_LEN);
    a.mov64_reg(ADDR2, ADDR);
    let fits = a.label();
    a.jmp_imm(Cond::Le, ADDR2, cap as i32, fits);
    a.mov64_imm(ADDR2, cap as i32);
    a.bind(fits);
    a.jmp_imm(Cond::Eq, ADDR2, 0, pass);
    let sizes: Vec<u32> = XDP_CLASSES
        .iter()
        .copied()
        .filter(|&c| c < cap)
        .chain([cap])
        .collect();
    let labels: Vec<Label> = sizes.iter().map(|_| a.label()).collect();
    for (&size, &l) in sizes.iter().zip(&labels) {
        a.jmp_imm(Cond::Le, ADDR2, size as i32, l);
    }
    a.ja(labels[labels.len() - 1]);
    for (&size, &l) in sizes.iter().zip(&labels) {
        a.bind(l);
        record(a, ring, size, pass, full);
    }
    a.bind(full);
    count(a, stats, FULL);
    a.bind(pass);
    a.mov64_imm(R0, XDP_PASS);
    a.exit();
}

/// The epilogue of a program that hands what it accepts to an AF_XDP socket
/// (zero copy): entered with the verdict in r0, it counts the frame, then
/// redirects an accepted one to the socket in XSKMAP `map` at the frame's
/// receive queue (`XDP_PASS` if the map has none there) and passes a
/// rejected one on to the host stack.
pub(crate) fn redirect_epilogue(a: &mut Asm, map: i32, stats: i32) {
    let pass = a.label();
    counted(a, stats, pass);
    a.ldx(Width::W, R2, CTX, RX_QUEUE_INDEX);
    a.ld_map_fd(R1, map);
    a.mov64_imm(R3, XDP_PASS);
    a.call(crate::helpers::REDIRECT_MAP);
    a.exit();
    a.bind(pass);
    a.mov64_imm(R0, XDP_PASS);
    a.exit();
}

/// Reserves a record of `size` bytes after the header, fills it with the header
/// and ADDR2 bytes of the frame, and submits it (or gives it back if the copy
/// failed); then on to `pass`. A full ring goes to `full`.
fn record(a: &mut Asm, ring: i32, size: u32, pass: Label, full: Label) {
    a.ld_map_fd(R1, ring);
    a.mov64_imm(R2, (XDP_HDR + size) as i32);
    a.mov64_imm(R3, 0);
    a.call(RINGBUF_RESERVE);
    a.jmp_imm(Cond::Eq, R0, 0, full);
    // The verdict is no longer needed: VAL holds the record.
    a.mov64_reg(VAL, R0);
    a.stx(Width::W, VAL, 0, ADDR2);
    a.stx(Width::W, VAL, 4, ADDR);
    a.call(KTIME_GET_NS);
    a.stx(Width::DW, VAL, 8, R0);
    a.mov64_reg(R1, CTX);
    a.mov64_imm(R2, 0);
    a.mov64_reg(R3, VAL);
    a.alu64_imm(Alu::Add, R3, XDP_HDR as i32);
    a.mov64_reg(R4, ADDR2);
    a.call(XDP_LOAD_BYTES);
    let failed = a.label();
    a.jmp_imm(Cond::Ne, R0, 0, failed);
    a.mov64_reg(R1, VAL);
    a.mov64_imm(R2, 0);
    a.call(RINGBUF_SUBMIT);
    a.ja(pass);
    a.bind(failed);
    a.mov64_reg(R1, VAL);
    a.mov64_imm(R2, 0);
    a.call(RINGBUF_DISCARD);
    a.ja(pass);
}

/// Counts the frame whose verdict is in r0 as seen, and on to `pass` if it
/// was rejected, else as accepted (the verdict moves to VAL).
fn counted(a: &mut Asm, stats: i32, pass: Label) {
    a.mov64_reg(VAL, R0);
    count(a, stats, SEEN);
    a.jmp_imm(Cond::Eq, VAL, 0, pass);
    count(a, stats, ACCEPTED);
}

/// Adds 1 to word `word` of this CPU's counters.
fn count(a: &mut Asm, stats: i32, word: i32) {
    a.st(Width::W, R10, KEY, word);
    a.ld_map_fd(R1, stats);
    a.mov64_reg(R2, R10);
    a.alu64_imm(Alu::Add, R2, KEY as i32);
    a.call(MAP_LOOKUP_ELEM);
    let missing = a.label();
    a.jmp_imm(Cond::Eq, R0, 0, missing);
    a.ldx(Width::DW, R1, R0, 0);
    a.alu64_imm(Alu::Add, R1, 1);
    a.stx(Width::DW, R0, 0, R1);
    a.bind(missing);
}
