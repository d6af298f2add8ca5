//! The interpreter: passes, instructions, anchors.
//!
//! The interpreter is generic over [`Program`], so the same code runs a static
//! [`PassSet`] and a live pass set whose passes are published one at a time while
//! packets flow (`crate::live`).

use crate::compiled::Op;
use crate::scratch::{Scratch, ACCEPTED, NO_ANCHOR};
use netsift_isa::insn::{
    ArithOp, IndexMode, Opcode, Size, ARITH_POOL_BASE, ARITH_STACK, BOTH_FIELDS, SET_FIELD_B,
};
use netsift_isa::{Anchor, AnchorRule, Instruction, PassKind, PassSet, MAX_GROUP_DEPTH};

/// The result of running a pass set over one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Accept,
    Reject,
}

/// A load past the captured bytes: the clause is rejected, as in BPF.
#[derive(Debug)]
pub(crate) struct Fault;

/// What an instruction says before negation. `Invalid` images are false whatever
/// their negation flag says.
type Outcome = Result<Option<bool>, Fault>;

/// One pass as the interpreter sees it.
pub(crate) struct PassRef<'a> {
    pub kind: PassKind,
    pub parent: Option<u16>,
    /// Passes of one clause share a fault: a load past the captured bytes in any of
    /// them rejects the whole clause (as one BPF program would), but not other
    /// clauses of a live set, which are independent filters.
    pub clause: u32,
    pub insns: &'a [Instruction],
    /// Live sets stamp every instruction write; a copied instruction reuses its
    /// parent's result only if the stamps agree, so an edit of either pass can never
    /// make a child use a result of a different instruction. Static sets have no
    /// stamps and trust the `copied` marks.
    pub stamps: Option<&'a [u64]>,
    /// Identifies this version of the pass (live sets); 0 for static sets.
    pub id: u64,
    /// The instructions decoded ahead (`Compiled`), if they were.
    pub ops: Option<&'a [Op]>,
}

/// What the interpreter needs from a pass set.
pub(crate) trait Program {
    /// Pass indices are below this.
    fn slots(&self) -> usize;
    fn pass(&self, i: usize) -> Option<PassRef<'_>>;
    fn anchor(&self, a: usize) -> Option<Anchor>;
    /// Whether hash table `table` holds `key`; `None` if there is no such table.
    fn contains(&self, table: u32, key: u64) -> Option<bool>;
    /// Unpacked operands that decoded instructions index.
    fn pool(&self) -> &[u32] {
        &[]
    }
}

impl Program for PassSet {
    #[inline]
    fn slots(&self) -> usize {
        self.passes().len()
    }
    #[inline]
    fn pass(&self, i: usize) -> Option<PassRef<'_>> {
        self.passes().get(i).map(|p| PassRef {
            kind: p.kind,
            parent: p.parent,
            clause: 0,
            insns: p.instructions(),
            stamps: None,
            id: 0,
            ops: None,
        })
    }
    #[inline]
    fn anchor(&self, a: usize) -> Option<Anchor> {
        self.anchors().get(a).copied()
    }
    #[inline]
    fn contains(&self, table: u32, key: u64) -> Option<bool> {
        self.table_contains(table, key)
    }
}

/// Whether the pass set accepts the packet. `packet` holds the captured bytes,
/// `wire_len` the packet's length on the wire (for `len`, `less`, `greater`).
#[inline]
pub fn matches(set: &PassSet, scratch: &mut Scratch, packet: &[u8], wire_len: u32) -> bool {
    evaluate(set, scratch, packet, wire_len) == Verdict::Accept
}

pub fn evaluate(set: &PassSet, scratch: &mut Scratch, packet: &[u8], wire_len: u32) -> Verdict {
    run(set, scratch, packet, wire_len)
}

