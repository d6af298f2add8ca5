//! The limits of the optimiser model, in one place, passed in by the caller.
//!
//! libpcap's optimiser runs until nothing changes; a faithful replay of it is
//! quadratic or worse on long filters. Each limit here bounds one search of the model
//! so that compile time stays about linear in the filter's size. Past a limit the
//! model knows less, and knowing less is always sound for the verdict on a whole
//! packet: a test simply stays in the program (on a packet cut short, the program may
//! then fault where libpcap's does not). They bound work; none of them is a model of
//! libpcap, and none should be tuned to make a test count drop.
//!
//! [`Budget`] holds the limits; [`Fuel`] is what one run of a tree step may still
//! spend, made from a `Budget` for that run alone (nothing is kept between runs).

/// The limits every step of [`crate::opt`] works within.
#[derive(Clone, Debug)]
pub(crate) struct Budget {
    // ---- the tree model (`opt::tree`) ----
    /// Path splits one run of normalisation or folding may make in all (each re-folds
    /// the tests after a split point under one alternative's facts); past it,
    /// folding goes on without splitting.
    pub fuel: u64,
    /// Largest node (in literals) folded as it is built by `normal`; bigger ones are
    /// left to the whole-tree fold, since folding every node as it is built costs the
    /// node's size each time.
    pub fold_limit: usize,
    /// Most node pairs one implication query of `normal` compares.
    pub imply_steps: usize,
    /// Most alternatives an OR may have for its siblings to be checked under each one.
    pub split_limit: usize,
    /// How many ORs deep the per-alternative check may nest (it multiplies the work
    /// by up to `split_limit` per level).
    pub split_depth: u32,
    /// Most paths one path split tells apart; past it, one path with the facts they
    /// share.
    pub split_paths: usize,
    /// Undecided tests a threading walk whose outcome is a verdict of the whole
    /// program may look past (each doubles its work).
    pub leaf_forks: u32,
    /// Undecided tests a dead-test question follows both ways.
    pub dead_branches: u32,
    /// Most children a list's rest may have for a dead-test question to run it.
    pub dead_rest: usize,
    /// Nodes a dead-test question reads to learn what every way into a list knows.
    pub dead_nodes: u32,
    /// Most paths (verdict-ending chains of tests) a filter may have for the tree's
    /// pull-ups to be modelled.
    pub pull_paths: usize,
    /// Most walk steps one enumeration of those paths may take.
    pub pull_steps: usize,
    /// Most pulls made on one filter.
    pub pulls: usize,
    /// Most joins the tree's pull-ups mend in one flow graph before giving up.
    pub join_rounds: usize,

    // ---- the flow-graph replay (`opt::rejects` and the passes it runs) ----
    /// Most threading passes; a filter that needs more is left undecided.
    pub passes: u32,
    /// Most candidates one threading decision looks up in a pass's index of edges;
    /// past it, the nearest dominators are walked instead (same answer, other cost).
    pub index_cap: usize,
    /// Most dominators such a walk looks at, nearest first.
    pub dominator_walk: u32,
    /// Most chain blocks a pull-up looks at below the block it starts from (libpcap
    /// looks down the whole chain, which along a long OR of hosts makes every pass
    /// quadratic; the tests pull-ups move in practice are a few blocks apart).
    pub pullup_walk: u32,
}

impl Budget {
    /// The limits `compile` uses.
    pub(crate) const DEFAULT: Budget = Budget {
        fuel: 4096,
        fold_limit: 256,
        imply_steps: 256,
        split_limit: 8,
        split_depth: 2,
        split_paths: 16,
        leaf_forks: 16,
        dead_branches: 8,
        dead_rest: 2,
        dead_nodes: 16,
        pull_paths: 256,
        pull_steps: 16_384,
        pulls: 16,
        join_rounds: 32,
        passes: 64,
        index_cap: 64,
        dominator_walk: 256,
        pullup_walk: 32,
    };
}

/// What one run of a tree step may still spend, and the limits it runs under.
pub(crate) struct Fuel<'b> {
    pub limits: &'b Budget,
    left: u64,
}

impl<'b> Fuel<'b> {
    /// A full tank for one run.
    pub(crate) fn new(limits: &'b Budget) -> Fuel<'b> {
        Fuel {
            limits,
            left: limits.fuel,
        }
    }

    /// Takes `n` units; false (and takes nothing) if not enough is left.
    pub(crate) fn burn(&mut self, n: usize) -> bool {
        match self.left.checked_sub(n as u64) {
            Some(left) => {
                self.left = left;
                true
            }
            None => false,
        }
    }
}
