//! Caller-owned per-packet state (regex-automata's `Cache` pattern): the program is
//! shared and immutable, the scratch space is per thread and reset per packet.

use netsift_isa::MAX_ANCHORS;

/// Per-packet working memory. Create one per thread and reuse it for every packet.
#[derive(Clone, Debug)]
pub struct Scratch {
    /// Packet counter; a pass's saved state is valid only if stamped with it. Using a
    /// stamp instead of clearing makes the per-packet reset O(1) whatever the size.
    pub(crate) epoch: u32,
    pub(crate) anchor_valid: u64,
    pub(crate) anchor_val: [u32; MAX_ANCHORS],
    pub(crate) pass_epoch: Vec<u32>,
    /// Progress of each pass: instructions that succeeded before the first failure,
    /// with `ACCEPTED` set when the whole pass succeeded.
    pub(crate) pass_state: Vec<u32>,
    /// Which version of each pass the saved state belongs to (live sets publish new
    /// versions while packets flow; a child reuses only its parent's current version).
    pub(crate) pass_node: Vec<u64>,
    /// Clauses that faulted on this packet; their remaining passes are skipped.
    pub(crate) faulted_clauses: Vec<u32>,
    /// Instructions evaluated for the last packet (copied ones reused from a parent
    /// are not counted): what the safety tests bound.
    pub(crate) steps: u64,
    /// Whether the last packet's evaluation ended on a load past the captured bytes.
    pub(crate) faulted: bool,
}

pub(crate) const ACCEPTED: u32 = 1 << 31;
/// Anchor value meaning "this anchor cannot be resolved" (out of bounds or invalid).
pub(crate) const NO_ANCHOR: u32 = u32::MAX;

impl Default for Scratch {
    fn default() -> Self {
        Self::new()
    }
}

impl Scratch {
    /// Working memory for any pass set; it grows to the largest set it has run.
    pub fn new() -> Scratch {
        Scratch {
            epoch: 0,
            anchor_valid: 0,
            anchor_val: [0; MAX_ANCHORS],
            pass_epoch: Vec::new(),
            pass_state: Vec::new(),
            pass_node: Vec::new(),
            faulted_clauses: Vec::new(),
            steps: 0,
            faulted: false,
        }
    }

    /// Starts a new packet over a pass set of `passes` passes.
    #[inline]
    pub(crate) fn reset(&mut self, passes: usize) {
        if self.pass_epoch.len() < passes {
            self.pass_epoch.resize(passes, 0);
            self.pass_state.resize(passes, 0);
            self.pass_node.resize(passes, 0);
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // Stamps from 2^32 packets ago would look current: clear them once.
            self.pass_epoch.iter_mut().for_each(|e| *e = 0);
            self.epoch = 1;
        }
        self.steps = 0;
        self.faulted = false;
        self.faulted_clauses.clear();
        self.anchor_valid = 1; // anchor 0, the packet start, is always 0
        self.anchor_val[0] = 0;
    }

    /// Starts a new packet for the lean loop, which keeps pass progress itself.
    #[inline]
    pub(crate) fn reset_anchors(&mut self) {
        self.steps = 0;
        self.faulted = false;
        self.anchor_valid = 1;
        self.anchor_val[0] = 0;
    }

    /// Whether the most recent packet was rejected because a load ran past its
    /// captured bytes (a fault) rather than by a test.
    pub fn faulted(&self) -> bool {
        self.faulted
    }

    /// Instructions the engine evaluated for the most recent packet.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    #[inline]
    pub(crate) fn state(&self, pass: usize) -> Option<u32> {
        (self.pass_epoch[pass] == self.epoch).then(|| self.pass_state[pass])
    }

    #[inline]
    pub(crate) fn set_state(&mut self, pass: usize, state: u32, node: u64) {
        self.pass_epoch[pass] = self.epoch;
        self.pass_state[pass] = state;
        self.pass_node[pass] = node;
    }
}
