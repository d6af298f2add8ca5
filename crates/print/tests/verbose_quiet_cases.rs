//! Verbose and quiet summaries of hand-made packets, against the lines tcpdump
//! 4.99.3 prints for the same bytes (recorded with `tcpdump -n -v -r` and
//! `tcpdump -n -q -r`; when tcpdump is installed the test also runs it on them).

mod common;

use common::build::*;
use common::tcpdump::{have_tcpdump, tcpdump_blocks};
use netsift_print::{Summarizer, SummaryOptions};
use netsift_wire::LinkType;

const A: [u8; 4] = [10, 0, 0, 1];
const B: [u8; 4] = [10, 0, 0, 2];

/// Fills in the TCP or UDP checksum of an IPv4 packet without options.
fn fix_l4_cksum(ip: &mut [u8], at: usize) {
    let seg_len = ip.len() - 20;
    let mut ph = Vec::new();
    ph.extend_from_slice(&ip[12..20]);
    ph.extend_from_slice(&[0, ip[9]]);
    ph.extend_from_slice(&(seg_len as u16).to_be_bytes());
    ph.extend_from_slice(&ip[20..]);
    let c = csum(&ph);
    ip[20 + at..22 + at].copy_from_slice(&c.to_be_bytes());
}

/// The packets, each an Ethernet frame.
fn packets() -> Vec<Vec<u8>> {
    // A SYN with the builder's options (the last of them an MPTCP option that
    // tcpdump calls bad) and a checksum left at zero.
    let syn = ipv4_between(6, A, B, &tcp(1234, 80, 0x02, &[]));
    // The same with the right checksum.
    let mut good = syn.clone();
    fix_l4_cksum(&mut good, 16);
    // A reset that says why.
    let mut rst = ipv4_between(
        6,
        A,
        B,
        &tcp_seg(80, 1234, 5, 0, 0x04, &[], b"connection refused\x01"),
    );
    fix_l4_cksum(&mut rst, 16);
    // A record-route option, a wrong header checksum, TOS with ECN; to the mDNS
    // port, too short for a message.
    let mut rr = ipv4(17, &udp(5353, 9999, b"hello"), &[7, 7, 4, 0, 0, 0, 0, 0]);
    rr[1] = 0x03;
    rr[10] ^= 0x55;
    // UDP over IPv6 with its checksum computed.
    let mut u6 = ipv6(17, &udp(4000, 5000, b"abcd"));
    let mut ph = u6[8..40].to_vec();
    ph.extend_from_slice(&[0, 0, 0, 12, 0, 0, 0, 17]);
    ph.extend_from_slice(&u6[40..]);
    let c = csum(&ph);
    u6[46..48].copy_from_slice(&c.to_be_bytes());
    // A port unreachable quoting a UDP datagram.
    let quoted = ipv4_between(17, B, A, &udp(33000, 33434, &[0; 12]));
    let mut unreach = vec![3, 3, 0, 0, 0, 0, 0, 0];
    unreach.extend_from_slice(&quoted);
    let c = csum(&unreach);
    unreach[2..4].copy_from_slice(&c.to_be_bytes());
    let unreach = ipv4_between(1, A, B, &unreach);
    let arp = arp_packet(1, [2, 0, 0, 0, 0, 1], A, [0; 6], B);
    vec![
        eth(0x0800, &syn),
        eth(0x0800, &good),
        eth(0x0800, &rst),
        eth(0x0800, &rr),
        eth(0x86dd, &u6),
        eth(0x0800, &unreach),
        eth(0x0806, &arp),
    ]
}

const VERBOSE: &[&str] = &[
    "IP (tos 0x0, ttl 64, id 1, offset 0, flags [none], proto TCP (6), \
     length 80)\n    10.0.0.1.1234 > 10.0.0.2.80: Flags [S], \
     cksum 0x0000 (incorrect -> 0x78a8), seq 1, win 65535, \
     options [mss 1460,sackOK,TS val 1 ecr 0,nop,wscale 7,sack 1 {1:2},nop,nop,tfo  cookiereq,mptcp 4 dss[bad opt]]",
    "IP (tos 0x0, ttl 64, id 1, offset 0, flags [none], proto TCP (6), \
     length 80)\n    10.0.0.1.1234 > 10.0.0.2.80: Flags [S], cksum 0x78a8 (correct), \
     seq 1, win 65535, \
     options [mss 1460,sackOK,TS val 1 ecr 0,nop,wscale 7,sack 1 {1:2},nop,nop,tfo  cookiereq,mptcp 4 dss[bad opt]]",
    "IP (tos 0x0, ttl 64, id 1, offset 0, flags [none], proto TCP (6), \
     length 59)\n    10.0.0.1.80 > 10.0.0.2.1234: Flags [R], cksum 0x19db (correct), \
     seq 5:24, win 65535, length 19 [RST connection refused^A]",
    "IP (tos 0x3,CE, ttl 64, id 4660, offset 0, flags [DF], proto UDP (17), length 41, \
     options (RR 0.0.0.0,EOL), \
     bad cksum 5287 (->784)!)\n    10.0.0.1.5353 > 10.0.0.2.9999: domain [length 5 < 12] (invalid)",
    "IP6 (hlim 64, \
     next-header UDP (17) payload length: 12) fe80::1.4000 > ff02::fb.5000: [udp sum ok] UDP, \
     length 4",
    "IP (tos 0x0, ttl 64, id 1, offset 0, flags [none], proto ICMP (1), \
     length 68)\n    10.0.0.1 > 10.0.0.2: ICMP 10.0.0.1 udp port 33434 unreachable, \
     length 48\n\tIP (tos 0x0, ttl 64, id 1, offset 0, flags [none], proto UDP (17), \
     length 40)\n    10.0.0.2.33000 > 10.0.0.1.33434: UDP, length 12",
    "ARP, Ethernet (len 6), IPv4 (len 4), Request who-has 10.0.0.2 tell 10.0.0.1, \
     length 28",
];

