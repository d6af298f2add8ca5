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
