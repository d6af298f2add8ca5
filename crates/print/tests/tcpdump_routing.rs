//! The routing and access printers (OSPFv2 and OSPFv3 link-state lists, PPP
//! control protocol options, BOOTP/DHCP, LDP, LSP ping, RADIUS) against tcpdump on
//! the corpus captures that carry them, with `-nn`, `-v` and `-vv`: every
//! packet's text, continuation lines and hex dumps included, must be
//! tcpdump's. Skipped, with a message, without tcpdump or the corpus.
//!
//! Left out: the OSPFv3 captures over Frame Relay (`OSPFv3_NBMA_*`,
//! `OSPFv3_multipoint_*`; that link type is not decoded), and `-vv` for the
//! protocols over UDP on IPv4 (DHCP, LDP's Hellos, LSP ping, RADIUS), where tcpdump
//! adds a UDP checksum verdict this crate does not print yet. The LSP ping
//! captures carry BGP keepalives, whose `-v` line is not printed yet either,
//! so they are compared without `-v` only; RSVP's objects (`-v`) are not
//! decoded yet.

mod common;

use common::capture::read_capture;
use common::tcpdump_and_corpus;
use netsift_print::{Summarizer, SummaryOptions};
use std::process::Command;

struct Case {
    what: &'static str,
    captures: &'static [&'static str],
    /// The verbosity levels compared (0 for `-nn`).
    levels: &'static [u8],
}

const CASES: &[Case] = &[
    Case {
        what: "OSPFv2",
        captures: &[
            "OSPFv2_Capture_FINAL.pcapng",
            "ospf-gmpls.pcap",
            "ospf-sr.pcapng",
            "ospf-sr2.pcapng",
            "ospf-sr-ri-sid.pcap",
            "ospf-nssa-bitnt.pcap",
            "ospf-ack.pcap",
            "ospf_graceful_restart_rfc3623.pcap",
            "ospf2-seg-fault-1.pcapng",
        ],
        levels: &[0, 1, 2],
    },
    Case {
        what: "OSPFv3",
        captures: &[
            "OSPFv3_broadcast_adjacency.pcap",
            "OSPFv3_with_AH.pcap",
            "ospf3_auth.pcapng",
            "ospf-signed-integer-ubsan.pcap",
            "ospf6_decode_v3_asan.pcap",
            "ospf6_print_lshdr-oobr.pcap",
        ],
        levels: &[0, 1, 2],
    },
    Case {
        what: "PPP control protocols",
        captures: &[
            "ppp-invalid-lengths.pcap",
            "ppp_ccp_config_deflate_option_asan.pcap",
        ],
        levels: &[0, 1, 2],
    },
    Case {
        what: "BOOTP/DHCP",
        captures: &[
            "dhcp-rfc4388.pcap",
            "dhcp-option-33.pcap",
            "dhcp-rfc3004.pcap",
            "dhcp-rfc5859.pcap",
            "dhcp-mud.pcap",
            "dhcp-option-108.pcapng",
        ],
        levels: &[0, 1],
    },
    Case {
        what: "LDP",
        captures: &[
            "ldp-common-session.pcap",
            "ldp-infinite-loop.pcap",
            "ldp_tlv_print-oobr.pcap",
            "ldp-ldp_tlv_print-oobr.pcap",
            "mpls-ldp-hello.pcap",
        ],
        levels: &[0, 1],
    },
    Case {
        what: "RADIUS",
        captures: &[
            "RADIUS.pcap",
            "RADIUS-RFC3162.pcap",
            "RADIUS-RFC4675.pcap",
            "RADIUS-RFC5176.pcap",
            "RADIUS-RFC5176-2.pcap",
            "RADIUS-RFC5580.pcap",
            "RADIUS-port1700.pcap",
            "radius_attr_asan.pcap",
            "radius_rfc5447.pcap",
            "radius_rfc5447_invalid_length.pcap",
        ],
        levels: &[0, 1],
    },
    Case {
        what: "RSVP (the line without -v)",
        captures: &[
            "rsvp_cap.pcap",
            "rsvp-infinite-loop.pcap",
            "rsvp-inf-loop-2.pcapng",
            "rsvp_fast_reroute-oobr.pcap",
            "rsvp_uni-oobr-1.pcap",
            "rsvp_uni-oobr-2.pcap",
        ],
        levels: &[0],
    },
    Case {
        what: "LSP ping",
        captures: &["lspping-fec-ldp.pcap", "lspping-fec-rsvp.pcap"],
        levels: &[0],
    },
];

/// `tcpdump -nn [-v|-vv] -r file` in UTC, one block per packet without its
/// timestamp: a packet starts at a line that does not start with blanks.
fn tcpdump_packets(path: &std::path::Path, verbose: u8) -> Vec<String> {
    let mut cmd = Command::new("tcpdump");
    cmd.arg("-nn");
    if verbose > 0 {
        cmd.arg(format!("-{}", "v".repeat(verbose as usize)));
    }
    let out = cmd
        .arg("-r")
        .arg(path)
        .env("TZ", "UTC")
        .output()
        .expect("tcpdump runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut blocks: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with([' ', '\t']) {
            if let Some(b) = blocks.last_mut() {
                b.push('\n');
                b.push_str(line);
            }
        } else {
            let (_, rest) = line.split_once(' ').unwrap_or(("", line));
            blocks.push(rest.to_string());
        }
    }
    blocks
}

#[test]
fn routing_printers_print_what_tcpdump_prints() {
    let Some(root) = tcpdump_and_corpus("tcpdump") else {
        return;
    };
    let mut failures = Vec::new();
    for case in CASES {
        for &verbose in case.levels {
            let mut lines = 0;
            for name in case.captures {
                let path = root.join(name);
                let bytes = std::fs::read(&path).expect("corpus capture");
                let packets = read_capture(&bytes).expect("a capture");
                let theirs = tcpdump_packets(&path, verbose);
                assert_eq!(packets.len(), theirs.len(), "{name} -v{verbose}: records");
                let mut s = Summarizer::with_options(SummaryOptions {
                    verbose,
                    ..SummaryOptions::default()
                });
                for (i, (p, t)) in packets.iter().zip(&theirs).enumerate() {
                    let ours = s.summarize(p.linktype, &p.data, p.wire_len);
                    lines += t.lines().count();
                    if ours.trim_end() != t.trim_end() {
                        failures.push(format!(
                            "{name} #{i} verbose {verbose}\n  ours: {ours}\n  tcpd: {t}"
                        ));
                    }
                }
            }
            println!("{} (verbose {verbose}): {lines} lines compared", case.what);
        }
    }
    assert!(
        failures.is_empty(),
        "{} packets differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
