//! Tests of a conjunction that is decided false, which libpcap's optimizer still
//! keeps when the code after it is an OR's next alternatives.
//!
//! In `a or (b and c and d) or t`, where `d` cannot hold once `c` did, every exit of
//! the middle conjunction leads to `t`. libpcap removes a test only when both its
//! branches end up at the same block (`JT == JF` in `opt_j`), and it threads each
//! branch into `t` with what that branch knows: `c`'s true branch knows `c`, its false
//! branch knows the opposite, so they stop at different places in `t` whenever `c`
//! decides one of `t`'s first tests. Then `c` stays, and with it `b` (whose true
//! branch leads to `c`, its false branch into `t`), and their loads can fault on a
//! short packet. Such blocks would only merge later, in `intern_blocks`, too late to
//! remove the tests.

use crate::facts::Facts;
use crate::normal::{dual, learn_all, simp, simp_or, Exits, Nnf};

/// Where the code after a branch first needs a test the branch's facts do not
/// decide: a verdict, or that literal (by address in the tail).
#[derive(PartialEq, Eq, Debug)]
enum Land {
    Verdict(bool),
    At(*const Nnf),
}

/// The alternative libpcap's program keeps for `c`, a conjunction decided false
/// where it stands in an OR with facts `facts`, followed by `tail`: the tests before
/// the deciding one, then the tail as their facts leave it. `None` where nothing of it
/// is kept (or the case is not modelled): the caller drops it.
///
/// Only the last test before the deciding one is checked: once it stays, every test
/// before it stays too (each one's true branch leads to a test of the conjunction,
/// its false branch elsewhere). If that last test is an OR, its alternatives' branches
/// land in as many places; that case is not modelled.
pub(crate) fn dead_conjunction(
    c: &Nnf,
    facts: &Facts,
    tail: &[Nnf],
    budget: u32,
    exits: Exits,
) -> Option<Nnf> {
    let Nnf::Decided(false, x) = c else {
        return None;
    };
    let Nnf::And(conj) = &**x else { return None };
    if tail.is_empty() || budget == 0 || !crate::normal::burn(conj.len() + tail.len()) {
        return None;
    }
    let mut fa = facts.clone();
    let mut prefix: Vec<Nnf> = Vec::new();
    // The facts before the last test of the prefix.
    let mut before_last = 0;
    let mut decided = false;
    for x in conj {
        match simp(x.clone(), &fa) {
            Nnf::Const(true) => {}
            Nnf::Const(false) => {
                decided = true;
                break;
            }
            Nnf::Lit(p, neg) => {
                before_last = fa.len();
                fa.learn(&p, neg);
                prefix.push(Nnf::Lit(p, neg));
            }
            Nnf::And(v) => {
                v.iter().for_each(|x| learn_all(x, &mut fa));
                prefix.extend(v);
            }
            y @ Nnf::Or(_) => {
                prefix.push(y);
            }
            _ => return None,
        }
    }
    let Some(Nnf::Lit(p, neg)) = prefix.last() else {
        return None;
    };
    if !decided {
        return None;
    }
    let mut failed = fa.clone();
    failed.truncate(before_last);
    failed.learn(p, !*neg);
    let held = land(tail, &fa);
    if held == land(tail, &failed) {
        return None;
    }
    let rest = match held {
        Land::Verdict(true) => None,
        Land::Verdict(false) => return None,
        Land::At(_) => Some(simp_or(tail.to_vec(), &fa, budget - 1, exits)),
    };
    match rest {
        None => {}
        Some(Nnf::Const(true)) => {}
        Some(Nnf::Const(false)) => return None,
        Some(Nnf::And(v)) => prefix.extend(v),
        Some(n) => prefix.push(n),
    }
    Some(match prefix.len() {
        1 => prefix.pop().expect("one"),
        _ => Nnf::And(prefix),
    })
}

/// The dual of [`dead_conjunction`]: a disjunction decided true where it stands in
/// an AND, followed by `tail`. `not` only swaps the exits of libpcap's flow graph, so
/// the same tests stay.
pub(crate) fn dead_disjunction(
    c: &Nnf,
    facts: &Facts,
    tail: &[Nnf],
    budget: u32,
    exits: Exits,
) -> Option<Nnf> {
    if !matches!(c, Nnf::Decided(true, _)) || tail.is_empty() {
        return None;
    }
    let tail: Vec<Nnf> = tail.iter().map(dual).collect();
    dead_conjunction(&dual(c), facts, &tail, budget, (exits.1, exits.0)).map(|n| dual(&n))
}

/// Where threading with facts `f` stops in the OR of `tail`.
fn land(tail: &[Nnf], f: &Facts) -> Land {
    let mut f = f.clone();
    for x in tail {
        match walk(x, &mut f) {
            Ok(false) => {}
            Ok(true) => return Land::Verdict(true),
            Err(at) => return Land::At(at),
        }
    }
    Land::Verdict(false)
}

/// The outcome of `n` where `f` decides every test on the way, else the first test
/// it does not decide.
pub(crate) fn walk(n: &Nnf, f: &mut Facts) -> Result<bool, *const Nnf> {
    match n {
        Nnf::Const(b) => Ok(*b),
        Nnf::Lit(p, neg) => match f.decide(p, *neg) {
            Some(r) => {
                f.learn(p, if r { *neg } else { !*neg });
                Ok(r)
            }
            None => Err(n as *const Nnf),
        },
        Nnf::And(v) => {
            for x in v {
                if !walk(x, f)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Nnf::Or(v) => {
            for x in v {
                if walk(x, f)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        Nnf::Decided(_, x) => walk(x, f),
        Nnf::Unoptimized(_) => Err(n as *const Nnf),
    }
}
