//! FPL programs (`netsift-fpl`'s checked IR) compiled to eBPF for kernel
//! placement: FFPF's filters running next to the packets, with their MBuf in
//! memory the application maps too.
//!
//! A chain of named steps: [`refuse`] (what the kernel cannot run: `EXTERN`,
//! which calls Rust in the daemon or another filter, and programs whose verification could pass
//! the verifier's limits, estimated by [`budget`]) → `emit` (the IR to eBPF
//! instructions) → [`Loaded`] (the shared regions made and the program loaded).
//! docs/fpl.md, "eBPF back end", says what maps where.
//!
//! - MBuf is a [`Region`] (a `BPF_F_MMAPABLE` array map mapped into this
//!   process) of the program's MBuf size rounded up to 8 bytes; slot `i` is the
//!   native-endian `i64` at byte `8 i`, which is the interpreter's
//!   little-endian slot on every little-endian machine.
//! - The registers `R[0]`..`R[15]` are the first 16 words of a second region,
//!   and word 16 holds the last run's result (0 after a fault). Both regions are
//!   the filter instance's, shared by every CPU that runs it, as FFPF's MBuf is.
//! - As a socket filter the program returns 0 for a result of 0 (or a fault)
//!   and the packet's length otherwise: it keeps the whole packet it accepts.
//!   On the XDP hook it passes every frame on, and first copies one whose
//!   result is not 0 into a ring buffer, with the XDP level's ending.
//!
//! Invariant: every program [`generate`] returns has passed [`refuse`], so it
//! uses no `EXTERN` and its estimated verification stays inside the kernel's
//! limits; the tests load hundreds of random ones and count every refusal by
//! the verifier as a failure.

pub mod budget;
mod emit;
mod locate;

use crate::asm::Insn;
pub use crate::codegen::Hook;
use crate::shared::Region;
use crate::sys::{self, ProgKind};
use netsift_fpl::hir::{NUM_REGS, SLOT_BYTES};
use netsift_fpl::Program;
use std::fmt;
use std::sync::atomic::Ordering;

/// Bytes of the register region: `R[0]`..`R[15]`, then the result word.
pub const REGS_LEN: usize = (NUM_REGS + 1) * SLOT_BYTES;
/// The word of the register region holding the last run's result.
pub const RESULT_WORD: usize = NUM_REGS;

