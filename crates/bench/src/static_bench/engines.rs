//! The contenders of the static experiment behind one small trait, [`Engine`], so
//! the timing loop is monomorphised per engine (no dynamic dispatch per packet).
//!
//! [`Netsift`] is the only place that calls netsift's engine: switching the benchmark
//! to another entry point (a pre-decoded form of the pass set, say) means changing
//! `Netsift::new` and `Netsift::matches` and nothing else.

use netsift_engine::{Compiled, Scratch};
use netsift_isa::PassSet;
use netsift_oracle::Filter;

/// Something that filters one packet at a time.
pub trait Engine {
    /// Whether the packet (captured bytes `data`, length on the wire `wire_len`) is
    /// accepted.
    fn matches(&mut self, data: &[u8], wire_len: u32) -> bool;
}

/// netsift's engine over a compiled pass set, decoded once at load
/// (`netsift_engine::Compiled`), with its caller-owned scratch space.
pub struct Netsift {
    set: Compiled,
    scratch: Scratch,
}

impl Netsift {
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
