//! Tests that libpcap's optimizer moves up a chain: `or_pullup` and `and_pullup`
//! (optimize.c, run in `opt_blks` after the jump threading of each first-round pass).
//!
//! In libpcap's flow graph, take a block `b` whose predecessors all leave the same
//! value `val` in the accumulator, and the chain of blocks below it along their false
//! edges that share `b`'s true target and that `b` dominates (an OR chain; dually, an
//! AND chain along the true edges with a shared false target). The first block of the
//! chain that tests `val` again is moved up in front of the first one that does not.
//! In `not (host A and B)`, once the source address is not A, the tests left are
//! `dst == A` and then (threaded past `dst == B`, which `dst == A` decides) `src == B`,
//! a chain with one false target: `src == B` is pulled up, so the packet's source is
//! compared with B before the destination is loaded, and a packet cut before its
//! destination address is decided without faulting.
//!
//! The flow graph is taken from the paths through the normal form (each undecided
//! test a block, its outcomes threaded past the tests the path decides, as
//! `fold` folds them). Where two paths leave one edge for different
//! places, one passing decided a test the other stops at, the edge is a join that
//! libpcap's threading (by the edge's dominators, not by one path's facts) does not
//! pass: that test stays a block on both (`Graph::joined`). A pull becomes `c or d` (dually `c and d`) in place
//! of the literal `d` it goes in front of; `c`'s own place is then decided on every
//! path that reaches it. The rewrite is kept only if the paths of the new form are
//! exactly those of the pulled graph, so where the graph is not what this model
//! expects nothing changes. Filters with more paths than [`Budget::pull_paths`] are left as
//! they are, and so are chains that are runs of src-or-dst pairs (`port 22 or port
//! 80`, `not host (A or B)`): `select` already packs those in the pulled order, every
//! value on the first field before the second field is loaded.

use crate::fasthash::{FastMap, FastSet};
use crate::lower::ir::{Cmp, Pred, Test};
use crate::nnf::{Frame, Nnf};
use crate::opt::budget::Budget;
use crate::opt::facts::Facts;
use crate::opt::tree::root::is_root_probe;
use std::collections::HashMap;

/// A block: the literal it tests, by address in the tree being looked at.
type Id = *const Nnf;

/// Where an edge of the flow graph goes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Succ {
    Test(Id),
    Ret(bool),
}

/// One way through the filter: each block's test outcome (the predicate's truth, which
/// is BPF's jump-true for the tests [`plain`] admits), then the verdict.
struct Path<'a> {
    steps: Trail<'a>,
    verdict: bool,
}

/// Tests passed in order, each with its predicate's truth and whether the path's
/// facts decided it (threading passes those; see [`effective`]).
type Trail<'a> = Vec<(&'a Nnf, bool, bool)>;

fn id(n: &Nnf) -> Id {
    n as Id
}

type IdMap<V> = FastMap<Id, V>;
type IdSet = FastSet<Id>;

/// `n` with the tests libpcap's pullups move reordered (see the module docs).
pub(crate) fn pullup(n: Nnf, b: &Budget) -> Nnf {
    let mut n = n;
    for _ in 0..b.pulls {
        match pull_once(&n, b) {
            Some(m) => n = m,
            None => break,
        }
    }
    n
}

/// The first pull libpcap makes on `n`'s flow graph, lowest blocks first (opt_blks
/// visits levels upwards from the returns), if the model covers it.
fn pull_once(n: &Nnf, budget: &Budget) -> Option<Nnf> {
    let (paths, reached_decided) = explore(n, budget)?;
    let g = Graph::new(&paths, budget)?;
    // Ties in the order the tests are first met.
    let mut order: Vec<(usize, (usize, usize), Id)> = g
        .nodes
        .iter()
        .map(|(id, x)| (x.level, x.on[0], *id))
        .collect();
    order.sort_unstable();
    for (_, _, b) in order {
        for is_or in [true, false] {
            let Some(pull) = g.find(b, is_or) else {
                continue;
            };
            // Where no other path reaches the pulled test's place, the chain is a run
            // of src-or-dst pairs (`port 22 or port 80`), which selection already packs
            // in the pulled order (one EQ2 over every value, or a negated one; see
            // `select::push_alt` and `select::gather_negated`).
            // (The wire length is not such a field: `greater 100` pulled in front of a
            // relation changes which loads run.)
            let len = subject(pred_of(g.nodes[&pull.c].lit)) == Some(Subject::Len);
            if !reached_decided.contains(&pull.c) && !len {
                continue;
            }
            let m = replace(n, pull.d, &pulled_lit(&g, &pull));
            let want = thread(g.pulled(&pull).paths(budget)?);
            if same_paths(want, preds_of(&explore(&m, budget)?.0)) {
                return Some(m);
            }
        }
    }
    None
}

