//! Whether libpcap's optimizer reduces a filter to `ret #0`, which `pcap_compile`
//! refuses with "expression rejects all packets".
//!
//! That happens only when jump threading (optimize.c, `opt_j` with `fold_edge`)
//! leaves no path to the accepting return, or when the tests left on the way down
//! from the root are ones its second round folds. Threading moves an edge past a
//! test that one of the edge's *dominators* (edges on every path from the root to
//! it) decides, so facts survive only along edges that dominate: where the paths of
//! an OR's alternatives meet again, what each alternative learnt is lost. Distributing
//! into alternatives (netsift's normal form and selection) sees through those merges
//! and proves "rejects all" where libpcap cannot. The converse happens too, because
//! threading runs in passes whose results stick: a pass threads the edges of the
//! lowest blocks first, with the dominators of the graph as it was when the pass
//! began. In `(ip[2] = 3 or greater 1500) and ip and ip[1] = 1 and ip6` (on LOOP),
//! the first pass threads the true edge of `ip[1] = 1` past `ip6` with the fact of
//! `ip`'s edge, which dominates it in the graph as generated, before the edge from
//! `ip[2] = 3` is threaded past `ip` and makes `ip[1] = 1` a merge; libpcap refuses
//! the filter.
//!
//! So this module replays those passes on the flow graph gencode builds for the
//! lowered tree: each test a block, a conjunction a chain, alternatives joined where
//! their exits meet, `not` swapping exits, and a constant a block with both its
//! branches (opt_peep decides `ld #k; jeq` in the first pass, but only after that
//! pass has computed levels and dominators with both branches; from then on the
//! block counts until edges are moved past it).
//! Each pass computes levels and edge dominators, runs `opt_j` on both edges of
//! every block, lowest first, then `or_pullup` and `and_pullup` on every block
//! (ported as they are, with the pass's stale levels, in-edges and block
//! dominators): a pullup moves a later test of the value the predecessors loaded up
//! a chain, which gives it new dominators (in `(sport 137 or dport 137) and sport
//! 6081 and dport 6081`, `dport 6081` moves in front of `sport 6081`, where the edge
//! from `dport 137` decides it). Passes repeat until one changes nothing. Dominators
//! are kept as trees (a node's parent is its nearest strict dominator), built in one
//! sweep from the root with nearest common ancestors, instead of libpcap's bit sets,
//! and each pass indexes its edges by test, so that a decision looks at the few
//! edges that could make it.
//!
//! Most filters never get that far: a path to acceptance on which no two tests
//! contradict each other the way fold_edge compares them survives every pass, and
//! one depth-first walk finds it.
//!
//! Not modelled: the data dependencies of `use_conflict` (gencode's blocks have none
//! across tests except `byte N & M`, never decided here); which of several
//! dominators that contradict each other `fold_edge` uses (only edges no packet
//! takes have such); and the accumulator value of a comparison of computed constants
//! ([`Pred::Known`] does not keep it), which libpcap's pullups can move up to a
//! constant root block of the same value (`ah and 0 > 1/2` on IPV4 is refused).

use crate::facts::{const_subject, test_key, TestKey};
use crate::fasthash::FastMap;
use crate::lower::ir::{Pred, Tree};
use crate::lower::{Computed, OptInfo};
use crate::Error;

/// A branch target: a block's index, or one of the two returns.
type Target = u32;
const REJECT: Target = u32::MAX - 1;
const ACCEPT: Target = u32::MAX;
const NONE: u32 = u32::MAX;

/// Most candidates one decision looks up in a pass's index of edges (see
/// `Graph::decide`); past it, the nearest dominators are walked instead.
const LIST_CAP: usize = 64;

/// Most dominators such a walk looks at, nearest first. Deciding a test from an
/// edge further up is rare, and the bound keeps the work per test constant.
const WALK: u32 = 256;

/// Most chain blocks a pullup looks at below the block it starts from. libpcap
/// looks down the whole chain, which along a long OR of hosts makes every pass
/// quadratic; the tests pullups move in practice are a few blocks apart (the other
/// half of the next `src or dst` pair).
const PULL_WALK: u32 = 32;

