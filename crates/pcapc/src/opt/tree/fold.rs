//! Folding on the normal form: tests whose outcome earlier tests on the same path
//! decide, as libpcap's jump threading (optimize.c, `opt_j` with `fold_edge`)
//! decides them.
//!
//! `tcp and udp` is false, `not (icmp[0] = 1 and pim[0] = 2)` is true; a folded
//! test's load is dropped, as libpcap drops it. Beyond the facts of one path this
//! splits paths over an OR's alternatives or a conjunction's failures (followed only
//! through tests decided from the start of the code after them, where threading
//! stops, [`all_settle`]), cuts tests whose both outcomes lead the same way (here at
//! the top of a list, at any depth in `dead_tests`), and keeps the tests libpcap
//! keeps in front of a conjunction decided false ([`dead_conjunction`]).
//!
//! Every limit comes from the caller's [`Fuel`]; past one, a test simply stays.

use crate::nnf::{dual, Nnf};
use crate::opt::budget::Fuel;
use crate::opt::facts::{learn_all, learn_fail, Facts};
use crate::opt::tree::dead_tests::prune;
use crate::opt::tree::thread::{lead_and, lead_or, Forks};

/// Folds the whole filter (its exits are the verdicts).
pub(crate) fn fold_root(n: Nnf, fuel: &mut Fuel) -> Nnf {
    let depth = fuel.limits.split_depth;
    simp_b(n, &Facts::default(), depth, LEAF, fuel)
}

/// Folds `n`, a part of the filter whose exits lead on to more code, on a path with
/// facts `f`.
pub(crate) fn simp(n: Nnf, f: &Facts, fuel: &mut Fuel) -> Nnf {
    let depth = fuel.limits.split_depth;
    simp_b(n, f, depth, INNER, fuel)
}

/// Whether a node's exits are the program's verdicts: (its true exit accepts, its
/// false exit rejects). Only then may the walks after a test look past undecided
/// tests (see `thread`).
type Exits = (bool, bool);
const LEAF: Exits = (true, true);
const INNER: Exits = (false, false);

/// Forks for a walk whose outcome is the exit `leaf` says is (or is not) a verdict.
fn forks(leaf: bool, fuel: &Fuel) -> Forks {
    if leaf {
        fuel.limits.leaf_forks
    } else {
        0
    }
}

fn simp_b(n: Nnf, f: &Facts, budget: u32, exits: Exits, fuel: &mut Fuel) -> Nnf {
    match n {
        Nnf::Const(_) | Nnf::Unoptimized(_) => n,
        Nnf::Decided(b, _) => Nnf::Const(b),
        Nnf::Lit(p, neg) => match f.decide(&p, neg) {
            Some(b) => Nnf::Const(b),
            None => Nnf::Lit(p, neg),
        },
        Nnf::Or(v) => simp_or(v, f, budget, exits, fuel),
        Nnf::And(v) => simp_and(v, f, budget, exits, fuel),
    }
}

