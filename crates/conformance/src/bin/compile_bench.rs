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
//!
//! With `large` as SHAPE it times long disjunctions instead (netsift's SET form,
//! `netsift_pcapc::large`) at 1,000, 10,000 and 100,000 terms: distinct hosts,
//! identical hosts, ports, /24 nets, and `(host X and port P)` pairs. libpcap runs once
//! per case in a child process (this binary again) that is killed after
//! `NETSIFT_LIBPCAP_TIMEOUT` seconds (default 120), since it needs a minute for 1,000
//! distinct hosts and does not return in any reasonable time at 10,000.

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

/// A shape of `large` mode: its name and term `i`.
type LargeShape = (&'static str, fn(u32) -> String);

/// The long disjunctions of `large` mode.
fn large_shapes() -> [LargeShape; 5] {
    fn dotted(i: u32) -> String {
        format!("10.{}.{}.{}", i >> 16 & 255, i >> 8 & 255, i & 255)
    }
    [
        ("distinct hosts", |i| format!("host {}", dotted(i + 1))),
        ("identical hosts", |_| "host 10.0.0.1".to_string()),
        // 100,000 terms hold 65,536 distinct ports.
        ("ports", |i| format!("port {}", i % 65_536)),
        ("nets /24", |i| {
            format!("net {}.{}.{}.0/24", 10 + (i >> 16), i >> 8 & 255, i & 255)
        }),
        ("host and port pairs", |i| {
            format!("(host {} and port {})", dotted(i + 1), 1 + i % 65_535)
        }),
    ]
}

/// Compiles the file named by the argument with libpcap and exits: `large` mode's
/// child, so that a compile that takes minutes can be killed.
fn libpcap_child(path: &str) -> ! {
    let text = std::fs::read_to_string(path).expect("expression file");
    match netsift_oracle::Filter::compile(LinkType::EN10MB, &text) {
        Ok(_) => std::process::exit(0),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    }
}

/// One libpcap compile of `text` in a child process, killed after `limit`: the time,
/// libpcap's error, how the child died, or "did not finish".
fn libpcap_once(text: &str, limit: Duration) -> String {
    use std::os::unix::process::ExitStatusExt;
    let path = std::env::temp_dir().join(format!("compile_bench_{}.txt", std::process::id()));
    std::fs::write(&path, text).expect("temp file");
    let exe = std::env::current_exe().expect("own path");
    let t0 = Instant::now();
    let mut child = std::process::Command::new(exe)
        .arg("--libpcap-child")
        .arg(&path)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("child");
    let out = loop {
        if let Some(st) = child.try_wait().expect("wait") {
            let took = fmt(t0.elapsed());
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                std::io::Read::read_to_string(&mut e, &mut err).ok();
            }
            break match (st.success(), st.signal()) {
                (true, _) => took,
                (false, Some(sig)) => format!("crashed (signal {sig}) after {took}"),
                (false, None) => format!("refused after {took}: {}", err.trim()),
            };
        }
        if t0.elapsed() > limit {
            child.kill().ok();
            child.wait().ok();
            break format!("did not finish in {} s", limit.as_secs());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    std::fs::remove_file(&path).ok();
    out
}

fn large(reps: usize) {
    let limit = Duration::from_secs(
        std::env::var("NETSIFT_LIBPCAP_TIMEOUT")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(120),
    );
    println!("# compile_bench large: {reps} repetitions, EN10MB; median [min, max]");
    println!("| shape | terms | bytes | netsift | netsift passes/insns, table keys | libpcap (one run) |");
    println!("|---|---|---|---|---|---|");
    for (name, term) in large_shapes() {
        for n in [1_000u32, 10_000, 100_000] {
            let text = (0..n).map(term).collect::<Vec<_>>().join(" or ");
            let set = netsift_pcapc::compile(&text, LinkType::EN10MB);
            let ns = match &set {
                Ok(_) => {
                    let (m, lo, hi) = time(reps, || {
                        netsift_pcapc::compile(&text, LinkType::EN10MB).is_ok()
                    })
                    .expect("compiled once already");
                    format!("{} [{}, {}]", fmt(m), fmt(lo), fmt(hi))
                }
                Err(e) => format!("error: {}", e.message()),
            };
            let size = match &set {
                Ok(s) => format!(
                    "{}/{}, {}",
                    s.passes().len(),
                    s.instruction_count(),
                    s.tables().iter().map(|t| t.len()).sum::<usize>()
                ),
                Err(_) => "-".into(),
            };
            let lp = libpcap_once(&text, limit);
            println!("| {name} | {n} | {} | {ns} | {size} | {lp} |", text.len());
        }
    }
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--libpcap-child") {
        libpcap_child(&std::env::args().nth(2).expect("file"));
    }
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(15);
    if std::env::args().nth(2).as_deref() == Some("large") {
        large(reps);
        return;
    }
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
