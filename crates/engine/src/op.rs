//! What each instruction means: images decoded into operations, and the one
//! definition of how an operation tests a packet.
//!
//! Every executor runs these operations, never images. [`decode`] reads an image
//! once, when a pass set is loaded or a live pass is published (O(pass), no
//! verification: any image decodes to something safe, an invalid one to an
//! operation that is false). [`Op::test`] is the meaning of each operation on one
//! packet, for the per-packet walks (`crate::eval`) and for the batch engine's lanes
//! where it has no lane form of its own (`crate::batch`). The batch engine's lane
//! forms of EQ/EQ2/RANGE/LEN (`batch/lanes.rs`) compute the same function over masks
//! and are held to the reference evaluator (`crate::naive`) by
//! `tests/executors.rs`.
//!
//! GROUP is the one opcode whose meaning is a walk over passes: [`group_range`]
//! says which passes it names, and each walker runs them.
//!
//! This module depends on nothing in the engine but [`Scratch`]'s "unresolved"
//! mark; the walkers and the batch engine depend on it.

use crate::scratch::NO_ANCHOR;
use netsift_isa::insn::{
    ArithOp, IndexMode, Opcode, Size, ARITH_MAX_OPS, ARITH_POOL_BASE, ARITH_STACK, BOTH_FIELDS,
    SET_FIELD_B,
};
use netsift_isa::{AnchorRule, Instruction, PassKind, PassSet, MAX_GROUP_DEPTH};

/// A fault: a load past the captured bytes, an offset past 2^32, a division by
/// zero. It rejects the packet (in a live set, the clause), as in BPF.
#[derive(Debug)]
pub(crate) struct Fault;

/// What a test says before negation: `None` for an invalid operation, which is
/// false whatever its negation flag says.
pub(crate) type Outcome = Result<Option<bool>, Fault>;

/// The field an operation reads: at the value of anchor `anchor` plus `off` bytes,
/// `size` wide (big-endian), ANDed with `mask` before the test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// The anchor whose value the offset counts from.
    pub anchor: u8,
    /// How many bytes are loaded.
    pub size: Size,
    /// Bytes from the anchor's value.
    pub off: u32,
    /// ANDed with the loaded value before it is tested.
    pub mask: u32,
}

/// An operation's operands: `n` of them (values, or `(lo, hi)` range pairs, or
/// words, as the operation says) at `start` in [`Decoded::pool`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operands {
    /// Index of the first in the pool.
    pub start: u32,
    /// How many there are.
    pub n: u32,
}

impl Operands {
    /// The `n` single-word operands in `pool`.
    #[inline(always)]
    pub fn values(self, pool: &[u32]) -> &[u32] {
        &pool[self.start as usize..][..self.n as usize]
    }

    /// The `n` `(lo, hi)` range pairs in `pool`, flat.
    #[inline(always)]
    pub fn ranges(self, pool: &[u32]) -> &[u32] {
        &pool[self.start as usize..][..2 * self.n as usize]
    }
}

/// The second field of a two-field test (EQ2, RANGE2, PREFIX with a distance):
/// `delta` bytes after the first, tested the same way. With `both`, both fields
/// must pass (a miss decides); else either (a hit decides).
///
/// `delta` is 16 bits in every encoding; kept at that width, a `Pair` fits with
/// the other groups in the 28 bytes an [`Op`] had with its fields flat (the
/// `layout` test holds this: executors walk arrays of steps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    /// Bytes from the first field to the second.
    pub delta: u16,
    /// Whether both fields must pass, rather than either.
    pub both: bool,
}

