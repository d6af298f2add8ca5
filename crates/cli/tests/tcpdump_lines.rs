//! The printing parity measure (issue 27, part 7): for each of tcpdump's display
//! flag sets, the share of the lines `tcpdump -r F` prints that `netsift -r F`
//! prints identically, over every capture of tcpdump's own test suite in the shared
//! corpus, and the most frequent kinds of line that differ, so that the next
//! printers can be chosen by count.
//!
//! Lines are aligned per file with a Myers diff (as difflib aligns them, though
//! Myers finds the longest common subsequence where difflib's heuristic may find
//! fewer); a line of tcpdump's counts as matched when the alignment pairs it with
//! an equal line of netsift's. Both run with `TZ=UTC`. Without `-n` tcpdump would
//! ask DNS for every address, so it runs in a network namespace of its own
//! (`unshare -n`): it then finds names only in the hosts file, which is what
//! netsift reads.
//!
//! It reports and does not fail on a share (the targets are 95% of `-nn`'s lines
//! and 90% of `-v`'s); it fails when netsift dies of a signal or panics on a
//! capture. `NETSIFT_PARITY_EVERY=K` measures every K-th capture only;
//! `NETSIFT_PARITY_FLAGS="-nn -v"` one flag set only.

mod common;

use common::{corpus, corpus_found};
use netsift_testkit::{require, Need};
use similar::{Algorithm, DiffOp};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The flag sets measured: `-nn` with each display flag, and no `-n` at all.
const FLAG_SETS: &[&str] = &[
    "-nn", "", "-nn -v", "-nn -vv", "-nn -e", "-nn -q", "-nn -x", "-nn -X", "-nn -A",
];

/// How many of the most frequent kinds of differing line get an example.
const EXAMPLES: usize = 8;

/// What one flag set came to over the corpus.
#[derive(Default)]
struct Tally {
    lines: usize,
    matched: usize,
    files: usize,
    files_equal: usize,
    /// Kind of an unmatched tcpdump line (its protocol word) → count and the
    /// first such line seen, with its capture.
    kinds: HashMap<String, (usize, String)>,
    /// netsift died or panicked: capture and what it said.
    crashes: Vec<String>,
    /// netsift refused a file tcpdump read, or the reverse.
    refusals: Vec<String>,
}

/// The word that names what a line of tcpdump's is about: after the time stamp,
/// the first word, or, for an IP packet, the first word after its addresses
/// (`UDP,` → `UDP`, `Flags` → `TCP`); a continuation line's first word, with the
/// dump lines of `-x`/`-X` as `hex` and `-A`'s as their own.
fn kind(line: &str) -> String {
    if line.starts_with('\t') && line.trim_start().starts_with("0x") {
        return "hex".into();
    }
    if line.starts_with(char::is_whitespace) {
        let w = line.split_whitespace().next().unwrap_or("");
        return format!("(cont) {}", w.trim_end_matches([',', ':']));
    }
    // HH:MM:SS.ffffff first on a summary line; anything else is -A's text.
    let mut words = line.split(' ');
    let first = words.next().unwrap_or("");
    if first.len() != 15 || first.as_bytes().get(2) != Some(&b':') {
        return "(text)".into();
    }
    let rest: Vec<&str> = words.collect();
    let proto = rest.first().copied().unwrap_or("");
    let proto = if matches!(proto, "IP" | "IP6") {
        // The first word after the first "ADDR > ADDR:" (some printers start
        // with a space).
        match rest.iter().position(|w| w.ends_with(':')) {
            Some(i) => rest[i + 1..]
                .iter()
                .find(|w| !w.is_empty())
                .copied()
                .unwrap_or(""),
            None => proto,
        }
    } else {
        proto
    };
    let proto = proto.trim_end_matches([',', ':']);
    match proto {
        "Flags" => "TCP".into(),
        "" => "(no word)".into(),
        p if p
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'+' || b == b'*') =>
        {
            "DNS-like (id)".into()
        }
        p => p.into(),
    }
}

fn run(prog: &str, sandboxed: bool, flags: &str, cap: &Path) -> Output {
    let mut cmd = if sandboxed {
        let mut c = Command::new("unshare");
        c.arg("-n").arg(prog);
        c
    } else {
        Command::new(prog)
    };
    cmd.env("TZ", "UTC")
        .args(flags.split_whitespace())
        .arg("-r")
        .arg(cap)
        .output()
        .expect("spawn")
}

fn lines(out: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(out)
        .lines()
        .map(str::to_string)
        .collect()
}

fn measure(netsift: &str, flags: &str, caps: &[PathBuf], sandbox: bool) -> Tally {
    let next = AtomicUsize::new(0);
    let tally = Mutex::new(Tally::default());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(cap) = caps.get(i) else { break };
                let sandboxed = sandbox && !flags.contains("-n");
                let theirs = run("tcpdump", sandboxed, flags, cap);
                let ours = run(netsift, false, flags, cap);
                compare(cap, &theirs, &ours, &tally);
            });
        }
    });
    tally.into_inner().unwrap()
}

