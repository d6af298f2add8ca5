//! The reference evaluator: the meaning of a pass set, written for clarity.
//!
//! Like memchr's `naive` module, this is the slowest and plainest form of the
//! engine, kept as the oracle every fast executor is tested against (the
//! per-packet interpreter, the lean walk, the batch engine with each compare kernel,
//! live sets, and later the kernel backend). It shares no code with them: it reads
//! every instruction straight from its image on every packet, caches nothing but
//! what the semantics require (each pass's result, for GROUP members and children),
//! and states each rule of `docs/isa.md` §2-§6 once, in the order the checks apply.
//!
//! It is not for filtering traffic: anchors are recomputed at every use and
//! operands unpacked at every test.

use netsift_isa::insn::{
    ArithOp, IndexMode, Opcode, Size, ARITH_MAX_OPS, ARITH_POOL_BASE, ARITH_STACK, BOTH_FIELDS,
    SET_FIELD_B,
};
use netsift_isa::{AnchorRule, Instruction, PassKind, PassSet, MAX_GROUP_DEPTH};

use crate::Verdict;

/// The verdict of `set` on a packet with captured bytes `packet` and length
/// `wire_len` on the wire, by the definitions alone.
pub fn evaluate(set: &PassSet, packet: &[u8], wire_len: u32) -> Verdict {
    let mut run = Run {
        set,
        pkt: packet,
        wire_len,
        done: vec![None; set.passes().len()],
    };
    for (i, p) in set.passes().iter().enumerate() {
        if p.kind != PassKind::Root {
            continue;
        }
        match run.pass(i, 0) {
            Ok(true) => return Verdict::Accept,
            Ok(false) => {}
            // A load past the captured bytes (or another fault) rejects the packet,
            // whatever later passes would say.
            Err(Fault) => return Verdict::Reject,
        }
    }
    Verdict::Reject
}

/// What `set` means once added to a live set (`live::Writer::add_clause`), as a
/// static set: each `copied` mark that does not repeat the parent's image at the
/// same index is cleared. A live set reuses a parent's result only where the two
/// instructions are one write (their stamps agree), a static set wherever the mark
/// says so; every other part of the meaning, tables included, is kept. So
/// `evaluate(&live_meaning(set), ..)` is the reference for a live set.
pub fn live_meaning(set: &PassSet) -> PassSet {
    let passes = set.passes();
    let raw = passes
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let parent = p
                .parent
                .map(usize::from)
                .filter(|&q| q < i)
                .map(|q| &passes[q]);
            let insns = p
                .instructions()
                .iter()
                .enumerate()
                .map(|(k, insn)| {
                    let theirs = parent.and_then(|q| q.instructions().get(k));
                    let same = theirs.map(|x| x.with_copied(true)) == Some(insn.with_copied(true));
                    insn.with_copied(insn.copied() && same)
                })
                .collect();
            (p.kind, p.parent, insns)
        })
        .collect();
    let mut out = PassSet::from_raw(raw, set.anchors().to_vec()).expect("the same structure");
    for t in set.tables() {
        out.add_table(t.keys().iter().copied())
            .expect("the same tables");
    }
    out
}

/// A fault: a load past the captured bytes, an offset past 2^32, a division by zero.
struct Fault;

/// What an instruction says before its negation flag: `None` for an invalid image,
/// which is false whatever the flag.
type Said = Result<Option<bool>, Fault>;

struct Run<'a> {
    set: &'a PassSet,
    pkt: &'a [u8],
    wire_len: u32,
    /// For each pass that ran on this packet: how many instructions held before the
    /// first that failed (all of them if it accepted), and whether it accepted.
    done: Vec<Option<(usize, bool)>>,
}

