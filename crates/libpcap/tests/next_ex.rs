//! `pcap_next_ex` through the daemon hands out the packet without a copy of
//! the shim's own, yet the bytes stay right until the program's next read:
//! `tests/c/hold.c` reads a packet, then holds it while the test sends
//! enough packets to overwrite the daemon's whole PBuf several times (a
//! small PBuf under fast-reader preference, where the writer never waits),
//! and checks the header and bytes it was given are unchanged.
//!
//! Needs root (namespaces), cc, libpcap's header and the built `netsiftd`:
//! skipped with a message without them, a failure under `CI=true`.

mod common;

use common::{build_c, netsiftd, shim_dir};
use netsift_testkit::daemon::Daemon;
use netsift_testkit::frames::{Frame, MAC_A, MAC_B};
use netsift_testkit::netns::{Side, VethPair};
use netsift_testkit::{require, Need};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// A UDP frame whose 1000-byte payload ends with `seq`.
fn frame(seq: u32) -> Vec<u8> {
    let mut payload = vec![(seq % 251) as u8; 1000];
    payload[996..].copy_from_slice(&seq.to_be_bytes());
    Frame::ethernet(MAC_B, MAC_A)
        .ipv4([10, 9, 0, 2], [10, 9, 0, 1])
        .udp(4000, 7)
        .payload(&payload)
        .build()
}

#[test]
fn a_packet_from_pcap_next_ex_stays_right_until_the_next_read() {
    require!(
        Need::Netns,
        Need::Command("cc"),
        Need::File(Path::new("/usr/include/pcap/pcap.h")),
        Need::File(&netsiftd()),
    );
    let pair = VethPair::new();
    let (ns, dev) = pair.end(Side::A);
    let dir = tempfile::tempdir().unwrap();
    let args = ["--iface", dev, "--prefer", "fast", "--pbuf-size", "65536"];
    let daemon = Daemon::start(&netsiftd(), Some(ns), &args);
    let hold = build_c(dir.path(), "hold");
    let rounds = 3u32;
    let mut child = Command::new(&hold)
        .env("LD_LIBRARY_PATH", shim_dir())
        .env("NETSIFT_SOCKET", &daemon.socket)
        .arg(format!("netsift:{dev}"))
        .arg(rounds.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = || {
        let mut l = String::new();
        out.read_line(&mut l).unwrap();
        l.trim().to_string()
    };
    assert_eq!(line(), "ready");
    let len = frame(0).len();
    let mut next = 0u32;
    let mut last = None;
    for round in 0..rounds {
        // The first round's packet is the only one sent yet; later rounds
        // read what survived the flood.
        if round == 0 {
            pair.send(Side::B, &[frame(0)]);
            next = 1;
        }
        let got = line();
        let (caplen, seq): (usize, u32) = match got.split(' ').collect::<Vec<_>>()[..] {
            ["got", c, s] => (c.parse().unwrap(), s.parse().unwrap()),
            _ => panic!("round {round}: {got:?}"),
        };
        assert_eq!(caplen, len, "round {round}");
        assert!(
            seq < next && last.is_none_or(|l| seq > l),
            "round {round}: {seq}"
        );
        last = Some(seq);
        // 300 packets of about 1 KB: the 64 KiB PBuf wraps four times over.
        let flood: Vec<Vec<u8>> = (next..next + 300).map(frame).collect();
        next += 300;
        pair.send(Side::B, &flood);
        std::thread::sleep(Duration::from_millis(300));
        writeln!(input, "check").unwrap();
        assert_eq!(
            line(),
            "same",
            "round {round}: packet {seq} changed while held"
        );
    }
    drop(input);
    let status = child.wait().unwrap();
    assert!(status.success(), "hold failed: {status}");
}
