//! Compares the verbose (`SummaryOptions::verbose = 1`) and quiet
//! (`SummaryOptions::quiet`) summaries, and both at once, with `tcpdump -n -v`,
//! `tcpdump -n -q` and `tcpdump -n -v -q` on every capture of the shared corpus
//! whose link types the summarizer reads.
//!
//! The comparison is exact: tcpdump's text after the timestamp with its
//! continuation lines kept (`-v` breaks an IPv4 line after the header fields with
//! `\n    ` and adds `\n\t` lines), hex dumps dropped from both. It covers the
//! packets whose default line already agrees with `tcpdump -n` ("wherever
//! netsift prints the default line"); the others are counted apart, as
//! `tcpdump_agreement` reports them.
//!
//! Packets are grouped by a protocol key: the class of `common::classify` (TCP,
//! UDP, ICMP/ICMPv6, ARP/RARP, other IP, non-IP) and, for TCP and UDP, the first
//! port of the pair that tcpdump dispatches a payload printer on (`TCP/80`); plain
//! `TCP` and `UDP` are segments on no such port. Other IP packets are keyed by IP
//! protocol (`other IP 89`), other frames by EtherType (`non-IP 0x88cc`; plain
//! `non-IP` has none, such as 802.3 frames with LLC), ICMP errors that quote a
//! datagram tcpdump decodes further by what they quote. Every key must agree on
//! every packet in each mode, but for the `NOT_CLAIMED_*` lists, which say why
//! they still differ; the test prints the counts per key and per capture, the
//! first differences of each key, and a note for a listed key that now agrees.
//!
//! `cargo test --release -p netsift-print --test tcpdump_verbose_quiet -- --nocapture`

mod common;

use common::capture::read_capture;
use common::tcpdump::{tcpdump_blocks, tcpdump_records};
use common::{classify_ports, layers, tcpdump_and_corpus, Class};
use netsift_print::{Summarizer, SummaryOptions};
use netsift_wire::LinkType;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The protocol keys whose verbose and quiet lines must equal tcpdump's on every
/// corpus packet whose default line does (`*`: every key but those of the
/// mode's `NOT_CLAIMED_*` lists).
const CLAIMED_VERBOSE: &[&str] = &["*"];
const CLAIMED_QUIET: &[&str] = &["*"];

/// What `-v` still prints differently in TCP and UDP payloads, which `-q`
/// leaves undecoded, and why.
const NOT_CLAIMED_VERBOSE_PAYLOADS: &[&str] = &[
    // tcpdump decodes the quoted datagram's payload (SNMP, AFS/Rx).
    "ICMP/ICMPv6 quoting UDP/162",
    "ICMP/ICMPv6 quoting UDP/7002",
    "ICMP/ICMPv6 quoting UDP/7003",
    // LDP's and LSP ping's TLVs end in hex dumps, which this comparison drops
    // from tcpdump's text only; `tcpdump_routing.rs` compares them whole.
    "TCP/646",
    "UDP/646",
    // tcpdump writes RIP's note on an entry longer than the rest of the
    // packet after a hex dump, which the comparison drops with the dump.
    "UDP/520",
    // Issue 27's printers of the first line only: DHCPv6's options.
    "UDP/546",
    "UDP/547",
    // sFlow's unknown records are dumped in hex, which the comparison drops
    // from tcpdump's text only (tests/tcpdump_flows.rs compares them).
    "UDP/6343",
    // Issue 27's lines without -v of ISAKMP (payloads), HNCP (TLVs, also on
    // datagrams whose other port is RADIUS's) and LSP ping (TLVs).
    "UDP/500",
    "UDP/8231",
    "UDP/1646",
    "UDP/1812",
    "UDP/3503",
    // LMP's objects: the line without -v only.
    "UDP/701",
];

