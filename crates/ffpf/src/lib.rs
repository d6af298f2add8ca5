//! FFPF's shared-memory buffers: how packets a writer (the future `netsiftd`)
//! filtered reach unprivileged readers without a copy per reader or a system
//! call per packet.
//!
//! A flow group ([`Group`]) stores each packet once in its PBuf
//! ([`pbuf`]); each flow has an IBuf ([`ibuf`]) of entries pointing into it,
//! with the filter's classification result; both live in sealed memfds
//! ([`shm`]) that clients can only map read-only. A client's read position
//! and wake-up wish live in a per-flow control page ([`control`]) that the
//! writer treats as hostile. [`policy`] holds FFPF's two buffer-management
//! schemes (slow- and fast-reader preference) and the bound on a stalled
//! reader; [`wake`] the per-flow wake-up channel; [`mbuf`] a filter's
//! persistent memory array. Clients read a flow with [`FlowReader`].
//! [`auth`] reads the administrator's policy file: who may open flows on
//! which sources, with which filter in front of theirs, and which peers have
//! equal rights and so share a group.
//!
//! Arrows point one way: `shm` ← `pbuf`, `ibuf`, `control`, `mbuf`; `policy`
//! and `wake` stand alone; `group` (the writer) and `reader` (the client) sit
//! on top and do not know each other. See `docs/ffpf.md` for the design and
//! the control page's threat model.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

pub mod auth;
pub mod control;
mod error;
mod group;
pub mod ibuf;
pub mod mbuf;
pub mod pbuf;
pub mod policy;
mod reader;
pub mod shm;
pub mod wake;

pub use error::{Error, ErrorKind};
pub use group::{BatchSummary, FlowCounters, FlowFds, FlowId, Group, Incoming};
pub use ibuf::WriterCounts;
pub use mbuf::Mbuf;
pub use policy::{DropReason, Policy, StallBound};
pub use reader::{FlowReader, Packet, ReaderStats};
