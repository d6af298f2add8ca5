//! LLDP (with DCBX), CDP, the slow protocols, UDLD, DTP, VTP and EAPOL against
//! the installed tcpdump, with `-nn`, `-nn -v` and `-nn -vv`, on every corpus
//! capture that carries them, on built frames of every TLV tcpdump decodes
//! (whole and cut short) and on those frames with random bytes overwritten:
//! each such packet's full text, continuation and hex dump lines included,
//! must be tcpdump's. Packets of other protocols in
//! the same captures (DHCP, ICMPv6...) are left to their printers' tests.
//! Left out: erspan-type-i-4.pcap and various_gre.pcap (their LLDP/CDP is
//! inside GRE/ERSPAN, whose printers are not this area's) and vtp_asan*.pcap
//! (VTP over FRF.16 Frame Relay, a link type netsift does not decode; the
//! built frames below cover VTP). Skipped, with a
//! message, without tcpdump or the corpus.

mod common;

use common::build::eth;
use common::capture::read_capture;
use common::tcpdump::have_tcpdump;
use common::tcpdump_and_corpus;
use common::write::write_pcap;
use netsift_print::{DefaultPrint, Summarizer, SummaryOptions};
use netsift_wire::LinkType;
use std::process::Command;

const CAPTURES: &[&str] = &[
    "3560_CDP.pcap",
    "DTP.pcap",
    "LACP.pcap",
    "LLDP_and_CDP.pcap",
    "UDLD.pcap",
    "dcb_ets.pcap",
    "dcb_pfc.pcap",
    "dcb_qcn.pcap",
    "eap_extract_read2_asan.pcap",
    "eapon1.pcap",
    "evb.pcap",
    "hoobr_safeputs.pcap",
    "lldp-app-priority.pcap",
    "lldp-infinite-loop-1.pcap",
    "lldp-infinite-loop-2.pcap",
    "lldp_8021_linkagg.pcap",
    "lldp_8023_mtu-oobr.pcap",
    "lldp_asan.pcap",
    "lldp_mgmt_addr_tlv_asan.pcap",
    "lldp_mudurl.pcap",
    "rpvstp-trunk-native-vid5.pcap",
    "slow-ossp.pcap",
    "udld-inf-loop-1.pcapng",
];

/// Whether an Ethernet frame carries one of this area's protocols: LLDP, slow
/// protocols or EAPOL by EtherType, or Cisco's SNAP CDP, VTP, DTP or UDLD.
fn is_ours(lt: LinkType, d: &[u8]) -> bool {
    if lt != LinkType::EN10MB || d.len() < 14 {
        return false;
    }
    let mut at = 12;
    let mut t = u16::from_be_bytes([d[at], d[at + 1]]);
    while (t == 0x8100 || t == 0x88a8) && d.len() >= at + 6 {
        at += 4;
        t = u16::from_be_bytes([d[at], d[at + 1]]);
    }
    match t {
        0x88cc | 0x8809 | 0x888e => true,
        0..=1500 => {
            let s = &d[at + 2..];
            s.len() >= 8
                && s[..3] == [0xaa, 0xaa, 0x03]
                && s[3..6] == [0, 0, 0x0c]
                && matches!(
                    u16::from_be_bytes([s[6], s[7]]),
                    0x2000 | 0x2003 | 0x2004 | 0x0111
                )
        }
        _ => false,
    }
}

/// `tcpdump -nn [flags] -r file`, one string per packet without its
/// timestamp, continuation lines kept.
fn tcpdump_packets(path: &std::path::Path, flags: &[&str]) -> Vec<String> {
    let out = Command::new("tcpdump")
        .arg("-nn")
        .args(flags)
        .arg("-r")
        .arg(path)
        .env("TZ", "UTC")
        .output()
        .expect("tcpdump runs");
    let text = String::from_utf8_lossy(&out.stdout);
    // `HH:MM:SS.frac `: the length of the timestamp and its blank.
    let stamp = |l: &str| -> Option<usize> {
        let b = l.as_bytes();
        let digits =
            |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
        if !(digits(0..2) && digits(3..5) && digits(6..8))
            || b[2] != b':'
            || b[5] != b':'
            || b.get(8) != Some(&b'.')
        {
            return None;
        }
        let n = b[9..].iter().take_while(|c| c.is_ascii_digit()).count();
        (n > 0 && b.get(9 + n) == Some(&b' ')).then_some(10 + n)
    };
    let mut recs: Vec<String> = Vec::new();
    for line in text.lines() {
        match (stamp(line), recs.last_mut()) {
            (Some(n), _) => recs.push(line[n..].to_string()),
            (None, Some(last)) => {
                last.push('\n');
                last.push_str(line);
            }
            (None, None) => {}
        }
    }
    recs
}