/// Most threading passes. libpcap goes on until a pass changes nothing (or 100
/// passes only moved branches); a filter that needs more passes than this is left
/// undecided, so that compile time stays linear.
const MAX_PASSES: u32 = 64;

/// Whether libpcap refuses `t` (the lowered tree) as rejecting every packet: `None`
/// if the filter needs more threading passes than the analysis makes.
pub(crate) fn rejects_all(t: &Tree, computed: &[Computed]) -> Option<bool> {
    if matches!(t, Tree::Unoptimized(_)) {
        // libpcap does not optimize it, so it never refuses it this way.
        return Some(false);
    }
    let mut blocks = Vec::new();
    let root = build(t, ACCEPT, REJECT, computed, &mut blocks);
    if consistent_path(&blocks, root) {
        return Some(false);
    }
    let mut g = Graph::new(blocks, root);
    for _ in 0..MAX_PASSES {
        if !g.pass() {
            return Some(g.reaches_reject());
        }
    }
    None
}

/// The error libpcap's optimizer raises in an arithmetic relation (`pending`, from
/// lowering, in the order of the text), if it raises one. Its second round folds the
/// relation's constants and raises the error in every block still reachable once the
/// first round's threading is done; a relation the first round cut off is never
/// looked at, and the filter compiles (or is refused as rejecting all packets).
/// Among several, the first in the text is reported. A filter the replay cannot
/// finish (more than `MAX_PASSES` passes) keeps the first error.
pub(crate) fn optimizer_error(t: &Tree, info: &OptInfo) -> Option<Error> {
    let pending = &info.errors;
    if pending.is_empty() {
        return None;
    }
    if let Some(e) = pending.iter().find(|e| e.rel.is_none()) {
        return Some(e.error.clone());
    }
    let mut blocks = Vec::new();
    let root = build(t, ACCEPT, REJECT, &info.computed, &mut blocks);
    let mut g = Graph::new(blocks, root);
    let mut settled = false;
    for _ in 0..MAX_PASSES {
        if !g.pass() {
            settled = true;
            break;
        }
    }
    let mut pending = pending.iter();
    if !settled {
        return pending.next().map(|e| e.error.clone());
    }
    let reached = g.reachable(false);
    let reached_later = g.reachable(true);
    pending
        .find(|e| {
            let reached = if e.late { &reached_later } else { &reached };
            g.blocks
                .iter()
                .zip(reached)
                .any(|(b, &r)| r && b.pred.is_some() && b.pred == e.rel.as_ref())
        })
        .map(|e| e.error.clone())
}

impl<'a> Graph<'a> {
    fn new(blocks: Vec<Block<'a>>, root: Target) -> Graph<'a> {
        Graph {
            blocks,
            root,
            edom: DomTree::default(),
            einfo: Vec::new(),
            enode: Vec::new(),
            acc: Vec::new(),
            bdom: DomTree::default(),
            bnode: Vec::new(),
            bacc: Vec::new(),
            level: Vec::new(),
            order: Vec::new(),
            preds: Vec::new(),
            by_test: KeyMap::default(),
            by_eq: KeyMap::default(),
        }
    }

    /// Which blocks the root reaches now, or (`folded`) once the second round's
    /// first pass has sent each comparison of computed constants its known way.
    fn reachable(&self, folded: bool) -> Vec<bool> {
        let mut seen = vec![false; self.blocks.len()];
        let mut stack = vec![self.root];
        while let Some(t) = stack.pop() {
            if let Some(b) = self.block(t) {
                if !std::mem::replace(&mut seen[t as usize], true) {
                    match b.pred {
                        Some(Pred::Known(k)) if folded => {
                            stack.push(if *k { b.jt } else { b.jf });
                        }
                        _ => {
                            stack.push(b.jt);
                            stack.push(b.jf);
                        }
                    }
                }
            }
        }
        seen
    }
}

/// One test of the flow graph and where its branches go now.
struct Block<'a> {
    /// `None` for a constant (gencode's `gen_true`/`gen_false`, `ld #0; jeq #0`),
    /// whose branches the first pass already sends one way (opt_peep).
    pred: Option<&'a Pred>,
    /// How fold_edge compares `pred` with other tests (`None` if it never decides
    /// nor is decided).
    key: Option<TestKey>,
    /// The value the block leaves in the accumulator, as far as pullups compare it
    /// (`None`: one no other block leaves).
    subject: Option<u64>,
    jt: Target,
    jf: Target,
    /// For a constant, the way its known outcome goes. gencode builds it with both
    /// branches; opt_peep points both of them that way in the first pass, after
    /// that pass has computed levels and dominators with the other branch still
    /// there (see [`Graph::pass`]).
    fold: Option<Target>,
}

