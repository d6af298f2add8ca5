//! `--follow` in the kernel: the listener endpoints a follower admits, and FTP
//! announcements read by the kernel program itself.
//!
//! The follower's first stage (docs/follow.md §3) is a filter that accepts the
//! control traffic and the traffic of every listener endpoint some expectation or
//! flow needs. Placed in the kernel, that filter is the base filter's generated
//! code, preceded by this module's prologue:
//!
//! 1. **Listeners.** A packet whose source or destination (address, port, TCP or
//!    UDP) is in the listener table is accepted. The table is a
//!    [`Table`] in memory shared with the kernel, which user
//!    space writes with plain stores as the follower's tracker adds and removes
//!    endpoints (no system call, no reload, no verifier run), and which the
//!    prologue probes (an unrolled probe of at most
//!    [`PROBES`](crate::table::PROBES) slots).
//! 2. **Guesses.** A round trip through user space cannot make an announcement
//!    take effect before the data connection's first packet reaches the kernel at
//!    line rate. So the prologue reads FTP announcements itself, from the first
//!    line of a TCP segment from or to port 21 (`227`, `229`, `PORT`, `EPRT` over
//!    IPv4; `229` over IPv6), under the follower's stateless rules: replies from the server's port,
//!    commands to it, and an announced address that is the sender's (unless
//!    loose). It writes the listener into the `guesses` map with the time, and a
//!    guess younger than [`GUESS_NS`] counts as a listener.
//!
//! A guess only widens what reaches user space, where the follower still decides
//! every packet exactly (tracked connections, one expectation per connection,
//! the first SYN from the right peer). So a guess may be looser than the
//! follower, never narrower where it matters: a form the prologue does not read
//! (a later line of a segment, `EPRT |2|`, an IPv6 header with extension headers,
//! a number of more than three digits, or a
//! 229 whose `(` is past the first [`SCAN`] bytes) falls back to the round trip, and
//! the data packets that reach the kernel before user space has handled the
//! announcement are the ones that can be missed. Guesses are bounded: the map is
//! an LRU hash of [`GUESSES`] entries, and user space deletes each guess as soon
//! as the follower has handled the announcement it came from
//! ([`Following::unguess`], a map delete through `bpf(2)`: the guesses stay a
//! hash map because the program writes them), so a forged announcement widens the kernel filter
//! for about the user-space lag, and a flood of them evicts only other guesses,
//! never an admitted listener.

use crate::asm::{Alu, Asm, Cond, Label, Width, R0, R1, R10, R2, R3, R4, R7, R8, R9};
use crate::helpers::{KTIME_GET_NS, MAP_LOOKUP_ELEM, MAP_UPDATE_ELEM};
use crate::layout::{CTX, FOLLOW_ACC, FOLLOW_DELIM, FOLLOW_KEY, FOLLOW_STAMP};
use crate::sys::{Error, Map, MapKind};
use crate::table::{Key, Probe, Table, KEY_WORDS};
use std::net::IpAddr;
use std::sync::{Mutex, MutexGuard};

/// The FTP control port.
pub const FTP: u16 = 21;
/// How long a guess counts without user space confirming it: far longer than the
/// user-space lag of a capture that is keeping up, far shorter than an
/// expectation's five minutes.
pub const GUESS_NS: u64 = 10_000_000_000;
/// Guesses kept at most (an LRU map: a full one evicts the oldest guess).
pub const GUESSES: u32 = 4096;
/// Bytes of a reply's text searched for its numbers (227) or its `(` (229).
pub const SCAN: usize = 48;
/// A key's size: a word of protocol, family and port, then the address in four
/// words (IPv4 in the first).
pub const KEY_LEN: usize = 20;

/// `BPF_LD | BPF_ABS` and `BPF_LD | BPF_IND` loads of each size.
const ABS_B: u8 = 0x30;
const ABS_H: u8 = 0x28;
const ABS_W: u8 = 0x20;
const IND_B: u8 = 0x50;
const IND_H: u8 = 0x48;
const IND_W: u8 = 0x40;
/// `BPF_LRU_HASH`: a map whose full inserts evict the least recently used entry.
const LRU_HASH: MapKind = MapKind::LruHash;

