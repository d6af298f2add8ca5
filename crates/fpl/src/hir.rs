//! The checked IR: what every executor consumes (the interpreter in
//! [`crate::interp`], and later the JIT and the eBPF back end).
//!
//! It is a tree with structured control flow, because both targets want it:
//! Cranelift builds blocks from `If` and `Loop` directly, and eBPF needs loops
//! whose bound the verifier can see (`Loop::bound`). Names are resolved
//! (macros expanded, registers numbered, external functions indexed into
//! [`Program::externs`]), constants folded, and every check of §3.3.3 that can
//! be made before running has been made. What is left for run time is written
//! on each node: packet and MBuf bounds, a selector's index when it is not a
//! constant, and a loop's iteration count against its bound. Any of those
//! failing ends the program with a [`crate::Fault`], whose result is 0.
//!
//! Evaluation order is left to right, operands before operators; `&&` and `||`
//! short-circuit; an assignment evaluates its value first, then the target's
//! MBuf index.

use crate::externs::ExternFn;
use crate::ops::{BinOp, UnOp};
pub use crate::syntax::ast::Width;
use std::sync::Arc;

/// Registers `R[0]` to `R[15]`.
pub const NUM_REGS: usize = 16;

/// Bytes of one MBuf slot: `MEM[i]` is the little-endian `i64` at bytes
/// `8 * i .. 8 * i + 8`.
pub const SLOT_BYTES: usize = 8;

/// A checked program.
#[derive(Clone, Debug)]
pub struct Program {
    pub(crate) body: Vec<Stmt>,
    pub(crate) externs: Vec<ExternFn>,
    pub(crate) filters: Vec<Callee>,
    pub(crate) mbuf_len: usize,
    pub(crate) cost: u64,
    pub(crate) depth: u32,
}

/// A filter the program calls (`EXTERN(name, in, out)` of another filter,
/// [`crate::calls`]): its name and its checked program, whose MBuf size is the
/// window of the caller's MBuf it runs on.
#[derive(Clone, Debug)]
pub struct Callee {
    /// The name it was called by.
    pub name: String,
    /// Its program, shared with every other caller.
    pub program: Arc<Program>,
}

impl Program {
    /// The statements, in order.
    pub fn body(&self) -> &[Stmt] {
        &self.body
    }

    /// The external functions the program calls; [`Expr::Extern::func`]
    /// indexes this list.
    pub fn externs(&self) -> &[ExternFn] {
        &self.externs
    }

    /// The filters the program calls; [`Expr::Call::filter`] indexes this
    /// list.
    pub fn filters(&self) -> &[Callee] {
        &self.filters
    }

    /// How deep its filter calls nest: 0 when it calls no filter, else one
    /// more than its deepest callee's.
    pub fn call_depth(&self) -> u32 {
        self.depth
    }

    /// The MBuf size the program was checked against, in bytes.
    pub fn mbuf_len(&self) -> usize {
        self.mbuf_len
    }

    /// The worst-case number of operations one run performs (external
    /// functions counted as one each, a filter call as one plus its callee's
    /// cost), as the checker computed it.
    pub fn cost(&self) -> u64 {
        self.cost
    }
}

/// Where an assignment stores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// `R[n]`
    Reg(u8),
    /// `MEM[index]`: slot `index`, bounds-checked at run time.
    Mem(Expr),
}

/// A statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// `target = value`, or with `op`, `target = target op value` (the target's
    /// index evaluated once, after `value`). `++` and `--` are `+= 1`, `-= 1`.
    Assign {
        /// Where.
        target: Place,
        /// The compound operator, if any.
        op: Option<BinOp>,
        /// What.
        value: Expr,
    },
    /// `IF cond THEN then ELSE els FI`: `then` when `cond != 0`.
    If {
        /// The condition.
        cond: Expr,
        /// Taken when non-zero.
        then: Vec<Stmt>,
        /// Taken when zero.
        els: Vec<Stmt>,
    },
    /// `FOR (init; cond; step) body ROF`.
    Loop(Loop),
    /// Leaves the innermost loop.
    Break,
    /// Ends the program with a value.
    Return(Expr),
    /// Evaluates an expression for its effect (an `EXTERN` call).
    Eval(Expr),
}