/// Builds the blocks of `t` with its true exit going to `yes` and its false exit to
/// `no`, and returns its entry.
fn build<'a>(
    t: &'a Tree,
    yes: Target,
    no: Target,
    computed: &[Computed],
    blocks: &mut Vec<Block<'a>>,
) -> Target {
    match t {
        // A constant is a block too: opt_peep points both its branches one way
        // in the first pass (`Graph::pass`), and threading then moves the edges
        // into it past it; until then it shapes levels and dominators as any block
        // does.
        Tree::Const(b) => {
            let to = if *b { yes } else { no };
            blocks.push(Block {
                pred: None,
                key: None,
                // `gen_uncond` loads `!b`: pullups compare it with what other blocks
                // leave in the accumulator.
                subject: Some(const_subject(u32::from(!*b))),
                jt: yes,
                jf: no,
                fold: Some(to),
            });
            (blocks.len() - 1) as Target
        }
        Tree::Atom(p) => {
            let mut key = test_key(p);
            if let Some(c) = computed.iter().find(|c| &c.rel == p) {
                key = key.map(|k| round0_key(k, c.lhs));
            }
            blocks.push(Block {
                pred: Some(p),
                key,
                subject: key.map(|k| k.subject),
                jt: yes,
                jf: no,
                fold: None,
            });
            (blocks.len() - 1) as Target
        }
        Tree::Not(x) => build(x, no, yes, computed, blocks),
        Tree::And(v) => v
            .iter()
            .rev()
            .fold(yes, |next, c| build(c, next, no, computed, blocks)),
        Tree::Or(v) => v
            .iter()
            .rev()
            .fold(no, |next, c| build(c, yes, next, computed, blocks)),
        Tree::Unoptimized(x) => build(x, yes, no, computed, blocks),
    }
}

/// How fold_edge sees a relation with a side only the second round knows is constant
/// ([`Computed`]): its jump compares with X (`jeq x`), a value number no other jump
/// has, so only an identical relation decides it (the same `test`), never an
/// equality with a constant (no `eq`); with a computed left side the accumulator
/// holds a value of its own (`subject`).
fn round0_key(k: TestKey, lhs: bool) -> TestKey {
    use std::hash::{Hash, Hasher};
    let tag = |x: u64, t: &str| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (x, t).hash(&mut h);
        h.finish()
    };
    TestKey {
        subject: if lhs {
            tag(k.subject, "computed")
        } else {
            k.subject
        },
        test: tag(k.test, "jump on X"),
        eq: None,
    }
}

