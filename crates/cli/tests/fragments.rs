//! IP fragments with `--workers 2`: the flow-hash fanout group must hand each
//! fragment to a ring as it was on the wire. With PACKET_FANOUT_FLAG_DEFRAG the
//! kernel reassembled them first, and netsift wrote 427 of afs.pcap's 576
//! packets, some 5,734 bytes long (fixed in 9a21b70); one worker and tcpdump
//! write the 576 as sent.
//!
//! Needs root, `ip` and tcpdump: skipped with a message without them, a failure
//! under `CI=true`.

use netsift_testkit::live::Live;
use netsift_testkit::netns::{Side, VethPair};
use netsift_testkit::{corpus, pcap, require, Mismatches, Need};
use std::collections::HashMap;
use std::time::Duration;

/// Whether an Ethernet frame holds an IPv4 fragment (more fragments, or an
/// offset).
fn is_fragment(f: &[u8]) -> bool {
    f.len() > 21 && f[12..14] == [8, 0] && u16::from_be_bytes([f[20], f[21]]) & 0x3fff != 0
}

/// Each packet of `got` that is not one of `sent` (as a multiset), and each sent
/// packet missing from `got`, in one assertion with a few examples.
fn assert_same_packets(who: &str, got: &[(Vec<u8>, u32)], sent: &[(Vec<u8>, u32)]) {
    let mut left: HashMap<&(Vec<u8>, u32), usize> = HashMap::new();
    for p in sent {
        *left.entry(p).or_default() += 1;
    }
    let mut m = Mismatches::new(format!("{who}: packets not as on the wire"), 5);
    for p in got {
        let n = left.get_mut(p).filter(|n| **n > 0);
        let found = n.is_some();
        if let Some(n) = n {
            *n -= 1;
        }
        m.check(found, || {
            format!("written, never sent: {} bytes (wire {})", p.0.len(), p.1)
        });
    }
    for (p, n) in left {
        for _ in 0..n {
            m.record(format!("sent, not written: {} bytes", p.0.len()));
        }
    }
    m.assert_none();
    assert_eq!(got.len(), sent.len(), "{who}");
}

#[test]
fn two_workers_write_ip_fragments_as_on_the_wire() {
    let afs = corpus(env!("CARGO_MANIFEST_DIR")).join("pcaps/tcpdump/afs.pcap");
    require!(Need::Netns, Need::Command("tcpdump"), Need::File(&afs));
    let records = pcap::records(&afs);
    assert!(records.iter().all(|r| r.data.len() as u32 == r.orig_len));
    let frames: Vec<Vec<u8>> = records.into_iter().map(|r| r.data).collect();
    // What `udp` keeps: every IPv4 packet of protocol 17, fragments too (the
    // replay also holds ICMP errors, which it leaves out).
    let udp: Vec<Vec<u8>> = frames
        .iter()
        .filter(|f| f[12..14] == [8, 0] && f[23] == 17)
        .cloned()
        .collect();
    let sent = pcap::as_sent(&udp);
    let fragments = udp.iter().filter(|f| is_fragment(f)).count();
    assert!(
        udp.len() == 576 && fragments > 100,
        "{fragments} fragments of {}",
        udp.len()
    );

    let dir = tempfile::tempdir().unwrap();
    let pair = VethPair::new();
    let count = udp.len().to_string();
    let common = ["-B", "65536", "--immediate-mode", "-c", &count];
    let netsift = |workers: &[&str], file: &str| {
        Live::new(env!("CARGO_BIN_EXE_netsift"))
            .in_ns(&pair.a)
            .on(&pair.veth_a)
            .args(common)
            .args(workers)
            .write_to(&dir.path().join(file))
            .filter("udp")
            .start()
    };
    // All three capture the one replay.
    let two = netsift(&["--workers", "2"], "two.pcap");
    let one = netsift(&[], "one.pcap");
    let tcpdump = Live::tcpdump()
        .in_ns(&pair.a)
        .on(&pair.veth_a)
        .args(common)
        .write_to(&dir.path().join("tcpdump.pcap"))
        .filter("udp")
        .start();
    pair.send(Side::B, &frames);
    let limit = Duration::from_secs(10);
    let (two, one, tcpdump) = (two.wait(limit), one.wait(limit), tcpdump.wait(limit));
    for run in [&two, &one, &tcpdump] {
        run.assert_success();
    }
    assert!(two.said_contains("2 workers"), "{:?}", two.said);

    // tcpdump and one worker write the replay as sent, in order.
    assert_eq!(tcpdump.packets(), sent, "tcpdump -i");
    assert_eq!(one.packets(), sent, "one worker");
    // Two workers write the same packets (merged by time stamp), none reassembled.
    assert_same_packets("--workers 2", &two.packets(), &sent);
}
