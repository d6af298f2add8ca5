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
use std::cell::RefCell;

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

/// Most facts one path remembers. Facts are copied at every branch; the bound keeps
/// compile time linear on long ORs (folding less is always sound: the test simply
/// stays in the program).
const MAX_FACTS: usize = 48;

/// The tests earlier on a path, each with its outcome.
///
/// A persistent list, newest first: paths fork far more often than they learn (every
/// look-ahead past an undecided test copies two sets of facts), so a copy shares the
/// whole list and learning adds one node in front of it. The nodes live in a
/// per-thread pool ([`POOL`]) with counted references, because the sets are short
/// lived: a node is taken from and given back to the pool's free list rather than the
/// allocator, which was most of the cost of learning.
#[derive(Debug)]
pub(crate) struct Facts {
    /// The newest fact's node, or [`NIL`].
    last: u32,
}

/// No node: the end of a list.
const NIL: u32 = u32::MAX;

/// One test's outcome, and the facts learnt before it.
#[derive(Debug)]
struct Fact {
    test: Learnt,
    held: bool,
    /// Facts up to and including this one.
    len: u32,
    /// The node of the fact before, or [`NIL`].
    before: u32,
    /// The sets and nodes whose list goes on with this node.
    refs: u32,
}

/// The nodes of every set of facts on this thread.
struct Pool {
    nodes: Vec<Fact>,
    /// Nodes no list uses.
    free: Vec<u32>,
}

thread_local! {
    static POOL: RefCell<Pool> = const {
        RefCell::new(Pool {
            nodes: Vec::new(),
            free: Vec::new(),
        })
    };
}

impl Pool {
    /// The facts of the list starting at node `at`, newest first.
    fn iter(&self, at: u32) -> impl Iterator<Item = &Fact> {
        let node = |i: u32| (i != NIL).then(|| &self.nodes[i as usize]);
        std::iter::successors(node(at), move |f| node(f.before))
    }

    fn len(&self, at: u32) -> usize {
        self.iter(at).next().map_or(0, |f| f.len as usize)
    }

    fn add_ref(&mut self, at: u32) {
        if at != NIL {
            self.nodes[at as usize].refs += 1;
        }
    }

    /// Drops one reference to node `at`, and gives back the nodes no list uses then.
    fn release(&mut self, mut at: u32) {
        while at != NIL {
            let f = &mut self.nodes[at as usize];
            f.refs -= 1;
            if f.refs > 0 {
                return;
            }
            self.free.push(at);
            at = f.before;
        }
    }

    /// A new node for `test` in front of the list at `before`, taking over one
    /// reference to `before`.
    fn cons(&mut self, test: Learnt, held: bool, before: u32) -> u32 {
        let fact = Fact {
            test,
            held,
            len: self.len(before) as u32 + 1,
            before,
            refs: 1,
        };
        match self.free.pop() {
            Some(i) => {
                self.nodes[i as usize] = fact;
                i
            }
            None => {
                self.nodes.push(fact);
                u32::try_from(self.nodes.len() - 1).expect("fewer than 2^32 facts")
            }
        }
    }
}

impl Default for Facts {
    fn default() -> Facts {
        Facts { last: NIL }
    }
}

impl Clone for Facts {
    fn clone(&self) -> Facts {
        if self.last != NIL {
            POOL.with(|p| p.borrow_mut().add_ref(self.last));
        }
        Facts { last: self.last }
    }
}

impl Drop for Facts {
    fn drop(&mut self) {
        if self.last != NIL {
            POOL.with(|p| p.borrow_mut().release(self.last));
        }
    }
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

impl Fact {
    fn key(&self) -> (Subject<'_>, Jump<'_>) {
        match &self.test {
            Learnt::Cmp(c) => cmp_key(c),
            Learnt::Rel(p) => key(p).expect("only keyed predicates are learnt"),
        }
    }
}

fn cmp_key(c: &Cmp) -> (Subject<'_>, Jump<'_>) {
    // `ld; and #k; jeq #0` becomes `jset #k` on the load (opt_peep, before any
    // threading), a jump of another kind: fold_edge never decides it from `f & k ==
    // v` (`mpls and ... and mpls` keeps both bottom-of-stack tests).
    if c.test == Test::Eq(0) && c.mask != c.size.max() {
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
    fn push(&mut self, test: Learnt, held: bool) {
        POOL.with(|p| self.last = p.borrow_mut().cons(test, held, self.last));
    }

    /// Records that literal `p` (negated if `neg`) held.
    pub(crate) fn learn(&mut self, p: &Pred, neg: bool) {
        if key(p).is_none() {
            return;
        }
        POOL.with(|pool| {
            let mut pool = pool.borrow_mut();
            if pool.len(self.last) < MAX_FACTS {
                self.last = pool.cons(Learnt::of(p), !neg, self.last);
            }
        })
    }

    /// Decides literal `p` (negated if `neg`) from the facts, as fold_edge does: the
    /// same jump on the same value earlier on the path has the same outcome, and a
    /// value known equal to one constant is not equal to another. Nothing else is
    /// inferred (libpcap does not decide `f > 1500` from `f == 0x800`).
    pub(crate) fn decide(&self, p: &Pred, neg: bool) -> Option<bool> {
        let (s, j) = key(p)?;
        if self.last == NIL {
            return None;
        }
        POOL.with(|pool| {
            for f in pool.borrow().iter(self.last) {
                let (fs, fj) = f.key();
                if fs != s {
                    continue;
                }
                if fj == j {
                    return Some(f.held != neg);
                }
                if let (Some(w), Some(v), true) = (fj.eq_const(), j.eq_const(), f.held) {
                    if w != v {
                        return Some(neg);
                    }
                }
            }
            None
        })
    }

    /// The facts every one of `ways` has (`ways` is never empty).
    pub(crate) fn shared(mut ways: Vec<Facts>) -> Facts {
        let f = ways.pop().unwrap_or_default();
        let kept: Option<Vec<(Learnt, bool)>> = POOL.with(|p| {
            let p = p.borrow();
            let contains = |w: &Facts, x: &Fact| {
                let k = x.key();
                p.iter(w.last).any(|y| y.held == x.held && y.key() == k)
            };
            let kept: Vec<(Learnt, bool)> = p
                .iter(f.last)
                .filter(|x| ways.iter().all(|w| contains(w, x)))
                .map(|x| (x.test.clone(), x.held))
                .collect();
            (kept.len() < p.len(f.last)).then_some(kept)
        });
        let Some(kept) = kept else { return f };
        let mut out = Facts::default();
        for (test, held) in kept.into_iter().rev() {
            out.push(test, held);
        }
        out
    }

    /// How many facts are recorded (a mark for [`Facts::truncate`]).
    pub(crate) fn len(&self) -> usize {
        if self.last == NIL {
            return 0;
        }
        POOL.with(|p| p.borrow().len(self.last))
    }

    /// Forgets the facts recorded after mark `n`.
    pub(crate) fn truncate(&mut self, n: usize) {
        if self.last == NIL {
            return;
        }
        POOL.with(|p| {
            let mut p = p.borrow_mut();
            while p.len(self.last) > n {
                let old = self.last;
                self.last = p.nodes[old as usize].before;
                p.add_ref(self.last);
                p.release(old);
            }
        })
    }
}
/// Facts every path through `n` that rejects has established (literals of an OR).
pub(crate) fn learn_fail(n: &Nnf, f: &mut Facts) {
    match n {
        Nnf::Lit(p, neg) => f.learn(p, !*neg),
        Nnf::Or(v) => v.iter().for_each(|x| learn_fail(x, f)),
        _ => {}
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
