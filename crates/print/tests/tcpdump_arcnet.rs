//! ARCNET summary lines (default, `-e`, `-e -q`) against the installed tcpdump, line
//! by line: on the corpus's Linux ARCNET captures and on BSD ARCNET frames built here
//! (IPv4, ARP, IPv6 and other protocol bytes, RFC 1051 and RFC 1201 headers, first,
//! middle and exception fragments, each whole and cut). Where the protocol byte is
//! one netsift does not print (AppleTalk's DDP), the line is counted, not compared. Skipped, with a message, when tcpdump is absent.

mod common;

use common::build::{arp_packet, icmp_echo_request, ipv4_between, ipv6, udp};
use common::corpus_captures_of;
use common::tcpdump::have_tcpdump;
use common::write::{compare_lines, flag_set, write_pcap, FlagSet};
use netsift_wire::LinkType;

/// BSD ARCNET frames: (protocol byte, RFC 1201 header or none, payload).
fn bsd_frames() -> Vec<Vec<u8>> {
    let ip = ipv4_between(1, [10, 0, 0, 1], [10, 0, 0, 2], &icmp_echo_request());
    let arp = arp_packet(1, [0; 6], [10, 0, 0, 1], [0; 6], [10, 0, 0, 2]);
    let v6 = ipv6(17, &udp(1, 2, b"x"));
    let mut out = Vec::new();
    for (ty, body) in [
        (240u8, &ip),
        (241, &arp),
        (212, &ip),
        (213, &arp),
        (214, &arp),
        (0xc4, &v6),
        (250, &ip),
        (0x80, &ip),
    ] {
        let phds: &[&[u8]] = if matches!(ty, 240 | 241 | 0x80) {
            &[&[]]
        } else {
            &[
                &[0, 0x12, 0x34],
                &[3, 0, 1],
                &[2, 0, 1],
                &[0xff, ty, 5, 0xab, 0xcd],
            ]
        };
        for h in phds {
            let mut f = vec![0x0e, 0xd4, ty];
            f.extend_from_slice(h);
            f.extend_from_slice(body);
            out.push(f);
        }
    }
    out
}

fn sets() -> [FlagSet; 3] {
    [flag_set(&[]), flag_set(&["-e"]), flag_set(&["-e", "-q"])]
}

/// Compares every line of `path`, counting apart AppleTalk (221), whose DDP
/// netsift does not print.
fn compare(
    path: &std::path::Path,
    lt: LinkType,
    recs: &[(Vec<u8>, u32)],
) -> (usize, usize, Vec<String>) {
    let at = if lt == LinkType::ARCNET { 2 } else { 4 };
    compare_lines(path, lt, recs, &sets(), |data, _| {
        data.get(at) == Some(&221)
    })
}

#[test]
fn arcnet_lines_match_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let (mut compared, mut other, mut failures) = (0, 0, Vec::new());
    for (path, lt, recs) in corpus_captures_of(&[LinkType::ARCNET_LINUX]) {
        let (n, o, f) = compare(&path, lt, &recs);
        compared += n;
        other += o;
        failures.extend(f);
    }
    let dir = std::env::temp_dir().join(format!("netsift-print-arcnet-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("arcnet.pcap");
    let mut recs = Vec::new();
    for f in bsd_frames() {
        let wire = f.len() as u32;
        for cut in [2usize, 3, 5, 8, 12, 30] {
            if cut < f.len() {
                recs.push((f[..cut].to_vec(), wire));
            }
        }
        recs.push((f, wire));
    }
    write_pcap(&path, LinkType::ARCNET, &recs);
    let (n, o, f) = compare(&path, LinkType::ARCNET, &recs);
    compared += n;
    other += o;
    failures.extend(f);
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "{compared} ARCNET lines compared, {} differ, {other} of AppleTalk counted apart",
        failures.len()
    );
    assert!(compared > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
