//! FPL compiled to eBPF against the reference interpreter, in the kernel
//! (`BPF_PROG_TEST_RUN`): random programs from `netsift_fpl::gen` on random
//! packets (the same verdict, result, registers and MBuf read through the
//! mapping), the seeds' Table 1 filter and Figure 6 on built frames and corpus
//! packets, and every program the back end accepts loading. Needs root
//! (CAP_BPF): skipped with a message without it, a failure under `CI=true`.

use netsift_fpl::externs::{sum8, Externs};
use netsift_fpl::{compile, gen, run, Options, Program, Verdict};
use netsift_kernel::codegen::{XDP_HDR, XDP_STATS};
use netsift_kernel::fpl::budget::estimate;
use netsift_kernel::fpl::{refuse, Error, Loaded};
use netsift_kernel::ringbuf::RingBuf;
use netsift_kernel::sys::{Map, MapKind, ProgKind};
use netsift_testkit::{require, Need};

/// xorshift64*: the same packets on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

fn opts() -> Options {
    Options {
        mbuf_len: 256,
        ..Options::default()
    }
}

/// A random frame of 14 to 160 bytes (a test run needs an Ethernet header),
/// mostly IPv4 with TCP or UDP, so that the macros read something meaningful.
fn packet(rng: &mut Rng) -> Vec<u8> {
    let len = 14 + rng.below(147) as usize;
    let mut p = rng.bytes(len);
    if rng.below(4) != 0 && len >= 34 {
        p[12..14].copy_from_slice(&[0x08, 0x00]);
        p[14] = 0x45 + if rng.below(4) == 0 { 1 } else { 0 };
        p[23] = [6, 17, 1, 6][rng.below(4) as usize];
        p[20] &= if rng.below(2) == 0 { 0 } else { 0xff };
        p[21] &= if rng.below(2) == 0 { 0 } else { 0xff };
    }
    // A test run refuses an IPv4 or IPv6 frame without room for its header.
    if (p[12..14] == [0x08, 0x00] && len < 34) || (p[12..14] == [0x86, 0xdd] && len < 54) {
        p[12] = 0x88;
    }
    p
}

/// Runs `frame` through the interpreter (with `mbuf` and `regs`) and the
/// loaded program (whose regions hold the same before), compares the result,
/// registers and MBuf the two leave behind, and gives the interpreter's verdict
/// and the test run's return value.
fn same(
    what: &str,
    p: &Program,
    k: &Loaded,
    frame: &[u8],
    mbuf: &mut [u8],
    regs: &mut [i64; 16],
) -> (Verdict, u32) {
    let v = run(p, frame, mbuf, regs);
    let r = k
        .prog
        .test_run(frame, 1)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let ctx = || format!("{what}\nframe {frame:02x?}\ninterpreter {v:?}");
    assert_eq!(k.result(), v.value(), "result: {}", ctx());
    assert_eq!(&k.registers(), regs, "registers: {}", ctx());
    assert_eq!(k.mbuf_bytes(), mbuf, "MBuf: {}", ctx());
    (v, r.retval)
}

/// A socket filter's answer: the packet's length for an accept, else 0.
fn socket_verdict(what: &str, frame: &[u8], v: Verdict, retval: u32) {
    let want = if v.accepts() { frame.len() as u32 } else { 0 };
    assert_eq!(retval, want, "verdict: {what}\nframe {frame:02x?}\n{v:?}");
}

/// A generated program, or `None` when it does not compile.
fn generated(seed: &[u8]) -> Option<(String, Program)> {
    let text = gen::program(seed);
    compile(&text, &opts(), &Externs::new())
        .ok()
        .map(|p| (text, p))
}

