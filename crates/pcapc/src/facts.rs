//! What a path through libpcap's optimized program knows: the outcome of each test
//! taken on it, keyed as the optimizer's value numbering keys them, so that a later
//! test is decided exactly where its jump threading (optimize.c, `fold_edge`) decides
//! it.
//!
//! Threading runs only in the optimizer's first round, before statements are
//! rewritten (`opt_blks` moves branches only when `do_stmts` is off). In that round
//! a relation's load still goes through the index register (`ldx #9; ldb [x + 14]`
//! for `ip[9]`), so its value is numbered apart from a primitive's load of the same
//! bytes (`ldb [23]`): relations and primitives never decide each other, but two
//! relations on the same expression do.

use crate::lower::ir::{Loc, Pred, Test, Val};
use netsift_isa::{RelOp, Size};
use std::rc::Rc;

/// The value a test compares (what BPF's accumulator holds at the jump).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Subject {
    /// A primitive's field: the load, masked.
    Field(Loc, Size, u32),
    /// The left side of a relation.
    Value(Rc<Val>),
}

/// The jump made on the subject.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Jump {
    Test(Test),
    /// `rel rhs` (`jeq`, `jgt`, `jge` on the X register or a constant).
    Rel(RelOp, Rc<Val>),
    /// `x & k == 0`, which opt_peep makes `jset #k` on `x`.
    Jset(u32),
}

impl Jump {
    /// The constant an equality jump compares with.
    fn eq_const(&self) -> Option<u32> {
        match self {
            Jump::Test(Test::Eq(v)) => Some(*v),
            Jump::Rel(RelOp::Eq, r) => match **r {
                Val::Const(v) => Some(v),
                _ => None,
            },
            _ => None,
        }
    }
}

/// Most facts one path remembers. Facts are copied at every branch; the bound keeps
/// compile time linear on long ORs (folding less is always sound: the test simply
/// stays in the program).
const MAX_FACTS: usize = 48;

/// The tests earlier on a path, each with its outcome.
#[derive(Clone, Debug, Default)]
pub(crate) struct Facts {
    seen: Vec<(Subject, Jump, bool)>,
}

/// The subject and jump of a test, if the optimizer can thread through it.
fn key(p: &Pred) -> Option<(Subject, Jump)> {
    match p {
        Pred::Cmp(c) => Some((Subject::Field(c.loc, c.size, c.mask), Jump::Test(c.test))),
        Pred::Rel { rel, lhs, rhs } => {
            if let (RelOp::Eq, Val::Bin(netsift_isa::ArithOp::And, x, k), Val::Const(0)) =
                (rel, lhs, rhs)
            {
                if let Val::Const(k) = **k {
                    return Some((Subject::Value(Rc::new((**x).clone())), Jump::Jset(k)));
                }
            }
            Some((
                Subject::Value(Rc::new(lhs.clone())),
                Jump::Rel(*rel, Rc::new(rhs.clone())),
            ))
        }
        _ => None,
    }
}

impl Facts {
    /// Records that literal `p` (negated if `neg`) held.
    pub(crate) fn learn(&mut self, p: &Pred, neg: bool) {
        if self.seen.len() >= MAX_FACTS {
            return;
        }
        if let Some((s, j)) = key(p) {
            self.seen.push((s, j, !neg));
        }
    }

    /// Decides literal `p` (negated if `neg`) from the facts, as fold_edge does: the
    /// same jump on the same value earlier on the path has the same outcome, and a
    /// value known equal to one constant is not equal to another. Nothing else is
    /// inferred (libpcap does not decide `f > 1500` from `f == 0x800`).
    pub(crate) fn decide(&self, p: &Pred, neg: bool) -> Option<bool> {
        let (s, j) = key(p)?;
        for (fs, fj, held) in self.seen.iter().rev() {
            if *fs != s {
                continue;
            }
            if *fj == j {
                return Some(*held != neg);
            }
            if let (Some(w), Some(v), true) = (fj.eq_const(), j.eq_const(), *held) {
                if w != v {
                    return Some(neg);
                }
            }
        }
        None
    }

    /// The facts every one of `ways` has (`ways` is never empty).
    pub(crate) fn shared(mut ways: Vec<Facts>) -> Facts {
        let mut f = ways.pop().unwrap_or_default();
        f.seen.retain(|x| ways.iter().all(|w| w.seen.contains(x)));
        f
    }
}

impl Facts {
    /// How many facts are recorded (a mark for [`Facts::truncate`]).
    pub(crate) fn len(&self) -> usize {
        self.seen.len()
    }

    /// Forgets the facts recorded after mark `n`.
    pub(crate) fn truncate(&mut self, n: usize) {
        self.seen.truncate(n);
    }
}