/// Walks the root passes in index order (depth-first order, since children follow
/// their parents) until one accepts.
pub(crate) fn run<P: Program + ?Sized>(
    prog: &P,
    scratch: &mut Scratch,
    packet: &[u8],
    wire_len: u32,
) -> Verdict {
    let slots = prog.slots();
    scratch.reset(slots);
    let mut cx = Cx {
        prog,
        pkt: packet,
        wire_len,
        s: scratch,
    };
    for i in 0..slots {
        let Some(p) = prog.pass(i) else { continue };
        if p.kind != PassKind::Root {
            continue;
        }
        if !cx.s.faulted_clauses.is_empty() && cx.s.faulted_clauses.contains(&p.clause) {
            continue;
        }
        match cx.pass(i, 0) {
            Ok(true) => return Verdict::Accept,
            Ok(false) => {}
            Err(Fault) => {
                cx.s.faulted = true;
                cx.s.faulted_clauses.push(p.clause);
            }
        }
    }
    Verdict::Reject
}

/// The lean loop for sets of root passes without GROUP (`Compiled`'s lean form):
/// the same walk, parents' progress in a local array.
///
/// `HIER` says whether any pass has a parent; without one, no progress is kept.
pub(crate) fn run_lean<const HIER: bool>(
    prog: &crate::Compiled,
    passes: &[crate::compiled::LeanPass],
    scratch: &mut Scratch,
    packet: &[u8],
    wire_len: u32,
) -> Verdict {
    scratch.reset_anchors();
    let mut cx = Cx {
        prog,
        pkt: packet,
        wire_len,
        s: scratch,
    };
    // Where each pass failed (`u8::MAX`: not run). A pass that accepts ends the walk.
    let mut failed_at = [u8::MAX; crate::compiled::LEAN_MAX_PASSES];
    'passes: for (i, p) in passes.iter().enumerate() {
        // The parent always ran (an earlier root pass that did not accept).
        let parent = if HIER {
            p.parent.map(|q| failed_at[q as usize] as usize)
        } else {
            None
        };
        for (k, o) in p.ops.iter().enumerate() {
            let ok = if let Some(parent) = parent.filter(|&f| o.copied && k <= f) {
                // The parent passed this instruction, or failed on it.
                k < parent
            } else {
                let r = match o.op {
                    Op::Image => {
                        // An ARITH reads the CONT slots after it.
                        let rest = prog.pass_set().passes()[i].instructions();
                        cx.insn(&o.image, rest.get(k + 1..).unwrap_or(&[]), i, 0)
                    }
                    op => cx.fast(op, o.negate),
                };
                match r {
                    Ok(b) => b,
                    Err(Fault) => {
                        cx.s.faulted = true;
                        return Verdict::Reject;
                    }
                }
            };
            if !ok {
                if HIER && p.has_child {
                    failed_at[i] = k as u8;
                }
                continue 'passes;
            }
        }
        return Verdict::Accept;
    }
    Verdict::Reject
}

