//! The root block as libpcap's `opt_root` leaves it.
//!
//! libpcap's optimiser removes a root test whose branches meet, but moves the root
//! block's statements to the new root, so the program still loads that field first
//! and faults on a packet too short for it. [`keep_root_load`] puts an always-true
//! test of the same loads first (a *root probe*) where the program lost the root
//! test. (Where `opt_root` reaches a return, no statement runs: `to_tree` reads a
//! constant there and asks for no probe.)

use crate::lower::ir::{Cmp, Pred, Test, Val};
use crate::nnf::Nnf;
use netsift_isa::ArithOp;
use std::collections::HashSet;

fn first_lit(n: &Nnf) -> Option<&Pred> {
    match n {
        Nnf::Lit(p, _) => Some(p),
        Nnf::And(v) | Nnf::Or(v) => v.first().and_then(first_lit),
        Nnf::Shared(s) => first_lit(&s.node),
        _ => None,
    }
}

/// libpcap's optimizer drops a root test whose branches meet but keeps the root
/// block's load (opt_root moves its statements to the new root): the program still
/// loads that field first and faults on a packet too short for it. An always-true
/// test of the field does the same.
///
/// A relation's block keeps all of its statements, so every load (and division) of
/// both sides still runs: `link[len] == -link[-20] and vrrp or ...` on IPV6 faults on
/// every packet (`link[len]` is past the captured bytes), though `vrrp` is false there
/// and the relation's jump goes.
pub(crate) fn keep_root_load(root: Option<Pred>, n: Nnf) -> Nnf {
    let Some(root) = root else { return n };
    if matches!(n, Nnf::Const(_)) || first_lit(&n) == Some(&root) {
        return n;
    }
    let probe = match root {
        Pred::Cmp(c) => Pred::Cmp(Cmp {
            loc: c.loc,
            size: c.size,
            mask: c.size.max(),
            test: Test::Ge(0),
        }),
        Pred::Rel { lhs, rhs, .. } => rel_probe(lhs, rhs),
        _ => return n,
    };
    let probe = Nnf::Lit(probe, false);
    debug_assert!(is_root_probe(&probe));
    match n {
        Nnf::And(mut v) => {
            v.insert(0, probe);
            Nnf::And(v)
        }
        n => Nnf::And(vec![probe, n]),
    }
}

/// The loads libpcap puts in front of the first test to fill a variable offset's
/// register (`lower::OptInfo::prologue`), first, as the root's: where the program
/// left still reads an offset computed from them (an anchor other than the packet's
/// start). Where it reads none, the register's store is dead and libpcap's
/// optimiser removes it with its loads (`len < 1500 and (udp[0:2] > 21 or ip or
/// ...)` on PFLOG folds to the length test alone).
pub(crate) fn keep_prologue(prologue: Option<Pred>, n: Nnf) -> Nnf {
    if prologue.is_none() || !reads_anchor(&n, &mut HashSet::new()) {
        return n;
    }
    keep_root_load(prologue, n)
}

/// Whether a test of `n` loads through an anchor other than the packet's start
/// (each shared node looked at once, `seen`).
fn reads_anchor(n: &Nnf, seen: &mut HashSet<*const Nnf>) -> bool {
    fn val(v: &Val) -> bool {
        match v {
            Val::Const(_) | Val::Len => false,
            Val::Load { anchor, index, .. } => *anchor != 0 || val(index),
            Val::Neg(x) => val(x),
            Val::Bin(_, a, b) => val(a) || val(b),
        }
    }
    match n {
        Nnf::Const(_) => false,
        Nnf::Lit(p, _) => match p {
            Pred::Cmp(c) => c.loc.anchor != 0,
            Pred::Rel { lhs, rhs, .. } => val(lhs) || val(rhs),
            Pred::Protochain { nl, .. } => nl.anchor != 0,
            Pred::Len(_) | Pred::Known(_) | Pred::Acc { .. } => false,
        },
        Nnf::And(v) | Nnf::Or(v) => v.iter().any(|x| reads_anchor(x, seen)),
        Nnf::Unoptimized(x) => reads_anchor(x, seen),
        Nnf::Shared(s) => seen.insert(std::rc::Rc::as_ptr(&s.node)) && reads_anchor(&s.node, seen),
    }
}

/// `(lhs - rhs) * 0 >= 0`: always true, after running both sides' loads and
/// divisions in libpcap's order. Lowering folds a product with a constant 0, so no
/// relation of the text has this form.
fn rel_probe(lhs: Val, rhs: Val) -> Pred {
    let diff = Val::Bin(ArithOp::Sub, Box::new(lhs), Box::new(rhs));
    Pred::Rel {
        rel: netsift_isa::RelOp::Ge,
        lhs: Val::Bin(ArithOp::Mul, Box::new(diff), Box::new(Val::Const(0))),
        rhs: Val::Const(0),
    }
}

/// The always-true test [`keep_root_load`] puts first. (No primitive lowers to it:
/// a relation the user writes is a `Pred::Rel` with no product by a constant 0, and a
/// range starting at 0 is never a filter's first test.)
pub(crate) fn is_root_probe(n: &Nnf) -> bool {
    match n {
        Nnf::Lit(Pred::Cmp(c), false) => c.test == Test::Ge(0) && c.mask == c.size.max(),
        Nnf::Lit(
            Pred::Rel {
                rel: netsift_isa::RelOp::Ge,
                lhs: Val::Bin(ArithOp::Mul, _, k),
                rhs: Val::Const(0),
            },
            false,
        ) => **k == Val::Const(0),
        _ => false,
    }
}