fn compare(cap: &Path, theirs: &Output, ours: &Output, tally: &Mutex<Tally>) {
    use std::os::unix::process::ExitStatusExt;
    let name = cap.file_name().unwrap_or_default().to_string_lossy();
    let stderr = String::from_utf8_lossy(&ours.stderr);
    let mut t = tally.lock().unwrap();
    if let Some(sig) = ours.status.signal() {
        t.crashes.push(format!("{name}: killed by signal {sig}"));
    } else if stderr.contains("panicked") {
        let at = stderr
            .lines()
            .find(|l| l.contains("panicked"))
            .unwrap_or("");
        t.crashes.push(format!("{name}: {at}"));
    }
    if ours.status.success() != theirs.status.success() {
        let said = |o: &Output| {
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .last()
                .unwrap_or("")
                .to_string()
        };
        t.refusals.push(format!(
            "{name}: netsift {} ({}), tcpdump {} ({})",
            ours.status,
            said(ours),
            theirs.status,
            said(theirs)
        ));
    }
    let (a, b) = (lines(&theirs.stdout), lines(&ours.stdout));
    let ops = similar::capture_diff_slices(Algorithm::Myers, &a, &b);
    let mut matched = 0;
    let mut unmatched = Vec::new();
    for op in ops {
        match op {
            DiffOp::Equal { len, .. } => matched += len,
            DiffOp::Delete {
                old_index, old_len, ..
            }
            | DiffOp::Replace {
                old_index, old_len, ..
            } => unmatched.extend(old_index..old_index + old_len),
            DiffOp::Insert { .. } => {}
        }
    }
    t.files += 1;
    t.lines += a.len();
    t.matched += matched;
    if a == b {
        t.files_equal += 1;
    }
    for i in unmatched {
        let e = t
            .kinds
            .entry(kind(&a[i]))
            .or_insert_with(|| (0, format!("{name}: {}", a[i])));
        e.0 += 1;
    }
}

fn report(flags: &str, t: &Tally) {
    let flags = if flags.is_empty() { "(none)" } else { flags };
    println!(
        "parity {flags:<8} {:>6} of {:>6} tcpdump lines equal ({:5.1}%), {} of {} files whole",
        t.matched,
        t.lines,
        100.0 * t.matched as f64 / t.lines.max(1) as f64,
        t.files_equal,
        t.files
    );
    let mut kinds: Vec<(&String, &(usize, String))> = t.kinds.iter().collect();
    kinds.sort_by(|x, y| y.1 .0.cmp(&x.1 .0).then(x.0.cmp(y.0)));
    let top: Vec<String> = kinds
        .iter()
        .take(20)
        .map(|(k, (n, _))| format!("{k} {n}"))
        .collect();
    println!("  differing lines by kind: {}", top.join(", "));
    for (k, (_, example)) in kinds.iter().take(EXAMPLES) {
        let cut: String = example.chars().take(140).collect();
        println!("    {k}: {cut}");
    }
    if !t.refusals.is_empty() {
        println!(
            "  {} files where one program failed and the other did not, e.g. {}",
            t.refusals.len(),
            t.refusals[0]
        );
    }
}

#[test]
fn share_of_tcpdump_lines_printed_identically() {
    let corpus = corpus();
    require!(Need::Command("tcpdump"), corpus_found(&corpus));
    let dir = corpus.unwrap().join("pcaps/tcpdump");
    let every: usize = std::env::var("NETSIFT_PARITY_EVERY")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1);
    let mut caps: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    caps.sort();
    let caps: Vec<PathBuf> = caps.into_iter().step_by(every).collect();
    // tcpdump without -n resolves names through DNS: without a network of its own
    // it finds them in the hosts file only, as netsift does.
    let sandbox = Command::new("unshare")
        .args(["-n", "true"])
        .status()
        .is_ok_and(|s| s.success());
    let only = std::env::var("NETSIFT_PARITY_FLAGS").ok();
    let netsift = env!("CARGO_BIN_EXE_netsift");
    println!(
        "parity: {} captures of {} (every {every}), netsift against tcpdump, TZ=UTC",
        caps.len(),
        dir.display()
    );
    let mut crashes = Vec::new();
    for flags in FLAG_SETS {
        if only.as_deref().is_some_and(|o| o != *flags) {
            continue;
        }
        if !sandbox && !flags.contains("-n") {
            println!("parity {flags:?}: skipped (unshare -n fails: tcpdump would ask DNS)");
            continue;
        }
        let t = measure(netsift, flags, &caps, sandbox);
        report(flags, &t);
        crashes.extend(t.crashes.iter().map(|c| format!("{flags}: {c}")));
    }
    assert!(
        crashes.is_empty(),
        "netsift crashed on {} runs:\n{}",
        crashes.len(),
        crashes.join("\n")
    );
}