/// An instruction decoded. Operands live in a pool beside the operations, unpacked
/// to 32-bit values; [`Field`], [`Operands`] and [`Pair`] mean the same in every
/// operation that has them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// EQ or MEQ: the field is one of the operands.
    Eq {
        /// The field tested.
        field: Field,
        /// The first operand, tested without the pool when it is the only one.
        v0: u32,
        /// The values it may be.
        ops: Operands,
    },
    /// EQ2: the same test on the field, then (unless the first decides) on the
    /// pair's second field.
    Eq2 {
        /// The first field tested.
        field: Field,
        /// Where the second field is, and how the two decide.
        pair: Pair,
        /// The first operand, tested without the pool when it is the only one.
        v0: u32,
        /// The values each field may be.
        ops: Operands,
    },
    /// RANGE: the field is in one of the inclusive `(lo, hi)` ranges.
    Range {
        /// The field tested.
        field: Field,
        /// The ranges, as pairs.
        ops: Operands,
    },
    /// RANGE2: RANGE on two fields, decided as EQ2 is.
    Range2 {
        /// The first field tested.
        field: Field,
        /// Where the second field is, and how the two decide.
        pair: Pair,
        /// The ranges, as pairs.
        ops: Operands,
    },
    /// LEN: the wire length is in one of the ranges.
    Len {
        /// The ranges, as pairs.
        ops: Operands,
    },
    /// PREFIX: the first `bits` bits of the `n` words from anchor `anchor` plus
    /// `off` equal the operands; with a pair's distance, the same at the second
    /// field, decided as EQ2 is (no distance: one field).
    Prefix {
        /// The anchor the words are counted from.
        anchor: u8,
        /// Bytes from the anchor's value to the first word.
        off: u32,
        /// How many leading bits are compared.
        bits: u32,
        /// The second field (`delta` 0: none), and how the two decide.
        pair: Pair,
        /// The words of the prefix.
        ops: Operands,
    },
    /// ARITH with its CONT slots: `n` micro-ops at `pool[start..]`, two words each
    /// (the micro-op, with `BAD_OPERAND` (bit 16) set if it names no word; its operand),
    /// run on one stack, then `a rel b` (0 `=`, 1 `>`, 2 `>=`).
    Arith {
        /// The comparison: 0 `=`, 1 `>`, 2 `>=`.
        rel: u8,
        /// Index of the first micro-op's word in the pool.
        start: u32,
        /// How many micro-ops there are.
        n: u32,
    },
    /// GROUP: any Sub pass of `first .. first + count` accepts (the walks decide
    /// which passes that names).
    Group {
        /// The first pass named.
        first: u32,
        /// How many passes are named.
        count: u32,
    },
    /// PROTOCHAIN: the header chain from the network header at anchor `anchor`
    /// plus `off` holds protocol `proto`.
    Protochain {
        /// The anchor the network header is counted from.
        anchor: u8,
        /// Bytes from the anchor's value to the network header.
        off: u32,
        /// An IPv6 chain, else IPv4.
        v6: bool,
        /// The protocol looked for.
        proto: u32,
    },
    /// SET: the key from field A (and B) is in a table; with `n` 2 the second pair
    /// is tried when the first is not. `pool[start..]` holds the table, field B
    /// (`has_b`, anchor, offset, size code), the pair deltas and the two masks.
    Set {
        /// Field A's anchor.
        anchor: u8,
        /// Field A's offset from its anchor.
        off: u32,
        /// Field A's width.
        size: Size,
        /// How many key pairs are tried (1 or 2).
        n: u32,
        /// Index of the nine words of the table's description in the pool.
        start: u32,
    },
    /// A CONT slot walked over on its own (its ARITH reads it): tests nothing.
    True,
    /// An invalid image that loads nothing.
    Invalid,
    /// An image found invalid only after its field's address: resolving the anchor
    /// and adding the offset can fault first, as they do for valid images.
    InvalidAt {
        /// The anchor of the field whose address is worked out.
        anchor: u8,
        /// The field's offset from its anchor.
        off: u32,
    },
}

/// Set in an ARITH micro-op's pool word when its operand names no parameter word
/// (2047): the instruction is invalid when it reaches that micro-op.
pub const BAD_OPERAND: u32 = 1 << 16;

/// One instruction of a decoded pass: the operation and what the walk needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The operation.
    pub op: Op,
    /// The instruction's negation flag: the test's result is inverted (an invalid
    /// operation stays false).
    pub negate: bool,
    /// It may take the parent's result (`Instruction::reusable`: marked copied,
    /// and for an ARITH, every CONT slot it reads too).
    pub copied: bool,
    /// The slots it reads: 1, or 1 + its CONT slots (live sets compare the stamps
    /// of all of them before reusing a parent's result).
    pub span: u8,
}

/// A pass decoded.
#[derive(Clone, Debug)]
pub struct DPass {
    /// Root (walked in order) or Sub (run only by a GROUP).
    pub kind: PassKind,
    /// The pass whose results the `copied` steps reuse.
    pub parent: Option<u16>,
    /// The instructions, decoded, in order.
    pub steps: Vec<Step>,
}

