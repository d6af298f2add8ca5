//! Runs engines on one of the seeds' filters over the generated trace, for `perf
//! record` (one engine) or for A/B comparisons of engine variants (several engines,
//! interleaved round by round, medians with min/max).
//!
//! `cargo run --release -p netsift-bench --example profile_static -- FILTER ENGINES [SECONDS]`
//! with ENGINES a comma-separated list of `batch` (the benchmark's netsift engine,
//! no prefetch), `batch-pf` and `batch-pf2` (prefetching one or two batches ahead),
//! `batch-plain` (the timing loop before prefetching existed), `pkt`, `optc`, `bpf`, and `touch` (read one byte
//! of each packet: the memory floor). Each engine's line ends with the median of its
//! round-by-round ratio to the first engine. `PACKETS=n` sets the trace size
//! (default 1,000,000); SECONDS 0 runs one round (for callgrind).

use std::hint::black_box;
use std::time::{Duration, Instant};

use netsift_bench::gen::trace::{seeds_filters, trace, TraceConfig};
use netsift_bench::static_bench::engines::{Engine, Libpcap, Native, NetsiftBatch};
use netsift_bench::static_bench::{compile, optc, Packets};
use netsift_bench::stats::Stat;
use netsift_engine::Simd;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let id: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let engines: Vec<String> = args
        .get(2)
        .map_or("batch", |s| s.as_str())
        .split(',')
        .map(str::to_string)
        .collect();
    let secs: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(3.0);
    let pkts = Packets::from_gen(&trace(&TraceConfig {
        packets: std::env::var("PACKETS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1_000_000),
        ..TraceConfig::default()
    }));
    let expr = seeds_filters()
        .into_iter()
        .find(|(i, _)| *i == id)
        .expect("filter 1-6")
        .1;
    let (mut pkt, bpf) = compile(&expr).expect("compiles");
    let mut batch = NetsiftBatch::new(pkt.set().clone(), Simd::detect());
    let f = optc::filter(id).expect("filter 1-6");
    let mut bpf = Libpcap(&bpf);
    let mut opt = Native(f);
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); engines.len()];
    let end = Instant::now() + Duration::from_secs_f64(secs);
    let mut acc = 0u64;
    let mut first = true;
    while std::mem::take(&mut first) || Instant::now() < end {
        for (e, t) in engines.iter().zip(&mut times) {
            let start = Instant::now();
            acc += match e.as_str() {
                "batch" | "batch-pf" | "batch-pf2" => {
                    batch.prefetch_ahead = match e.as_str() {
                        "batch-pf" => 1,
                        "batch-pf2" => 2,
                        _ => 0,
                    };
                    batch.count(&pkts)
                }
                "batch-plain" => batch.count_plain(&pkts),
                "pkt" => pkt.count(&pkts),
                "optc" => opt.count(&pkts),
                "touch" => pkts
                    .iter()
                    .map(|(d, _)| black_box(d.first().copied().unwrap_or(0) as u64 & 1))
                    .sum(),
                "bpf" => bpf.count(&pkts),
                other => panic!("unknown engine {other}"),
            };
            t.push(start.elapsed().as_nanos() as f64 / pkts.len() as f64);
        }
    }
    for (e, t) in engines.iter().zip(&times) {
        let s = Stat::of(t).unwrap_or_default();
        // Round by round against the first engine: the rounds are adjacent in time,
        // so the ratio cancels most of the machine's drift.
        let ratios: Vec<f64> = t.iter().zip(&times[0]).map(|(a, b)| a / b).collect();
        let r = Stat::of(&ratios).unwrap_or_default();
        println!(
            "filter {id} {e}: {:.2} ns/packet [{:.2}, {:.2}] over {} rounds; paired ratio to {}: {:.3} [{:.3}, {:.3}]",
            s.median,
            s.min,
            s.max,
            t.len(),
            engines[0],
            r.median,
            r.min,
            r.max
        );
    }
    black_box(acc);
}
