//! The contenders of the static experiment behind one small trait, [`Engine`], so
//! the timing loop is monomorphised per engine (no dynamic dispatch per packet).
//!
//! [`Netsift`] is the only place that calls netsift's engine: switching the benchmark
//! to another entry point (a pre-decoded form of the pass set, say) means changing
//! `Netsift::new` and `Netsift::matches` and nothing else.

use std::hint::black_box;

use netsift_engine::{BatchScratch, Compiled, Scratch, Simd, LANES};
use netsift_isa::PassSet;
use netsift_oracle::Filter;

use super::Packets;

/// Something that filters packets.
pub trait Engine {
    /// Whether the packet (captured bytes `data`, length on the wire `wire_len`) is
    /// accepted.
    fn matches(&mut self, data: &[u8], wire_len: u32) -> bool;

    /// How many packets of `pkts` are accepted: what the timing loop runs. One
    /// `matches` per packet unless the engine filters batches.
    #[inline]
    fn count(&mut self, pkts: &Packets) -> u64 {
        let mut acc = 0u64;
        for (d, w) in pkts.iter() {
            acc += u64::from(black_box(self.matches(black_box(d), w)));
        }
        acc
    }
}

/// netsift's engine over a compiled pass set, decoded once at load
/// (`netsift_engine::Compiled`), with its caller-owned scratch space.
pub struct Netsift {
    set: Compiled,
    scratch: Scratch,
}

impl Netsift {
    /// An engine running `set`, with fresh scratch space.
    pub fn new(set: PassSet) -> Netsift {
        Netsift {
            set: Compiled::new(set),
            scratch: Scratch::new(),
        }
    }

    /// The pass set being run.
    pub fn set(&self) -> &PassSet {
        self.set.pass_set()
    }

    /// Instructions evaluated for the last packet (copied ones reused from a parent
    /// are not counted).
    pub fn steps(&self) -> u64 {
        self.scratch.steps()
    }
}

impl Engine for Netsift {
    #[inline]
    fn matches(&mut self, data: &[u8], wire_len: u32) -> bool {
        self.set.matches(&mut self.scratch, data, wire_len)
    }
}

/// netsift's batch engine (`Compiled::filter_batch`): the trace is cut into batches
/// of [`LANES`] packets, as a capture loop hands over a ring block's or a read
/// buffer's packets. Gathering each batch's slices is inside the timed loop.
pub struct NetsiftBatch {
    set: Compiled,
    scratch: BatchScratch,
    /// How many batches ahead of the one being filtered are prefetched
    /// ([`Compiled::prefetch`]); 0 for none, the default: with the engine of
    /// b3958fc, prefetching one batch ahead made filter 5 about 9% slower and filter 4
    /// about 4% faster, and left filters 3 and 6 unchanged (docs/BENCHMARKS.md).
    pub prefetch_ahead: usize,
}

impl NetsiftBatch {
    /// With the compare kernels `simd` (if the CPU runs them).
    pub fn new(set: PassSet, simd: Simd) -> NetsiftBatch {
        NetsiftBatch {
            set: Compiled::new(set).with_simd(simd),
            scratch: BatchScratch::new(),
            prefetch_ahead: 0,
        }
    }

    /// The kernels in use.
    pub fn simd(&self) -> Simd {
        self.set.simd()
    }

    /// The timing loop before prefetching: one batch gathered at a time (for A/B runs).
    pub fn count_plain(&mut self, pkts: &Packets) -> u64 {
        let mut acc = 0u64;
        let mut b = Batch::default();
        let mut it = pkts.iter();
        loop {
            b.fill(&mut it);
            if b.n == 0 {
                return acc;
            }
            let m = self
                .set
                .filter_batch(&mut self.scratch, b.lanes(), &b.wire[..b.n]);
            acc += u64::from(black_box(m).count_ones());
        }
    }

