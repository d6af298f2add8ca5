//! SNMP against the installed tcpdump, with `-nn`, `-v` and `-vv`: the
//! corpus captures tcpdump prints as SNMP (snmp-heapoverflow-1 and -2,
//! ip-snmp-leftshift-unsigned, ip6-snmp-oid-unsigned: no capture of the
//! corpus is left out), and a capture this test writes, since the corpus
//! has no well-formed exchange: every PDU type in SNMPv1, v2c and v3
//! messages, every value type, error statuses and indexes, the BER reader's
//! errors (extended tags, long lengths, overruns, unknown classes), and
//! messages cut short by the capture in the tag, the length and the
//! content; and 2,680 byte-replaced and cut variations of three messages.
//! Real agents' traffic is compared by `crates/cli/tests/snmp_live.rs`.
//! Skipped, with a message, when tcpdump is absent.

mod common;

use common::build::{eth, ipv4, udp};
use common::tcpdump::have_tcpdump;
use common::whole::compare;
use common::write::{compare_lines, write_pcap, FlagSet};
use netsift_print::{Names, Summarizer, SummaryOptions};
use netsift_wire::LinkType;

/// A BER element: `tag`, a definite length (short or long form) and `content`.
fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut v = vec![tag];
    match content.len() {
        n if n < 0x80 => v.push(n as u8),
        n if n < 0x100 => v.extend_from_slice(&[0x81, n as u8]),
        n => v.extend_from_slice(&[0x82, (n >> 8) as u8, n as u8]),
    }
    v.extend_from_slice(content);
    v
}

fn seq(parts: &[Vec<u8>]) -> Vec<u8> {
    tlv(0x30, &parts.concat())
}

fn int(v: i64) -> Vec<u8> {
    let b = v.to_be_bytes();
    // The shortest two's complement form.
    let mut i = 0;
    while i < 7 && ((b[i] == 0 && b[i + 1] & 0x80 == 0) || (b[i] == 0xff && b[i + 1] & 0x80 != 0)) {
        i += 1;
    }
    tlv(0x02, &b[i..])
}

fn str(s: &[u8]) -> Vec<u8> {
    tlv(0x04, s)
}

const NULL: [u8; 2] = [0x05, 0x00];

/// An OID from its encoded bytes (the test wants odd encodings too).
fn oid(enc: &[u8]) -> Vec<u8> {
    tlv(0x06, enc)
}

/// sysDescr.0, sysUpTime.0 and an enterprise's OID.
const SYSDESCR: [u8; 8] = [43, 6, 1, 2, 1, 1, 1, 0];
const SYSUPTIME: [u8; 8] = [43, 6, 1, 2, 1, 1, 3, 0];
const ENTERPRISE: [u8; 8] = [43, 6, 1, 4, 1, 0xbf, 0x08, 3];

fn varbinds(vbs: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let list: Vec<Vec<u8>> = vbs
        .iter()
        .map(|(n, v)| seq(&[n.clone(), v.clone()]))
        .collect();
    seq(&list)
}

/// A PDU of tag `0xa0 + ty`: request id, error status, error index, bindings.
fn pdu(ty: u8, reqid: i64, status: i64, index: i64, vbs: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    tlv(
        0xa0 + ty,
        &[int(reqid), int(status), int(index), varbinds(vbs)].concat(),
    )
}

/// An SNMPv1 (`version` 0) or v2c (1) message.
fn community(version: i64, comm: &[u8], pdu: Vec<u8>) -> Vec<u8> {
    seq(&[int(version), str(comm), pdu])
}

/// An SNMPv3 message with USM parameters and a plaintext scoped PDU.
fn v3(flags: &[u8], model: i64, user: &[u8], pdu: Vec<u8>) -> Vec<u8> {
    let header = seq(&[int(4711), int(65507), str(flags), int(model)]);
    let usm = seq(&[
        str(&[0x80, 0, 0x1f, 0x88, 4]),
        int(3),
        int(12345),
        str(user),
        str(&[]),
        str(&[]),
    ]);
    let scoped = seq(&[str(&[0x80, 0, 0x1f, 0x88, 4]), str(b"ctx"), pdu]);
    seq(&[int(3), header, str(&usm), scoped])
}

