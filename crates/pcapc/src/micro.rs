//! ARITH micro-ops for `lhs rel rhs`: the stack program selection packs into an
//! ARITH slot and, when it is longer than one slot holds, CONT slots after it
//! (`netsift_isa::insn::build::arith_chain`).
//!
//! Emission is apart from selection so that [`slots`] can count the slots an
//! expression takes before its anchors are allocated (a pass's length decides where
//! a long sequence is split into a GROUP).

use crate::lower::ir::Val;
use netsift_isa::insn::build::{self, Micro};
use netsift_isa::insn::{ARITH_POOL_BASE, ARITH_STACK};
use netsift_isa::{ArithOp, IndexMode, Instruction, RelOp, Size};

/// Where a load's anchor comes from: `(lowering anchor, constant offset, mode)` →
/// the pass set's anchor index.
pub(crate) type AnchorFn<'a, E> = dyn FnMut(usize, u32, IndexMode) -> Result<u8, E> + 'a;

/// The micro-ops computing `lhs`, then `rhs`, in execution order.
pub(crate) fn emit<E>(lhs: &Val, rhs: &Val, anchor: &mut AnchorFn<'_, E>) -> Result<Vec<Micro>, E> {
    let mut e = Emitter {
        out: Vec::new(),
        seen: Vec::new(),
    };
    e.val(lhs, anchor)?;
    e.val(rhs, anchor)?;
    Ok(e.out)
}

/// The instruction slots `lhs rel rhs` takes (ARITH plus CONTs), for splitting a
/// long pass; anchors do not change the count.
pub(crate) fn slots(lhs: &Val, rhs: &Val) -> usize {
    let ops = emit::<()>(lhs, rhs, &mut |_, _, _| Ok(0)).unwrap_or_default();
    build::arith_chain(RelOp::Eq, &ops).map_or(usize::MAX, |c| c.len())
}

/// The deepest stack the micro-ops reach.
pub(crate) fn depth(ops: &[Micro]) -> usize {
    let (mut d, mut max) = (0usize, 0usize);
    for m in ops {
        match m.op {
            ArithOp::Push | ArithOp::Len => d += 1,
            ArithOp::Ld1 | ArithOp::Ld2 | ArithOp::Ld4 | ArithOp::Neg => {}
            _ if m.imm => {}
            _ => d = d.saturating_sub(1),
        }
        max = max.max(d);
    }
    max
}

/// Why an arithmetic expression does not pack into one ARITH chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PackError {
    /// Evaluating it needs more stack entries than an ARITH head has.
    TooDeep {
        /// The entries it needs.
        need: usize,
    },
    /// Its micro-ops need more instruction slots than a pass leaves for them.
    TooLarge {
        /// How many micro-ops it has.
        ops: usize,
        /// The slots a chain may use.
        max: usize,
    },
}

impl std::fmt::Display for PackError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PackError::TooDeep { need } => write!(
                f,
                "arithmetic expression needs {need} stack entries (at most {ARITH_STACK})"
            ),
            PackError::TooLarge { ops, max } => write!(
                f,
                "arithmetic expression too large: {ops} micro-ops need more than {max} \
                 instruction slots"
            ),
        }
    }
}

/// Packs `ops` into an ARITH head and its CONT slots, or says why it cannot.
pub(crate) fn pack(rel: RelOp, ops: &[Micro]) -> Result<Vec<Instruction>, PackError> {
    let need = depth(ops);
    if need > ARITH_STACK {
        return Err(PackError::TooDeep { need });
    }
    // One slot fewer than a pass holds, so that a pass can always end with the GROUP
    // that takes the rest of a long conjunction.
    let max = netsift_isa::MAX_INSNS - 1;
    build::arith_chain(rel, ops)
        .filter(|c| c.len() <= max)
        .ok_or(PackError::TooLarge {
            ops: ops.len(),
            max,
        })
}

struct Emitter {
    out: Vec<Micro>,
    /// Large constants already used: a repeat costs a pool reference, not a NEG.
    seen: Vec<u32>,
}

fn small(k: u32) -> bool {
    k < ARITH_POOL_BASE as u32
}

impl Emitter {
    fn push(&mut self, op: ArithOp, imm: bool, arg: u32) {
        if !small(arg) && !self.seen.contains(&arg) {
            self.seen.push(arg);
        }
        self.out.push(Micro { op, imm, arg });
    }

    /// A constant that is neither small nor already used, whose negation is small.
    fn negated_small(&self, k: u32) -> bool {
        !small(k) && !self.seen.contains(&k) && small(k.wrapping_neg())
    }

    fn val<E>(&mut self, v: &Val, anchor: &mut AnchorFn<'_, E>) -> Result<(), E> {
        match v {
            // A small negative constant (a negative index, `x - -5`) costs a NEG, or
            // flips ADD and SUB, instead of a pool word.
            Val::Const(k) if self.negated_small(*k) => {
                self.push(ArithOp::Push, true, k.wrapping_neg());
                self.push(ArithOp::Neg, false, 0);
            }
            Val::Const(k) => self.push(ArithOp::Push, true, *k),
            Val::Len => self.push(ArithOp::Len, false, 0),
            Val::Neg(x) => {
                self.val(x, anchor)?;
                self.push(ArithOp::Neg, false, 0);
            }
            // Peepholes that keep programs short, without changing which loads run
            // (ARITH has no short-circuit): `x + -y` is `x - y`, and a constant on
            // the left of a commutative operator moves right, where it is an
            // immediate operand.
            Val::Bin(ArithOp::Add, x, y) if matches!(**y, Val::Neg(_)) => {
                let Val::Neg(z) = &**y else {
                    unreachable!("matched above")
                };
                self.val(x, anchor)?;
                self.val(z, anchor)?;
                self.push(ArithOp::Sub, false, 0);
            }
            Val::Bin(op, x, y)
                if matches!(**x, Val::Const(_))
                    && !matches!(**y, Val::Const(_))
                    && matches!(
                        op,
                        ArithOp::Add | ArithOp::Mul | ArithOp::And | ArithOp::Or | ArithOp::Xor
                    ) =>
            {
                self.val(&Val::Bin(*op, y.clone(), x.clone()), anchor)?;
            }
            Val::Bin(op, x, y) => {
                self.val(x, anchor)?;
                if let Val::Const(k) = **y {
                    let flip = match op {
                        ArithOp::Add => Some(ArithOp::Sub),
                        ArithOp::Sub => Some(ArithOp::Add),
                        _ => None,
                    };
                    match flip.filter(|_| self.negated_small(k)) {
                        Some(f) => self.push(f, true, k.wrapping_neg()),
                        None => self.push(*op, true, k),
                    }
                } else {
                    self.val(y, anchor)?;
                    self.push(*op, false, 0);
                }
            }
            Val::Load {
                anchor: a,
                off,
                index,
                size,
                mode,
            } => {
                self.val(index, anchor)?;
                let at = anchor(*a, *off, *mode)?;
                let ld = match size {
                    Size::B1 => ArithOp::Ld1,
                    Size::B2 => ArithOp::Ld2,
                    Size::B4 => ArithOp::Ld4,
                };
                self.push(ld, false, mode.arg(at) as u32);
            }
        }
        Ok(())
    }
}
