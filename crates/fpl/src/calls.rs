//! Filter calls, FFPF's second way of composing filters (the seeds' §2.2 and
//! Figure 2b): `EXTERN(name, in, out)` where `name` is another filter rather
//! than a native function. The callee runs on the caller's packet with the
//! caller's MBuf, so that several filters can write one memory area, which
//! filters in a pipe cannot.
//!
//! [`Filters`] is a set of checked programs by name, which
//! [`crate::check::compile_with`] resolves `EXTERN` names in (before the
//! registry of native functions) and [`crate::check::define`] fills from named
//! texts in dependency order. [`invoke`] is the one place a call's meaning is
//! written, for the interpreter and the JIT alike:
//!
//! - the callee's `MEM[]` is the caller's MBuf from byte `in`, as many bytes
//!   as the callee was compiled for (its [`Program::mbuf_len`], the window);
//! - its registers are its own, all 0 at every call; the caller's are not
//!   touched;
//! - its result (its `RETURN` value, 0 after a fault, which ends only the
//!   callee) is stored as a little-endian `i64` at `out` and is `EXTERN`'s
//!   value.
//!
//! Invariant: a program holds only programs compiled before it, so calls
//! cannot form a cycle, and their depth is bounded by
//! [`crate::Options::max_call_depth`].

use crate::externs::Call;
use crate::hir::{Program, NUM_REGS};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Bytes of a call's result at its output offset.
pub const RESULT_BYTES: usize = 8;

/// Callable filters by name (exact case, as external functions).
#[derive(Clone, Debug, Default)]
pub struct Filters {
    map: BTreeMap<String, Arc<Program>>,
}

impl Filters {
    /// No filters.
    pub fn new() -> Filters {
        Filters::default()
    }

    /// Makes `program` callable as `name`, replacing a filter of that name;
    /// returns the one replaced.
    pub fn insert(
        &mut self,
        name: impl Into<String>,
        program: Arc<Program>,
    ) -> Option<Arc<Program>> {
        self.map.insert(name.into(), program)
    }

    /// The filter called `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<Program>> {
        self.map.get(name)
    }

    /// The names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.map.keys().map(String::as_str)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// Runs a filter call described by `call` (its input region is the callee's
/// window, its output region the result's 8 bytes): `run` gets the packet, the
/// window and zeroed registers and returns the callee's result, which is
/// stored at the output and returned. The executor has checked both regions
/// against the MBuf; a region missing anyway gives 0 and stores nothing.
pub(crate) fn invoke(
    call: Call<'_>,
    run: impl FnOnce(&[u8], &mut [u8], &mut [i64; NUM_REGS]) -> i64,
) -> i64 {
    let window = call.input..call.input.saturating_add(call.input_len);
    let v = match call.mbuf.get_mut(window) {
        Some(w) => run(call.packet, w, &mut [0; NUM_REGS]),
        None => 0,
    };
    let out = call.output..call.output.saturating_add(RESULT_BYTES);
    if let Some(o) = call.mbuf.get_mut(out) {
        o.copy_from_slice(&v.to_le_bytes());
    }
    v
}