/// The key of an endpoint as the prologue builds it: words as `LD_ABS` reads them
/// (network order turned into numbers), in the host's byte order.
pub fn key(addr: IpAddr, port: u16, proto: u8) -> [u8; KEY_LEN] {
    let (family, words): (u32, [u32; 4]) = match addr {
        IpAddr::V4(a) => (4, [u32::from(a), 0, 0, 0]),
        IpAddr::V6(a) => {
            let o = a.octets();
            let w = |i: usize| u32::from_be_bytes([o[i], o[i + 1], o[i + 2], o[i + 3]]);
            (6, [w(0), w(4), w(8), w(12)])
        }
    };
    let mut k = [0u8; KEY_LEN];
    let head = (u32::from(proto) << 24) | (family << 16) | u32::from(port);
    k[..4].copy_from_slice(&head.to_ne_bytes());
    for (i, w) in words.iter().enumerate() {
        k[4 + 4 * i..8 + 4 * i].copy_from_slice(&w.to_ne_bytes());
    }
    k
}

/// [`key`] as the table's words.
fn key_words(addr: IpAddr, port: u16, proto: u8) -> Key {
    let k = key(addr, port, proto);
    let mut w = [0u32; KEY_WORDS];
    for (i, x) in w.iter_mut().enumerate() {
        *x = u32::from_ne_bytes([k[4 * i], k[4 * i + 1], k[4 * i + 2], k[4 * i + 3]]);
    }
    w
}

/// The maps of a following program, owned by user space.
pub struct Following {
    /// Admitted listener endpoints, in memory shared with the kernel (one
    /// writer at a time: the lock is never contended on the edit path).
    listeners: Mutex<Table>,
    /// The prologue's guesses: the time each was written (`bpf_ktime_get_ns`).
    pub guesses: Map,
    /// One per-CPU word where the prologue gathers an announcement's numbers
    /// (see [`announce`] for why not on the stack).
    scratch: Map,
    /// Programs swapped for a grown listener table ([`Following::listen`]).
    swaps: std::sync::atomic::AtomicU64,
}

/// What the code generator needs of a [`Following`]: its maps and what to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FollowHook {
    listeners: Probe,
    guesses: i32,
    scratch: i32,
    /// Read FTP announcements.
    pub ftp: bool,
    /// Accept an announced address other than the sender's (`--follow-loose`).
    pub loose: bool,
}

impl FollowHook {
    /// The same hook over another listener table (a grown one: see
    /// [`Following::listen`]).
    pub fn with_listeners(self, listeners: Probe) -> FollowHook {
        FollowHook { listeners, ..self }
    }
}

