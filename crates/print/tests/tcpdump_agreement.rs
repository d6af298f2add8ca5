//! Compares `summarize` and `Summarizer` with the installed tcpdump (4.99) on
//! captures of the shared corpus, and reports the agreement per protocol class.
//!
//! The comparison is exact string equality of one line per packet: tcpdump's text
//! after the timestamp, its continuation lines (a VXLAN payload, for instance)
//! joined with a space and its hex dumps dropped, and ours joined alike. Skipped,
//! with a message, when tcpdump or the corpus is absent.
//!
//! `cargo test -p netsift-print --test tcpdump_agreement -- --ignored --nocapture`
//! runs the same comparison over every corpus capture of a supported link type.

mod common;

use common::capture::read_capture;
use common::tcpdump::tcpdump_records;
use common::{classify, tcpdump_and_corpus, Class};
use netsift_print::{Summarizer, SummaryOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Captures of plain traffic: TCP handshakes and data, DNS over UDP and TCP, ARP
/// (plain and QinQ-tagged), ICMP and ICMPv6, IGMP, and the same inside VXLAN,
/// Geneve, MPLS and PPPoE; over Ethernet, Linux SLL, BSD NULL and raw IP.
const SIMPLE: &[&str] = &[
    "tcpdump/tcp-handshake-nano.pcap",
    "tcpdump/print-flags.pcap",
    "tcpdump/ssh.pcap",
    "tcpdump/tfo-5c1fa7f9ae91.pcap",
    "tcpdump/ipv4_tcp_http_xml.pcap",
    "tcpdump/whois.pcap",
    "tcpdump/dns_udp.pcap",
    "tcpdump/dns_tcp.pcap",
    "tcpdump/edns-opts.pcap",
    "tcpdump/dns-badcookie.pcap",
    "tcpdump/802.1ad_QinQ.pcap",
    "tcpdump/arp-too-long-tha.pcap",
    "libpcap/rarp_req_reply.pcapng",
    "tcpdump/icmpv6.pcap",
    "tcpdump/icmp-rfc8335.pcap",
    "tcpdump/IGMP_V1.pcap",
    "tcpdump/IGMP_V2.pcap",
    "tcpdump/vxlan.pcap",
    "tcpdump/geneve.pcap",
    "tcpdump/mpls-over-udp.pcap",
    "tcpdump/pppoes.pcap",
    "tcpdump/ipv6-routing-header.pcap",
    "libpcap/gateway_or_not.pcap",
    "tcpdump/LINKTYPE_IPV4.pcap",
    "tcpdump/LINKTYPE_IPV6.pcap",
    "tcpdump/LINKTYPE_RAW_ipv4.pcap",
    "tcpdump/LINKTYPE_RAW_ipv6.pcap",
    "tcpdump/quic_handshake.pcap",
];

/// Lowest agreement accepted on TCP, UDP, ICMP and ARP packets of `SIMPLE`, for
/// each of the three comparisons (measured: 100%).
const CORE_FLOOR: f64 = 0.97;

#[derive(Default)]
struct Tally {
    by_class: BTreeMap<Class, (usize, usize)>,
    /// Per class: packets whose tcpdump line starts with ours (tcpdump went on to
    /// decode a payload this crate does not), exact matches included.
    prefix: BTreeMap<Class, usize>,
    files: usize,
    skipped: Vec<String>,
    mismatches: Vec<String>,
}

impl Tally {
    fn add(&mut self, class: Class, same: bool, prefix: bool) {
        if prefix {
            *self.prefix.entry(class).or_default() += 1;
        }
        let e = self.by_class.entry(class).or_default();
        e.1 += 1;
        if same {
            e.0 += 1;
        }
    }

    fn core(&self) -> (usize, usize) {
        self.by_class
            .iter()
            .filter(|(c, _)| c.is_core())
            .fold((0, 0), |(a, b), (_, (s, t))| (a + s, b + t))
    }

    fn all(&self) -> (usize, usize) {
        self.by_class
            .values()
            .fold((0, 0), |(a, b), (s, t)| (a + s, b + t))
    }

    fn report(&self, title: &str) {
        eprintln!("== {title}: {} captures", self.files);
        for c in Class::ALL {
            if let Some((s, t)) = self.by_class.get(&c) {
                let p = self.prefix.get(&c).copied().unwrap_or(0);
                eprintln!(
                    "  {:<12} {:>6}/{:<6} {:6.2}%   (prefix of tcpdump's line: {:6.2}%)",
                    c.name(),
                    s,
                    t,
                    pct(*s, *t),
                    pct(p, *t)
                );
            }
        }
        let (s, t) = self.core();
        eprintln!("  {:<12} {:>6}/{:<6} {:6.2}%", "core", s, t, pct(s, t));
        let (s, t) = self.all();
        eprintln!("  {:<12} {:>6}/{:<6} {:6.2}%", "all", s, t, pct(s, t));
        for s in &self.skipped {
            eprintln!("  skipped {s}");
        }
        for m in self.mismatches.iter().take(10) {
            eprintln!("  {m}");
        }
    }
}

fn pct(s: usize, t: usize) -> f64 {
    if t == 0 {
        100.0
    } else {
        100.0 * s as f64 / t as f64
    }
}

/// Compares one capture under tcpdump flags `flags` with a summarizer built from
/// `opts`.
fn compare(path: &Path, flags: &[&str], opts: SummaryOptions, tally: &mut Tally) {
    let name = path.display().to_string();
    let Ok(bytes) = std::fs::read(path) else {
        tally.skipped.push(format!("{name}: unreadable"));
        return;
    };
    let Some(packets) = read_capture(&bytes) else {
        tally.skipped.push(format!("{name}: not a capture"));
        return;
    };
    if packets.iter().any(|p| !p.linktype.is_supported()) {
        tally.skipped.push(format!("{name}: unsupported link type"));
        return;
    }
    let Some(records) = tcpdump_records(path, flags) else {
        tally.skipped.push(format!("{name}: tcpdump failed"));
        return;
    };
    if records.len() != packets.len() {
        tally.skipped.push(format!(
            "{name}: tcpdump printed {} records for {} packets",
            records.len(),
            packets.len()
        ));
        return;
    }
    tally.files += 1;
    let mut s = Summarizer::with_options(opts);
    for (i, (p, theirs)) in packets.iter().zip(&records).enumerate() {
        let text = s.summarize(p.linktype, &p.data, p.wire_len);
        // Continuation lines (a VXLAN frame's inner packet) joined as
        // `tcpdump_records` joins tcpdump's.
        let mut lines = text.lines();
        let mut ours = lines.next().unwrap_or("").trim_end().to_string();
        for l in lines.map(str::trim).filter(|l| !l.is_empty()) {
            ours.push(' ');
            ours.push_str(l);
        }
        let ours = ours.as_str();
        let same = ours == theirs;
        let class = classify(p.linktype, &p.data);
        if !same && class.is_core() {
            tally.mismatches.push(format!(
                "{name} #{i}\n      ours: {ours}\n      tcpd: {theirs}"
            ));
        }
        tally.add(class, same, theirs.starts_with(ours));
    }
}

fn modes() -> [(&'static str, Vec<&'static str>, SummaryOptions); 3] {
    [
        (
            "Summarizer vs tcpdump -n",
            vec![],
            SummaryOptions::default(),
        ),
        (
            "summarize-style (absolute seq) vs tcpdump -n -S",
            vec!["-S"],
            SummaryOptions {
                absolute_tcp_seq: true,
                ..SummaryOptions::default()
            },
        ),
        (
            "link header vs tcpdump -n -e",
            vec!["-e"],
            SummaryOptions {
                link_header: true,
                ..SummaryOptions::default()
            },
        ),
    ]
}

fn ready() -> Option<PathBuf> {
    tcpdump_and_corpus("")
}

#[test]
fn simple_captures_agree_with_tcpdump() {
    let Some(root) = ready() else { return };
    for (title, flags, opts) in modes() {
        let mut tally = Tally::default();
        for f in SIMPLE {
            let path = root.join(f);
            if path.exists() {
                compare(&path, &flags, opts, &mut tally);
            } else {
                tally.skipped.push(format!("{f}: absent"));
            }
        }
        tally.report(title);
        if tally.files == 0 {
            eprintln!("skipping: none of the simple captures is present");
            return;
        }
        let (s, t) = tally.core();
        assert!(
            t > 0 && s as f64 / t as f64 >= CORE_FLOOR,
            "{title}: core agreement {s}/{t} below {:.0}%",
            CORE_FLOOR * 100.0
        );
    }
}

/// The stateless `summarize` is `tcpdump -n -S`.
#[test]
fn summarize_is_tcpdump_dash_s() {
    let Some(root) = ready() else { return };
    let path = root.join("tcpdump/tcp-handshake-nano.pcap");
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("skipping: {} absent", path.display());
        return;
    };
    let packets = read_capture(&bytes).expect("capture");
    let theirs = tcpdump_records(&path, &["-S"]).expect("tcpdump");
    for (p, t) in packets.iter().zip(&theirs) {
        assert_eq!(
            &netsift_print::summarize(p.linktype, &p.data, p.wire_len),
            t
        );
    }
}

/// Every corpus capture of a supported link type (slow; run with `--ignored`).
#[test]
#[ignore]
fn whole_corpus_report() {
    let Some(root) = ready() else { return };
    let mut files = Vec::new();
    for dir in ["tcpdump", "libpcap"] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir)) {
            for e in rd.flatten() {
                files.push(e.path());
            }
        }
    }
    files.sort();
    for (title, flags, opts) in modes() {
        let mut tally = Tally::default();
        for f in &files {
            compare(f, &flags, opts, &mut tally);
        }
        tally
            .skipped
            .retain(|s| !s.ends_with("unsupported link type"));
        tally.mismatches.clear();
        tally.report(title);
    }
}
