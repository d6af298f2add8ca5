//! libpcap's optimiser loop, first round (optimize.c, `opt_loop` with `do_stmts`
//! off), replayed on the flow graph until a pass changes nothing.
//!
//! Each pass computes levels and dominators, lets `opt_peep` send every constant
//! block one way, runs `opt_j` on both edges of every block, lowest first, then
//! `or_pullup` and `and_pullup` on every block. Results stick: a pass threads the
//! edges of the lowest blocks first, with the dominators of the graph as it was when
//! the pass began. In `(ip[2] = 3 or greater 1500) and ip and ip[1] = 1 and ip6` (on
//! LOOP), the first pass threads the true edge of `ip[1] = 1` past `ip6` with the
//! fact of `ip`'s edge, which dominates it in the graph as generated, before the edge
//! from `ip[2] = 3` is threaded past `ip` and makes `ip[1] = 1` a merge; libpcap
//! refuses the filter.
//!
//! libpcap goes on until a pass changes nothing (or 100 passes only moved branches);
//! [`Replay::first_round`] stops after `Budget::passes` and says so.

use crate::opt::budget::Budget;
use crate::opt::dominators::Dominators;
use crate::opt::flowgraph::{Graph, Levels};
use crate::opt::pullup;
use crate::opt::thread;

/// A flow graph being optimised, and the analyses each pass recomputes (kept to
/// reuse their buffers).
pub(super) struct Replay<'a, 'b> {
    pub graph: Graph<'a>,
    levels: Levels,
    doms: Dominators,
    /// The edges into each block once threading is done (`find_inedges`): the
    /// block they leave, and whether it is its true edge.
    preds: Vec<Vec<(u32, bool)>>,
    budget: &'b Budget,
}

impl<'a, 'b> Replay<'a, 'b> {
    pub(super) fn new(graph: Graph<'a>, budget: &'b Budget) -> Replay<'a, 'b> {
        Replay {
            graph,
            levels: Levels::default(),
            doms: Dominators::default(),
            preds: Vec::new(),
            budget,
        }
    }

    /// Runs passes until one changes nothing (true), or the budget's passes are
    /// spent (false).
    pub(super) fn first_round(&mut self) -> bool {
        for _ in 0..self.budget.passes {
            if !self.pass() {
                return true;
            }
        }
        false
    }

    /// One pass of the first round (`opt_loop` with `do_stmts` off): levels, edge
    /// dominators, then `opt_j` on both edges of every block, lowest first. Whether
    /// anything moved.
    pub(super) fn pass(&mut self) -> bool {
        self.levels.find(&self.graph);
        self.doms.find(&self.graph, &self.levels.order);
        let order = &self.levels.order;
        let mut changed = false;
        // opt_blk runs opt_peep on every block before any edge moves: a constant's
        // branches meet from now on, but this pass's levels and dominators were
        // computed with both (in `(port 80 or host H) and udp[0] < 161 and tcp` on
        // IPV4, the IPv6 alternatives behind the constant `ip6` still reach the
        // relation's checks in the first pass, so nothing there decides `tcp`).
        for &i in order {
            let b = &mut self.graph.blocks[i as usize];
            if let Some(to) = b.fold.take() {
                changed |= b.jt != b.jf;
                (b.jt, b.jf) = (to, to);
            }
        }
        for &b in order {
            // libpcap's true edge first (`et`, then `ef`).
            for side in self.graph.blocks[b as usize].sides() {
                changed |= thread::opt_j(&mut self.graph, &self.doms, self.budget, b, side);
            }
        }
        pullup::in_edges(&self.graph, order, &mut self.preds);
        for &b in order {
            for is_or in [true, false] {
                changed |= pullup::pullup(
                    &mut self.graph,
                    &self.doms,
                    &self.preds,
                    self.budget,
                    b,
                    is_or,
                );
            }
        }
        changed
    }
}
