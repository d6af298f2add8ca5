//! The display flags against tcpdump 4.99 on the shared corpus: for every capture
//! of a supported link type, `netsift -n -r F FLAG` must print what `tcpdump -n -r F
//! FLAG` prints, record for record, for every packet whose record without the flag
//! (`-n -r F`) is already the same in both. A record is a packet's line and the
//! lines after it up to the next packet (continuation and dump lines).
//!
//! Both run with TZ=America/New_York, so local time (and its daylight saving
//! changes) is exercised. Skipped with a message without tcpdump or the corpus,
//! an error then under CI=true.
//!
//! `cargo test --release -p netsift --test display -- --nocapture` prints the
//! figures per flag.

mod common;

use common::{corpus, have_tcpdump, TZ};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The flags compared, each alone.
const FLAGS: &[&str] = &[
    "-e", "-tttt", "-x", "-X", "-xx", "-XX", "-A", "-tt", "-ttt", "-ttttt", "-t", "-#", "-S",
    "--nano",
];

/// Captures with a packet cut short inside a higher layer whose printer in
/// tcpdump catches the truncation itself (it prints `[|proto]` and returns)
/// rather than ending with a `longjmp`: tcpdump's dump then leaves out the
/// link-level header, while netsift, which cannot tell the two apart from the
/// line, dumps the whole packet as after a `longjmp` (the more common case: 99
/// packets of the corpus against these 16). Only -x, -X and -A are affected; the
/// cure is for the summarizer to report which of the two ended the line.
const CAUGHT_TRUNCATION: &[&str] = &[
    "bigtcp-ipv6-geneve-ipv4.pcap",
    "bigtcp-ipv6-geneve-ipv6.pcap",
    "bigtcp-ipv6-vxlan-ipv4.pcap",
    "bigtcp-ipv6-vxlan-ipv6.pcap",
    "bigtcp-ipv6.pcap",
    "dns_fwdptr.pcap",
    "esp_truncated.pcap",
    "gre-heapoverflow-2.pcap",
    "heapoverflow-tcp_print.pcap",
    "tcp-auth-heapoverflow.pcap",
    "tcp_header_heapoverflow.pcap",
    "udp-length-heapoverflow.pcap",
    "icmp-rfc8335-missing-bytes.pcap",
    "ipv4_invalid_length.pcap",
    "ipv6_39_byte_header.pcap",
    "ipv6_invalid_length.pcap",
];

/// Differences of the summary line under `-e` itself (crates/wire), not of the
/// command line: with -e, tcpdump's GRE printer adds `proto PPP (0x880b)` and
/// counts the PPP length otherwise.
const SUMMARY_E_GAPS: &[&str] = &["pptp.pcap"];

/// Flags after which each packet has as many lines as without them: their
/// output is cut into records by the line counts of the run without flags.
fn same_line_count(flag: &str) -> bool {
    !matches!(flag, "-x" | "-X" | "-xx" | "-XX" | "-A")
}