/// Loads `want` generated programs with `load` and runs each on 8 random
/// frames from the same non-zero MBuf and registers, kept from frame to frame;
/// `verdict` checks each frame's answer. Every program `refuse` lets through
/// must load; at least two in three must get through.
fn differential(
    want: usize,
    seed: u64,
    load: impl Fn(&Program, &str) -> Result<Loaded, Error>,
    mut verdict: impl FnMut(&str, &[u8], Verdict, u32),
) {
    // NETSIFT_FPL_CALIBRATE=1 (with --nocapture): print each estimate, and
    // what the verifier said instead of stopping at its first refusal.
    let calibrating = std::env::var_os("NETSIFT_FPL_CALIBRATE").is_some();
    let mut rng = Rng(seed);
    let (mut tried, mut loaded, mut refused) = (0, 0, Vec::new());
    while loaded < want {
        tried += 1;
        assert!(
            tried < 10 * want + 1000,
            "too few generated programs compile"
        );
        let n = 40 + rng.below(160) as usize;
        let seed = rng.bytes(n);
        let Some((text, p)) = generated(&seed) else {
            continue;
        };
        let k = match load(&p, &text) {
            Ok(k) => k,
            Err(e @ Error::TooLarge(_)) => {
                refused.push(format!("{e}"));
                continue;
            }
            Err(Error::Sys(e)) if calibrating => {
                let log = e.verifier_log().unwrap_or("");
                let last: Vec<&str> = log.lines().rev().take(2).collect();
                eprintln!("REFUSED estimate {:?}: {}", estimate(&p), last.join(" | "));
                continue;
            }
            Err(e) => panic!(
                "an accepted program failed to load: {e}\n{text}\n{}",
                match &e {
                    Error::Sys(s) => s.verifier_log().unwrap_or("").to_string(),
                    _ => String::new(),
                }
            ),
        };
        loaded += 1;
        if calibrating {
            eprintln!("LOADED estimate {:?}", estimate(&p));
        }
        let mut mbuf = rng.bytes(p.mbuf_len());
        let mut regs: [i64; 16] = std::array::from_fn(|_| rng.below(64) as i64 - 8);
        k.set_mbuf(&mbuf);
        k.set_registers(&regs);
        for _ in 0..8 {
            let frame = packet(&mut rng);
            let (v, retval) = same(&text, &p, &k, &frame, &mut mbuf, &mut regs);
            verdict(&text, &frame, v, retval);
        }
    }
    eprintln!(
        "{loaded} programs loaded and agreed, {} refused as too large for the verifier, of {tried} generated",
        refused.len()
    );
    // The refusals are the estimate's business; most programs must get through.
    assert!(
        refused.len() * 2 < loaded,
        "{} refused: {:?}",
        refused.len(),
        &refused[..refused.len().min(5)]
    );
}

#[test]
fn random_programs_agree_with_the_interpreter_and_all_load() {
    require!(Need::Root);
    differential(
        1000,
        0x1234_5678_9abc_def1,
        |p, text| Loaded::load(p, Some(text), ProgKind::SchedCls),
        socket_verdict,
    );
}

#[test]
fn random_programs_on_the_xdp_hook_copy_what_they_accept() {
    require!(Need::Root);
    let mut ring = RingBuf::create(1 << 20).expect("a ring buffer");
    let stats = Map::create(MapKind::PerCpuArray, 4, 8, XDP_STATS).expect("counters");
    let fd = (ring.map().fd(), stats.fd());
    differential(
        400,
        0x0fed_cba9_8765_4321,
        |p, text| Loaded::load_xdp(p, Some(text), fd.0, fd.1, 4096),
        |what, frame, v, retval| {
            assert_eq!(retval, 2, "XDP_PASS for every frame: {what}");
            let mut got = Vec::new();
            ring.drain(|rec| got.push(rec.to_vec()));
            let h = XDP_HDR as usize;
            match (got.as_slice(), v.accepts()) {
                ([], false) => {}
                ([rec], true) => assert_eq!(&rec[h..h + frame.len()], frame, "{what}"),
                (recs, _) => panic!("{what}: {} records for {v:?}", recs.len()),
            }
        },
    );
}

