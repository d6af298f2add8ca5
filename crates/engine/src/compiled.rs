//! Pass sets decoded once, at load time, for speed.
//!
//! Interpreting an instruction image means decoding its command word and unpacking
//! its operands on every packet. [`Compiled`] does that once per instruction when the
//! pass set is loaded (O(size), no verification: any image still decodes to
//! something safe) and keeps the operands unpacked as 32-bit values, so an equality
//! test against up to 28 values is one branch-free loop the compiler vectorises.
//! Opcodes other than EQ, MEQ and EQ2 keep their image and go through the general
//! interpreter, so the semantics are the interpreter's by construction; the tests run
//! both on the same inputs.

use crate::batch::Form;
use crate::eval::{run, run_lean, PassRef, Program, Verdict};
use crate::simd::Simd;
use crate::Scratch;
use netsift_isa::insn::{Opcode, Size};
use netsift_isa::{Anchor, Instruction, PassKind, PassSet};

/// An instruction decoded ahead of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    /// EQ or MEQ: `field & mask` is one of `pool[start .. start + n]`.
    Eq {
        anchor: u8,
        off: u32,
        size: Size,
        mask: u32,
        /// The first operand, tested without the pool when it is the only one.
        v0: u32,
        start: u32,
        n: u32,
    },
    /// EQ2: the same test on the field, then (unless the first decides) on the field
    /// `delta` bytes later.
    Eq2 {
        anchor: u8,
        off: u32,
        size: Size,
        mask: u32,
        delta: u32,
        both: bool,
        v0: u32,
        start: u32,
        n: u32,
    },
    /// RANGE: `field & mask` is in one of the `n` inclusive ranges stored as
    /// `(lo, hi)` pairs at `pool[start..]`.
    Range {
        anchor: u8,
        off: u32,
        size: Size,
        mask: u32,
        start: u32,
        n: u32,
    },
    /// LEN: the wire length is in one of `n` ranges at `pool[start..]`.
    Len { start: u32, n: u32 },
    /// Interpreted from the image.
    Image,
}

/// A pass set with its instructions decoded.
#[derive(Clone, Debug)]
pub struct Compiled {
    set: PassSet,
    ops: Vec<Vec<Op>>,
    pool: Vec<u32>,
    /// The lean form, when the whole set fits it (see [`LEAN_MAX_PASSES`]).
    lean: Option<Vec<LeanPass>>,
    /// Whether some pass of the lean form has a parent.
    hier: bool,
    /// The batch engine's form (`crate::batch`).
    batch: Form,
    /// The compare kernels the batch engine uses.
    simd: Simd,
}

/// Most pass sets are root passes with a few parents and no GROUP or sub-passes. For
/// those the engine runs a lean loop with the per-pass progress in a local array instead of the
/// scratch space's epoch-stamped records.
pub(crate) const LEAN_MAX_PASSES: usize = 64;

#[derive(Clone, Debug)]
pub(crate) struct LeanPass {
    /// Whether a later pass is this one's child (its progress must be kept).
    pub has_child: bool,
    /// The parent's index, if it is an earlier pass.
    pub parent: Option<u8>,
    pub ops: Vec<LeanOp>,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct LeanOp {
    pub op: Op,
    pub negate: bool,
    pub copied: bool,
    /// The image, for operations the general interpreter runs (`Op::Image`).
    pub image: Instruction,
}

fn decode(insn: &Instruction, pool: &mut Vec<u32>) -> Op {
    let d = insn.decode();
    match (d.opcode, d.size) {
        (Some(Opcode::Range), Some(size))
            if d.count as usize <= Instruction::capacity(Opcode::Range, size) =>
        {
            let start = pool.len() as u32;
            for i in 0..d.count as usize {
                let (lo, hi) = match size {
                    Size::B4 => (insn.p(2 + 2 * i), insn.p(3 + 2 * i)),
                    _ => (insn.p(2 + i) & 0xffff, insn.p(2 + i) >> 16),
                };
                pool.extend([lo, hi]);
            }
            return Op::Range {
                anchor: d.anchor,
                off: d.offset as u32,
                size,
                mask: insn.p(1),
                start,
                n: d.count as u32,
            };
        }
        // A CONT slot on its own tests nothing (its ARITH reads it): a LEN test that
        // always holds, so the fast paths run it and honour its negation flag.
        (Some(Opcode::ArithCont), _) => {
            let start = pool.len() as u32;
            pool.extend([0, u32::MAX]);
            return Op::Len { start, n: 1 };
        }
        (Some(Opcode::Len), _) if (1..=3).contains(&d.count) => {
            let start = pool.len() as u32;
            for i in 0..d.count as usize {
                pool.extend([insn.p(1 + 2 * i), insn.p(2 + 2 * i)]);
            }
            return Op::Len {
                start,
                n: d.count as u32,
            };
        }
        _ => {}
    }
    let Some((first, size, n, _)) = insn.operand_slots() else {
        return Op::Image;
    };
    let start = pool.len() as u32;
    pool.extend((0..n).map(|i| insn.operand(first, size, i)));
    let (anchor, off) = (d.anchor, d.offset as u32);
    let v0 = pool.get(start as usize).copied().unwrap_or(0);
    match d.opcode {
        Some(Opcode::Eq) => Op::Eq {
            anchor,
            off,
            size,
            mask: u32::MAX,
            v0,
            start,
            n: n as u32,
        },
        Some(Opcode::MEq) => Op::Eq {
            anchor,
            off,
            size,
            mask: insn.p(1),
            v0,
            start,
            n: n as u32,
        },
        Some(Opcode::Eq2) => Op::Eq2 {
            anchor,
            off,
            size,
            mask: insn.p(2),
            delta: insn.p(1) & 0xffff,
            both: insn.p(1) & netsift_isa::insn::BOTH_FIELDS != 0,
            v0,
            start,
            n: n as u32,
        },
        _ => {
            pool.truncate(start as usize);
            Op::Image
        }
    }
}

impl Compiled {
    /// Decodes every instruction of `set`.
    pub fn new(set: PassSet) -> Compiled {
        let mut pool = Vec::new();
        let ops: Vec<Vec<Op>> = set
            .passes()
            .iter()
            .map(|p| {
                p.instructions()
                    .iter()
                    .map(|i| decode(i, &mut pool))
                    .collect()
            })
            .collect();
        let lean = lean_form(&set, &ops);
        let hier = lean
            .as_ref()
            .is_some_and(|l| l.iter().any(|p| p.parent.is_some()));
        let batch = Form::new(&set, &ops, &pool);
        Compiled {
            set,
            ops,
            pool,
            lean,
            hier,
            batch,
            simd: Simd::detect(),
        }
    }

