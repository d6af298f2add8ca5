//! eBPF code from a decoded pass set: a socket filter that accepts at least what
//! the user-space engine accepts.
//!
//! The program walks the root passes in order, as the engine does, each as a chain
//! of tests that jumps to the next pass on the first failure. A pass that gets to
//! its end accepts. Each test is the engine's [`Op`] compiled to straight-line code:
//! the field's address (the anchor chain worked out from the packet, then the
//! offset), a load, a mask and compares against the operands.
//!
//! Two things keep the kernel's answer a superset of the engine's, which is what a
//! filter placed under the user-space one needs (the user-space engine makes the
//! exact decision on what the kernel let through):
//!
//! - An operation the generator does not compile (ARITH, PROTOCHAIN)
//!   counts as passed, and a pass holding one accepts with [`UNSURE`] instead of
//!   [`ACCEPT`]. [`Generated::exact`] is false when any pass holds one.
//! - A load the kernel cannot make (past the packet, or past its linear part, where
//!   `bpf_skb_load_bytes_relative` fails) ends the program with [`UNSURE`]: the
//!   engine would fault and reject on a short packet, but a packet the kernel holds
//!   only partly in linear memory may well match.
//!
//! Both are accepts to the socket (the packet is kept whole); they differ only so
//! that a test run can tell a sure answer from an unsure one. Loads go through
//! `bpf_skb_load_bytes_relative` from the MAC header, the one base on which a
//! packet socket and `BPF_PROG_TEST_RUN` agree; the wire length is `skb->len` plus
//! [`Env::len_adjust`], which is where they do not.

use crate::asm::{Alu, Asm, AsmError, Cond, Insn, Label, Reg, Width, R0, R1, R10, R2, R3, R4, R5};
use crate::helpers::{HDR_START_MAC, MAP_LOOKUP_ELEM, SKB_LOAD_BYTES_RELATIVE};
use crate::sys::{Map, MapKind};
use netsift_engine::decoded::{group_range, DPass, Decoded, Op, Step};
use netsift_isa::insn::Size;
use netsift_isa::{Anchor, AnchorRule, PassKind, PassSet};

/// The program's return value for a sure accept: more than any packet, so the
/// socket keeps it whole.
pub const ACCEPT: u32 = 0x4_0000;
/// The return value of an accept the kernel is not sure of (see the module
/// documentation); also more than any packet.
pub const UNSURE: u32 = ACCEPT - 1;

/// Where the program will run.
#[derive(Clone, Copy, Debug)]
pub struct Env {
    /// Added to `skb->len` to get the frame's length on the wire: 0 on a packet
    /// socket (whose `skb->data` is the MAC header), 14 in a `BPF_PROG_TEST_RUN`
    /// of a socket filter (which pulls the Ethernet header first).
    pub len_adjust: i32,
    /// What an accept returns: `None` for [`ACCEPT`] or [`UNSURE`], which a test
    /// run tells apart; `Some(snaplen)` on a socket, which then keeps at most that
    /// many bytes of each packet (the rest would only be cut in user space).
    pub keep: Option<u32>,
    /// The kernel takes a VLAN tag out of a received packet before a socket filter
    /// runs (`skb->vlan_present`), so the filter's offsets, which count the tag as
    /// the capture shows it, do not apply: such packets are answered unsure.
    pub stripped_vlan: bool,
}

impl Env {
    /// A filter attached to a packet socket that keeps `snaplen` bytes.
    pub fn socket(snaplen: u32) -> Env {
        Env {
            len_adjust: 0,
            keep: Some(snaplen.max(1)),
            stripped_vlan: true,
        }
    }

    /// A socket filter run by `BPF_PROG_TEST_RUN` on an Ethernet frame.
    pub const TEST_RUN: Env = Env {
        len_adjust: 14,
        keep: None,
        stripped_vlan: false,
    };

    /// A `SCHED_CLS` program run by `BPF_PROG_TEST_RUN` on an Ethernet frame (whose
    /// `skb->len` counts the whole frame): how the benchmarks time it beside
    /// libpcap's classic program.
    pub const TC_TEST_RUN: Env = Env {
        len_adjust: 0,
        keep: None,
        stripped_vlan: false,
    };