fn example(name: &str) -> String {
    let path = format!("{}/../fpl/examples/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn extern_is_refused_with_its_name_and_place() {
    // No privileges needed: the refusal comes before any system call.
    let mut reg = Externs::new();
    reg.register(sum8());
    let text = "R[0] = 1;\nIF (R[0]) THEN\n  MEM[0] = EXTERN(SUM8, 8, 16);\nFI";
    let p = compile(text, &opts(), &reg).unwrap();
    let e = refuse(&p, Some(text)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "EXTERN `SUM8` runs in the daemon only (line 3, column 12): the kernel cannot call a native function"
    );
    // Figure 7 calls the RTSP port extractor.
    let fig7 = example("fig7_rtsp_ports.fpl");
    let mut reg = Externs::new();
    reg.register(netsift_fpl::externs::ExternFn::new(
        "GetDynTCPDPortFromRTSP",
        0,
        8,
        |_| 0,
    ));
    let p = compile(&fig7, &Options::default(), &reg).unwrap();
    match refuse(&p, Some(&fig7)) {
        Err(Error::Extern {
            name,
            at: Some((6, _)),
        }) => assert_eq!(name, "GetDynTCPDPortFromRTSP"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_filter_call_is_refused_with_its_name_and_place() {
    // The callee alone places; its caller runs in the daemon.
    let defs = [netsift_fpl::Definition {
        name: "count",
        text: "MEM[0]++; RETURN 1;",
        mbuf_len: 8,
    }];
    let filters = netsift_fpl::define(&defs, &opts(), &Externs::new()).unwrap();
    refuse(filters.get("count").unwrap(), None).unwrap();
    let text = "R[0] = 1;\n  R[1] = extern(\"count\", 8, 16);";
    let p = netsift_fpl::compile_with(text, &opts(), &Externs::new(), &filters).unwrap();
    assert_eq!(
        refuse(&p, Some(text)).unwrap_err().to_string(),
        "the call of filter `count` runs in the daemon only (line 2, column 10): the kernel back end does not inline filter calls"
    );
}

#[test]
fn programs_past_the_verifier_budget_are_refused_before_loading() {
    // A default-bound loop (2,048 runs) hashing 60 bytes each time: cheap for
    // FPL's cost limit, over a million instructions for the verifier to walk.
    let text = "FOR (R[1] = 0; R[1] < R[0]; R[1]++) MEM[R[1]] = HASH(R[1], 60, 7); ROF";
    let p = compile(text, &opts(), &Externs::new()).unwrap();
    let e = refuse(&p, Some(text)).unwrap_err();
    assert!(matches!(e, Error::TooLarge(_)), "{e}");
    assert!(e.to_string().contains("runs in the daemon"), "{e}");
}

#[test]
fn arithmetic_edges_selectors_and_faults_agree() {
    require!(Need::Root);
    // Each program reads its operands from registers the test sets, so the
    // edges reach the kernel at run time, not folded by the compiler.
    let programs = [
        "R[8] = R[0] / R[1]; R[9] = R[0] % R[1]; R[10] = R[0] * R[1]; RETURN R[8] + 1;",
        "R[8] = R[0] << R[1]; R[9] = R[0] >> R[1]; R[10] = -R[0]; R[11] = ~R[1]; R[12] = !R[0];",
        "R[8] = R[0] < R[1]; R[9] = R[0] <= R[1]; R[10] = R[0] > R[1]; R[11] = R[0] >= R[1]; \
         R[12] = R[0] == R[1]; R[13] = R[0] != R[1]; R[14] = R[0] && R[1]; R[15] = R[0] || R[1];",
        "R[8] = R[0].S8[R[2] & 7]; R[9] = R[0].U16[R[2] & 3]; R[10] = R[0].S32[R[2] & 1]; \
         R[11] = R[0].U1[R[2]]; RETURN R[11] + 2;",
        "MEM[R[2]] = R[0]; MEM[R[3]] += R[1]; MEM[R[3]] -= 3; RETURN MEM[R[2]];",
        "R[8] = PKT.B[R[2]]; R[9] = PKT.W[R[3]]; R[10] = PKT.DW[R[2] - 1]; RETURN R[10] | 1;",
        "R[8] = HASH(R[2], 12, 1000); R[9] = HASH(R[3], 0, 1); RETURN R[8];",
        // Comparisons as tests, which compile to jumps.
        "IF (R[0] < R[1]) THEN R[8] = 1; FI IF (R[0] <= R[1]) THEN R[9] = 1; FI \
         IF (R[0] > R[1]) THEN R[10] = 1; FI IF (R[0] >= R[1]) THEN R[11] = 1; FI \
         IF (R[0] == R[1] || !(R[0] != R[1])) THEN R[12] = 1; FI \
         IF (!(R[0] < R[1]) && R[1] <= R[0] || R[0] > 3) THEN R[13] = 1; ELSE R[13] = 2; FI \
         IF (!(R[0] >= R[1] || R[0] <= R[1] && R[1] > R[0])) THEN R[14] = 1; FI \
         IF (R[0] && !R[1]) THEN R[15] = 1; FI",
        "FOR (R[4] = 0; R[4] < R[2] && R[4] < 40; R[4]++) MEM[R[4] & 7]++; IF (R[4] == 5) THEN BREAK; FI ROF RETURN R[4];",
    ];
    let edges = [
        0,
        1,
        -1,
        2,
        7,
        -7,
        63,
        64,
        65,
        i64::MIN,
        i64::MAX,
        0x1234_5678_9abc_def0,
        31,
        32,
    ];
    let frame: Vec<u8> = (0..64u8).map(|b| b.wrapping_mul(37)).collect();
    for text in programs {
        let p = compile(text, &opts(), &Externs::new()).unwrap_or_else(|e| panic!("{e}"));
        let k = Loaded::load(&p, Some(text), ProgKind::SchedCls).unwrap_or_else(|e| panic!("{e}"));
        for (i, &a) in edges.iter().enumerate() {
            for &b in &edges {
                let c = edges[(i * 5 + 3) % edges.len()];
                let mut regs = [0i64; 16];
                regs[..4].copy_from_slice(&[a, b, c & 63, b & 63]);
                let mut mbuf = vec![0u8; p.mbuf_len()];
                k.set_mbuf(&mbuf);
                k.set_registers(&regs);
                let (v, retval) = same(text, &p, &k, &frame, &mut mbuf, &mut regs);
                socket_verdict(text, &frame, v, retval);
            }
        }
    }
}

/// Found by the `fpl_ebpf` fuzz target under libFuzzer's timer: the
/// verifier gives up with EAGAIN when a signal is pending, and the logged
/// second load then overflowed its log (ENOSPC), so a program the back end
/// accepts was reported as refused. A signal sent to the loading thread
/// while the verifier walks a long loop must not fail the load.
#[test]
fn a_signal_during_verification_does_not_fail_the_load() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::{Duration, Instant};
    static CAUGHT: AtomicUsize = AtomicUsize::new(0);
    extern "C" fn caught(_: libc::c_int) {
        CAUGHT.fetch_add(1, Ordering::SeqCst);
    }
    require!(Need::Root);
    // 131,224 instructions processed: several milliseconds of verification.
    let text = "FOR (R[0] = 0; R[0] < R[0]; R[0]++)\nMEM[0] ^= (0 + 0);\nMEM[HASH(PKT.IP_PROTO, 0, 11)] = 2;\nROF";
    let p = compile(text, &opts(), &Externs::new()).unwrap();
    refuse(&p, Some(text)).expect("the back end accepts the program");
    // SAFETY: the handler only bumps an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(
            libc::SIGUSR1,
            caught as extern "C" fn(libc::c_int) as libc::sighandler_t,
        )
    };
    let started = Instant::now();
    Loaded::load(&p, Some(text), ProgKind::SchedCls).expect("loads without a signal");
    let unhurried = started.elapsed();
    // Signal the loading thread after a tenth of an undisturbed load.
    // SAFETY: pthread_self has no preconditions.
    let me = unsafe { libc::pthread_self() };
    let signaller = std::thread::spawn(move || {
        std::thread::sleep(unhurried / 10);
        // SAFETY: `me` is the test's thread, alive until the join below.
        unsafe { libc::pthread_kill(me, libc::SIGUSR1) };
    });
    let loaded = Loaded::load(&p, Some(text), ProgKind::SchedCls);
    signaller.join().unwrap();
    assert_eq!(CAUGHT.load(Ordering::SeqCst), 1, "the signal arrived");
    assert!(
        unhurried > Duration::from_micros(500),
        "verification long enough to interrupt: {unhurried:?}"
    );
    if let Err(e) = loaded {
        panic!("estimate {:?}: {e}", estimate(&p));
    }
}