/// The dual of [`simp_and`]: an alternative is tried only where the earlier ones
/// failed, so it is folded with what their failure established; if every way an
/// earlier conjunction can fail leads to acceptance, the OR accepts everywhere.
fn simp_or(v: Vec<Nnf>, f: &Facts, budget: u32, exits: Exits, fuel: &mut Fuel) -> Nnf {
    let fk = forks(exits.0, fuel);
    let mut facts = f.clone();
    let mut out: Vec<Nnf> = Vec::with_capacity(v.len());
    let mut rest = v.into_iter();
    while let Some(c) = rest.next() {
        if let Some(k) = dead_conjunction(&c, &facts, rest.as_slice(), budget, exits, fuel) {
            out.push(k);
            continue;
        }
        match simp(c, &facts, fuel) {
            Nnf::Const(false) => {}
            Nnf::Const(true) => return Nnf::Const(true),
            Nnf::Lit(p, neg) => {
                facts.learn(&p, !neg);
                out.push(Nnf::Lit(p, neg));
            }
            Nnf::And(mut conj) => {
                let tail: Vec<Nnf> = rest.collect();
                if tail.is_empty() {
                    out.push(Nnf::And(conj));
                    break;
                }
                // Once a prefix of this conjunction holds and the tail is then sure to
                // hold, the rest of the conjunction cannot change the outcome: libpcap's
                // optimizer sends both its branches the same way and drops its tests.
                let mut fa = facts.clone();
                for k in 0..conj.len() - 1 {
                    learn_all(&conj[k], &mut fa);
                    if !fuel.burn(1) {
                        break;
                    }
                    if lead_or(&tail, &fa, &facts, fk, fuel) == Some(true) {
                        conj.truncate(k + 1);
                        break;
                    }
                }
                // Dually, inside a conjunct that is an OR: once a prefix of its
                // alternatives failed and the tail is then sure to hold, with the later
                // conjuncts decided there too, its later alternatives are dropped.
                let mut before = facts.clone();
                for j in 0..conj.len() {
                    if let Nnf::Or(alts) = &conj[j] {
                        let mut fp = before.clone();
                        let mut cut = None;
                        for (k, alt) in alts.iter().enumerate().take(alts.len() - 1) {
                            learn_fail(alt, &mut fp);
                            if !fuel.burn(1) {
                                break;
                            }
                            if lead_or(&tail, &fp, &facts, fk, fuel) == Some(true)
                                && lead_and(&conj[j + 1..], &fp, &facts, 0, fuel).is_some()
                            {
                                cut = Some(k + 1);
                                break;
                            }
                        }
                        if let Some(n) = cut {
                            let mut a = alts.clone();
                            a.truncate(n);
                            conj[j] = if n == 1 {
                                a.pop().expect("one")
                            } else {
                                Nnf::Or(a)
                            };
                        }
                    }
                    learn_all(&conj[j], &mut before);
                }
                // The same at any depth inside the conjunction.
                conj = match prune(&Nnf::And(conj), &facts, &tail, false, fuel) {
                    Nnf::And(v) => v,
                    x => vec![x],
                };
                if budget > 0 && conj.len() <= fuel.limits.split_limit && fuel.burn(conj.len()) {
                    let ways = (0..conj.len()).flat_map(|k| {
                        let mut fa = facts.clone();
                        for x in &conj[..k] {
                            learn_all(x, &mut fa);
                        }
                        paths(&conj[k], false, fa, fuel)
                    });
                    let ways: Vec<Facts> = ways.collect();
                    if all_settle(ways, &tail, &facts, fk, true, fuel) {
                        return Nnf::Const(true);
                    }
                }
                match conj.len() {
                    1 => {
                        let x = conj.pop().expect("one");
                        learn_fail(&x, &mut facts);
                        out.push(x);
                    }
                    _ => out.push(Nnf::And(conj)),
                }
                rest = tail.into_iter();
            }
            Nnf::Or(w) => {
                w.iter().for_each(|x| learn_fail(x, &mut facts));
                out.extend(w)
            }
            c => out.push(c),
        }
    }
    match out.len() {
        0 => Nnf::Const(false),
        1 => out.pop().expect("one"),
        _ => Nnf::Or(out),
    }
}

/// Whether threading takes every one of `ways` (the paths into an OR's `tail`, or
/// an AND's, with `is_or` false) to the verdict that decides the whole list (accept
/// for an OR, reject for an AND). The tail's tests are threaded with what every way
/// into them knows, `base` at first; a way threading settles no longer enters them,
/// and libpcap recomputes dominators on each pass, so the ways left may share more
/// facts, which can settle them in turn (`not (ip[12:4] = 1 or ip[16:4] = 1) or not
/// ip[12:4] = 2 or not ip[16:4] = 2` accepts everything: once the way where the first
/// field is 1 is settled, only the way where the second is 1 enters the last test).
fn all_settle(
    mut ways: Vec<Facts>,
    tail: &[Nnf],
    base: &Facts,
    fk: Forks,
    is_or: bool,
    fuel: &mut Fuel,
) -> bool {
    let mut dom = base.clone();
    loop {
        let open = ways.len();
        ways.retain(|fp| {
            let led = if is_or {
                lead_or(tail, fp, &dom, fk, fuel)
            } else {
                lead_and(tail, fp, &dom, fk, fuel)
            };
            led != Some(is_or)
        });
        if ways.is_empty() {
            return true;
        }
        if ways.len() == open || fk == 0 || !fuel.burn(ways.len()) {
            return false;
        }
        dom = Facts::shared(ways.clone());
    }
}

