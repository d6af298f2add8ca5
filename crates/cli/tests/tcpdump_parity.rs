//! End to end: `netsift -r X -w Y EXPR` must write exactly the file `tcpdump -r X -w Y
//! EXPR` writes, and must fail exactly when tcpdump fails, over the corpus captures
//! and filter lists in ../shared/corpus (every expression on two captures of its link
//! type, every capture under a few expressions). Without the corpus (a user's clone)
//! it runs on the sample capture and says so; in CI the corpus must be there.

mod common;

use common::corpus;
use netsift_testkit::{require, Need};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Runs `prog -r cap -w out expr`; returns (success, file bytes).
fn run(prog: &str, cap: &Path, out: &Path, expr: &str) -> (bool, Vec<u8>) {
    let _ = std::fs::remove_file(out);
    let mut cmd = Command::new(prog);
    cmd.arg("-r").arg(cap).arg("-w").arg(out);
    if !expr.is_empty() {
        cmd.arg(expr);
    }
    let st = cmd.output().expect("spawn");
    let ok = st.status.success();
    (
        ok,
        if ok {
            std::fs::read(out).unwrap_or_default()
        } else {
            Vec::new()
        },
    )
}

struct Case {
    cap: PathBuf,
    expr: String,
}

fn cases(corpus: &Path) -> Vec<Case> {
    // Captures grouped by link type name, as netsift's reader sees them.
    let mut by_type: std::collections::BTreeMap<String, Vec<PathBuf>> = Default::default();
    for dir in ["pcaps/tcpdump", "pcaps/libpcap"] {
        let Ok(rd) = std::fs::read_dir(corpus.join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for f in files {
            if let Ok(r) = netsift_pcapio::open(&f) {
                let lt = r.linktype();
                if lt.is_supported() {
                    by_type.entry(lt.to_string()).or_default().push(f);
                }
            }
        }
    }
    let mut out = Vec::new();
    for (lt, caps) in &by_type {
        let list = corpus.join(format!("filters/accept-{lt}.txt"));
        let exprs: Vec<String> = std::fs::read_to_string(&list)
            .map(|t| {
                t.lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        for (i, e) in exprs.iter().enumerate() {
            for k in 0..2 {
                out.push(Case {
                    cap: caps[(2 * i + k) % caps.len()].clone(),
                    expr: e.clone(),
                });
            }
        }
        for c in caps {
            for e in ["", "ip", "tcp or udp", "not ip6 and len > 100"] {
                out.push(Case {
                    cap: c.clone(),
                    expr: e.to_string(),
                });
            }
        }
    }
    out
}

#[test]
fn writes_what_tcpdump_writes() {
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true");
    require!(Need::Command("tcpdump"));
    let cases = match corpus() {
        Some(c) => cases(&c),
        None => {
            assert!(
                !in_ci,
                "corpus not found beside the repository: CI must use it"
            );
            println!("corpus not found; comparing on samples/sample.pcap only");
            let cap = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/sample.pcap");
            [
                "",
                "tcp port 80",
                "udp port 53 or icmp",
                "vlan and ip",
                "not arp",
                "ether broadcast",
            ]
            .iter()
            .map(|e| Case {
                cap: cap.clone(),
                expr: e.to_string(),
            })
            .collect()
        }
    };
    let netsift = env!("CARGO_BIN_EXE_netsift");
    let tmp = std::env::temp_dir().join(format!("netsift-parity-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let agreed_refusals = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for t in 0..2 {
            let (cases, next, failures, tmp, agreed) =
                (&cases, &next, &failures, &tmp, &agreed_refusals);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(c) = cases.get(i) else { break };
                let a = tmp.join(format!("n{t}.pcap"));
                let b = tmp.join(format!("t{t}.pcap"));
                let (nok, nbytes) = run(netsift, &c.cap, &a, &c.expr);
                let (tok, tbytes) = run("tcpdump", &c.cap, &b, &c.expr);
                let verdict = match (nok, tok) {
                    (true, true) if nbytes == tbytes => None,
                    (true, true) => Some(format!(
                        "output differs ({} vs {} bytes)",
                        nbytes.len(),
                        tbytes.len()
                    )),
                    (false, false) => {
                        agreed.fetch_add(1, Ordering::Relaxed);
                        None
                    }
                    (true, false) => Some("tcpdump fails, netsift succeeds".to_string()),
                    (false, true) => Some("netsift fails, tcpdump succeeds".to_string()),
                };
                if let Some(v) = verdict {
                    failures
                        .lock()
                        .unwrap()
                        .push(format!("{} {:?}: {v}", c.cap.display(), c.expr));
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&tmp);
    let failures = failures.into_inner().unwrap();
    println!(
        "cli parity: {} (capture, expression) runs compared with tcpdump, {} refused by both, {} differences",
        cases.len(),
        agreed_refusals.load(Ordering::Relaxed),
        failures.len()
    );
    for f in failures.iter().take(40) {
        println!("  {f}");
    }
    assert!(
        failures.is_empty(),
        "{} runs differ from tcpdump",
        failures.len()
    );
}
