//! Dominators of libpcap's flow graph, as each threading pass computes them
//! (optimize.c, `find_dom` and `find_edom`).
//!
//! An edge *dominates* another if every path from the root to the latter takes it;
//! jump threading decides a test only from the edges that dominate the edge into it,
//! so facts survive only along edges that dominate (where the paths of an OR's
//! alternatives meet again, what each learnt is lost). Block dominators bound the
//! chains pull-ups walk.
//!
//! libpcap keeps dominators as bit sets. Here they are trees ([`DomTree`]: a node's
//! parent is its nearest strict dominator), built in one sweep from the root with
//! nearest common ancestors, and [`Dominators`] indexes each pass's edges by test, so
//! that a decision looks at the few edges that could make it.

use crate::fasthash::FastMap;
use crate::opt::flowgraph::{Graph, NONE};

/// A dominator tree: each node's parent is its nearest strict dominator, node 0
/// stands for the root (nothing dominates it). Skew-binary jump pointers give
/// nearest common ancestors (what two ways in share) in logarithmic time.
#[derive(Default)]
pub(super) struct DomTree {
    pub parent: Vec<u32>,
    jump: Vec<u32>,
    pub depth: Vec<u32>,
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
    pub(super) fn dominates(&self, a: u32, b: u32) -> bool {
        self.ancestor(b, self.depth[a as usize]) == a
    }
}

/// What an edge of the edge dominator tree is.
#[derive(Clone, Copy)]
pub(super) struct EdgeInfo {
    pub block: u32,
    /// The outcome of the block's test on this edge.
    pub held: bool,
    /// The subjects of this edge's block and of every dominator's, one bit each
    /// (by hash): most tests have no dominator on the same value, and this says so
    /// without a walk.
    seen: u64,
}

/// The dominators of one pass, and the index of its edges by test.
#[derive(Default)]
pub(super) struct Dominators {
    /// Edge dominators, and what each of their nodes is (node 0: nothing).
    pub edom: DomTree,
    pub einfo: Vec<EdgeInfo>,
    /// Each block's true and false edge nodes.
    pub enode: Vec<[u32; 2]>,
    /// The dominators the edges found so far into each block share.
    acc: Vec<u32>,
    /// Block dominators, each block's node in it (`NONE` if unreachable), and what
    /// its predecessors found so far share.
    bdom: DomTree,
    bnode: Vec<u32>,
    bacc: Vec<u32>,
    /// The edge nodes that lead to a block (only those dominate other edges), by
    /// [`TestKey::test`](crate::opt::facts::TestKey), and those of equalities that
    /// held, by its `subject`: the two kinds of dominator that decide a test.
    pub by_test: KeyMap,
    pub by_eq: KeyMap,
}

/// Node lists by test key.
pub(super) type KeyMap = FastMap<u64, Vec<u32>>;

impl Dominators {
    /// The edge and block dominators of `g`'s blocks in `order` (lowest first), walked
    /// highest first, so that every edge into a block is known before the block is.
    pub(super) fn find(&mut self, g: &Graph, order: &[u32]) {
        let n = g.blocks.len();
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
        for &b in order.iter().rev() {
            // Every other reachable block has an edge in from a higher one, unless
            // a loop broke the order: then it starts from the root.
            let (dom, bdom) = match (self.acc[b as usize], self.bacc[b as usize]) {
                _ if b == g.root => (0, 0),
                (a, ba) if a != NONE && ba != NONE => (a, ba),
                _ => (0, 0),
            };
            let blk = &g.blocks[b as usize];
            let (jt, jf, key) = (blk.jt, blk.jf, blk.key);
            let bn = self.bdom.push(bdom);
            self.bnode[b as usize] = bn;
            let nt = self.push_edge(g, dom, b, true);
            let nf = self.push_edge(g, dom, b, false);
            self.enode[b as usize] = [nt, nf];
            if let Some(k) = key {
                for (t, e, held) in [(jt, nt, true), (jf, nf, false)] {
                    if g.block(t).is_some() {
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

    /// Whether block `a` dominates block `b` (as the pass began; libpcap's sets
    /// say yes for a block that was unreachable then).
    pub(super) fn dominates(&self, a: u32, b: u32) -> bool {
        let (na, nb) = (self.bnode[a as usize], self.bnode[b as usize]);
        nb == NONE || (na != NONE && self.bdom.dominates(na, nb))
    }

    /// Whether edge node `n` or one of its dominators may test `subject` (false
    /// means none does, so none decides a test of it).
    pub(super) fn may_know(&self, n: u32, subject: u64) -> bool {
        self.einfo[n as usize].seen & bit(subject) != 0
    }

    fn push_edge(&mut self, g: &Graph, parent: u32, block: u32, held: bool) -> u32 {
        let own = g.blocks[block as usize].key.map_or(0, |k| bit(k.subject));
        let seen = self.einfo[parent as usize].seen | own;
        self.einfo.push(EdgeInfo { block, held, seen });
        self.edom.push(parent)
    }
}

/// A subject's bit in [`EdgeInfo::seen`].
fn bit(subject: u64) -> u64 {
    1 << (subject % 64)
}
