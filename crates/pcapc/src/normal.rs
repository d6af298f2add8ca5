//! Normal form: negations pushed down to the atoms (De Morgan, order kept), nested
//! and/or flattened, constants folded.
//!
//! Folding `a and false` to `false` and `a or true` to `true` drops `a`'s loads.
//! libpcap's optimizer does the same (a test whose branches meet is removed), so the
//! folded program faults exactly where libpcap's does.

use crate::lower::ir::{Pred, Tree};

/// A tree in negation normal form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Nnf {
    Const(bool),
    Lit(Pred, bool),
    And(Vec<Nnf>),
    Or(Vec<Nnf>),
}

/// Converts `t` (negated if `neg`) to negation normal form.
pub fn normalize(t: Tree) -> Nnf {
    nnf(t, false)
}

fn nnf(t: Tree, neg: bool) -> Nnf {
    match t {
        Tree::Const(b) => Nnf::Const(b != neg),
        Tree::Atom(p) => Nnf::Lit(p, neg),
        Tree::Not(x) => nnf(*x, !neg),
        Tree::And(v) => combine(v, neg, !neg),
        Tree::Or(v) => combine(v, neg, neg),
    }
}

/// Builds an AND (`is_and`) or OR of the children, each negated if `neg`.
fn combine(children: Vec<Tree>, neg: bool, is_and: bool) -> Nnf {
    let mut out = Vec::with_capacity(children.len());
    for c in children {
        match nnf(c, neg) {
            // The identity element disappears; the absorbing one decides.
            Nnf::Const(b) if b == is_and => {}
            Nnf::Const(b) => return Nnf::Const(b),
            Nnf::And(v) if is_and => out.extend(v),
            Nnf::Or(v) if !is_and => out.extend(v),
            n => out.push(n),
        }
    }
    match out.len() {
        0 => Nnf::Const(is_and),
        1 => out.pop().expect("one element"),
        _ if is_and => Nnf::And(out),
        _ => Nnf::Or(out),
    }
}
