//! Normal form: negations pushed down to the atoms (De Morgan, order kept), nested
//! and/or flattened, constants folded ([`normalize`]).
//!
//! Folding `a and false` to `false` and `a or true` to `true` drops `a`'s loads.
//! libpcap's optimizer does the same (a test whose branches meet is removed), so the
//! folded program faults exactly where libpcap's does. A negated part is folded in
//! its positive form first, and `x or not x` is folded, as libpcap's flow graph sees
//! them; the per-path folding itself is `opt::tree::fold`, which this step calls on
//! each node as it is built. A filter libpcap does not optimize (`geneve`,
//! `protochain`) is only flattened ([`Nnf::Unoptimized`]).

use crate::lower::ir::Tree;
use crate::nnf::{dual, Nnf};
use crate::opt::tree::{fold, root};
use crate::opt::{Budget, Facts, Fuel};

/// Converts `t` (negated if `neg`) to negation normal form, within `budget`.
pub fn normalize(t: Tree, budget: &Budget) -> Nnf {
    let mut fuel = Fuel::new(budget);
    match t {
        Tree::Unoptimized(x) => Nnf::Unoptimized(Box::new(nnf(*x, false, false, &mut fuel))),
        t => {
            let first = root::first_atom(&t).cloned();
            let n = nnf(t, false, true, &mut fuel);
            root::keep_root_load(first, n)
        }
    }
}

/// `opt`: fold what libpcap's optimizer folds (else only flatten and push negations).
fn nnf(t: Tree, neg: bool, opt: bool, fuel: &mut Fuel) -> Nnf {
    match t {
        Tree::Const(b) => Nnf::Const(b != neg),
        Tree::Atom(p) => Nnf::Lit(p, neg),
        // Fold the negated part in its own (positive) form first: libpcap's optimizer
        // sees `not (a and b)` as the flow graph of `a and b` with its exits swapped, so
        // a path of `a and b` that cannot hold makes the negation true there.
        // (With `opt`, every AND/OR is folded as it is built, so that `x or not x`
        // still finds `x` and its negation in the same shape.)
        Tree::Not(x) if opt && !neg => dual(&nnf(*x, false, opt, fuel)),
        Tree::Not(x) => nnf(*x, !neg, opt, fuel),
        Tree::And(v) if opt => fold_both(combine(v, neg, !neg, opt, fuel), fuel),
        Tree::Or(v) if opt => fold_both(combine(v, neg, neg, opt, fuel), fuel),
        Tree::And(v) => combine(v, neg, !neg, opt, fuel),
        Tree::Or(v) => combine(v, neg, neg, opt, fuel),
        Tree::Unoptimized(x) => nnf(*x, neg, false, fuel),
    }
}

/// Folds `n`, and decides it if its negation folds to a constant: `not` only swaps
/// the exits of libpcap's flow graph, so `not a or not b` is decided wherever
/// `a and b` is (`not udp or not ip6 proto 1` is always true).
fn fold_both(n: Nnf, fuel: &mut Fuel) -> Nnf {
    // Folding every node as it is built costs the node's size each time; past a few
    // hundred literals that would make compile time quadratic on long chains, so big
    // nodes are left to the whole-tree pass (`simplify`) alone.
    if matches!(n, Nnf::Decided(..))
        || lits(&n, fuel.limits.fold_limit + 1) > fuel.limits.fold_limit
    {
        return n;
    }
    // A conjunction that folds to false (a disjunction to true) keeps its form until
    // its context is known.
    let whole = matches!(n, Nnf::And(_) | Nnf::Or(_)).then(|| n.clone());
    let n = fold::simp(n, &Facts::default(), fuel);
    if let (Nnf::Const(b), Some(w)) = (&n, whole) {
        if *b == matches!(w, Nnf::Or(_)) {
            return Nnf::Decided(*b, Box::new(w));
        }
    }
    if matches!(n, Nnf::And(_) | Nnf::Or(_)) {
        if let Nnf::Const(b) = fold::simp(dual(&n), &Facts::default(), fuel) {
            return Nnf::Const(!b);
        }
    }
    n
}

/// Literals in `n`, counting no further than `cap`.
fn lits(n: &Nnf, cap: usize) -> usize {
    match n {
        Nnf::Const(_) => 0,
        Nnf::Lit(..) => 1,
        Nnf::Unoptimized(x) | Nnf::Decided(_, x) => lits(x, cap),
        Nnf::And(v) | Nnf::Or(v) => {
            let mut total = 0;
            for x in v {
                total += lits(x, cap - total.min(cap));
                if total >= cap {
                    break;
                }
            }
            total
        }
    }
}