/// `FOR (init; cond; step) body ROF`: `init`, then while `cond` (absent: true)
/// holds, `body` then `step`. Before each run of `body` the executor checks that
/// it has run fewer than `bound` times, and faults with
/// [`crate::Fault::LoopBound`] otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// Run once before the first test.
    pub init: Vec<Stmt>,
    /// Tested before each iteration.
    pub cond: Option<Expr>,
    /// Run after each iteration that did not `BREAK`.
    pub step: Vec<Stmt>,
    /// The body.
    pub body: Vec<Stmt>,
    /// The most times `body` may run.
    pub bound: u32,
}

/// An expression; its value is an `i64`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// A constant.
    Const(i64),
    /// `R[n]`
    Reg(u8),
    /// `MEM[index]`: slot `index`, bounds-checked.
    Mem(Box<Expr>),
    /// A packet load in network byte order, zero-extended, bounds-checked: the
    /// bytes `offset .. offset + width.bytes()` must lie in the packet.
    Load {
        /// How many bytes.
        width: Width,
        /// Byte offset from the start of the frame.
        offset: Box<Expr>,
    },
    /// A sub-word selector `base.U<bits>[index]` / `.S<bits>[index]`: the
    /// `index`-th `bits`-wide field of the `base_bits`-wide `base`, counted from
    /// the most significant end (so `PKT.W[n].U8[0] == PKT.B[n]`), zero- or
    /// sign-extended. An index past the base faults.
    Field {
        /// The value selected from.
        base: Box<Expr>,
        /// The base's width in bits (8, 16, 32 or 64).
        base_bits: u8,
        /// The field's width in bits (1, 2, 4, 8, 16 or 32).
        bits: u8,
        /// Sign-extend the field.
        signed: bool,
        /// Which field.
        index: Box<Expr>,
    },
    /// A unary operator.
    Unary(UnOp, Box<Expr>),
    /// A binary operator (both operands always evaluated, left first).
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `a && b`: `b` only when `a != 0`; 1 or 0.
    And(Box<Expr>, Box<Expr>),
    /// `a || b`: `b` only when `a == 0`; 1 or 0.
    Or(Box<Expr>, Box<Expr>),
    /// `HASH(start, len, size)`: [`crate::hash::hash`] of the packet bytes
    /// `start .. start + len` (bounds-checked), in `0 .. size`.
    Hash {
        /// First byte, computed at run time.
        start: Box<Expr>,
        /// How many bytes (a constant).
        len: u32,
        /// The table size (a constant, at least 1).
        size: u32,
    },
    /// `EXTERN(name, in, out)`: calls `externs()[func]` with the MBuf regions
    /// at byte offsets `input` and `output` (checked against the program's MBuf
    /// size at compile time); its value is the function's result.
    Extern {
        /// Index into [`Program::externs`].
        func: usize,
        /// Byte offset of the input region.
        input: u32,
        /// Byte offset of the output region.
        output: u32,
    },
    /// `EXTERN(name, in, out)` of another filter ([`crate::calls`]): runs
    /// `filters()[filter]` on the packet with the caller's MBuf bytes `input
    /// .. input + its MBuf size` as its MBuf and registers of its own, all 0;
    /// its result (0 after a fault) is stored as a little-endian `i64` at
    /// `output` and is the value. Both regions were checked against the
    /// program's MBuf size at compile time; an executor checks them against
    /// the run's MBuf (`ExternBounds`).
    Call {
        /// Index into [`Program::filters`].
        filter: usize,
        /// Byte offset of the callee's MBuf window.
        input: u32,
        /// Byte offset of the 8-byte result.
        output: u32,
    },
}
