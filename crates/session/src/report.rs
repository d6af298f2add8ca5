//! What a capture counted, returned when it ends: the front end prints it (the
//! CLI as tcpdump's three lines and netsift's own accounting).

use crate::following::FollowReport;
use netsift_capture::Stats;

/// A live capture's statistics.
#[derive(Debug, Default)]
pub struct Report {
    /// Packets accepted and handed to the sinks.
    pub captured: u64,
    /// Packets the kernel passed to the rings (or that the XDP program saw).
    pub received: u64,
    /// Packets the kernel dropped (or the XDP ring buffer lost).
    pub dropped: u64,
    /// Each ring's part, one per worker.
    pub rings: Vec<RingReport>,
    /// What the follower did, if there is one.
    pub follow: Option<FollowReport>,
    /// The XDP program's counts, for the XDP source.
    pub xdp: Option<XdpReport>,
}

/// One ring's part of a capture.
#[derive(Debug, Default)]
pub struct RingReport {
    /// Packets accepted from this ring.
    pub accepted: u64,
    /// The ring's statistics; `None` if the worker failed before it could give
    /// them.
    pub stats: Option<Stats>,
    /// Why the worker stopped early, if it did.
    pub failure: Option<crate::Error>,
}

/// The XDP program's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct XdpReport {
    /// Frames the program ran on.
    pub seen: u64,
    /// Frames it accepted.
    pub accepted: u64,
    /// Frames lost to a full ring buffer.
    pub full: u64,
}

/// A capture file's statistics.
#[derive(Debug, Default)]
pub struct FileReport {
    /// Records read (up to the last one kept when the count was reached).
    pub read: u64,
    /// Records accepted and handed to the sink.
    pub accepted: u64,
    /// What the follower did, if there is one.
    pub follow: Option<FollowReport>,
}
