//! The link types printed after issue 26's third part, against the installed
//! tcpdump on every corpus capture of them, packet by packet, whole output
//! (line, continuation lines, dump) with `-nn`, `-e`, `-v` and `-x`: Frame
//! Relay and FRF.16, Marvell DSA/EDSA and Broadcom switch tags, IPoIB,
//! NFLOG, vsock, PKTAP, PPP in HDLC framing, SunATM, the Juniper Ethernet,
//! ATM1, ES and monitor encapsulations, IEEE 802.15.4 (to its addresses),
//! ARCnet and Linux ARCnet, SLIP and BSD/OS SLIP, Solaris ipnet, and
//! tcpdump's `UNSUPPORTED` dump for
//! a link type with no printer (D-Bus, 160). Skipped, with a message, when
//! tcpdump or the corpus is absent.
//!
//! Left out, with the payload netsift does not print: see `LEFT_OUT`.

mod common;

use common::corpus_captures_of;
use common::tcpdump::have_tcpdump;
use common::whole::compare;
use netsift_wire::LinkType;

/// Captures (or, with flags, one flag set of them) whose packets carry what
/// no netsift printer decodes yet.
const LEFT_OUT: [(&str, Option<&str>, &str); 9] = [
    ("isis_poi", None, "IS-IS over Juniper Ethernet"),
    ("q933-heapoverflow-2", None, "Q.933 signalling"),
    ("vtp_asan", None, "VTP in an FRF.16 fragment"),
    ("brcm-tag", Some("-v"), "DHCP's -v options"),
    ("ppp_error_hexdump", Some("-v"), "IPCP's -v options"),
    ("calm-fast", Some("-v"), "CALM FAST's -v details"),
    ("bgp-aigp", Some("-v"), "BGP's -v attributes"),
    (
        "heapoverflow-atalk",
        None,
        "AppleTalk's DDP over Linux ARCnet",
    ),
    (
        "slip-compressed_sl_print",
        Some("-e"),
        "SLIP's -e line for compressed TCP",
    ),
];

#[test]
fn other_link_lines_match_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let lts: Vec<LinkType> = [
        107, 182, 281, 282, 284, 285, 242, 239, 271, 258, 149, 50, 123, 132, 137, 164, 178, 195,
        230, 160, 231, 7, 129, 8, 15, 226,
    ]
    .into_iter()
    .map(LinkType)
    .collect();
    let caps = corpus_captures_of(&lts);
    if caps.is_empty() {
        println!("no corpus capture of these link types: skipped");
        return;
    }
    let flag_sets: [&[&str]; 4] = [&[], &["-e"], &["-v"], &["-x"]];
    let (mut compared, mut failures, mut left) = (0, Vec::new(), 0);
    for flags in flag_sets {
        for cap in &caps {
            let name = cap.0.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let out = LEFT_OUT
                .iter()
                .any(|(file, f, _)| name.starts_with(file) && f.is_none_or(|f| flags.contains(&f)));
            if out {
                left += 1;
                continue;
            }
            let (n, f) = compare(cap, flags);
            compared += n;
            failures.extend(f);
        }
    }
    println!(
        "{} captures, {compared} packet outputs compared over 4 flag sets ({left} capture runs \
         left out), {} differ",
        caps.len(),
        failures.len()
    );
    assert!(compared > 500, "too few packets compared: {compared}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
