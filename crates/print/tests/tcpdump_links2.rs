//! The link types printed after issue 26's third part, against the installed
//! tcpdump on every corpus capture of them, packet by packet, whole output
//! (line, continuation lines, dump) with `-nn`, `-e`, `-v` and `-x`: Frame
//! Relay and FRF.16, Marvell DSA/EDSA and Broadcom switch tags, IPoIB,
//! NFLOG, vsock, PKTAP, PPP in HDLC framing, SunATM, the Juniper Ethernet,
//! ATM1, ES and monitor encapsulations, IEEE 802.15.4 (to its addresses),
//! ARCnet and Linux ARCnet, SLIP and BSD/OS SLIP (with Van Jacobson's
//! compressed TCP under `-e`, also on a capture written here), Solaris ipnet, and
//! tcpdump's `UNSUPPORTED` dump for
//! a link type with no printer (D-Bus, 160). Skipped, with a message, when
//! tcpdump or the corpus is absent.
//!
//! Left out, with the payload netsift does not print: see `LEFT_OUT`.

mod common;

use common::build::{ipv4, tcp};
use common::corpus_captures_of;
use common::tcpdump::have_tcpdump;
use common::whole::compare;
use common::write::with_written;
use netsift_wire::LinkType;

/// Captures (or, with flags, one flag set of them) whose packets carry what
/// no netsift printer decodes yet.
const LEFT_OUT: [(&str, Option<&str>, &str); 8] = [
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

/// A SLIP frame: the 16-byte header (direction, then the first 15 bytes of
/// the compressed header, `chdr` first) before `ip`.
fn slip(dir: u8, chdr: &[u8], ip: &[u8]) -> Vec<u8> {
    let mut f = vec![0u8; 16];
    f[0] = dir;
    f[1..1 + chdr.len()].copy_from_slice(chdr);
    f.extend_from_slice(ip);
    f
}

/// Van Jacobson's compressed TCP on SLIP under `-e`: uncompressed TCP
/// setting a connection's length, then compressed headers with each change
/// flag, both forms of each number (one byte, or zero and two bytes; a
/// negative window), the special cases that print the last length, a new
/// connection, a bad direction and headers cut short, in one capture so that
/// tcpdump's per-capture state carries from packet to packet.
#[test]
fn compressed_slip_prints_what_tcpdump_prints() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let seg = ipv4(6, &tcp(1000, 23, 0x18, b"hello, slip"), &[]);
    // An uncompressed TCP header: type 0x70, the connection in the IP
    // protocol field of the saved header (byte 9).
    let mut utcp = vec![0x70u8; 1];
    utcp.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 7]);
    let frames: Vec<Vec<u8>> = vec![
        slip(0, &utcp, &seg),
        slip(1, &utcp, &seg),
        // Compressed: flags, [connection], checksum, then the changes.
        slip(0, &[0x80 | 0x0b, 0, 0], &seg),
        slip(1, &[0x80 | 0x0f, 0, 0], &seg),
        slip(0, &[0x80 | 0x40 | 0x0b, 7, 0, 0], &seg),
        slip(0, &[0x80 | 0x01, 0, 0, 5], &seg),
        slip(0, &[0x80 | 0x02, 0, 0, 0, 0xff, 0x38], &seg),
        slip(0, &[0x80 | 0x02, 0, 0, 48], &seg),
        slip(1, &[0x80 | 0x04 | 0x08, 0, 0, 0, 0x12, 0x34, 9], &seg),
        slip(
            0,
            &[0x80 | 0x40 | 0x20 | 0x05, 9, 0, 0, 3, 0, 1, 0, 2],
            &seg,
        ),
        slip(2, &[0x80 | 0x01, 0, 0, 5], &seg),
        slip(0, &[0x30], &seg),
        slip(0, &[0x80 | 0x01, 0, 0, 5], &seg[..30]),
        slip(1, &utcp, &seg[..24]),
    ];
    let (compared, failures) = with_written("slip", LinkType(8), frames, |cap| {
        let mut failures = Vec::new();
        let mut compared = 0;
        for flags in [&["-e"][..], &["-e", "-x"], &["-e", "-v"], &[]] {
            let (n, f) = compare(cap, flags);
            compared += n;
            failures.extend(f);
        }
        (compared, failures)
    });
    println!("{compared} SLIP packet outputs compared");
    assert!(compared >= 4 * 14, "too few compared: {compared}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