/// Compares every packet of `path` (with `only_ours`, those that `is_ours`) under `tcpdump -nn` with
/// `verbose` times `-v`: returns packets and lines compared, and the failures.
fn compare(
    path: &std::path::Path,
    only_ours: bool,
    verbose: u8,
    failures: &mut Vec<String>,
) -> (usize, usize) {
    let flags: &[&str] = [&[][..], &["-v"], &["-vv"]][verbose as usize];
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let bytes = std::fs::read(path).expect("a capture file");
    let packets = read_capture(&bytes).expect("a capture");
    let theirs = tcpdump_packets(path, flags);
    assert_eq!(packets.len(), theirs.len(), "{name} {flags:?}: records");
    let mut s = Summarizer::with_options(SummaryOptions {
        verbose,
        default_print: DefaultPrint::On,
        ..SummaryOptions::default()
    });
    let (mut seen, mut lines) = (0, 0);
    for (i, (p, t)) in packets.iter().zip(&theirs).enumerate() {
        let ours = s.summarize(p.linktype, &p.data, p.wire_len);
        if only_ours && !is_ours(p.linktype, &p.data) {
            continue;
        }
        seen += 1;
        lines += t.lines().count();
        if ours.trim_end() != t.trim_end() {
            failures.push(format!(
                "{name} {flags:?} #{i}\n  ours: {ours}\n  tcpd: {t}"
            ));
        }
    }
    (seen, lines)
}

fn report(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} packets differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn link_local_protocols_print_what_tcpdump_prints() {
    let Some(root) = tcpdump_and_corpus("tcpdump") else {
        return;
    };
    let mut failures = Vec::new();
    for verbose in 0..=2u8 {
        let (mut packets_seen, mut lines) = (0, 0);
        for name in CAPTURES {
            let (p, l) = compare(&root.join(name), true, verbose, &mut failures);
            packets_seen += p;
            lines += l;
        }
        println!("verbose {verbose}: {packets_seen} packets, {lines} lines compared");
        assert!(packets_seen > 150, "the corpus has these protocols");
    }
    report(&failures);
}

/// A TLV of LLDP (7-bit type, 9-bit length) or, with `org`, an
/// organization-specific one with that OUI and subtype.
fn lldp_tlv(t: u16, v: &[u8]) -> Vec<u8> {
    let mut b = ((t << 9) | v.len() as u16).to_be_bytes().to_vec();
    b.extend_from_slice(v);
    b
}

fn org(oui: [u8; 3], sub: u8, v: &[u8]) -> Vec<u8> {
    let mut b = oui.to_vec();
    b.push(sub);
    b.extend_from_slice(v);
    lldp_tlv(127, &b)
}

/// An LLDP frame of `tlvs`, with the chassis ID, port ID and TTL first and
/// the end TLV last.
fn lldp(tlvs: &[Vec<u8>]) -> Vec<u8> {
    let mut b = lldp_tlv(1, &[4, 0, 1, 2, 3, 4, 5]);
    b.extend(lldp_tlv(2, b"\x05eth0"));
    b.extend(lldp_tlv(3, &[0, 120]));
    for t in tlvs {
        b.extend_from_slice(t);
    }
    b.extend(lldp_tlv(0, &[]));
    eth(0x88cc, &b)
}

/// A Cisco SNAP frame (802.3 length, LLC, OUI 00:00:0c) of `pid`.
fn snap(pid: u16, payload: &[u8]) -> Vec<u8> {
    let mut b = vec![0xaa, 0xaa, 0x03, 0, 0, 0x0c];
    b.extend_from_slice(&pid.to_be_bytes());
    b.extend_from_slice(payload);
    eth(b.len() as u16, &b)
}

