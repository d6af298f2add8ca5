//! The Rust functions the generated code calls, with the run's [`Env`]: they
//! turn its pointers back into the slices [`super::JitProgram::run`] borrowed
//! and then work in safe code, so `HASH` is the interpreter's function and an
//! external function gets the same [`Call`] it gets from the interpreter.

use super::Env;
use crate::externs::{Call, ExternFn};
use std::panic::{catch_unwind, AssertUnwindSafe};

impl Env {
    /// The packet.
    fn packet(&self) -> &[u8] {
        // SAFETY: `packet`/`packet_len` come from the `&[u8]` that `run`
        // borrows for the whole run; nothing writes to it.
        unsafe { std::slice::from_raw_parts(self.packet, self.packet_len) }
    }

    /// The packet, MBuf and functions at once (the call needs all three).
    fn parts(&mut self) -> (&[u8], &mut [u8], &[ExternFn]) {
        // SAFETY: as for `packet`; `mbuf`/`mbuf_len` come from the `&mut [u8]`
        // that `run` borrows exclusively for the run, and the generated code,
        // the only other user, is suspended in this call and keeps no
        // reference across it (it reloads MBuf slots after a call). `externs`
        // is the program's `Vec`, alive as long as `run`'s `&self`.
        unsafe {
            (
                std::slice::from_raw_parts(self.packet, self.packet_len),
                std::slice::from_raw_parts_mut(self.mbuf, self.mbuf_len),
                std::slice::from_raw_parts(self.externs, self.externs_len),
            )
        }
    }
}

/// `HASH(start, len, size)`: [`crate::hash::hash`] of the packet bytes
/// `start .. start + len`, or -1 when they are not all in the packet (the code
/// then faults with `PacketBounds`).
pub(super) extern "C" fn hash(env: *mut Env, start: i64, len: i64, size: i64) -> i64 {
    // SAFETY: the generated code passes the `Env` that `run` made and handed
    // it; it is alive and not otherwise borrowed during the call.
    let env = unsafe { &*env };
    let bytes = usize::try_from(start).ok().and_then(|start| {
        let end = start.checked_add(usize::try_from(len).ok()?)?;
        env.packet().get(start..end)
    });
    match (bytes, u32::try_from(size)) {
        (Some(bytes), Ok(size)) => crate::hash::hash(bytes, size),
        _ => -1,
    }
}

/// `EXTERN(func, input, output)`: the program's function `func` on the MBuf
/// regions at `input` and `output`, which the code has checked lie in MBuf.
/// A panic is caught (it must not unwind through generated code), kept in
/// `env.panic` and flagged in `env.panicked`; the code then leaves and `run`
/// resumes it.
pub(super) extern "C" fn call(env: *mut Env, func: i64, input: i64, output: i64) -> i64 {
    // SAFETY: as in `hash`; the code holds no other reference to `env`.
    let env = unsafe { &mut *env };
    let (packet, mbuf, externs) = env.parts();
    let (Some(f), Ok(input), Ok(output)) = (
        usize::try_from(func).ok().and_then(|i| externs.get(i)),
        usize::try_from(input),
        usize::try_from(output),
    ) else {
        return 0;
    };
    let result = catch_unwind(AssertUnwindSafe(|| {
        f.call(Call {
            packet,
            mbuf,
            input,
            output,
            input_len: f.input_len(),
            output_len: f.output_len(),
        })
    }));
    match result {
        Ok(v) => v,
        Err(payload) => {
            env.panic = Some(payload);
            env.panicked = 1;
            0
        }
    }
}
