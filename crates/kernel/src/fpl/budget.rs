//! An upper estimate of what verifying a generated program costs the kernel,
//! so that a program the verifier would refuse never reaches it.
//!
//! The verifier walks every path, following a loop iteration by iteration
//! (its counter is a constant it tracks), within two limits: one million
//! instructions processed ("BPF program is too large"), and 8,192 states
//! pushed at once ("the sequence of jumps is too complex"): at a jump on a
//! value it does not know, it pushes the jump's target and walks on, and a
//! pushed state waits until the walk reaches an exit.
//!
//! [`Cost::work`] counts, per IR node, a generous number of instructions,
//! multiplies a loop by its bound (plus one for the last test), adds both
//! sides of an `IF`, and for every fork in a loop's body adds the rest of the
//! loop walked again (bound² / 2 bodies): the verifier's state pruning, which
//! would stop the pushed side where it joins the walked one, drops states that
//! keep missing, and a loop leaves one per iteration at each join, so a
//! program with an `IF` in a loop of 2,048 runs needed over a million
//! instructions where the count without this term said 300,000. [`Cost::forks`] counts the pushed states a walk can pile
//! up: the generator makes every run-time check jump on success, so the fault
//! side is walked first and ends at once, computes comparisons used as values
//! without branches, and makes a loop's exit the side walked first; what is
//! left are the jumps of `IF` and loop tests (one per comparison joined by
//! `&&`/`||`: one per test and one per `&&`/`||`) and the `&&`/`||` of values,
//! and a loop repeats its body's forks `bound` times. A program past half of either limit is refused.
//!
//! Checked on kernel 6.18 with the generator's programs (`tests/fpl_ebpf.rs`;
//! `NETSIFT_FPL_CALIBRATE=1` prints each estimate): every program under the
//! limits here loads.

use super::Error;
use netsift_fpl::hir::{Expr, Place, Program, Stmt};

/// Instructions processed the estimate allows: half the verifier's million.
pub const MAX_WORK: u64 = 500_000;
/// States pushed at once the estimate allows: half the verifier's 8,192.
pub const MAX_FORKS: u64 = 4_096;

/// What verifying a piece of code costs, at most.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Instructions the verifier processes.
    pub work: u64,
    /// States it holds pushed at once, on the walk through this code.
    pub forks: u64,
}

impl Cost {
    const fn new(work: u64, forks: u64) -> Cost {
        Cost { work, forks }
    }

    fn then(self, other: Cost) -> Cost {
        Cost::new(
            self.work.saturating_add(other.work),
            self.forks.saturating_add(other.forks),
        )
    }

    fn times(self, n: u64) -> Cost {
        Cost::new(self.work.saturating_mul(n), self.forks.saturating_mul(n))
    }
}

/// The estimate for `program`.
pub fn estimate(program: &Program) -> Cost {
    // The prologue and the ending (the XDP one copies into the ring).
    block(program.body()).then(Cost::new(200, 0))
}

/// Refuses `program` when [`estimate`] passes [`MAX_WORK`] or [`MAX_FORKS`].
pub fn check(program: &Program) -> Result<(), Error> {
    let c = estimate(program);
    if c.work > MAX_WORK {
        return Err(Error::TooLarge(format!(
            "the verifier could process about {} instructions (loops times their bodies), \
             more than the {MAX_WORK} allowed; it runs in the daemon",
            c.work
        )));
    }
    if c.forks > MAX_FORKS {
        return Err(Error::TooLarge(format!(
            "the verifier could hold about {} branches at once (loops times the IFs, \
             && and || in their bodies), more than the {MAX_FORKS} allowed; it runs in the daemon",
            c.forks
        )));
    }
    Ok(())
}

fn block(body: &[Stmt]) -> Cost {
    body.iter().fold(Cost::default(), |c, s| c.then(stmt(s)))
}

fn stmt(s: &Stmt) -> Cost {
    match s {
        Stmt::Assign { target, value, .. } => {
            let at = match target {
                Place::Reg(_) => Cost::new(8, 0),
                Place::Mem(i) => expr(i).then(Cost::new(18, 0)),
            };
            expr(value).then(at)
        }
        Stmt::If { cond, then, els } => {
            let (t, e) = (block(then), block(els));
            expr(cond).then(Cost::new(
                t.work.saturating_add(e.work).saturating_add(3),
                t.forks.max(e.forks).saturating_add(1),
            ))
        }
        Stmt::Loop(l) => {
            let bound = u64::from(l.bound);
            let test = l.cond.as_ref().map_or(Cost::default(), expr);
            let each = test
                .then(block(&l.body))
                .then(block(&l.step))
                .then(Cost::new(12, 0));
            // A fork in the body whose pushed side the verifier cannot prune
            // where the sides join (it drops states that keep missing, and a
            // loop leaves one per iteration at every join) walks the rest of
            // the loop again: up to bound² / 2 bodies per fork.
            let again = each
                .times(each.forks)
                .times(bound.saturating_mul(bound) / 2);
            block(&l.init)
                .then(test.then(Cost::new(12, 1)))
                .then(each.times(bound))
                .then(Cost::new(again.work, 0))
        }
        Stmt::Break => Cost::new(1, 0),
        Stmt::Return(e) | Stmt::Eval(e) => expr(e).then(Cost::new(2, 0)),
    }
}

fn expr(e: &Expr) -> Cost {
    match e {
        Expr::Const(_) | Expr::Reg(_) | Expr::Extern { .. } | Expr::Call { .. } => Cost::new(3, 0),
        Expr::Mem(i) => expr(i).then(Cost::new(9, 0)),
        // On the XDP hook a load is a helper call and its check.
        Expr::Load { offset, .. } => expr(offset).then(Cost::new(22, 0)),
        Expr::Field { base, index, .. } => expr(base).then(expr(index)).then(Cost::new(15, 0)),
        Expr::Unary(_, a) => expr(a).then(Cost::new(7, 0)),
        Expr::Binary(_, a, b) => expr(a).then(expr(b)).then(Cost::new(16, 0)),
        Expr::And(a, b) | Expr::Or(a, b) => expr(a).then(expr(b)).then(Cost::new(12, 1)),
        Expr::Hash { start, len, .. } => expr(start)
            .then(Cost::new(16, 0))
            .then(Cost::new(20, 0).times(u64::from(*len) + 1)),
    }
}
