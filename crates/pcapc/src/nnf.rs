//! The normal form selection reads: a boolean tree whose negations sit on the
//! literals ([`Nnf`]), run left to right, an AND while its children hold, an OR while
//! they fail.
//!
//! It is its own module, below `normal` and `opt` (which build it: the tree as
//! generated, or the program libpcap's optimiser leaves) and `select` (which turns
//! it into passes), so that none of those needs another for the type alone.

use crate::lower::ir::Pred;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

/// A tree in negation normal form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Nnf {
    Const(bool),
    Lit(Pred, bool),
    And(Vec<Nnf>),
    Or(Vec<Nnf>),
    /// A whole filter libpcap does not optimize (see `Tree::Unoptimized`): nothing in
    /// it is folded, and selection keeps every test in order.
    Unoptimized(Box<Nnf>),
    /// Code that several ways through libpcap's program reach (`opt::to_tree`'s
    /// shared read-back): one node named from each, which selection lays out once
    /// as a group. Negated if `neg`.
    Shared(Shared),
}

/// A node named from several places, compared and hashed by identity: two names of
/// one node are equal, two equal copies are not (so that comparing or hashing it
/// never walks the shared code once per way to it).
#[derive(Clone, Debug)]
pub(crate) struct Shared {
    pub node: Rc<Nnf>,
    pub neg: bool,
}

impl PartialEq for Shared {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.node, &other.node) && self.neg == other.neg
    }
}

impl Eq for Shared {}

impl Hash for Shared {
    fn hash<H: Hasher>(&self, h: &mut H) {
        Rc::as_ptr(&self.node).hash(h);
        self.neg.hash(h);
    }
}

/// The negation of a normal-form tree, itself in normal form.
pub(crate) fn dual(n: &Nnf) -> Nnf {
    match n {
        Nnf::Const(b) => Nnf::Const(!b),
        Nnf::Lit(p, neg) => Nnf::Lit(p.clone(), !neg),
        Nnf::And(v) => Nnf::Or(v.iter().map(dual).collect()),
        Nnf::Or(v) => Nnf::And(v.iter().map(dual).collect()),
        Nnf::Unoptimized(x) => Nnf::Unoptimized(Box::new(dual(x))),
        // The node stays shared: its negation is taken where it is laid out.
        Nnf::Shared(s) => Nnf::Shared(Shared {
            node: s.node.clone(),
            neg: !s.neg,
        }),
    }
}

/// An AND (`is_and`) or OR of `parts`, flattened and with its identity dropped.
pub(crate) fn join(parts: Vec<Nnf>, is_and: bool) -> Nnf {
    let mut out = Vec::with_capacity(parts.len());
    for p in parts {
        match p {
            Nnf::Const(c) if c == is_and => {}
            Nnf::Const(c) => return Nnf::Const(c),
            Nnf::And(v) if is_and => out.extend(v),
            Nnf::Or(v) if !is_and => out.extend(v),
            p => out.push(p),
        }
    }
    match out.len() {
        0 => Nnf::Const(is_and),
        1 => out.pop().expect("one"),
        _ if is_and => Nnf::And(out),
        _ => Nnf::Or(out),
    }
}
