//! Flows as FFPF filter graphs (docs/daemon.md, "Graph flows"): a flow may be
//! created with `ffpf-flow` text instead of a pcap expression. [`check`]
//! refuses the whole graph before anything exists, naming the element and its
//! position; [`exec`] keeps one running graph per source (`netsift_graph`'s
//! prefix merging, shared by every client) and runs each active instance once
//! per packet that reaches it; [`place`] says where each could run.
//!
//! Arrows: `bpf`, `calls` (FPL elements calling filters of their flow) ←
//! `check` ← `exec`; `place` reads `netsift_graph` only.

pub(crate) mod bpf;
pub(crate) mod calls;
pub(crate) mod check;
pub(crate) mod exec;
pub(crate) mod place;