/// Why an FPL program was not placed in the kernel.
#[derive(Debug)]
pub enum Error {
    /// The program calls an external function, which only the daemon can run.
    Extern {
        /// The function's name.
        name: String,
        /// Where its first call is (1-based), when the source was given.
        at: Option<(usize, usize)>,
    },
    /// The program calls another filter (`EXTERN` of a filter), which this
    /// back end does not inline: the daemon runs it.
    FilterCall {
        /// The callee's name.
        name: String,
        /// Where its first call is (1-based), when the source was given.
        at: Option<(usize, usize)>,
    },
    /// Verifying the program could pass a limit of the kernel's verifier (its
    /// stack, its instruction budget, its pending branches), or the program
    /// nests deeper than the generator's stack layout allows.
    TooLarge(String),
    /// A system call failed (creating a map, mapping it, loading the program).
    Sys(sys::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Extern { name, at } => {
                write!(f, "EXTERN `{name}` runs in the daemon only")?;
                if let Some((line, column)) = at {
                    write!(f, " (line {line}, column {column})")?;
                }
                write!(f, ": the kernel cannot call a native function")
            }
            Error::FilterCall { name, at } => {
                write!(f, "the call of filter `{name}` runs in the daemon only")?;
                if let Some((line, column)) = at {
                    write!(f, " (line {line}, column {column})")?;
                }
                write!(f, ": the kernel back end does not inline filter calls")
            }
            Error::TooLarge(why) => write!(f, "not placed in the kernel: {why}"),
            Error::Sys(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<sys::Error> for Error {
    fn from(e: sys::Error) -> Error {
        Error::Sys(e)
    }
}

/// Checks that the kernel can run `program`: no `EXTERN` of a function or a
/// filter (named, with its line and column in `source` when given) and a verification the kernel's limits
/// allow. The graph placer calls this to choose between the kernel and the
/// daemon; it makes no system call.
pub fn refuse(program: &Program, source: Option<&str>) -> Result<(), Error> {
    if let Some(f) = program.externs().first() {
        let name = f.name().to_string();
        let at = source.and_then(|s| locate::first_extern(s, &name));
        return Err(Error::Extern { name, at });
    }
    if let Some(c) = program.filters().first() {
        let at = source.and_then(|s| locate::first_extern(s, &c.name));
        return Err(Error::FilterCall {
            name: c.name.clone(),
            at,
        });
    }
    budget::check(program)?;
    // The generator's own limits (stack temporaries, nested loops, jump
    // distances), with descriptors that are never loaded.
    emit::program(program, Maps { mbuf: -1, regs: -1 }, Hook::Skb).map(drop)
}

/// The map descriptors a generated program addresses.
#[derive(Clone, Copy, Debug)]
pub struct Maps {
    /// The MBuf region's map.
    pub mbuf: i32,
    /// The register region's map.
    pub regs: i32,
}

/// The eBPF instructions of `program` over the regions `maps` (the MBuf one of
/// at least [`mbuf_region_len`] bytes, the register one of [`REGS_LEN`]) for
/// `hook`, after [`refuse`]. On [`Hook::Xdp`] every frame passes on and one
/// whose result is not 0 is copied into the ring first, as the XDP level of
/// the pcap filters does ([`crate::codegen::Hook`]).
pub fn generate(
    program: &Program,
    source: Option<&str>,
    maps: Maps,
    hook: Hook,
) -> Result<Vec<Insn>, Error> {
    refuse(program, source)?;
    emit::program(program, maps, hook)
}

/// The MBuf region's size for `program`: its MBuf rounded up to whole slots,
/// at least one.
pub fn mbuf_region_len(program: &Program) -> usize {
    program.mbuf_len().div_ceil(SLOT_BYTES).max(1) * SLOT_BYTES
}

/// An FPL program loaded into the kernel with its MBuf and registers.
#[derive(Debug)]
pub struct Loaded {
    /// The loaded program: attach it under a socket, or test-run it.
    pub prog: sys::Program,
    /// The MBuf, mapped here as the program sees it.
    pub mbuf: Region,
    /// `R[0]`..`R[15]` and the last result ([`RESULT_WORD`]).
    pub regs: Region,
    /// The instructions loaded (for `-d` listings).
    pub insns: Vec<Insn>,
    mbuf_len: usize,
}

impl Loaded {
    /// Makes the regions (all zero), generates the program and loads it as a
    /// program of `kind` ([`ProgKind::SocketFilter`] to attach under a socket,
    /// [`ProgKind::SchedCls`] for test runs, whose packet starts at the MAC
    /// header as a packet socket's does).
    pub fn load(program: &Program, source: Option<&str>, kind: ProgKind) -> Result<Loaded, Error> {
        Loaded::load_on(program, source, kind, Hook::Skb)
    }

    /// As [`load`](Self::load), for the XDP hook: `ring` (a BPF ring buffer),
    /// `stats` and `cap` as [`crate::codegen::Hook::Xdp`] describes them.
    pub fn load_xdp(
        program: &Program,
        source: Option<&str>,
        ring: i32,
        stats: i32,
        cap: u32,
    ) -> Result<Loaded, Error> {
        let cap = cap.clamp(1, crate::codegen::XDP_CAP_MAX);
        let hook = Hook::Xdp {
            ring,
            stats,
            cap,
            redirect: None,
        };
        Loaded::load_on(program, source, ProgKind::Xdp, hook)
    }

    fn load_on(
        program: &Program,
        source: Option<&str>,
        kind: ProgKind,
        hook: Hook,
    ) -> Result<Loaded, Error> {
        refuse(program, source)?;
        let mbuf = Region::create(mbuf_region_len(program))?;
        let regs = Region::create(REGS_LEN)?;
        let maps = Maps {
            mbuf: mbuf.map().fd(),
            regs: regs.map().fd(),
        };
        let insns = emit::program(program, maps, hook)?;
        let prog = sys::Program::load(kind, "fpl", &insns)?;
        Ok(Loaded {
            prog,
            mbuf,
            regs,
            insns,
            mbuf_len: program.mbuf_len(),
        })
    }

    /// The MBuf's bytes as the program left them (the program's MBuf size, as
    /// the interpreter's slice).
    pub fn mbuf_bytes(&self) -> Vec<u8> {
        let mut out: Vec<u8> = self
            .mbuf
            .dwords()
            .iter()
            .flat_map(|w| w.load(Ordering::Acquire).to_ne_bytes())
            .collect();
        out.truncate(self.mbuf_len);
        out
    }

    /// Writes the MBuf's bytes (at most its size) from `bytes`, slot by slot.
    pub fn set_mbuf(&self, bytes: &[u8]) {
        for (w, chunk) in self.mbuf.dwords().iter().zip(bytes.chunks(SLOT_BYTES)) {
            let mut b = w.load(Ordering::Acquire).to_ne_bytes();
            b[..chunk.len()].copy_from_slice(chunk);
            w.store(u64::from_ne_bytes(b), Ordering::Release);
        }
    }

    /// The registers.
    pub fn registers(&self) -> [i64; NUM_REGS] {
        let d = self.regs.dwords();
        std::array::from_fn(|i| d[i].load(Ordering::Acquire) as i64)
    }

    /// Sets the registers (a filter instance starts at 0, or keeps them).
    pub fn set_registers(&self, regs: &[i64; NUM_REGS]) {
        for (w, &r) in self.regs.dwords().iter().zip(regs) {
            w.store(r as u64, Ordering::Release);
        }
    }

    /// The last run's result: what `RETURN` gave, 0 after a fault or the end.
    pub fn result(&self) -> i64 {
        self.regs.dwords()[RESULT_WORD].load(Ordering::Acquire) as i64
    }
}