/// Applies an anchor's rule to the header at `h`, giving the offset the anchor names.
/// One function for the per-packet and the per-batch engines, so both resolve
/// anchors identically.
#[inline]
pub(crate) fn apply_rule(rule: AnchorRule, pkt: &[u8], h: u32) -> Result<u32, Fault> {
    let v = match rule {
        AnchorRule::Const => Some(h),
        AnchorRule::Ipv4Payload => h.checked_add(4 * (load(pkt, h, Size::B1)? & 0x0f)),
        AnchorRule::TcpPayload => {
            h.checked_add(4 * (load(pkt, h.checked_add(12).ok_or(Fault)?, Size::B1)? >> 4))
        }
        AnchorRule::GenevePayload => h.checked_add(8 + 4 * (load(pkt, h, Size::B1)? & 0x3f)),
        AnchorRule::IpPayloadByType => {
            let t = load(pkt, h.checked_sub(2).ok_or(Fault)?, Size::B2)?;
            if t == 0x0800 || t == 0x0021 {
                h.checked_add(4 * (load(pkt, h, Size::B1)? & 0x0f))
            } else {
                h.checked_add(40)
            }
        }
        AnchorRule::IpPayloadByVersion => {
            let v = load(pkt, h, Size::B1)?;
            if v >> 4 == 4 {
                h.checked_add(4 * (v & 0x0f))
            } else {
                h.checked_add(40)
            }
        }
        AnchorRule::IpPayloadByAf => {
            let af = load(pkt, h.checked_sub(4).ok_or(Fault)?, Size::B4)?;
            if af == 2 || af == 0x0200_0000 {
                h.checked_add(4 * (load(pkt, h, Size::B1)? & 0x0f))
            } else {
                h.checked_add(40)
            }
        }
        AnchorRule::GeneveLinkType | AnchorRule::GeneveLinkPayload => {
            // Both fields are read, as libpcap's Geneve offset code does.
            let opt = 4 * (load(pkt, h, Size::B1)? & 0x3f);
            let teb = load(pkt, h.checked_add(2).ok_or(Fault)?, Size::B2)? == 0x6558;
            let end = h.checked_add(8 + opt);
            match (rule, teb) {
                (AnchorRule::GeneveLinkType, true) => end.and_then(|e| e.checked_add(12)),
                (AnchorRule::GeneveLinkType, false) => h.checked_add(2),
                (_, true) => end.and_then(|e| e.checked_add(14)),
                (_, false) => end,
            }
        }
    };
    // A value that overflows, or equals the "unresolved" mark, cannot address the
    // packet: treat it like a bad load.
    v.filter(|&v| v != NO_ANCHOR).ok_or(Fault)
}

struct Cx<'a, P: Program + ?Sized> {
    prog: &'a P,
    pkt: &'a [u8],
    wire_len: u32,
    s: &'a mut Scratch,
}

#[inline(always)]
pub(crate) fn load(pkt: &[u8], at: u32, size: Size) -> Result<u32, Fault> {
    let at = at as usize;
    match size {
        Size::B1 => pkt.get(at).map(|&b| b as u32),
        Size::B2 => pkt
            .get(at..at.wrapping_add(2))
            .map(|b| u16::from_be_bytes([b[0], b[1]]) as u32),
        Size::B4 => pkt
            .get(at..at.wrapping_add(4))
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]])),
    }
    .ok_or(Fault)
}

