//! FPL elements that call filters of their flow (the seeds' filter calls,
//! Figure 2b): the flow's callable filters (`name = (fpl,"…",size);` before
//! it, `netsift_graph::Callable`) compiled with `netsift_fpl::define` against
//! the same external functions as the element, then the element's program
//! against them, and the whole to native code by FPL's JIT, which compiles
//! the callees with it.

use netsift_fpl::externs::Registry;
use netsift_fpl::jit::JitProgram;
use netsift_fpl::{Definition, Filters, Options, Program};
use netsift_graph::Callable;

/// The callable filters `calls` compiled, or the index of the one at fault
/// and why.
pub(crate) fn define(
    calls: &[Callable],
    registry: &dyn Registry,
) -> Result<Filters, (usize, String)> {
    let defs: Vec<Definition<'_>> = calls
        .iter()
        .map(|c| Definition {
            name: &c.name,
            text: &c.program,
            mbuf_len: c.mbuf as usize,
        })
        .collect();
    netsift_fpl::define(&defs, &Options::default(), registry).map_err(|e| {
        (
            e.index,
            format!("the FPL program does not compile: {}", e.error),
        )
    })
}

/// The FPL program `text` over an MBuf of `mbuf` bytes, which may call the
/// filters `calls`, checked (what a placer hands `netsift_kernel::fpl::refuse`,
/// which refuses a caller of filters by name and position).
pub(crate) fn program(
    text: &str,
    mbuf: u32,
    calls: &[Callable],
    registry: &dyn Registry,
) -> Result<Program, String> {
    let filters = define(calls, registry).map_err(|(i, e)| {
        format!(
            "filter `{}`: {e}",
            calls.get(i).map_or("?", |c| c.name.as_str())
        )
    })?;
    let opts = Options {
        mbuf_len: mbuf as usize,
        ..Options::default()
    };
    netsift_fpl::compile_with(text, &opts, registry, &filters)
        .map_err(|e| format!("the FPL program does not compile: {e}"))
}

/// [`program`], compiled to native code (its callees with it).
pub(crate) fn compile(
    text: &str,
    mbuf: u32,
    calls: &[Callable],
    registry: &dyn Registry,
) -> Result<JitProgram, String> {
    let p = program(text, mbuf, calls, registry)?;
    netsift_fpl::jit::compile(&p)
        .map_err(|e| format!("the FPL program does not compile to native code: {e}"))
}