/// What stands in `d`'s place after `pull`: `c` first, its true branch to `d`'s true
/// target (or_pullup) or its false branch to `d`'s false target (and_pullup), else on
/// to `d`. As a literal that is `c or d` (`c and d`); where `d` is negated, so are
/// both and the connective flips, so that the compound holds exactly where `d` would
/// have led it.
fn pulled_lit(g: &Graph, pull: &Pull) -> Nnf {
    let d = g.nodes[&pull.d].lit;
    let Nnf::Lit(_, neg) = d else {
        unreachable!("blocks are literals")
    };
    let both = vec![
        Nnf::Lit(pred_of(g.nodes[&pull.c].lit).clone(), *neg),
        d.clone(),
    ];
    if pull.is_or != *neg {
        Nnf::Or(both)
    } else {
        Nnf::And(both)
    }
}

/// `n` with the node at `at` replaced by `with` (joined into its parent's list when
/// of the same kind).
fn replace(n: &Nnf, at: Id, with: &Nnf) -> Nnf {
    if id(n) == at {
        return with.clone();
    }
    let (v, is_and) = match n {
        Nnf::And(v) => (v, true),
        Nnf::Or(v) => (v, false),
        _ => return n.clone(),
    };
    let mut out = Vec::with_capacity(v.len() + 1);
    for x in v {
        match replace(x, at, with) {
            Nnf::And(w) if is_and && id(x) == at => out.extend(w),
            Nnf::Or(w) if !is_and && id(x) == at => out.extend(w),
            y => out.push(y),
        }
    }
    if is_and {
        Nnf::And(out)
    } else {
        Nnf::Or(out)
    }
}

/// A move found by `or_pullup` (`is_or`) or `and_pullup`: `c` goes in front of `d`.
struct Pull {
    is_or: bool,
    /// The block `c` is pulled in front of.
    d: Id,
    /// The block pulled up.
    c: Id,
    /// The chain block whose edge led to `d`, or `None` at the top of the chain (then
    /// every edge into `d` moves to `c`).
    prev: Option<Id>,
    /// The chain block whose edge led to `c`.
    before_c: Id,
}

/// The value a test leaves in BPF's accumulator, for the tests whose jumps are
/// known: a primitive's masked field, or the wire length `less`/`greater` load
/// (`ld #pktlen`). A relation computes its own value, which no other test shares.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Subject {
    Field(crate::lower::ir::Loc, netsift_isa::Size, u32),
    Len,
}

fn subject(p: &Pred) -> Option<Subject> {
    match p {
        Pred::Cmp(c) if plain_cmp(c) => Some(Subject::Field(c.loc, c.size, c.mask)),
        Pred::Len(_) => Some(Subject::Len),
        _ => None,
    }
}

/// A comparison that stays a jump on its masked field with the predicate's truth as
/// the true branch. `and #k; jeq #0` becomes `jset #k` with its branches swapped and
/// the mask dropped from the value (opt_peep), so it is left out.
fn plain_cmp(c: &Cmp) -> bool {
    !(c.test == Test::Eq(0) && c.mask != c.size.max())
}

/// A block the chain walks may pass: its true branch is the predicate's truth. A
/// relation is one too: in the first round, where the pullups run, its `x & k == 0`
/// is still `and x; jeq` (it becomes `jset` only in the second).
fn plain(lit: &Nnf) -> bool {
    match lit {
        Nnf::Lit(Pred::Cmp(c), _) => plain_cmp(c) && !is_root_probe(lit),
        Nnf::Lit(Pred::Len(_) | Pred::Rel { .. }, _) => true,
        _ => false,
    }
}