/// Whether some path from `root` to the accepting return has no two tests that
/// fold_edge would find in contradiction. Then libpcap compiles the filter: an edge
/// on that path is only ever moved past a test that one of its dominators decides,
/// and every dominator lies on the path and agrees with it, so the path survives
/// threading (shortened), pullups reorder it without cutting it, and the second
/// round folds its load-free tests ([`Pred::Known`], which the path takes their
/// known way) its way. Most filters have such a path, found in one walk; only the
/// others need the passes replayed. `false` also when the search runs out of steps.
fn consistent_path(blocks: &[Block], root: Target) -> bool {
    /// What the path so far says of a test: the outcome of each test taken, and
    /// the constant each value is known equal to.
    #[derive(Default)]
    struct Known {
        tests: FastMap<u64, bool>,
        equal: FastMap<u64, u32>,
    }
    impl Known {
        fn decide(&self, k: &TestKey) -> Option<bool> {
            if let Some(&o) = self.tests.get(&k.test) {
                return Some(o);
            }
            match (k.eq, self.equal.get(&k.subject)) {
                (Some(v), Some(&w)) if v != w => Some(false),
                _ => None,
            }
        }
    }
    let mut known = Known::default();
    // Depth first, true branches first; each frame is a test taken both ways in
    // turn, with what it added to `known` (undone on the way back).
    struct Frame {
        block: u32,
        tried_false: bool,
        learnt: Option<TestKey>,
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut steps = 8 * blocks.len() + 64;
    let mut at = root;
    loop {
        // Go down from `at` until a return, deciding what the path decides.
        loop {
            steps = match steps.checked_sub(1) {
                Some(s) => s,
                None => return false,
            };
            let Some(b) = blocks.get(at as usize) else {
                break;
            };
            if let Some(to) = b.fold {
                at = to;
                continue;
            }
            if b.jt == b.jf {
                at = b.jt;
                continue;
            }
            // A load-free comparison goes its known way (at the root, the second
            // round folds it so; elsewhere, taking it the other way is not needed).
            if let Some(Pred::Known(k)) = b.pred {
                at = if *k { b.jt } else { b.jf };
                continue;
            }
            let key = b.key;
            match key.as_ref().and_then(|k| known.decide(k)) {
                Some(o) => at = if o { b.jt } else { b.jf },
                None => {
                    if let Some(k) = key {
                        known.tests.insert(k.test, true);
                        if let Some(v) = k.eq {
                            known.equal.insert(k.subject, v);
                        }
                    }
                    stack.push(Frame {
                        block: at,
                        tried_false: false,
                        learnt: key,
                    });
                    at = b.jt;
                }
            }
        }
        if at == ACCEPT {
            return true;
        }
        // Back to the nearest test not yet taken its false way.
        loop {
            let Some(f) = stack.last_mut() else {
                return false;
            };
            if let Some(k) = f.learnt {
                known.tests.remove(&k.test);
                if k.eq.is_some() {
                    known.equal.remove(&k.subject);
                }
            }
            if f.tried_false {
                stack.pop();
                continue;
            }
            f.tried_false = true;
            if let Some(k) = f.learnt {
                known.tests.insert(k.test, false);
            }
            at = blocks[f.block as usize].jf;
            break;
        }
    }
}

/// A dominator tree: each node's parent is its nearest strict dominator, node 0
/// stands for the root (nothing dominates it). Skew-binary jump pointers give
/// nearest common ancestors (what two ways in share) in logarithmic time.
#[derive(Default)]
struct DomTree {
    parent: Vec<u32>,
    jump: Vec<u32>,
    depth: Vec<u32>,
}

impl DomTree {
    fn reset(&mut self) {
        self.parent.clear();
        self.jump.clear();
        self.depth.clear();
        self.parent.push(0);
        self.jump.push(0);
        self.depth.push(0);
    }

    fn push(&mut self, parent: u32) -> u32 {
        let p = parent as usize;
        let pj = self.jump[p] as usize;
        let pjj = self.jump[pj] as usize;
        let d = &self.depth;
        let jump = if parent != 0 && d[p] - d[pj] == d[pj] - d[pjj] {
            pjj as u32
        } else {
            parent
        };
        self.depth.push(d[p] + 1);
        self.parent.push(parent);
        self.jump.push(jump);
        (self.parent.len() - 1) as u32
    }

    /// `a`'s ancestor at depth `depth` (at most `a`'s own).
    fn ancestor(&self, mut a: u32, depth: u32) -> u32 {
        while self.depth[a as usize] > depth {
            let j = self.jump[a as usize];
            a = if self.depth[j as usize] >= depth {
                j
            } else {
                self.parent[a as usize]
            };
        }
        a
    }

    fn lca(&self, a: u32, b: u32) -> u32 {
        let depth = self.depth[a as usize].min(self.depth[b as usize]);
        let (mut a, mut b) = (self.ancestor(a, depth), self.ancestor(b, depth));
        while a != b {
            let (ja, jb) = (self.jump[a as usize], self.jump[b as usize]);
            if ja != jb {
                a = ja;
                b = jb;
            } else {
                a = self.parent[a as usize];
                b = self.parent[b as usize];
            }
        }
        a
    }

    /// Whether `a` is `b` or one of its ancestors.
    fn dominates(&self, a: u32, b: u32) -> bool {
        self.ancestor(b, self.depth[a as usize]) == a
    }
}

/// What an edge of the edge dominator tree is.
#[derive(Clone, Copy)]
struct EdgeInfo {
    block: u32,
    /// The outcome of the block's test on this edge.
    held: bool,
    /// The subjects of this edge's block and of every dominator's, one bit each
    /// (by hash): most tests have no dominator on the same value, and this says so
    /// without a walk.
    seen: u64,
}

struct Graph<'a> {
    blocks: Vec<Block<'a>>,
    root: Target,
    // Per pass:
    /// Edge dominators, and what each of their nodes is (node 0: nothing).
    edom: DomTree,
    einfo: Vec<EdgeInfo>,
    /// Each block's true and false edge nodes.
    enode: Vec<[u32; 2]>,
    /// The dominators the edges found so far into each block share.
    acc: Vec<u32>,
    /// Block dominators, each block's node in it (`NONE` if unreachable), and what
    /// its predecessors found so far share.
    bdom: DomTree,
    bnode: Vec<u32>,
    bacc: Vec<u32>,
    /// Height above the returns (libpcap's `level`), `NONE` if unreachable.
    level: Vec<u32>,
    /// The reachable blocks, lowest level first.
    order: Vec<u32>,
    /// The edges into each block once threading is done (`find_inedges`): the
    /// block they leave, and whether it is its true edge.
    preds: Vec<Vec<(u32, bool)>>,
    /// The edge nodes that lead to a block (only those dominate other edges), by
    /// [`TestKey::test`], and those of equalities that held, by
    /// [`TestKey::subject`]: the two kinds of dominator that decide a test.
    by_test: KeyMap,
    by_eq: KeyMap,
}

