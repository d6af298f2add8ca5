//! The worst-case cost of checked IR, in operations: one per node, `HASH` one
//! more per byte hashed, a loop its bound times its body and step (and one more
//! test), an `IF` its costlier branch. External functions count one: their own
//! cost cannot be known statically (§3.3.3); which of them a user may call is
//! authorisation's business. A filter call counts one plus its callee's cost,
//! which its checker computed (`callees` are the caller's, as
//! [`crate::hir::Program::filters`] will hold them). Sums saturate.

use crate::hir::{Callee, Expr, Place, Stmt};

pub(crate) fn stmts(body: &[Stmt], callees: &[Callee]) -> u64 {
    body.iter()
        .fold(0, |acc, s| acc.saturating_add(stmt(s, callees)))
}

pub(crate) fn stmt(s: &Stmt, callees: &[Callee]) -> u64 {
    let stmts = |b: &[Stmt]| stmts(b, callees);
    let expr = |e: &Expr| expr(e, callees);
    match s {
        Stmt::Assign { target, value, .. } => {
            let index = match target {
                Place::Reg(_) => 0,
                Place::Mem(i) => expr(i),
            };
            1u64.saturating_add(index).saturating_add(expr(value))
        }
        Stmt::If { cond, then, els } => 1u64
            .saturating_add(expr(cond))
            .saturating_add(stmts(then).max(stmts(els))),
        Stmt::Loop(l) => {
            let test = 1u64.saturating_add(l.cond.as_ref().map_or(0, &expr));
            let round = stmts(&l.body)
                .saturating_add(stmts(&l.step))
                .saturating_add(test);
            stmts(&l.init)
                .saturating_add(test)
                .saturating_add(round.saturating_mul(u64::from(l.bound)))
        }
        Stmt::Break => 1,
        Stmt::Return(e) | Stmt::Eval(e) => 1u64.saturating_add(expr(e)),
    }
}

pub(crate) fn expr(e: &Expr, callees: &[Callee]) -> u64 {
    let expr = |e: &Expr| expr(e, callees);
    let below = match e {
        Expr::Const(_) | Expr::Reg(_) | Expr::Extern { .. } => 0,
        Expr::Call { filter, .. } => callees.get(*filter).map_or(u64::MAX, |c| c.program.cost()),
        Expr::Mem(a) | Expr::Load { offset: a, .. } | Expr::Unary(_, a) => expr(a),
        Expr::Field {
            base: a, index: b, ..
        }
        | Expr::Binary(_, a, b)
        | Expr::And(a, b)
        | Expr::Or(a, b) => expr(a).saturating_add(expr(b)),
        Expr::Hash { start, len, .. } => expr(start).saturating_add(u64::from(*len)),
    };
    1u64.saturating_add(below)
}