/// Every kind of value a response can carry.
fn all_values() -> Vec<(Vec<u8>, Vec<u8>)> {
    let name = |i: u8| oid(&[43, 6, 1, 2, 1, 2, 2, 1, i, 1]);
    vec![
        (name(1), int(-5)),
        (name(2), int(2_000_000_000)),
        (name(3), str(b"eth0")),
        (name(4), str(&[0, 0xff, 0x10])),
        (name(5), tlv(0x41, &[0xff, 0xff, 0xff, 0xff])),
        (name(6), tlv(0x42, &[1, 0])),
        (name(7), tlv(0x43, &[0x12, 0x34, 0x56])),
        (name(8), tlv(0x46, &[1, 2, 3, 4, 5, 6, 7, 8, 9])),
        (name(9), tlv(0x40, &[10, 0, 0, 1])),
        (name(10), tlv(0x40, &[10, 0, 1])),
        (name(11), tlv(0x44, &[0xde, 0xad])),
        (name(12), oid(&SYSDESCR)),
        (name(13), NULL.to_vec()),
        (name(14), vec![0x80, 0]),
        (name(15), vec![0x81, 0]),
        (name(16), vec![0x82, 0]),
        (name(17), vec![0x85, 0]),
        (name(18), tlv(0x03, &[0, 0xaa])),
        (name(19), tlv(0xc0, &[7])),
        (name(20), tlv(0x31, &[])),
        (name(21), tlv(0x61, &[1])),
        (name(22), tlv(0x02, &[0x01, 0x02, 0x03, 0x04, 0x05])),
        (name(23), tlv(0x45, &[0])),
    ]
}

