//! Where the code after a test leads on one path, as libpcap's jump threading
//! follows it (optimize.c, `opt_j`).
//!
//! Threading moves an edge past the tests that the facts of the edge's dominators
//! decide; at the first test they do not decide it stops. That test is itself
//! removed if both its branches end up at the same verdict (`JT == JF`, bottom-up,
//! so nested such tests go first), and the path then goes on through it. Its
//! branches are threaded with what dominates *that test* (every way into it), not
//! with what the path that reached it knew: a block shared by several paths is
//! never copied. So the walk keeps two sets of facts, the path's and the dominators'
//! of the code it is in, and a fork looks past an undecided test with the latter.
//! A fork is exact only where the outcome asked about is a verdict of the whole
//! program (a leaf); callers allow it only then (`Budget::leaf_forks`).

use crate::nnf::{Frame, Nnf};
use crate::opt::budget::Fuel;
use crate::opt::facts::{learn_all, learn_fail, Facts};

/// How many undecided tests one query may look past (each doubles its work).
pub(crate) type Forks = u32;

/// A walk in progress. Each list it is in keeps a mark of the dominators' facts
/// when it was entered.
struct Walk<'a> {
    stack: Vec<Frame<'a, usize>>,
    /// What the path knows (decides tests).
    path: Facts,
    /// What every way into the current code knows (threads a fork's branches).
    dom: Facts,
}

enum Step<'a> {
    Eval(&'a Nnf),
    Done(bool),
}

/// The outcome of the OR of `tail` on a path with facts `path`, where every way into
/// `tail` knows `base`, if threading decides it.
pub(crate) fn lead_or(
    tail: &[Nnf],
    path: &Facts,
    base: &Facts,
    forks: Forks,
    fuel: &mut Fuel,
) -> Option<bool> {
    lead_list(tail, false, path, base, forks, fuel)
}

/// The AND of `tail`, as [`lead_or`].
pub(crate) fn lead_and(
    tail: &[Nnf],
    path: &Facts,
    base: &Facts,
    forks: Forks,
    fuel: &mut Fuel,
) -> Option<bool> {
    lead_list(tail, true, path, base, forks, fuel)
}

fn lead_list(
    tail: &[Nnf],
    is_and: bool,
    path: &Facts,
    base: &Facts,
    forks: Forks,
    fuel: &mut Fuel,
) -> Option<bool> {
    let Some(first) = tail.first() else {
        return Some(is_and);
    };
    let dom = if forks > 0 {
        base.clone()
    } else {
        Facts::default()
    };
    let mut w = Walk {
        stack: Vec::new(),
        path: path.clone(),
        dom,
    };
    w.enter(tail, is_and);
    let mut forks = forks;
    run(w, Step::Eval(first), &mut forks, fuel)
}

impl<'a> Walk<'a> {
    /// Enters `list` at its first child.
    fn enter(&mut self, list: &'a [Nnf], is_and: bool) {
        let mut f = Frame::new(list, is_and, self.dom.len());
        f.advance();
        self.stack.push(f);
    }
}

/// Runs the walk from `step` to the end of its outermost list. A loop rather than
/// recursion, so that a long list cannot exhaust the stack; only a fork recurses.
fn run<'a>(
    mut w: Walk<'a>,
    mut step: Step<'a>,
    forks: &mut Forks,
    fuel: &mut Fuel,
) -> Option<bool> {
    loop {
        let val = match step {
            Step::Eval(n) => match n {
                Nnf::Const(b) => *b,
                Nnf::Lit(p, neg) => match w.path.decide(p, *neg) {
                    Some(r) => {
                        w.path.learn(p, if r { *neg } else { !*neg });
                        r
                    }
                    None if *forks > 0 && fuel.burn(1) => {
                        *forks -= 1;
                        // Both branches, threaded with what dominates this test (so the
                        // path's own facts are not copied, only dropped).
                        let mut dom = w.dom.clone();
                        dom.learn(p, *neg);
                        let held = Walk {
                            stack: w.stack.clone(),
                            path: dom.clone(),
                            dom,
                        };
                        let a = run(held, Step::Done(true), forks, fuel)?;
                        w.dom.learn(p, !*neg);
                        w.path = w.dom.clone();
                        let b = run(w, Step::Done(false), forks, fuel)?;
                        return (a == b).then_some(a);
                    }
                    None => return None,
                },
                Nnf::And(v) | Nnf::Or(v) => {
                    w.enter(v, matches!(n, Nnf::And(_)));
                    step = Step::Eval(&v[0]);
                    continue;
                }
                Nnf::Unoptimized(_) => return None,
                // Its tests are still in the flow graph when threading runs.
                Nnf::Decided(_, x) => {
                    step = Step::Eval(x);
                    continue;
                }
            },
            Step::Done(b) => b,
        };
        // Pass the outcome up until a list goes on to its next child.
        step = Step::Done(val);
        while let Some(top) = w.stack.last_mut() {
            let f = *top;
            if top.goes_on(val) {
                // The next child is reached only past this one, going this way.
                let done = &f.list[f.next - 1];
                if f.is_and {
                    learn_all(done, &mut w.dom);
                } else {
                    learn_fail(done, &mut w.dom);
                }
                step = Step::Eval(top.advance());
                break;
            }
            w.stack.pop();
            w.dom.truncate(f.extra);
            // Leaving past every child: each went the continuing way.
            if val == f.is_and {
                for x in f.list {
                    if f.is_and {
                        learn_all(x, &mut w.dom);
                    } else {
                        learn_fail(x, &mut w.dom);
                    }
                }
            }
        }
        if w.stack.is_empty() {
            if let Step::Done(b) = step {
                return Some(b);
            }
        }
    }
}
