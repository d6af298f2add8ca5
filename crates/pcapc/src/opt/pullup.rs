//! Pull-ups on libpcap's flow graph (optimize.c, `or_pullup` and `and_pullup`, run
//! after the jump threading of each first-round pass).
//!
//! Take a block `b` whose predecessors all leave the same value in the accumulator,
//! and the chain below it along false edges (true edges for `and_pullup`) of blocks
//! that share `b`'s true target (false target) and that `b` dominates. The first
//! block of the chain that tests that value again, after one that does not, is moved
//! up in front of the latter, which gives it new dominators: in `(sport 137 or dport
//! 137) and sport 6081 and dport 6081`, `dport 6081` moves in front of `sport 6081`,
//! where the edge from `dport 137` decides it. Ported as libpcap has them, with the
//! pass's stale levels, in-edges and block dominators.

use crate::opt::budget::Budget;
use crate::opt::dominators::Dominators;
use crate::opt::flowgraph::{Graph, Target};

/// The edges into every block that was reachable when the pass began, as they
/// go after threading (libpcap lists them from its level lists, which are not
/// updated within a pass).
pub(super) fn in_edges(g: &Graph, order: &[u32], preds: &mut Vec<Vec<(u32, bool)>>) {
    preds.iter_mut().for_each(Vec::clear);
    preds.resize(g.blocks.len(), Vec::new());
    for &p in order.iter().rev() {
        let blk = &g.blocks[p as usize];
        for (t, side) in [(blk.jt, true), (blk.jf, false)] {
            if let Some(v) = preds.get_mut(t as usize) {
                v.push((p, side));
            }
        }
    }
}

/// `or_pullup` (`is_or`) or `and_pullup` on block `b`, as optimize.c has them.
/// Take the chain below `b` along false edges (true edges for `and_pullup`) of
/// blocks that share `b`'s true target (false target) and that `b` dominates;
/// if every edge into `b` leaves the same value in the accumulator, the first
/// block of the chain testing that value again, after one that does not, is moved
/// up in front of the latter. Whether it moved one.
pub(super) fn pullup(
    g: &mut Graph,
    doms: &Dominators,
    preds: &[Vec<(u32, bool)>],
    budget: &Budget,
    b: u32,
    is_or: bool,
) -> bool {
    // The chain follows libpcap's edges as they lie: a `jset` block's
    // branches are the other way round from its test's (`Block::edge`).
    let next = |g: &Graph, d: u32| g.blocks[d as usize].edge(!is_or);
    let shared = |g: &Graph, d: u32| g.blocks[d as usize].edge(is_or);
    let into_b = &preds[b as usize];
    let Some(&(first, _)) = into_b.first() else {
        return false;
    };
    // The value each predecessor leaves in the accumulator (a test of no keyed
    // value leaves one no other block has).
    let Some(val) = g.blocks[first as usize].subject else {
        return false;
    };
    if into_b
        .iter()
        .any(|&(p, _)| g.blocks[p as usize].subject != Some(val))
    {
        return false;
    }
    let target = shared(g, b);
    let in_chain = |g: &Graph, d: Target| {
        g.block(d).is_some() && shared(g, d) == target && doms.dominates(b, d)
    };
    // The first block of the chain that tests another value, and the chain block
    // whose edge leads to it (none at the top: the edges into `b`).
    let mut diff = b;
    let mut above: Option<u32> = None;
    let mut steps = budget.pullup_walk;
    loop {
        steps = match steps.checked_sub(1) {
            Some(b) => b,
            None => return false,
        };
        if !in_chain(g, diff) {
            return false;
        }
        if g.blocks[diff as usize].subject != Some(val) {
            break;
        }
        above = Some(diff);
        diff = next(g, diff);
    }
    // Below it, the first that tests the value again.
    let mut before = diff;
    let mut pull = next(g, diff);
    loop {
        steps = match steps.checked_sub(1) {
            Some(b) => b,
            None => return false,
        };
        if !in_chain(g, pull) {
            return false;
        }
        if g.blocks[pull as usize].subject == Some(val) {
            break;
        }
        before = pull;
        pull = next(g, pull);
    }
    let after = next(g, pull);
    set_next(g, before, is_or, after);
    set_next(g, pull, is_or, diff);
    match above {
        Some(a) => set_next(g, a, is_or, pull),
        None => {
            for &(p, _) in into_b {
                let blk = &mut g.blocks[p as usize];
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
fn set_next(g: &mut Graph, d: u32, is_or: bool, t: Target) {
    g.blocks[d as usize].set_edge(!is_or, t);
}
