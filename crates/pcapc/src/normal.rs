//! Normal form: negations pushed down to the atoms (De Morgan, order kept), nested
//! and/or flattened, constants folded.
//!
//! Folding `a and false` to `false` and `a or true` to `true` drops `a`'s loads.
//! libpcap's optimizer does the same (a test whose branches meet is removed), so the
//! folded program faults exactly where libpcap's does.
//!
//! [`simplify`] stands in for the rest of that optimizer: per-path facts as its jump
//! threading has them (the same test again, a second equality), path splits over an
//! OR's alternatives or a conjunction's failures (followed only through tests decided
//! from the start of the code after them, where threading stops), the cut of tests
//! whose both outcomes lead the same way, and `not` folded in its positive form. A
//! filter libpcap does not optimize (`geneve`, `protochain`) is left as generated
//! ([`Nnf::Unoptimized`]).

use crate::facts::Facts;
use crate::keep;
use crate::lead::{lead_and, lead_or, Forks, LEAF_FORKS};
use crate::lower::ir::{Pred, Tree, Val};
use crate::prune::prune;
use netsift_isa::ArithOp;

/// A tree in negation normal form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Nnf {
    Const(bool),
    Lit(Pred, bool),
    And(Vec<Nnf>),
    Or(Vec<Nnf>),
    /// A whole filter libpcap does not optimize (see `Tree::Unoptimized`): nothing in
    /// it is folded, and selection keeps every test in order.
    Unoptimized(Box<Nnf>),
    /// A conjunction decided false (or its dual, a disjunction decided true), kept
    /// unfolded: which of its tests libpcap's optimizer removes depends on the code
    /// after it, which is known only where it is a child of an OR (a disjunction: of
    /// an AND), followed by more children (see `keep`). Everywhere else it is the
    /// constant.
    Decided(bool, Box<Nnf>),
}

/// Converts `t` (negated if `neg`) to negation normal form.
pub fn normalize(t: Tree) -> Nnf {
    FUEL.with(|f| f.set(FUEL_PER_CALL));
    match t {
        Tree::Unoptimized(x) => Nnf::Unoptimized(Box::new(nnf(*x, false, false))),
        t => {
            let root = first_atom(&t).cloned();
            let n = nnf(t, false, true);
            keep_root_load(root, n)
        }
    }
}

/// The test libpcap's program starts with (its root block).
fn first_atom(t: &Tree) -> Option<&Pred> {
    match t {
        Tree::Atom(p) => Some(p),
        Tree::Not(x) | Tree::Unoptimized(x) => first_atom(x),
        Tree::And(v) | Tree::Or(v) => v.first().and_then(first_atom),
        Tree::Const(_) => None,
    }
}