/// A CDP TLV (16-bit type, 16-bit length including the header).
fn cdp_tlv(t: u16, v: &[u8]) -> Vec<u8> {
    let mut b = t.to_be_bytes().to_vec();
    b.extend_from_slice(&(v.len() as u16 + 4).to_be_bytes());
    b.extend_from_slice(v);
    b
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

const IEEE1: [u8; 3] = [0x00, 0x80, 0xc2];
const IEEE3: [u8; 3] = [0x00, 0x12, 0x0f];
const TIA: [u8; 3] = [0x00, 0x12, 0xbb];
const DCBX: [u8; 3] = [0x00, 0x1b, 0x21];

fn lldp_frames() -> Vec<Vec<u8>> {
    let v6: Vec<u8> = (1..=16).collect();
    vec![
        lldp(&[
            lldp_tlv(4, b"uplink\x01port"),
            lldp_tlv(5, b"sw1"),
            lldp_tlv(6, b"Some OS\x00ignored"),
            lldp_tlv(7, &[0x00, 0x14, 0x00, 0x04]),
            lldp_tlv(8, &cat(&[&[5, 1, 10, 0, 0, 1, 2, 0, 0, 0, 7, 3], b"abc"])),
            lldp_tlv(8, &cat(&[&[17, 2], &v6, &[3, 0, 0, 1, 0, 0]])),
            lldp_tlv(8, &[7, 6, 0, 1, 2, 3, 4, 5, 9, 0, 0, 0, 1]),
            lldp_tlv(8, &[3, 99, 1, 2, 2, 0, 0, 0, 1]),
            lldp_tlv(8, &[3, 1, 1, 2]),
            lldp_tlv(20, &[1, 2, 3]),
            lldp_tlv(127, &[0x00, 0x00, 0x0c, 1, 2]),
        ]),
        eth(
            0x88cc,
            &cat(&[
                &lldp_tlv(1, &[5, 1, 192, 0, 2, 1]),
                &lldp_tlv(2, &cat(&[&[4, 2], &v6])),
                &lldp_tlv(1, &[9, 1, 2]),
                &lldp_tlv(2, &[3, 1, 2, 3]),
            ]),
        ),
        lldp(&[
            org(IEEE3, 1, &[3, 0x6c, 0x01, 0x00, 0x10]),
            org(IEEE3, 2, &[0x0f, 1, 3]),
            org(IEEE3, 3, &[3, 0, 0, 0, 9]),
            org(IEEE3, 4, &[0x05, 0xee]),
            org(IEEE3, 9, &[1, 2]),
            org(IEEE3, 4, &[0x05]),
        ]),
        lldp(&[
            org(TIA, 1, &[0x00, 0x33, 3]),
            org(TIA, 2, &[1, 0x60, 0x21, 0xb8]),
            org(
                TIA,
                3,
                &[
                    1, 0x29, 0x1a, 0x2b, 0x3c, 0x4d, 0x2a, 0x1b, 0x2c, 0x3d, 0x4e, 0x11, 0x40, 0,
                    0x12, 0x34, 1,
                ],
            ),
            org(
                TIA,
                3,
                &cat(&[&[2, 16, 2], b"US", &[3, 5], b"Paris", &[6, 4], b"Main"]),
            ),
            org(TIA, 3, &cat(&[&[2, 9, 1], b"DE", &[0, 2], b"xx"])),
            org(TIA, 3, &cat(&[&[3], b"0123456789"])),
            org(TIA, 3, &[7, 1, 2, 3]),
            org(TIA, 4, &[0x51, 0x00, 0x96]),
            org(TIA, 4, &[0x62, 0x07, 0xd0]),
            org(TIA, 5, b"rev A"),
            org(TIA, 11, b"asset\x00x"),
            org(TIA, 20, &[1]),
        ]),
        lldp(&[
            org(IEEE1, 3, &[0, 10, 20]),
            org(IEEE1, 7, &[3, 0, 0, 0, 5]),
            org(IEEE1, 8, &[0xa5, 0x0f]),
            org(IEEE1, 11, &[0xd5, 0x81]),
            org(IEEE1, 12, &[0, 0x61, 0x89, 0x06, 0xa3, 0x0c, 0xbc]),
            org(IEEE1, 12, &[0, 1]),
            org(IEEE1, 13, &[0x0f, 0x1d, 0xe7, 0xa5, 0x6b]),
            org(
                IEEE1,
                14,
                &[0x80, 0, 0x01, 0x23, 0x00, 0x10, 0x01, 0x00, 0x20, 0x02],
            ),
            org(IEEE1, 20, &[9, 9]),
            org([0x00, 0x00, 0x5e], 1, b"https://example.com/mud"),
            org([0x00, 0x00, 0x5e], 2, b"abcd"),
        ]),
        lldp(&[
            org(
                DCBX,
                2,
                &cat(&[
                    &lldp_tlv(1, &[0, 0, 0, 0, 0, 5, 0, 0, 0, 4]),
                    &lldp_tlv(
                        2,
                        &[
                            0, 0, 0xe0, 0, 0x01, 0x23, 0x45, 0x67, 12, 12, 12, 12, 13, 13, 13, 13,
                            8,
                        ],
                    ),
                    &lldp_tlv(3, &[0, 0, 0x40, 0, 0x88, 8]),
                    &lldp_tlv(4, &[0, 0, 0x80, 0, 0x89, 0x06, 0x40, 0x00, 0x01, 0x08]),
                    &lldp_tlv(9, &[1, 2, 3]),
                ]),
            ),
            org(DCBX, 1, &[1, 2]),
            org(DCBX, 2, &lldp_tlv(1, &[0, 1])),
        ]),
    ]
}

fn slow_frames() -> Vec<Vec<u8>> {
    let actor = cat(&[
        &[1, 20, 0x80, 0],
        &[0, 1, 2, 3, 4, 5],
        &[0, 13, 0x80, 0, 0, 22, 0x45, 0, 0, 0],
    ]);
    let oam_info = [
        1, 16, 1, 0, 5, 0x05, 0x1f, 0x05, 0xee, 0x00, 0x12, 0x0f, 1, 2, 3, 4,
    ];
    let mut event = vec![1, 40, 0, 7];
    event.extend((0..36).map(|i| i as u8));
    vec![
        eth(
            0x8809,
            &cat(&[
                &[1, 1],
                &actor,
                &[5, 4, 1, 2],
                &[2, 10, 0, 0],
                &[3, 16, 0, 9],
                &[0; 12],
                &[0, 0],
            ]),
        ),
        eth(0x8809, &[1, 1, 1, 1]),
        eth(
            0x8809,
            &cat(&[
                &[2, 1],
                &[1, 16, 0, 7, 0, 1, 2, 3, 4, 5, 0, 0, 0, 9, 0, 0],
                &[0, 0],
            ]),
        ),
        eth(0x8809, &[2, 2, 1, 16]),
        eth(
            0x8809,
            &cat(&[
                &[3, 0x00, 0x5a, 0],
                &oam_info,
                &[0xfe, 5, 1, 2, 3],
                &[1, 4, 0, 0],
                &[0, 0],
            ]),
        ),
        eth(
            0x8809,
            &cat(&[&[3, 0x00, 0x01, 1, 0, 9], &event, &[0xfe, 4, 1, 2], &[0, 2]]),
        ),
        eth(0x8809, &[3, 0, 0, 4, 1]),
        eth(0x8809, &[3, 0, 0, 2, 7, 0, 1]),
        eth(0x8809, &[3, 0, 0, 9, 1, 2, 3]),
        eth(0x8809, &[3, 0]),
        eth(0x8809, &[1]),
        eth(0x8809, &[7, 1, 2, 3]),
    ]
}

fn eap_frames() -> Vec<Vec<u8>> {
    let eap = |code: u8, rest: &[u8]| {
        let len = 4 + rest.len() as u16;
        let mut b = vec![1, 0];
        b.extend_from_slice(&len.to_be_bytes());
        b.extend_from_slice(&[code, 7]);
        b.extend_from_slice(&len.to_be_bytes());
        b.extend_from_slice(rest);
        eth(0x888e, &b)
    };
    vec![
        eap(1, &[1]),
        eap(2, b"\x01user@example"),
        eap(1, b"\x02Hello"),
        eap(2, &[3, 4, 13, 99]),
        eap(1, &[13, 0xa0, 0, 0, 1, 0]),
        eap(1, &[21, 0x41]),
        eap(2, &[43, 0x81, 0, 0]),
        eap(2, &[23, 1]),
        eap(2, &[18, 99]),
        eap(1, &[4, 16]),
        eap(3, &[]),
        eap(2, &[2]),
        eth(0x888e, &[1, 0, 0, 6, 1, 1, 0, 9, 1, 0]),
        eth(0x888e, &[2, 1, 0, 0]),
        eth(0x888e, &[2, 3, 0, 2, 1, 2]),
    ]
}

fn cisco_frames() -> Vec<Vec<u8>> {
    let v6: Vec<u8> = (1..=16).collect();
    let addrs = cat(&[
        &[0, 0, 0, 3],
        &[1, 1, 0xcc, 0, 4, 10, 1, 2, 3],
        &[2, 8, 0xaa, 0xaa, 3, 0, 0, 0, 0x86, 0xdd, 0, 16],
        &v6,
        &[9, 2, 1, 2, 0, 3, 7, 8, 9],
        &[0xff],
    ]);
    let cdp = |tlvs: &[Vec<u8>]| snap(0x2000, &cat(&[&[2, 180, 0x12, 0x34], &tlvs.concat()]));
    let udld = |tlvs: &[Vec<u8>]| snap(0x0111, &cat(&[&[0x21, 0x03, 0xab, 0xcd], &tlvs.concat()]));
    let vtp_head = |ty: u8, third: u8| {
        let mut b = vec![1, ty, third, 3];
        b.extend_from_slice(b"lab");
        b.resize(36, 0);
        b
    };
    vec![
        cdp(&[
            cdp_tlv(1, b"sw\x07x"),
            cdp_tlv(2, &addrs),
            cdp_tlv(3, b"Gi0/1"),
            cdp_tlv(4, &[0, 0, 0, 0x29]),
            cdp_tlv(5, b"IOS\nline two"),
            cdp_tlv(7, &[10, 0, 0, 0, 8, 192, 168, 0, 0, 16]),
            cdp_tlv(7, &[1, 2, 3]),
            cdp_tlv(8, &[1, 2]),
            cdp_tlv(0x0a, &[0, 5, 1]),
            cdp_tlv(0x0b, &[0]),
            cdp_tlv(0x0e, &[1, 0, 100]),
            cdp_tlv(0x0f, &[0x20, 0]),
            cdp_tlv(0x10, &[0x1f, 0x40]),
            cdp_tlv(0x11, &[0, 0, 5, 0xdc]),
            cdp_tlv(0x12, &[0xff]),
            cdp_tlv(0x15, &[1, 2]),
            cdp_tlv(0x16, &[0, 0, 0, 0]),
            cdp_tlv(0x17, b"\x01room 1"),
            cdp_tlv(0x30, &[9, 9, 9]),
        ]),
        cdp(&[cdp_tlv(2, &[0, 0, 0, 2, 1, 1, 0xcc, 0, 4, 1, 2, 3, 4])]),
        cdp(&[cdp_tlv(1, b"a"), vec![0, 3, 0, 2]]),
        cdp(&[vec![0, 1, 0, 40, 1]]),
        cdp(&[vec![0, 1]]),
        snap(0x2000, &[2, 180]),
        udld(&[
            cdp_tlv(1, b"FOC123"),
            cdp_tlv(2, b"Gi0/1"),
            cdp_tlv(3, b"\x00\x00\x00\x01echo"),
            cdp_tlv(4, &[7]),
            cdp_tlv(5, &[5]),
            cdp_tlv(6, b"switch"),
            cdp_tlv(7, &[0, 0, 1, 0]),
            cdp_tlv(9, &[1]),
        ]),
        udld(&[cdp_tlv(4, &[7, 8])]),
        udld(&[vec![0, 1, 0, 4]]),
        snap(0x0111, &[0x21, 0x03]),
        snap(
            0x2004,
            &cat(&[
                &[1],
                &cdp_tlv(1, b"dom\x00"),
                &cdp_tlv(2, &[0x81]),
                &cdp_tlv(3, &[0xa5]),
                &cdp_tlv(4, &[0, 1, 2, 3, 4, 5]),
                &cdp_tlv(9, &[1]),
            ]),
        ),
        snap(0x2004, &cat(&[&[1], &cdp_tlv(2, &[1, 2])])),
        snap(0x2004, &[1, 0, 1, 0, 40]),
        snap(0x2004, &[1, 0, 1]),
        snap(0x2004, &[1, 0, 0, 0, 4]),
        snap(
            0x2003,
            &cat(&[
                &vtp_head(1, 1),
                &[0, 0, 0, 9, 10, 0, 0, 1],
                &[0x39; 12],
                &[0xab; 16],
            ]),
        ),
        snap(
            0x2003,
            &cat(&[
                &vtp_head(2, 1),
                &[0, 0, 0, 9],
                &[24, 0, 1, 4, 0, 10, 0x05, 0xdc, 0, 1, 0x86, 0xaa],
                b"v10\x00",
                &[3, 1, 0, 2, 6, 1, 0, 1],
                &[16, 1, 5, 2, 0, 20, 0x11, 0x94, 0, 0, 0, 1],
                b"ab\x00\x00",
                &[20, 0, 1, 4, 0, 30, 0x05, 0xdc, 0, 0, 0, 2],
                b"name",
                &[1, 2, 0, 0],
            ]),
        ),
        snap(0x2003, &cat(&[&vtp_head(3, 0), &[0, 0, 0, 1]])),
        snap(0x2003, &vtp_head(4, 0)),
        snap(0x2003, &cat(&[&[1, 1, 0, 40], &[0; 32]])),
        snap(0x2003, &[1, 1, 0]),
    ]
}

/// Every built frame with a few bytes after its Ethernet header overwritten
/// (a fixed xorshift sequence), several times over: lengths, counts and
/// types tcpdump must reject or bound as the printers do.
fn mutated_frames() -> Vec<Vec<u8>> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut out = Vec::new();
    for f in [lldp_frames(), slow_frames(), eap_frames(), cisco_frames()].concat() {
        for _ in 0..60 {
            let mut m = f.clone();
            // Past the Ethernet header and, for SNAP, the LLC/SNAP header.
            let start = if f[12] < 0x06 { 22 } else { 14 };
            if m.len() <= start {
                continue;
            }
            for _ in 0..1 + next() % 3 {
                let at = start + (next() as usize) % (m.len() - start);
                m[at] = next() as u8;
            }
            out.push(m);
        }
    }
    out
}

