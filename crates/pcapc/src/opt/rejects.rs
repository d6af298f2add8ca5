//! Whether libpcap's optimizer reduces a filter to `ret #0`, which `pcap_compile`
//! refuses with "expression rejects all packets", and which arithmetic errors its
//! second round raises.
//!
//! That happens only when jump threading (optimize.c, `opt_j` with `fold_edge`)
//! leaves no path to the accepting return, or when the tests left on the way down
//! from the root are ones its second round folds. Threading moves an edge past a
//! test that one of the edge's *dominators* (edges on every path from the root to
//! it) decides, so facts survive only along edges that dominate: where the paths of
//! an OR's alternatives meet again, what each alternative learnt is lost. Distributing
//! into alternatives (netsift's normal form and selection) sees through those merges
//! and proves "rejects all" where libpcap cannot; the converse happens too, because
//! threading runs in passes whose results stick (`replay`). So this module builds
//! the flow graph gencode builds for the lowered tree (`flowgraph`) and replays the
//! first round on it (`replay`: `dominators`, `thread`, `pullup`).
//!
//! Most filters never get that far: a path to acceptance on which no two tests
//! contradict each other the way fold_edge compares them survives every pass, and
//! one depth-first walk finds it ([`consistent_path`]).
//!
//! Not modelled: the data dependencies of `use_conflict` (gencode's blocks have none
//! across tests except `byte N & M`, never decided here); which of several
//! dominators that contradict each other `fold_edge` uses (only edges no packet
//! takes have such); and the accumulator value of a comparison of computed constants
//! ([`Pred::Known`] does not keep it), which libpcap's pullups can move up to a
//! constant root block of the same value (`ah and 0 > 1/2` on IPV4 is refused).

use crate::fasthash::FastMap;
use crate::lower::ir::{Pred, Tree};
use crate::lower::{Computed, OptInfo};
use crate::opt::budget::Budget;
use crate::opt::facts::TestKey;
use crate::opt::flowgraph::{Block, Graph, Target, ACCEPT};
use crate::opt::replay::Replay;
use crate::Error;

/// Whether libpcap refuses `t` (the lowered tree) as rejecting every packet: `None`
/// if the filter needs more threading passes than the analysis makes.
pub(crate) fn rejects_all(t: &Tree, computed: &[Computed], budget: &Budget) -> Option<bool> {
    if matches!(t, Tree::Unoptimized(_)) {
        // libpcap does not optimize it, so it never refuses it this way.
        return Some(false);
    }
    let g = Graph::build(t, computed);
    if consistent_path(&g.blocks, g.root) == Some(true) {
        return Some(false);
    }
    let mut r = Replay::new(g, budget);
    r.first_round().then(|| r.graph.reaches_reject())
}

/// The error libpcap's optimizer raises in an arithmetic relation (`pending`, from
/// lowering, in the order of the text), if it raises one. Its second round folds the
/// relation's constants and raises the error in every block still reachable once the
/// first round's threading is done; a relation the first round cut off is never
/// looked at, and the filter compiles (or is refused as rejecting all packets).
/// Among several, the first in the text is reported. A filter the replay cannot
/// finish (more than `Budget::passes` passes) keeps the first error.
pub(crate) fn optimizer_error(t: &Tree, info: &OptInfo, budget: &Budget) -> Option<Error> {
    let pending = &info.errors;
    if pending.is_empty() {
        return None;
    }
    if let Some(e) = pending.iter().find(|e| e.rel.is_none()) {
        return Some(e.error.clone());
    }
    let mut r = Replay::new(Graph::build(t, &info.computed), budget);
    let settled = r.first_round();
    let g = r.graph;
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

/// Whether some path from `root` to the accepting return has no two tests that
/// fold_edge would find in contradiction. Then libpcap compiles the filter: an edge
/// on that path is only ever moved past a test that one of its dominators decides,
/// and every dominator lies on the path and agrees with it, so the path survives
/// threading (shortened), pullups reorder it without cutting it, and the second
/// round folds its load-free tests ([`Pred::Known`], which the path takes their
/// known way) its way. Most filters have such a path, found in one walk; only the
/// others need the passes replayed. `None` when the search runs out of steps.
pub(super) fn consistent_path(blocks: &[Block], root: Target) -> Option<bool> {
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
    struct Choice {
        block: u32,
        tried_false: bool,
        learnt: Option<TestKey>,
    }
    let mut stack: Vec<Choice> = Vec::new();
    let mut steps = 8 * blocks.len() + 64;
    let mut at = root;
    loop {
        // Go down from `at` until a return, deciding what the path decides.
        loop {
            steps = steps.checked_sub(1)?;
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
                    stack.push(Choice {
                        block: at,
                        tried_false: false,
                        learnt: key,
                    });
                    at = b.jt;
                }
            }
        }
        if at == ACCEPT {
            return Some(true);
        }
        // Back to the nearest test not yet taken its false way.
        loop {
            let Some(f) = stack.last_mut() else {
                return Some(false);
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