impl Following {
    /// Maps for up to `listeners` admitted endpoints and [`GUESSES`] guesses.
    /// The listener table has room for twice as many (a quarter full at most),
    /// so that no endpoint is refused for want of a free slot near its home.
    pub fn new(listeners: u32) -> Result<Following, Error> {
        let room = (listeners.max(1) as usize).saturating_mul(2);
        Ok(Following {
            listeners: Mutex::new(Table::with_capacity(room)?),
            guesses: Map::create(LRU_HASH, KEY_LEN as u32, 8, GUESSES)?,
            scratch: Map::create(MapKind::PerCpuArray, 4, 8, 1)?,
            swaps: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// The hook for a program over these maps.
    pub fn hook(&self, ftp: bool, loose: bool) -> FollowHook {
        FollowHook {
            listeners: self.table().probe(),
            guesses: self.guesses.fd(),
            scratch: self.scratch.fd(),
            ftp,
            loose,
        }
    }

    /// The listener table, for an edit or a read (a poisoned lock still holds
    /// a consistent table: every edit is whole before it returns).
    fn table(&self) -> MutexGuard<'_, Table> {
        self.listeners.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The kernel accepts the endpoint's traffic from the next packet on: a few
    /// stores into shared memory, no system call.
    ///
    /// If the table has no room for it (half full, or the keys near its home
    /// fill its probe), the table grows instead ([`Table::grown_for`]): `swap`
    /// gets the probe of a new table holding every listener and this one, and
    /// must put a program over it in place of the one over the old table
    /// (generate it, with [`FollowHook::with_listeners`], and attach it under
    /// every ring); the new table replaces the old one once `swap` returned.
    /// The lock is held throughout, so no edit falls between the copy and the
    /// swap (and `swap` must not call back into this `Following`: take the
    /// hook before). If `swap` fails, the old table and program stay, without the
    /// endpoint, and its error is returned.
    pub fn listen(
        &self,
        addr: IpAddr,
        port: u16,
        proto: u8,
        swap: impl FnOnce(Probe) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let key = key_words(addr, port, proto);
        let mut table = self.table();
        if table.insert(&key, 1).is_ok() {
            return Ok(());
        }
        let grown = table.grown_for(&key, 1)?;
        swap(grown.probe())?;
        // The program over the old table is gone from every ring: dropping it
        // unmaps the region (the kernel keeps the map while a program holds it).
        *table = grown;
        self.swaps
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    /// Programs swapped for a grown listener table so far.
    pub fn swaps(&self) -> u64 {
        self.swaps.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The listener table's slots (for tests and reports).
    pub fn listener_slots(&self) -> usize {
        self.table().slots()
    }

    /// It no longer does (a guess of it may still be alive): from the first
    /// store on, no system call.
    pub fn unlisten(&self, addr: IpAddr, port: u16, proto: u8) -> Result<(), Error> {
        self.table().remove(&key_words(addr, port, proto));
        Ok(())
    }

    /// Whether the kernel admits this listener (for tests).
    pub fn listening(&self, addr: IpAddr, port: u16, proto: u8) -> bool {
        self.table().contains(&key_words(addr, port, proto))
    }

    /// Drops the prologue's guess of a TCP listener, if there is one.
    pub fn unguess(&self, addr: IpAddr, port: u16) -> Result<(), Error> {
        self.guesses.delete(&key(addr, port, 6)).map(|_| ())
    }

    /// Whether the prologue has guessed this TCP listener (for tests).
    pub fn guessed(&self, addr: IpAddr, port: u16) -> Result<bool, Error> {
        Ok(self.guesses.lookup(&key(addr, port, 6))?.is_some())
    }
}

/// The prologue, for a socket buffer program whose context is in `CTX`: it
/// returns `accept` for a listener's packet and falls through otherwise, with
/// only `CTX` kept.
pub(crate) fn prologue(a: &mut Asm, h: FollowHook, accept: i32) {
    let (done, hit, v6) = (a.label(), a.label(), a.label());
    // Every load below is within the frame, checked first: a load past it would
    // end the program with 0 before the base filter has had its say.
    a.ldx(Width::W, R2, CTX, 0);
    a.jmp_imm(Cond::Lt, R2, 14 + 20, done);
    a.raw(ABS_H, R0, 0, 12);
    a.jmp_imm(Cond::Eq, R0, 0x86dd, v6);
    a.jmp_imm(Cond::Ne, R0, 0x0800, done);
    // IPv4, not a later fragment, TCP or UDP, its ports within the frame.
    a.raw(ABS_B, R0, 0, 14);
    a.mov64_reg(R7, R0);
    a.alu64_imm(Alu::And, R7, 0xf0);
    a.jmp_imm(Cond::Ne, R7, 0x40, done);
    a.mov64_reg(R7, R0);
    a.alu64_imm(Alu::And, R7, 0x0f);
    a.alu64_imm(Alu::Lsh, R7, 2);
    a.jmp_imm(Cond::Lt, R7, 20, done);
    a.raw(ABS_H, R0, 0, 20);
    a.jmp_imm(Cond::Set, R0, 0x1fff, done);
    a.ldx(Width::W, R2, CTX, 0);
    a.mov64_reg(R3, R7);
    a.alu64_imm(Alu::Add, R3, 14 + 4);
    a.jmp_reg(Cond::Lt, R2, R3, done);
    a.raw(ABS_B, R0, 0, 23);
    a.mov64_reg(R9, R0);
    let udp = a.label();
    a.jmp_imm(Cond::Eq, R9, 17, udp);
    a.jmp_imm(Cond::Ne, R9, 6, done);
    if h.ftp {
        announce(a, h);
        // The announcement code used every register but the context: the header
        // again (its tests passed above).
        a.raw(ABS_B, R0, 0, 14);
        a.mov64_reg(R7, R0);
        a.alu64_imm(Alu::And, R7, 0x0f);
        a.alu64_imm(Alu::Lsh, R7, 2);
        a.mov64_imm(R9, 6);
    }
    a.bind(udp);
    // Source side, then destination side: proto, family 4, port; the address.
    for (port_at, addr_at) in [(14, 26), (16, 30)] {
        a.raw(IND_H, R7, 0, port_at);
        head(a, 4);
        a.raw(ABS_W, R0, 0, addr_at);
        a.stx(Width::W, R10, FOLLOW_KEY + 4, R0);
        for w in 2..5 {
            a.st(Width::W, R10, FOLLOW_KEY + 4 * w, 0);
        }
        lookup(a, h, hit);
    }
    a.ja(done);
    // IPv6 without extension headers, TCP or UDP.
    a.bind(v6);
    a.ldx(Width::W, R2, CTX, 0);
    a.jmp_imm(Cond::Lt, R2, 14 + 40 + 4, done);
    a.raw(ABS_B, R0, 0, 20);
    a.mov64_reg(R9, R0);
    let v6_ports = a.label();
    if h.ftp {
        let tcp = a.label();
        a.jmp_imm(Cond::Eq, R9, 6, tcp);
        a.jmp_imm(Cond::Ne, R9, 17, done);
        a.ja(v6_ports);
        a.bind(tcp);
        announce_v6(a, h);
        a.mov64_imm(R9, 6);
    } else {
        a.jmp_imm(Cond::Eq, R9, 6, v6_ports);
        a.jmp_imm(Cond::Ne, R9, 17, done);
    }
    a.bind(v6_ports);
    for (port_at, addr_at) in [(54, 22), (56, 38)] {
        a.raw(ABS_H, R0, 0, port_at);
        head(a, 6);
        for w in 0..4 {
            a.raw(ABS_W, R0, 0, addr_at + 4 * w);
            a.stx(Width::W, R10, FOLLOW_KEY + 4 + 4 * w as i16, R0);
        }
        lookup(a, h, hit);
    }
    a.ja(done);
    a.bind(hit);
    a.mov64_imm(R0, accept);
    a.exit();
    a.bind(done);
}

/// The key's first word from the port in r0 and the protocol in r9.
fn head(a: &mut Asm, family: i32) {
    a.mov64_reg(R1, R9);
    a.alu64_imm(Alu::Lsh, R1, 24);
    a.alu64_imm(Alu::Or, R1, family << 16);
    a.alu64_reg(Alu::Or, R1, R0);
    a.stx(Width::W, R10, FOLLOW_KEY, R1);
}

/// Jumps to `hit` if the key is a listener (the shared table's probe) or a
/// live guess (a hash map lookup).
fn lookup(a: &mut Asm, h: FollowHook, hit: Label) {
    let miss = a.label();
    h.listeners.emit(a, FOLLOW_KEY, hit);
    a.ld_map_fd(R1, h.guesses);
    a.mov64_reg(R2, R10);
    a.alu64_imm(Alu::Add, R2, FOLLOW_KEY as i32);
    a.call(MAP_LOOKUP_ELEM);
    a.jmp_imm(Cond::Eq, R0, 0, miss);
    a.ldx(Width::DW, R1, R0, 0);
    a.stx(Width::DW, R10, FOLLOW_STAMP, R1);
    a.call(KTIME_GET_NS);
    a.ldx(Width::DW, R1, R10, FOLLOW_STAMP);
    a.alu64_reg(Alu::Sub, R0, R1);
    a.ld_imm64(R1, GUESS_NS);
    a.jmp_reg(Cond::Lt, R0, R1, hit);
    a.bind(miss);
}

/// Reads an FTP announcement from the first line of the IPv4 TCP segment whose
/// header length is in r7, and writes its listener as a guess. Falls through,
/// with every register but the context used.
///
/// The numbers are gathered in a map value, not on the stack: the verifier does
/// not track what a map holds, so the paths through the digits (one, two or three
/// per number, six numbers) meet again as one state after each number. Kept on
/// the stack, every range would stay distinct and the paths multiply past the
/// verifier's budget.
fn announce(a: &mut Asm, h: FollowHook) {
    let (skip, server, client) = (a.label(), a.label(), a.label());
    // The scratch word's address, kept on the stack (a spilled pointer keeps
    // its type).
    a.st(Width::W, R10, FOLLOW_KEY, 0);
    a.ld_map_fd(R1, h.scratch);
    a.mov64_reg(R2, R10);
    a.alu64_imm(Alu::Add, R2, FOLLOW_KEY as i32);
    a.call(MAP_LOOKUP_ELEM);
    a.jmp_imm(Cond::Eq, R0, 0, skip);
    a.stx(Width::DW, R10, FOLLOW_ACC, R0);
    a.raw(IND_H, R7, 0, 14);
    a.jmp_imm(Cond::Eq, R0, i32::from(FTP), server);
    a.raw(IND_H, R7, 0, 16);
    a.jmp_imm(Cond::Eq, R0, i32::from(FTP), client);
    a.ja(skip);
    for side in [server, client] {
        a.bind(side);
        let is_server = side == server;
        let ok = a.label();
        payload(a, skip);
        a.raw(IND_W, R7, 0, 0);
        if is_server {
            let epsv = a.label();
            a.jmp_imm(Cond::Eq, R0, word(b"229 "), epsv);
            a.jmp_imm(Cond::Ne, R0, word(b"227 "), skip);
            // 227: the first digit after the code starts the six numbers.
            a.alu64_imm(Alu::Add, R7, 4);
            scan(a, skip, |a, found| {
                a.alu64_imm(Alu::Sub, R0, i32::from(b'0'));
                a.jmp_imm(Cond::Le, R0, 9, found);
            });
            six(a, skip);
            a.ja(ok);
            a.bind(epsv);
            epsv_port(a, skip);
            // The listener is the sender.
            a.raw(ABS_W, R0, 0, 26);
            a.alu64_imm(Alu::Lsh, R0, 16);
            a.alu64_reg(Alu::Or, R0, R9);
            acc_store(a, R0);
            a.ja(ok);
        } else {
            let eprt = a.label();
            // Commands are case-insensitive: letters with the lower-case bit set.
            a.alu32_imm(Alu::Or, R0, 0x2020_2020);
            a.jmp_imm(Cond::Eq, R0, word(b"eprt"), eprt);
            a.jmp_imm(Cond::Ne, R0, word(b"port"), skip);
            a.alu64_imm(Alu::Add, R7, 4);
            expect(a, b' ', skip);
            blanks(a);
            six(a, skip);
            a.ja(ok);
            // EPRT <d>1<d>a.b.c.d<d>port<d>
            a.bind(eprt);
            a.alu64_imm(Alu::Add, R7, 4);
            expect(a, b' ', skip);
            blanks(a);
            delimiter(a, skip);
            expect(a, b'1', skip);
            expect_delim(a, skip);
            numbers(a, 4, b'.', skip);
            expect_delim(a, skip);
            port(a, skip);
            expect_delim(a, skip);
            acc_load(a, R0);
            a.alu64_imm(Alu::Lsh, R0, 16);
            a.alu64_reg(Alu::Or, R0, R9);
            acc_store(a, R0);
        }
        a.bind(ok);
        guess(a, h, skip);
        a.ja(skip);
    }
    a.bind(skip);
}

/// A 229 reply's port, its text starting at r7 + 4: `(` within [`SCAN`] bytes,
/// three delimiters, the port, the delimiter. The port in r9; else to `skip`.
fn epsv_port(a: &mut Asm, skip: Label) {
    a.alu64_imm(Alu::Add, R7, 4);
    scan(a, skip, |a, found| {
        a.jmp_imm(Cond::Eq, R0, i32::from(b'('), found);
    });
    a.alu64_imm(Alu::Add, R7, 1);
    delimiter(a, skip);
    expect_delim(a, skip);
    expect_delim(a, skip);
    port(a, skip);
    expect_delim(a, skip);
}

/// Reads a 229 reply from the server's port on an IPv6 TCP segment without
/// extension headers (the frame's length checked for the fixed header): its
/// listener is the sender, the port the reply's. IPv6 clients use EPSV; an
/// `EPRT |2|` address is left to user space. Falls through, with every register
/// but the context used.
fn announce_v6(a: &mut Asm, h: FollowHook) {
    let skip = a.label();
    a.raw(ABS_H, R0, 0, 54);
    a.jmp_imm(Cond::Ne, R0, i32::from(FTP), skip);
    // The payload: after the TCP header, to the payload length's end or the
    // frame's, whichever is first; four bytes at least.
    a.ldx(Width::W, R2, CTX, 0);
    a.jmp_imm(Cond::Lt, R2, 14 + 40 + 20, skip);
    a.raw(ABS_B, R0, 0, 14 + 40 + 12);
    a.alu64_imm(Alu::Rsh, R0, 4);
    a.alu64_imm(Alu::Lsh, R0, 2);
    a.jmp_imm(Cond::Lt, R0, 20, skip);
    a.mov64_reg(R7, R0);
    a.alu64_imm(Alu::Add, R7, 14 + 40);
    a.raw(ABS_H, R0, 0, 18);
    a.mov64_reg(R8, R0);
    a.alu64_imm(Alu::Add, R8, 14 + 40);
    payload_end(a, skip);
    a.raw(IND_W, R7, 0, 0);
    a.jmp_imm(Cond::Ne, R0, word(b"229 "), skip);
    epsv_port(a, skip);
    // The key: TCP, IPv6, the port; the sender's address.
    a.mov64_reg(R1, R9);
    a.alu64_imm(Alu::Or, R1, (6 << 24) | (6 << 16));
    a.stx(Width::W, R10, FOLLOW_KEY, R1);
    for w in 0..4 {
        a.raw(ABS_W, R0, 0, 22 + 4 * w);
        a.stx(Width::W, R10, FOLLOW_KEY + 4 + 4 * w as i16, R0);
    }
    write_guess(a, h);
    a.bind(skip);
}

/// Writes the key on the stack into the guesses, with the time.
fn write_guess(a: &mut Asm, h: FollowHook) {
    a.call(KTIME_GET_NS);
    a.stx(Width::DW, R10, FOLLOW_STAMP, R0);
    a.ld_map_fd(R1, h.guesses);
    a.mov64_reg(R2, R10);
    a.alu64_imm(Alu::Add, R2, FOLLOW_KEY as i32);
    a.mov64_reg(R3, R10);
    a.alu64_imm(Alu::Add, R3, FOLLOW_STAMP as i32);
    a.mov64_imm(R4, 0);
    a.call(MAP_UPDATE_ELEM);
}

/// The four bytes `s` as `LD_IND W` reads them.
fn word(s: &[u8; 4]) -> i32 {
    i32::from_be_bytes(*s)
}

/// r7 = the payload's start, r8 = its end (the IP total length, or the frame's
/// end if shorter); to `skip` unless four bytes are there. r7 holds the IP header
/// length on entry.
fn payload(a: &mut Asm, skip: Label) {
    a.ldx(Width::W, R2, CTX, 0);
    a.mov64_reg(R3, R7);
    a.alu64_imm(Alu::Add, R3, 14 + 20);
    a.jmp_reg(Cond::Lt, R2, R3, skip);
    a.raw(IND_B, R7, 0, 14 + 12);
    a.alu64_imm(Alu::Rsh, R0, 4);
    a.alu64_imm(Alu::Lsh, R0, 2);
    a.jmp_imm(Cond::Lt, R0, 20, skip);
    a.alu64_reg(Alu::Add, R7, R0);
    a.alu64_imm(Alu::Add, R7, 14);
    a.raw(ABS_H, R0, 0, 16);
    a.mov64_reg(R8, R0);
    a.alu64_imm(Alu::Add, R8, 14);
    payload_end(a, skip);
}

/// r8, the payload's end as the IP header gives it, cut to the frame's end; to
/// `skip` unless four bytes lie from r7 (the payload's start) to there.
fn payload_end(a: &mut Asm, skip: Label) {
    a.ldx(Width::W, R2, CTX, 0);
    let short = a.label();
    a.jmp_reg(Cond::Le, R8, R2, short);
    a.mov64_reg(R8, R2);
    a.bind(short);
    a.mov64_reg(R1, R7);
    a.alu64_imm(Alu::Add, R1, 4);
    a.jmp_reg(Cond::Gt, R1, R8, skip);
}

/// r0 = the byte at r7, or to `out` at the payload's end.
fn byte(a: &mut Asm, out: Label) {
    a.jmp_reg(Cond::Ge, R7, R8, out);
    a.raw(IND_B, R7, 0, 0);
}

/// Advances r7 to the first of the next [`SCAN`] bytes that `test` sends to its
/// label; to `skip` if none does. Unrolled: the verifier sees no loop.
fn scan(a: &mut Asm, skip: Label, test: impl Fn(&mut Asm, Label)) {
    let found = a.label();
    for _ in 0..SCAN {
        byte(a, skip);
        test(a, found);
        a.alu64_imm(Alu::Add, R7, 1);
    }
    a.ja(skip);
    a.bind(found);
}

/// The byte `c` at r7, then past it; else to `skip`.
fn expect(a: &mut Asm, c: u8, skip: Label) {
    byte(a, skip);
    a.jmp_imm(Cond::Ne, R0, i32::from(c), skip);
    a.alu64_imm(Alu::Add, R7, 1);
}

/// Past up to four spaces.
fn blanks(a: &mut Asm) {
    let end = a.label();
    for _ in 0..4 {
        byte(a, end);
        a.jmp_imm(Cond::Ne, R0, i32::from(b' '), end);
        a.alu64_imm(Alu::Add, R7, 1);
    }
    a.bind(end);
}

/// An RFC 2428 delimiter (printable, not a digit) at r7, kept; else to `skip`.
fn delimiter(a: &mut Asm, skip: Label) {
    byte(a, skip);
    a.jmp_imm(Cond::Lt, R0, 33, skip);
    a.jmp_imm(Cond::Gt, R0, 126, skip);
    a.mov64_reg(R1, R0);
    a.alu64_imm(Alu::Sub, R1, i32::from(b'0'));
    a.jmp_imm(Cond::Le, R1, 9, skip);
    a.stx(Width::DW, R10, FOLLOW_DELIM, R0);
    a.alu64_imm(Alu::Add, R7, 1);
}

/// The kept delimiter at r7, then past it; else to `skip`.
fn expect_delim(a: &mut Asm, skip: Label) {
    byte(a, skip);
    a.ldx(Width::DW, R1, R10, FOLLOW_DELIM);
    a.jmp_reg(Cond::Ne, R0, R1, skip);
    a.alu64_imm(Alu::Add, R7, 1);
}

/// r9 = a decimal number of 1 to `digits` digits at r7, r7 past it; else to
/// `skip` (no digit).
fn number(a: &mut Asm, digits: usize, skip: Label) {
    let end = a.label();
    a.mov64_imm(R9, 0);
    for d in 0..digits {
        let out = if d == 0 { skip } else { end };
        byte(a, out);
        a.alu64_imm(Alu::Sub, R0, i32::from(b'0'));
        a.jmp_imm(Cond::Gt, R0, 9, out);
        a.alu64_imm(Alu::Mul, R9, 10);
        a.alu64_reg(Alu::Add, R9, R0);
        a.alu64_imm(Alu::Add, R7, 1);
    }
    a.bind(end);
}

/// A number of at most 255, shifted into the accumulator's low byte.
fn byte_number(a: &mut Asm, skip: Label) {
    number(a, 3, skip);
    a.jmp_imm(Cond::Gt, R9, 255, skip);
    acc_load(a, R0);
    a.alu64_imm(Alu::Lsh, R0, 8);
    a.alu64_reg(Alu::Or, R0, R9);
    acc_store(a, R0);
}

/// `dst` = the scratch word (r1 used).
fn acc_load(a: &mut Asm, dst: crate::asm::Reg) {
    a.ldx(Width::DW, R1, R10, FOLLOW_ACC);
    a.ldx(Width::DW, dst, R1, 0);
}

/// The scratch word = `src` (r1 used).
fn acc_store(a: &mut Asm, src: crate::asm::Reg) {
    a.ldx(Width::DW, R1, R10, FOLLOW_ACC);
    a.stx(Width::DW, R1, 0, src);
}

/// r9 = a port number, 1 to 65535; else to `skip`.
fn port(a: &mut Asm, skip: Label) {
    number(a, 5, skip);
    a.jmp_imm(Cond::Eq, R9, 0, skip);
    a.jmp_imm(Cond::Gt, R9, 65535, skip);
}

/// `h1,h2,h3,h4,p1,p2` at r7: the accumulator holds the address above the port.
fn six(a: &mut Asm, skip: Label) {
    numbers(a, 6, b',', skip);
}

/// `n` numbers of at most 255 separated by `sep`, gathered in the accumulator,
/// the first in its highest byte.
fn numbers(a: &mut Asm, n: usize, sep: u8, skip: Label) {
    a.mov64_imm(R0, 0);
    acc_store(a, R0);
    for k in 0..n {
        if k > 0 {
            expect(a, sep, skip);
        }
        byte_number(a, skip);
    }
}

/// Writes the accumulator's listener (address above a 16-bit port) as a guess:
/// a 0 address is the sender, and another than the sender's is refused unless
/// loose; a 0 port is refused.
fn guess(a: &mut Asm, h: FollowHook, skip: Label) {
    let sender = a.label();
    acc_load(a, R9);
    a.mov64_reg(R8, R9);
    a.alu64_imm(Alu::And, R8, 0xffff);
    a.jmp_imm(Cond::Eq, R8, 0, skip);
    a.alu64_imm(Alu::Rsh, R9, 16);
    a.raw(ABS_W, R0, 0, 26);
    a.jmp_imm(Cond::Eq, R9, 0, sender);
    if !h.loose {
        a.jmp_reg(Cond::Ne, R9, R0, skip);
    }
    a.mov64_reg(R0, R9);
    a.bind(sender);
    // The key: TCP, IPv4, the port; the address (r0).
    a.stx(Width::W, R10, FOLLOW_KEY + 4, R0);
    for w in 2..5 {
        a.st(Width::W, R10, FOLLOW_KEY + 4 * w, 0);
    }
    a.mov64_reg(R1, R8);
    a.alu64_imm(Alu::Or, R1, (6 << 24) | (4 << 16));
    a.stx(Width::W, R10, FOLLOW_KEY, R1);
    write_guess(a, h);
}
