//! The application printers of issue 27 (AFS over Rx, DECnet, IPX, Redis
//! RESP, RPKI-RTR, Kerberos and the others of `summary/apps.rs`) against the installed tcpdump, packet by
//! packet, on the corpus captures of those protocols, with `-n`, `-n -v` and
//! `-n -vv`. Skipped, with a message, when tcpdump or the corpus is absent.
//!
//! Only the packets tcpdump decodes as the protocol under test are compared
//! (their record holds the protocol's marker); the others of a capture are
//! other printers' (afs.pcap also holds Kerberos and DNS). With `-vv` the
//! comparison starts at the marker: what `-vv` adds before it (UDP-over-IPv4
//! and TCP checksum verdicts) is udp_print's and tcp_print's.

mod common;

use common::capture::read_capture;
use common::corpus_root;
use common::tcpdump::{have_tcpdump, tcpdump_blocks};
use netsift_print::{Summarizer, SummaryOptions};

/// Captures, the text that marks a packet of the protocol under test in
/// tcpdump's record (empty: every packet), and the highest `-v` count
/// compared (ISAKMP's payloads, HNCP's own TLVs and LSP ping's TLVs, which
/// `-v` or `-vv` print, are not decoded yet).
const CASES: &[(&str, &str, u8)] = &[
    ("afs.pcap", " rx ", 2),
    ("DECnet_Phone.pcap", "", 2),
    ("decnet-oobr.pcap", "", 2),
    ("decnet-shorthdr-oobr.pcap", "", 2),
    ("resp_1_benchmark.pcap", "RESP", 2),
    ("resp_2_inline.pcap", "RESP", 2),
    ("resp_3_malicious.pcap", "RESP", 2),
    ("resp_4_infiniteloop.pcapng", "RESP", 2),
    ("ipx.pcap", "IPX ", 2),
    ("ipx-invalid-length.pcap", "IPX ", 2),
    ("babel_update_oobr.pcap", " v4 ", 2),
    ("afs.pcap", " v5", 2),
    ("ahcp.pcapng", "AHCP", 2),
    ("babel.pcap", "AHCP", 2),
    ("someip1.pcap", "SOMEIP", 2),
    ("someip2.pcap", "SOMEIP", 2),
    ("tftp.pcap", "TFTP", 2),
    ("tftp-heapoverflow.pcap", "TFTP", 2),
    ("hncp.pcap", "hncp", 1),
    ("hncp_prefix-oobr.pcap", "hncp", 0),
    ("lspping-fec-ldp.pcap", "LSP-PING", 0),
    ("lspping-fec-rsvp.pcap", "LSP-PING", 0),
    ("lsp-ping-timestamp.pcap", "LSP-PING", 0),
    ("wb-oobr.pcap", "lspping", 0),
    ("kday2.pcap", "RPKI", 2),
    ("kday4.pcap", "RPKI", 2),
    ("rpki-rtr-oobr.pcap", "RPKI", 2),
    ("ISAKMP_sa_setup.pcap", "isakmp", 0),
    ("ikev2four.pcap", "isakmp", 0),
    ("isakmp4500.pcap", "isakmp", 0),
    ("isakmp-no-none-np.pcapng", "isakmp", 0),
    ("isakmp-rfc3948-oobr.pcap", "isakmp", 0),
    ("ikev2pI2.pcap", "isakmp", 0),
    ("isakmp-pointer-loop.pcap", "isakmp", 0),
];

/// `rec` from `marker` on, or all of it for an empty marker.
fn from_marker<'a>(rec: &'a str, marker: &str) -> Option<&'a str> {
    if marker.is_empty() {
        return Some(rec);
    }
    rec.find(marker).map(|i| &rec[i..])
}

#[test]
fn application_lines_match_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let dir = corpus_root().join("tcpdump");
    let mut failures = Vec::new();
    let mut compared = 0;
    for &(file, marker, max_verbose) in CASES {
        let path = dir.join(file);
        let Some(packets) = std::fs::read(&path).ok().and_then(|b| read_capture(&b)) else {
            println!("{file}: not in the corpus, skipped");
            continue;
        };
        for verbose in 0..=max_verbose {
            let flags: &[&str] = match verbose {
                0 => &[],
                1 => &["-v"],
                _ => &["-vv"],
            };
            let theirs = tcpdump_blocks(&path, flags).expect("tcpdump runs");
            assert_eq!(
                theirs.len(),
                packets.len(),
                "{file} {flags:?}: record count"
            );
            let mut s = Summarizer::with_options(SummaryOptions {
                verbose,
                ..SummaryOptions::default()
            });
            let mut seen = 0;
            for (i, (p, t)) in packets.iter().zip(&theirs).enumerate() {
                let ours = s.summarize(p.linktype, &p.data, p.wire_len);
                let ours = ours.trim_end();
                let Some(t_tail) = from_marker(t, marker) else {
                    continue;
                };
                seen += 1;
                compared += 1;
                let same = if verbose < 2 {
                    ours == t
                } else {
                    from_marker(ours, marker) == Some(t_tail)
                };
                if !same {
                    failures.push(format!(
                        "{file} #{i} {flags:?}\n   ours: {ours}\n   tcpd: {t}"
                    ));
                }
            }
            assert!(seen > 0, "{file} {flags:?}: no packet with {marker:?}");
        }
    }
    println!("{compared} records compared, {} differ", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
