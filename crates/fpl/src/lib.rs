//! FPL-2, the FFPF packet language: its front end, reference interpreter and JIT.
//!
//! A chain of named steps, as the pcap compiler's and regex's are:
//! `syntax` (text to a tree with spans) → [`check`] (names resolved, macros
//! from [`macros`] expanded, the compile-time checks of the seeds' §3.3.3) →
//! [`hir`] (the checked IR every executor consumes) → [`interp`] (the
//! reference interpreter; `jit`, the Cranelift JIT of the default feature
//! `jit`, and the eBPF back end are tested against it). [`ops`] and [`hash`] hold the arithmetic and `HASH`'s function,
//! written once for every executor; [`externs`] the registry of external
//! functions; [`calls`] the filters a program may call as `EXTERN`; a `Program` displays as FPL text (a listing that compiles back to
//! the same IR). The language reference is docs/fpl.md.
//!
//! ```
//! use netsift_fpl::{compile, externs::Externs, interp, Options};
//! let p = compile("IF (PKT.B[0] == 7) THEN RETURN 1; FI", &Options::default(), &Externs::new()).unwrap();
//! let mut mbuf = vec![0u8; p.mbuf_len()];
//! let mut regs = [0i64; 16];
//! assert!(interp::run(&p, &[7], &mut mbuf, &mut regs).accepts());
//! assert!(!interp::run(&p, &[], &mut mbuf, &mut regs).accepts()); // out of range: a reject
//! ```

// Only the JIT (src/jit/) needs `unsafe`: without its feature the crate
// forbids it; with it, everything else still denies it.
#![cfg_attr(not(feature = "jit"), forbid(unsafe_code))]
#![cfg_attr(feature = "jit", deny(unsafe_code))]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod calls;
pub mod check;
pub mod error;
pub mod externs;
pub mod gen;
pub mod hash;
pub mod hir;
pub mod interp;
#[cfg(feature = "jit")]
#[allow(unsafe_code)]
pub mod jit;
mod listing;
pub mod macros;
pub mod ops;
mod syntax;

pub use calls::Filters;
pub use check::{compile, compile_with, define, DefineError, Definition, Options};
pub use error::{Error, ErrorKind, Span};
pub use hir::Program;
pub use interp::{run, Fault, Registers, Verdict};