impl Run<'_> {
    /// Pass `i`: true if every instruction holds. A pass runs at most once a packet;
    /// a second request gets the first result.
    fn pass(&mut self, i: usize, depth: usize) -> Result<bool, Fault> {
        if let Some((_, accepted)) = self.done[i] {
            return Ok(accepted);
        }
        let pass = &self.set.passes()[i];
        let insns = pass.instructions();
        // A parent (an earlier pass) that already ran on this packet lends its
        // results to the instructions marked copied, up to where it failed.
        let parent = pass
            .parent
            .map(usize::from)
            .filter(|&p| p < i)
            .and_then(|p| Some((self.done[p]?.0, self.set.passes()[p].len())));
        for (k, insn) in insns.iter().enumerate() {
            let lent = match parent {
                Some((held, plen)) if Instruction::reusable(insns, k) && k <= held && k < plen => {
                    Some(k < held)
                }
                _ => None,
            };
            let holds = match lent {
                Some(h) => h,
                None => self.instruction(insn, &insns[k + 1..], i, depth)?,
            };
            if !holds {
                self.done[i] = Some((k, false));
                return Ok(false);
            }
        }
        self.done[i] = Some((insns.len(), true));
        Ok(true)
    }

    /// One instruction of pass `pass`, with `rest` the instructions after it.
    fn instruction(
        &mut self,
        insn: &Instruction,
        rest: &[Instruction],
        pass: usize,
        depth: usize,
    ) -> Result<bool, Fault> {
        Ok(match self.said(insn, rest, pass, depth)? {
            Some(r) => r != insn.negated(),
            None => false,
        })
    }

    fn said(
        &mut self,
        insn: &Instruction,
        rest: &[Instruction],
        pass: usize,
        depth: usize,
    ) -> Said {
        let d = insn.decode();
        let n = d.count as usize;
        let Some(op) = d.opcode else { return Ok(None) };
        // The opcodes that load no field of their own.
        match op {
            Opcode::Group => return self.group(insn.p(1), insn.p(2), pass, depth),
            Opcode::Len => {
                if !(1..=3).contains(&n) {
                    return Ok(None);
                }
                let l = self.wire_len;
                return Ok(Some(
                    (0..n).any(|i| insn.p(1 + 2 * i) <= l && l <= insn.p(2 + 2 * i)),
                ));
            }
            Opcode::Arith => return self.arith(insn, rest),
            Opcode::ArithCont => return Ok(Some(true)),
            _ => {}
        }
        // The rest load a field of `size` at the anchor plus the offset; the size and
        // count are checked before the anchor is resolved.
        let Some(size) = d.size else { return Ok(None) };
        if n > Instruction::capacity(op, size) {
            return Ok(None);
        }
        let Some(base) = self.anchor(d.anchor as usize)? else {
            return Ok(None);
        };
        let at = add(base, d.offset as u32)?;
        match op {
            Opcode::Eq => {
                let v = self.load(at, size)?;
                Ok(Some((0..n).any(|i| insn.operand(1, size, i) == v)))
            }
            Opcode::MEq => {
                let v = self.load(at, size)? & insn.p(1);
                Ok(Some((0..n).any(|i| insn.operand(2, size, i) == v)))
            }
            Opcode::Range => {
                let v = self.load(at, size)? & insn.p(1);
                Ok(Some(
                    ranges(insn, 2, size, n).any(|(lo, hi)| lo <= v && v <= hi),
                ))
            }
            Opcode::Eq2 | Opcode::Range2 => {
                // Both addresses are computed before either field is loaded.
                let at2 = add(at, insn.p(1) & 0xffff)?;
                let both = insn.p(1) & BOTH_FIELDS != 0;
                let test = |v: u32| {
                    let v = v & insn.p(2);
                    if op == Opcode::Eq2 {
                        (0..n).any(|i| insn.operand(3, size, i) == v)
                    } else {
                        ranges(insn, 3, size, n).any(|(lo, hi)| lo <= v && v <= hi)
                    }
                };
                // The second field is loaded only if the first does not decide:
                // "either" is decided by a hit, "both" by a miss.
                let first = test(self.load(at, size)?);
                if first != both {
                    return Ok(Some(first));
                }
                Ok(Some(test(self.load(at2, size)?)))
            }
            Opcode::Prefix => self.prefix(insn, n, at),
            Opcode::Protochain => self.protochain(at, insn.p(2), insn.p(1)),
            Opcode::Set => self.set_lookup(insn, n, at, size),
            Opcode::Len | Opcode::Arith | Opcode::ArithCont | Opcode::Group => {
                unreachable!("answered above")
            }
        }
    }

    /// GROUP: true if some Sub pass among `first .. first + count` accepts (in
    /// order, stopping at the first); Root passes in the range are skipped. Invalid
    /// if the range starts at or before the GROUP's own pass, runs past the set, or
    /// the nesting reaches [`MAX_GROUP_DEPTH`].
    fn group(&mut self, first: u32, count: u32, pass: usize, depth: usize) -> Said {
        let (first, count) = (first as usize, count as usize);
        let total = self.set.passes().len();
        if first <= pass || first.checked_add(count).is_none_or(|end| end > total) {
            return Ok(None);
        }
        if depth + 1 >= MAX_GROUP_DEPTH {
            return Ok(None);
        }
        for j in first..first + count {
            if self.set.passes()[j].kind == PassKind::Sub && self.pass(j, depth + 1)? {
                return Ok(Some(true));
            }
        }
        Ok(Some(false))
    }

    /// Anchor `a`'s value: `None` if it cannot be resolved (no such entry, an
    /// undefined rule, a parent that is not earlier, an unresolvable parent).
    fn anchor(&self, a: usize) -> Result<Option<u32>, Fault> {
        if a == 0 {
            return Ok(Some(0));
        }
        let Some(&entry) = self.set.anchors().get(a) else {
            return Ok(None);
        };
        let Some(rule) = entry.rule() else {
            return Ok(None);
        };
        let parent = entry.parent() as usize;
        if parent >= a {
            return Ok(None);
        }
        let Some(pv) = self.anchor(parent)? else {
            return Ok(None);
        };
        let h = add(pv, entry.offset() as u32)?;
        let v = self.rule(rule, h)?;
        // u32::MAX cannot address a byte and is the engines' "unresolved" mark.
        if v == u32::MAX {
            return Err(Fault);
        }
        Ok(Some(v))
    }

    /// An anchor rule applied to the header at `h` (docs/isa.md §3).
    fn rule(&self, rule: AnchorRule, h: u32) -> Result<u32, Fault> {
        let ipv4 = |hl_byte: u32| add(h, 4 * (hl_byte & 0x0f));
        match rule {
            AnchorRule::Const => Ok(h),
            AnchorRule::Ipv4Payload => ipv4(self.load(h, Size::B1)?),
            AnchorRule::TcpPayload => add(h, 4 * (self.load(add(h, 12)?, Size::B1)? >> 4)),
            AnchorRule::GenevePayload => add(h, 8 + 4 * (self.load(h, Size::B1)? & 0x3f)),
            AnchorRule::IpPayloadByType => {
                let ty = self.load(h.checked_sub(2).ok_or(Fault)?, Size::B2)?;
                if ty == 0x0800 || ty == 0x0021 {
                    ipv4(self.load(h, Size::B1)?)
                } else {
                    add(h, 40)
                }
            }
            AnchorRule::IpPayloadByVersion => {
                let b = self.load(h, Size::B1)?;
                if b >> 4 == 4 {
                    ipv4(b)
                } else {
                    add(h, 40)
                }
            }
            AnchorRule::IpPayloadByAf => {
                let af = self.load(h.checked_sub(4).ok_or(Fault)?, Size::B4)?;
                if af == 2 || af == 0x0200_0000 {
                    ipv4(self.load(h, Size::B1)?)
                } else {
                    add(h, 40)
                }
            }
            AnchorRule::PflogPayload => add(h, (self.load(h, Size::B1)? + 3) & !3),
            AnchorRule::RadiotapHdr
            | AnchorRule::AvsHdr
            | AnchorRule::PrismHdr
            | AnchorRule::WlanPayload
            | AnchorRule::WlanPayloadPadded => {
                crate::wlan::apply(rule, h, |at, size| self.load(at.ok_or(Fault)?, size))?
                    .ok_or(Fault)
            }
            AnchorRule::GeneveLinkType | AnchorRule::GeneveLinkPayload => {
                // Both Geneve fields are loaded whichever way the test goes.
                let options = 4 * (self.load(h, Size::B1)? & 0x3f);
                let ethernet = self.load(add(h, 2)?, Size::B2)? == 0x6558;
                match (rule, ethernet) {
                    (AnchorRule::GeneveLinkType, true) => add(add(h, 8 + options)?, 12),
                    (AnchorRule::GeneveLinkType, false) => add(h, 2),
                    (_, true) => add(add(h, 8 + options)?, 14),
                    (_, false) => add(h, 8 + options),
                }
            }
        }
    }

    /// The big-endian field of `size` at `at`; a fault if it is not all captured.
    fn load(&self, at: u32, size: Size) -> Result<u32, Fault> {
        let start = at as usize;
        let bytes = self
            .pkt
            .get(start..start + size.bytes() as usize)
            .ok_or(Fault)?;
        Ok(bytes.iter().fold(0, |v, &b| v << 8 | b as u32))
    }

    /// PREFIX: the first `bits` bits of the words from `at` equal p1.., and with a
    /// delta, the same at `at + delta` as EQ2's second field.
    fn prefix(&self, insn: &Instruction, n: usize, at: u32) -> Said {
        let p7 = insn.p(7);
        let bits = (p7 & 0xff) as usize;
        if n == 0 || n > 6 || bits > 32 * n {
            return Ok(None);
        }
        let delta = (p7 >> 8) & 0xffff;
        let both = p7 & BOTH_FIELDS != 0;
        let matches = |at: u32| -> Result<bool, Fault> {
            for w in 0..n {
                let used = bits.saturating_sub(32 * w).min(32);
                if used == 0 {
                    break;
                }
                let mask = (u32::MAX as u64) << (32 - used) & u32::MAX as u64;
                let v = self.load(add(at, 4 * w as u32)?, Size::B4)?;
                if (v ^ insn.p(1 + w)) as u64 & mask != 0 {
                    return Ok(false);
                }
            }
            Ok(true)
        };
        let first = matches(at)?;
        if delta == 0 || first != both {
            return Ok(Some(first));
        }
        Ok(Some(matches(add(at, delta)?)?))
    }

    /// PROTOCHAIN: libpcap 1.10's walk of the header chain from the network header
    /// at `nl` (IPv6 extension headers, AH), bounded at 256 steps.
    fn protochain(&self, nl: u32, version: u32, want: u32) -> Said {
        let (mut proto, mut x) = match version {
            4 => (
                self.load(add(nl, 9)?, Size::B1)?,
                4 * (self.load(nl, Size::B1)? & 0xf),
            ),
            6 => (self.load(add(nl, 6)?, Size::B1)?, 40),
            _ => return Ok(None),
        };
        for _ in 0..256 {
            if proto == want {
                return Ok(Some(true));
            }
            let at = add(nl, x)?;
            let len_at = add(at, 1)?;
            match proto {
                // No next header.
                59 => return Ok(Some(false)),
                // Hop-by-hop, destination options, routing, fragment.
                0 | 60 | 43 | 44 if version == 6 => {
                    let next = self.load(at, Size::B1)?;
                    x = add(x, (self.load(len_at, Size::B1)? + 1) * 8)?;
                    proto = next;
                }
                // AH: libpcap *sets* the offset to the AH length.
                51 => {
                    let next = self.load(at, Size::B1)?;
                    x = (self.load(len_at, Size::B1)? + 2) * 4;
                    proto = next;
                }
                _ => return Ok(Some(false)),
            }
        }
        Ok(Some(false))
    }

    /// SET: the key from field A (and B, if p2 describes one) is in table p1; with
    /// count 2 the pair `da`/`db` bytes on is tried when the first is not.
    fn set_lookup(&self, insn: &Instruction, n: usize, at: u32, size: Size) -> Said {
        if n == 0 {
            return Ok(None);
        }
        let p2 = insn.p(2);
        let field_b = if p2 & SET_FIELD_B != 0 {
            let d = Instruction::new(p2 & 0x00ff_ffff, [0; 7]).decode();
            let Some(bsize) = d.size else { return Ok(None) };
            let Some(base) = self.anchor(d.anchor as usize)? else {
                return Ok(None);
            };
            Some((add(base, d.offset as u32)?, bsize))
        } else {
            None
        };
        let (da, db) = (insn.p(3) & 0xffff, insn.p(3) >> 16);
        for pair in 0..n as u32 {
            let a = self.load(add(at, pair * da)?, size)? & insn.p(4);
            let b = match field_b {
                Some((b_at, bsize)) => self.load(add(b_at, pair * db)?, bsize)? & insn.p(5),
                None => 0,
            };
            match table_contains(self.set, insn.p(1), (a as u64) << 32 | b as u64) {
                None => return Ok(None),
                Some(true) => return Ok(Some(true)),
                Some(false) => {}
            }
        }
        Ok(Some(false))
    }

    /// ARITH: the head's micro-ops, then those of the CONT slots its offset field
    /// counts, on one stack of at most [`ARITH_STACK`] values; then `a rel b` on the
    /// two values left. The whole chain is checked before anything runs.
    fn arith(&self, head: &Instruction, rest: &[Instruction]) -> Said {
        let d = head.decode();
        let rel = d.anchor & 3;
        let count_ok = |c: u8| (1..=ARITH_MAX_OPS).contains(&(c as usize));
        let Some(conts) = rest.get(..head.arith_ext()) else {
            return Ok(None);
        };
        let chain_ok = conts.iter().all(|c| {
            let cd = c.decode();
            cd.opcode == Some(Opcode::ArithCont) && count_ok(cd.count)
        });
        if rel > 2 || !count_ok(d.count) || !chain_ok {
            return Ok(None);
        }
        let mut stack = Vec::with_capacity(ARITH_STACK);
        for slot in std::iter::once(head).chain(conts) {
            for i in 0..slot.decode().count as usize {
                let micro = (slot.p(1 + i / 2) >> (16 * (i % 2))) as u16;
                if self.micro(slot, micro, &mut stack)?.is_none() {
                    return Ok(None);
                }
            }
        }
        let [a, b] = stack[..] else { return Ok(None) };
        Ok(Some(match rel {
            0 => a == b,
            1 => a > b,
            _ => a >= b,
        }))
    }

    /// One micro-op of `slot`; `None` if it makes the instruction invalid.
    fn micro(&self, slot: &Instruction, m: u16, stack: &mut Vec<u32>) -> Result<Option<()>, Fault> {
        let op = ArithOp::from_bits(m >> 12);
        let imm = m & 0x800 != 0;
        let arg = m & 0x7ff;
        // 2040..=2046 name the slot's words p1..p7; 2047 names none.
        let operand = if arg >= ARITH_POOL_BASE {
            match slot.0.get((arg - ARITH_POOL_BASE + 1) as usize) {
                Some(&w) => w,
                None => return Ok(None),
            }
        } else {
            arg as u32
        };
        match op {
            ArithOp::Push | ArithOp::Len => {
                if stack.len() == ARITH_STACK {
                    return Ok(None);
                }
                stack.push(if op == ArithOp::Len {
                    self.wire_len
                } else {
                    operand
                });
            }
            ArithOp::Ld1 | ArithOp::Ld2 | ArithOp::Ld4 => {
                let Some(&index) = stack.last() else {
                    return Ok(None);
                };
                let Some(mode) = IndexMode::of_arg(arg) else {
                    return Ok(None);
                };
                let a = (arg & 0x3f) as usize;
                let Some(v) = self.anchor(a)? else {
                    return Ok(None);
                };
                // The anchor's offset field is libpcap's constant part of the header
                // offset, which the index modes split on (anchor 0 has none).
                let o = if mode == IndexMode::Plain || a == 0 {
                    0
                } else {
                    match self.set.anchors().get(a) {
                        Some(x) => x.offset() as u32,
                        None => return Ok(None),
                    }
                };
                let at = mode.place(v, o, index).ok_or(Fault)?;
                let size = match op {
                    ArithOp::Ld1 => Size::B1,
                    ArithOp::Ld2 => Size::B2,
                    _ => Size::B4,
                };
                *stack.last_mut().expect("checked above") = self.load(at, size)?;
            }
            ArithOp::Neg => {
                let Some(top) = stack.last_mut() else {
                    return Ok(None);
                };
                *top = top.wrapping_neg();
            }
            _ => {
                let b = if imm {
                    operand
                } else {
                    match stack.pop() {
                        Some(b) => b,
                        None => return Ok(None),
                    }
                };
                let Some(a) = stack.last_mut() else {
                    return Ok(None);
                };
                *a = match op {
                    ArithOp::Add => a.wrapping_add(b),
                    ArithOp::Sub => a.wrapping_sub(b),
                    ArithOp::Mul => a.wrapping_mul(b),
                    ArithOp::Div => a.checked_div(b).ok_or(Fault)?,
                    ArithOp::Mod => a.checked_rem(b).ok_or(Fault)?,
                    ArithOp::And => *a & b,
                    ArithOp::Or => *a | b,
                    ArithOp::Xor => *a ^ b,
                    // Shifts of 32 or more give 0, as in libpcap's bpf_filter.
                    ArithOp::Shl => a.checked_shl(b).unwrap_or(0),
                    ArithOp::Shr => a.checked_shr(b).unwrap_or(0),
                    _ => unreachable!("push, loads, neg and len are answered above"),
                };
            }
        }
        Ok(Some(()))
    }
}

/// Whether key table `table` of `set` holds `key`; `None` if there is no such
/// table (the SET is then invalid).
fn table_contains(set: &PassSet, table: u32, key: u64) -> Option<bool> {
    set.tables()
        .get(table as usize)
        .map(|t| t.keys().contains(&key))
}

/// `a + b`, or a fault past 2^32.
fn add(a: u32, b: u32) -> Result<u32, Fault> {
    a.checked_add(b).ok_or(Fault)
}

/// The `n` inclusive ranges from parameter word `first`: two words each for 4-byte
/// fields, else `lo` in the low half and `hi` in the high half of one word.
fn ranges(
    insn: &Instruction,
    first: usize,
    size: Size,
    n: usize,
) -> impl Iterator<Item = (u32, u32)> + '_ {
    (0..n).map(move |i| match size {
        Size::B4 => (insn.p(first + 2 * i), insn.p(first + 2 * i + 1)),
        _ => (insn.p(first + i) & 0xffff, insn.p(first + i) >> 16),
    })
}