/// A static pass set decoded once: its passes' steps and their operand pool.
#[derive(Clone, Debug)]
pub struct Decoded {
    /// The passes, in the set's order.
    pub passes: Vec<DPass>,
    /// The operands the operations index (`start`, `n`).
    pub pool: Vec<u32>,
}

impl Decoded {
    /// Decodes every pass of `set`: O(set), no verification (an invalid image
    /// decodes to an operation that is false).
    pub fn new(set: &PassSet) -> Decoded {
        let mut pool = Vec::new();
        let passes = set
            .passes()
            .iter()
            .map(|p| DPass {
                kind: p.kind,
                parent: p.parent,
                steps: decode_pass(p.instructions(), &mut pool),
            })
            .collect();
        Decoded { passes, pool }
    }
}

/// Where decoding appends a pass's operands: a plain vector for a static set,
/// or a live version's buffer of whole cache lines (`live::LineVec`).
pub(crate) trait Pool {
    fn len(&self) -> usize;
    fn get(&self, i: usize) -> Option<&u32>;
    fn push(&mut self, v: u32);
    fn extend<I: IntoIterator<Item = u32>>(&mut self, values: I);
}

impl Pool for Vec<u32> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn get(&self, i: usize) -> Option<&u32> {
        self.as_slice().get(i)
    }
    fn push(&mut self, v: u32) {
        Vec::push(self, v)
    }
    fn extend<I: IntoIterator<Item = u32>>(&mut self, values: I) {
        <Vec<u32> as Extend<u32>>::extend(self, values)
    }
}

/// The steps of a pass's instructions, their operands appended to `pool`.
pub(crate) fn decode_pass(insns: &[Instruction], pool: &mut impl Pool) -> Vec<Step> {
    let mut steps = Vec::with_capacity(insns.len());
    decode_pass_into(insns, &mut steps, pool);
    steps
}

/// [`decode_pass`] into `steps` (appended), so that a caller that keeps its vectors
/// (the live writer, which reuses retired pass versions) allocates nothing.
pub(crate) fn decode_pass_into(insns: &[Instruction], steps: &mut Vec<Step>, pool: &mut impl Pool) {
    steps.extend((0..insns.len()).map(|k| decode_step(insns, k, pool)));
}

/// The step of instruction `k` of a pass (`k < insns.len()`), its operands appended
/// to `pool`. It depends on instructions `k..k + span` only, which lets the live
/// writer decode again just the steps an edit reaches.
// Inlined into the writer's publish loop, whose cost is mostly its decodes: out
// of line, each step took a call and a return slot, about 58 instructions of a
// one-operand EQ's 330 (callgrind of the tracker's announcements).
#[inline]
pub(crate) fn decode_step<P: Pool>(insns: &[Instruction], k: usize, pool: &mut P) -> Step {
    let insn = &insns[k];
    Step {
        op: decode(insn, &insns[k + 1..], pool),
        negate: insn.negated(),
        copied: Instruction::reusable(insns, k),
        span: 1 + insn.arith_ext().min(insns.len() - 1 - k) as u8,
    }
}