fn first_lit(n: &Nnf) -> Option<&Pred> {
    match n {
        Nnf::Lit(p, _) => Some(p),
        Nnf::And(v) | Nnf::Or(v) => v.first().and_then(first_lit),
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
fn keep_root_load(root: Option<Pred>, n: Nnf) -> Nnf {
    let Some(root) = root else { return n };
    if matches!(n, Nnf::Const(_) | Nnf::Decided(..)) || first_lit(&n) == Some(&root) {
        return n;
    }
    let probe = match root {
        Pred::Cmp(c) => Pred::Cmp(crate::lower::ir::Cmp {
            loc: c.loc,
            size: c.size,
            mask: c.size.max(),
            test: crate::lower::ir::Test::Ge(0),
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
        Nnf::Lit(Pred::Cmp(c), false) => {
            c.test == crate::lower::ir::Test::Ge(0) && c.mask == c.size.max()
        }
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

/// Drops the root load when what follows it is decided by load-free comparisons
/// alone: libpcap's optimizer decides those only in its second round, too late to
/// remove their blocks, but `opt_root` then skips a root block whose branches meet,
/// and drops the moved statements if it reaches a return.
fn settle_root(n: Nnf) -> Nnf {
    match &n {
        Nnf::And(v) if is_root_probe(&v[0]) => match known_list(&v[1..], true) {
            Some(b) => Nnf::Const(b),
            None => n,
        },
        _ => n,
    }
}

/// The verdict the program's first tests reach if they are all load-free
/// comparisons (`Pred::Known`).
fn known_root(n: &Nnf) -> Option<bool> {
    match n {
        Nnf::Const(b) => Some(*b),
        Nnf::Lit(Pred::Known(k), neg) => Some(k != neg),
        Nnf::And(v) => known_list(v, true),
        Nnf::Or(v) => known_list(v, false),
        _ => None,
    }
}

fn known_list(v: &[Nnf], is_and: bool) -> Option<bool> {
    for x in v {
        let b = known_root(x)?;
        if b != is_and {
            return Some(b);
        }
    }
    Some(is_and)
}

/// `opt`: fold what libpcap's optimizer folds (else only flatten and push negations).
fn nnf(t: Tree, neg: bool, opt: bool) -> Nnf {
    match t {
        Tree::Const(b) => Nnf::Const(b != neg),
        Tree::Atom(p) => Nnf::Lit(p, neg),
        // Fold the negated part in its own (positive) form first: libpcap's optimizer
        // sees `not (a and b)` as the flow graph of `a and b` with its exits swapped, so
        // a path of `a and b` that cannot hold makes the negation true there.
        // (With `opt`, every AND/OR is folded as it is built, so that `x or not x`
        // still finds `x` and its negation in the same shape.)
        Tree::Not(x) if opt && !neg => dual(&nnf(*x, false, opt)),
        Tree::Not(x) => nnf(*x, !neg, opt),
        Tree::And(v) if opt => fold_both(combine(v, neg, !neg, opt)),
        Tree::Or(v) if opt => fold_both(combine(v, neg, neg, opt)),
        Tree::And(v) => combine(v, neg, !neg, opt),
        Tree::Or(v) => combine(v, neg, neg, opt),
        Tree::Unoptimized(x) => nnf(*x, neg, false),
    }
}

/// Folds `n`, and decides it if its negation folds to a constant: `not` only swaps
/// the exits of libpcap's flow graph, so `not a or not b` is decided wherever
/// `a and b` is (`not udp or not ip6 proto 1` is always true).
fn fold_both(n: Nnf) -> Nnf {
    // Folding every node as it is built costs the node's size each time; past a few
    // hundred literals that would make compile time quadratic on long chains, so big
    // nodes are left to the whole-tree pass (`simplify`) alone.
    if matches!(n, Nnf::Decided(..)) || lits(&n, FOLD_LIMIT + 1) > FOLD_LIMIT {
        return n;
    }
    // A conjunction that folds to false (a disjunction to true) keeps its form until
    // its context is known.
    let whole = matches!(n, Nnf::And(_) | Nnf::Or(_)).then(|| n.clone());
    let n = simp(n, &Facts::default());
    if let (Nnf::Const(b), Some(w)) = (&n, whole) {
        if *b == matches!(w, Nnf::Or(_)) {
            return Nnf::Decided(*b, Box::new(w));
        }
    }
    if matches!(n, Nnf::And(_) | Nnf::Or(_)) {
        if let Nnf::Const(b) = simp(dual(&n), &Facts::default()) {
            return Nnf::Const(!b);
        }
    }
    n
}

/// Largest node (in literals) folded as it is built.
const FOLD_LIMIT: usize = 256;

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
fn combine(children: Vec<Tree>, neg: bool, is_and: bool, opt: bool) -> Nnf {
    let mut out = Vec::with_capacity(children.len());
    for c in children {
        match nnf(c, neg, opt) {
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
                let mut steps = IMPLY_STEPS;
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

/// Most node pairs one [`implies`] query compares; past it, the answer is no.
const IMPLY_STEPS: usize = 256;

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

/// The negation of a normal-form tree, itself in normal form.
pub(crate) fn dual(n: &Nnf) -> Nnf {
    match n {
        Nnf::Const(b) => Nnf::Const(!b),
        Nnf::Lit(p, neg) => Nnf::Lit(p.clone(), !neg),
        Nnf::And(v) => Nnf::Or(v.iter().map(dual).collect()),
        Nnf::Or(v) => Nnf::And(v.iter().map(dual).collect()),
        Nnf::Unoptimized(x) => Nnf::Unoptimized(Box::new(dual(x))),
        Nnf::Decided(b, x) => Nnf::Decided(!b, Box::new(dual(x))),
    }
}

/// How many path splits (each re-folds the tests after a split point under one
/// alternative's facts) one `normalize` or `simplify` may make in all; past it,
/// folding goes on without splitting, so compile time stays about linear in the
/// expression's size whatever its nesting.
const FUEL_PER_CALL: u64 = 4096;

thread_local! {
    static FUEL: std::cell::Cell<u64> = const { std::cell::Cell::new(FUEL_PER_CALL) };
}

/// Takes `n` units of splitting fuel; false (and takes nothing) if not enough is left.
pub(crate) fn burn(n: usize) -> bool {
    FUEL.with(|f| {
        let left = f.get();
        if left >= n as u64 {
            f.set(left - n as u64);
            true
        } else {
            false
        }
    })
}

/// Most alternatives an OR may have for its siblings to be checked under each one.
const SPLIT_LIMIT: usize = 8;

/// Folds tests whose outcome earlier tests on the same path already decide, as
/// libpcap's optimizer does with its per-path value numbering: `tcp and udp` is
/// false, `not (icmp[0] = 1 and pim[0] = 2)` is true. A folded test's load is dropped,
/// which is what libpcap's optimizer does too. Last, a later test of the value just
/// loaded moves in front where libpcap's pullups move it (`pullup`).
pub fn simplify(n: Nnf) -> Nnf {
    FUEL.with(|f| f.set(FUEL_PER_CALL));
    crate::pullup::pullup(settle_root(simp_b(n, &Facts::default(), SPLIT_DEPTH, LEAF)))
}

/// How many ORs deep the per-alternative check may nest (it multiplies the work by
/// up to [`SPLIT_LIMIT`] per level).
const SPLIT_DEPTH: u32 = 2;

pub(crate) fn simp(n: Nnf, f: &Facts) -> Nnf {
    simp_b(n, f, SPLIT_DEPTH, INNER)
}

/// Whether a node's exits are the program's verdicts: (its true exit accepts, its
/// false exit rejects). Only then may the walks after a test look past undecided
/// tests (see `lead`).
pub(crate) type Exits = (bool, bool);
const LEAF: Exits = (true, true);
const INNER: Exits = (false, false);

/// Forks for a walk whose outcome is the exit `leaf` says is (or is not) a verdict.
fn forks(leaf: bool) -> Forks {
    if leaf {
        LEAF_FORKS
    } else {
        0
    }
}

fn simp_b(n: Nnf, f: &Facts, budget: u32, exits: Exits) -> Nnf {
    match n {
        Nnf::Const(_) | Nnf::Unoptimized(_) => n,
        Nnf::Decided(b, _) => Nnf::Const(b),
        Nnf::Lit(p, neg) => match f.decide(&p, neg) {
            Some(b) => Nnf::Const(b),
            None => Nnf::Lit(p, neg),
        },
        Nnf::Or(v) => simp_or(v, f, budget, exits),
        Nnf::And(v) => simp_and(v, f, budget, exits),
    }
}

/// The dual of [`simp_and`]: an alternative is tried only where the earlier ones
/// failed, so it is folded with what their failure established; if every way an
/// earlier conjunction can fail leads to acceptance, the OR accepts everywhere.
pub(crate) fn simp_or(v: Vec<Nnf>, f: &Facts, budget: u32, exits: Exits) -> Nnf {
    let fk = forks(exits.0);
    let mut facts = f.clone();
    let mut out: Vec<Nnf> = Vec::with_capacity(v.len());
    let mut rest = v.into_iter();
    while let Some(c) = rest.next() {
        if let Some(k) = keep::dead_conjunction(&c, &facts, rest.as_slice(), budget, exits) {
            out.push(k);
            continue;
        }
        match simp(c, &facts) {
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
                    if !burn(1) {
                        break;
                    }
                    if lead_or(&tail, &fa, &facts, fk) == Some(true) {
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
                            if !burn(1) {
                                break;
                            }
                            if lead_or(&tail, &fp, &facts, fk) == Some(true)
                                && lead_and(&conj[j + 1..], &fp, &facts, 0).is_some()
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
                conj = match prune(&Nnf::And(conj), &facts, &tail, false) {
                    Nnf::And(v) => v,
                    x => vec![x],
                };
                if budget > 0 && conj.len() <= SPLIT_LIMIT && burn(conj.len()) {
                    let ways = (0..conj.len()).flat_map(|k| {
                        let mut fa = facts.clone();
                        for x in &conj[..k] {
                            learn_all(x, &mut fa);
                        }
                        paths(&conj[k], false, fa)
                    });
                    if all_settle(ways.collect(), &tail, &facts, fk, true) {
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
fn all_settle(mut ways: Vec<Facts>, tail: &[Nnf], base: &Facts, fk: Forks, is_or: bool) -> bool {
    let mut dom = base.clone();
    loop {
        let open = ways.len();
        ways.retain(|fp| {
            let led = if is_or {
                lead_or(tail, fp, &dom, fk)
            } else {
                lead_and(tail, fp, &dom, fk)
            };
            led != Some(is_or)
        });
        if ways.is_empty() {
            return true;
        }
        if ways.len() == open || fk == 0 || !burn(ways.len()) {
            return false;
        }
        dom = Facts::shared(ways.clone());
    }
}

/// Most paths [`paths`] tells apart; past it, one path with the facts they share.
const PATH_LIMIT: usize = 16;

/// The facts of each way `n` can hold (`held`) or fail, starting from `f`; together
/// they cover every way (a path whose facts are not all known keeps fewer facts).
fn paths(n: &Nnf, held: bool, f: Facts) -> Vec<Facts> {
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
                    next.extend(paths(x, held, fp));
                    // Past the limit, one way with the facts they all share.
                    if next.len() > PATH_LIMIT {
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
            if !burn(v.len()) {
                return fallback(f);
            }
            let mut out = Vec::new();
            let mut before = vec![f.clone()];
            for x in v {
                for fp in &before {
                    out.extend(paths(x, held, fp.clone()));
                }
                if out.len() > PATH_LIMIT {
                    return fallback(f);
                }
                let mut next = Vec::new();
                for fp in before {
                    next.extend(paths(x, !held, fp));
                }
                // The ways past the earlier children only feed the later ones' paths:
                // past the limit, one way with the facts they share still covers them.
                before = if out.len() + next.len() > PATH_LIMIT {
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

/// Facts every path through `n` that rejects has established (literals of an OR).
pub(crate) fn learn_fail(n: &Nnf, f: &mut Facts) {
    match n {
        Nnf::Lit(p, neg) => f.learn(p, !*neg),
        Nnf::Or(v) => v.iter().for_each(|x| learn_fail(x, f)),
        _ => {}
    }
}

fn simp_and(v: Vec<Nnf>, f: &Facts, budget: u32, exits: Exits) -> Nnf {
    let fk = forks(exits.1);
    let mut facts = f.clone();
    let mut out: Vec<Nnf> = Vec::with_capacity(v.len());
    let mut rest = v.into_iter();
    while let Some(c) = rest.next() {
        if let Some(k) = keep::dead_disjunction(&c, &facts, rest.as_slice(), budget, exits) {
            out.push(k);
            continue;
        }
        match simp(c, &facts) {
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
                    if !burn(1) {
                        break;
                    }
                    if lead_and(&tail, &fa, &facts, fk) == Some(false) {
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
                            if !burn(1) {
                                break;
                            }
                            if lead_and(&tail, &fp, &facts, fk) == Some(false)
                                && lead_or(&alts[j + 1..], &fp, &facts, 0).is_some()
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
                alts = match prune(&Nnf::Or(alts), &facts, &tail, true) {
                    Nnf::Or(v) => v,
                    x => vec![x],
                };
                // The tests after this OR run on each alternative's path with what that
                // alternative established; if every path is impossible, so is the AND.
                if budget > 0 && alts.len() <= SPLIT_LIMIT && burn(alts.len()) {
                    let ways = alts.iter().enumerate().flat_map(|(j, a)| {
                        let mut fa = facts.clone();
                        for x in &alts[..j] {
                            learn_fail(x, &mut fa);
                        }
                        paths(a, true, fa)
                    });
                    if all_settle(ways.collect(), &tail, &facts, fk, false) {
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

/// Facts every path through `n` that accepts has established (literals of an AND).
pub(crate) fn learn_all(n: &Nnf, f: &mut Facts) {
    match n {
        Nnf::Lit(p, neg) => f.learn(p, *neg),
        Nnf::And(v) => v.iter().for_each(|x| learn_all(x, f)),
        _ => {}
    }
}