    fn accept(&self, sure: bool) -> i32 {
        match (self.keep, sure) {
            (Some(n), _) => n as i32,
            (None, true) => ACCEPT as i32,
            (None, false) => UNSURE as i32,
        }
    }
}

/// A generated program.
#[derive(Debug)]
pub struct Generated {
    /// The instructions.
    pub insns: Vec<Insn>,
    /// Whether every root pass was compiled whole: then an [`ACCEPT`] or a 0 is the
    /// engine's answer, and only an [`UNSURE`] (a load the kernel could not make)
    /// needs the user-space engine.
    pub exact: bool,
    /// The root passes holding an operation the generator does not compile.
    pub unsure_passes: Vec<usize>,
    /// The BPF hash maps holding the set's key tables, by table index: a SET is
    /// one map lookup, and a key inserted or deleted here is seen by the next
    /// packet with no reload (the loaded program holds its own references).
    pub tables: Vec<(u32, Map)>,
}

/// Why no program was generated.
#[derive(Debug)]
pub enum GenError {
    /// The jumps did not assemble (a program too long for 16-bit jump offsets).
    Asm(AsmError),
    /// A key table's map could not be made or filled.
    Map(crate::sys::Error),
}

impl std::fmt::Display for GenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GenError::Asm(e) => write!(f, "generating the kernel program: {e}"),
            GenError::Map(e) => write!(f, "a key table for the kernel program: {e}"),
        }
    }
}

impl std::error::Error for GenError {}

/// Registers: r6 the context, r7 the loaded value, r8 an address, r9 a second
/// address (an EQ2's second field).
const CTX: Reg = Reg(6);
const VAL: Reg = Reg(7);
const ADDR: Reg = Reg(8);
const ADDR2: Reg = Reg(9);
/// Where a field is: known when the program is made, or in a register.
#[derive(Clone, Copy)]
enum Addr {
    Const(u32),
    Reg(Reg),
}

/// Stack slot the loads write to.
const BUF: i16 = -8;
/// Stack slot of a SET's 64-bit key.
const KEY: i16 = -16;
/// Offsets past this cannot be loaded (the helper's own limit).
const MAX_OFFSET: i32 = 0xffff;

struct Gen<'a> {
    a: Asm,
    set: &'a PassSet,
    passes: &'a [DPass],
    pool: &'a [u32],
    env: Env,
    unsure: Label,
    tables: Vec<(u32, Map)>,
    map_error: Option<crate::sys::Error>,
}

/// The program for `set` in `env`.
pub fn generate(set: &PassSet, env: Env) -> Result<Generated, GenError> {
    let decoded = Decoded::new(set);
    let mut a = Asm::new();
    let unsure = a.label();
    let mut g = Gen {
        a,
        set,
        passes: &decoded.passes,
        pool: &decoded.pool,
        env,
        unsure,
        tables: Vec::new(),
        map_error: None,
    };
    g.a.mov64_reg(CTX, R1);
    if env.stripped_vlan {
        // __sk_buff.vlan_present, the context's sixth word.
        g.a.ldx(Width::W, VAL, CTX, 20);
        g.a.jmp_imm(Cond::Ne, VAL, 0, unsure);
    }
    let mut unsure_passes = Vec::new();
    for (i, p) in decoded.passes.iter().enumerate() {
        if p.kind != PassKind::Root {
            continue;
        }
        let next = g.a.label();
        let mut whole = true;
        for step in &p.steps {
            whole &= g.step(step, next, i, 0);
        }
        g.a.mov64_imm(R0, env.accept(whole));
        g.a.exit();
        g.a.bind(next);
        if !whole {
            unsure_passes.push(i);
        }
    }
    g.a.mov64_imm(R0, 0);
    g.a.exit();
    g.a.bind(g.unsure);
    g.a.mov64_imm(R0, env.accept(false));
    g.a.exit();
    if let Some(e) = g.map_error {
        return Err(GenError::Map(e));
    }
    Ok(Generated {
        insns: g.a.finish().map_err(GenError::Asm)?,
        exact: unsure_passes.is_empty(),
        unsure_passes,
        tables: g.tables,
    })
}