fn pred_of(lit: &Nnf) -> &Pred {
    match lit {
        Nnf::Lit(p, _) => p,
        _ => unreachable!("blocks are literals"),
    }
}

// ---- the paths through a normal form ----

#[derive(Clone, Default)]
struct Cursor<'a> {
    stack: Vec<Frame<'a>>,
    facts: Facts,
}

/// Where a walk goes on from: a node to evaluate, or the outcome of the one just
/// left.
type Next<'a> = Result<&'a Nnf, bool>;

enum Stop<'a> {
    Test(&'a Nnf, &'a Pred, bool),
    Ret(bool),
}

/// Every path through `root`, forking at each test the path's facts do not decide,
/// and the tests some path reaches with its outcome decided; `None` past the limits
/// or where the tree has parts the model leaves alone.
fn explore<'a>(root: &'a Nnf, budget: &Budget) -> Option<(Vec<Path<'a>>, IdSet)> {
    let mut out = Vec::new();
    let mut walk = Walk {
        steps: 0,
        limit: budget.pull_steps,
        decided: IdSet::default(),
    };
    let mut work: Vec<(Cursor, Next, Trail)> = vec![(Cursor::default(), Ok(root), Vec::new())];
    while let Some((mut cur, next, mut trail)) = work.pop() {
        match advance(&mut cur, next, &mut walk, &mut trail)? {
            Stop::Ret(verdict) => {
                out.push(Path {
                    steps: trail,
                    verdict,
                });
                if out.len() > budget.pull_paths {
                    return None;
                }
            }
            Stop::Test(n, p, neg) => {
                // The false branch on a copy, then the true one on the walk itself.
                let mut c = cur.clone();
                c.facts.learn(p, true);
                let mut t = trail.clone();
                t.push((n, false, false));
                work.push((c, Err(neg), t));
                cur.facts.learn(p, false);
                trail.push((n, true, false));
                work.push((cur, Err(!neg), trail));
            }
        }
    }
    out.reverse();
    Some((out, walk.decided))
}

/// An edge of the flow graph (a block and its outcome; `None` for the way into the
/// root) and a decided test it stops at rather than being threaded past.
type Edge = (Option<(Id, bool)>, Id);

/// The blocks a path passes: its undecided tests, and the decided ones an edge
/// stops at (`kept`); each with its outcome and its place on `trail`.
fn effective<'a>(trail: &Trail<'a>, kept: &FastSet<Edge>) -> Vec<(&'a Nnf, bool, usize)> {
    let mut out = Vec::new();
    let mut last: Option<(Id, bool)> = None;
    for (at, &(n, o, decided)) in trail.iter().enumerate() {
        if !decided || kept.contains(&(last, id(n))) {
            out.push((n, o, at));
            last = Some((id(n), o));
        }
    }
    out
}

/// What one exploration has spent and seen.
struct Walk {
    steps: usize,
    /// Most steps it may take (keeps compile time bounded).
    limit: usize,
    decided: IdSet,
}

/// Walks from `next` to the next test the facts do not decide, or to the verdict;
/// the tests it passes decided go on `trail`.
fn advance<'a>(
    cur: &mut Cursor<'a>,
    mut next: Next<'a>,
    walk: &mut Walk,
    trail: &mut Trail<'a>,
) -> Option<Stop<'a>> {
    loop {
        walk.steps += 1;
        if walk.steps > walk.limit {
            return None;
        }
        let val = match next {
            Ok(n) => match n {
                Nnf::Const(b) => *b,
                Nnf::Lit(p, neg) => {
                    if matches!(
                        p,
                        Pred::Known(_) | Pred::Acc { .. } | Pred::Protochain { .. }
                    ) {
                        return None;
                    }
                    match cur.facts.decide(p, *neg) {
                        Some(r) => {
                            cur.facts.learn(p, if r { *neg } else { !*neg });
                            walk.decided.insert(id(n));
                            trail.push((n, r != *neg, true));
                            r
                        }
                        None => return Some(Stop::Test(n, p, *neg)),
                    }
                }
                Nnf::And(v) | Nnf::Or(v) => {
                    let is_and = matches!(n, Nnf::And(_));
                    match v.first() {
                        Some(x) => {
                            let mut f = Frame::new(v, is_and, ());
                            f.advance();
                            cur.stack.push(f);
                            next = Ok(x);
                            continue;
                        }
                        None => is_and,
                    }
                }
                Nnf::Unoptimized(_) | Nnf::Decided(..) => return None,
            },
            Err(b) => b,
        };
        // Pass the outcome up until a list goes on to its next child.
        loop {
            let Some(top) = cur.stack.last_mut() else {
                return Some(Stop::Ret(val));
            };
            if top.goes_on(val) {
                next = Ok(top.advance());
                break;
            }
            cur.stack.pop();
        }
    }
}

