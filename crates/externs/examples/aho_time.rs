//! Times `aho_corasick:SET` on 1,500-byte packets, with a match near the start
//! of the payload and without any (the seeds' Table 1, rows 6 and 7: snort's
//! Aho-Corasick, 1,000 and 9,900 cycles), called directly and from FPL through
//! the interpreter; a set of 4 worm signatures and `memmem:NAME` beside it.
//!
//! `cargo run --release -p netsift-externs --example aho_time [ROUNDS]`
//!
//! Prints, per case, the median time per call over ROUNDS rounds (default 21)
//! of 20,000 calls each, with the fastest and slowest round.

use netsift_externs::{Library, PatternSet};
use netsift_fpl::externs::{Call, Registry};
use netsift_fpl::{compile, run, Options};
use netsift_testkit::frames::Frame;
use std::hint::black_box;
use std::time::Instant;

const CALLS: u32 = 20_000;

/// 1,000 patterns of 6 to 20 bytes (deterministic), after a few real signatures,
/// about the size of one snort rule group's content set.
fn patterns() -> Vec<Vec<u8>> {
    let mut p: Vec<Vec<u8>> = [
        &b"/default.ida?NNNNNNNN"[..],
        b"/scripts/root.exe",
        b"cmd.exe",
        b"/etc/passwd",
        b"\x90\x90\x90\x90\x90\x90\x90\x90",
    ]
    .iter()
    .map(|s| s.to_vec())
    .collect();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    while p.len() < 1_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let len = 6 + (x % 15) as usize;
        // Printable bytes, mostly letters: what HTTP signatures look like.
        let pat = (0..len)
            .map(|i| b'A' + ((x >> (i * 3 % 60)) % 58) as u8)
            .collect();
        p.push(pat);
    }
    p
}

/// A 1,500-byte Ethernet/IPv4/TCP frame whose payload is `head` then filler.
fn frame(head: &[u8], filler: &[u8]) -> Vec<u8> {
    let mut payload = head.to_vec();
    while payload.len() < 1_500 - 54 {
        payload.extend_from_slice(filler);
    }
    payload.truncate(1_500 - 54);
    Frame::default()
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2])
        .tcp(40000, 80, 0x18)
        .payload(&payload)
        .build()
}

/// Median, fastest and slowest of `rounds` rounds, in ns per call.
fn time(rounds: usize, mut f: impl FnMut() -> i64) -> (f64, f64, f64) {
    let mut per: Vec<f64> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..CALLS {
                black_box(f());
            }
            t.elapsed().as_nanos() as f64 / f64::from(CALLS)
        })
        .collect();
    per.sort_by(f64::total_cmp);
    (per[per.len() / 2], per[0], per[per.len() - 1])
}

fn main() {
    let rounds = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(21usize)
        .max(1);
    let pats = patterns();
    let t = Instant::now();
    let set = PatternSet::new(&pats).expect("the patterns build");
    let build = t.elapsed();
    let mut lib = Library::new();
    lib.aho_corasick("snort", &pats).unwrap();
    lib.aho_corasick("worms", &pats[..4]).unwrap();
    lib.memmem("sig", b"/default.ida?NNNNNNNN").unwrap();
    let reg = lib.registry();

    let filler = b"lorem ipsum dolor sit amet, consectetur adipiscing elit; ";
    let hit = frame(
        b"GET /default.ida?NNNNNNNNNNNNNNNNNNNN%u9090 HTTP/1.0\r\n",
        filler,
    );
    let miss = frame(b"GET /index.html HTTP/1.0\r\n", filler);
    assert_eq!(
        set.find(&hit[54..]).map(|m| m.pattern),
        Some(0),
        "the hit matches"
    );
    assert!(set.find(&miss).is_none(), "the miss matches nothing");

    let ac = reg.lookup("aho_corasick:snort").unwrap();
    let worms = reg.lookup("aho_corasick:worms").unwrap();
    let mm = reg.lookup("memmem:sig").unwrap();
    let direct = |f: &netsift_fpl::externs::ExternFn, p: &[u8], mbuf: &mut [u8]| {
        f.call(Call {
            packet: p,
            mbuf,
            input: 0,
            output: 16,
            input_len: f.input_len(),
            output_len: f.output_len(),
        })
    };
    let prog = compile(
        "MEM[0] = PKT.TCP_PAYLOAD; MEM[1] = 1500; RETURN EXTERN(\"aho_corasick:snort\", 0, 16);",
        &Options::default(),
        &reg,
    )
    .unwrap();
    let mut mbuf = vec![0u8; 4096];
    mbuf[..8].copy_from_slice(&54i64.to_le_bytes());
    mbuf[8..16].copy_from_slice(&1500i64.to_le_bytes());

    println!(
        "# cargo run --release -p netsift-externs --example aho_time {rounds}\n\
         # {} patterns (automaton built in {:.1} ms), 1,500-byte frames, {rounds} rounds of {CALLS} calls",
        pats.len(),
        build.as_secs_f64() * 1e3
    );
    // The CPU, so that nanoseconds can be read as the seeds' cycles.
    let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |k: &str| {
        cpu.lines()
            .find(|l| l.starts_with(k))
            .and_then(|l| l.split(':').nth(1))
            .map_or("?".to_string(), |v| v.trim().to_string())
    };
    println!("# {} at {} MHz", field("model name"), field("cpu MHz"));
    println!(
        "{:<44} {:>10} {:>10} {:>10}",
        "case", "median ns", "min ns", "max ns"
    );
    let report = |name: &str, (med, lo, hi): (f64, f64, f64)| {
        println!("{name:<44} {med:>10.1} {lo:>10.1} {hi:>10.1}");
    };
    for (label, pkt) in [("match", &hit), ("no match", &miss)] {
        let mut m = mbuf.clone();
        report(
            &format!("aho_corasick, {label}, direct"),
            time(rounds, || direct(&ac, pkt, &mut m)),
        );
        let mut m = mbuf.clone();
        let mut regs = [0i64; 16];
        report(
            &format!("aho_corasick, {label}, FPL interpreter"),
            time(rounds, || run(&prog, pkt, &mut m, &mut regs).value()),
        );
        let mut m = mbuf.clone();
        report(
            &format!("aho_corasick, 4 patterns, {label}, direct"),
            time(rounds, || direct(&worms, pkt, &mut m)),
        );
        let mut m = mbuf.clone();
        report(
            &format!("memmem, {label}, direct"),
            time(rounds, || direct(&mm, pkt, &mut m)),
        );
    }
}
