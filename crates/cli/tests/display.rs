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

use common::{corpus, corpus_found, TZ};
use netsift_testkit::{require, Need};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The flags compared, each alone.
const FLAGS: &[&str] = &[
    "-e", "-tttt", "-x", "-X", "-xx", "-XX", "-A", "-tt", "-ttt", "-ttttt", "-t", "-#", "-S",
    "--nano", "-q",
];

/// Flags after which each packet has as many lines as without them: their
/// output is cut into records by the line counts of the run without flags. (The
/// dumps add lines, and -q drops some printers' continuation lines.)
fn same_line_count(flag: &str) -> bool {
    !matches!(flag, "-x" | "-X" | "-xx" | "-XX" | "-A" | "-q")
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
    /// Per link type: captures, and records compared (default agreed).
    per_linktype: std::collections::BTreeMap<String, (usize, usize)>,
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
    if let Ok(r) = netsift_pcapio::open(cap) {
        let mut t = tally.lock().unwrap();
        let e = t.per_linktype.entry(r.linktype().to_string()).or_default();
        e.0 += 1;
        e.1 += agree.iter().filter(|a| **a).count();
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
                t.mismatches.push(m);
            }
        }
    }
}

/// A pcap file of link type `linktype` holding `frames`, time stamps 0.25 s
/// apart across the 2024 change to daylight saving time in New York.
fn pcap(path: &Path, linktype: u32, frames: &[Vec<u8>]) {
    let mut b = Vec::new();
    for v in [0xa1b2_c3d4u32, 0x0004_0002, 0, 0, 262_144, linktype] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    for (i, f) in frames.iter().enumerate() {
        let t = 1_710_053_999_500_000u64 + i as u64 * 250_000;
        for v in [(t / 1_000_000) as u32, (t % 1_000_000) as u32] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        // The last frame of each file is cut to 30 bytes (from 60 on the wire).
        let cap = if i + 1 == frames.len() {
            f.len().min(30)
        } else {
            f.len()
        };
        for v in [cap as u32, f.len() as u32] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&f[..cap]);
    }
    std::fs::write(path, b).unwrap();
}

/// An IPv4 packet: UDP with `payload` (proto 17) or a TCP SYN (proto 6).
fn ipv4(proto: u8, payload: &[u8]) -> Vec<u8> {
    let l4: Vec<u8> = if proto == 6 {
        let mut t = vec![0u8; 20];
        t[..4].copy_from_slice(&[0x04, 0xd2, 0x00, 0x50]);
        t[4..8].copy_from_slice(&1000u32.to_be_bytes());
        t[12] = 0x50;
        t[13] = 0x02;
        t[14..16].copy_from_slice(&512u16.to_be_bytes());
        t
    } else {
        let mut u = vec![0x27, 0x0f, 0x27, 0x10, 0, 0, 0, 0];
        u[4..6].copy_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
        u.extend_from_slice(payload);
        u
    };
    let mut ip = vec![
        0x45, 0, 0, 0, 0, 1, 0, 0, 64, proto, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
    ];
    ip[2..4].copy_from_slice(&((20 + l4.len()) as u16).to_be_bytes());
    ip.extend_from_slice(&l4);
    ip
}

