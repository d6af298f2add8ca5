//! A protocol follower as a session runs it, the same way for a file, a ring
//! and several workers: the follower, the kernel's maps kept in step with its
//! live set, and its failed updates counted (and the first few reported).

use crate::config::FollowSpec;
use crate::event::{Event, Events, FOLLOW_FAILURES_REPORTED};
use crate::place::KernelFollow;
use crate::Error;
use netsift_engine::live::Reader as LiveReader;
use netsift_follow::{FollowStats, Follower};
use netsift_wire::LinkType;

/// A follower, the kernel filter kept beside its live set, and how many of
/// its filter updates failed.
pub(crate) struct Following {
    follower: Follower,
    kernel: Option<KernelFollow>,
    failed: u64,
    events: Events,
}

/// What a follower did, for the closing statistics.
#[derive(Clone, Debug)]
pub struct FollowReport {
    /// The follower's own counts.
    pub stats: FollowStats,
    /// Filter updates that failed (the flow was lost, not the capture).
    pub failed: u64,
    /// Kernel programs swapped in because the listener table grew (a new
    /// table, a new program, each ring's filter replaced off the packet path).
    pub kernel_swaps: u64,
}

impl Following {
    /// The follower `spec` asks for on link type `lt`, and the live set it edits.
    pub(crate) fn new(
        spec: &FollowSpec,
        lt: LinkType,
        events: Events,
    ) -> Result<(Following, LiveReader), Error> {
        if !lt.is_supported() {
            return Err(Error::new(
                crate::ErrorKind::Unsupported,
                format!("link type {lt} is not supported by the filter compiler"),
            ));
        }
        let base = spec.base.as_deref().filter(|b| !b.trim().is_empty());
        let (follower, live) = Follower::new(lt, &spec.protocols, base, spec.mode, spec.config)
            .map_err(|e| {
                Error::new(
                    crate::ErrorKind::Filter,
                    format!("bad filter expression: {e}"),
                )
            })?;
        let f = Following {
            follower,
            kernel: None,
            failed: 0,
            events,
        };
        Ok((f, live))
    }

    /// Keeps the kernel filter `k` in step with the live set from now on.
    pub(crate) fn set_kernel(&mut self, k: KernelFollow) {
        self.follower.journal();
        self.kernel = Some(k);
    }

    /// How many listener endpoints the live set can hold (the kernel's map is
    /// made as large).
    pub(crate) fn capacity(&self) -> usize {
        self.follower.tracker().endpoint_capacity()
    }

    /// The follower's verdict on a packet the live set accepted, at `ts_ns`:
    /// keep it or not. A failed update (the live set is full) loses that flow,
    /// not the capture: the first few are reported, with `packet` saying which
    /// packet, and the capture goes on with the packet's verdict.
    pub(crate) fn judge(
        &mut self,
        data: &[u8],
        wire_len: u32,
        ts_ns: u64,
        packet: Option<u64>,
    ) -> bool {
        let (keep, edits) = self.follower.judge(data, wire_len, ts_ns);
        if let Err(e) = edits {
            self.fail(packet, e.to_string());
        }
        if let Some(k) = &mut self.kernel {
            // In the order made: a listener goes in before the guess of it goes.
            let errors: Vec<String> = self
                .follower
                .take_changes()
                .into_iter()
                .filter_map(|c| k.apply(c).err())
                .map(|e| format!("the kernel filter: {e}"))
                .collect();
            for e in errors {
                self.fail(packet, e);
            }
        }
        keep
    }

    fn fail(&mut self, packet: Option<u64>, error: String) {
        self.failed += 1;
        if self.failed <= FOLLOW_FAILURES_REPORTED {
            (self.events)(Event::FollowUpdateFailed { packet, error });
        }
    }

    /// What was followed.
    pub(crate) fn report(&self) -> FollowReport {
        FollowReport {
            stats: self.follower.stats(),
            failed: self.failed,
            kernel_swaps: self.kernel.as_ref().map_or(0, KernelFollow::swaps),
        }
    }

    /// The live set's passes, as `-d` shows them.
    pub(crate) fn listing(&self) -> String {
        self.follower.tracker().listing()
    }
}