// ---- the flow graph the paths make ----

struct Node<'a> {
    lit: &'a Nnf,
    /// Indexed by the test's outcome.
    succ: [Option<Succ>; 2],
    preds: Vec<Id>,
    /// The paths through it, with its place on each (the first is where it is first
    /// met).
    on: Vec<(usize, usize)>,
    /// The longest way from here to a return (opt_blks' level).
    level: usize,
}

struct Graph<'a> {
    nodes: IdMap<Node<'a>>,
    root: Option<Succ>,
    /// How many paths there are.
    paths: usize,
}

impl<'a> Graph<'a> {
    /// The graph of `paths`, or `None` if some edge leads to different places on
    /// different paths in a way [`Graph::joined`] cannot mend.
    fn new(paths: &[Path<'a>], budget: &Budget) -> Option<Graph<'a>> {
        let mut kept: FastSet<Edge> = FastSet::default();
        for _ in 0..budget.join_rounds {
            match Self::build(paths, &kept) {
                Ok(g) => return Some(g),
                Err(conflict) => {
                    let e = Self::joined(paths, &kept, conflict)?;
                    if !kept.insert(e) {
                        return None;
                    }
                }
            }
        }
        None
    }

    /// The graph of the paths' steps, with the decided tests `kept` names as blocks
    /// too; on an edge that leads two ways, the two (path, place) pairs.
    fn build(paths: &[Path<'a>], kept: &FastSet<Edge>) -> Result<Graph<'a>, [(usize, usize); 2]> {
        let mut nodes: IdMap<Node> = IdMap::default();
        let mut from: FastMap<(Id, bool), (usize, usize)> = FastMap::default();
        let mut root = None;
        for (k, p) in paths.iter().enumerate() {
            let steps = effective(&p.steps, kept);
            if k == 0 {
                root = Some(match steps.first() {
                    Some(&(lit, _, _)) => Succ::Test(id(lit)),
                    None => Succ::Ret(p.verdict),
                });
            }
            for (i, &(lit, o, at)) in steps.iter().enumerate() {
                let next = match steps.get(i + 1) {
                    Some(&(m, _, _)) => Succ::Test(id(m)),
                    None => Succ::Ret(p.verdict),
                };
                let node = nodes.entry(id(lit)).or_insert_with(|| Node {
                    lit,
                    succ: [None, None],
                    preds: Vec::new(),
                    on: Vec::new(),
                    level: 0,
                });
                node.on.push((k, i));
                match node.succ[o as usize] {
                    Some(s) if s != next => return Err([from[&(id(lit), o)], (k, at)]),
                    Some(_) => {}
                    None => {
                        node.succ[o as usize] = Some(next);
                        from.insert((id(lit), o), (k, at));
                    }
                }
                node.level = node.level.max(steps.len() - i);
            }
        }
        let edges: Vec<(Id, Id)> = nodes
            .iter()
            .flat_map(|(id, n)| {
                n.succ.iter().filter_map(move |s| match s {
                    Some(Succ::Test(m)) => Some((*id, *m)),
                    _ => None,
                })
            })
            .collect();
        for (from, to) in edges {
            if let Some(n) = nodes.get_mut(&to) {
                n.preds.push(from);
            }
        }
        Ok(Graph {
            nodes,
            root,
            paths: paths.len(),
        })
    }

    /// Mends an edge that two paths leave for different places. Both run the same
    /// code after it; one stopped at a test its facts leave open, the other passed
    /// that test decided. libpcap threads an edge only with what the edge's
    /// dominators know, which is no more than both paths know, so the edge stops at
    /// that test on every path: the test becomes a block on the other path too.
    fn joined(
        paths: &[Path<'a>],
        kept: &FastSet<Edge>,
        conflict: [(usize, usize); 2],
    ) -> Option<Edge> {
        let edge = |k: usize, at: usize| {
            let (n, o, _) = paths[k].steps[at];
            Some((id(n), o))
        };
        // The next block each path reaches after the edge, and the decided tests it
        // passed on the way.
        let after = |k: usize, at: usize| {
            let mut passed = Vec::new();
            for &(m, _, decided) in &paths[k].steps[at + 1..] {
                if !decided || kept.contains(&(edge(k, at), id(m))) {
                    return (Some(id(m)), passed);
                }
                passed.push(id(m));
            }
            (None, passed)
        };
        let [(ka, ia), (kb, ib)] = conflict;
        let (stop_a, passed_a) = after(ka, ia);
        let (stop_b, passed_b) = after(kb, ib);
        match (stop_a, stop_b) {
            (Some(m), _) if passed_b.contains(&m) => Some((edge(ka, ia), m)),
            (_, Some(m)) if passed_a.contains(&m) => Some((edge(kb, ib), m)),
            _ => None,
        }
    }

    /// The pull `or_pullup(b)` (`is_or`) or `and_pullup(b)` makes, if any.
    fn find(&self, b: Id, is_or: bool) -> Option<Pull> {
        let node = &self.nodes[&b];
        let val = subject(pred_of(self.nodes[node.preds.first()?].lit))?;
        if node.preds.iter().any(|p| {
            let lit = self.nodes[p].lit;
            !plain(lit) || subject(pred_of(lit)) != Some(val)
        }) {
            return None;
        }
        // or_pullup keeps the true target and walks the false edges; and_pullup the
        // reverse.
        let (keep, along) = if is_or { (1, 0) } else { (0, 1) };
        let target = node.succ[keep];
        let b_at = self.places(b);
        let on_chain = |id: Id| {
            let n = &self.nodes[&id];
            plain(n.lit) && n.succ[keep] == target && Self::dominates(&b_at, b, id, n)
        };
        let next = |id: Id| match self.nodes[&id].succ[along] {
            Some(Succ::Test(m)) => Some(m),
            _ => None,
        };
        // Down the chain past the blocks that test `val` too...
        let (mut d, mut prev) = (b, None);
        loop {
            if !on_chain(d) {
                return None;
            }
            if subject(pred_of(self.nodes[&d].lit)) != Some(val) {
                break;
            }
            prev = Some(d);
            d = next(d)?;
        }
        // ...then on to the first one that tests `val` again.
        let (mut c, mut before_c) = (next(d)?, d);
        loop {
            if !on_chain(c) {
                return None;
            }
            if subject(pred_of(self.nodes[&c].lit)) == Some(val) {
                break;
            }
            before_c = c;
            c = next(c)?;
        }
        Some(Pull {
            is_or,
            d,
            c,
            prev,
            before_c,
        })
    }

    /// `b`'s place on each path (the last, should it be met twice).
    fn places(&self, b: Id) -> Vec<Option<usize>> {
        let mut at = vec![None; self.paths];
        for &(k, i) in &self.nodes[&b].on {
            at[k] = Some(i);
        }
        at
    }

    /// Whether every path through `n` (whose node is `node`) passes `b` first (`b`
    /// dominates `n`); `b_at` is [`Graph::places`] of `b`.
    fn dominates(b_at: &[Option<usize>], b: Id, n: Id, node: &Node) -> bool {
        b == n || node.on.iter().all(|&(k, i)| b_at[k].is_some_and(|j| j < i))
    }

    /// The edges after `pull`, as or_pullup/and_pullup set them.
    fn pulled(&self, pull: &Pull) -> Edges {
        let along = if pull.is_or { 0 } else { 1 };
        let mut e = Edges {
            succ: self
                .nodes
                .iter()
                .map(|(id, n)| (*id, (pred_of(n.lit).clone(), n.succ)))
                .collect(),
            root: self.root,
        };
        let c_next = e.succ[&pull.c].1[along];
        let mut set = |at: Id, way: usize, to: Option<Succ>| {
            if let Some(x) = e.succ.get_mut(&at) {
                x.1[way] = to;
            }
        };
        // `*samep = JF(pull); JF(pull) = *diffp` (JT for and_pullup).
        set(pull.before_c, along, c_next);
        set(pull.c, along, Some(Succ::Test(pull.d)));
        match pull.prev {
            // Inside the chain only the chain's edge moves.
            Some(p) => set(p, along, Some(Succ::Test(pull.c))),
            // At the top, every edge into `d`.
            None => {
                for p in &self.nodes[&pull.d].preds {
                    if let Some(x) = e.succ.get_mut(p) {
                        for s in x.1.iter_mut().filter(|s| **s == Some(Succ::Test(pull.d))) {
                            *s = Some(Succ::Test(pull.c));
                        }
                    }
                }
            }
        }
        e
    }
}

/// A flow graph's edges, with each block's predicate.
struct Edges {
    succ: IdMap<(Pred, [Option<Succ>; 2])>,
    root: Option<Succ>,
}

type PredPath = (Vec<(Pred, bool)>, bool);

impl Edges {
    /// Every path from the root, as predicates and outcomes.
    fn paths(&self, budget: &Budget) -> Option<Vec<PredPath>> {
        let mut out = Vec::new();
        let mut work = vec![(self.root?, Vec::new())];
        while let Some((at, trail)) = work.pop() {
            match at {
                Succ::Ret(v) => out.push((trail, v)),
                Succ::Test(id) => {
                    let (p, succ) = self.succ.get(&id)?;
                    if trail.len() > self.succ.len() {
                        return None; // a cycle: not a pull libpcap makes
                    }
                    for o in [false, true] {
                        let mut t = trail.clone();
                        t.push((p.clone(), o));
                        work.push((succ[o as usize]?, t));
                    }
                }
            }
            if out.len() + work.len() > 4 * budget.pull_paths {
                return None;
            }
        }
        Some(out)
    }
}

fn preds_of(paths: &[Path]) -> Vec<PredPath> {
    paths
        .iter()
        .map(|p| {
            let steps = p
                .steps
                .iter()
                .filter(|&&(_, _, decided)| !decided)
                .map(|&(lit, o, _)| (pred_of(lit).clone(), o))
                .collect();
            (steps, p.verdict)
        })
        .collect()
}

/// The pulled graph's paths as the next threading pass leaves them: a test that the
/// path's earlier outcomes decide is passed (in `(src == A or dst == A) and (src == B
/// or dst == B) or src == C`, once `src == B` moves in front of `dst == A`, the
/// failure of `dst == A` no longer needs `src == C`), and a path that contradicts
/// itself is not a path. [`explore`] walks the rewritten form the same way.
fn thread(paths: Vec<PredPath>) -> Vec<PredPath> {
    paths
        .into_iter()
        .filter_map(|(trail, verdict)| {
            let mut facts = Facts::default();
            let mut kept = Vec::with_capacity(trail.len());
            for (p, o) in trail {
                match facts.decide(&p, false) {
                    Some(d) if d != o => return None,
                    Some(_) => {}
                    None => {
                        facts.learn(&p, !o);
                        kept.push((p, o));
                    }
                }
            }
            Some((kept, verdict))
        })
        .collect()
}

/// Whether two sets of paths are the same (in any order).
fn same_paths(a: Vec<PredPath>, b: Vec<PredPath>) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut count: HashMap<PredPath, isize> = HashMap::new();
    for x in a {
        *count.entry(x).or_default() += 1;
    }
    for x in b {
        *count.entry(x).or_default() -= 1;
    }
    count.values().all(|&c| c == 0)
}
