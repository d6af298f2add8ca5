//! What `-vv` adds over `-v` in the generic printers (UDP checksums over IPv4,
//! the sequence number of bare TCP ACKs, DNS's other sections, MLDv2 and
//! IGMPv3 sources, `print_unknown_data` dumps of ICMPv6, EIGRP, PIM, RIP and syslog), and
//! the DCCP, LISP, PGM, TIPC, IPv6 mobility and ICMPv6 Node Information and
//! Router Renumbering printers: every packet's text, continuation lines
//! and hex dumps included, must be tcpdump's with `-n`, `-n -v` and `-n -vv`.
//! Skipped, with a message, without tcpdump or the corpus.

mod common;

use common::capture::read_capture;
use common::tcpdump::tcpdump_blocks_with_dumps;
use common::tcpdump_and_corpus;
use netsift_print::{DefaultPrint, Summarizer, SummaryOptions};

/// The captures, each compared at the three verbosities.
const CAPTURES: &[&str] = &[
    // DCCP: partial checksum coverage over IPv4 and IPv6, options, a bad one.
    "dccp_options-oobr.pcap",
    "dccp_partial_csum_v4_longer.pcap",
    "dccp_partial_csum_v4_simple.pcap",
    "dccp_partial_csum_v6_longer.pcap",
    "dccp_partial_csum_v6_simple.pcap",
    // LISP Map-Register and Map-Notify, IPv6 EIDs, cut short and invalid.
    "lisp_eid_notify.pcap",
    "lisp_eid_register.pcap",
    "lisp_invalid.pcap",
    "lisp_invalid_length.pcap",
    "lisp_ipv6.pcap",
    // PGM: SPM, ODATA, POLL/POLR, malformed options.
    "pgm_group_addr_asan.pcap",
    "pgm_opts_asan.pcap",
    "pgm_opts_asan_2.pcap",
    "pgm_opts_asan_3.pcap",
    "pgm_poll_polr.pcap",
    "pgm_zmtp1.pcap",
    // EIGRP TLV dumps, PIM Hello options and address lists.
    "EIGRP_adjacency.pcap",
    "EIGRP_goodbye.pcap",
    "EIGRP_subnet_down.pcap",
    "EIGRP_subnet_up.pcap",
    "eigrp-tlv-oobr.pcap",
    "PIM-DM_pruning.pcap",
    "PIMv2_hellos.pcap",
    // ICMPv6 neighbor discovery option dumps, unknown types.
    "icmpv6.pcap",
    "icmpv6_opt24.pcap",
    "icmpv6-ra-pref64.pcap",
    "icmp6-rfc8335.pcap",
    // ICMPv6 Node Information queries and replies, Router Renumbering.
    "icmp6_nodeinfo_oobr.pcap",
    "icmpv6-ni-flags.pcap",
    "icmpv6-RFC2894-RR.pcap",
    "icmpv6_nodeinfo_queryipv4.pcap",
    "icmpv6_nodeinfo_queryipv6.pcap",
    "icmpv6_nodeinfo_replyipv4.pcap",
    "icmpv6_nodeinfo_replyipv6.pcap",
    // IPv6 mobility headers and their options, malformed ones.
    "ipv6-mobility-header-oobr.pcap",
    "ipv6_mobility_1.pcap",
    "mobility_opt_asan.pcap",
    "mobility_opt_asan_2.pcap",
    "mobility_opt_asan_3.pcap",
    "mobility_opt_asan_4.pcap",
    "mobility_opt_asan_5.pcap",
    "mobility_opt_asan_6.pcap",
    "mobility_opt_asan_7.pcap",
    "mobility_opt_asan_8.pcap",
    // TIPC payload, internal and neighbor-detection messages.
    "huge-tipc-messages.pcap",
    // RIP entry and message dumps, syslog's -vv dump, Geneve option data.
    "rip_error_hexdump.pcap",
    "ripv1v2.pcap",
    "ripv2-invalid-length.pcap",
    "ripv2_auth.pcap",
    "syslog_udp.pcap",
    "geneve.pcap",
    // DNS: -vv's question, authority and additional sections, EDNS options.
    "dns-badcookie.pcap",
    "dns-badvers.pcap",
    "dns-uri.pcap",
    "dns-zlip-1.pcap",
    "dns-zlip-2.pcap",
    "dns-zlip-3.pcap",
    "dns_fwdptr.pcap",
    "dns_tcp.pcap",
    "dns_udp.pcap",
    "dns_udp_2.pcap",
    "dnssec.pcap",
    "edns-opts.pcap",
    // UDP-over-IPv4 checksums (BFD, HSRP), bare TCP ACKs' sequence numbers.
    "bfd-multihop.pcap",
    "HSRP_coup.pcap",
    "mptcp-v0.pcap",
];

#[test]
fn vv_and_transport_printers_match_tcpdump() {
    let Some(root) = tcpdump_and_corpus("tcpdump") else {
        return;
    };
    let mut failures = Vec::new();
    let mut lines = 0;
    for (verbose, flags) in [(0u8, &[][..]), (1, &["-v"][..]), (2, &["-vv"][..])] {
        let opts = SummaryOptions {
            verbose,
            default_print: DefaultPrint::On,
            ..SummaryOptions::default()
        };
        for name in CAPTURES {
            let path = root.join(name);
            let bytes = std::fs::read(&path).expect("corpus capture");
            let packets = read_capture(&bytes).expect("a capture");
            let theirs = tcpdump_blocks_with_dumps(&path, flags).expect("tcpdump runs");
            assert_eq!(packets.len(), theirs.len(), "{name} {flags:?}: records");
            let mut s = Summarizer::with_options(opts);
            for (i, (p, t)) in packets.iter().zip(&theirs).enumerate() {
                let ours = s.summarize(p.linktype, &p.data, p.wire_len);
                lines += t.lines().count();
                if ours.trim_end() != t {
                    failures.push(format!(
                        "{name} {flags:?} #{i}\n  ours: {ours}\n  tcpd: {t}"
                    ));
                }
            }
        }
    }
    println!(
        "{} captures at 3 verbosities, {lines} lines compared",
        CAPTURES.len()
    );
    assert!(
        failures.is_empty(),
        "{} packets differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