/// Decodes `insn`, whose pass continues with `rest` (an ARITH reads its CONT slots
/// there), appending its operands to `pool`. The checks run in the order that
/// decides between a fault and an invalid image: opcode, count and size first,
/// then (at run time) the field's address, then what depends on the opcode.
pub(crate) fn decode<P: Pool>(insn: &Instruction, rest: &[Instruction], pool: &mut P) -> Op {
    let d = insn.decode();
    let n = d.count as usize;
    let Some(opcode) = d.opcode else {
        return Op::Invalid;
    };
    let start = pool.len() as u32;
    match opcode {
        Opcode::Group => {
            return Op::Group {
                first: insn.p(1),
                count: insn.p(2),
            }
        }
        Opcode::Len if (1..=3).contains(&n) => {
            pool.extend((0..n).flat_map(|i| [insn.p(1 + 2 * i), insn.p(2 + 2 * i)]));
            return Op::Len {
                ops: Operands { start, n: n as u32 },
            };
        }
        Opcode::Len => return Op::Invalid,
        Opcode::Arith => return decode_arith(insn, rest, pool),
        Opcode::ArithCont => return Op::True,
        _ => {}
    }
    let Some(size) = d.size else {
        return Op::Invalid;
    };
    if n > Instruction::capacity(opcode, size) {
        return Op::Invalid;
    }
    let (anchor, off) = (d.anchor, d.offset as u32);
    let invalid = Op::InvalidAt { anchor, off };
    let operands = |pool: &mut P, first: usize| {
        for i in 0..n {
            pool.push(insn.operand(first, size, i));
        }
        pool.get(start as usize).copied().unwrap_or(0)
    };
    let ranges = |pool: &mut P, first: usize| {
        pool.extend((0..n).flat_map(|i| match size {
            Size::B4 => [insn.p(first + 2 * i), insn.p(first + 2 * i + 1)],
            _ => [insn.p(first + i) & 0xffff, insn.p(first + i) >> 16],
        }))
    };
    let n32 = n as u32;
    let ops = Operands { start, n: n32 };
    let field = |mask| Field {
        anchor,
        size,
        off,
        mask,
    };
    let pair = |word: u32, delta: u32| Pair {
        delta: delta as u16,
        both: word & BOTH_FIELDS != 0,
    };
    match opcode {
        Opcode::Eq | Opcode::MEq => {
            let (mask, first) = match opcode {
                Opcode::Eq => (u32::MAX, 1),
                _ => (insn.p(1), 2),
            };
            let v0 = operands(pool, first);
            Op::Eq {
                field: field(mask),
                v0,
                ops,
            }
        }
        Opcode::Range => {
            ranges(pool, 2);
            Op::Range {
                field: field(insn.p(1)),
                ops,
            }
        }
        Opcode::Eq2 => {
            let v0 = operands(pool, 3);
            Op::Eq2 {
                field: field(insn.p(2)),
                pair: pair(insn.p(1), insn.p(1) & 0xffff),
                v0,
                ops,
            }
        }
        Opcode::Range2 => {
            ranges(pool, 3);
            Op::Range2 {
                field: field(insn.p(2)),
                pair: pair(insn.p(1), insn.p(1) & 0xffff),
                ops,
            }
        }
        Opcode::Prefix => {
            let p7 = insn.p(7);
            let bits = p7 & 0xff;
            if n == 0 || bits > 32 * n32 {
                return invalid;
            }
            pool.extend((1..=n).map(|i| insn.p(i)));
            Op::Prefix {
                anchor,
                off,
                bits,
                pair: pair(p7, (p7 >> 8) & 0xffff),
                ops,
            }
        }
        Opcode::Protochain => match insn.p(2) {
            v @ (4 | 6) => Op::Protochain {
                anchor,
                off,
                v6: v == 6,
                proto: insn.p(1),
            },
            _ => invalid,
        },
        Opcode::Set if n == 0 => invalid,
        Opcode::Set => match set_words(insn) {
            Some(words) => {
                pool.extend(words);
                Op::Set {
                    anchor,
                    off,
                    size,
                    n: n32,
                    start,
                }
            }
            None => invalid,
        },
        Opcode::Len | Opcode::Arith | Opcode::ArithCont | Opcode::Group => {
            unreachable!("decoded above")
        }
    }
}

/// The nine pool words of a SET: its table; field B (`has_b`, anchor, offset,
/// size code), zero without one; the pair deltas; the two masks. `None` if field
/// B's size is invalid.
fn set_words(insn: &Instruction) -> Option<[u32; 9]> {
    let p2 = insn.p(2);
    let b = if p2 & SET_FIELD_B != 0 {
        let bd = Instruction::new(p2 & 0x00ff_ffff, [0; 7]).decode();
        [1, bd.anchor as u32, bd.offset as u32, bd.size?.code()]
    } else {
        [0; 4]
    };
    let p3 = insn.p(3);
    Some([
        insn.p(1),
        b[0],
        b[1],
        b[2],
        b[3],
        p3 & 0xffff,
        p3 >> 16,
        insn.p(4),
        insn.p(5),
    ])
}

