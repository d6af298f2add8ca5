//! The Cranelift JIT: a checked [`Program`] compiled to native code for the
//! daemon, with exactly the reference interpreter's results ([`crate::interp`]
//! is the oracle; docs/fpl.md, "The JIT", says how the IR maps).
//!
//! Three small steps: `lower` translates the IR into one Cranelift function
//! `fn(*mut Env) -> i64` (safe code: it only builds IR), this module compiles
//! it into its own `JITModule` and runs it, and `tramp` holds the two Rust
//! functions the code calls, `HASH` (the interpreter's [`crate::hash::hash`])
//! and `EXTERN` (the registered closure, given checked slices of MBuf). A
//! filter call is an `EXTERN` of a closure that runs the callee's own native
//! code, compiled with the caller's, on its window of MBuf.
//!
//! Soundness rests on one rule that `lower` keeps and the tests check against
//! the interpreter: every load or store the generated code makes into the
//! packet or MBuf is dominated by a comparison with the length that `Env`
//! carries for this run, so the code reaches only the slices given to
//! [`JitProgram::run`] (and the registers and `Env` itself).
//!
//! ```
//! use netsift_fpl::{compile, externs::Externs, jit::Jit, Options, Verdict};
//! let p = compile("RETURN PKT.W[0] + 1;", &Options::default(), &Externs::new()).unwrap();
//! let code = Jit::new().unwrap().compile(&p).unwrap();
//! let mut mbuf = vec![0u8; p.mbuf_len()];
//! assert_eq!(code.run(&[1, 2], &mut mbuf, &mut [0; 16]), Verdict::Return(0x0103));
//! assert_eq!(code.run(&[1], &mut mbuf, &mut [0; 16]).value(), 0); // out of range
//! ```

mod lower;
mod tramp;

use crate::calls::{self, RESULT_BYTES};
use crate::externs::{Call, ExternFn};
use crate::hir::Program;
use crate::interp::{Fault, Registers, Verdict};
use cranelift_codegen::ir::{AbiParam, UserFuncName};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module};
use std::any::Any;
use std::fmt;
use std::sync::{Arc, Mutex};

/// Why a program could not be compiled to native code. The IR is checked, so
/// these are about the host or Cranelift, never about the FPL text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JitError {
    stage: &'static str,
    message: String,
}

impl JitError {
    fn new(stage: &'static str, message: impl fmt::Display) -> JitError {
        JitError {
            stage,
            message: message.to_string(),
        }
    }

    /// The step that failed: `host` (no Cranelift back end for this CPU, or
    /// its flags), `codegen` (Cranelift refused the function), `memory`
    /// (executable memory could not be had).
    pub fn stage(&self) -> &'static str {
        self.stage
    }
}

impl fmt::Display for JitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FPL JIT, {}: {}", self.stage, self.message)
    }
}

impl std::error::Error for JitError {}

/// The code generator for this host: Cranelift's target, detected once and
/// shared by every program compiled with it.
#[derive(Clone)]
pub struct Jit {
    isa: OwnedTargetIsa,
}

impl fmt::Debug for Jit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Jit")
            .field("target", &self.isa.triple().to_string())
            .finish()
    }
}

impl Jit {
    /// A code generator for the CPU this runs on, optimising for speed.
    pub fn new() -> Result<Jit, JitError> {
        let mut flags = settings::builder();
        // cranelift-jit's own requirements (absolute relocations), then speed.
        for (name, value) in [
            ("use_colocated_libcalls", "false"),
            ("is_pic", "false"),
            ("opt_level", "speed"),
        ] {
            flags
                .set(name, value)
                .map_err(|e| JitError::new("host", format!("flag {name}={value}: {e}")))?;
        }
        let isa = cranelift_native::builder()
            .map_err(|e| JitError::new("host", e))?
            .finish(settings::Flags::new(flags))
            .map_err(|e| JitError::new("host", e))?;
        Ok(Jit { isa })
    }

    /// Compiles `program` into native code of its own, freed when the result
    /// drops. The program's external functions are shared with it; the
    /// filters it calls are compiled too, each once.
    pub fn compile(&self, program: &Program) -> Result<JitProgram, JitError> {
        self.compile_calling(program, &mut Vec::new())
    }

