//! Compile time against expression size, netsift beside libpcap's pcap_compile (with
//! optimisation, as tcpdump runs it), in one process.
//!
//! Three shapes, each at growing sizes n (the number of primitives):
//! * `or-chain`:  `host 10.0.0.1 or host 10.0.0.2 or ...`
//! * `and-of-ors`: `(host A1 or port P1) and (host A2 or port P2) and ...`, whose
//!   disjunctive normal form has 2^(n/2) terms (netsift switches to GROUP instructions)
//! * `nested`: `host A1 and (port P1 or (host A2 and (port P2 or ...)))`
//!
//! Usage: `cargo run --release -p netsift-conformance --bin compile_bench [REPS [SHAPE]]`.
//! Prints medians with min/max over REPS runs (default 15) and the ratio to libpcap.

#![forbid(unsafe_code)]

use netsift_wire::LinkType;
use std::time::{Duration, Instant};

fn or_chain(n: usize) -> String {
    (0..n)
        .map(|i| format!("host 10.0.{}.{}", i / 250, i % 250 + 1))
        .collect::<Vec<_>>()
        .join(" or ")
}

fn and_of_ors(n: usize) -> String {
    (0..n / 2)
        .map(|i| {
            format!(
                "(host 10.1.{}.{} or port {})",
                i / 250,
                i % 250 + 1,
                1000 + i
            )
        })
        .collect::<Vec<_>>()
        .join(" and ")
}

fn nested(n: usize) -> String {
    let k = n / 2;
    let mut s = String::new();
    for i in 0..k {
        s.push_str(&format!(
            "host 10.2.{}.{} and (port {} or (",
            i / 250,
            i % 250 + 1,
            2000 + i
        ));
    }
    s.push_str("tcp");
    for _ in 0..k {
        s.push_str("))");
    }
    s
}

fn time<F: FnMut() -> bool>(reps: usize, mut f: F) -> Option<(Duration, Duration, Duration)> {
    let mut v = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        if !f() {
            return None;
        }
        v.push(t.elapsed());
    }
    v.sort();
    Some((v[v.len() / 2], v[0], v[v.len() - 1]))
}

fn fmt(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(15);
    println!("# compile_bench: {reps} repetitions, EN10MB; median [min, max]");
    println!("| shape | n | bytes | netsift | libpcap (pcap_compile -O) | libpcap/netsift | netsift passes/insns |");
    println!("|---|---|---|---|---|---|---|");
    type Shape = (&'static str, fn(usize) -> String);
    let shapes: [Shape; 3] = [
        ("or-chain", or_chain),
        ("and-of-ors", and_of_ors),
        ("nested", nested),
    ];
    // An optional second argument runs one shape only.
    let only = std::env::args().nth(2);
    for (name, gen) in shapes {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        for n in [8usize, 16, 32, 64, 128, 256, 512, 1024] {
            let text = gen(n);
            let ns = time(reps, || {
                netsift_pcapc::compile(&text, LinkType::EN10MB).is_ok()
            });
            let set = netsift_pcapc::compile(&text, LinkType::EN10MB);
            // libpcap's optimiser is superlinear on these shapes; stop timing it when a
            // single compile passes 2 s, and say so.
            let t0 = Instant::now();
            let lp_ok = netsift_oracle::Filter::compile(LinkType::EN10MB, &text).is_ok();
            let lp_once = t0.elapsed();
            let lp = if lp_ok && lp_once < Duration::from_secs(2) {
                time(reps.min(5), || {
                    netsift_oracle::Filter::compile(LinkType::EN10MB, &text).is_ok()
                })
            } else {
                None
            };
            let ns_s = match ns {
                Some((m, lo, hi)) => format!("{} [{}, {}]", fmt(m), fmt(lo), fmt(hi)),
                None => format!(
                    "error: {}",
                    set.as_ref()
                        .err()
                        .map(|e| e.message().to_string())
                        .unwrap_or_default()
                ),
            };
            let lp_s = match (lp, lp_ok) {
                (Some((m, lo, hi)), _) => format!("{} [{}, {}]", fmt(m), fmt(lo), fmt(hi)),
                (None, true) => format!("> 2 s (one run: {})", fmt(lp_once)),
                (None, false) => "refused".to_string(),
            };
            let ratio = match (ns, lp) {
                (Some((a, _, _)), Some((b, _, _))) => {
                    format!("{:.1}x", b.as_secs_f64() / a.as_secs_f64())
                }
                _ => "-".into(),
            };
            let size = match &set {
                Ok(s) => format!("{}/{}", s.passes().len(), s.instruction_count()),
                Err(_) => "-".into(),
            };
            println!(
                "| {name} | {n} | {} | {ns_s} | {lp_s} | {ratio} | {size} |",
                text.len()
            );
        }
    }
}
