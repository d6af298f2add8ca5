//! The filtering side of a live pass set.

use super::{Shared, View};
use crate::eval::{run, Verdict};
use crate::Scratch;
use crossbeam_epoch::{self as epoch, Guard};
use std::sync::Arc;

/// A handle that filters packets with the live pass set. Clone one per filtering
/// thread; each needs its own [`Scratch`].
#[derive(Clone)]
pub struct Reader {
    shared: Arc<Shared>,
}

impl Reader {
    pub(crate) fn new(shared: Arc<Shared>) -> Reader {
        Reader { shared }
    }

    /// Pins the current epoch for a batch of packets. While a session lives, the
    /// versions it may have seen are not freed, so keep it to one batch (or call
    /// [`Session::repin`] between batches): a session held forever holds memory.
    pub fn session(&self) -> Session<'_> {
        Session {
            shared: &self.shared,
            guard: epoch::pin(),
        }
    }

    /// Filters one packet (pinning for just this packet).
    pub fn evaluate(&self, scratch: &mut Scratch, packet: &[u8], wire_len: u32) -> Verdict {
        self.session().evaluate(scratch, packet, wire_len)
    }

    /// Whether the live set accepts one packet (see [`evaluate`](Self::evaluate)).
    pub fn matches(&self, scratch: &mut Scratch, packet: &[u8], wire_len: u32) -> bool {
        self.evaluate(scratch, packet, wire_len) == Verdict::Accept
    }
}

/// A pinned view for a batch of packets. Each packet sees the set as it was at one
/// moment: every pass either before or after any concurrent edit of it, and the
/// passes that lived at that moment.
pub struct Session<'r> {
    shared: &'r Shared,
    guard: Guard,
}

impl Session<'_> {
    /// The verdict on one packet, with the passes as this session sees them:
    /// `packet` holds the captured bytes, `wire_len` the length on the wire.
    #[inline]
    pub fn evaluate(&self, scratch: &mut Scratch, packet: &[u8], wire_len: u32) -> Verdict {
        // One generation for the whole scan: the packet is judged by the set as
        // the writer had it then (see the module notes), however edits interleave.
        run(
            &View::new(self.shared, &self.guard),
            scratch,
            packet,
            wire_len,
        )
    }

    /// Whether the set accepts one packet (see [`evaluate`](Self::evaluate)).
    #[inline]
    pub fn matches(&self, scratch: &mut Scratch, packet: &[u8], wire_len: u32) -> bool {
        self.evaluate(scratch, packet, wire_len) == Verdict::Accept
    }

    /// Lets the writer free versions this session no longer needs; the next packet
    /// sees the newest versions.
    pub fn repin(&mut self) {
        self.guard.repin();
    }
}
