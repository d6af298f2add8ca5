//! RPKI-RTR PDUs (TCP port 323), which the corpus has only with unknown
//! versions, against the installed tcpdump on a capture this test writes:
//! every PDU type, an error report with an encapsulated PDU and text, wrong
//! lengths, an unknown type, PDUs cut short by the capture. Without `-v`
//! and with it; hex dump lines are left out on both sides. Skipped, with a
//! message, when tcpdump is absent.

mod common;

use common::build::{eth, ipv4, tcp};
use common::tcpdump::{have_tcpdump, tcpdump_records};
use common::write::{flatten, write_pcap};
use netsift_print::{Summarizer, SummaryOptions};
use netsift_wire::LinkType;

/// A PDU: version 0, `ty`, the 16-bit field, the length, then `body`.
fn pdu(ty: u8, field: u16, body: &[u8]) -> Vec<u8> {
    let mut v = vec![0, ty];
    v.extend_from_slice(&field.to_be_bytes());
    v.extend_from_slice(&((8 + body.len()) as u32).to_be_bytes());
    v.extend_from_slice(body);
    v
}

fn frame(payload: &[u8]) -> Vec<u8> {
    eth(0x0800, &ipv4(6, &tcp(323, 40000, 0x18, payload), &[]))
}

/// The packets: payloads of PDUs, then one cut short by the capture.
fn records() -> Vec<(Vec<u8>, u32)> {
    let v4 = [0x01, 24, 32, 0, 192, 0, 2, 0, 0, 0, 0xfd, 0xe8];
    let mut v6 = vec![0x00, 48, 64, 0, 0x20, 0x01, 0x0d, 0xb8];
    v6.extend_from_slice(&[0; 12]);
    v6.extend_from_slice(&65_001u32.to_be_bytes());
    let encap = pdu(1, 7, &[0, 0, 0, 9]);
    let mut report = (encap.len() as u32).to_be_bytes().to_vec();
    report.extend_from_slice(&encap);
    report.extend_from_slice(&5u32.to_be_bytes());
    report.extend_from_slice(b"oops\x01");
    let mut nested = 12u32.to_be_bytes().to_vec();
    nested.extend_from_slice(&pdu(10, 2, &[0, 0, 0, 0])[..12]);
    nested.extend_from_slice(&0u32.to_be_bytes());
    let payloads: Vec<Vec<u8>> = vec![
        pdu(0, 0x1234, &[0, 0, 1, 0]),
        [
            pdu(1, 1, &[0, 0, 0, 2]),
            pdu(2, 0, &[]),
            pdu(3, 0xbeef, &[]),
        ]
        .concat(),
        [
            pdu(4, 0, &v4),
            pdu(6, 0, &v6),
            pdu(7, 3, &[0, 0, 0, 4]),
            pdu(8, 0, &[]),
        ]
        .concat(),
        pdu(10, 3, &report),
        pdu(10, 9, &nested),
        pdu(9, 0, &[1, 2, 3, 4, 5]),
        pdu(0, 1, &[0, 0]),
        pdu(4, 0, &v4[..8]),
        [pdu(2, 0, &[]), vec![0, 2, 0, 0, 0, 0, 0, 4]].concat(),
        vec![0, 1, 0],
        vec![3, 1, 0, 0, 0, 0, 0, 8],
    ];
    let mut recs: Vec<(Vec<u8>, u32)> = payloads
        .iter()
        .map(|p| {
            let f = frame(p);
            let n = f.len() as u32;
            (f, n)
        })
        .collect();
    let whole = frame(&pdu(4, 0, &v4));
    recs.push((whole[..whole.len() - 6].to_vec(), whole.len() as u32));
    recs
}

#[test]
fn rpki_rtr_lines_match_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let recs = records();
    let dir = std::env::temp_dir().join(format!("netsift-rpki-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("rpki.pcap");
    write_pcap(&path, LinkType::EN10MB, &recs);
    let mut compared = 0;
    let mut failures = Vec::new();
    for verbose in 0..=1u8 {
        let flags: &[&str] = if verbose == 0 { &[] } else { &["-v"] };
        let theirs = tcpdump_records(&path, flags).expect("tcpdump runs");
        assert_eq!(theirs.len(), recs.len(), "{flags:?}: a record per packet");
        let mut s = Summarizer::with_options(SummaryOptions {
            verbose,
            ..SummaryOptions::default()
        });
        for (i, ((data, wire), t)) in recs.iter().zip(&theirs).enumerate() {
            // tcpdump_records drops the hex dump lines (-v's dump of an
            // unknown PDU); so does this side.
            let line = s.summarize(LinkType::EN10MB, data, *wire);
            let kept: Vec<&str> = line
                .lines()
                .filter(|l| !(l.starts_with('\t') && l.trim_start().starts_with("0x")))
                .collect();
            let ours = flatten(&kept.join("\n"));
            compared += 1;
            if &ours != t {
                failures.push(format!("#{i} {flags:?}\n   ours: {ours}\n   tcpd: {t}"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("{compared} lines compared, {} differ", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