    /// [`Jit::compile`], with the callees compiled so far (by program
    /// address: a filter several others call is compiled once).
    fn compile_calling(
        &self,
        program: &Program,
        compiled: &mut Vec<(*const Program, Arc<JitProgram>)>,
    ) -> Result<JitProgram, JitError> {
        let mut externs = program.externs().to_vec();
        for c in program.filters() {
            let key = Arc::as_ptr(&c.program);
            let code = match compiled.iter().find(|(k, _)| *k == key) {
                Some((_, code)) => code.clone(),
                None => {
                    let code = Arc::new(self.compile_calling(&c.program, compiled)?);
                    compiled.push((key, code.clone()));
                    code
                }
            };
            externs.push(callee(&c.name, c.program.mbuf_len(), code));
        }
        let mut module = JITModule::new(JITBuilder::with_isa(
            self.isa.clone(),
            default_libcall_names(),
        ));
        let entry = match build(&mut module, program, &externs) {
            Ok(entry) => entry,
            Err(e) => {
                // SAFETY: nothing from this module was finalized or called.
                unsafe { module.free_memory() };
                return Err(e);
            }
        };
        // SAFETY: `entry` is the finalized address of the function `build`
        // defined with the signature `fn(*mut Env) -> i64` in the host's
        // default calling convention, which is `extern "C"`'s.
        let entry = unsafe { std::mem::transmute::<*const u8, Entry>(entry) };
        Ok(JitProgram {
            entry,
            externs,
            mbuf_len: program.mbuf_len(),
            module: Mutex::new(Some(module)),
        })
    }
}

/// A filter call as the external function the generated code calls: the
/// callee's native code on its window ([`calls::invoke`], as the interpreter
/// runs it). Its input region is the window, its output the result.
fn callee(name: &str, window: usize, code: Arc<JitProgram>) -> ExternFn {
    ExternFn::new(name, window, RESULT_BYTES, move |call: Call<'_>| {
        calls::invoke(call, |packet, mbuf, regs| {
            code.run(packet, mbuf, regs).value()
        })
    })
}

/// Defines and finalizes the program's function in `module`; its address.
fn build(
    module: &mut JITModule,
    program: &Program,
    externs: &[ExternFn],
) -> Result<*const u8, JitError> {
    let mut ctx = module.make_context();
    let ptr = module.target_config().pointer_type();
    ctx.func.signature.params.push(AbiParam::new(ptr));
    ctx.func
        .signature
        .returns
        .push(AbiParam::new(cranelift_codegen::ir::types::I64));
    let id = module
        .declare_function("fpl", Linkage::Local, &ctx.func.signature)
        .map_err(|e| JitError::new("codegen", e))?;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    let mut fctx = FunctionBuilderContext::new();
    lower::function(&mut ctx.func, &mut fctx, module, program, externs);
    module
        .define_function(id, &mut ctx)
        .map_err(|e| JitError::new("codegen", format!("{e:?}")))?;
    module.clear_context(&mut ctx);
    module.finalize_definitions().map_err(|e| match e {
        cranelift_module::ModuleError::Allocation { .. } => JitError::new("memory", e),
        e => JitError::new("codegen", e),
    })?;
    Ok(module.get_finalized_function(id))
}

/// The generated function's type.
type Entry = unsafe extern "C" fn(*mut Env) -> i64;

/// A program compiled to native code. Immutable; runs from any thread.
pub struct JitProgram {
    entry: Entry,
    /// The functions `EXTERN` calls, indexed as in the program, then the
    /// filters it calls (`callee`), which hold their own code.
    externs: Vec<ExternFn>,
    mbuf_len: usize,
    /// Owns the code's memory, taken out and freed on drop. The lock is only
    /// for `Sync` (a `JITModule` is `Send` but not `Sync`): nothing else
    /// touches it.
    module: Mutex<Option<JITModule>>,
}

impl fmt::Debug for JitProgram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JitProgram")
            .field("entry", &(self.entry as *const u8))
            .field("externs", &self.externs)
            .field("mbuf_len", &self.mbuf_len)
            .finish_non_exhaustive()
    }
}

