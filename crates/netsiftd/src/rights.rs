//! Authorisation: which class of access rights a connected peer has. Flows
//! of one source with equal rights share a flow group, and so can read each
//! other's packets in its PBuf (FFPF §2: a group is a set of clients with the
//! same rights); the daemon never puts two classes in one group.
//!
//! [`rights`] is the hook the authorisation policy file will fill (FFPF
//! §3.4). Today it gives one class per user id, so that two users never share
//! a group.

use netsift_ffpf::seqpacket::PeerCred;
use netsift_ffpf::CopyMode;

/// A class of access rights: flows of one source with equal rights share a
/// flow group (and so see each other's packets in its PBuf).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rights {
    /// The class; today the peer's user id.
    pub class: u32,
}

/// The rights of a connected peer. The hook for the authorisation policy:
/// today one class per user id, so two different users never share a group.
pub fn rights(peer: &PeerCred) -> Rights {
    Rights { class: peer.uid }
}

/// How the group of `rights` stores packets, given the daemon's `--copy`.
/// The hook for the policy's "trusted with the raw ring" right (NIC-FIX
/// §4.3): zero copy hands a group's clients every frame the kernel put in
/// the interface's UMEM, so it must be granted per group by the policy,
/// never by a flag for all; today every group gets the flag's mode (`once`
/// or `per-flow`; `--copy zero` is refused until the AF_XDP source exists).
pub fn copy_mode(_rights: &Rights, flag: CopyMode) -> CopyMode {
    flag
}