/// What `-v` still prints differently elsewhere, `-q` or not: LLDP option
/// lists, PPP's inside PPTP's GRE; LSP ping over MPLS and OSPF's opaque LSAs,
/// whose hex dumps this comparison drops from tcpdump's text only
/// (`tcpdump_routing.rs` compares them whole).
const NOT_CLAIMED_VERBOSE_OTHER: &[&str] = &[
    "non-IP",
    "non-IP 0x880b",
    "non-IP 0x8864",
    // LLDP's hex dumps of TLVs it does not decode, which this comparison drops
    // from tcpdump's text only; tcpdump_lldp.rs compares them.
    "non-IP 0x88cc",
    // LSP ping over MPLS: its TLVs, as above.
    "non-IP 0x8847",
    "other IP 135",
    // RSVP: the line without `-v` only.
    "other IP 46",
    "other IP 47",
    "other IP 62",
    "other IP 89",
];

/// The ports tcpdump 4.99's `tcp_print` and `udp_print` hand a payload printer
/// (the `*_PORT` values of its `tcp.h` and `udp.h`).
const APP_PORTS: &[u16] = &[
    21, 22, 23, 25, 43, 53, 67, 68, 69, 80, 88, 111, 123, 137, 138, 139, 161, 162, 179, 319, 320,
    323, 445, 496, 500, 514, 520, 521, 525, 546, 547, 554, 639, 646, 654, 698, 701, 750, 921, 1589,
    1645, 1646, 1700, 1701, 1723, 1812, 1813, 1985, 2049, 2103, 2104, 3456, 3503, 3784, 3785, 3799,
    4342, 4500, 4567, 4784, 4789, 4790, 5060, 5353, 5359, 6081, 6343, 6379, 6633, 6635, 6653, 6696,
    6697, 6784, 7000, 7001, 7002, 7003, 7004, 7005, 7006, 7007, 7008, 7009, 7500, 8080, 8231, 8472,
    8500, 8554, 10288, 12222, 12223, 17754, 30490, 49152,
];

fn key(linktype: LinkType, data: &[u8]) -> String {
    let (class, ports) = classify_ports(linktype, data);
    let l = layers(linktype, data);
    // `-v` prints the datagram an ICMPv4 error quotes; key it by what it quotes.
    if let (Class::Icmp, Some(icmp)) = (l.class, l.l4) {
        let quoted = icmp
            .get(8..)
            .filter(|q| q.first().is_some_and(|b| b >> 4 == 4));
        if let (Some(3 | 4 | 5 | 11 | 12), Some(q)) = (icmp.first(), quoted) {
            let inner = key(LinkType::RAW, q);
            if inner != "TCP" && inner != "UDP" && inner != "ICMP/ICMPv6" {
                return format!("{} quoting {inner}", class.name());
            }
        }
    }
    match ports {
        Some((s, d)) => {
            let app = [s, d].into_iter().filter(|p| APP_PORTS.contains(p)).min();
            match app {
                Some(p) => format!("{}/{p}", class.name()),
                None => class.name().to_string(),
            }
        }
        None if class == Class::Tcp || class == Class::Udp => {
            format!("{} (no ports)", class.name())
        }
        None => match (class, l.proto, l.ethertype) {
            (Class::OtherIp, Some(p), _) => format!("{} {p}", class.name()),
            (Class::NonIp, _, Some(t)) => format!("{} 0x{t:04x}", class.name()),
            _ => class.name().to_string(),
        },
    }
}

/// Claims: the keys listed, or with `*` every key; minus those of the lists not
/// claimed.
struct Claims {
    claimed: &'static [&'static str],
    not_claimed: &'static [&'static [&'static str]],
}

impl Claims {
    fn covers(&self, key: &str) -> bool {
        !self.not_claimed().any(|k| k == key) && self.claimed.iter().any(|&c| c == "*" || c == key)
    }

    fn not_claimed(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.not_claimed.iter().flat_map(|l| l.iter().copied())
    }
}

/// Counts for one mode (verbose or quiet).
#[derive(Default)]
struct Tally {
    /// Per key: (same, compared, default line differs).
    by_key: BTreeMap<String, (usize, usize, usize)>,
    /// Per capture: (same, compared, packets).
    by_file: Vec<(String, usize, usize, usize)>,
    /// First few differences per key.
    examples: BTreeMap<String, Vec<String>>,
}

