//! The normal form every step after lowering works on: a boolean tree whose
//! negations sit on the literals ([`Nnf`]), and [`Frame`], a walk's place in one of
//! its lists.
//!
//! It is its own module, below `normal` (which builds it), `opt` (which rewrites it
//! as libpcap's optimiser would) and `select` (which turns it into passes), so that
//! none of those needs another for the type alone.

use crate::lower::ir::Pred;

/// A tree in negation normal form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Nnf {
    Const(bool),
    Lit(Pred, bool),
    And(Vec<Nnf>),
    Or(Vec<Nnf>),
    /// A whole filter libpcap does not optimize (see `Tree::Unoptimized`): nothing in
    /// it is folded, and selection keeps every test in order.
    Unoptimized(Box<Nnf>),
    /// A conjunction decided false (or its dual, a disjunction decided true), kept
    /// unfolded: which of its tests libpcap's optimizer removes depends on the code
    /// after it, which is known only where it is a child of an OR (a disjunction: of
    /// an AND), followed by more children (see `opt::tree::fold`). Everywhere else it
    /// is the constant.
    Decided(bool, Box<Nnf>),
}

/// The negation of a normal-form tree, itself in normal form.
pub(crate) fn dual(n: &Nnf) -> Nnf {
    match n {
        Nnf::Const(b) => Nnf::Const(!b),
        Nnf::Lit(p, neg) => Nnf::Lit(p.clone(), !neg),
        Nnf::And(v) => Nnf::Or(v.iter().map(dual).collect()),
        Nnf::Or(v) => Nnf::And(v.iter().map(dual).collect()),
        Nnf::Unoptimized(x) => Nnf::Unoptimized(Box::new(dual(x))),
        Nnf::Decided(b, x) => Nnf::Decided(!b, Box::new(dual(x))),
    }
}

/// A list of the normal form that a walk is inside, read as a program: an AND runs
/// its children while they hold, an OR while they fail. The walks of `opt::tree`
/// (threading, dead tests, pull-ups) keep a stack of these instead of recursing, so
/// that a long list cannot exhaust the stack; `T` is what a walk keeps per list.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame<'a, T = ()> {
    pub list: &'a [Nnf],
    /// How many children the walk has entered: the one it is in is `next - 1`, the
    /// one it goes on to is `next`.
    pub next: usize,
    pub is_and: bool,
    pub extra: T,
}

impl<'a, T> Frame<'a, T> {
    /// A frame for `list` before any child is entered.
    pub(crate) fn new(list: &'a [Nnf], is_and: bool, extra: T) -> Frame<'a, T> {
        Frame {
            list,
            next: 0,
            is_and,
            extra,
        }
    }

    /// Whether a child ending `val` leads on to another child: an AND's child held,
    /// an OR's failed, and one is left.
    pub(crate) fn goes_on(&self, val: bool) -> bool {
        val == self.is_and && self.next < self.list.len()
    }

    /// Enters the next child.
    pub(crate) fn advance(&mut self) -> &'a Nnf {
        self.next += 1;
        &self.list[self.next - 1]
    }

    /// The children the walk has passed, before the one it is in.
    pub(crate) fn passed(&self) -> &'a [Nnf] {
        &self.list[..self.next.saturating_sub(1)]
    }
}