    /// The same set with the batch engine's compare kernels forced to `simd` (if
    /// this CPU runs it; else the best it does): for tests and the ablation.
    pub fn with_simd(mut self, simd: Simd) -> Compiled {
        self.simd = simd.checked();
        self
    }

    /// The compare kernels the batch engine uses.
    pub fn simd(&self) -> Simd {
        self.simd
    }

    pub(crate) fn batch_form(&self) -> &Form {
        &self.batch
    }

    /// The pass set this was decoded from.
    pub fn pass_set(&self) -> &PassSet {
        &self.set
    }

    pub fn evaluate(&self, scratch: &mut Scratch, packet: &[u8], wire_len: u32) -> Verdict {
        match &self.lean {
            // An empty first pass accepts every packet before anything is loaded.
            Some(passes) if passes.first().is_some_and(|p| p.ops.is_empty()) => {
                scratch.reset_anchors();
                Verdict::Accept
            }
            Some(passes) if self.hier => run_lean::<true>(self, passes, scratch, packet, wire_len),
            Some(passes) => run_lean::<false>(self, passes, scratch, packet, wire_len),
            None => run(self, scratch, packet, wire_len),
        }
    }

    #[inline]
    pub fn matches(&self, scratch: &mut Scratch, packet: &[u8], wire_len: u32) -> bool {
        self.evaluate(scratch, packet, wire_len) == Verdict::Accept
    }
}

impl Program for Compiled {
    #[inline]
    fn slots(&self) -> usize {
        self.set.passes().len()
    }
    #[inline]
    fn pass(&self, i: usize) -> Option<PassRef<'_>> {
        let p = self.set.passes().get(i)?;
        Some(PassRef {
            kind: p.kind,
            parent: p.parent,
            clause: 0,
            insns: p.instructions(),
            stamps: None,
            id: 0,
            ops: Some(&self.ops[i]),
        })
    }
    #[inline]
    fn anchor(&self, a: usize) -> Option<Anchor> {
        self.set.anchors().get(a).copied()
    }
    #[inline]
    fn contains(&self, table: u32, key: u64) -> Option<bool> {
        self.set.table_contains(table, key)
    }
    #[inline]
    fn pool(&self) -> &[u32] {
        &self.pool
    }
}

/// The lean form of a set, if every pass is a root pass of decoded instructions.
fn lean_form(set: &PassSet, ops: &[Vec<Op>]) -> Option<Vec<LeanPass>> {
    if set.passes().len() > LEAN_MAX_PASSES {
        return None;
    }
    let mut out = Vec::with_capacity(set.passes().len());
    for (i, (p, ops)) in set.passes().iter().zip(ops).enumerate() {
        // GROUP needs sub-passes and their saved results: the general walk.
        let group = p
            .instructions()
            .iter()
            .any(|i| i.decode().opcode == Some(Opcode::Group));
        if p.kind != PassKind::Root || group {
            return None;
        }
        out.push(LeanPass {
            has_child: false,
            parent: p.parent.filter(|&q| (q as usize) < i).map(|q| q as u8),
            ops: ops
                .iter()
                .zip(p.instructions())
                .enumerate()
                .map(|(k, (&op, insn))| LeanOp {
                    op,
                    negate: insn.negated(),
                    copied: Instruction::reusable(p.instructions(), k),
                    image: *insn,
                })
                .collect(),
        });
    }
    for i in 0..out.len() {
        if let Some(q) = out[i].parent {
            out[q as usize].has_child = true;
        }
    }
    Some(out)
}