/// The SNMP payloads: well-formed messages, then the BER reader's and the
/// printers' errors.
fn payloads() -> Vec<Vec<u8>> {
    let get = |ty: u8| pdu(ty, 1, 0, 0, &[(oid(&SYSDESCR), NULL.to_vec())]);
    let resp =
        |status: i64, index: i64| pdu(2, 7, status, index, &[(oid(&SYSDESCR), str(b"Linux"))]);
    let trap = |generic: i64, specific: i64| {
        tlv(
            0xa4,
            &[
                oid(&ENTERPRISE),
                tlv(0x40, &[10, 0, 0, 1]),
                int(generic),
                int(specific),
                tlv(0x43, &[0x01, 0x00]),
                varbinds(&[(oid(&SYSUPTIME), tlv(0x43, &[5]))]),
            ]
            .concat(),
        )
    };
    let mut p = vec![
        community(0, b"public", get(0)),
        community(1, b"public", get(1)),
        community(
            1,
            b"private",
            pdu(3, 9, 0, 0, &[(oid(&SYSDESCR), str(b"x"))]),
        ),
        community(1, b"pub\x01ic", pdu(2, -3, 0, 0, &all_values())),
        community(1, b"public", resp(5, 1)),
        community(1, b"public", resp(99, 0)),
        community(1, b"public", resp(-1, 2)),
        community(1, b"public", resp(0, 3)),
        community(0, b"public", pdu(0, 1, 2, 1, &[(oid(&SYSDESCR), int(1))])),
        community(
            1,
            b"public",
            pdu(5, 2, 1, 10, &[(oid(&SYSDESCR), NULL.to_vec())]),
        ),
        community(
            1,
            b"public",
            pdu(6, 3, 0, 0, &[(oid(&SYSUPTIME), tlv(0x43, &[9]))]),
        ),
        community(1, b"public", pdu(7, 4, 4, 0, &[])),
        community(1, b"public", pdu(8, 5, 0, 0, &[])),
        community(0, b"public", trap(6, 17)),
        community(0, b"public", trap(2, 0)),
        community(0, b"public", trap(3, 4)),
        community(0, b"public", trap(9, 0)),
        community(0, b"public", get(5)),
        community(1, b"public", trap(0, 0)),
        v3(&[4], 3, b"bob", get(0)),
        v3(&[5], 3, b"alice", resp(0, 0)),
        v3(&[7], 3, b"", pdu(8, 1, 0, 0, &[])),
        v3(&[2], 3, b"bob", get(0)),
        v3(&[4, 0], 3, b"bob", get(0)),
        v3(&[4], 2, b"bob", get(0)),
        seq(&[int(5), str(b"public")]),
        seq(&[str(b"1"), str(b"public")]),
        int(7),
        // OIDs: the first byte past 80, long and wrapping sub-identifiers,
        // a sub-identifier left unfinished.
        community(
            1,
            b"public",
            pdu(
                0,
                1,
                0,
                0,
                &[
                    (oid(&[0x88, 0x37, 1]), NULL.to_vec()),
                    (oid(&[43, 0xff, 0xff, 0xff, 0xff, 0x7f, 2]), NULL.to_vec()),
                    (oid(&[43, 6, 0x81]), NULL.to_vec()),
                    (oid(&[]), NULL.to_vec()),
                ],
            ),
        ),
        // A long-form length, an extended tag, a tag that wraps.
        [
            vec![0x30, 0x82, 0x00, 0x1e],
            int(0),
            vec![0x04, 0x81, 0x06],
            b"public".to_vec(),
            get(0),
        ]
        .concat(),
        community(1, b"public", vec![0xbf, 0x81, 0x02, 0]),
        community(1, b"public", vec![0x1f, 0x85, 0x80, 0x07, 1, 0]),
        // [Xtagfield?], [no asnlen], [asnlen? ..], [len..<asnlen..], [id?..],
        // [asnlen=0], [nothing to parse], [no PDU].
        seq(&[int(1), str(b"public"), vec![0x1f, 0x81]]),
        seq(&[int(1), str(b"public"), vec![0xa0]]),
        seq(&[int(1), str(b"public"), vec![0xa0, 0x84, 0, 0]]),
        seq(&[int(1), str(b"public"), vec![0xa0, 0x05, 0x02]]),
        seq(&[int(1), str(b"public"), vec![0x14, 0]]),
        seq(&[int(1), str(b"public"), tlv(0xa0, &[0x02, 0x00])]),
        seq(&[int(1), str(b"public"), tlv(0xa0, &[])]),
        seq(&[int(1), str(b"public"), int(4)]),
        seq(&[int(1), str(b"public"), tlv(0xa9, &[])]),
        seq(&[int(1), int(2), get(0)]),
        // Fields of the wrong types.
        seq(&[int(1), str(b"public"), tlv(0xa0, &[str(b"1")].concat())]),
        seq(&[
            int(1),
            str(b"public"),
            tlv(0xa2, &[int(1), NULL.to_vec()].concat()),
        ]),
        seq(&[
            int(1),
            str(b"public"),
            tlv(0xa2, &[int(1), int(0), str(b"")].concat()),
        ]),
        seq(&[
            int(1),
            str(b"public"),
            tlv(0xa2, &[int(1), int(0), int(0), int(0)].concat()),
        ]),
        seq(&[
            int(1),
            str(b"public"),
            tlv(0xa2, &[int(1), int(0), int(0), seq(&[int(0)])].concat()),
        ]),
        seq(&[
            int(1),
            str(b"public"),
            tlv(
                0xa2,
                &[int(1), int(0), int(0), seq(&[seq(&[int(0)])])].concat(),
            ),
        ]),
        seq(&[int(0), str(b"public"), tlv(0xa4, &[int(1)].concat())]),
        seq(&[
            int(0),
            str(b"public"),
            tlv(0xa4, &[oid(&ENTERPRISE), int(1)].concat()),
        ]),
        seq(&[
            int(0),
            str(b"public"),
            tlv(
                0xa4,
                &[
                    oid(&ENTERPRISE),
                    tlv(0x40, &[1, 2, 3, 4]),
                    int(6),
                    int(1),
                    int(5),
                ]
                .concat(),
            ),
        ]),
    ];
    // Extra bytes after the message, the PDU and the bindings.
    let mut extra = community(1, b"public", get(0));
    extra.extend_from_slice(&[0, 0]);
    p.push(extra);
    let mut inner = [int(1), str(b"public"), get(0)].concat();
    inner.extend_from_slice(&[5, 0]);
    p.push(tlv(0x30, &inner));
    p
}

