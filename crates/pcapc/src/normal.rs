//! Normal form of a tree as generated: negations pushed down to the atoms (De
//! Morgan, order kept), nested and/or flattened, and nothing else folded, so every
//! test stays where gencode put it ([`normalize`]).
//!
//! This is the program of a filter libpcap does not optimize (`geneve`, `protochain`:
//! [`Nnf::Unoptimized`]), and the fallback for one whose flow graph is past the
//! optimiser model's budget. Everything else takes its normal form from `opt`.

use crate::lower::ir::Tree;
use crate::nnf::{join, Nnf};

/// Converts `t` to negation normal form.
pub(crate) fn normalize(t: Tree) -> Nnf {
    match t {
        Tree::Unoptimized(x) => Nnf::Unoptimized(Box::new(nnf(*x, false))),
        t => nnf(t, false),
    }
}

/// `t`, negated if `neg`, in normal form.
fn nnf(t: Tree, neg: bool) -> Nnf {
    match t {
        Tree::Const(b) => Nnf::Const(b != neg),
        Tree::Atom(p) => Nnf::Lit(p, neg),
        Tree::Not(x) => nnf(*x, !neg),
        Tree::And(v) => combine(v, neg, !neg),
        Tree::Or(v) => combine(v, neg, neg),
        Tree::Unoptimized(x) => nnf(*x, neg),
    }
}

/// An AND (`is_and`) or OR of the children, each negated if `neg`.
fn combine(children: Vec<Tree>, neg: bool, is_and: bool) -> Nnf {
    join(children.into_iter().map(|c| nnf(c, neg)).collect(), is_and)
}
