//! A compiled pcap filter as the daemon runs it: one program, or one per
//! direction where the expression tests it, and how a chunk of up to
//! [`LANES`] packets takes each packet's own direction's verdict. Flows'
//! filters ([`crate::dispatch`]) and graphs' `pcap` elements
//! ([`crate::graph`]) both run through [`Programs::run_chunk`], over
//! batches of [`Packet`]s.

use netsift_engine::{BatchScratch, Compiled, LANES};

/// One packet of a batch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Packet<'a> {
    /// The captured bytes.
    pub(crate) data: &'a [u8],
    /// Its length on the wire.
    pub(crate) wirelen: u32,
    /// Nanoseconds since the epoch.
    pub(crate) ts_ns: u64,
    /// Sent by the host (`PACKET_OUTGOING`), not received: what `inbound`,
    /// `outbound` and a flow's
    /// [`Direction`](netsift_ffpf::proto::Direction) test. False for a file's packets.
    pub(crate) outgoing: bool,
}

/// A filter's programs: one, or one for each direction where the expression
/// tests it (`inbound`, `outbound` on an interface), as a live capture
/// compiles it (`netsift_session::directed_sets`).
pub(crate) struct Programs {
    /// For received packets (all packets, where `sent` is `None`).
    pub(crate) received: Compiled,
    /// For packets the host sent, where that program differs.
    pub(crate) sent: Option<Compiled>,
}

impl Programs {
    /// The accept mask of one chunk (`data`, `wire`: at most [`LANES`]
    /// packets), `out` marking those the host sent: each direction's program
    /// runs only if the chunk holds packets of its direction.
    pub(crate) fn run_chunk(
        &self,
        scratch: &mut BatchScratch,
        data: &[&[u8]],
        wire: &[u32],
        out: u32,
    ) -> u32 {
        if data.is_empty() {
            return 0;
        }
        let Some(sent) = &self.sent else {
            return self.received.filter_batch(scratch, data, wire);
        };
        let all = u32::MAX >> (LANES - data.len());
        let received = if out & all != all {
            self.received.filter_batch(scratch, data, wire)
        } else {
            0
        };
        let by_host = if out != 0 {
            sent.filter_batch(scratch, data, wire)
        } else {
            0
        };
        (received & !out) | (by_host & out)
    }
}
