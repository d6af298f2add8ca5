//! The batch engine: one pass set over up to [`LANES`] packets at a time.
//!
//! The per-packet walk ([`crate::eval`]) pays for every instruction with a few
//! data-dependent branches (is the anchor known, is the load in bounds, did the test
//! pass), and on real traffic those branches are unpredictable. Here the state of a
//! pass is a bitmask of the packets still running it (the thesis's "bitmask program
//! counter", section IV.iii, applied across packets): an instruction loads its field
//! for every running packet, one SIMD kernel ([`crate::simd`]) compares all of them
//! with all operands, and the result is a mask. Branches then depend on whole
//! masks, which are mostly "none left" or "some left", and predict well.
//!
//! Verdicts are the per-packet engine's exactly: each packet evaluates the same
//! instructions in the same order (passes in index order, instructions in pass order,
//! GROUP members in range order, copied instructions reused from the parent where the
//! parent decided them), so it loads the same fields and faults on the same load. The
//! tests compare the two on random images and on the corpus.
//!
//! - A load that leaves the captured bytes kills its packet's lane: the packet is
//!   rejected and runs nothing more, as the per-packet engine stops.
//! - Anchors are resolved per lane, lazily, by the same rule code
//!   ([`crate::op::apply_rule`]).
//! - A pass with children records, per instruction, which lanes passed and which
//!   failed there; a copied instruction of a child takes those lanes' results
//!   without evaluating.
//! - Operations without a lane form (ARITH, PREFIX, PROTOCHAIN, SET, RANGE2, invalid
//!   images) run per lane through their per-packet test ([`crate::op::Op::test`]),
//!   with the lane's anchors.
//! - Length guard: a direct load (anchor 0) that fits in the shortest packet of the
//!   batch needs no per-lane bounds bookkeeping.
//! - Runs of tests at fixed offsets load all their fields in one walk over the lanes
//!   ([`direct`]), and a port pair after an IPv4 header loads with its anchor in one
//!   walk ([`transport`]), both under the length guard.

mod direct;
mod form;
mod lanes;
mod set;
mod transport;
mod walk;

pub(crate) use form::Form;

use crate::scratch::NO_ANCHOR;
use crate::simd::{Mask, Simd, LANES};
use netsift_isa::{MAX_ANCHORS, MAX_INSNS};

/// Per-thread working memory of the batch engine (like [`Scratch`](crate::Scratch) for the
/// per-packet engine). Create one per thread and reuse it.
#[derive(Clone, Debug)]
pub struct BatchScratch {
    /// Batch counter: a pass's masks are valid only when stamped with it, so a new
    /// batch clears nothing per pass.
    epoch: u32,
    pass_epoch: Vec<u32>,
    /// Lanes that ran each pass to a result in this batch, and those it accepted.
    ran: Vec<Mask>,
    accepted: Vec<Mask>,
    /// For passes with children: lanes that passed, and lanes that failed, each
    /// instruction.
    passed: Vec<[Mask; MAX_INSNS]>,
    failed: Vec<[Mask; MAX_INSNS]>,
    /// Lanes whose anchor `a` is resolved (to a value or to [`NO_ANCHOR`]).
    anchor_ok: [Mask; MAX_ANCHORS],
    /// Lanes whose anchor `a` resolved to [`NO_ANCHOR`] (so instructions on it are
    /// false there): kept as a mask so no lane loop asks.
    anchor_none: [Mask; MAX_ANCHORS],
    anchor_val: Box<[[u32; LANES]; MAX_ANCHORS]>,
    /// For anchors that hold a value in *every* lane of the batch (anchor 0, and
    /// those the lane-wide IPv4 rule computed), the largest; `u32::MAX` for the
    /// others. A load at anchor + offset that fits the shortest packet from there
    /// needs no per-lane bounds check (the length guard, for anchored loads).
    anchor_max: [u32; MAX_ANCHORS],
    /// Anchors with some lane resolved, to clear at the next batch.
    touched: u64,
    /// Lanes that faulted: rejected, and running nothing more.
    dead: Mask,
    /// The field loaded for each lane by the current instruction.
    vals: [u32; LANES],
    /// The second field of a two-field test, when both are loaded at once.
    vals2: [u32; LANES],
    wire: [u32; LANES],
    /// The fields of a [`form::Kind::Direct`] run, one array per test.
    direct: [[u32; LANES]; form::DIRECT_MAX],
}

impl Default for BatchScratch {
    fn default() -> Self {
        Self::new()
    }
}

