//! SIP over UDP (port 5060), as tcpdump's `sip_print` prints it: `SIP: ` and
//! the request or status line, every text line with `-v`, nothing more for a
//! payload that is not a SIP line; over TCP tcpdump does not decode it. Built
//! frames (the corpus has no SIP), compared with tcpdump with `-nn`, `-v`,
//! `-vv` and `-q`, one cut short.

mod common;

use common::run;
use netsift_pcapio::{file_header, record_header, TsPrecision};
use netsift_testkit::{require, Need};
use netsift_wire::LinkType;

/// An Ethernet frame from 10.0.0.1:5060 to 10.0.0.2:5060 carrying `payload`
/// over UDP, or over TCP (a PSH/ACK segment).
fn frame(payload: &[u8], tcp: bool) -> Vec<u8> {
    let mut l4 = vec![0x13, 0xc4, 0x13, 0xc4];
    if tcp {
        l4.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x18, 0xff, 0xff, 0, 0, 0, 0]);
    } else {
        l4.extend_from_slice(&(8 + payload.len() as u16).to_be_bytes());
        l4.extend_from_slice(&[0, 0]);
    }
    l4.extend_from_slice(payload);
    let mut f = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 8, 0, 0x45, 0];
    f.extend_from_slice(&(20 + l4.len() as u16).to_be_bytes());
    f.extend_from_slice(&[0, 1, 0, 0, 64, if tcp { 6 } else { 17 }, 0, 0]);
    f.extend_from_slice(&[10, 0, 0, 1, 10, 0, 0, 2]);
    f.extend_from_slice(&l4);
    f
}

#[test]
fn sip_prints_as_tcpdump_prints_it() {
    require!(Need::Command("tcpdump"));
    let payloads: [&[u8]; 5] = [
        b"INVITE sip:b@10.0.0.2 SIP/2.0\r\nVia: SIP/2.0/UDP 10.0.0.1\r\n\r\n",
        b"SIP/2.0 200 OK\r\nVia: x\r\n\r\n",
        b"HELLO there\r\n",
        b"\x01\x02binary",
        b"register sip:x SIP/2.0\r\n",
    ];
    let mut file = file_header(LinkType::EN10MB, 65535, TsPrecision::Micro).to_vec();
    let mut add = |f: &[u8], wire: usize| {
        file.extend_from_slice(&record_header(0, 0, f.len() as u32, wire as u32));
        file.extend_from_slice(f);
    };
    for p in payloads {
        for tcp in [false, true] {
            let f = frame(p, tcp);
            add(&f, f.len());
        }
    }
    let whole = frame(payloads[0], false);
    add(&whole[..60], whole.len());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sip.pcap");
    std::fs::write(&path, &file).unwrap();
    let path = path.to_str().unwrap();
    let netsift = env!("CARGO_BIN_EXE_netsift");
    for flags in [
        &["-nn"][..],
        &["-nn", "-v"],
        &["-nn", "-vv"],
        &["-nn", "-q"],
    ] {
        let args: Vec<&str> = flags.iter().copied().chain(["-r", path]).collect();
        let theirs = String::from_utf8_lossy(&run("tcpdump", &args).stdout).into_owned();
        let ours = String::from_utf8_lossy(&run(netsift, &args).stdout).into_owned();
        assert_eq!(ours, theirs, "netsift {flags:?} against tcpdump");
        if flags == ["-nn"] {
            assert!(
                ours.contains(": SIP: INVITE sip:b@10.0.0.2 SIP/2.0"),
                "{ours}"
            );
            assert!(ours.contains(": SIP: SIP/2.0 200 OK"), "{ours}");
        }
    }
}
