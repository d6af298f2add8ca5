//! netsift's instruction set: fixed 32-byte instructions, passes (AND) and pass sets (OR).
//!
//! The design follows Swift/NPF: a CISC-like instruction does a whole protocol test
//! (load a field through an addressing mode, mask it, compare it against up to 28
//! operands), a [`Pass`] is an AND of up to [`MAX_INSNS`] instructions, and a
//! [`PassSet`] is an OR of up to [`MAX_PASSES`] passes. There are no jumps, loops or
//! stores, so every image is safe to run: the engine needs no verifier, and an update
//! is O(changed instructions).
//!
//! Beyond the seeds, netsift adds a negation flag, an anchor table (the programmable
//! per-packet offset cache that makes L1/L2 indirect addressing work through VLAN, MPLS,
//! PPPoE and tunnel headers), a bounded arithmetic instruction for `expr relop expr`,
//! and a GROUP instruction (an OR of sub-passes) so that expressions whose disjunctive
//! normal form would blow up still compile in linear size. The full encoding is in
//! `docs/isa.md`; [`insn`] holds the bit layout.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod anchor;
pub mod insn;
mod listing;
pub mod pass;
pub mod table;

pub use anchor::{Anchor, AnchorRule};
pub use insn::{ArithOp, IndexMode, Instruction, Opcode, RelOp, Size};
pub use listing::LinkFields;
pub use pass::{Pass, PassKind, PassSet, UpdateError};
pub use table::{set_key, KeyTable};

/// Instructions a pass can hold (the seeds had 30).
pub const MAX_INSNS: usize = 32;
/// Passes a pass set can hold, roots and sub-passes together (the seeds had 127).
pub const MAX_PASSES: usize = 4096;
/// Entries in a pass set's anchor table; anchor 0 is the start of the packet.
pub const MAX_ANCHORS: usize = 64;
/// Key tables a static pass set can hold (SET's p1 names one).
pub const MAX_TABLES: usize = 64;
/// How deeply GROUP instructions may nest; a deeper GROUP evaluates false.
pub const MAX_GROUP_DEPTH: usize = 64;
