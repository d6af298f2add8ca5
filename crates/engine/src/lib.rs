//! Evaluates a [`PassSet`] over packets.
//!
//! The engine walks root passes in order (depth-first order, since children follow
//! their parents), evaluating each pass's instructions until one fails. Instructions
//! marked `copied` reuse the parent pass's result. Per-packet state lives in the
//! caller's [`Scratch`]: the anchor (offset) cache, which computes each header offset
//! at most once per packet, and each pass's progress for its children.
//!
//! Faults: a load past the captured bytes ends the evaluation and rejects the packet,
//! exactly as a BPF program returns 0 when it loads out of bounds. This is what makes
//! netsift agree with libpcap on truncated packets (`not tcp port 80` rejects a
//! packet too short to hold the port, as BPF does).
//!
//! Safety: every instruction image is safe. Loads are bounds-checked, GROUP only
//! names later passes and nests at most [`MAX_GROUP_DEPTH`] deep, and each pass is
//! evaluated at most once per packet, so time is bounded by the pass set's size.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod batch;
mod compiled;
mod eval;
pub mod live;
pub mod naive;
mod op;
mod scratch;
mod simd;
mod wlan;

pub use batch::BatchScratch;
pub use compiled::Compiled;
pub use eval::{evaluate, matches, Verdict};
pub use scratch::Scratch;
pub use simd::{Mask, Simd, LANES};

pub use netsift_isa::{PassSet, MAX_GROUP_DEPTH};

/// The decoded form every executor runs ([`decoded::Decoded::new`]), for executors
/// outside this crate: the kernel's code generator compiles these operations, so
/// it reads each instruction's meaning from the same decode as the walks and the
/// batch engine. [`decoded::Op`]'s documentation is the meaning of each operation;
/// GROUP's range is that of the walks (later passes only, bounded nesting).
pub mod decoded {
    pub use crate::op::{
        group_range, DPass, Decoded, Field, Op, Operands, Pair, Step, BAD_OPERAND,
    };
}
