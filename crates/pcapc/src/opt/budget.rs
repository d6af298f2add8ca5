//! The limits of the optimiser model, in one place, passed in by the caller.
//!
//! libpcap's optimiser runs until nothing changes; a faithful replay of it is
//! quadratic or worse on long filters. Each limit here bounds one search of the model
//! so that compile time stays about linear in the filter's size. They bound work;
//! none of them is a model of libpcap, and none should be tuned to make a test count
//! drop. (The facts one path keeps have a capacity of their own, `facts::MAX_FACTS`.)

/// The limits every step of [`crate::opt`] works within.
#[derive(Clone, Debug)]
pub(crate) struct Budget {
    /// Most threading passes; a filter that needs more is left undecided by
    /// `rejects`, and its program is read from the graph as the last pass left it
    /// (every pass keeps every verdict).
    pub passes: u32,
    /// Most candidates one threading decision looks up in a pass's index of edges;
    /// past it, the nearest dominators are walked instead (same answer, other cost).
    pub index_cap: usize,
    /// Most dominators such a walk looks at, nearest first.
    pub dominator_walk: u32,
    /// Most chain blocks a pull-up looks at below the block it starts from (libpcap
    /// looks down the whole chain; this only bounds the work on very long chains).
    pub pullup_walk: u32,
    /// Most blocks read back into the tree from the optimised flow graph: each block
    /// once, and again for each copy of code that two ways share where the graph is
    /// not a nest of ANDs and ORs. Past it the graph is read again with each region
    /// once, named from every way to it (`to_tree::share`), within the same limits;
    /// past those, the filter keeps every test in gencode's order (exact on whole
    /// packets).
    pub read_blocks: usize,
    /// Most blocks read back per block of the graph: the copies may make the
    /// program at most this many times the graph, so that a filter whose shared
    /// code threading crosses at every word (long IPv6 address chains) stays
    /// linear in size. Past it, as past `read_blocks`.
    pub read_copies: usize,
    /// Most block visits the walks that find a region's cut blocks make in all.
    pub read_walk: usize,
    /// Most alternatives joined in one run where they share their last part
    /// (`to_tree::shared_tails`: each is checked against the ones before it).
    pub tail_run: usize,
}

impl Budget {
    /// The limits `compile` uses.
    pub(crate) const DEFAULT: Budget = Budget {
        passes: 64,
        index_cap: 64,
        dominator_walk: 256,
        pullup_walk: 1 << 12,
        read_blocks: 1 << 20,
        read_copies: 16,
        read_walk: 1 << 22,
        tail_run: 64,
    };
}