impl Tally {
    fn totals(&self) -> (usize, usize, usize) {
        self.by_key
            .values()
            .fold((0, 0, 0), |a, v| (a.0 + v.0, a.1 + v.1, a.2 + v.2))
    }

    fn report(&self, title: &str, claims: &Claims) {
        let (s, t, x) = self.totals();
        eprintln!("== {title}: {} captures", self.by_file.len());
        eprintln!("  {s}/{t} packets agree; {x} more left out (default line differs)");
        for (k, (s, t, x)) in &self.by_key {
            let mark = if claims.covers(k) {
                "claimed"
            } else if s != t {
                "differs"
            } else {
                ""
            };
            eprintln!("  {k:<22} {s:>6}/{t:<6} (+{x} left out) {mark}");
        }
        for k in claims.not_claimed() {
            if let Some((s, t, _)) = self.by_key.get(k) {
                if s == t {
                    eprintln!("  note: {k} is not claimed but agrees ({s}/{t})");
                }
            }
        }
        eprintln!("  per capture (same/compared of packets), where not all agree:");
        for (f, s, t, n) in &self.by_file {
            if s != t {
                eprintln!("    {f}: {s}/{t} of {n}");
            }
        }
        for (k, ex) in &self.examples {
            for e in ex {
                eprintln!("  [{k}] {e}");
            }
        }
    }

    fn differing_claimed(&self, claims: &Claims) -> Vec<String> {
        self.by_key
            .iter()
            .filter(|(k, (s, t, _))| claims.covers(k) && s != t)
            .map(|(k, (s, t, _))| format!("{k} {s}/{t}"))
            .collect()
    }
}

/// A way of printing compared with tcpdump: its flags, our options, and what is
/// claimed to agree.
struct Mode {
    title: &'static str,
    flags: &'static [&'static str],
    opts: SummaryOptions,
    claims: Claims,
}

fn modes() -> [Mode; 3] {
    let verbose = SummaryOptions {
        verbose: 1,
        ..SummaryOptions::default()
    };
    let quiet = SummaryOptions {
        quiet: true,
        ..SummaryOptions::default()
    };
    [
        Mode {
            title: "verbose (-v) vs tcpdump -n -v",
            flags: &["-v"],
            opts: verbose,
            claims: Claims {
                claimed: CLAIMED_VERBOSE,
                not_claimed: &[NOT_CLAIMED_VERBOSE_PAYLOADS, NOT_CLAIMED_VERBOSE_OTHER],
            },
        },
        Mode {
            title: "quiet (-q) vs tcpdump -n -q",
            flags: &["-q"],
            opts: quiet,
            claims: Claims {
                claimed: CLAIMED_QUIET,
                not_claimed: &[],
            },
        },
        Mode {
            title: "verbose and quiet (-v -q) vs tcpdump -n -v -q",
            flags: &["-v", "-q"],
            opts: SummaryOptions {
                quiet: true,
                ..verbose
            },
            claims: Claims {
                claimed: CLAIMED_VERBOSE,
                not_claimed: &[NOT_CLAIMED_VERBOSE_OTHER],
            },
        },
    ]
}

/// One capture: the keys of its packets, whether our default line is
/// tcpdump's, and per mode our lines and tcpdump's.
struct Lines {
    keys: Vec<String>,
    default_same: Vec<bool>,
    ours: Vec<Vec<String>>,
    theirs: Vec<Vec<String>>,
}

