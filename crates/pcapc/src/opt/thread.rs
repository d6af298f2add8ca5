//! Jump threading on libpcap's flow graph (optimize.c, `opt_j` with `fold_edge`).
//!
//! Each edge is moved past the block it leads to when both that block's branches
//! meet, and past every test one of the edge's dominators decides: the same jump on
//! the same value (either way), or, for an equality, an equality of the same value
//! with another constant that held. [`opt_j`] does it for one edge; `replay` runs it
//! on both edges of every block, lowest first.

use crate::opt::budget::Budget;
use crate::opt::dominators::Dominators;
use crate::opt::facts::TestKey;
use crate::opt::flowgraph::Graph;

/// `opt_j` on block `b`'s true (`side`) or false edge: past the test it goes to
/// if both its branches meet there, then past every test one of its dominators
/// decides. Whether the edge moved.
pub(super) fn opt_j(g: &mut Graph, doms: &Dominators, budget: &Budget, b: u32, side: bool) -> bool {
    let blk = &g.blocks[b as usize];
    let start = if side { blk.jt } else { blk.jf };
    let node = doms.enode[b as usize][usize::from(!side)];
    let mut succ = start;
    if let Some(s) = g.block(succ) {
        if s.jt == s.jf {
            succ = s.jt;
        }
    }
    // (Bounded: a graph pullups have bent into a loop must not hang.)
    for _ in 0..=g.blocks.len() {
        if g.block(succ).is_none() {
            break;
        }
        let Some(held) = decide(g, doms, budget, node, succ) else {
            break;
        };
        let s = &g.blocks[succ as usize];
        succ = if held { s.jt } else { s.jf };
    }
    let blk = &mut g.blocks[b as usize];
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
fn decide(g: &Graph, doms: &Dominators, budget: &Budget, n: u32, b: u32) -> Option<bool> {
    let q = g.blocks[b as usize].key?;
    if !doms.may_know(n, q.subject) {
        return None;
    }
    let same = doms.by_test.get(&q.test).map_or(&[][..], Vec::as_slice);
    let other = match q.eq {
        Some(_) => doms.by_eq.get(&q.subject).map_or(&[][..], Vec::as_slice),
        None => &[],
    };
    if same.len() + other.len() > budget.index_cap {
        return walk(g, doms, budget, n, q);
    }
    let depth = &doms.edom.depth;
    let mut best: Option<(u32, bool)> = None;
    let mut consider = |c: u32, outcome: bool| {
        let deeper = !matches!(best, Some((d, _)) if d >= depth[c as usize]);
        if deeper && doms.edom.dominates(c, n) {
            best = Some((depth[c as usize], outcome));
        }
    };
    for &c in same {
        consider(c, doms.einfo[c as usize].held);
    }
    for &c in other {
        let k = g.blocks[doms.einfo[c as usize].block as usize].key;
        if k.is_some_and(|k| k.test != q.test) {
            consider(c, false);
        }
    }
    best.map(|(_, outcome)| outcome)
}

/// [`decide`] by walking the dominators of node `n`, nearest first.
fn walk(g: &Graph, doms: &Dominators, budget: &Budget, mut n: u32, q: TestKey) -> Option<bool> {
    for _ in 0..budget.dominator_walk {
        if n == 0 {
            break;
        }
        let e = doms.einfo[n as usize];
        if let Some(k) = g.blocks[e.block as usize].key {
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
        n = doms.edom.parent[n as usize];
    }
    None
}
