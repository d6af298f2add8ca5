//! A model of libpcap's optimiser (optimize.c): which tests its program keeps, in
//! which order, and whether it refuses the filter.
//!
//! The optimiser decides which loads run before a verdict, which matters only on
//! packets cut short, and whether `pcap_compile` fails with "expression rejects all
//! packets". There is one model: the optimiser's passes replayed on the flow graph
//! gencode builds. Each step is a file named after what it does (libpcap's names in
//! parentheses):
//!
//! - `flowgraph`: the blocks gencode builds for the lowered tree, and their levels
//!   (`find_levels`).
//! - `facts`: how two tests decide each other (`fold_edge` on value numbers).
//! - `dominators`: edge and block dominators (`find_dom`, `find_edom`).
//! - `thread`: jump threading (`opt_j`).
//! - `pullup`: moving a later test of the loaded value up a chain (`or_pullup`,
//!   `and_pullup`).
//! - `replay`: the first round's pass loop (`opt_loop`).
//! - `root`: the root block's loads kept where its test goes (`opt_root`).
//! - `rejects`: whether the result is `ret #0`, and the arithmetic errors of the
//!   second round.
//! - `to_tree`: the program left, read back as the normal form selection packs.
//!
//! Every limit is a field of the [`Budget`] the caller passes in.

mod budget;
mod dominators;
mod facts;
mod flowgraph;
mod pullup;
mod rejects;
mod replay;
mod root;
mod thread;
mod to_tree;

pub(crate) use budget::Budget;
pub(crate) use rejects::{optimizer_error, rejects_all};
pub(crate) use root::keep_prologue;
pub(crate) use to_tree::optimize;
