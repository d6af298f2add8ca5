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

use crate::lower::ir::{Cmp, Loc, Pred, Test, Val};
use crate::nnf::Nnf;
use netsift_isa::{RelOp, Size};

/// The value a test compares (what BPF's accumulator holds at the jump).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Subject<'a> {
    /// A primitive's field: the load, masked.
    Field(Loc, Size, u32),
    /// The left side of a relation.
    Value(&'a Val),
    /// The wire length (`ld len` of `less`/`greater`).
    Len,
}

/// The jump made on the subject.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Jump<'a> {
    Test(Test),
    /// `rel rhs` (`jeq`, `jgt`, `jge` on the X register or a constant).
    Rel(RelOp, &'a Val),
    /// A primitive's `f & k == 0`, which opt_peep makes `jset #k` on `f`.
    Jset(u32),
}

impl Jump<'_> {
    /// The constant an equality jump compares with.
    fn eq_const(&self) -> Option<u32> {
        match self {
            Jump::Test(Test::Eq(v)) => Some(*v),
            Jump::Rel(RelOp::Eq, Val::Const(v)) => Some(*v),
            _ => None,
        }
    }
}

/// Most facts one set remembers (knowing less is always sound: a test then stays).
const MAX_FACTS: usize = 48;

/// The tests earlier on a path, each with its outcome, oldest first.
#[derive(Clone, Debug, Default)]
pub(crate) struct Facts {
    tests: Vec<(Learnt, bool)>,
}

/// A predicate [`key`] keys. A comparison is stored as itself, so that a node stays
/// small and is written without allocating; a relation, which holds whole
/// expressions, is boxed.
#[derive(Clone, Debug)]
enum Learnt {
    Cmp(Cmp),
    Rel(Box<Pred>),
}

impl Learnt {
    fn of(p: &Pred) -> Learnt {
        match p {
            Pred::Cmp(c) => Learnt::Cmp(*c),
            p => Learnt::Rel(Box::new(p.clone())),
        }
    }
}

impl Learnt {
    fn key(&self) -> (Subject<'_>, Jump<'_>) {
        match self {
            Learnt::Cmp(c) => cmp_key(c),
            Learnt::Rel(p) => key(p).expect("only keyed predicates are learnt"),
        }
    }
}

/// Whether libpcap's block for `p` jumps on `jset #k` (true when `f & k != 0`):
/// `ld; and #k; jeq #0` becomes that on the load (opt_peep, before any
/// threading, swapping the branches), and gencode's fragment test is one.
pub(crate) fn jumps_on_jset(p: &Pred) -> bool {
    matches!(p, Pred::Cmp(c) if is_jset(c))
}

fn is_jset(c: &Cmp) -> bool {
    c.test == Test::Eq(0) && c.mask != c.size.max()
}

fn cmp_key(c: &Cmp) -> (Subject<'_>, Jump<'_>) {
    // A `jset` is a jump of another kind: fold_edge never decides it from `f & k
    // == v` (`mpls and ... and mpls` keeps both bottom-of-stack tests).
    if is_jset(c) {
        return (
            Subject::Field(c.loc, c.size, c.size.max()),
            Jump::Jset(c.mask),
        );
    }
    (Subject::Field(c.loc, c.size, c.mask), Jump::Test(c.test))
}

/// The subject and jump of a test, if the optimizer can thread through it.
fn key(p: &Pred) -> Option<(Subject<'_>, Jump<'_>)> {
    match p {
        Pred::Cmp(c) => Some(cmp_key(c)),
        // `len rel k` keeps the length in scratch memory and compares it with X
        // holding `k`, which opt_peep turns into the jump `greater`/`less` make on
        // `ld len`: the same value and jump (`greater 1500 and len < 1500` is
        // refused as rejecting everything).
        Pred::Rel {
            rel,
            lhs: Val::Len,
            rhs: Val::Const(k),
        } => Some((
            Subject::Len,
            Jump::Test(match rel {
                RelOp::Eq => Test::Eq(*k),
                RelOp::Gt => Test::Gt(*k),
                RelOp::Ge => Test::Ge(*k),
            }),
        )),
        // A relation's `x & k` is `and x` (k in X) when threading runs; it becomes
        // `and #k` and then `jset` only in the second round. So `x & k == 0` is an
        // equality like any other there: `ether[0] & 1 = 0 and ether[0] & 1 = 1` is
        // decided false.
        Pred::Rel { rel, lhs, rhs } => Some((Subject::Value(lhs), Jump::Rel(*rel, rhs))),
        Pred::Len(t) => Some((Subject::Len, Jump::Test(*t))),
        _ => None,
    }
}

/// A test as fold_edge compares it, in integers: two tests decide each other only
/// if their `subject`s are equal; then equal `test`s have the same outcome, and an
/// equality that held decides an equality with another constant false.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TestKey {
    /// A hash of the value compared.
    pub subject: u64,
    /// A hash of the value and the jump.
    pub test: u64,
    /// The constant of an equality jump.
    pub eq: Option<u32>,
}

/// The [`TestKey`] of `p`, if the optimizer can decide `p` from an earlier test at
/// all (what [`Facts::decide`] does, by hashes).
pub(crate) fn test_key(p: &Pred) -> Option<TestKey> {
    let (s, j) = key(p)?;
    Some(TestKey {
        subject: hash_of(s),
        test: hash_of((s, j)),
        eq: j.eq_const(),
    })
}

/// The `subject` of a [`TestKey`] for the constant `k` in the accumulator: what a
/// relation whose left side is the number `k` compares, and what gencode's constant
/// blocks leave there (`ld #0` for true, `ld #1` for false).
pub(crate) fn const_subject(k: u32) -> u64 {
    hash_of(Subject::Value(&Val::Const(k)))
}

fn hash_of(x: impl std::hash::Hash) -> u64 {
    use std::hash::Hasher;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    x.hash(&mut h);
    h.finish()
}

impl Facts {
    /// Records that literal `p` (negated if `neg`) held.
    pub(crate) fn learn(&mut self, p: &Pred, neg: bool) {
        if key(p).is_some() && self.tests.len() < MAX_FACTS {
            self.tests.push((Learnt::of(p), !neg));
        }
    }

    /// Decides literal `p` (negated if `neg`) from the facts, as fold_edge does: the
    /// same jump on the same value earlier on the path has the same outcome, and a
    /// value known equal to one constant is not equal to another. Nothing else is
    /// inferred (libpcap does not decide `f > 1500` from `f == 0x800`).
    pub(crate) fn decide(&self, p: &Pred, neg: bool) -> Option<bool> {
        let (s, j) = key(p)?;
        for (t, held) in self.tests.iter().rev() {
            let (fs, fj) = t.key();
            if fs != s {
                continue;
            }
            if fj == j {
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
}

/// Facts every path through `n` that accepts has established (literals of an AND).
pub(crate) fn learn_all(n: &Nnf, f: &mut Facts) {
    match n {
        Nnf::Lit(p, neg) => f.learn(p, *neg),
        Nnf::And(v) => v.iter().for_each(|x| learn_all(x, f)),
        _ => {}
    }
}