/// Builds an AND (`is_and`) or OR of the children, each negated if `neg`.
fn combine(children: Vec<Tree>, neg: bool, is_and: bool, opt: bool, fuel: &mut Fuel) -> Nnf {
    let mut out = Vec::with_capacity(children.len());
    for c in children {
        match nnf(c, neg, opt, fuel) {
            // The identity element disappears; the absorbing one decides. A decided
            // part equal to the identity stays: libpcap may keep some of its tests,
            // depending on the code after it, and `simplify` decides.
            d @ Nnf::Decided(b, _) if b == is_and => out.push(d),
            Nnf::Const(b) if b == is_and => {}
            // Decided, and so is what it ends: the children before it are part of it.
            Nnf::Decided(b, x) => {
                match *x {
                    Nnf::And(v) if is_and => out.extend(v),
                    Nnf::Or(v) if !is_and => out.extend(v),
                    x => out.push(x),
                }
                let whole = if is_and { Nnf::And(out) } else { Nnf::Or(out) };
                return Nnf::Decided(b, Box::new(whole));
            }
            Nnf::Const(b) => return Nnf::Const(b),
            Nnf::And(v) if is_and => out.extend(v),
            Nnf::Or(v) if !is_and => out.extend(v),
            n => out.push(n),
        }
    }
    // `x or not x` is true and `x and not x` false whatever the packet; libpcap's
    // optimizer sees that (both branches of a test reach the same result) and drops the
    // loads, so netsift folds it too. Only short lists are searched, keeping compile
    // time linear.
    if opt && out.len() <= 32 {
        // Compared in place: building each child's negation would copy the whole
        // subtree at every level of a deep nesting.
        for i in 0..out.len() {
            if out[i + 1..].iter().any(|y| is_dual(y, &out[i])) {
                return Nnf::Const(!is_and);
            }
        }
        // `a or b or (not a and not b)` is true too (and dually): where the later
        // child runs, the earlier ones have failed, so its tests repeat theirs with
        // known outcomes, and libpcap's optimizer sends every path the same way.
        // (In any order: every way the compound child fails, a sibling holds.)
        for j in 0..out.len() {
            let inner = match (&out[j], is_and) {
                (Nnf::And(v), false) | (Nnf::Or(v), true) if v.len() <= 32 => v,
                _ => continue,
            };
            if inner.iter().all(|e| {
                let mut steps = fuel.limits.imply_steps;
                out.iter().enumerate().any(|(i, x)| {
                    // An OR holds if `e` fails only where a sibling holds; an AND
                    // fails if `e` holds only where a sibling fails. (`not e` is read
                    // in place, not built.)
                    i != j
                        && if is_and {
                            implies((x, false), (e, true), &mut steps)
                        } else {
                            implies((e, true), (x, false), &mut steps)
                        }
                })
            }) {
                return Nnf::Const(!is_and);
            }
        }
    }
    match out.len() {
        0 => Nnf::Const(is_and),
        1 => out.pop().expect("one element"),
        _ if is_and => Nnf::And(out),
        _ => Nnf::Or(out),
    }
}

/// Whether `a` holding makes `b` hold, read off their shape alone: `b` is `a`, or
/// `a` is a conjunction one of whose conjuncts implies `b`, or `b` is a disjunction
/// one of whose alternatives `a` implies (and so on down). `port 23 or not telnet`
/// needs it: `not telnet` is the negation of the TCP alternatives of `port 23`
/// alone, and where it runs those alternatives have failed test by test (libpcap's
/// threading follows each failure into it), so it holds there.
///
/// Each side is a node and whether it is read negated (its [`dual`], without
/// building it).
fn implies(a: (&Nnf, bool), b: (&Nnf, bool), steps: &mut usize) -> bool {
    if *steps == 0 {
        return false;
    }
    *steps -= 1;
    let same = if a.1 == b.1 {
        a.0 == b.0
    } else {
        is_dual(a.0, b.0)
    };
    if same {
        return true;
    }
    // A negated AND reads as an OR of negated children, and the other way round:
    // (children, read as an AND, children negated).
    fn list((n, neg): (&Nnf, bool)) -> Option<(&[Nnf], bool, bool)> {
        match n {
            Nnf::And(v) => Some((v, !neg, neg)),
            Nnf::Or(v) => Some((v, neg, neg)),
            _ => None,
        }
    }
    match (list(a), list(b)) {
        (_, Some((v, true, nb))) => v.iter().all(|y| implies(a, (y, nb), steps)),
        (_, Some((v, false, nb))) if v.iter().any(|y| implies(a, (y, nb), steps)) => true,
        (Some((v, true, na)), _) => v.iter().any(|x| implies((x, na), b, steps)),
        (Some((v, false, na)), _) => v.iter().all(|x| implies((x, na), b, steps)),
        _ => false,
    }
}

/// Whether `a` is [`dual`]`(b)`, compared in place.
fn is_dual(a: &Nnf, b: &Nnf) -> bool {
    match (a, b) {
        (Nnf::Const(x), Nnf::Const(y)) => x != y,
        (Nnf::Lit(p, n), Nnf::Lit(q, m)) => n != m && p == q,
        (Nnf::And(v), Nnf::Or(w)) | (Nnf::Or(v), Nnf::And(w)) => {
            v.len() == w.len() && v.iter().zip(w).all(|(x, y)| is_dual(x, y))
        }
        (Nnf::Unoptimized(x), Nnf::Unoptimized(y)) => is_dual(x, y),
        (Nnf::Decided(c, x), Nnf::Decided(d, y)) => c != d && is_dual(x, y),
        _ => false,
    }
}