/// Captures of the link types and headers the corpus lacks: LINUX_SLL2 (with an
/// 802.1Q tag inside), LOOP, SLL with a tag, Ethernet with QinQ tags and with
/// 802.3 LLC/SNAP; each ends with a frame cut short.
fn synthetic(dir: &Path) -> Vec<PathBuf> {
    let text = b"GET / HTTP/1.0\r\nHost: x\r\n\r\n\x01\x7f";
    let udp = ipv4(17, text);
    let syn = ipv4(6, &[]);
    let mac = [2u8, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2];
    let cat = |parts: &[&[u8]]| parts.concat();
    let sll2 = |proto: u16| {
        let mut h = proto.to_be_bytes().to_vec();
        // Interface 1, which tcpdump and netsift name from this machine (lo).
        h.extend_from_slice(&[0, 0, 0, 0, 0, 1, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0]);
        h
    };
    let sll = |proto: u16| {
        let mut h = vec![0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0];
        h.extend_from_slice(&proto.to_be_bytes());
        h
    };
    let tag = |vid: u8, inner: u16| {
        let mut t = vec![0, vid];
        t.extend_from_slice(&inner.to_be_bytes());
        t
    };
    let snap = |len: usize| {
        let mut h = (len as u16).to_be_bytes().to_vec();
        h.extend_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00]);
        h
    };
    let files: Vec<(&str, u32, Vec<Vec<u8>>)> = vec![
        (
            "sll2.pcap",
            276,
            vec![
                cat(&[&sll2(0x0800), &udp]),
                cat(&[&sll2(0x8100), &tag(7, 0x0800), &syn]),
                cat(&[&sll2(0x0800), &udp]),
            ],
        ),
        (
            "loop.pcap",
            108,
            vec![cat(&[&[0, 0, 0, 2], &udp]), cat(&[&[0, 0, 0, 2], &syn])],
        ),
        (
            "null.pcap",
            0,
            vec![cat(&[&[2, 0, 0, 0], &udp]), cat(&[&[2, 0, 0, 0], &syn])],
        ),
        (
            "sll-vlan.pcap",
            113,
            vec![
                cat(&[&sll(0x8100), &tag(9, 0x0800), &udp]),
                cat(&[&sll(0x0800), &syn]),
            ],
        ),
        (
            "ether-tags.pcap",
            1,
            vec![
                cat(&[&mac, &[0x88, 0xa8], &tag(5, 0x8100), &tag(6, 0x0800), &udp]),
                cat(&[&mac, &snap(8 + udp.len()), &udp]),
                cat(&[&mac, &[0x81, 0x00], &tag(3, 0x0800), &syn]),
                cat(&[&mac, &[0x08, 0x00], &udp]),
            ],
        ),
    ];
    files
        .into_iter()
        .map(|(name, lt, frames)| {
            let p = dir.join(name);
            pcap(&p, lt, &frames);
            p
        })
        .collect()
}

#[test]
fn display_flags_print_what_tcpdump_prints() {
    let corpus = corpus();
    require!(corpus_found(&corpus), Need::Command("tcpdump"));
    let corpus = corpus.unwrap();
    let made = tempfile::tempdir().unwrap();
    let mut caps = synthetic(made.path());
    caps.extend(captures(&corpus));
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
    for (lt, (files, n)) in &t.per_linktype {
        println!("  link type {lt:<11} {n:>6} records of {files} captures compared");
    }
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

/// `-v` and `-v -q` reach the summarizer: on captures whose protocols its verbose
/// output covers (the per-protocol parity is `crates/print/tests/
/// tcpdump_verbose_quiet.rs`), every line equals tcpdump's, continuation lines
/// included.
#[test]
fn verbose_output_is_tcpdumps() {
    let corpus = corpus();
    require!(corpus_found(&corpus), Need::Command("tcpdump"));
    let corpus = corpus.unwrap();
    let netsift = env!("CARGO_BIN_EXE_netsift");
    let mut compared = 0;
    for name in [
        "dns_tcp.pcap",
        "dns_udp.pcap",
        "dnssec.pcap",
        "edns-opts.pcap",
        "bigtcp-ipv4.pcap",
        "bigtcp-ipv6.pcap",
        "ipv6-bad-version.pcap",
        "tcp_header_heapoverflow.pcap",
    ] {
        let cap = corpus.join("pcaps/tcpdump").join(name);
        if !cap.exists() {
            continue;
        }
        for flags in [&["-v"][..], &["-v", "-q"]] {
            let run = |prog: &str| {
                let o = Command::new(prog)
                    .env("TZ", TZ)
                    .args(["-n", "-r"])
                    .arg(&cap)
                    .args(flags)
                    .output()
                    .unwrap();
                String::from_utf8_lossy(&o.stdout).into_owned()
            };
            let (ours, theirs) = (run(netsift), run("tcpdump"));
            assert!(!theirs.is_empty(), "{name}: tcpdump printed nothing");
            assert_eq!(ours, theirs, "{name} {flags:?}");
            compared += theirs.lines().count();
        }
    }
    eprintln!("verbose: {compared} lines equal to tcpdump's");
    assert!(compared > 0);
}