impl Gen<'_> {
    /// One step of pass `pass`, at GROUP nesting `depth`: falls through if it
    /// passes, jumps to `fail` if not. Returns false if an operation was not
    /// compiled (it then passes).
    fn step(&mut self, s: &Step, fail: Label, pass: usize, depth: usize) -> bool {
        let (pass_label, no) = (self.a.label(), self.a.label());
        // The test jumps to `yes`/`no`; a negated one has them swapped. An invalid
        // operation is false either way.
        let (yes, not) = if s.negate {
            (no, pass_label)
        } else {
            (pass_label, no)
        };
        let compiled = match s.op {
            Op::Eq {
                anchor,
                off,
                size,
                mask,
                start,
                n,
                ..
            } => {
                let at = self.field(anchor, off, ADDR);
                let vals = &self.pool[start as usize..][..n as usize];
                self.load(size, at, 0);
                self.equals(mask, vals, yes, not);
                true
            }
            Op::Eq2 {
                anchor,
                off,
                size,
                mask,
                delta,
                both,
                start,
                n,
                ..
            } => {
                let vals = &self.pool[start as usize..][..n as usize];
                self.pair(anchor, off, delta, both, size, yes, not, |g, y, n| {
                    g.equals(mask, vals, y, n)
                });
                true
            }
            Op::Range {
                anchor,
                off,
                size,
                mask,
                start,
                n,
            } => {
                let ranges = &self.pool[start as usize..][..2 * n as usize];
                let at = self.field(anchor, off, ADDR);
                self.load(size, at, 0);
                self.in_ranges(mask, ranges, yes, not);
                true
            }
            Op::Range2 {
                anchor,
                off,
                size,
                mask,
                delta,
                both,
                start,
                n,
            } => {
                let ranges = &self.pool[start as usize..][..2 * n as usize];
                self.pair(anchor, off, delta, both, size, yes, not, |g, y, n| {
                    g.in_ranges(mask, ranges, y, n)
                });
                true
            }
            Op::Len { start, n } => {
                let ranges = &self.pool[start as usize..][..2 * n as usize];
                // __sk_buff.len is the context's first word.
                self.a.ldx(Width::W, VAL, CTX, 0);
                if self.env.len_adjust != 0 {
                    self.a.alu32_imm(Alu::Add, VAL, self.env.len_adjust);
                }
                self.in_ranges(u32::MAX, ranges, yes, not);
                true
            }
            Op::Prefix {
                anchor,
                off,
                n,
                bits,
                delta,
                both,
                start,
            } => {
                let words = &self.pool[start as usize..][..n as usize];
                let at = self.field(anchor, off, ADDR);
                if delta == 0 {
                    self.prefix(at, words, bits, yes, not);
                } else {
                    let at2 = self.offset(at, delta, ADDR2);
                    let (first_yes, first_no) = (self.a.label(), self.a.label());
                    self.prefix(at, words, bits, first_yes, first_no);
                    self.decide_pair(both, first_yes, first_no, yes, not);
                    self.prefix(at2, words, bits, yes, not);
                }
                true
            }
            Op::Invalid => {
                self.a.ja(fail);
                true
            }
            Op::InvalidAt { anchor, off } => {
                // The address is worked out (it may fault), then the test is false.
                let _ = self.field(anchor, off, ADDR);
                self.a.ja(fail);
                true
            }
            Op::True => true,
            Op::Group { first, count } => {
                match group_range(first, count, pass, self.passes.len(), depth) {
                    None => {
                        self.a.ja(fail);
                        return true;
                    }
                    Some(range) => {
                        // Each Sub pass of the range in turn, as the walks try them:
                        // the first that gets to its end makes the GROUP true.
                        let mut whole = true;
                        for j in range {
                            if self.passes[j].kind != PassKind::Sub {
                                continue;
                            }
                            let next_sub = self.a.label();
                            for sub_step in &self.passes[j].steps {
                                whole &= self.step(sub_step, next_sub, j, depth + 1);
                            }
                            self.a.ja(yes);
                            self.a.bind(next_sub);
                        }
                        self.a.ja(not);
                        self.a.bind(no);
                        self.a.ja(fail);
                        self.a.bind(pass_label);
                        return whole;
                    }
                }
            }
            Op::Set {
                anchor,
                off,
                size,
                n,
                start,
            } => {
                let p: [u32; 9] = self.pool[start as usize..][..9]
                    .try_into()
                    .expect("decode writes nine words");
                match self.table(p[0]) {
                    None => {
                        // No such table: the SET is invalid, so false.
                        let _ = self.field(anchor, off, ADDR);
                        self.a.ja(fail);
                        return true;
                    }
                    Some(fd) => self.set_lookup(fd, anchor, off, size, n, p, yes, not),
                }
                true
            }
            Op::Arith { .. } | Op::Protochain { .. } => false,
        };
        if compiled && !matches!(s.op, Op::True) {
            self.a.bind(no);
            self.a.ja(fail);
            self.a.bind(pass_label);
        } else {
            self.a.bind(no);
            self.a.bind(pass_label);
        }
        compiled
    }

    /// The address of the field at anchor `anchor` + `off`: a constant for the
    /// packet's start (most fields), else `dst` worked out from the packet, or a
    /// jump to [`UNSURE`] when a load on the way cannot be made or the address
    /// leaves the loadable range.
    fn field(&mut self, anchor: u8, off: u32, dst: Reg) -> Addr {
        if anchor == 0 {
            return self.constant(off);
        }
        self.anchor(anchor as usize, dst, 0);
        self.offset(Addr::Reg(dst), off, dst)
    }

    /// A constant address, or the unsure exit if no load can reach it.
    fn constant(&mut self, at: u32) -> Addr {
        if at > MAX_OFFSET as u32 {
            self.a.ja(self.unsure);
        }
        Addr::Const(at.min(MAX_OFFSET as u32))
    }

    /// `at + delta`, in `dst` when `at` is not a constant.
    fn offset(&mut self, at: Addr, delta: u32, dst: Reg) -> Addr {
        match at {
            Addr::Const(c) => self.constant(c.saturating_add(delta)),
            Addr::Reg(r) => {
                if r != dst {
                    self.a.mov64_reg(dst, r);
                }
                if delta != 0 {
                    self.a
                        .alu64_imm(Alu::Add, dst, delta.min(MAX_OFFSET as u32 + 1) as i32);
                    self.a.jmp_imm(Cond::Gt, dst, MAX_OFFSET, self.unsure);
                }
                Addr::Reg(dst)
            }
        }
    }

    /// The map of key table `t` (made and filled on first use), or `None` if the set
    /// has no such table.
    fn table(&mut self, t: u32) -> Option<i32> {
        if let Some((_, m)) = self.tables.iter().find(|(i, _)| *i == t) {
            return Some(m.fd());
        }
        let keys = self.set.tables().get(t as usize)?.keys();
        // Room for as many keys again (at least 1,024), for the updates to come.
        let room = (keys.len() * 2).max(1024).min(u32::MAX as usize) as u32;
        let made = Map::create(MapKind::Hash, 8, 1, room).and_then(|m| {
            for k in keys {
                m.update(&k.to_ne_bytes(), &[1])?;
            }
            Ok(m)
        });
        match made {
            Ok(m) => {
                let fd = m.fd();
                self.tables.push((t, m));
                Some(fd)
            }
            Err(e) => {
                self.map_error.get_or_insert(e);
                Some(-1)
            }
        }
    }

    /// SET: the key `(A & ma) << 32 | (B & mb)` of field A (and B, if the SET has
    /// one) is in the map `fd`; with `n` 2 the pair `da`/`db` bytes on is tried
    /// when the first is not. The key is built on the stack in the order the map's
    /// keys were written (the host's).
    #[allow(clippy::too_many_arguments)]
    fn set_lookup(
        &mut self,
        fd: i32,
        anchor: u8,
        off: u32,
        size: Size,
        n: u32,
        p: [u32; 9],
        yes: Label,
        no: Label,
    ) {
        let [_, has_b, b_anchor, b_off, b_size, da, db, ma, mb] = p;
        // A's address, then B's, as the engine works them out.
        let at = self.field(anchor, off, ADDR);
        let b_at = if has_b != 0 {
            let Some(bsize) = Size::from_bytes(1 << b_size) else {
                self.a.ja(no);
                return;
            };
            Some((self.field(b_anchor as u8, b_off, ADDR2), bsize))
        } else {
            None
        };
        for pair in 0..n.min(2) {
            let a_at = self.offset(at, pair * da, ADDR);
            self.load(size, a_at, 0);
            if ma != u32::MAX {
                self.a.alu32_imm(Alu::And, VAL, ma as i32);
            }
            self.a.stx(Width::W, R10, KEY + 4, VAL);
            match b_at {
                Some((b, bsize)) => {
                    let b2 = self.offset(b, pair * db, ADDR2);
                    self.load(bsize, b2, 0);
                    if mb != u32::MAX {
                        self.a.alu32_imm(Alu::And, VAL, mb as i32);
                    }
                    self.a.stx(Width::W, R10, KEY, VAL);
                }
                None => self.a.st(Width::W, R10, KEY, 0),
            }
            self.a.ld_map_fd(R1, fd);
            self.a.mov64_reg(R2, R10);
            self.a.alu64_imm(Alu::Add, R2, KEY as i32);
            self.a.call(MAP_LOOKUP_ELEM);
            self.a.jmp_imm(Cond::Ne, R0, 0, yes);
        }
        self.a.ja(no);
    }

    /// `dst = the value of anchor a`. Anchors are worked out again at each use: a
    /// cache would be stack slots the verifier has to follow through every path.
    fn anchor(&mut self, a: usize, dst: Reg, depth: usize) {
        if a == 0 || depth > netsift_isa::MAX_ANCHORS {
            self.a.mov64_imm(dst, 0);
            if a != 0 {
                self.a.ja(self.unsure);
            }
            return;
        }
        let Some(anchor) = self.set.anchors().get(a).copied() else {
            // An anchor that does not exist never resolves: its tests are false
            // in the engine; unsure here keeps the kernel's side a superset.
            self.a.ja(self.unsure);
            return;
        };
        let Some(rule) = anchor.rule() else {
            self.a.ja(self.unsure);
            return;
        };
        if anchor.parent() as usize >= a {
            self.a.ja(self.unsure);
            return;
        }
        self.anchor(anchor.parent() as usize, dst, depth + 1);
        self.a.alu64_imm(Alu::Add, dst, anchor.offset() as i32);
        self.a.jmp_imm(Cond::Gt, dst, MAX_OFFSET, self.unsure);
        self.rule(rule, anchor, dst);
    }

    /// Applies an anchor rule to `h` in `dst` (the engine's `apply_rule`).
    fn rule(&mut self, rule: AnchorRule, _anchor: Anchor, dst: Reg) {
        let ipv4 = |g: &mut Self| {
            g.load(Size::B1, Addr::Reg(dst), 0);
            g.a.alu64_imm(Alu::And, VAL, 0x0f);
            g.a.alu64_imm(Alu::Lsh, VAL, 2);
            g.a.alu64_reg(Alu::Add, dst, VAL);
        };
        match rule {
            AnchorRule::Const => {}
            AnchorRule::Ipv4Payload => ipv4(self),
            AnchorRule::TcpPayload => {
                self.load(Size::B1, Addr::Reg(dst), 12);
                self.a.alu64_imm(Alu::Rsh, VAL, 4);
                self.a.alu64_imm(Alu::Lsh, VAL, 2);
                self.a.alu64_reg(Alu::Add, dst, VAL);
            }
            AnchorRule::IpPayloadByVersion => {
                let (v6, done) = (self.a.label(), self.a.label());
                self.load(Size::B1, Addr::Reg(dst), 0);
                self.a.alu64_imm(Alu::Rsh, VAL, 4);
                self.a.jmp_imm(Cond::Ne, VAL, 4, v6);
                ipv4(self);
                self.a.ja(done);
                self.a.bind(v6);
                self.a.alu64_imm(Alu::Add, dst, 40);
                self.a.bind(done);
            }
            // The Geneve and link-type-selected rules are left to user space.
            _ => self.a.ja(self.unsure),
        }
    }

    /// `VAL = the size-wide big-endian field at addr + k`, or a jump to
    /// [`UNSURE`]. Clobbers r0-r5.
    fn load(&mut self, size: Size, addr: Addr, k: i32) {
        self.a.mov64_reg(R1, CTX);
        match addr {
            Addr::Const(c) => {
                let at = c as i64 + k as i64;
                if at > MAX_OFFSET as i64 {
                    self.a.ja(self.unsure);
                }
                self.a.mov64_imm(R2, at.min(MAX_OFFSET as i64) as i32);
            }
            Addr::Reg(r) => {
                self.a.mov64_reg(R2, r);
                if k != 0 {
                    self.a.alu64_imm(Alu::Add, R2, k);
                    // The helper takes a 32-bit offset: a larger address must not
                    // wrap.
                    self.a.jmp_imm(Cond::Gt, R2, MAX_OFFSET, self.unsure);
                }
            }
        }
        self.a.mov64_reg(R3, R10);
        self.a.alu64_imm(Alu::Add, R3, BUF as i32);
        self.a.mov64_imm(R4, size.bytes() as i32);
        self.a.mov64_imm(R5, HDR_START_MAC);
        self.a.call(SKB_LOAD_BYTES_RELATIVE);
        self.a.jmp_imm(Cond::Ne, R0, 0, self.unsure);
        match size {
            Size::B1 => self.a.ldx(Width::B, VAL, R10, BUF),
            Size::B2 => {
                self.a.ldx(Width::H, VAL, R10, BUF);
                self.a.to_be(VAL, 16);
            }
            Size::B4 => {
                self.a.ldx(Width::W, VAL, R10, BUF);
                self.a.to_be(VAL, 32);
            }
        }
    }

    /// `VAL & mask` is one of `vals`: jump to `yes` or `no`.
    fn equals(&mut self, mask: u32, vals: &[u32], yes: Label, no: Label) {
        if mask != u32::MAX {
            self.a.alu32_imm(Alu::And, VAL, mask as i32);
        }
        for &v in vals {
            self.a.jmp32_imm(Cond::Eq, VAL, v, yes);
        }
        self.a.ja(no);
    }

    /// `VAL & mask` lies in one of the inclusive `(lo, hi)` pairs of `ranges`.
    fn in_ranges(&mut self, mask: u32, ranges: &[u32], yes: Label, no: Label) {
        if mask != u32::MAX {
            self.a.alu32_imm(Alu::And, VAL, mask as i32);
        }
        for r in ranges.chunks(2) {
            let next = self.a.label();
            self.a.jmp32_imm(Cond::Lt, VAL, r[0], next);
            self.a.jmp32_imm(Cond::Le, VAL, r[1], yes);
            self.a.bind(next);
        }
        self.a.ja(no);
    }

    /// The first `bits` bits of the words at `addr` equal `words`.
    fn prefix(&mut self, addr: Addr, words: &[u32], bits: u32, yes: Label, no: Label) {
        for (i, &w) in words.iter().enumerate() {
            let used = bits.saturating_sub(32 * i as u32).min(32);
            if used == 0 {
                break;
            }
            let mask = if used == 32 {
                u32::MAX
            } else {
                !(u32::MAX >> used)
            };
            self.load(Size::B4, addr, 4 * i as i32);
            if mask != u32::MAX {
                self.a.alu32_imm(Alu::And, VAL, mask as i32);
            }
            self.a.jmp32_imm(Cond::Ne, VAL, w & mask, no);
        }
        self.a.ja(yes);
    }

    /// After a two-field test's first field decided `first_yes` or `first_no`:
    /// "either" (`!both`) is decided by a hit, "both" by a miss; otherwise the code
    /// that follows tests the second field.
    fn decide_pair(
        &mut self,
        both: bool,
        first_yes: Label,
        first_no: Label,
        yes: Label,
        no: Label,
    ) {
        let second = self.a.label();
        self.a.bind(first_yes);
        if both {
            self.a.ja(second);
        } else {
            self.a.ja(yes);
        }
        self.a.bind(first_no);
        if both {
            self.a.ja(no);
        }
        self.a.bind(second);
    }

    /// EQ2/RANGE2: `test` on the field at `anchor + off`, then (unless the first
    /// decides) on the one `delta` bytes on. Both addresses are worked out before
    /// either load, as the engine does.
    #[allow(clippy::too_many_arguments)]
    fn pair(
        &mut self,
        anchor: u8,
        off: u32,
        delta: u32,
        both: bool,
        size: Size,
        yes: Label,
        no: Label,
        test: impl Fn(&mut Self, Label, Label),
    ) {
        let at = self.field(anchor, off, ADDR);
        let at2 = self.offset(at, delta, ADDR2);
        let (first_yes, first_no) = (self.a.label(), self.a.label());
        self.load(size, at, 0);
        test(self, first_yes, first_no);
        self.decide_pair(both, first_yes, first_no, yes, no);
        self.load(size, at2, 0);
        test(self, yes, no);
    }
}