/// Node lists by test key.
type KeyMap = FastMap<u64, Vec<u32>>;

impl Graph<'_> {
    fn block(&self, t: Target) -> Option<&Block<'_>> {
        self.blocks.get(t as usize)
    }

    /// One pass of the first round (`opt_loop` with `do_stmts` off): levels, edge
    /// dominators, then `opt_j` on both edges of every block, lowest first. Whether
    /// anything moved.
    fn pass(&mut self) -> bool {
        self.find_levels();
        self.find_edom();
        let mut changed = false;
        // opt_blk runs opt_peep on every block before any edge moves: a constant's
        // branches meet from now on, but this pass's levels and dominators were
        // computed with both (in `(port 80 or host H) and udp[0] < 161 and tcp` on
        // IPV4, the IPv6 alternatives behind the constant `ip6` still reach the
        // relation's checks in the first pass, so nothing there decides `tcp`).
        for i in 0..self.order.len() {
            let b = &mut self.blocks[self.order[i] as usize];
            if let Some(to) = b.fold.take() {
                changed |= b.jt != b.jf;
                (b.jt, b.jf) = (to, to);
            }
        }
        for i in 0..self.order.len() {
            let b = self.order[i];
            for side in [true, false] {
                changed |= self.opt_j(b, side);
            }
        }
        self.find_inedges();
        for i in 0..self.order.len() {
            let b = self.order[i];
            changed |= self.pullup(b, true);
            changed |= self.pullup(b, false);
        }
        changed
    }

    /// Levels of the blocks reachable from the root, and those blocks lowest first.
    fn find_levels(&mut self) {
        self.level.clear();
        self.level.resize(self.blocks.len(), NONE);
        self.order.clear();
        if self.block(self.root).is_none() {
            return;
        }
        // Depth-first, iteratively (the graph can be as deep as the filter is long).
        const OPEN: u32 = NONE - 1;
        let mut stack = vec![self.root];
        while let Some(&b) = stack.last() {
            let blk = &self.blocks[b as usize];
            let (jt, jf) = (blk.jt, blk.jf);
            if self.level[b as usize] == NONE {
                self.level[b as usize] = OPEN;
                for t in [jf, jt] {
                    if self.block(t).is_some() && self.level[t as usize] == NONE {
                        stack.push(t);
                    }
                }
                continue;
            }
            stack.pop();
            if self.level[b as usize] != OPEN {
                continue;
            }
            let lv = |t: Target| match self.level.get(t as usize) {
                Some(&l) => l,
                None => 0,
            };
            // (Saturating: a graph bent into a loop gets odd levels, not a panic.)
            let l = lv(jt).max(lv(jf)).saturating_add(1).min(OPEN - 1);
            self.level[b as usize] = l;
            self.order.push(b);
        }
        // Lowest first (a block's successors are always lower); within a level, as
        // libpcap lists them, last finished first.
        let level = &self.level;
        let finished: Vec<(u32, u32)> = self
            .order
            .iter()
            .enumerate()
            .map(|(i, &b)| (b, i as u32))
            .collect();
        let mut keyed: Vec<(u32, std::cmp::Reverse<u32>, u32)> = finished
            .into_iter()
            .map(|(b, i)| (level[b as usize], std::cmp::Reverse(i), b))
            .collect();
        keyed.sort_unstable();
        self.order = keyed.into_iter().map(|(_, _, b)| b).collect();
    }

    /// The edge dominator tree of the reachable graph: blocks highest first, so that
    /// every edge into a block is known before the block is.
    fn find_edom(&mut self) {
        let n = self.blocks.len();
        self.edom.reset();
        self.einfo.clear();
        self.einfo.push(EdgeInfo {
            block: NONE,
            held: false,
            seen: 0,
        });
        self.enode.clear();
        self.enode.resize(n, [0; 2]);
        self.acc.clear();
        self.acc.resize(n, NONE);
        self.bdom.reset();
        self.bnode.clear();
        self.bnode.resize(n, NONE);
        self.bacc.clear();
        self.bacc.resize(n, NONE);
        self.by_test.values_mut().for_each(Vec::clear);
        self.by_eq.values_mut().for_each(Vec::clear);
        for i in (0..self.order.len()).rev() {
            let b = self.order[i];
            // Every other reachable block has an edge in from a higher one, unless
            // a loop broke the order: then it starts from the root.
            let (dom, bdom) = match (self.acc[b as usize], self.bacc[b as usize]) {
                _ if b == self.root => (0, 0),
                (a, ba) if a != NONE && ba != NONE => (a, ba),
                _ => (0, 0),
            };
            let blk = &self.blocks[b as usize];
            let (jt, jf, key) = (blk.jt, blk.jf, blk.key);
            let bn = self.bdom.push(bdom);
            self.bnode[b as usize] = bn;
            let nt = self.push_edge(dom, b, true);
            let nf = self.push_edge(dom, b, false);
            self.enode[b as usize] = [nt, nf];
            if let Some(k) = key {
                for (t, e, held) in [(jt, nt, true), (jf, nf, false)] {
                    if self.block(t).is_some() {
                        self.by_test.entry(k.test).or_default().push(e);
                        if held && k.eq.is_some() {
                            self.by_eq.entry(k.subject).or_default().push(e);
                        }
                    }
                }
            }
            for (t, e) in [(jt, nt), (jf, nf)] {
                let Some(&a) = self.acc.get(t as usize) else {
                    continue;
                };
                self.acc[t as usize] = if a == NONE { e } else { self.edom.lca(a, e) };
                let a = self.bacc[t as usize];
                self.bacc[t as usize] = if a == NONE { bn } else { self.bdom.lca(a, bn) };
            }
        }
    }

    /// The edges into every block that was reachable when the pass began, as they
    /// go after threading (libpcap lists them from its level lists, which are not
    /// updated within a pass).
    fn find_inedges(&mut self) {
        self.preds.iter_mut().for_each(Vec::clear);
        self.preds.resize(self.blocks.len(), Vec::new());
        for &p in self.order.iter().rev() {
            let blk = &self.blocks[p as usize];
            for (t, side) in [(blk.jt, true), (blk.jf, false)] {
                if let Some(v) = self.preds.get_mut(t as usize) {
                    v.push((p, side));
                }
            }
        }
    }

    /// Whether block `a` dominates block `b` (as the pass began; libpcap's sets
    /// say yes for a block that was unreachable then).
    fn dominates(&self, a: u32, b: u32) -> bool {
        let (na, nb) = (self.bnode[a as usize], self.bnode[b as usize]);
        nb == NONE || (na != NONE && self.bdom.dominates(na, nb))
    }

    /// `or_pullup` (`is_or`) or `and_pullup` on block `b`, as optimize.c has them.
    /// Take the chain below `b` along false edges (true edges for `and_pullup`) of
    /// blocks that share `b`'s true target (false target) and that `b` dominates;
    /// if every edge into `b` leaves the same value in the accumulator, the first
    /// block of the chain testing that value again, after one that does not, is moved
    /// up in front of the latter. Whether it moved one.
    fn pullup(&mut self, b: u32, is_or: bool) -> bool {
        let next = |g: &Self, d: u32| {
            let k = &g.blocks[d as usize];
            if is_or {
                k.jf
            } else {
                k.jt
            }
        };
        let shared = |g: &Self, d: u32| {
            let k = &g.blocks[d as usize];
            if is_or {
                k.jt
            } else {
                k.jf
            }
        };
        let preds = &self.preds[b as usize];
        let Some(&(first, _)) = preds.first() else {
            return false;
        };
        // The value each predecessor leaves in the accumulator (a test of no keyed
        // value leaves one no other block has).
        let Some(val) = self.blocks[first as usize].subject else {
            return false;
        };
        if preds
            .iter()
            .any(|&(p, _)| self.blocks[p as usize].subject != Some(val))
        {
            return false;
        }
        let target = shared(self, b);
        let in_chain = |g: &Self, d: Target| {
            g.block(d).is_some() && shared(g, d) == target && g.dominates(b, d)
        };
        // The first block of the chain that tests another value, and the chain block
        // whose edge leads to it (none at the top: the edges into `b`).
        let mut diff = b;
        let mut above: Option<u32> = None;
        let mut budget = PULL_WALK;
        loop {
            budget = match budget.checked_sub(1) {
                Some(b) => b,
                None => return false,
            };
            if !in_chain(self, diff) {
                return false;
            }
            if self.blocks[diff as usize].subject != Some(val) {
                break;
            }
            above = Some(diff);
            diff = next(self, diff);
        }
        // Below it, the first that tests the value again.
        let mut before = diff;
        let mut pull = next(self, diff);
        loop {
            budget = match budget.checked_sub(1) {
                Some(b) => b,
                None => return false,
            };
            if !in_chain(self, pull) {
                return false;
            }
            if self.blocks[pull as usize].subject == Some(val) {
                break;
            }
            before = pull;
            pull = next(self, pull);
        }
        let after = next(self, pull);
        self.set_next(before, is_or, after);
        self.set_next(pull, is_or, diff);
        match above {
            Some(a) => self.set_next(a, is_or, pull),
            None => {
                for i in 0..self.preds[b as usize].len() {
                    let (p, _) = self.preds[b as usize][i];
                    let blk = &mut self.blocks[p as usize];
                    if blk.jt == b {
                        blk.jt = pull;
                    } else {
                        blk.jf = pull;
                    }
                }
            }
        }
        true
    }

    /// Points block `d`'s false edge (true edge if not `is_or`) at `t`.
    fn set_next(&mut self, d: u32, is_or: bool, t: Target) {
        let blk = &mut self.blocks[d as usize];
        if is_or {
            blk.jf = t;
        } else {
            blk.jt = t;
        }
    }

    /// `opt_j` on block `b`'s true (`side`) or false edge: past the test it goes to
    /// if both its branches meet there, then past every test one of its dominators
    /// decides. Whether the edge moved.
    fn opt_j(&mut self, b: u32, side: bool) -> bool {
        let blk = &self.blocks[b as usize];
        let start = if side { blk.jt } else { blk.jf };
        let node = self.enode[b as usize][usize::from(!side)];
        let mut succ = start;
        if let Some(s) = self.block(succ) {
            if s.jt == s.jf {
                succ = s.jt;
            }
        }
        // (Bounded: a graph pullups have bent into a loop must not hang.)
        for _ in 0..=self.blocks.len() {
            if self.block(succ).is_none() {
                break;
            }
            let Some(held) = self.decide(node, succ) else {
                break;
            };
            let s = &self.blocks[succ as usize];
            succ = if held { s.jt } else { s.jf };
        }
        let blk = &mut self.blocks[b as usize];
        if side {
            blk.jt = succ;
        } else {
            blk.jf = succ;
        }
        succ != start
    }

    /// The outcome of block `b`'s test on an edge with dominator node `n` (the edge
    /// itself first), if one of them decides it (`fold_edge`).
    ///
    /// The dominators that decide it are edges of the same test (either way), and
    /// for an equality, edges where an equality of the same value with another
    /// constant held. The pass's index lists them; the nearest one that dominates
    /// the edge is the deepest one that is its ancestor.
    fn decide(&self, n: u32, b: u32) -> Option<bool> {
        let q = self.blocks[b as usize].key?;
        if self.einfo[n as usize].seen & bit(q.subject) == 0 {
            return None;
        }
        let same = self.by_test.get(&q.test).map_or(&[][..], Vec::as_slice);
        let other = match q.eq {
            Some(_) => self.by_eq.get(&q.subject).map_or(&[][..], Vec::as_slice),
            None => &[],
        };
        if same.len() + other.len() > LIST_CAP {
            return self.walk(n, q);
        }
        let depth = &self.edom.depth;
        let mut best: Option<(u32, bool)> = None;
        let mut consider = |c: u32, outcome: bool| {
            let deeper = !matches!(best, Some((d, _)) if d >= depth[c as usize]);
            if deeper && self.edom.dominates(c, n) {
                best = Some((depth[c as usize], outcome));
            }
        };
        for &c in same {
            consider(c, self.einfo[c as usize].held);
        }
        for &c in other {
            let k = self.blocks[self.einfo[c as usize].block as usize].key;
            if k.is_some_and(|k| k.test != q.test) {
                consider(c, false);
            }
        }
        best.map(|(_, outcome)| outcome)
    }

    /// [`Graph::decide`] by walking the dominators of node `n`, nearest first.
    fn walk(&self, mut n: u32, q: TestKey) -> Option<bool> {
        for _ in 0..WALK {
            if n == 0 {
                break;
            }
            let e = self.einfo[n as usize];
            if let Some(k) = self.blocks[e.block as usize].key {
                if k.subject == q.subject {
                    if k.test == q.test {
                        return Some(e.held);
                    }
                    // An equality that held: the value is that constant.
                    if let (true, Some(w), Some(v)) = (e.held, k.eq, q.eq) {
                        if w != v {
                            return Some(false);
                        }
                    }
                }
            }
            n = self.edom.parent[n as usize];
        }
        None
    }

    /// After the first round: whether the program is `ret #0` once the second round
    /// has folded the load-free comparisons of computed constants (`Known`), which
    /// moves no edge, and `opt_root` has skipped the root blocks whose branches meet.
    fn reaches_reject(&self) -> bool {
        let mut at = self.root;
        for _ in 0..=self.blocks.len() {
            let Some(b) = self.block(at) else { break };
            at = match b.pred {
                _ if b.jt == b.jf => b.jt,
                Some(Pred::Known(k)) => {
                    if *k {
                        b.jt
                    } else {
                        b.jf
                    }
                }
                _ => break,
            };
        }
        if at == REJECT {
            return true;
        }
        // A program whose accepting return is unreachable is reduced to `ret #0`
        // by the first round itself (every block ends with both branches there).
        !self.accept_reachable()
    }

    fn accept_reachable(&self) -> bool {
        let mut seen = vec![false; self.blocks.len()];
        let mut stack = vec![self.root];
        while let Some(t) = stack.pop() {
            if t == ACCEPT {
                return true;
            }
            if let Some(b) = self.block(t) {
                if !std::mem::replace(&mut seen[t as usize], true) {
                    stack.push(b.jt);
                    stack.push(b.jf);
                }
            }
        }
        false
    }

    fn push_edge(&mut self, parent: u32, block: u32, held: bool) -> u32 {
        let own = self.blocks[block as usize]
            .key
            .map_or(0, |k| bit(k.subject));
        let seen = self.einfo[parent as usize].seen | own;
        self.einfo.push(EdgeInfo { block, held, seen });
        self.edom.push(parent)
    }
}

/// A subject's bit in [`EdgeInfo::seen`].
fn bit(subject: u64) -> u64 {
    1 << (subject % 64)
}
