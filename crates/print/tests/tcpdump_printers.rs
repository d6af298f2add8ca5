//! Issue 27's printers, each against tcpdump on the corpus captures that carry
//! its protocol: every packet's text (continuation lines included, hex dumps
//! left out) must be tcpdump's. Skipped, with a message, without tcpdump or the
//! corpus.

mod common;

use common::capture::read_capture;
use common::tcpdump::tcpdump_blocks;
use common::tcpdump_and_corpus;
use netsift_print::{Summarizer, SummaryOptions};

/// A printer, the captures that carry its protocol, and the flags compared.
struct Case {
    printer: &'static str,
    captures: &'static [&'static str],
    verbose: u8,
}

const CASES: &[Case] = &[
    Case {
        printer: "OpenFlow",
        captures: &[
            "of10_7050q.pcapng",
            "of10_7050sx_bsn-oobr.pcap",
            "of10_7050sx_bsn.pcap",
            "of10_inv_OFPST_FLOW.pcap",
            "of10_p3295.pcap",
            "of10_pf5240.pcap",
            "of10_s4810.pcap",
            "of13_ericsson.pcapng",
        ],
        verbose: 0,
    },
    Case {
        printer: "PTP",
        captures: PTP,
        verbose: 0,
    },
    Case {
        printer: "AoE",
        captures: &["AoE_Linux.pcap", "aoe-oobr-1.pcap"],
        verbose: 0,
    },
    Case {
        printer: "BCM-LI-SHIM",
        captures: &["bcm-li.pcap"],
        verbose: 0,
    },
    Case {
        printer: "BCM-LI-SHIM -v",
        captures: &["bcm-li.pcap"],
        verbose: 1,
    },
    Case {
        printer: "sFlow",
        captures: &[
            "sflow-print-v6.pcap",
            "sflow_expanded.pcap",
            "sflow_multiple_counter_30_pdus.pcap",
            "sflow_print-segv.pcap",
        ],
        verbose: 0,
    },
    Case {
        printer: "Babel",
        captures: &[
            "babel_auth.pcap",
            "babel_pad1.pcap",
            "babel_rfc6126bis.pcap",
            "babel_rtt.pcap",
        ],
        verbose: 0,
    },
    Case {
        printer: "EAPOL",
        captures: &["eapon1.pcap", "eap_extract_read2_asan.pcap"],
        verbose: 0,
    },
    Case {
        printer: "DHCPv6",
        captures: &[
            "dhcp6_reconf_asan.pcap",
            "dhcpv4v6-rfc5970-rfc8572.pcap",
            "dhcpv6-AFTR-Name-RFC6334.pcap",
            "dhcpv6-domain-list.pcap",
            "dhcpv6-ia-na.pcap",
            "dhcpv6-ia-pd.pcap",
            "dhcpv6-ia-ta.pcap",
            "dhcpv6-mud.pcap",
            "dhcpv6-ntp-server.pcap",
            "dhcpv6-rfc6355-duid-uuid.pcap",
            "dhcpv6-rfc8415-duid-type2.pcap",
            "dhcpv6-sip-server-d.pcap",
            "dhcpv6-vendor-specific-information.pcap",
        ],
        verbose: 0,
    },
    Case {
        printer: "GeoNet, CALM FAST",
        captures: GEONET,
        verbose: 0,
    },
    Case {
        printer: "GeoNet, CALM FAST -v",
        captures: GEONET,
        verbose: 1,
    },
    Case {
        printer: "VXLAN: the inner frame on its own line",
        captures: &["vxlan.pcap", "vxlan_port_8472.pcap"],
        verbose: 0,
    },
    Case {
        printer: "PTP -v",
        captures: PTP,
        verbose: 1,
    },
];

/// GeoNetworking beacons and BTP, CALM FAST, a short and a bad header.
const GEONET: &[&str] = &[
    "cve-2014-8768-Geonet.pcap",
    "geonet-mac-lookup-heapoverflow.pcap",
    "geonet_v0_and_calm_fast.pcap",
];

/// PTP over UDP and Ethernet: version 2's messages, 2.1 and management.
const PTP: &[&str] = &[
    "ptp.pcap",
    "ptp_corrections.pcap",
    "ptp_ethernet.pcap",
    "ptp_management.pcap",
    "ptp_v2_1.pcap",
];

#[test]
fn printers_print_what_tcpdump_prints() {
    let Some(root) = tcpdump_and_corpus("tcpdump") else {
        return;
    };
    let mut failures = Vec::new();
    for case in CASES {
        let flags: &[&str] = if case.verbose > 0 { &["-v"] } else { &[] };
        let opts = SummaryOptions {
            verbose: case.verbose,
            ..SummaryOptions::default()
        };
        let (mut packets_seen, mut lines) = (0, 0);
        for name in case.captures {
            let path = root.join(name);
            let bytes = std::fs::read(&path).expect("corpus capture");
            let packets = read_capture(&bytes).expect("a capture");
            let theirs = tcpdump_blocks(&path, flags).expect("tcpdump runs");
            assert_eq!(packets.len(), theirs.len(), "{name}: records");
            let mut s = Summarizer::with_options(opts);
            for (i, (p, t)) in packets.iter().zip(&theirs).enumerate() {
                let ours = s.summarize(p.linktype, &p.data, p.wire_len);
                packets_seen += 1;
                lines += t.lines().count();
                if ours.trim_end() != t {
                    failures.push(format!("{name} #{i}\n  ours: {ours}\n  tcpd: {t}"));
                }
            }
        }
        println!(
            "{}: {} captures, {packets_seen} packets, {lines} lines compared",
            case.printer,
            case.captures.len()
        );
    }
    assert!(
        failures.is_empty(),
        "{} packets differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
