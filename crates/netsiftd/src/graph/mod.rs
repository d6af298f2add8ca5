//! Flows as FFPF filter graphs (docs/daemon.md, "Graph flows"): a flow may be
//! created with `ffpf-flow` text instead of a pcap expression. [`check`]
//! refuses the whole graph before anything exists, naming the element and its
//! position; [`exec`] keeps one running graph per source (`netsift_graph`'s
//! prefix merging, shared by every client) and runs each active instance once
//! per packet that reaches it; [`place`] decides which instances run below
//! the daemon and [`kernel`] generates and attaches their socket filter;
//! [`authorise`] checks a graph whole against its user's policy rule (with
//! [`implies`], whether one pcap expression restricts to another).
//!
//! The classes that are more than a few lines run from files of their own:
//! [`follow`], [`externs`] (the external functions standing alone) and
//! [`native`]; [`calls`] compiles FPL elements that call filters of their flow.
//!
//! Arrows: `bpf`, `calls`, `follow`, `externs`, `native` ← `check` ← `kernel`
//! ← `exec`; `place` ← `kernel`; `place` reads `netsift_graph` (and the
//! kernel crate's path bound) only; `implies` ← `authorise` (which `config`
//! uses for the policy's names).

pub(crate) mod authorise;
pub(crate) mod bpf;
pub(crate) mod calls;
pub(crate) mod check;
pub(crate) mod exec;
pub(crate) mod externs;
pub(crate) mod follow;
pub(crate) mod implies;
pub(crate) mod kernel;
pub(crate) mod native;
pub(crate) mod place;