impl JitProgram {
    /// The MBuf size the program was checked against, in bytes.
    pub fn mbuf_len(&self) -> usize {
        self.mbuf_len
    }

    /// Runs the program on `packet` with the filter's `mbuf` and registers:
    /// the interpreter's [`crate::run`], natively. A panic in an external
    /// function is carried across the generated code and resumed here.
    #[inline]
    pub fn run(&self, packet: &[u8], mbuf: &mut [u8], regs: &mut Registers) -> Verdict {
        let mut env = Env {
            packet: packet.as_ptr(),
            packet_len: packet.len(),
            mbuf: mbuf.as_mut_ptr(),
            mbuf_len: mbuf.len(),
            regs: regs.as_mut_ptr(),
            fault: 0,
            panicked: 0,
            externs: self.externs.as_ptr(),
            externs_len: self.externs.len(),
            panic: None,
        };
        // SAFETY: `entry` points into code this program owns (freed only on
        // drop, which `&self` excludes). The code reads and writes `env`, the
        // 16 registers behind `env.regs`, and the packet and MBuf only after
        // comparing each access with `packet_len` and `mbuf_len`, which are
        // those of the live slices borrowed here for the call's duration
        // (nothing else uses them meanwhile). It calls only `tramp`'s
        // functions, with this `env`.
        let value = unsafe { (self.entry)(&mut env) };
        if env.fault == 0 {
            return Verdict::Return(value);
        }
        // A panicked call leaves with a fault code too, so this is off the
        // fast path.
        if let Some(payload) = env.panic.take() {
            std::panic::resume_unwind(payload);
        }
        Verdict::Fault(fault_of(env.fault))
    }
}

impl Drop for JitProgram {
    fn drop(&mut self) {
        let module = match self.module.get_mut() {
            Ok(m) => m.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(module) = module {
            // SAFETY: `&mut self` means no run is under way, and `entry` dies
            // with `self`, so no pointer into the code is used again.
            unsafe { module.free_memory() };
        }
    }
}

/// What a run's code sees: the slices as pointers and lengths, where to put
/// the fault, and what the trampolines need. Laid out as C so the generated
/// code reads the fields at `offset_of!` offsets.
#[repr(C)]
pub(crate) struct Env {
    packet: *const u8,
    packet_len: usize,
    mbuf: *mut u8,
    mbuf_len: usize,
    regs: *mut i64,
    /// Written by the code on leaving: 0, or a fault's code (`fault_code`).
    fault: i64,
    /// Set by [`tramp::call`] when an external function panicked; the code
    /// then leaves at once.
    panicked: i64,
    externs: *const ExternFn,
    externs_len: usize,
    /// The panic's payload, resumed by `run`.
    panic: Option<Box<dyn Any + Send>>,
}

/// Fault codes the code writes to `Env::fault`.
const FAULTS: [Fault; 5] = [
    Fault::PacketBounds,
    Fault::MemBounds,
    Fault::ExternBounds,
    Fault::Selector,
    Fault::LoopBound,
];

/// The code for `f` (never 0).
fn fault_code(f: Fault) -> i64 {
    FAULTS.iter().position(|&g| g == f).map_or(0, |i| i as i64) + 1
}

/// The fault for a code the code wrote (1 to 5; a panicked call's leaving is
/// resumed as a panic before this is asked).
fn fault_of(code: i64) -> Fault {
    usize::try_from(code - 1)
        .ok()
        .and_then(|i| FAULTS.get(i).copied())
        .unwrap_or(Fault::ExternBounds)
}

/// Compiles `program` for this host: [`Jit::new`] then [`Jit::compile`].
pub fn compile(program: &Program) -> Result<JitProgram, JitError> {
    Jit::new()?.compile(program)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fault_codes_round_trip() {
        for f in FAULTS {
            assert_eq!(fault_of(fault_code(f)), f);
        }
    }

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn programs_are_send_and_sync() {
        assert_send_sync::<JitProgram>();
        assert_send_sync::<Jit>();
    }
}