/// tcpdump's `-n`, `-n -v` and `-n -vv`, and the options that mean the same.
fn flag_sets() -> [FlagSet; 3] {
    let verbose = |verbose| SummaryOptions {
        verbose,
        ..SummaryOptions::default()
    };
    [
        (&[], verbose(0)),
        (&["-v"], verbose(1)),
        (&["-vv"], verbose(2)),
    ]
}

fn frame(sport: u16, dport: u16, payload: &[u8]) -> Vec<u8> {
    eth(0x0800, &ipv4(17, &udp(sport, dport, payload), &[]))
}

/// The records: each payload whole, to port 161 or 162 in turn, then some
/// cut short by the capture.
fn records() -> Vec<(Vec<u8>, u32)> {
    let mut recs: Vec<(Vec<u8>, u32)> = payloads()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let f = frame(40000 + i as u16, 161 + (i % 2) as u16, p);
            let n = f.len() as u32;
            (f, n)
        })
        .collect();
    let whole = frame(
        40000,
        161,
        &community(1, b"public", pdu(2, 7, 0, 0, &all_values())),
    );
    // SNMP's ports against those udp_print tests before them (mDNS, NAT-T;
    // RIP's `-v` dump is left to tcpdump_routing.rs) and after them (NTP,
    // Kerberos).
    let get = community(
        1,
        b"public",
        pdu(0, 1, 0, 0, &[(oid(&SYSDESCR), NULL.to_vec())]),
    );
    for (sport, dport) in [(123, 161), (162, 123), (5353, 161), (4500, 161), (88, 162)] {
        let f = frame(sport, dport, &get);
        let n = f.len() as u32;
        recs.push((f, n));
    }
    // Cut before the message, after its tag, in its content: tcpdump tests
    // the outer sequence's whole content first, so no cut reaches further.
    for keep in [42, 43, 44, 48, 60, 140] {
        recs.push((whole[..keep].to_vec(), whole.len() as u32));
    }
    let long = frame(
        40000,
        161,
        &[vec![0x30, 0x82, 0x00, 0x10], vec![0; 16]].concat(),
    );
    // Cut in the long-form length, and after it.
    for keep in [44, 46] {
        recs.push((long[..keep].to_vec(), long.len() as u32));
    }
    recs
}

