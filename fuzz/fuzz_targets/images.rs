//! Random instruction images and pass structures through every executor: the
//! interpreter (`evaluate`, `matches`), the decoded form (`Compiled::evaluate`,
//! `Compiled::matches`), the batch engine (`Compiled::filter_batch`) and a live set
//! holding the pass set as one clause. Each must give [`netsift_fuzz::reference`]'s
//! verdict on every packet, short ones included, and none may run more instructions
//! than the set holds.
//!
//! The images are built as crates/engine/tests/safety.rs builds them: raw words, a
//! valid opcode over random fields, or a valid opcode with small fields (in-bounds
//! loads), and now and then an ARITH head followed by CONT slots.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netsift_engine::{BatchScratch, Compiled, PassSet, Scratch, Verdict, LANES};
use netsift_fuzz::{frames, reference, Bytes};
use netsift_isa::{Anchor, Instruction, PassKind, MAX_ANCHORS, MAX_INSNS};
use std::sync::OnceLock;

const ARITH: u32 = 8;
const CONT: u32 = 12;

fn insn(b: &mut Bytes) -> Instruction {
    let mut w = [0u32; 8];
    match b.u8() % 3 {
        0 => w.iter_mut().for_each(|x| *x = b.u32()),
        1 => {
            w.iter_mut().for_each(|x| *x = b.u32());
            let op = 1 + b.below(12) as u32;
            w[0] = (w[0] & 0x03ff_ffff) | op << 26;
        }
        _ => {
            let op = 1 + b.below(12) as u32;
            let size = b.below(4) as u32;
            let count = b.below(29) as u32;
            let anchor = b.below(8) as u32;
            let off = b.below(64) as u32;
            // Negate and copied flags from the top bits of one byte.
            let flags = (b.u8() as u32 >> 6) << 24;
            w[0] = op << 26 | size << 22 | count << 17 | anchor << 11 | off | flags;
            w[1..].iter_mut().for_each(|x| *x = b.below(70) as u32);
        }
    }
    Instruction(w)
}

fn pass(b: &mut Bytes) -> (PassKind, Option<u16>, Vec<Instruction>) {
    let head = b.u8();
    let kind = if head & 1 == 0 {
        PassKind::Root
    } else {
        PassKind::Sub
    };
    let parent = (head & 2 != 0).then(|| b.below(40) as u16);
    let n = b.below(MAX_INSNS + 1);
    let mut insns: Vec<Instruction> = (0..n).map(|_| insn(b)).collect();
    if head & 4 != 0 && !insns.is_empty() {
        let at = b.below(insns.len());
        let ext = b.below(5) as u32;
        let w = &mut insns[at].0;
        w[0] = (w[0] & 0x03ff_f800) | ARITH << 26 | ext;
        for c in insns.iter_mut().skip(at + 1).take(ext as usize) {
            c.0[0] = (c.0[0] & 0x03ff_ffff) | CONT << 26;
        }
    }
    (kind, parent, insns)
}

fn anchor(b: &mut Bytes) -> Anchor {
    if b.u8() & 1 == 0 {
        Anchor(b.u32())
    } else {
        let rule = b.below(6) as u32;
        let parent = b.below(8) as u32;
        let off = b.below(64) as u32;
        Anchor(rule << 24 | parent << 16 | off)
    }
}

fn fixed() -> &'static [frames::Frame] {
    static F: OnceLock<Vec<frames::Frame>> = OnceLock::new();
    F.get_or_init(|| frames::fixed(false))
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes::new(data);
    let n_passes = b.below(25);
    let passes: Vec<_> = (0..n_passes).map(|_| pass(&mut b)).collect();
    let n_anchors = b.below(MAX_ANCHORS + 1);
    let anchors: Vec<_> = (0..n_anchors).map(|_| anchor(&mut b)).collect();
    let Ok(set) = PassSet::from_raw(passes, anchors) else {
        return;
    };

    // Packets: some of the fixed frames (whole and cut short) and some from the input.
    let mut packets: Vec<(Vec<u8>, u32)> = Vec::new();
    for _ in 0..b.below(LANES + 1) {
        let f = &fixed()[b.below(fixed().len())];
        packets.push((f.data.clone(), f.wire_len));
    }
    while packets.len() < 2 * LANES && !b.is_empty() {
        let d = b.bytes(120).to_vec();
        let extra = b.below(100) as u32;
        let wire = d.len() as u32 + extra;
        packets.push((d, wire));
    }
    if packets.is_empty() {
        packets.push((Vec::new(), 0));
    }

    let total = set.instruction_count() as u64;
    let want: Vec<Verdict> = packets
        .iter()
        .map(|(d, w)| reference(&set, d, *w))
        .collect();

    // The interpreter with one scratch space for all packets: nothing carries over.
    let mut s = Scratch::new();
    for ((d, w), &v) in packets.iter().zip(&want) {
        assert_eq!(netsift_engine::evaluate(&set, &mut s, d, *w), v, "evaluate");
        assert!(
            s.steps() <= total,
            "{} steps for {total} instructions",
            s.steps()
        );
        assert_eq!(
            netsift_engine::matches(&set, &mut s, d, *w),
            v == Verdict::Accept
        );
    }

    let live_want: Vec<Verdict> = {
        let kept = netsift_engine::naive::live_meaning(&set);
        packets
            .iter()
            .map(|(d, w)| reference(&kept, d, *w))
            .collect()
    };
    let (mut writer, reader) = netsift_engine::live::new();
    let live_ok = writer.add_clause(&set).is_ok();

    let compiled = Compiled::new(set);
    let mut c = Scratch::new();
    for ((d, w), &v) in packets.iter().zip(&want) {
        assert_eq!(compiled.evaluate(&mut c, d, *w), v, "Compiled::evaluate");
        assert!(
            c.steps() <= total,
            "{} steps for {total} instructions",
            c.steps()
        );
        assert_eq!(compiled.matches(&mut c, d, *w), v == Verdict::Accept);
    }

    let mut bs = BatchScratch::new();
    for chunk in packets.chunks(LANES).zip(want.chunks(LANES)) {
        let (ps, vs) = chunk;
        let data: Vec<&[u8]> = ps.iter().map(|(d, _)| d.as_slice()).collect();
        let wire: Vec<u32> = ps.iter().map(|(_, w)| *w).collect();
        let mask = vs
            .iter()
            .enumerate()
            .filter(|(_, &v)| v == Verdict::Accept)
            .fold(0, |m, (i, _)| m | 1 << i);
        // Twice with one scratch space: nothing may leak from one batch to the next.
        for _ in 0..2 {
            assert_eq!(
                compiled.filter_batch(&mut bs, &data, &wire),
                mask,
                "filter_batch"
            );
        }
    }

    if live_ok {
        let mut ls = Scratch::new();
        for ((d, w), &v) in packets.iter().zip(&live_want) {
            let got = reader.evaluate(&mut ls, d, *w);
            assert!(
                ls.steps() <= total,
                "live: {} steps for {total}",
                ls.steps()
            );
            assert_eq!(
                reader.evaluate(&mut Scratch::new(), d, *w),
                got,
                "live: not deterministic"
            );
            assert_eq!(got, v, "live set");
        }
    }
});