/// An ARITH head and the CONT slots its offset counts. The chain is checked whole
/// here, so a broken chain is invalid before any of its loads could run.
fn decode_arith<P: Pool>(head: &Instruction, rest: &[Instruction], pool: &mut P) -> Op {
    let d = head.decode();
    let rel = d.anchor & 3;
    let count_ok = |c: u8| (1..=ARITH_MAX_OPS).contains(&(c as usize));
    let Some(conts) = rest.get(..head.arith_ext()) else {
        return Op::Invalid;
    };
    let chain_ok = conts.iter().all(|c| {
        let cd = c.decode();
        cd.opcode == Some(Opcode::ArithCont) && count_ok(cd.count)
    });
    if rel > 2 || !count_ok(d.count) || !chain_ok {
        return Op::Invalid;
    }
    let start = pool.len() as u32;
    for slot in std::iter::once(head).chain(conts) {
        for i in 0..slot.decode().count as usize {
            let m = (slot.p(1 + i / 2) >> (16 * (i % 2))) as u16;
            let arg = m & 0x7ff;
            // 2040..=2046 name the slot's own words p1..p7; 2047 names none.
            let operand = if arg >= ARITH_POOL_BASE {
                slot.0.get((arg - ARITH_POOL_BASE + 1) as usize).copied()
            } else {
                Some(arg as u32)
            };
            pool.extend([
                m as u32 | if operand.is_none() { BAD_OPERAND } else { 0 },
                operand.unwrap_or(0),
            ]);
        }
    }
    Op::Arith {
        rel,
        start,
        n: (pool.len() as u32 - start) / 2,
    }
}

/// What an operation needs from the packet and the walk around it.
pub(crate) trait Env {
    /// Anchor `a`'s value for this packet: `None` if it cannot be resolved.
    fn anchor(&mut self, a: u8) -> Result<Option<u32>, Fault>;
    /// The offset field of anchor table entry `a` (libpcap's constant part of the
    /// header offset, which ARITH's index modes split on); `None` if there is none.
    fn anchor_offset(&self, a: u8) -> Option<u32>;
    fn packet(&self) -> &[u8];
    fn wire_len(&self) -> u32;
    /// Whether hash table `table` holds `key`; `None` if there is no such table.
    fn contains(&self, table: u32, key: u64) -> Option<bool>;
}

impl Op {
    /// The operation on one packet, negated as `negate` says: true or false, or a
    /// fault. An invalid operation is false either way. GROUP is the walkers'
    /// (it runs passes) and must not reach here.
    #[inline(always)]
    pub(crate) fn test(
        &self,
        negate: bool,
        pool: &[u32],
        env: &mut impl Env,
    ) -> Result<bool, Fault> {
        Ok(match self.outcome(pool, env)? {
            Some(r) => r != negate,
            None => false,
        })
    }

    /// The operation before negation.
    #[inline(always)]
    pub(crate) fn outcome(&self, pool: &[u32], env: &mut impl Env) -> Outcome {
        match *self {
            Op::Eq { field, v0, ops } => {
                let Some(v) = load_field(env, field)? else {
                    return Ok(None);
                };
                Ok(Some(one_of(pool, v0, ops, v)))
            }
            Op::Eq2 {
                field,
                pair,
                v0,
                ops,
            } => two_fields(env, field, pair, |v| one_of(pool, v0, ops, v & field.mask)),
            Op::Range { field, ops } => {
                let Some(v) = load_field(env, field)? else {
                    return Ok(None);
                };
                Ok(Some(in_ranges(ops.ranges(pool), v)))
            }
            Op::Range2 { field, pair, ops } => two_fields(env, field, pair, |v| {
                in_ranges(ops.ranges(pool), v & field.mask)
            }),
            Op::Len { ops } => Ok(Some(in_ranges(ops.ranges(pool), env.wire_len()))),
            Op::Prefix {
                anchor,
                off,
                bits,
                pair,
                ops,
            } => {
                let Some(at) = address(env, anchor, off)? else {
                    return Ok(None);
                };
                let words = ops.values(pool);
                let first = prefix_at(env.packet(), at, words, bits)?;
                if pair.delta == 0 || first != pair.both {
                    return Ok(Some(first));
                }
                let at2 = add(at, pair.delta.into())?;
                Ok(Some(prefix_at(env.packet(), at2, words, bits)?))
            }
            Op::Arith { rel, start, n } => {
                arith(env, rel, &pool[start as usize..][..2 * n as usize])
            }
            Op::Protochain {
                anchor,
                off,
                v6,
                proto,
            } => {
                let Some(at) = address(env, anchor, off)? else {
                    return Ok(None);
                };
                protochain(env.packet(), at, v6, proto).map(Some)
            }
            Op::Set {
                anchor,
                off,
                size,
                n,
                start,
            } => {
                let Some(at) = address(env, anchor, off)? else {
                    return Ok(None);
                };
                set_lookup(env, at, size, n, &pool[start as usize..][..9])
            }
            Op::True => Ok(Some(true)),
            Op::Invalid => Ok(None),
            Op::InvalidAt { anchor, off } => {
                address(env, anchor, off)?;
                Ok(None)
            }
            Op::Group { .. } => unreachable!("GROUP runs passes: the walkers answer it"),
        }
    }
}

