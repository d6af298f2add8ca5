//! The pcap filter language compiled to netsift PassSets.
//!
//! The pipeline is a chain of named steps, each a function you can test alone:
//! text → [`syntax::parse`] (syntax tree with spans) → `lower` (boolean tree of field
//! predicates with libpcap's semantics) → `normal` (negations pushed to the leaves,
//! constants folded) → `select` (instructions, SIMD packing, passes and sharing).

mod error;
pub mod syntax;

pub use error::Error;