/// Captures whose names differ from their numbers without `-n`: ports (ssh,
/// domain, bootps), MAC vendors (ARP, BOOTP, loopback), protocol names (NARP),
/// ICMP's port unreachable, host names of 127.0.0.1.
const NAMED: &[&str] = &[
    "ssh.pcap",
    "dns_udp.pcap",
    "dhcp-rfc3004.pcap",
    "arp-too-long-tha.pcap",
    "loopback.pcap",
    "pb_nhrp_1.pcap",
    "icmp-cksum-oobr-1.pcap",
    "tcp-handshake-nano.pcap",
];

/// Without `-n`, netsift names what tcpdump names (with the hosts file only):
/// on every capture (of the named ones and every fifth of the rest) whose `-nn`
/// lines netsift prints exactly, the lines without `-n` are exactly tcpdump's.
#[test]
fn names_without_n_as_tcpdump() {
    let corpus = corpus();
    let sandbox = Command::new("unshare")
        .args(["-n", "true"])
        .status()
        .is_ok_and(|s| s.success());
    require!(
        Need::Command("tcpdump"),
        corpus_found(&corpus),
        Need::That("unshare -n (tcpdump without DNS)", sandbox)
    );
    let dir = corpus.unwrap().join("pcaps/tcpdump");
    let mut caps: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    caps.sort();
    let mut caps: Vec<PathBuf> = caps.into_iter().step_by(5).collect();
    caps.extend(NAMED.iter().map(|n| dir.join(n)).filter(|p| p.exists()));
    let netsift = env!("CARGO_BIN_EXE_netsift");
    let (mut compared, mut named, mut differ) = (0, 0, Vec::new());
    for cap in &caps {
        let numeric = run("tcpdump", false, "-nn", cap);
        if numeric.stdout != run(netsift, false, "-nn", cap).stdout {
            continue;
        }
        let theirs = run("tcpdump", true, "", cap);
        let ours = run(netsift, false, "", cap);
        compared += 1;
        named += usize::from(theirs.stdout != numeric.stdout);
        if theirs.stdout != ours.stdout {
            let (a, b) = (lines(&theirs.stdout), lines(&ours.stdout));
            let at = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(0);
            differ.push(format!(
                "{}:\n  tcpdump: {}\n  netsift: {}",
                cap.display(),
                a.get(at).map_or("(none)", String::as_str),
                b.get(at).map_or("(none)", String::as_str)
            ));
        }
    }
    println!(
        "names: {compared} captures compared without -n, {named} of them with names, {} differ",
        differ.len()
    );
    assert!(named >= 5, "too few captures with names compared: {named}");
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

/// tcpdump's default print (the hex and ASCII of a payload no printer decodes:
/// unknown EtherTypes, encrypted MACsec), left out with -q and -x/-X but not -A,
/// prints as tcpdump's on captures that have it.
#[test]
fn default_print_as_tcpdump() {
    let corpus = corpus();
    require!(Need::Command("tcpdump"), corpus_found(&corpus));
    let dir = corpus.unwrap().join("pcaps/tcpdump");
    let netsift = env!("CARGO_BIN_EXE_netsift");
    let mut differ = Vec::new();
    let mut dumped = 0;
    for name in [
        "erspan-type-i-4.pcap",
        "gre-heapoverflow-1.pcap",
        "stp-heapoverflow-1.pcap",
        "macsec-encrypted.pcap",
        "macsec-changed.pcap",
        "decnet-oobr.pcap",
    ] {
        let cap = dir.join(name);
        for flags in ["-nn", "-nn -e", "-nn -q", "-nn -x", "-nn -X", "-nn -A"] {
            let theirs = run("tcpdump", false, flags, &cap);
            let ours = run(netsift, false, flags, &cap);
            let text = String::from_utf8_lossy(&theirs.stdout);
            if flags == "-nn" && text.contains("\n\t0x0000:  ") {
                dumped += 1;
            }
            if theirs.stdout != ours.stdout {
                differ.push(format!("{name} {flags}"));
            }
        }
    }
    assert!(dumped >= 5, "only {dumped} captures with a default print");
    assert!(differ.is_empty(), "differ from tcpdump: {differ:?}");
}

#[test]
fn kinds_of_lines() {
    for (line, want) in [
        (
            "12:00:00.000001 IP 10.0.0.1.69 > 10.0.0.2.1: TFTP, length 14",
            "TFTP",
        ),
        (
            "12:00:00.000001 IP 10.0.0.1.1 > 10.0.0.2.2: Flags [S], seq 1",
            "TCP",
        ),
        ("12:00:00.000001 ARP, Request who-has 10.0.0.1", "ARP"),
        ("\t0x0000:  4500 0030", "hex"),
        ("12:00:00.000001  [|arp]", "(no word)"),
        (
            "12:00:00.000001 IP 1.1.1.1.1 > 1.1.1.2.7000:  rx data",
            "rx",
        ),
        (
            "12:00:00.000001 IP 10.0.0.1.1 > 10.0.0.2.53: 17153+ A? a. (32)",
            "DNS-like (id)",
        ),
        ("\tOption 53, length 1: Discover", "(cont) Option"),
        ("E..0..@.", "(text)"),
    ] {
        assert_eq!(kind(line), want, "{line:?}");
    }
}