#[test]
fn snmp_lines_match_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let recs = records();
    let dir = std::env::temp_dir().join(format!("netsift-snmp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("snmp.pcap");
    write_pcap(&path, LinkType::EN10MB, &recs);
    let (compared, _, mut failures) =
        compare_lines(&path, LinkType::EN10MB, &recs, &flag_sets(), |_, _| false);
    assert_eq!(compared, 3 * recs.len(), "every flag set, every packet");
    // -x: the link header is left out of the dump after a marker tcpdump's
    // reader printed itself, not after one its GET_ macros jumped to.
    let cap = (path, LinkType::EN10MB, recs);
    let (n, diffs) = compare(&cap, &["-x"]);
    assert_eq!(n, cap.2.len(), "-x: every packet compared");
    failures.extend(diffs);
    let _ = std::fs::remove_dir_all(&dir);
    println!("{compared} lines compared, {} differ", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn snmp_corpus_captures_match_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    const CAPTURES: [&str; 4] = [
        "snmp-heapoverflow-1.pcap",
        "snmp-heapoverflow-2.pcap",
        "ip-snmp-leftshift-unsigned.pcap",
        "ip6-snmp-oid-unsigned.pcap",
    ];
    let caps: Vec<_> = common::corpus_captures_of(&[LinkType::EN10MB])
        .into_iter()
        .filter(|(p, ..)| {
            p.file_name()
                .is_some_and(|n| CAPTURES.contains(&n.to_string_lossy().as_ref()))
        })
        .collect();
    if caps.is_empty() {
        println!("corpus not found: skipped");
        return;
    }
    assert_eq!(
        caps.len(),
        CAPTURES.len(),
        "every SNMP capture is in the corpus"
    );
    let mut n = 0;
    let mut diffs = Vec::new();
    for cap in &caps {
        for flags in [&[][..], &["-v"], &["-vv"]] {
            let (c, d) = compare(cap, flags);
            n += c;
            diffs.extend(d);
        }
    }
    println!("{n} packets compared, {} differ", diffs.len());
    assert!(n >= 3 * CAPTURES.len(), "every capture was compared");
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// Hostile variations of real messages: every byte of a v1 Trap, a v2c
/// response with every value type and a v3 request replaced by values that
/// steer the BER reader (long and extended forms, top bits, zero), and the
/// messages cut at every length. Each must print as tcpdump prints it, with
/// `-nn` and `-v`.
#[test]
fn snmp_mutated_messages_match_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let trap = community(
        0,
        b"public",
        tlv(
            0xa4,
            &[
                oid(&ENTERPRISE),
                tlv(0x40, &[10, 0, 0, 1]),
                int(6),
                int(3),
                tlv(0x43, &[0x01, 0x00]),
                varbinds(&[(oid(&SYSUPTIME), tlv(0x43, &[5]))]),
            ]
            .concat(),
        ),
    );
    let response = community(1, b"public", pdu(2, 7, 0, 0, &all_values()[..8]));
    let request = v3(
        &[4],
        3,
        b"bob",
        pdu(0, 1, 0, 0, &[(oid(&SYSDESCR), NULL.to_vec())]),
    );
    let mut recs = Vec::new();
    for msg in [trap, response, request] {
        for at in 0..msg.len() {
            for v in [0x00, 0x1f, 0x7f, 0x80, 0x81, 0x84, 0xff] {
                let mut m = msg.clone();
                m[at] = v;
                let f = frame(1024, 161, &m);
                let n = f.len() as u32;
                recs.push((f, n));
            }
            let f = frame(1024, 162, &msg);
            recs.push((f[..42 + at].to_vec(), f.len() as u32));
        }
    }
    let dir = std::env::temp_dir().join(format!("netsift-snmp-mut-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("mutated.pcap");
    write_pcap(&path, LinkType::EN10MB, &recs);
    let (compared, _, mut failures) =
        compare_lines(&path, LinkType::EN10MB, &recs, &flag_sets()[..2], |_, _| {
            false
        });
    assert_eq!(compared, 2 * recs.len(), "every flag set, every packet");
    let _ = std::fs::remove_dir_all(&dir);
    println!("{} records, {} lines differ", recs.len(), failures.len());
    failures.truncate(20);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Without `-n`, object identifiers are named from tcpdump's MIB (what
/// tcpdump prints for these, as `cli/tests/snmp_live.rs` compares on real
/// traffic), and hostile messages print without a panic there too.
#[test]
fn snmp_names_without_n() {
    let names: &'static Names = Box::leak(Box::new(Names::new()));
    let mut s = Summarizer::with_options(SummaryOptions {
        names: Some(names),
        ..SummaryOptions::default()
    });
    let mut line = |payload: &[u8]| {
        let f = frame(1024, 161, payload);
        s.summarize(LinkType::EN10MB, &f, f.len() as u32)
    };
    let get = community(
        0,
        b"public",
        pdu(0, 1, 0, 0, &[(oid(&SYSDESCR), NULL.to_vec())]),
    );
    assert!(
        line(&get).ends_with(" GetRequest(25)  system.sysDescr.0"),
        "{}",
        line(&get)
    );
    let vbs = [
        (oid(&ENTERPRISE), oid(&[43, 6, 1, 6, 3, 15, 1, 1, 3, 0])),
        (oid(&[43, 6, 1, 3, 7]), oid(&[43, 6, 1, 5, 1])),
    ];
    let resp = community(1, b"public", pdu(2, 1, 0, 0, &vbs));
    assert!(
        line(&resp).ends_with(
            " E:8072.3=S:snmpUsmMIB.usmMIBObjects.usmStats.usmStatsUnknownUserNames.0 \
             X:7=.iso.org.dod.internet.security.1"
        ),
        "{}",
        line(&resp)
    );
    for msg in [get, resp] {
        for at in 0..msg.len() {
            for v in [0x00, 0x1f, 0x80, 0x81, 0xff] {
                let mut m = msg.clone();
                m[at] = v;
                assert!(!line(&m).is_empty());
            }
        }
    }
}
