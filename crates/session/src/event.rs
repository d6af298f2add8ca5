//! What a session has to say while it opens and runs: where the filter went,
//! why it stayed in user space, a follower's failed update. The library never
//! prints; the front end decides what to show (the CLI shows placement only when
//! `--place` asked for one, as tcpdump says nothing of its kernel filter).

use std::sync::Arc;

/// Something a session reports.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event {
    /// The filter was placed in the kernel or at the XDP hook.
    Placed(Placed),
    /// The filter runs in user space only ([`crate::Placement::Auto`]): why it
    /// could not go into the kernel.
    UserSpace {
        /// Why the kernel could not take it.
        why: String,
    },
    /// A follower's filter update failed (the live set is full, a kernel map
    /// write failed): that flow is lost, not the capture. Only the first
    /// [`FOLLOW_FAILURES_REPORTED`] are reported; the count is in the report.
    FollowUpdateFailed {
        /// The packet it happened at: its number in a file, `None` live.
        packet: Option<u64>,
        /// What failed.
        error: String,
    },
    /// Removing a clause from the kernel's program failed, so the kernel keeps
    /// passing what it accepted (user space drops it: the capture stays exact).
    KernelKeepsClause {
        /// The clause's number.
        clause: u64,
        /// What failed.
        error: String,
    },
}

/// Where a filter was placed, and how much of the decision the program takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placed {
    /// A static filter's eBPF socket filter, under every ring.
    Socket {
        /// The program's length in instructions.
        insns: usize,
        /// The program decides every frame up to 64 KiB: user space does not
        /// filter those again.
        decisive: bool,
        /// Every pass is compiled, but user space checks what it passes.
        exact: bool,
        /// The passes left to user space, where the program is neither.
        unsure_passes: Vec<usize>,
    },
    /// A follower's first stage: its base filter and listener endpoints (and,
    /// with `ftp`, FTP announcements read in the kernel).
    Follow {
        /// The program's length in instructions.
        insns: usize,
        /// FTP announcements are read by the program.
        ftp: bool,
    },
    /// The live set's clauses, regenerated at each edit.
    Clauses,
    /// The XDP program on the interface.
    Xdp {
        /// The program's length in instructions.
        insns: usize,
        /// It copies exactly what the filter accepts.
        decisive: bool,
        /// The most bytes of a frame it copies.
        cap: u32,
    },
}

/// How many failed follower updates become events; a hostile peer can cause
/// one a packet, and the report counts them all.
pub const FOLLOW_FAILURES_REPORTED: u64 = 5;

/// Where a session's events go. It may be called from the workers' threads.
pub type Events = Arc<dyn Fn(Event) + Send + Sync>;

/// Events that go nowhere.
pub fn ignore() -> Events {
    Arc::new(|_| {})
}