    /// Verdicts for every packet of `pkts`.
    pub fn verdicts(&mut self, pkts: &Packets) -> Vec<bool> {
        let data: Vec<&[u8]> = pkts.iter().map(|(d, _)| d).collect();
        let wire: Vec<u32> = pkts.iter().map(|(_, w)| w).collect();
        let mut out = Vec::with_capacity(data.len());
        self.set
            .filter_many(&mut self.scratch, &data, &wire, &mut out);
        out
    }
}

impl Engine for NetsiftBatch {
    fn matches(&mut self, data: &[u8], wire_len: u32) -> bool {
        self.set
            .filter_batch(&mut self.scratch, &[data], &[wire_len])
            & 1
            != 0
    }

    #[inline]
    fn count(&mut self, pkts: &Packets) -> u64 {
        // A ring of batches: the one `ahead` batches on is gathered and prefetched
        // before the current one is filtered.
        const RING: usize = 3;
        let ahead = self.prefetch_ahead.min(RING - 1);
        let mut acc = 0u64;
        let mut ring: [Batch; RING] = Default::default();
        let mut chunks = pkts.meta.chunks(LANES);
        for b in &mut ring[..ahead.max(1)] {
            b.fill_from(pkts, chunks.next());
        }
        let mut cur = 0;
        loop {
            let later = (cur + ahead.max(1)) % RING;
            ring[later].fill_from(pkts, chunks.next());
            if ahead > 0 {
                self.set.prefetch(ring[(cur + ahead) % RING].lanes());
            }
            let now = &ring[cur];
            if now.n == 0 {
                break;
            }
            let m = self
                .set
                .filter_batch(&mut self.scratch, now.lanes(), &now.wire[..now.n]);
            acc += u64::from(black_box(m).count_ones());
            cur = (cur + 1) % RING;
        }
        acc
    }
}

/// One batch of packets gathered from the trace.
struct Batch<'a> {
    data: [&'a [u8]; LANES],
    wire: [u32; LANES],
    n: usize,
}

impl Default for Batch<'_> {
    fn default() -> Self {
        Batch {
            data: [&[]; LANES],
            wire: [0; LANES],
            n: 0,
        }
    }
}

impl<'a> Batch<'a> {
    fn lanes(&self) -> &[&'a [u8]] {
        &self.data[..self.n]
    }

    /// The packets of one chunk of the trace's index (none at its end).
    #[inline]
    fn fill_from(&mut self, pkts: &'a Packets, chunk: Option<&[(usize, u32, u32)]>) {
        let chunk = chunk.unwrap_or_default();
        for ((d, w), &(s, n, wl)) in self.data.iter_mut().zip(&mut self.wire).zip(chunk) {
            *d = &pkts.bytes[s..s + n as usize];
            *w = wl;
        }
        self.n = chunk.len();
    }

    /// The next (up to) [`LANES`] packets of `it`.
    #[inline]
    fn fill(&mut self, it: &mut impl Iterator<Item = (&'a [u8], u32)>) {
        self.n = 0;
        for (d, w) in it.by_ref() {
            self.data[self.n] = d;
            self.wire[self.n] = w;
            self.n += 1;
            if self.n == LANES {
                break;
            }
        }
    }
}

/// libpcap's BPF interpreter: `pcap_offline_filter` (that is, `bpf_filter`) on the
/// program `pcap_compile` made with its optimiser.
pub struct Libpcap<'a>(pub &'a Filter);

impl Engine for Libpcap<'_> {
    #[inline]
    fn matches(&mut self, data: &[u8], wire_len: u32) -> bool {
        self.0.run_libpcap(data, wire_len) != 0
    }
}

/// A hand-written native filter. `F` is a function item (a zero-sized type), so the
/// call is inlined into the timing loop, as a C filter compiled into the capture loop
/// would be.
pub struct Native<F>(pub F);

impl<F: Fn(&[u8], u32) -> bool> Engine for Native<F> {
    #[inline]
    fn matches(&mut self, data: &[u8], wire_len: u32) -> bool {
        (self.0)(data, wire_len)
    }
}
