//! Times Table 1's filter, `ip src 192.168.1.3 and ip proto \udp and dst port
//! 54321`, on one 1514-byte UDP packet that matches it, three ways: FPL's
//! reference interpreter, FPL's Cranelift JIT (both on examples/table1_udp.fpl)
//! and libpcap's BPF interpreter (`pcap_offline_filter` on libpcap's optimised
//! program, through netsift-oracle). The FFPF paper's Table 1 has FPL at 185
//! cycles against BPF's 740.
//!
//! Each round runs every contender for `--calls` calls back to back and takes
//! the mean per call; the order of the contenders rotates from round to round,
//! so none always runs first (or last, after the others warmed the caches).
//! It prints the median, min and max of the rounds' means per contender, and
//! the ratios of the medians.
//!
//! ```text
//! cargo run --release -p netsift-fpl --example time_table1 -- [--rounds 31] [--calls 200000]
//! ```

use netsift_fpl::externs::Externs;
use netsift_fpl::{compile, jit, run, Options};
use netsift_oracle::Filter;
use netsift_testkit::frames::Frame;
use netsift_wire::LinkType;
use std::hint::black_box;
use std::time::Instant;

const PCAP: &str = "ip src 192.168.1.3 and ip proto \\udp and dst port 54321";

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name} wants a number, got {v:?}"))
        })
}

/// The mean time of one of `calls` calls of `f`, in nanoseconds; each must
/// accept.
fn per_call(calls: usize, mut f: impl FnMut() -> bool) -> f64 {
    let start = Instant::now();
    let mut passed = 0usize;
    for _ in 0..calls {
        passed += usize::from(black_box(f()));
    }
    let ns = start.elapsed().as_nanos() as f64 / calls as f64;
    assert_eq!(passed, calls, "every call accepts the packet");
    ns
}

fn main() {
    let (rounds, calls) = (arg("--rounds", 31).max(1), arg("--calls", 200_000).max(1));
    let program = compile(
        include_str!("table1_udp.fpl"),
        &Options::default(),
        &Externs::new(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let jit = jit::Jit::new().unwrap_or_else(|e| panic!("{e}"));
    let start = Instant::now();
    let native = jit.compile(&program).unwrap_or_else(|e| panic!("{e}"));
    let compile_us = start.elapsed().as_secs_f64() * 1e6;
    let bpf = Filter::compile(LinkType::EN10MB, PCAP).expect("libpcap compiles the filter");
    // 14 + 20 + 8 bytes of headers and 1472 of payload: a full Ethernet frame.
    let packet = Frame::default()
        .ipv4([192, 168, 1, 3], [10, 0, 0, 1])
        .udp(9, 54321)
        .payload(&[0x5a; 1472])
        .build();
    assert_eq!(packet.len(), 1514);
    let mut mbuf = vec![0u8; program.mbuf_len()];
    let mut regs = [0i64; 16];
    let wire = packet.len() as u32;

    // All three accept it: the work timed is the whole filter.
    assert!(run(&program, &packet, &mut mbuf, &mut regs).accepts());
    assert!(native.run(&packet, &mut mbuf, &mut regs).accepts());
    assert!(bpf.run_libpcap(&packet, wire) != 0);

    let names = ["FPL interpreter", "FPL JIT", "libpcap BPF"];
    let mut means: [Vec<f64>; 3] = Default::default();
    for round in 0..rounds {
        for k in 0..3 {
            let which = (round + k) % 3;
            let p = black_box(&packet[..]);
            // One loop per contender, so that each is compiled on its own.
            means[which].push(match which {
                0 => per_call(calls, || run(&program, p, &mut mbuf, &mut regs).accepts()),
                1 => per_call(calls, || native.run(p, &mut mbuf, &mut regs).accepts()),
                _ => per_call(calls, || bpf.run_libpcap(p, wire) != 0),
            });
        }
    }
    println!(
        "Table 1 filter on a matching 1514-byte UDP packet: ns per call, {rounds} rounds of {calls} calls, order rotating"
    );
    println!("  (cargo run --release -p netsift-fpl --example time_table1 -- --rounds {rounds} --calls {calls})");
    let mut medians = [0.0; 3];
    for (i, m) in means.iter_mut().enumerate() {
        m.sort_by(f64::total_cmp);
        medians[i] = m[m.len() / 2];
        println!(
            "  {:<16} median {:>7.1}   min {:>7.1}   max {:>7.1}",
            names[i],
            medians[i],
            m[0],
            m[m.len() - 1]
        );
    }
    println!(
        "  libpcap BPF / JIT: {:.2}x   interpreter / JIT: {:.2}x   (FFPF's Table 1: 740 / 185 cycles = 4.0x)",
        medians[2] / medians[1],
        medians[0] / medians[1]
    );
    println!("  JIT compile time of the filter: {compile_us:.0} us (first program, once)");
}
