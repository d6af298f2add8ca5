//! The kit's own live parts: a veth pair is made and removed, frames sent from
//! one end arrive at the other, and a live run of tcpdump is started, stopped and
//! its capture read. Skipped without root, `ip` and tcpdump (a failure under
//! `CI=true`).

use netsift_testkit::frames::Frame;
use netsift_testkit::live::Live;
use netsift_testkit::netns::{Side, VethPair};
use netsift_testkit::{pcap, require, Need};
use std::time::Duration;

fn frame(seq: u8) -> Vec<u8> {
    Frame::default().payload(&[seq; 46]).build()
}

#[test]
fn a_pair_carries_frames_to_a_live_run_and_goes_away() {
    require!(Need::Netns, Need::Command("tcpdump"));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.pcap");
    let pair = VethPair::new();
    let (a, b) = (pair.a.clone(), pair.b.clone());
    let run = Live::tcpdump()
        .in_ns(&pair.a)
        .on(&pair.veth_a)
        .args(["--immediate-mode", "-c", "20"])
        .write_to(&out)
        .filter("ether proto 0x88b5")
        .start();
    let frames: Vec<Vec<u8>> = (0..20).map(frame).collect();
    pair.send(Side::B, &frames);
    let done = run.wait(Duration::from_secs(10));
    done.assert_success();
    assert_eq!(done.packets(), pcap::as_sent(&frames));
    assert!(pair.ifindex(Side::A) > 0);
    drop(pair);
    let list = std::process::Command::new("ip")
        .args(["netns", "list"])
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&list.stdout);
    assert!(!list.contains(&a) && !list.contains(&b), "{list}");
}
