//! The pcap API beyond what tcpdump calls, through a small C program built
//! against libpcap's headers and run with the shim: `pcap_create`,
//! `pcap_next_ex`, `pcap_stats`, a non-blocking `pcap_dispatch`, and both
//! kinds of filter: one `pcap_compile` made (its text goes to netsift) and one
//! built by hand (the shim runs its BPF on every packet).

mod common;

use common::{build_c, shim_dir};
use netsift_testkit::frames::{Frame, MAC_A, MAC_B};
use netsift_testkit::netns::{Side, VethPair};
use netsift_testkit::{require, Need};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;

/// Runs the reader on `netsift-local:IFACE` of side A with `filter`, sends UDP
/// frames of 1..=8 payload bytes with TCP ones between, and returns what it
/// printed.
fn run(filter: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let reader = build_c(dir.path(), "reader");
    let pair = VethPair::new();
    let (ns, dev) = pair.end(Side::A);
    let mut child = netsift_testkit::netns::exec(ns, "env")
        .arg(format!("LD_LIBRARY_PATH={}", shim_dir().display()))
        .arg(&reader)
        .arg(format!("netsift-local:{dev}"))
        .arg("4")
        .arg(filter)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert_eq!(
        first.trim(),
        format!("ready netsift-local:{dev} fd 1 link EN10MB")
    );
    let mut frames = Vec::new();
    for n in 1..=8u8 {
        frames.push(
            Frame::ethernet(MAC_B, MAC_A)
                .ipv4([10, 9, 0, 2], [10, 9, 0, 1])
                .tcp(9, 80, 0x10)
                .build(),
        );
        frames.push(
            Frame::ethernet(MAC_B, MAC_A)
                .ipv4([10, 9, 0, 2], [10, 9, 0, 1])
                .udp(9, 7)
                .payload(&vec![n; n as usize])
                .build(),
        );
    }
    pair.send(Side::B, &frames);
    let status = child.wait().unwrap();
    assert!(status.success(), "the reader failed ({status})");
    out.lines().map(Result::unwrap).collect()
}

/// 4 UDP packets (42 bytes of headers and n of payload, ending with n).
fn want() -> Vec<String> {
    let mut w: Vec<String> = (1..=4)
        .map(|n| format!("{} {} {n}", 42 + n, 42 + n))
        .collect();
    w.push("received 1".into());
    w.push("dispatch 1".into());
    w
}

#[test]
fn a_compiled_filter_goes_to_netsift() {
    require!(
        Need::Netns,
        Need::Command("cc"),
        Need::File(Path::new("/usr/include/pcap/pcap.h"))
    );
    assert_eq!(run("udp"), want());
}

#[test]
fn a_hand_built_filter_runs_in_the_shim() {
    require!(
        Need::Netns,
        Need::Command("cc"),
        Need::File(Path::new("/usr/include/pcap/pcap.h"))
    );
    assert_eq!(run("hand"), want());
}
