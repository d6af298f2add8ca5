//! FPL's eBPF back end against the interpreter, in the running kernel: the
//! first byte picks how the rest is read (program text, or choices for
//! `netsift_fpl::gen`), the next two the packet's length and a seed for the
//! MBuf and registers both executors start from. A program the compiler and
//! the back end's `refuse` accept must load (the verifier never refuses it)
//! and must leave the same result, registers and MBuf as the interpreter on
//! the packet, run through `BPF_PROG_TEST_RUN`, and on a cut copy of it.
//!
//! Needs CAP_BPF (CI runs as root). Without it every input is skipped, so the
//! target stays a no-op rather than a failure where bpf(2) is not allowed;
//! `scripts/fuzz.sh` says so from the first input's log line.
//!
//! A load and a test run cost a system call each (about a millisecond with
//! the verifier), so this target runs hundreds of inputs a second, not
//! thousands: it complements the `fpl` target, which runs the interpreter and
//! the JIT far faster.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netsift_fpl::externs::Externs;
use netsift_fpl::{compile, gen, run, Options};
use netsift_kernel::fpl::{refuse, Error, Loaded};
use netsift_kernel::sys::ProgKind;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a load failed for want of privilege: every later input is skipped.
static NO_BPF: AtomicBool = AtomicBool::new(false);

/// A frame a test run takes: at least an Ethernet header, and no IPv4 or IPv6
/// EtherType on a frame too short for that header (the kernel refuses those
/// before the program runs, which would say nothing about the program).
fn frame(bytes: &[u8]) -> Vec<u8> {
    let mut p = bytes.to_vec();
    p.resize(p.len().max(14), 0);
    let short =
        (p[12..14] == [0x08, 0x00] && p.len() < 34) || (p[12..14] == [0x86, 0xdd] && p.len() < 54);
    if short {
        p[12] = 0x88;
    }
    p
}

fuzz_target!(|data: &[u8]| {
    if NO_BPF.load(Ordering::Relaxed) {
        return;
    }
    let [mode, plen, seed, rest @ ..] = data else {
        return;
    };
    let plen = usize::from(*plen).min(rest.len());
    let (packet, code) = rest.split_at(plen);
    let text = if mode & 1 == 0 {
        String::from_utf8_lossy(code).into_owned()
    } else {
        gen::program(code)
    };
    let opts = Options {
        mbuf_len: 256,
        ..Options::default()
    };
    let Ok(program) = compile(&text, &opts, &Externs::new()) else {
        return;
    };
    if refuse(&program, Some(&text)).is_err() {
        return;
    }
    let k = match Loaded::load(&program, Some(&text), ProgKind::SchedCls) {
        Ok(k) => k,
        // The estimate keeps the verifier from refusing; a program it judges
        // too large is refused by name, which is the back end's answer.
        Err(Error::TooLarge(_)) => return,
        Err(Error::Sys(e)) if e.is_permission() => {
            eprintln!("fpl_ebpf: skipping every input: {e}");
            NO_BPF.store(true, Ordering::Relaxed);
            return;
        }
        Err(e) => panic!(
            "a program the back end accepts failed to load: {e}\n{text}\n{}",
            match &e {
                Error::Sys(s) => s.verifier_log().unwrap_or(""),
                _ => "",
            }
        ),
    };
    let mut mbuf: Vec<u8> = (0..program.mbuf_len())
        .map(|i| (i as u8).wrapping_mul(*seed))
        .collect();
    let mut regs: [i64; 16] = std::array::from_fn(|i| i64::from(*seed) - i as i64);
    k.set_mbuf(&mbuf);
    k.set_registers(&regs);
    let whole = frame(packet);
    for cut in [whole.len(), (whole.len() / 2).max(14)] {
        let f = &whole[..cut];
        let f = frame(f);
        let v = run(&program, &f, &mut mbuf, &mut regs);
        let r = k
            .prog
            .test_run(&f, 1)
            .unwrap_or_else(|e| panic!("test run: {e}\n{program}"));
        let want = if v.accepts() { f.len() as u32 } else { 0 };
        assert_eq!(r.retval, want, "verdict differs\n{program}\nframe {f:02x?}");
        assert_eq!(
            k.result(),
            v.value(),
            "result differs\n{program}\nframe {f:02x?}"
        );
        assert_eq!(
            k.registers(),
            regs,
            "registers differ\n{program}\nframe {f:02x?}"
        );
        assert!(
            k.mbuf_bytes() == mbuf,
            "MBuf differs\n{program}\nframe {f:02x?}"
        );
    }
});