/// The passes a GROUP in pass `pass` at nesting `depth` names, of a set of `total`
/// passes; `None` (the GROUP is invalid) if the range starts at or before its own
/// pass, runs past the set, or the nesting reaches [`MAX_GROUP_DEPTH`]. Only later
/// passes, so a walk cannot cycle; bounded nesting keeps the native stack small.
/// The GROUP is true if a Sub pass of the range accepts (Root passes in it are
/// skipped), tried in order.
#[inline]
pub fn group_range(
    first: u32,
    count: u32,
    pass: usize,
    total: usize,
    depth: usize,
) -> Option<std::ops::Range<usize>> {
    let (first, count) = (first as usize, count as usize);
    if first <= pass || count > total || first > total - count || depth + 1 >= MAX_GROUP_DEPTH {
        return None;
    }
    Some(first..first + count)
}

/// The address of a field: its anchor's value plus `off`; `None` if the anchor
/// does not resolve, a fault if the sum passes 2^32.
#[inline(always)]
fn address(env: &mut impl Env, anchor: u8, off: u32) -> Result<Option<u32>, Fault> {
    match env.anchor(anchor)? {
        Some(base) => add(base, off).map(Some),
        None => Ok(None),
    }
}

/// `field`'s value, masked; `None` if its anchor does not resolve, a fault if its
/// address passes 2^32 or it is not all captured.
#[inline(always)]
fn load_field(env: &mut impl Env, field: Field) -> Result<Option<u32>, Fault> {
    let Some(at) = address(env, field.anchor, field.off)? else {
        return Ok(None);
    };
    Ok(Some(load(env.packet(), at, field.size)? & field.mask))
}

/// A two-field test (EQ2, RANGE2) with `test` on each loaded value (unmasked).
/// Both addresses are computed before either load (an overflow of the second
/// faults first); the second field is loaded only if the first does not decide,
/// as libpcap's code orders them.
#[inline(always)]
fn two_fields(env: &mut impl Env, field: Field, pair: Pair, test: impl Fn(u32) -> bool) -> Outcome {
    let Some(at) = address(env, field.anchor, field.off)? else {
        return Ok(None);
    };
    let at2 = add(at, pair.delta.into())?;
    let first = test(load(env.packet(), at, field.size)?);
    if first != pair.both {
        return Ok(Some(first));
    }
    Ok(Some(test(load(env.packet(), at2, field.size)?)))
}

/// `a + b`, or a fault past 2^32.
#[inline(always)]
pub(crate) fn add(a: u32, b: u32) -> Result<u32, Fault> {
    a.checked_add(b).ok_or(Fault)
}

/// The big-endian field of `size` at `at`; a fault if it is not all captured.
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

/// Whether `v` is one of `ops` in `pool` (the first is `v0`).
#[inline(always)]
fn one_of(pool: &[u32], v0: u32, ops: Operands, v: u32) -> bool {
    match ops.n {
        1 => v == v0,
        _ => {
            // No early exit, so the loop vectorises.
            let mut hit = false;
            for &x in ops.values(pool) {
                hit |= x == v;
            }
            hit
        }
    }
}

/// Whether `v` lies in one of the inclusive `(lo, hi)` ranges, flat in `ranges`.
#[inline(always)]
fn in_ranges(ranges: &[u32], v: u32) -> bool {
    ranges.chunks_exact(2).any(|r| r[0] <= v && v <= r[1])
}

/// Whether the first `bits` bits of the words from `at` equal `words`.
fn prefix_at(pkt: &[u8], at: u32, words: &[u32], bits: u32) -> Result<bool, Fault> {
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
        let v = load(pkt, add(at, 4 * i as u32)?, Size::B4)?;
        if (v ^ w) & mask != 0 {
            return Ok(false);
        }
    }
    Ok(true)
}

