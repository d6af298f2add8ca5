//! A loop's bound from its header. When the header has the shape
//! `FOR (R[r] = c0; … R[r] < c … ; R[r] += k)` (`<=`, `>`/`>=` with a
//! negative step, the constant on either side, the comparison anywhere among the
//! test's `&&` conjuncts) and nothing in the body assigns `R[r]`, the loop runs
//! at most the number of steps from `c0` to `c`. Otherwise the caller uses its
//! default bound; either way executors count iterations against the bound, so a
//! derivation that is wrong (a counter that wraps) can only fault, never loop.

use crate::hir::{Expr, Place, Stmt};
use crate::ops::BinOp;

/// The number of iterations the header allows, when it can be derived.
pub(crate) fn derive(
    init: &[Stmt],
    cond: Option<&Expr>,
    step: &[Stmt],
    body: &[Stmt],
) -> Option<u128> {
    let [Stmt::Assign {
        target: Place::Reg(r),
        op: None,
        value: Expr::Const(c0),
    }] = init
    else {
        return None;
    };
    let k = match step {
        [Stmt::Assign {
            target: Place::Reg(s),
            op: Some(BinOp::Add),
            value: Expr::Const(k),
        }] if s == r => *k,
        [Stmt::Assign {
            target: Place::Reg(s),
            op: Some(BinOp::Sub),
            value: Expr::Const(k),
        }] if s == r => k.checked_neg()?,
        _ => return None,
    };
    if k == 0 || assigns(body, *r) {
        return None;
    }
    let mut conjuncts = Vec::new();
    split_and(cond?, &mut conjuncts);
    conjuncts
        .iter()
        .filter_map(|c| limit(c, *r, i128::from(*c0), i128::from(k)))
        .min()
}

fn split_and<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::And(a, b) => {
            split_and(a, out);
            split_and(b, out);
        }
        _ => out.push(e),
    }
}

/// Iterations allowed by one conjunct `R[r] op c` (or `c op R[r]`).
fn limit(e: &Expr, r: u8, c0: i128, k: i128) -> Option<u128> {
    let Expr::Binary(op, a, b) = e else {
        return None;
    };
    let (op, c) = match (&**a, &**b) {
        (Expr::Reg(x), Expr::Const(c)) if *x == r => (*op, *c),
        (Expr::Const(c), Expr::Reg(x)) if *x == r => (flip(*op)?, *c),
        _ => return None,
    };
    let c = i128::from(c);
    // The distance the counter may travel while the test holds, in its direction.
    let span = match op {
        BinOp::Lt if k > 0 => c - c0,
        BinOp::Le if k > 0 => c - c0 + 1,
        BinOp::Gt if k < 0 => c0 - c,
        BinOp::Ge if k < 0 => c0 - c + 1,
        _ => return None,
    };
    let step = k.unsigned_abs();
    Some(if span <= 0 {
        0
    } else {
        (span as u128).div_ceil(step)
    })
}

/// `c op x` as `x op' c`.
fn flip(op: BinOp) -> Option<BinOp> {
    Some(match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        _ => return None,
    })
}

/// Whether any statement in `body` (at any depth) assigns `R[r]`.
fn assigns(body: &[Stmt], r: u8) -> bool {
    body.iter().any(|s| match s {
        Stmt::Assign {
            target: Place::Reg(x),
            ..
        } => *x == r,
        Stmt::If { then, els, .. } => assigns(then, r) || assigns(els, r),
        Stmt::Loop(l) => assigns(&l.init, r) || assigns(&l.step, r) || assigns(&l.body, r),
        _ => false,
    })
}
