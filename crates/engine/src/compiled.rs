//! A static pass set decoded once, at load time, for speed.
//!
//! Decoding ([`crate::op`]) unpacks every instruction's operands once (O(size), no
//! verification: any image still decodes to something safe). [`Compiled`] keeps the
//! decoded form, the lean form of the per-packet walk when the set fits it
//! ([`crate::eval::Lean`]), and the batch engine's form ([`crate::batch`]) built
//! from the decoded form, so every executor runs the same operations.

use crate::batch::{self, BatchScratch, Form};
use crate::eval::{run, Lean, Static, Verdict};
use crate::op::Decoded;
use crate::simd::{Mask, Simd, LANES};
use crate::Scratch;
use netsift_isa::PassSet;

/// A pass set with its instructions decoded, ready to filter packets one at a time
/// ([`evaluate`](Self::evaluate)) or in batches ([`filter_batch`](Self::filter_batch)).
#[derive(Clone, Debug)]
pub struct Compiled {
    set: PassSet,
    decoded: Decoded,
    /// The lean form, when the whole set fits it.
    lean: Option<Lean>,
    /// The batch engine's form (`crate::batch`).
    batch: Form,
    /// The compare kernels the batch engine uses.
    simd: Simd,
}

impl Compiled {
    /// Decodes every instruction of `set`.
    pub fn new(set: PassSet) -> Compiled {
        let decoded = Decoded::new(&set);
        let lean = Lean::new(&decoded);
        let batch = Form::new(&decoded, set.anchors(), set.tables().len());
        Compiled {
            set,
            decoded,
            lean,
            batch,
            simd: Simd::detect(),
        }
    }

    /// The same set with the batch engine's compare kernels forced to `simd` (one of
    /// [`Simd::available`]): for tests and the ablation.
    pub fn with_simd(mut self, simd: Simd) -> Compiled {
        self.simd = simd;
        self
    }

    /// The compare kernels the batch engine uses.
    pub fn simd(&self) -> Simd {
        self.simd
    }

    /// The pass set this was decoded from.
    pub fn pass_set(&self) -> &PassSet {
        &self.set
    }

    /// The verdict on one packet: `packet` holds the captured bytes, `wire_len` the
    /// packet's length on the wire.
    pub fn evaluate(&self, scratch: &mut Scratch, packet: &[u8], wire_len: u32) -> Verdict {
        let prog = Static {
            set: &self.set,
            decoded: &self.decoded,
        };
        match &self.lean {
            Some(lean) => lean.run(&prog, scratch, packet, wire_len),
            None => run(&prog, scratch, packet, wire_len),
        }
    }

    /// Whether the set accepts the packet (see [`evaluate`](Self::evaluate)).
    #[inline]
    pub fn matches(&self, scratch: &mut Scratch, packet: &[u8], wire_len: u32) -> bool {
        self.evaluate(scratch, packet, wire_len) == Verdict::Accept
    }

    /// Filters up to [`LANES`] packets at once: bit `i` of the result is set if
    /// `packets[i]` (captured bytes, with length on the wire `wire_lens[i]`) is
    /// accepted.
    ///
    /// The verdicts are exactly those of [`matches`](Self::matches) per packet.
    ///
    /// # Panics
    /// If the two slices differ in length, or hold more than [`LANES`] packets: a
    /// verdict for a packet that was not looked at would be a silent lie.
    pub fn filter_batch(
        &self,
        scratch: &mut BatchScratch,
        packets: &[&[u8]],
        wire_lens: &[u32],
    ) -> Mask {
        let n = packets.len();
        assert_eq!(
            n,
            wire_lens.len(),
            "filter_batch: {n} packets but {} wire lengths",
            wire_lens.len()
        );
        assert!(
            n <= LANES,
            "filter_batch: {n} packets, at most {LANES} a batch"
        );
        batch::filter(
            &self.batch,
            &self.set,
            self.simd,
            scratch,
            packets,
            wire_lens,
        )
    }

    /// [`filter_batch`](Self::filter_batch) over any number of packets, one verdict
    /// per packet appended to `out`.
    ///
    /// # Panics
    /// If the two slices differ in length.
    pub fn filter_many(
        &self,
        scratch: &mut BatchScratch,
        packets: &[&[u8]],
        wire_lens: &[u32],
        out: &mut Vec<bool>,
    ) {
        assert_eq!(
            packets.len(),
            wire_lens.len(),
            "filter_many: {} packets but {} wire lengths",
            packets.len(),
            wire_lens.len()
        );
        for (p, w) in packets.chunks(LANES).zip(wire_lens.chunks(LANES)) {
            let m = batch::filter(&self.batch, &self.set, self.simd, scratch, p, w);
            out.extend((0..p.len()).map(|i| m >> i & 1 != 0));
        }
    }

    /// Asks the CPU to start fetching the start of each packet of `packets` into
    /// cache, without waiting. Call it for the *next* batch before filtering the
    /// current one: the loads of the current batch then overlap with the memory
    /// traffic for the next instead of stalling on it. A hint only: it changes no
    /// result. It does nothing for a set that accepts everything (which reads no
    /// packet byte) or runs a single instruction (its batches end too soon for a
    /// prefetch to help), and nothing off x86-64.
    ///
    /// Whether it pays depends on the set and the machine: on the project's
    /// machine it made filter 5 of the static benchmark about 9% slower and filter 4
    /// about 4% faster (docs/BENCHMARKS.md), so [`filter_many`](Self::filter_many)
    /// does not call it; callers that measure a gain can.
    #[inline]
    pub fn prefetch(&self, packets: &[&[u8]]) {
        if self.batch.prefetch {
            batch::prefetch(packets);
        }
    }
}
