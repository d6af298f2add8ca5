//! Runs one engine on one of the seeds' filters over the generated trace for a few
//! seconds, for `perf record` (the full benchmark interleaves seven engines, which
//! mixes their profiles).
//!
//! `cargo run --release -p netsift-bench --example profile_static -- FILTER ENGINE [SECONDS]`
//! with ENGINE one of `batch`, `pkt`, `optc`, `bpf`.

use std::time::{Duration, Instant};

use netsift_bench::gen::trace::{seeds_filters, trace, TraceConfig};
use netsift_bench::static_bench::engines::{Engine, Libpcap, Native, NetsiftBatch};
use netsift_bench::static_bench::{compile, optc, Packets};
use netsift_engine::Simd;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let id: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let engine = args.get(2).map_or("batch", |s| s.as_str()).to_string();
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
    let end = Instant::now() + Duration::from_secs_f64(secs);
    let (mut rounds, mut acc) = (0u64, 0u64);
    let t = Instant::now();
    while Instant::now() < end {
        acc += match engine.as_str() {
            "batch" => batch.count(&pkts),
            "pkt" => pkt.count(&pkts),
            "optc" => opt.count(&pkts),
            _ => bpf.count(&pkts),
        };
        rounds += 1;
    }
    let ns = t.elapsed().as_nanos() as f64 / (rounds as f64 * pkts.len() as f64);
    println!("filter {id} {engine}: {ns:.2} ns/packet over {rounds} rounds ({acc} accepted)");
}