/// The facts of each way `n` can hold (`held`) or fail, starting from `f`; together
/// they cover every way (a path whose facts are not all known keeps fewer facts).
fn paths(n: &Nnf, held: bool, f: Facts, fuel: &mut Fuel) -> Vec<Facts> {
    let limit = fuel.limits.split_paths;
    let fallback = |mut f: Facts| {
        if held {
            learn_all(n, &mut f);
        } else {
            learn_fail(n, &mut f);
        }
        vec![f]
    };
    match n {
        Nnf::Lit(..) => fallback(f),
        // Every child holds (AND held / OR failed): the paths of each in turn.
        Nnf::And(v) | Nnf::Or(v) if held == matches!(n, Nnf::And(_)) => {
            let mut acc = vec![f];
            for x in v {
                let mut next = Vec::new();
                for fp in acc {
                    next.extend(paths(x, held, fp, fuel));
                    // Past the limit, one way with the facts they all share.
                    if next.len() > limit {
                        next = vec![Facts::shared(next)];
                    }
                }
                acc = next;
            }
            acc
        }
        // One child decides (AND failed / OR held): the ones before it went the
        // other way.
        Nnf::And(v) | Nnf::Or(v) => {
            if !fuel.burn(v.len()) {
                return fallback(f);
            }
            let mut out = Vec::new();
            let mut before = vec![f.clone()];
            for x in v {
                for fp in &before {
                    out.extend(paths(x, held, fp.clone(), fuel));
                }
                if out.len() > limit {
                    return fallback(f);
                }
                let mut next = Vec::new();
                for fp in before {
                    next.extend(paths(x, !held, fp, fuel));
                }
                // The ways past the earlier children only feed the later ones' paths:
                // past the limit, one way with the facts they share still covers them.
                before = if out.len() + next.len() > limit {
                    vec![Facts::shared(next)]
                } else {
                    next
                };
            }
            out
        }
        _ => vec![f],
    }
}

fn simp_and(v: Vec<Nnf>, f: &Facts, budget: u32, exits: Exits, fuel: &mut Fuel) -> Nnf {
    let fk = forks(exits.1, fuel);
    let mut facts = f.clone();
    let mut out: Vec<Nnf> = Vec::with_capacity(v.len());
    let mut rest = v.into_iter();
    while let Some(c) = rest.next() {
        if let Some(k) = dead_disjunction(&c, &facts, rest.as_slice(), budget, exits, fuel) {
            out.push(k);
            continue;
        }
        match simp(c, &facts, fuel) {
            Nnf::Const(true) => {}
            Nnf::Const(false) => return Nnf::Const(false),
            Nnf::Lit(p, neg) => {
                facts.learn(&p, neg);
                out.push(Nnf::Lit(p, neg));
            }
            Nnf::Or(mut alts) => {
                let tail: Vec<Nnf> = rest.collect();
                if tail.is_empty() {
                    out.push(Nnf::Or(alts));
                    break;
                }
                // The dual of simp_or's cut: once the first alternatives failed and the
                // tail is then sure to fail, the later alternatives cannot change the
                // outcome, and libpcap's optimizer drops their tests.
                let mut fa = facts.clone();
                for k in 0..alts.len() - 1 {
                    learn_fail(&alts[k], &mut fa);
                    if !fuel.burn(1) {
                        break;
                    }
                    if lead_and(&tail, &fa, &facts, fk, fuel) == Some(false) {
                        alts.truncate(k + 1);
                        break;
                    }
                }
                // Inside an alternative: once a prefix of it held and the tail is then
                // sure to fail, with the later alternatives decided there too (so every
                // way on leads to failure), the rest of that alternative is dropped.
                let mut before = facts.clone();
                for j in 0..alts.len() {
                    if let Nnf::And(conj) = &alts[j] {
                        let mut fp = before.clone();
                        let mut cut = None;
                        for (k, c) in conj.iter().enumerate().take(conj.len() - 1) {
                            learn_all(c, &mut fp);
                            if !fuel.burn(1) {
                                break;
                            }
                            if lead_and(&tail, &fp, &facts, fk, fuel) == Some(false)
                                && lead_or(&alts[j + 1..], &fp, &facts, 0, fuel).is_some()
                            {
                                cut = Some(k + 1);
                                break;
                            }
                        }
                        if let Some(n) = cut {
                            let mut c = conj.clone();
                            c.truncate(n);
                            alts[j] = if n == 1 {
                                c.pop().expect("one")
                            } else {
                                Nnf::And(c)
                            };
                        }
                    }
                    learn_fail(&alts[j], &mut before);
                }
                // The same at any depth inside the disjunction.
                alts = match prune(&Nnf::Or(alts), &facts, &tail, true, fuel) {
                    Nnf::Or(v) => v,
                    x => vec![x],
                };
                // The tests after this OR run on each alternative's path with what that
                // alternative established; if every path is impossible, so is the AND.
                if budget > 0 && alts.len() <= fuel.limits.split_limit && fuel.burn(alts.len()) {
                    let ways = alts.iter().enumerate().flat_map(|(j, a)| {
                        let mut fa = facts.clone();
                        for x in &alts[..j] {
                            learn_fail(x, &mut fa);
                        }
                        paths(a, true, fa, fuel)
                    });
                    let ways: Vec<Facts> = ways.collect();
                    if all_settle(ways, &tail, &facts, fk, false, fuel) {
                        return Nnf::Const(false);
                    }
                }
                match alts.len() {
                    1 => {
                        let x = alts.pop().expect("one");
                        learn_all(&x, &mut facts);
                        match x {
                            Nnf::And(w) => out.extend(w),
                            x => out.push(x),
                        }
                    }
                    _ => out.push(Nnf::Or(alts)),
                }
                rest = tail.into_iter();
            }
            Nnf::And(w) => {
                for x in &w {
                    learn_all(x, &mut facts);
                }
                out.extend(w)
            }
            c => out.push(c),
        }
    }
    match out.len() {
        0 => Nnf::Const(true),
        1 => out.pop().expect("one"),
        _ => Nnf::And(out),
    }
}