impl<P: Program + ?Sized> Cx<'_, P> {
    /// Runs pass `idx` (once per packet: a second call returns the saved result).
    fn pass(&mut self, idx: usize, depth: usize) -> Result<bool, Fault> {
        if let Some(st) = self.s.state(idx) {
            return Ok(st & ACCEPTED != 0);
        }
        let Some(pass) = self.prog.pass(idx) else {
            return Ok(false);
        };
        // The parent's progress, if it ran for this packet as the version visible now:
        // copied instructions below it succeeded there, the one at it failed there.
        let parent = pass
            .parent
            .map(|p| p as usize)
            .filter(|&p| p < idx)
            .and_then(|p| {
                let st = self.s.state(p)?;
                let pp = self.prog.pass(p)?;
                (self.s.pass_node[p] == pp.id).then_some((st & !ACCEPTED, pp))
            });
        for (i, insn) in pass.insns.iter().enumerate() {
            let reuse = match &parent {
                Some((progress, pp))
                    if (i as u32) <= *progress && Instruction::reusable(pass.insns, i) =>
                {
                    // Every slot the instruction reads (an ARITH's CONT slots too)
                    // must be the parent's version.
                    let span = i..=i + insn.arith_ext();
                    let same = match (pass.stamps, pp.stamps) {
                        (Some(a), Some(b)) => span
                            .into_iter()
                            .all(|j| b.get(j).is_some_and(|&s| a.get(j) == Some(&s))),
                        _ => true,
                    };
                    (same && i < pp.insns.len()).then_some((i as u32) < *progress)
                }
                _ => None,
            };
            let ok = match (reuse, pass.ops.map(|o| o[i])) {
                (Some(r), _) => r,
                (None, Some(op)) if op != Op::Image => self.fast(op, insn.negated())?,
                (None, _) => self.insn(insn, &pass.insns[i + 1..], idx, depth)?,
            };
            if !ok {
                self.s.set_state(idx, i as u32, pass.id);
                return Ok(false);
            }
        }
        self.s
            .set_state(idx, pass.insns.len() as u32 | ACCEPTED, pass.id);
        Ok(true)
    }

    /// Anchor `a`'s value, without the cache lookup for the packet start.
    #[inline(always)]
    fn base(&mut self, a: u8) -> Result<Option<u32>, Fault> {
        if a == 0 {
            Ok(Some(0))
        } else {
            self.anchor(a)
        }
    }

    /// A decoded EQ/MEQ/EQ2/RANGE/LEN: the same tests as `outcome` does from the image.
    #[inline(always)]
    fn fast(&mut self, op: Op, neg: bool) -> Result<bool, Fault> {
        self.s.steps += 1;
        let pool = self.prog.pool();
        match op {
            Op::Eq {
                anchor,
                off,
                size,
                mask,
                v0,
                start,
                n,
            } => {
                let Some(base) = self.base(anchor)? else {
                    return Ok(false);
                };
                let at = base.checked_add(off).ok_or(Fault)?;
                let v = load(self.pkt, at, size)? & mask;
                Ok(one_of(pool, v0, start, n, v) != neg)
            }
            Op::Eq2 {
                anchor,
                off,
                size,
                mask,
                delta,
                both,
                v0,
                start,
                n,
            } => {
                let Some(base) = self.base(anchor)? else {
                    return Ok(false);
                };
                let at = base.checked_add(off).ok_or(Fault)?;
                let at2 = at.checked_add(delta).ok_or(Fault)?;
                let first = one_of(pool, v0, start, n, load(self.pkt, at, size)? & mask);
                if first != both {
                    return Ok(first != neg);
                }
                Ok(one_of(pool, v0, start, n, load(self.pkt, at2, size)? & mask) != neg)
            }
            Op::Range {
                anchor,
                off,
                size,
                mask,
                start,
                n,
            } => {
                let Some(base) = self.base(anchor)? else {
                    return Ok(false);
                };
                let at = base.checked_add(off).ok_or(Fault)?;
                let v = load(self.pkt, at, size)? & mask;
                let r = &pool[start as usize..(start + 2 * n) as usize];
                Ok(r.chunks_exact(2).any(|p| p[0] <= v && v <= p[1]) != neg)
            }
            Op::Len { start, n } => {
                let l = self.wire_len;
                let r = &pool[start as usize..(start + 2 * n) as usize];
                Ok(r.chunks_exact(2).any(|p| p[0] <= l && l <= p[1]) != neg)
            }
            Op::Image => unreachable!("interpreted from the image"),
        }
    }

    /// One instruction; `rest` holds the instructions after it in its pass, which
    /// an ARITH with CONT slots reads.
    #[inline]
    fn insn(
        &mut self,
        insn: &Instruction,
        rest: &[Instruction],
        pass: usize,
        depth: usize,
    ) -> Result<bool, Fault> {
        self.s.steps += 1;
        Ok(match self.outcome(insn, rest, pass, depth)? {
            Some(r) => r != insn.negated(),
            None => false,
        })
    }

    fn outcome(
        &mut self,
        insn: &Instruction,
        rest: &[Instruction],
        pass: usize,
        depth: usize,
    ) -> Outcome {
        let d = insn.decode();
        let Some(op) = d.opcode else { return Ok(None) };
        let n = d.count as usize;
        match op {
            Opcode::Group => return self.group(insn.p(1), insn.p(2), pass, depth),
            Opcode::Len => return Ok(self.len(insn, n)),
            Opcode::Arith => return self.arith(insn, rest),
            // A CONT slot is part of the ARITH before it, which reads it; on its own
            // it tests nothing.
            Opcode::ArithCont => return Ok(Some(true)),
            _ => {}
        }
        let Some(size) = d.size else { return Ok(None) };
        if n > Instruction::capacity(op, size) {
            return Ok(None);
        }
        let Some(base) = self.anchor(d.anchor)? else {
            return Ok(None);
        };
        let at = base.checked_add(d.offset as u32).ok_or(Fault)?;
        match op {
            Opcode::Eq => {
                let v = load(self.pkt, at, size)?;
                Ok(Some((0..n).any(|i| insn.operand(1, size, i) == v)))
            }
            Opcode::MEq => {
                let v = load(self.pkt, at, size)? & insn.p(1);
                Ok(Some((0..n).any(|i| insn.operand(2, size, i) == v)))
            }
            Opcode::Range => {
                let v = load(self.pkt, at, size)? & insn.p(1);
                Ok(Some(in_ranges(insn, 2, size, n, v)))
            }
            Opcode::Eq2 | Opcode::Range2 => {
                let both = insn.p(1) & BOTH_FIELDS != 0;
                let at2 = at.checked_add(insn.p(1) & 0xffff).ok_or(Fault)?;
                let test = |v: u32| {
                    let v = v & insn.p(2);
                    if op == Opcode::Eq2 {
                        (0..n).any(|i| insn.operand(3, size, i) == v)
                    } else {
                        in_ranges(insn, 3, size, n, v)
                    }
                };
                // Field order and short-circuit as in libpcap's code: the second field
                // is loaded only if the first does not decide.
                let first = test(load(self.pkt, at, size)?);
                if first != both {
                    return Ok(Some(first));
                }
                Ok(Some(test(load(self.pkt, at2, size)?)))
            }
            Opcode::Prefix => self.prefix(insn, n, at),
            Opcode::Protochain => self.protochain(at, insn.p(2), insn.p(1)),
            Opcode::Set => self.set(insn, n, at, size),
            Opcode::Len | Opcode::Arith | Opcode::ArithCont | Opcode::Group => {
                unreachable!("handled above")
            }
        }
    }

    /// Resolves anchor `a`; `Ok(None)` if the anchor table entry is invalid.
    fn anchor(&mut self, a: u8) -> Result<Option<u32>, Fault> {
        let a = a as usize;
        if self.s.anchor_valid & (1 << a) != 0 {
            let v = self.s.anchor_val[a];
            return if v == NO_ANCHOR {
                Ok(None)
            } else {
                Ok(Some(v))
            };
        }
        let v = self.resolve(a)?;
        self.s.anchor_valid |= 1 << a;
        self.s.anchor_val[a] = v.unwrap_or(NO_ANCHOR);
        Ok(v)
    }

    fn resolve(&mut self, a: usize) -> Result<Option<u32>, Fault> {
        let Some(anchor) = self.prog.anchor(a) else {
            return Ok(None);
        };
        let parent = anchor.parent();
        let Some(rule) = anchor.rule() else {
            return Ok(None);
        };
        if parent as usize >= a {
            return Ok(None);
        }
        let Some(pv) = self.anchor(parent)? else {
            return Ok(None);
        };
        let h = pv.checked_add(anchor.offset() as u32).ok_or(Fault)?;
        apply_rule(rule, self.pkt, h).map(Some)
    }

    fn group(&mut self, first: u32, count: u32, pass: usize, depth: usize) -> Outcome {
        let total = self.prog.slots();
        let (first, count) = (first as usize, count as usize);
        // Only later passes, so evaluation cannot cycle; bounded nesting keeps the
        // native stack small.
        if first <= pass || count > total || first > total - count || depth + 1 >= MAX_GROUP_DEPTH {
            return Ok(None);
        }
        for j in first..first + count {
            if self.prog.pass(j).map(|p| p.kind) != Some(PassKind::Sub) {
                continue;
            }
            if self.pass(j, depth + 1)? {
                return Ok(Some(true));
            }
        }
        Ok(Some(false))
    }

    /// SET: builds the key from field A (and B) and looks it up; with `n == 2` the
    /// second pair is tried when the first is not in the table.
    fn set(&mut self, insn: &Instruction, n: usize, at: u32, size: Size) -> Outcome {
        if n == 0 {
            return Ok(None);
        }
        let p2 = insn.p(2);
        let b = if p2 & SET_FIELD_B != 0 {
            let d = Instruction::new(p2 & 0x00ff_ffff, [0; 7]).decode();
            let Some(bsize) = d.size else { return Ok(None) };
            let Some(base) = self.anchor(d.anchor)? else {
                return Ok(None);
            };
            Some((base.checked_add(d.offset as u32).ok_or(Fault)?, bsize))
        } else {
            None
        };
        let (da, db) = (insn.p(3) & 0xffff, insn.p(3) >> 16);
        for pair in 0..n as u32 {
            let a_at = at.checked_add(pair * da).ok_or(Fault)?;
            let a = load(self.pkt, a_at, size)? & insn.p(4);
            let bv = match b {
                Some((b_at, bsize)) => {
                    let b_at = b_at.checked_add(pair * db).ok_or(Fault)?;
                    load(self.pkt, b_at, bsize)? & insn.p(5)
                }
                None => 0,
            };
            match self.prog.contains(insn.p(1), (a as u64) << 32 | bv as u64) {
                None => return Ok(None),
                Some(true) => return Ok(Some(true)),
                Some(false) => {}
            }
        }
        Ok(Some(false))
    }

    fn len(&self, insn: &Instruction, n: usize) -> Option<bool> {
        if n == 0 || n > 3 {
            return None;
        }
        let l = self.wire_len;
        Some((0..n).any(|i| insn.p(1 + 2 * i) <= l && l <= insn.p(2 + 2 * i)))
    }

    fn prefix(&self, insn: &Instruction, n: usize, at: u32) -> Outcome {
        let p7 = insn.p(7);
        let bits = p7 & 0xff;
        if n == 0 || n > 6 || bits > 32 * n as u32 {
            return Ok(None);
        }
        let delta = (p7 >> 8) & 0xffff;
        let both = p7 & BOTH_FIELDS != 0;
        let test = |at: u32| -> Result<bool, Fault> {
            for i in 0..n {
                let used = bits.saturating_sub(32 * i as u32).min(32);
                if used == 0 {
                    break;
                }
                let mask = if used == 32 {
                    u32::MAX
                } else {
                    !(u32::MAX >> used)
                };
                let v = load(
                    self.pkt,
                    at.checked_add(4 * i as u32).ok_or(Fault)?,
                    Size::B4,
                )?;
                if (v ^ insn.p(1 + i)) & mask != 0 {
                    return Ok(false);
                }
            }
            Ok(true)
        };
        let first = test(at)?;
        if delta == 0 || first != both {
            return Ok(Some(first));
        }
        Ok(Some(test(at.checked_add(delta).ok_or(Fault)?)?))
    }

    /// libpcap's protochain walk: follow IPv6 extension headers and AH until the
    /// protocol is found, IPPROTO_NONE, or an unknown header ends the chain.
    ///
    /// libpcap 1.10's AH step *sets* the header offset to the AH length instead of
    /// adding it; netsift reproduces that to agree with it. Such a walk can revisit a
    /// header forever (libpcap then never returns); netsift stops after a fixed number
    /// of steps and answers false, so evaluation stays bounded.
    fn protochain(&self, nl: u32, version: u32, want: u32) -> Outcome {
        const MAX_STEPS: usize = 256;
        let (mut proto, mut x) = match version {
            4 => (
                load(self.pkt, nl.checked_add(9).ok_or(Fault)?, Size::B1)?,
                4 * (load(self.pkt, nl, Size::B1)? & 0xf),
            ),
            6 => (
                load(self.pkt, nl.checked_add(6).ok_or(Fault)?, Size::B1)?,
                40,
            ),
            _ => return Ok(None),
        };
        for _ in 0..MAX_STEPS {
            if proto == want {
                return Ok(Some(true));
            }
            let at = nl.checked_add(x).ok_or(Fault)?;
            let len_at = at.checked_add(1).ok_or(Fault)?;
            match proto {
                59 => return Ok(Some(false)),
                0 | 60 | 43 | 44 if version == 6 => {
                    let next = load(self.pkt, at, Size::B1)?;
                    x = x
                        .checked_add((load(self.pkt, len_at, Size::B1)? + 1) * 8)
                        .ok_or(Fault)?;
                    proto = next;
                }
                51 => {
                    let next = load(self.pkt, at, Size::B1)?;
                    x = (load(self.pkt, len_at, Size::B1)? + 2) * 4;
                    proto = next;
                }
                _ => return Ok(Some(false)),
            }
        }
        Ok(Some(false))
    }

    /// ARITH: a straight-line stack program over the head's micro-ops and those of
    /// the CONT slots its offset field counts (`rest` starts right after the head),
    /// then one relation. Each slot names constants in its own pool words.
    fn arith(&mut self, insn: &Instruction, rest: &[Instruction]) -> Outcome {
        let d = insn.decode();
        let rel = d.anchor & 3;
        let Some(conts) = rest.get(..insn.arith_ext()) else {
            return Ok(None);
        };
        // The whole chain is checked before any load runs, so a broken chain is
        // invalid (false) whatever the packet, never a fault.
        let count_ok = |c: u8| (1..=netsift_isa::insn::ARITH_MAX_OPS).contains(&(c as usize));
        let chain_ok = conts.iter().all(|c| {
            let cd = c.decode();
            cd.opcode == Some(Opcode::ArithCont) && count_ok(cd.count)
        });
        if rel > 2 || !count_ok(d.count) || !chain_ok {
            return Ok(None);
        }
        let mut st = Stack {
            v: [0; ARITH_STACK],
            sp: 0,
        };
        if !self.micro_ops(insn, d.count as usize, &mut st)? {
            return Ok(None);
        }
        for c in conts {
            if !self.micro_ops(c, c.decode().count as usize, &mut st)? {
                return Ok(None);
            }
        }
        if st.sp != 2 {
            return Ok(None);
        }
        let (a, b) = (st.v[0], st.v[1]);
        Ok(Some(match rel {
            0 => a == b,
            1 => a > b,
            _ => a >= b,
        }))
    }

    /// Runs one slot's `n` micro-ops on the stack. `Ok(false)`: the slot is invalid
    /// (a count of 0 or above 14, stack misuse, a pool reference to no word, a bad
    /// index mode).
    fn micro_ops(&mut self, insn: &Instruction, n: usize, st: &mut Stack) -> Result<bool, Fault> {
        if n == 0 || n > netsift_isa::insn::ARITH_MAX_OPS {
            return Ok(false);
        }
        let (stack, sp) = (&mut st.v, &mut st.sp);
        for i in 0..n {
            let m = (insn.p(1 + i / 2) >> (16 * (i % 2))) as u16;
            let op = ArithOp::from_bits(m >> 12);
            let imm = m & 0x800 != 0;
            let arg = m & 0x7ff;
            let operand = if arg >= ARITH_POOL_BASE {
                match insn.0.get((arg - ARITH_POOL_BASE + 1) as usize) {
                    Some(&v) => v,
                    None => return Ok(false),
                }
            } else {
                arg as u32
            };
            match op {
                ArithOp::Push | ArithOp::Len => {
                    if *sp == ARITH_STACK {
                        return Ok(false);
                    }
                    stack[*sp] = if op == ArithOp::Len {
                        self.wire_len
                    } else {
                        operand
                    };
                    *sp += 1;
                }
                ArithOp::Ld1 | ArithOp::Ld2 | ArithOp::Ld4 => {
                    if *sp == 0 {
                        return Ok(false);
                    }
                    let size = match op {
                        ArithOp::Ld1 => Size::B1,
                        ArithOp::Ld2 => Size::B2,
                        _ => Size::B4,
                    };
                    let Some(mode) = IndexMode::of_arg(arg) else {
                        return Ok(false);
                    };
                    let a = (arg & 0x3f) as u8;
                    let Some(base) = self.anchor(a)? else {
                        return Ok(false);
                    };
                    // The anchor's offset field is libpcap's constant part of the
                    // header offset (anchor 0, the packet start, has none).
                    let o = match (mode, a) {
                        (IndexMode::Plain, _) | (_, 0) => 0,
                        _ => match self.prog.anchor(a as usize) {
                            Some(an) => an.offset() as u32,
                            None => return Ok(false),
                        },
                    };
                    let at = mode.place(base, o, stack[*sp - 1]).ok_or(Fault)?;
                    stack[*sp - 1] = load(self.pkt, at, size)?;
                }
                ArithOp::Neg => {
                    if *sp == 0 {
                        return Ok(false);
                    }
                    stack[*sp - 1] = stack[*sp - 1].wrapping_neg();
                }
                _ => {
                    let b = if imm {
                        operand
                    } else {
                        if *sp == 0 {
                            return Ok(false);
                        }
                        *sp -= 1;
                        stack[*sp]
                    };
                    if *sp == 0 {
                        return Ok(false);
                    }
                    let a = stack[*sp - 1];
                    stack[*sp - 1] = match op {
                        ArithOp::Add => a.wrapping_add(b),
                        ArithOp::Sub => a.wrapping_sub(b),
                        ArithOp::Mul => a.wrapping_mul(b),
                        ArithOp::Div => a.checked_div(b).ok_or(Fault)?,
                        ArithOp::Mod => a.checked_rem(b).ok_or(Fault)?,
                        ArithOp::And => a & b,
                        ArithOp::Or => a | b,
                        ArithOp::Xor => a ^ b,
                        // BPF (libpcap's bpf_filter) yields 0 for shifts of 32 or more.
                        ArithOp::Shl => a.checked_shl(b).unwrap_or(0),
                        ArithOp::Shr => a.checked_shr(b).unwrap_or(0),
                        _ => return Ok(false),
                    };
                }
            }
        }
        Ok(true)
    }
}