const QUIET: &[&str] = &[
    "IP 10.0.0.1.1234 > 10.0.0.2.80: tcp 0",
    "IP 10.0.0.1.1234 > 10.0.0.2.80: tcp 0",
    "IP 10.0.0.1.80 > 10.0.0.2.1234: tcp 19",
    "IP 10.0.0.1.5353 > 10.0.0.2.9999: UDP, length 5",
    "IP6 fe80::1.4000 > ff02::fb.5000: UDP, length 4",
    "IP 10.0.0.1 > 10.0.0.2: ICMP 10.0.0.1 udp port 33434 unreachable, length 48",
    "ARP, Request who-has 10.0.0.2 tell 10.0.0.1, length 28",
];

fn lines(opts: SummaryOptions) -> Vec<String> {
    let mut s = Summarizer::with_options(opts);
    packets()
        .iter()
        .map(|p| s.summarize(LinkType::EN10MB, p, p.len() as u32))
        .collect()
}

fn verbose() -> SummaryOptions {
    SummaryOptions {
        verbose: 1,
        ..SummaryOptions::default()
    }
}

fn quiet() -> SummaryOptions {
    SummaryOptions {
        quiet: true,
        ..SummaryOptions::default()
    }
}

#[test]
fn verbose_lines() {
    assert_eq!(lines(verbose()), VERBOSE);
}

#[test]
fn quiet_lines() {
    assert_eq!(lines(quiet()), QUIET);
}

/// `-vv` adds to `-v` what tcpdump's does (UDP checksums over IPv4, the
/// sequence number of a bare ACK), checked against tcpdump when installed.
#[test]
fn more_verbose_prints_as_tcpdump_vv() {
    if !have_tcpdump() {
        eprintln!("skipping: tcpdump is not installed");
        return;
    }
    let vv = SummaryOptions {
        verbose: 2,
        ..SummaryOptions::default()
    };
    let path = write_capture("vv");
    let theirs = tcpdump_blocks(&path, &["-vv"]);
    let _ = std::fs::remove_file(&path);
    let ours = lines(vv);
    assert_ne!(ours, VERBOSE, "-vv adds nothing to these packets");
    assert_eq!(theirs.expect("tcpdump -vv"), ours);
}

/// The packets as a pcap file in the temporary directory.
fn write_capture(tag: &str) -> std::path::PathBuf {
    let mut pcap = Vec::new();
    pcap.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    pcap.extend_from_slice(&[2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    pcap.extend_from_slice(&65535u32.to_le_bytes());
    pcap.extend_from_slice(&1u32.to_le_bytes());
    for p in packets() {
        pcap.extend_from_slice(&[0; 8]);
        pcap.extend_from_slice(&(p.len() as u32).to_le_bytes());
        pcap.extend_from_slice(&(p.len() as u32).to_le_bytes());
        pcap.extend_from_slice(&p);
    }
    let name = format!("netsift-vq-{tag}-{}.pcap", std::process::id());
    let path = std::env::temp_dir().join(name);
    std::fs::write(&path, &pcap).expect("temporary capture");
    path
}

/// The recorded lines are tcpdump's (when it is installed).
#[test]
fn recorded_lines_are_tcpdumps() {
    if !have_tcpdump() {
        eprintln!("skipping: tcpdump is not installed");
        return;
    }
    let path = write_capture("v");
    let v = tcpdump_blocks(&path, &["-v"]);
    let q = tcpdump_blocks(&path, &["-q"]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(v.expect("tcpdump -v"), VERBOSE);
    assert_eq!(q.expect("tcpdump -q"), QUIET);
}
