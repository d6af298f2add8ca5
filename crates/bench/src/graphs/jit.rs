//! The one place the FPL JIT plugs in.
//!
//! The Cranelift JIT (`crates/fpl/src/jit*`) is being written on another
//! branch and is not merged. Until it is, [`compile`] says so and every JIT
//! figure is reported as `null` (JSON) or "not run" (table). After the merge,
//! only the body of [`compile`] changes: compile `program` with the JIT and
//! return a closure that runs it on a packet with the caller's MBuf and
//! registers, returning the filter's value (0 after a fault), as
//! [`netsift_fpl::interp::run`]'s `Verdict::value` does. Its verdicts are
//! checked against the interpreter's before anything is timed.

use netsift_fpl::{Program, Registers};

/// A compiled program's entry: packet, MBuf, registers in; the filter's value out.
pub type JitFn = Box<dyn FnMut(&[u8], &mut [u8], &mut Registers) -> i64>;

/// `program` compiled by the JIT, or why there is no JIT figure.
pub fn compile(program: &Program) -> Result<JitFn, String> {
    // PLUG-IN POINT: replace this body with the JIT's compile call once
    // crates/fpl/src/jit* is merged.
    let _ = program;
    Err("the FPL JIT (crates/fpl/src/jit*) is not merged yet".to_string())
}