impl BatchScratch {
    /// Working memory for any pass set; it grows to the largest set it has run.
    pub fn new() -> BatchScratch {
        BatchScratch {
            epoch: 0,
            pass_epoch: Vec::new(),
            ran: Vec::new(),
            accepted: Vec::new(),
            passed: Vec::new(),
            failed: Vec::new(),
            anchor_ok: [0; MAX_ANCHORS],
            anchor_none: [0; MAX_ANCHORS],
            anchor_max: [u32::MAX; MAX_ANCHORS],
            anchor_val: {
                let mut v = Box::new([[NO_ANCHOR; LANES]; MAX_ANCHORS]);
                v[0] = [0; LANES];
                v
            },
            touched: 0,
            dead: 0,
            vals: [0; LANES],
            vals2: [0; LANES],
            wire: [0; LANES],
            direct: [[0; LANES]; form::DIRECT_MAX],
        }
    }

    /// Starts a batch of `n` lanes over a set of `passes` passes.
    fn begin(&mut self, passes: usize, all: Mask) {
        if self.pass_epoch.len() < passes {
            self.pass_epoch.resize(passes, 0);
            self.ran.resize(passes, 0);
            self.accepted.resize(passes, 0);
            self.passed.resize(passes, [0; MAX_INSNS]);
            self.failed.resize(passes, [0; MAX_INSNS]);
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // Stamps from 2^32 batches ago would look current: clear them once.
            self.pass_epoch.iter_mut().for_each(|e| *e = 0);
            self.epoch = 1;
        }
        let mut t = self.touched;
        while t != 0 {
            let a = t.trailing_zeros() as usize;
            self.anchor_ok[a] = 0;
            self.anchor_none[a] = 0;
            self.anchor_max[a] = u32::MAX;
            t &= t - 1;
        }
        // Anchor 0, the packet start, is 0 in every lane (its values are set once,
        // in `new`, and never written).
        self.anchor_ok[0] = all;
        self.anchor_max[0] = 0;
        self.touched = 1;
        self.dead = 0;
    }
}

/// The mask of the first `n` lanes (`n <= LANES`).
fn lanes_of(n: usize) -> Mask {
    Mask::MAX >> (LANES - n)
}

/// The shortest captured length of `data` (0 if empty). A full batch takes a loop of
/// fixed length, which the compiler unrolls and vectorises.
#[inline]
fn shortest(data: &[&[u8]]) -> usize {
    let min = |d: &[&[u8]]| d.iter().fold(usize::MAX, |m, d| m.min(d.len()));
    match <&[&[u8]; LANES]>::try_from(data) {
        Ok(full) => min(full),
        Err(_) if data.is_empty() => 0,
        Err(_) => min(data),
    }
}

/// The lanes of one batch: the packets' captured bytes and wire lengths.
#[derive(Clone, Copy)]
pub(crate) struct Lanes<'a> {
    pub data: &'a [&'a [u8]],
    /// Every lane in use.
    pub all: Mask,
    /// The shortest captured length of the batch: the length guard.
    pub min_len: usize,
    /// The packets' lengths on the wire (copied into the scratch's lane array only
    /// by the LEN test, which compares them lane-wise).
    pub wire: &'a [u32],
}

impl<'a> Lanes<'a> {
    fn new(data: &'a [&'a [u8]], wire: &'a [u32], n: usize) -> Lanes<'a> {
        let data = &data[..n];
        Lanes {
            data,
            all: lanes_of(n),
            min_len: shortest(data),
            wire: &wire[..n],
        }
    }
}

/// Filters up to [`LANES`] packets with the set `form` (see
/// [`Compiled::filter_batch`](crate::Compiled::filter_batch), which checks the
/// slices: `packets` and `wire_lens` have the same length, at most [`LANES`]).
pub(crate) fn filter(
    form: &Form,
    set: &netsift_isa::PassSet,
    simd: Simd,
    scratch: &mut BatchScratch,
    packets: &[&[u8]],
    wire_lens: &[u32],
) -> Mask {
    let n = packets.len();
    if n == 0 {
        return 0;
    }
    if form.accept_all {
        return lanes_of(n);
    }
    let lanes = Lanes::new(packets, wire_lens, n);
    scratch.begin(form.passes.len(), lanes.all);
    let run = walk::Run::new(form, set, simd, scratch, lanes);
    if form.lean {
        run.lean()
    } else {
        run.all()
    }
}

/// Asks the CPU to start fetching the cache line that holds the start of each
/// packet (where the headers a filter reads live), without waiting for it: see
/// [`Compiled::prefetch`](crate::Compiled::prefetch), which skips it for pass sets
/// that read no packet bytes.
///
/// One line per packet, not two: packets stored one after another put the next
/// packet's first line right after this one's headers, and each extra prefetch
/// waits for a free miss buffer like a load does (measured: two lines per packet ran
/// slower than none, one line faster; docs/BENCHMARKS.md).
#[inline]
pub(crate) fn prefetch(packets: &[&[u8]]) {
    #[cfg(target_arch = "x86_64")]
    for d in packets {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: prefetch never faults and reads nothing architecturally; the
        // address is the slice's own start.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(d.as_ptr() as *const i8) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = packets;
}