/// The ARITH stack, carried from a head through its CONT slots.
struct Stack {
    v: [u32; ARITH_STACK],
    sp: usize,
}

/// Whether `v` is one of the `n` operands at `pool[start..]` (the first is `v0`).
#[inline(always)]
fn one_of(pool: &[u32], v0: u32, start: u32, n: u32, v: u32) -> bool {
    match n {
        1 => v == v0,
        _ => any_eq(&pool[start as usize..(start + n) as usize], v),
    }
}

/// Whether `v` is one of `vals`, without an early exit, so the loop vectorises.
#[inline]
fn any_eq(vals: &[u32], v: u32) -> bool {
    let mut hit = false;
    for &x in vals {
        hit |= x == v;
    }
    hit
}

#[inline]
fn in_ranges(insn: &Instruction, first: usize, size: Size, n: usize, v: u32) -> bool {
    (0..n).any(|i| {
        let (lo, hi) = match size {
            Size::B4 => (insn.p(first + 2 * i), insn.p(first + 2 * i + 1)),
            _ => (insn.p(first + i) & 0xffff, insn.p(first + i) >> 16),
        };
        lo <= v && v <= hi
    })
}

/// One instruction evaluated from its image for one packet, with whatever anchors
/// `scratch` already holds (and resolving the rest into it): the batch engine's path
/// for opcodes it does not run lane by lane. The batch engine runs GROUP itself.
pub(crate) fn image_insn<P: Program + ?Sized>(
    prog: &P,
    scratch: &mut Scratch,
    packet: &[u8],
    wire_len: u32,
    insn: &Instruction,
    rest: &[Instruction],
) -> Result<bool, Fault> {
    debug_assert_ne!(insn.decode().opcode, Some(Opcode::Group));
    let mut cx = Cx {
        prog,
        pkt: packet,
        wire_len,
        s: scratch,
    };
    cx.insn(insn, rest, 0, 0)
}
