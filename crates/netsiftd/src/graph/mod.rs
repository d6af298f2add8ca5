//! Flows as FFPF filter graphs (docs/daemon.md, "Graph flows"): a flow may be
//! created with `ffpf-flow` text instead of a pcap expression. [`check`]
//! refuses the whole graph before anything exists, naming the element and its
//! position; [`exec`] keeps one running graph per source (`netsift_graph`'s
//! prefix merging, shared by every client) and runs each active instance once
//! per packet that reaches it; [`place`] says where each could run;
//! [`authorise`] checks it whole against its user's policy rule (with
//! [`implies`], whether one pcap expression restricts to another).
//!
//! Arrows: `bpf` ← `check` ← `exec`; `place` reads `netsift_graph` only;
//! `implies` ← `authorise` (which `config` uses for the policy's names).

pub(crate) mod authorise;
pub(crate) mod bpf;
pub(crate) mod check;
pub(crate) mod exec;
pub(crate) mod implies;
pub(crate) mod place;