/// `prog -n -r cap [flag]`'s stdout lines (TZ fixed).
fn lines(prog: &str, cap: &Path, flag: Option<&str>) -> Vec<String> {
    let mut cmd = Command::new(prog);
    cmd.env("TZ", TZ).arg("-n").arg("-r").arg(cap);
    cmd.args(flag);
    let out = cmd.output().expect("spawn");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// Whether `s` starts with the default time stamp `HH:MM:SS.frac `.
fn starts_with_time(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if b.len() < 10 || !(digits(0..2) && b[2] == b':' && digits(3..5) && b[5] == b':') {
        return false;
    }
    if !(digits(6..8) && b[8] == b'.') {
        return false;
    }
    let n = b[9..].iter().take_while(|c| c.is_ascii_digit()).count();
    n > 0 && b.get(9 + n) == Some(&b' ')
}

/// Lines cut into records at each line that starts with a time stamp.
fn records_by_time(lines: &[String]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    for l in lines {
        match out.last_mut() {
            Some(r) if !starts_with_time(l) => r.push(l.clone()),
            _ => out.push(vec![l.clone()]),
        }
    }
    out
}

/// Lines cut into records of the given sizes (what is left over is one more).
fn records_by_count(lines: &[String], sizes: &[usize]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut at = 0;
    for &n in sizes {
        let end = (at + n).min(lines.len());
        out.push(lines[at..end].to_vec());
        at = end;
    }
    if at < lines.len() {
        out.push(lines[at..].to_vec());
    }
    out
}

fn captures(corpus: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["pcaps/tcpdump", "pcaps/libpcap"] {
        let Ok(rd) = std::fs::read_dir(corpus.join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        out.extend(
            files
                .into_iter()
                .filter(|f| netsift_pcapio::open(f).is_ok_and(|r| r.linktype().is_supported())),
        );
    }
    out
}

#[derive(Default)]
struct Tally {
    /// Per flag: records compared (default agreed) and records equal.
    per_flag: Vec<(usize, usize)>,
    /// Captures whose runs with a flag have another number of records than
    /// without it.
    misaligned: Vec<String>,
    mismatches: Vec<String>,
    /// Differences in the captures of [`CAUGHT_TRUNCATION`].
    known: Vec<String>,
}

/// Compares one capture under every flag.
fn compare(netsift: &str, cap: &Path, tally: &Mutex<Tally>) {
    let ours0 = records_by_time(&lines(netsift, cap, None));
    let theirs0 = records_by_time(&lines("tcpdump", cap, None));
    if ours0.len() != theirs0.len() {
        tally.lock().unwrap().misaligned.push(format!(
            "{}: {} records vs tcpdump's {} without flags",
            cap.display(),
            ours0.len(),
            theirs0.len()
        ));
        return;
    }
    let agree: Vec<bool> = ours0.iter().zip(&theirs0).map(|(a, b)| a == b).collect();
    if !agree.contains(&true) {
        return;
    }
    let sizes = |r: &[Vec<String>]| r.iter().map(Vec::len).collect::<Vec<_>>();
    // NETSIFT_DISPLAY_FLAGS="-x -X" compares only those (a quicker run).
    let only = std::env::var("NETSIFT_DISPLAY_FLAGS").unwrap_or_default();
    for (k, flag) in FLAGS.iter().enumerate() {
        if !only.is_empty() && !only.split_whitespace().any(|f| f == *flag) {
            continue;
        }
        let run = || {
            let (ol, tl) = (
                lines(netsift, cap, Some(flag)),
                lines("tcpdump", cap, Some(flag)),
            );
            if same_line_count(flag) {
                (
                    records_by_count(&ol, &sizes(&ours0)),
                    records_by_count(&tl, &sizes(&theirs0)),
                )
            } else {
                (records_by_time(&ol), records_by_time(&tl))
            }
        };
        let (mut ours, mut theirs) = run();
        if ours != theirs {
            // Once in a while a run on this shared machine prints nothing: try
            // again before counting a difference.
            (ours, theirs) = run();
        }
        let mut t = tally.lock().unwrap();
        if ours.len() != theirs.len() || ours.len() != agree.len() {
            t.misaligned.push(format!(
                "{} {flag}: {} records vs tcpdump's {} ({} without the flag)",
                cap.display(),
                ours.len(),
                theirs.len(),
                agree.len()
            ));
            continue;
        }
        for (i, ((a, b), ok)) in ours.iter().zip(&theirs).zip(&agree).enumerate() {
            if !ok {
                continue;
            }
            t.per_flag[k].0 += 1;
            if a == b {
                t.per_flag[k].1 += 1;
            } else {
                let m = format!(
                    "{} {flag} packet {}:\n    ours: {}\n    tcpd: {}",
                    cap.display(),
                    i + 1,
                    a.join("\n          "),
                    b.join("\n          ")
                );
                let name = cap.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if (CAUGHT_TRUNCATION.contains(&name) && !same_line_count(flag))
                    || (SUMMARY_E_GAPS.contains(&name) && *flag == "-e")
                {
                    t.known.push(m);
                } else {
                    t.mismatches.push(m);
                }
            }
        }
    }
}

#[test]
fn display_flags_print_what_tcpdump_prints() {
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let Some(corpus) = corpus() else {
        assert!(
            !in_ci,
            "corpus not found beside the repository: CI must use it"
        );
        println!("corpus not found; skipping the display-flag comparison");
        return;
    };
    if !have_tcpdump() {
        assert!(
            !in_ci,
            "tcpdump is not installed: CI must compare against it"
        );
        println!("tcpdump not found; skipping the display-flag comparison");
        return;
    }
    let caps = captures(&corpus);
    let netsift = env!("CARGO_BIN_EXE_netsift");
    let tally = Mutex::new(Tally {
        per_flag: vec![(0, 0); FLAGS.len()],
        ..Tally::default()
    });
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(cap) = caps.get(i) else { break };
                compare(netsift, cap, &tally);
            });
        }
    });
    let t = tally.into_inner().unwrap();
    println!(
        "display flags vs tcpdump on {} captures (TZ={TZ}); records whose line without the flag agrees:",
        caps.len()
    );
    for (flag, (n, same)) in FLAGS.iter().zip(&t.per_flag) {
        println!("  {flag:<8} {same:>6}/{n:<6} equal");
    }
    println!(
        "  {} known differences (a truncation tcpdump's printer caught itself; -e in GRE)",
        t.known.len()
    );
    println!("  {} runs with records not aligned", t.misaligned.len());
    for m in t.misaligned.iter().take(20) {
        println!("  misaligned: {m}");
    }
    for m in t.mismatches.iter().take(40) {
        println!("  {m}");
    }
    assert!(
        t.mismatches.is_empty(),
        "{} records differ from tcpdump's",
        t.mismatches.len()
    );
}