fn lines(path: &Path, modes: &[Mode]) -> Result<Lines, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("unreadable: {e}"))?;
    let packets = read_capture(&bytes).ok_or("not a capture")?;
    if packets.iter().any(|p| !p.linktype.is_supported()) {
        return Err("unsupported link type".into());
    }
    let n = packets.len();
    let default = tcpdump_records(path, &[]).ok_or("tcpdump failed")?;
    let mut theirs = Vec::new();
    for m in modes {
        theirs.push(tcpdump_blocks(path, m.flags).ok_or("tcpdump failed")?);
    }
    if default.len() != n || theirs.iter().any(|t| t.len() != n) {
        let counts: Vec<String> = theirs.iter().map(|t| t.len().to_string()).collect();
        return Err(format!(
            "tcpdump printed {}/{} records for {n} packets",
            default.len(),
            counts.join("/")
        ));
    }
    let mut d = Summarizer::new();
    let mut ours: Vec<Summarizer> = modes
        .iter()
        .map(|m| Summarizer::with_options(m.opts))
        .collect();
    let mut out = Lines {
        keys: Vec::new(),
        default_same: Vec::new(),
        ours: vec![Vec::new(); modes.len()],
        theirs,
    };
    for (p, theirs) in packets.iter().zip(&default) {
        let line = without_dumps(&d.summarize(p.linktype, &p.data, p.wire_len));
        out.default_same.push(line.trim_end() == theirs);
        out.keys.push(key(p.linktype, &p.data));
        for (i, s) in ours.iter_mut().enumerate() {
            let l = without_dumps(&s.summarize(p.linktype, &p.data, p.wire_len));
            out.ours[i].push(l.trim_end().to_string());
        }
    }
    Ok(out)
}

/// Our summary without its hex dump lines (`print_unknown_data`'s), which
/// `tcpdump_blocks` and `tcpdump_records` drop from tcpdump's text; the dumps
/// themselves are compared by `tcpdump_vv.rs`.
fn without_dumps(s: &str) -> String {
    s.split('\n')
        .filter(|l| !(l.starts_with('\t') && l.trim_start().starts_with("0x")))
        .collect::<Vec<_>>()
        .join("\n")
}

fn corpus_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["tcpdump", "libpcap"] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir)) {
            files.extend(rd.flatten().map(|e| e.path()));
        }
    }
    files.sort();
    files
}

#[test]
fn verbose_and_quiet_agree_with_tcpdump() {
    let Some(root) = tcpdump_and_corpus("") else {
        return;
    };
    let modes = modes();
    let mut tallies: Vec<Tally> = modes.iter().map(|_| Tally::default()).collect();
    let mut skipped = Vec::new();
    for f in corpus_files(&root) {
        let name = f.strip_prefix(&root).unwrap_or(&f).display().to_string();
        let l = match lines(&f, &modes) {
            Ok(l) => l,
            Err(e) => {
                if e != "unsupported link type" {
                    skipped.push(format!("{name}: {e}"));
                }
                continue;
            }
        };
        for (m, tally) in tallies.iter_mut().enumerate() {
            let (mut same, mut compared) = (0, 0);
            for i in 0..l.keys.len() {
                let e = tally.by_key.entry(l.keys[i].clone()).or_default();
                if !l.default_same[i] {
                    e.2 += 1;
                    continue;
                }
                e.1 += 1;
                compared += 1;
                if l.ours[m][i] == l.theirs[m][i] {
                    e.0 += 1;
                    same += 1;
                } else {
                    let ex = tally.examples.entry(l.keys[i].clone()).or_default();
                    if ex.len() < 3 {
                        ex.push(format!(
                            "{name} #{i}\n      ours: {:?}\n      tcpd: {:?}",
                            l.ours[m][i], l.theirs[m][i]
                        ));
                    }
                }
            }
            tally
                .by_file
                .push((name.clone(), same, compared, l.keys.len()));
        }
    }
    for (m, t) in modes.iter().zip(&tallies) {
        t.report(m.title, &m.claims);
    }
    for s in &skipped {
        eprintln!("  skipped {s}");
    }
    if tallies[0].by_file.is_empty() {
        eprintln!("skipping: no capture of a supported link type");
        return;
    }
    let bad: Vec<String> = modes
        .iter()
        .zip(&tallies)
        .flat_map(|(m, t)| {
            t.differing_claimed(&m.claims)
                .into_iter()
                .map(move |k| format!("{}: {k}", m.flags.join(" ")))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "claimed protocols differ from tcpdump: {bad:?}"
    );
}
