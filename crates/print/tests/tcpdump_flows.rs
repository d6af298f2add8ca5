//! sFlow, OpenFlow, Babel, AoE, ForCES (and M3UA, which SCTP's DATA chunks
//! carry like ForCES) against the installed tcpdump on the
//! corpus captures that carry them, with `-nn`, `-nn -v` and `-nn -vv`: every
//! packet of these protocols must print tcpdump's text, continuation lines
//! and hex dumps included. With `-vv` only the lines starting with a tab (the
//! protocols' own, and SCTP's chunks) are compared: the UDP checksum and TCP
//! details `-vv` adds to the lines above them belong to other printers.
//! Packets of other protocols in these captures (AHCP in babel.pcap,
//! Kerberos and RESP in babel_update_oobr.pcap, TCP segments without
//! payload) are not compared. Left out: of10_inv_QUEUE_GET_CONFIG_REPLY.pcap,
//! a PPP frame whose unknown protocol the PPP printer renders. Skipped, with
//! a message, without tcpdump or the corpus.

mod common;

use common::capture::read_capture;
use common::tcpdump_and_corpus;
use netsift_print::{Summarizer, SummaryOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

const CAPTURES: &[&str] = &[
    "sflow_multiple_counter_30_pdus.pcap",
    "sflow-print-v6.pcap",
    "sflow_expanded.pcap",
    "sflow_print-segv.pcap",
    "of10_s4810.pcap",
    "of10_p3295.pcap",
    "of10_pf5240.pcap",
    "of10_7050sx_bsn.pcap",
    "of10_7050sx_bsn-oobr.pcap",
    "of10_7050q.pcapng",
    "of10_inv_OFPST_FLOW.pcap",
    "of13_ericsson.pcapng",
    "babel_rfc6126bis.pcap",
    "babel_update_oobr.pcap",
    "babel.pcap",
    "babel_auth.pcap",
    "babel_pad1.pcap",
    "babel_rtt.pcap",
    "AoE_Linux.pcap",
    "aoe-oobr-1.pcap",
    "forces1.pcap",
    "forces2.pcap",
    "forces3.pcap",
    "isup.pcap",
];

/// What marks a packet of these protocols in tcpdump's text.
const MARKS: &[&str] = &[
    "sFlow",
    ": OpenFlow",
    ": babel",
    "] babel",
    "AoE length",
    "\tForCES",
    "[PPID M3UA]",
];

/// tcpdump's text for each packet: the lines from one timestamp to the next,
/// the timestamp cut off.
fn tcpdump_packets(file: &Path, flags: &[&str]) -> Option<Vec<String>> {
    let out = Command::new("tcpdump")
        .arg("-nn")
        .args(flags)
        .arg("-r")
        .arg(file)
        .env("TZ", "UTC")
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut packets: Vec<String> = Vec::new();
    for line in text.lines() {
        let stamp = line.len() > 16
            && line.as_bytes()[2] == b':'
            && line.as_bytes()[5] == b':'
            && line.as_bytes()[8] == b'.';
        match (stamp, packets.last_mut()) {
            (true, _) | (false, None) => {
                let at = line.find(' ').map_or(0, |i| i + 1);
                packets.push(line[at..].to_string());
            }
            (false, Some(last)) => {
                last.push('\n');
                last.push_str(line);
            }
        }
    }
    for p in &mut packets {
        p.truncate(p.trim_end().len());
    }
    Some(packets)
}

/// With `-vv`, a packet's lines from its protocols' printers.
fn detail(text: &str) -> String {
    text.lines()
        .skip(1)
        .filter(|l| l.starts_with('\t'))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The corpus's tcpdump captures, or `None` (said) without tcpdump or them.
fn corpus() -> Option<PathBuf> {
    tcpdump_and_corpus("tcpdump")
}

#[test]
fn flows_print_what_tcpdump_prints() {
    let Some(root) = corpus() else { return };
    let mut failures = Vec::new();
    for (flags, verbose) in [(&[][..], 0u8), (&["-v"][..], 1), (&["-vv"][..], 2)] {
        let mut compared = 0;
        for name in CAPTURES {
            let path = root.join(name);
            let packets =
                read_capture(&std::fs::read(&path).expect("corpus capture")).expect("a capture");
            let theirs = tcpdump_packets(&path, flags).expect("tcpdump runs");
            assert_eq!(packets.len(), theirs.len(), "{name} {flags:?}: records");
            let mut s = Summarizer::with_options(SummaryOptions {
                verbose,
                ..SummaryOptions::default()
            });
            let mut here = 0;
            for (i, (p, t)) in packets.iter().zip(&theirs).enumerate() {
                let ours = s.summarize(p.linktype, &p.data, p.wire_len);
                if !MARKS.iter().any(|m| t.contains(m)) {
                    continue;
                }
                here += 1;
                let ours = ours.trim_end();
                let (o, t) = if verbose >= 2 {
                    (detail(ours), detail(t))
                } else {
                    (ours.to_string(), t.clone())
                };
                if o != t {
                    failures.push(format!("{name} #{i} {flags:?}\n  ours: {o}\n  tcpd: {t}"));
                }
            }
            assert!(here > 0, "{name} {flags:?}: no packet of these protocols");
            compared += here;
        }
        println!("-nn {flags:?}: {compared} packets compared");
    }
    assert!(
        failures.is_empty(),
        "{} packets differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Where a packet of `n` bytes is cut: a few bytes to a few dozen before its
/// end, inside these protocols' payloads (past the link, IP and transport
/// headers of the corpus packets, which other printers' tests cut).
fn cuts(n: usize) -> impl Iterator<Item = usize> {
    [1, 2, 3, 5, 8, 13, 21, 34, 55]
        .into_iter()
        .filter_map(move |k| n.checked_sub(k))
        .filter(move |&c| c > 70 && c * 3 >= n * 2)
}

/// Every packet of these protocols cut short at several lengths, written to a
/// capture for tcpdump: each must end where and as tcpdump's ends, with the
/// same `[|proto]`, under `-nn`, `-nn -v` and `-nn -vv`.
#[test]
fn truncated_flows_end_as_tcpdump_ends_them() {
    let Some(root) = corpus() else { return };
    let dir = std::env::temp_dir().join(format!("netsift-flows-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let (mut failures, mut compared, mut marked) = (Vec::new(), 0, 0);
    for name in CAPTURES {
        let path = root.join(name);
        let packets =
            read_capture(&std::fs::read(&path).expect("corpus capture")).expect("a capture");
        let full = tcpdump_packets(&path, &["-v"]).expect("tcpdump runs");
        let mut recs = Vec::new();
        for (p, t) in packets.iter().zip(&full) {
            if MARKS.iter().any(|m| t.contains(m)) {
                recs.extend(cuts(p.data.len()).map(|c| (p.data[..c].to_vec(), p.wire_len)));
            }
        }
        if recs.is_empty() {
            continue;
        }
        let lt = packets[0].linktype;
        let cut = dir.join(name.replace(".pcapng", ".pcap"));
        common::write::write_pcap(&cut, lt, &recs);
        for (flags, verbose) in [(&[][..], 0u8), (&["-v"][..], 1), (&["-vv"][..], 2)] {
            let theirs = tcpdump_packets(&cut, flags).expect("tcpdump runs");
            assert_eq!(recs.len(), theirs.len(), "{name} {flags:?}: records");
            let mut s = Summarizer::with_options(SummaryOptions {
                verbose,
                ..SummaryOptions::default()
            });
            for (i, ((data, wire), t)) in recs.iter().zip(&theirs).enumerate() {
                let ours = s.summarize(lt, data, *wire);
                let ours = ours.trim_end();
                let (o, t) = if verbose >= 2 {
                    (detail(ours), detail(t))
                } else {
                    (ours.to_string(), t.clone())
                };
                compared += 1;
                marked += usize::from(t.contains(" [|"));
                if o != t {
                    failures.push(format!(
                        "{name} cut #{i} {flags:?}\n  ours: {o}\n  tcpd: {t}"
                    ));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("{compared} cut packets compared, {marked} of them ending in [|proto]");
    assert!(marked > 0, "no cut packet ends truncated");
    assert!(
        failures.is_empty(),
        "{} cut packets differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
