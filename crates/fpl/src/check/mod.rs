//! The syntax tree to the checked IR ([`crate::hir`]), making the checks of the
//! seeds' §3.3.3 on the way: names resolve (macros from [`crate::macros`],
//! external functions from the caller's [`Registry`]), registers exist,
//! constant selector indexes fit, every `EXTERN` region lies inside MBuf, every
//! loop has a bound (`loops`) within [`Options::max_loop_bound`], and the
//! program's worst-case cost (`cost`) is within [`Options::max_cost`]; a
//! filter call's callee exists, its MBuf window and result lie inside MBuf,
//! and calls nest at most [`Options::max_call_depth`] deep.
//!
//! `lower` does the walk; `loops` and `cost` are its helpers on the IR;
//! `define` compiles named filters in the order their calls need.

pub(crate) mod cost;
mod define;
pub(crate) mod loops;
pub(crate) mod lower;

pub use define::{define, DefineError, Definition};

use crate::calls::Filters;
use crate::error::Error;
use crate::externs::Registry;
use crate::hir::Program;

/// What the checks are made against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The filter's MBuf size in bytes (`MEM[i]` exists for `8 * i + 8 <=
    /// mbuf_len`; every `EXTERN` region must lie inside it). Default 4,096.
    pub mbuf_len: usize,
    /// The bound of a loop whose iteration count the compiler cannot derive
    /// from its header (see docs/fpl.md, "Loops"). Default 2,048, more than the
    /// bytes of any Ethernet frame.
    pub loop_bound: u32,
    /// The largest bound a loop may have, derived or default. Default 65,536.
    pub max_loop_bound: u32,
    /// The most operations one run may perform in the worst case, its filter
    /// calls' included. Default 1,048,576.
    pub max_cost: u64,
    /// How deep filter calls may nest: a program calling a filter that calls
    /// none is 1 deep. Default 8.
    pub max_call_depth: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            mbuf_len: 4096,
            loop_bound: 2048,
            max_loop_bound: 65_536,
            max_cost: 1 << 20,
            max_call_depth: 8,
        }
    }
}

/// Parses and checks `text` into a program that calls no other filter.
pub fn compile(text: &str, options: &Options, registry: &dyn Registry) -> Result<Program, Error> {
    compile_with(text, options, registry, &Filters::new())
}

/// Parses and checks `text` into a program whose `EXTERN` names are looked up
/// in `filters` first (a filter call), then in `registry` (a native function).
pub fn compile_with(
    text: &str,
    options: &Options,
    registry: &dyn Registry,
    filters: &Filters,
) -> Result<Program, Error> {
    let ast = crate::syntax::parser::parse_program(text)?;
    lower::Lowerer::new(text, options, registry, filters).program(&ast)
}
