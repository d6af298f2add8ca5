//! The one place the FPL JIT plugs in: [`compile`] turns a checked program
//! into a closure that runs its native code (`netsift_fpl::jit`) on a packet
//! with the caller's MBuf and registers, returning the filter's value (0
//! after a fault), as [`netsift_fpl::interp::run`]'s `Verdict::value` does.
//! Its verdicts are checked against the interpreter's before anything is
//! timed.

use netsift_fpl::{Program, Registers};

/// A compiled program's entry: packet, MBuf, registers in; the filter's value out.
pub type JitFn = Box<dyn FnMut(&[u8], &mut [u8], &mut Registers) -> i64>;

/// `program` compiled by the JIT, or why there is no JIT figure.
pub fn compile(program: &Program) -> Result<JitFn, String> {
    let code = netsift_fpl::jit::compile(program).map_err(|e| e.to_string())?;
    Ok(Box::new(move |packet, mbuf, regs| {
        code.run(packet, mbuf, regs).value()
    }))
}
