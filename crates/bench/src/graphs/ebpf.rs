//! FPL in the kernel: a program compiled to eBPF (`netsift_kernel::fpl`),
//! loaded as `SCHED_CLS` and run by `BPF_PROG_TEST_RUN` with a repeat count,
//! the kernel timing the runs itself (mean ns per run, whole nanoseconds).
//!
//! Beside it, a program that returns at once is test-run the same way: its
//! cost (the test harness's loop and clock reads) is in every test run, so
//! the figure reported for the filter is its runs' time less the empty
//! program's, and the empty program's figure is reported too.
//!
//! Loading needs CAP_BPF. Without it the figure is absent and the reason is
//! the error the kernel gave; this is a benchmark, so that is not a failure,
//! also under `CI=true`.

use super::rounds::Sample;
use netsift_fpl::Program;
use netsift_kernel::asm::{Asm, R0};
use netsift_kernel::fpl::Loaded;
use netsift_kernel::sys::{self, ProgKind};

/// An FPL program in the kernel, with the empty program to subtract.
pub struct Kernel {
    loaded: Loaded,
    empty: sys::Program,
    repeat: u32,
}

impl Kernel {
    /// Loads `program` (its FPL text `source`, for error positions) and the
    /// empty program; `Err` says why not (no CAP_BPF, an `EXTERN`, …).
    pub fn load(program: &Program, source: &str, repeat: u32) -> Result<Kernel, String> {
        let loaded = Loaded::load(program, Some(source), ProgKind::SchedCls)
            .map_err(|e| format!("loading the eBPF program: {e}"))?;
        let mut a = Asm::new();
        a.mov64_imm(R0, 0);
        a.exit();
        let insns = a.finish().map_err(|e| format!("the empty program: {e}"))?;
        let empty = sys::Program::load(ProgKind::SchedCls, "empty", &insns)
            .map_err(|e| format!("loading the empty program: {e}"))?;
        Ok(Kernel {
            loaded,
            empty,
            repeat: repeat.max(1),
        })
    }

    /// The filter's value on `packet` (one test run): what the interpreter's
    /// must equal before anything is timed.
    pub fn value(&self, packet: &[u8]) -> Result<i64, String> {
        self.loaded
            .prog
            .test_run(packet, 1)
            .map_err(|e| format!("test run: {e}"))?;
        Ok(self.loaded.result())
    }

    /// The eBPF instructions loaded.
    pub fn insns(&self) -> usize {
        self.loaded.insns.len()
    }

    /// Contenders: the filter's test runs and the empty program's, ns per run.
    pub fn samples<'a>(&'a self, packet: &'a [u8]) -> [Sample<'a>; 2] {
        let run = move |p: &'a sys::Program| -> Sample<'a> {
            Box::new(move || {
                p.test_run(packet, self.repeat)
                    .map(|r| f64::from(r.duration_ns))
                    .map_err(|e| format!("test run: {e}"))
            })
        };
        [run(&self.loaded.prog), run(&self.empty)]
    }
}
