//! Buffer management: the two reader preferences of FFPF §3.1.1, the bound on
//! how long a stalled reader may hold its group back, and the pure rules the
//! writer applies to what clients write in their control pages.
//!
//! * **Slow-reader preference** ([`Policy::SlowReader`]): nothing a reader of
//!   the group has not consumed is overwritten. PBuf space is reclaimable up
//!   to `R*`, the least PBuf position among the entries its flows have not
//!   read; a packet that does not fit is dropped for every flow that accepted
//!   it ([`DropReason::PbufFull`]); a flow whose IBuf is full loses the packet
//!   alone ([`DropReason::IbufFull`]) while the others still get it.
//! * **Fast-reader preference** ([`Policy::FastReader`]): the writer never
//!   waits and overwrites; a reader finds lapped entries by their `seq` and
//!   lapped records by the PBuf `claim` check, and counts them itself
//!   ([`DropReason::Overwritten`]).
//!
//! Under either, per flow, `delivered + Σ dropped = accepted` exactly.
//!
//! A stalled slow reader would hold its group forever, so [`StallBound`]
//! limits it: once the *same* flow has been the one blocking writes for longer
//! than the bound (time, or bytes of packets refused meanwhile), the writer
//! detaches it: the flow falls back to fast-reader rules, its unread entries
//! stop pinning PBuf, and a flag in its IBuf header (and control page) says so.

use std::time::{Duration, Instant};

/// Which readers the writer favours when a buffer is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Never overwrite unread data; drop new packets instead.
    SlowReader,
    /// Never wait; overwrite, and let each reader count what it lost.
    FastReader,
}

/// Where a group keeps the bytes of the packets its flows accepted: NIC-FIX
/// §4.3's copy modes.
///
/// `docs/ffpf.md`, "Copy modes", compares them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CopyMode {
    /// One PBuf per group: a packet accepted by several of its flows is
    /// stored once, with an IBuf entry per flow (FFPF's design).
    #[default]
    Once,
    /// One PBuf per flow: a packet accepted by `k` flows is stored `k` times,
    /// as `k` sockets would each receive a copy. For comparison; a slow reader
    /// then holds back only its own PBuf, as a socket's full receive queue
    /// drops only for that socket.
    PerFlow,
    /// No copy: PBuf is a ring of frames the kernel writes packets into
    /// (an AF_XDP UMEM in a sealed memfd, [`crate::frames`]), which clients
    /// map read-only; a frame goes back to the kernel
    /// ([`crate::Group::refill`]) once every attached reader has passed it.
    Zero,
}

/// Why an accepted packet did not reach a flow's reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// PBuf had no room (slow-reader preference); counted by the writer.
    PbufFull,
    /// The flow's IBuf was full (slow-reader preference); counted by the writer.
    IbufFull,
    /// The writer lapped the entry or record before the reader copied it;
    /// counted by the reader.
    Overwritten,
    /// The entry did not describe a record of the PBuf (a broken or hostile
    /// writer); counted by the reader.
    Invalid,
}

/// How long one stalled reader may hold its group back under the slow-reader
/// preference before the writer detaches it. `None` in both: forever.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StallBound {
    /// Time since the flow first blocked a write, with no write fitting since.
    pub time: Option<Duration>,
    /// Bytes of records refused while the flow blocked writes.
    pub bytes: Option<u64>,
}

/// Which flow is blocking writes, since when, and what it cost so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stall<K> {
    pub(crate) flow: K,
    pub(crate) since: Instant,
    pub(crate) bytes: u64,
}

impl StallBound {
    /// Records that `flow` blocked a record of `bytes` at `now`, and says
    /// whether it has now held the group back past the bound. A different
    /// flow blocking starts a new stall.
    pub(crate) fn note<K: PartialEq + Copy>(
        &self,
        stall: &mut Option<Stall<K>>,
        flow: K,
        bytes: u64,
        now: Instant,
    ) -> bool {
        let s = match stall {
            Some(s) if s.flow == flow => s,
            _ => stall.insert(Stall {
                flow,
                since: now,
                bytes: 0,
            }),
        };
        s.bytes = s.bytes.saturating_add(bytes);
        self.time
            .is_some_and(|t| now.saturating_duration_since(s.since) >= t)
            || self.bytes.is_some_and(|b| s.bytes >= b)
    }
}

/// The writer's reading of a client's `R`: clamped into `[lo, w]`, where `lo`
/// is the oldest entry the flow still holds (the writer's last clamped `R`, or
/// `W - N` once older entries may be overwritten). So `R` never moves
/// backwards past what was released, never passes `W`, and `W - R <= N`.
pub fn clamp_read(raw: u64, prev: u64, w: u64, entries: u64) -> u64 {
    let lo = prev.max(w.saturating_sub(entries)).min(w);
    raw.clamp(lo, w)
}

/// The writer's reading of a client's wake threshold: 0 is "not armed", and
/// anything above the IBuf's size means "when it is full" (a larger wish
/// could never be met under the slow-reader preference).
pub fn clamp_wake(raw: u64, entries: u64) -> u64 {
    raw.min(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_positions_are_clamped() {
        assert_eq!(clamp_read(5, 3, 10, 16), 5);
        assert_eq!(clamp_read(50, 3, 10, 16), 10, "beyond W");
        assert_eq!(clamp_read(1, 3, 10, 16), 3, "backwards");
        assert_eq!(clamp_read(0, 0, 100, 16), 84, "older than the ring holds");
        assert_eq!(clamp_read(u64::MAX, 0, 0, 16), 0);
        assert_eq!(
            clamp_read(7, 12, 10, 16),
            10,
            "prev beyond W stays within W"
        );
    }

    #[test]
    fn wake_thresholds_are_clamped() {
        assert_eq!(clamp_wake(0, 8), 0);
        assert_eq!(clamp_wake(3, 8), 3);
        assert_eq!(clamp_wake(u64::MAX, 8), 8);
    }

    #[test]
    fn stalls_count_per_blocking_flow() {
        let t0 = Instant::now();
        let b = StallBound {
            time: Some(Duration::from_millis(10)),
            bytes: Some(1000),
        };
        let mut s = None;
        assert!(!b.note(&mut s, 1, 600, t0));
        assert!(!b.note(&mut s, 2, 600, t0), "another flow starts afresh");
        assert!(b.note(&mut s, 2, 600, t0), "1200 bytes");
        let mut s = None;
        assert!(!b.note(&mut s, 1, 1, t0));
        assert!(b.note(&mut s, 1, 1, t0 + Duration::from_millis(10)));
        assert!(!StallBound::default().note(&mut None, 1, u64::MAX, t0));
    }
}