/// libpcap's protochain walk from the network header at `nl`: follow IPv6
/// extension headers and AH until the protocol is found, IPPROTO_NONE, or an
/// unknown header ends the chain.
///
/// libpcap 1.10's AH step *sets* the header offset to the AH length instead of
/// adding it; netsift reproduces that to agree with it. Such a walk can revisit a
/// header forever (libpcap then never returns); netsift stops after a fixed number
/// of steps and answers false, so evaluation stays bounded.
fn protochain(pkt: &[u8], nl: u32, v6: bool, want: u32) -> Result<bool, Fault> {
    const MAX_STEPS: usize = 256;
    let (mut proto, mut x) = if v6 {
        (load(pkt, add(nl, 6)?, Size::B1)?, 40)
    } else {
        (
            load(pkt, add(nl, 9)?, Size::B1)?,
            4 * (load(pkt, nl, Size::B1)? & 0xf),
        )
    };
    for _ in 0..MAX_STEPS {
        if proto == want {
            return Ok(true);
        }
        let at = add(nl, x)?;
        let len_at = add(at, 1)?;
        match proto {
            59 => return Ok(false),
            0 | 60 | 43 | 44 if v6 => {
                let next = load(pkt, at, Size::B1)?;
                x = add(x, (load(pkt, len_at, Size::B1)? + 1) * 8)?;
                proto = next;
            }
            51 => {
                let next = load(pkt, at, Size::B1)?;
                x = (load(pkt, len_at, Size::B1)? + 2) * 4;
                proto = next;
            }
            _ => return Ok(false),
        }
    }
    Ok(false)
}

/// SET with field A at `at`; `p` is the decoded pool slice: table, field B (has_b,
/// anchor, offset, size code), deltas `da`/`db`, masks.
fn set_lookup(env: &mut impl Env, at: u32, size: Size, n: u32, p: &[u32]) -> Outcome {
    let [table, has_b, b_anchor, b_off, b_size, da, db, ma, mb] =
        <[u32; 9]>::try_from(p).expect("decode writes nine words");
    let b = if has_b != 0 {
        let Some(at) = address(env, b_anchor as u8, b_off)? else {
            return Ok(None);
        };
        let size = Size::from_bytes(1 << b_size).expect("decode checked the size");
        Some((at, size))
    } else {
        None
    };
    for pair in 0..n {
        let a = load(env.packet(), add(at, pair * da)?, size)? & ma;
        let bv = match b {
            Some((b_at, bsize)) => load(env.packet(), add(b_at, pair * db)?, bsize)? & mb,
            None => 0,
        };
        match env.contains(table, (a as u64) << 32 | bv as u64) {
            None => return Ok(None),
            Some(true) => return Ok(Some(true)),
            Some(false) => {}
        }
    }
    Ok(Some(false))
}

