//! PPP, Cisco HDLC, SLIP and ipnet summary lines, with and without `-e`, against the
//! installed tcpdump on every corpus capture of those link types, packet by packet. Skipped,
//! with a message, when tcpdump or the corpus is absent.
//!
//! Every line is compared. Where tcpdump's line is of IPv4, IPv6, MPLS, (Cisco
//! HDLC) SLARP or an unknown protocol, which netsift prints, the two must agree at
//! least through the addresses: an application protocol netsift does not print on any
//! link (LDP, LSP-PING) may differ after them. The other differences (OSI and IS-IS,
//! PPP control protocols, SLIP's compressed TCP) are counted, and no line may be
//! netsift's `UNSUPPORTED` (the line of a link type it has no printer for).

mod common;

use common::capture::read_capture;
use common::corpus_root;
use common::tcpdump::{have_tcpdump, tcpdump_records};
use netsift_print::{Summarizer, SummaryOptions};
use netsift_wire::LinkType;

/// Whether tcpdump's line is of a protocol netsift prints behind these links.
fn printed_by_netsift(line: &str) -> bool {
    let body = match line.find(": ") {
        // With -e the link part ends at the first ": " (CHDLC) or after the
        // PPP protocol name; look at what follows it as well as the whole line.
        Some(i) => &line[i + 2..],
        None => line,
    };
    let known = [
        "IP ",
        "IP6 ",
        "MPLS ",
        "SLARP ",
        "unknown CHDLC",
        "unknown PPP",
    ];
    let starts = |s: &str| known.iter().any(|p| s.starts_with(p));
    // With -e an unknown Ethertype ends the line after the link header.
    starts(line) || starts(body) || line.ends_with(':')
}

/// Whether `ours` equals `theirs` through the first `": "` after the addresses
/// (`a > b: `), the end of what the link and network layers print.
fn agrees_through_addresses(ours: &str, theirs: &str) -> bool {
    let Some(arrow) = theirs.find(" > ") else {
        return false;
    };
    let Some(colon) = theirs[arrow..].find(": ") else {
        return false;
    };
    ours.starts_with(&theirs[..arrow + colon + 2])
}

#[test]
fn serial_link_lines_match_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let root = corpus_root();
    let (mut files, mut same, mut compared, mut other, mut app) = (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    for sub in ["tcpdump", "libpcap"] {
        let Ok(rd) = std::fs::read_dir(root.join(sub)) else {
            continue;
        };
        let mut paths: Vec<_> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            let Some(packets) = std::fs::read(&path).ok().and_then(|b| read_capture(&b)) else {
                continue;
            };
            let wanted = [
                LinkType::PPP,
                LinkType::C_HDLC,
                LinkType::SLIP,
                LinkType::IPNET,
            ];
            if packets.is_empty() || !packets.iter().all(|p| wanted.contains(&p.linktype)) {
                continue;
            }
            for (flags, link_header) in [(&[][..], false), (&["-e"][..], true)] {
                let Some(records) = tcpdump_records(&path, flags) else {
                    continue;
                };
                if records.len() != packets.len() {
                    continue;
                }
                files += 1;
                let opts = SummaryOptions {
                    link_header,
                    ..SummaryOptions::default()
                };
                let mut s = Summarizer::with_options(opts);
                for (i, (p, theirs)) in packets.iter().zip(&records).enumerate() {
                    let ours = s.summarize(p.linktype, &p.data, p.wire_len);
                    let ours = ours.trim_end();
                    let name = format!("{} #{i} {flags:?}", path.display());
                    compared += 1;
                    if ours.starts_with("UNSUPPORTED") {
                        failures.push(format!("{name}: {ours}"));
                    } else if ours == theirs {
                        same += 1;
                    } else if agrees_through_addresses(ours, theirs) {
                        app += 1;
                    } else if printed_by_netsift(theirs) {
                        failures.push(format!("{name}\n   ours: {ours}\n   tcpd: {theirs}"));
                    } else {
                        other += 1;
                        if std::env::var_os("NETSIFT_SHOW_OTHER").is_some() {
                            println!("{name}\n   ours: {ours}\n   tcpd: {theirs}");
                        }
                    }
                }
            }
        }
    }
    println!(
        "{files} capture runs: {same} of {compared} lines equal to tcpdump's, {app} equal \
         through the addresses (an application protocol after them), {other} differ in \
         a protocol netsift does not print (OSI, PPP control, SLIP compression)"
    );
    if files == 0 {
        println!("no PPP, Cisco HDLC, SLIP or ipnet captures in the corpus: nothing compared");
        return;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
