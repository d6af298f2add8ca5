//! pflog summary lines, with and without `-e`, against the installed tcpdump on a
//! capture this test writes (the corpus has no pflog capture): headers with every
//! reason, action and direction value and some beyond, rules with and without a
//! subrule and ruleset, names with unprintable bytes, IPv4 and IPv6 and other
//! address families, short and oversized header lengths, frames cut short.
//! Skipped, with a message, when tcpdump is absent.

mod common;

use common::tcpdump::{have_tcpdump, tcpdump_records};
use netsift_print::{Summarizer, SummaryOptions};
use netsift_wire::LinkType;

/// An IPv4 UDP datagram 10.0.0.1:1000 > 10.0.0.2:2000 with 4 payload bytes.
const IPV4_UDP: [u8; 32] = [
    0x45, 0, 0, 32, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2, 0x03, 0xe8, 0x07, 0xd0, 0,
    12, 0, 0, 1, 2, 3, 4,
];

/// An IPv6 UDP datagram ::1:1000 > ::2:2000 with no payload.
fn ipv6_udp() -> Vec<u8> {
    let mut v = vec![0x60, 0, 0, 0, 0, 8, 17, 64];
    v.extend_from_slice(&[0; 15]);
    v.push(1);
    v.extend_from_slice(&[0; 15]);
    v.push(2);
    v.extend_from_slice(&[0x03, 0xe8, 0x07, 0xd0, 0, 8, 0, 0]);
    v
}

/// A pflog header (`struct pfloghdr` as Linux lays it out, 64 bytes, padded to
/// the length byte rounded up to 4) and `payload`.
fn frame(i: usize, len_byte: u8, af: u8, payload: &[u8]) -> Vec<u8> {
    let mut h = vec![0u8; 64.max((len_byte as usize + 3) & !3)];
    h[0] = len_byte;
    h[1] = af;
    h[2] = (i % 12) as u8; // action
    h[3] = (i % 18) as u8; // reason
    let ifname: &[u8] = [&b"em0"[..], b"pflog0\x01", b"abcdefghijklmnop"][i % 3];
    h[4..4 + ifname.len()].copy_from_slice(ifname);
    if i.is_multiple_of(2) {
        h[20..28].copy_from_slice(b"rs\xe9nine\x7f");
        h[40..44].copy_from_slice(&(i as u32).to_be_bytes());
    } else {
        h[40..44].copy_from_slice(&u32::MAX.to_be_bytes());
    }
    h[36..40].copy_from_slice(&(1000 + i as u32).to_be_bytes());
    h[60] = (i % 4) as u8;
    h.extend_from_slice(payload);
    h
}

fn pcap(frames: &[(Vec<u8>, u32)]) -> Vec<u8> {
    let mut f = Vec::new();
    for w in [
        0xa1b2_c3d4u32,
        0x0004_0002,
        0,
        0,
        262_144,
        LinkType::PFLOG.0,
    ] {
        f.extend_from_slice(&w.to_le_bytes());
    }
    for (i, (data, wire)) in frames.iter().enumerate() {
        for w in [i as u32, 0, data.len() as u32, *wire] {
            f.extend_from_slice(&w.to_le_bytes());
        }
        f.extend_from_slice(data);
    }
    f
}

#[test]
fn pflog_lines_match_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let v6 = ipv6_udp();
    let mut frames = Vec::new();
    for i in 0..36 {
        let (af, payload) = match i % 6 {
            0 | 3 => (2, &IPV4_UDP[..]),
            1 => (24, &v6[..]),
            2 => (28 + 2 * (i % 2) as u8, &v6[..]),
            4 => (10, &v6[..]),
            _ => (99, &IPV4_UDP[..]),
        };
        let len_byte = [61, 61, 61, 44, 48, 100][i % 6];
        let mut data = frame(i, len_byte, af, payload);
        let wire = data.len() as u32;
        // Cut some in the header, some in the IP header.
        match i % 9 {
            7 => data.truncate(50),
            8 => data.truncate(70),
            _ => {}
        }
        frames.push((data, wire));
    }
    let path = std::env::temp_dir().join(format!("netsift-pflog-{}.pcap", std::process::id()));
    std::fs::write(&path, pcap(&frames)).expect("write the capture");
    let mut failures = Vec::new();
    for (flags, link_header) in [(&[][..], false), (&["-e"][..], true)] {
        let records = tcpdump_records(&path, flags).expect("tcpdump runs");
        assert_eq!(records.len(), frames.len(), "tcpdump's records");
        let opts = SummaryOptions {
            link_header,
            ..SummaryOptions::default()
        };
        let mut s = Summarizer::with_options(opts);
        for (i, ((data, wire), theirs)) in frames.iter().zip(&records).enumerate() {
            let ours = s.summarize(LinkType::PFLOG, data, *wire);
            if ours.trim_end() != theirs {
                failures.push(format!(
                    "#{i} {flags:?}\n   ours: {ours}\n   tcpd: {theirs}"
                ));
            }
        }
    }
    if std::env::var_os("NETSIFT_KEEP").is_none() {
        let _ = std::fs::remove_file(&path);
    }
    println!(
        "{} pflog frames, with and without -e: {} lines differ",
        frames.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
