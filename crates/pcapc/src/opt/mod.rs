//! A model of libpcap's optimiser (optimize.c): which tests its program keeps, in
//! which order, and whether it refuses the filter.
//!
//! libpcap's optimiser decides which loads run before a verdict, which matters only
//! on packets cut short, and whether `pcap_compile` fails with "expression rejects
//! all packets". The steps, each in a file named after what it does (libpcap's names
//! in parentheses):
//!
//! - `facts`: how two tests decide each other (`fold_edge` on value numbers).
//! - The flow-graph replay, faithful to libpcap's first round: `flowgraph` (the
//!   blocks gencode builds, `find_levels`), `dominators` (`find_dom`, `find_edom`),
//!   `thread` (jump threading, `opt_j`), `pullup` (`or_pullup`, `and_pullup`),
//!   `replay` (the pass loop, `opt_loop`) and `rejects` (its verdict: "rejects all
//!   packets", and the arithmetic errors of the second round).
//! - `tree`: the same passes approximated on the normal form, which is what
//!   selection reads. It decides the program's shape; the replay decides refusals.
//!
//! Every limit is a field of the [`Budget`] the caller passes in.

mod budget;
mod dominators;
mod facts;
mod flowgraph;
mod pullup;
mod rejects;
mod replay;
mod thread;
pub(crate) mod tree;

pub(crate) use budget::{Budget, Fuel};
pub(crate) use facts::Facts;
pub(crate) use rejects::{optimizer_error, rejects_all};