// ---- a conjunction decided false ----
//
// In `a or (b and c and d) or t`, where `d` cannot hold once `c` did, every exit of
// the middle conjunction leads to `t`. libpcap removes a test only when both its
// branches end up at the same block (`JT == JF` in `opt_j`), and it threads each
// branch into `t` with what that branch knows: `c`'s true branch knows `c`, its false
// branch knows the opposite, so they stop at different places in `t` whenever `c`
// decides one of `t`'s first tests. Then `c` stays, and with it `b` (whose true
// branch leads to `c`, its false branch into `t`), and their loads can fault on a
// short packet. Such blocks would only merge later, in `intern_blocks`, too late to
// remove the tests.

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
fn dead_conjunction(
    c: &Nnf,
    facts: &Facts,
    tail: &[Nnf],
    budget: u32,
    exits: Exits,
    fuel: &mut Fuel,
) -> Option<Nnf> {
    let Nnf::Decided(false, x) = c else {
        return None;
    };
    let Nnf::And(conj) = &**x else { return None };
    if tail.is_empty() || budget == 0 || !fuel.burn(conj.len() + tail.len()) {
        return None;
    }
    let mut fa = facts.clone();
    let mut prefix: Vec<Nnf> = Vec::new();
    // The facts before the last test of the prefix.
    let mut before_last = 0;
    let mut decided = false;
    for x in conj {
        match simp(x.clone(), &fa, fuel) {
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
        Land::At(_) => Some(simp_or(tail.to_vec(), &fa, budget - 1, exits, fuel)),
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
fn dead_disjunction(
    c: &Nnf,
    facts: &Facts,
    tail: &[Nnf],
    budget: u32,
    exits: Exits,
    fuel: &mut Fuel,
) -> Option<Nnf> {
    if !matches!(c, Nnf::Decided(true, _)) || tail.is_empty() {
        return None;
    }
    let tail: Vec<Nnf> = tail.iter().map(dual).collect();
    dead_conjunction(&dual(c), facts, &tail, budget, (exits.1, exits.0), fuel).map(|n| dual(&n))
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
fn walk(n: &Nnf, f: &mut Facts) -> Result<bool, *const Nnf> {
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