/// ARITH: the micro-ops `m` (two words each) on a stack of at most [`ARITH_STACK`]
/// values, then the relation on the two values left. Stack misuse, a bad operand
/// or a bad index mode makes it invalid where it is reached.
fn arith(env: &mut impl Env, rel: u8, m: &[u32]) -> Outcome {
    let mut stack = [0u32; ARITH_STACK];
    let mut sp = 0;
    for op in m.chunks_exact(2) {
        if op[0] & BAD_OPERAND != 0 {
            return Ok(None);
        }
        let (micro, operand) = (op[0] as u16, op[1]);
        let kind = ArithOp::from_bits(micro >> 12);
        let arg = micro & 0x7ff;
        match kind {
            ArithOp::Push | ArithOp::Len => {
                if sp == ARITH_STACK {
                    return Ok(None);
                }
                stack[sp] = if kind == ArithOp::Len {
                    env.wire_len()
                } else {
                    operand
                };
                sp += 1;
            }
            ArithOp::Ld1 | ArithOp::Ld2 | ArithOp::Ld4 => {
                if sp == 0 {
                    return Ok(None);
                }
                let size = match kind {
                    ArithOp::Ld1 => Size::B1,
                    ArithOp::Ld2 => Size::B2,
                    _ => Size::B4,
                };
                let Some(mode) = IndexMode::of_arg(arg) else {
                    return Ok(None);
                };
                let a = (arg & 0x3f) as u8;
                let Some(base) = env.anchor(a)? else {
                    return Ok(None);
                };
                // The anchor's offset field is libpcap's constant part of the header
                // offset (anchor 0, the packet start, has none).
                let o = match (mode, a) {
                    (IndexMode::Plain, _) | (_, 0) => 0,
                    _ => match env.anchor_offset(a) {
                        Some(o) => o,
                        None => return Ok(None),
                    },
                };
                let at = mode.place(base, o, stack[sp - 1]).ok_or(Fault)?;
                stack[sp - 1] = load(env.packet(), at, size)?;
            }
            ArithOp::Neg => {
                if sp == 0 {
                    return Ok(None);
                }
                stack[sp - 1] = stack[sp - 1].wrapping_neg();
            }
            _ => {
                let b = if micro & 0x800 != 0 {
                    operand
                } else {
                    if sp == 0 {
                        return Ok(None);
                    }
                    sp -= 1;
                    stack[sp]
                };
                if sp == 0 {
                    return Ok(None);
                }
                let a = stack[sp - 1];
                stack[sp - 1] = match kind {
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
                    _ => return Ok(None),
                };
            }
        }
    }
    if sp != 2 {
        return Ok(None);
    }
    let (a, b) = (stack[0], stack[1]);
    Ok(Some(match rel {
        0 => a == b,
        1 => a > b,
        _ => a >= b,
    }))
}

/// Applies an anchor's rule to the header at `h`, giving the offset the anchor names
/// (docs/isa.md §3). One function for the per-packet and the per-batch engines, so
/// both resolve anchors identically.
#[inline]
pub(crate) fn apply_rule(rule: AnchorRule, pkt: &[u8], h: u32) -> Result<u32, Fault> {
    let ipv4 = |h: u32| -> Result<Option<u32>, Fault> {
        Ok(h.checked_add(4 * (load(pkt, h, Size::B1)? & 0x0f)))
    };
    let v = match rule {
        AnchorRule::Const => Some(h),
        AnchorRule::Ipv4Payload => ipv4(h)?,
        AnchorRule::TcpPayload => h.checked_add(4 * (load(pkt, add(h, 12)?, Size::B1)? >> 4)),
        AnchorRule::GenevePayload => h.checked_add(8 + 4 * (load(pkt, h, Size::B1)? & 0x3f)),
        AnchorRule::IpPayloadByType => {
            let t = load(pkt, h.checked_sub(2).ok_or(Fault)?, Size::B2)?;
            if t == 0x0800 || t == 0x0021 {
                ipv4(h)?
            } else {
                h.checked_add(40)
            }
        }
        AnchorRule::IpPayloadByVersion => {
            if load(pkt, h, Size::B1)? >> 4 == 4 {
                ipv4(h)?
            } else {
                h.checked_add(40)
            }
        }
        AnchorRule::IpPayloadByAf => {
            let af = load(pkt, h.checked_sub(4).ok_or(Fault)?, Size::B4)?;
            if af == 2 || af == 0x0200_0000 {
                ipv4(h)?
            } else {
                h.checked_add(40)
            }
        }
        AnchorRule::PflogPayload => h.checked_add((load(pkt, h, Size::B1)? + 3) & !3),
        AnchorRule::RadiotapHdr
        | AnchorRule::AvsHdr
        | AnchorRule::PrismHdr
        | AnchorRule::WlanPayload
        | AnchorRule::WlanPayloadPadded => {
            crate::wlan::apply(rule, h, |at, size| load(pkt, at.ok_or(Fault)?, size))?
        }
        AnchorRule::GeneveLinkType | AnchorRule::GeneveLinkPayload => {
            // Both fields are read, as libpcap's Geneve offset code does.
            let opt = 4 * (load(pkt, h, Size::B1)? & 0x3f);
            let teb = load(pkt, add(h, 2)?, Size::B2)? == 0x6558;
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

#[cfg(test)]
mod layout {
    /// The executors walk arrays of steps: grouping an operation's fields must not
    /// make one larger than the flat fields made it.
    #[test]
    fn op_and_step_stay_small() {
        assert_eq!(std::mem::size_of::<super::Op>(), 28);
        assert_eq!(std::mem::size_of::<super::Step>(), 32);
    }
}
