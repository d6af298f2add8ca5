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
//! The daemon side speaks [`proto`] over [`seqpacket`] sockets, passing
//! descriptors with [`fdpass`]; [`client`] is the library a client links:
//! [`Client::connect`], flows made, instantiated, activated, paused, closed.
//!
//! Arrows point one way: `shm` ← `pbuf` ← `frames`; `shm` ← `ibuf`, `control`, `mbuf`; `policy`
//! and `wake` stand alone; `group` (the writer) and `reader` (the client) sit
//! on top and do not know each other; `proto` stands alone (`error` names its refusal
//! codes), `fdpass` and `seqpacket` touch the system, and `client` sits on
//! `reader`, `proto` and both. See `docs/ffpf.md` for the design and
//! the control page's threat model.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

pub mod auth;
pub mod client;
pub mod control;
mod error;
pub mod fdpass;
pub mod frames;
mod group;
pub mod ibuf;
pub mod mbuf;
pub mod pbuf;
pub mod policy;
pub mod proto;
mod reader;
pub mod seqpacket;
pub mod shm;
pub mod wake;
pub mod xsk;

pub use client::{Client, Flow, FlowSpec, GraphView, MbufView};
pub use error::{Error, ErrorKind};
pub use group::{BatchSummary, FlowCounters, FlowFds, FlowId, Group, Incoming, Received};
pub use ibuf::WriterCounts;
pub use mbuf::Mbuf;
pub use policy::{CopyMode, DropReason, Policy, StallBound};
pub use reader::{FlowReader, Packet, ReaderStats};
pub use xsk::Umem;
