//! LLC-encapsulated ATM summary lines (RFC 1483 and Linux Classical IP, default and
//! `-e`) against the installed tcpdump, line by line, on the corpus's captures of
//! both and on frames built here: LLC/SNAP around IPv4, ARP and IPv6, OSI and IP
//! SAPs, bare IPv4 (Classical IP), a Fore 802.6 header (RFC 1483), each whole and cut.
//! OSI frames (RFC 1483's Cisco NLPID, the OSI SAP) and LLC XID frames, which netsift
//! prints behind no link, are counted, not compared. Skipped, with a message, when tcpdump is absent.

mod common;

use common::build::{arp_packet, icmp_echo_request, ipv4_between, ipv6, udp};
use common::corpus_captures_of;
use common::tcpdump::have_tcpdump;
use common::write::{compare_lines, flag_set, write_pcap};
use netsift_wire::LinkType;

fn frames(lt: LinkType) -> Vec<Vec<u8>> {
    let ip = ipv4_between(17, [10, 0, 0, 1], [10, 0, 0, 2], &udp(53, 53, &[0; 12]));
    let snap = |et: u16, body: &[u8]| {
        let mut v = vec![0xaa, 0xaa, 0x03, 0, 0, 0];
        v.extend_from_slice(&et.to_be_bytes());
        v.extend_from_slice(body);
        v
    };
    let mut v = vec![
        snap(
            0x0800,
            &ipv4_between(1, [1, 2, 3, 4], [5, 6, 7, 8], &icmp_echo_request()),
        ),
        snap(
            0x0806,
            &arp_packet(1, [0; 6], [10, 0, 0, 1], [0; 6], [10, 0, 0, 2]),
        ),
        snap(0x86dd, &ipv6(17, &udp(1, 2, b"x"))),
        [&[0x06, 0x06, 0x03][..], &ip].concat(),
        [&[0xfe, 0xfe, 0x03, 0x81, 1, 2][..], &[0; 20]].concat(),
    ];
    if lt == LinkType::ATM_CLIP {
        v.push(ip);
    } else {
        v.push([&[0x11u8; 20][..], &snap(0x0800, &ip)].concat());
        v.push([&[0x03, 0xcc][..], &ip].concat());
    }
    v
}

/// Compares every line of `path` under `-n` and `-e`, counting apart OSI (Cisco
/// NLPID, the OSI SAP) and LLC XID information, which netsift prints behind no link.
fn compare(
    path: &std::path::Path,
    lt: LinkType,
    recs: &[(Vec<u8>, u32)],
) -> (usize, usize, Vec<String>) {
    let sets = [flag_set(&[]), flag_set(&["-e"])];
    compare_lines(path, lt, recs, &sets, |data, ours| {
        matches!(data.first(), Some(0x03 | 0xfe)) || ours.contains("Unnumbered, xid,")
    })
}

#[test]
fn llc_atm_lines_match_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let (mut compared, mut other, mut failures) = (0, 0, Vec::new());
    let dir = std::env::temp_dir().join(format!("netsift-print-atm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut runs = Vec::new();
    for lt in [LinkType::ATM_RFC1483, LinkType::ATM_CLIP] {
        let mut recs = Vec::new();
        for f in frames(lt) {
            let wire = f.len() as u32;
            for cut in [1usize, 3, 5, 8, 16, 21, 30] {
                if cut < f.len() {
                    recs.push((f[..cut].to_vec(), wire));
                }
            }
            recs.push((f, wire));
        }
        let path = dir.join(format!("{lt}.pcap"));
        write_pcap(&path, lt, &recs);
        runs.push((path, lt, recs));
    }
    runs.extend(corpus_captures_of(&[
        LinkType::ATM_RFC1483,
        LinkType::ATM_CLIP,
    ]));
    for (path, lt, recs) in runs {
        let (n, o, f) = compare(&path, lt, &recs);
        compared += n;
        other += o;
        failures.extend(f);
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "{compared} ATM lines compared, {} differ, {other} of OSI or LLC XID counted apart",
        failures.len()
    );
    assert!(compared > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