#[test]
fn mutated_frames_print_what_tcpdump_prints() {
    if !have_tcpdump() {
        eprintln!("skipping: tcpdump is not installed");
        return;
    }
    let recs: Vec<(Vec<u8>, u32)> = mutated_frames()
        .into_iter()
        .map(|f| {
            let wire = f.len() as u32;
            (f, wire)
        })
        .collect();
    let dir = std::env::temp_dir().join(format!("netsift-lldp-m-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join("mutated.pcap");
    write_pcap(&path, LinkType::EN10MB, &recs);
    let mut failures = Vec::new();
    for verbose in 0..=2u8 {
        let (seen, lines) = compare(&path, false, verbose, &mut failures);
        println!("verbose {verbose}: {seen} packets, {lines} lines compared");
    }
    let _ = std::fs::remove_dir_all(&dir);
    report(&failures);
}

#[test]
fn built_frames_print_what_tcpdump_prints() {
    if !have_tcpdump() {
        eprintln!("skipping: tcpdump is not installed");
        return;
    }
    let mut recs = Vec::new();
    for f in [lldp_frames(), slow_frames(), eap_frames(), cisco_frames()].concat() {
        let wire = f.len() as u32;
        // Each frame whole, then cut short at a few points (the wire length
        // kept), to compare where and how each printer ends; not inside the
        // LLC/SNAP header, which is the LAN printers' to end.
        for cut in [f.len(), f.len() - 1, f.len() * 3 / 4, f.len() / 2, 24, 23] {
            if cut <= f.len() && cut >= 23 {
                recs.push((f[..cut].to_vec(), wire));
            }
        }
    }
    let dir = std::env::temp_dir().join(format!("netsift-lldp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join("link-local.pcap");
    write_pcap(&path, LinkType::EN10MB, &recs);
    let mut failures = Vec::new();
    for verbose in 0..=2u8 {
        let (seen, lines) = compare(&path, false, verbose, &mut failures);
        println!("verbose {verbose}: {seen} packets, {lines} lines compared");
        assert_eq!(seen, recs.len(), "every built frame is of this area");
    }
    let _ = std::fs::remove_dir_all(&dir);
    report(&failures);
}
