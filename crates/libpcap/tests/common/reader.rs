//! The C reader of the pcap API (`tests/c/reader.c`), built against the real
//! library's headers and run with the shim, in process (`api.rs`) or through
//! the daemon (`daemon.rs`): it opens a device, sets a filter (compiled, or
//! `hand`: BPF built by hand), reads 4 packets and prints them, its
//! `pcap_stats` and a non-blocking `pcap_dispatch`.

use super::frames::tcp;
use netsift_testkit::frames::{Frame, MAC_A, MAC_B};
use netsift_testkit::netns::{Side, VethPair};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What the reader needs to be built: a C compiler and libpcap's headers.
pub const HEADERS: &str = "/usr/include/pcap/pcap.h";

/// Builds `tests/c/reader.c` into `dir`, linked against the real library.
pub fn build(dir: &Path) -> PathBuf {
    super::build_c(dir, "reader")
}

/// Runs `reader` (the built reader, with whatever runs it and its
/// environment) on `device` with `filter`; once it says it is ready, sends
/// UDP frames of 1..=8 payload bytes with TCP ones between from side B of
/// `pair`, and returns what it printed after its ready line.
pub fn run(mut reader: Command, device: &str, filter: &str, pair: &VethPair) -> Vec<String> {
    let mut child = reader
        .arg(device)
        .arg("4")
        .arg(filter)
        .stdout(Stdio::piped())
        .spawn()
        .expect("running the reader");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert_eq!(first.trim(), format!("ready {device} fd 1 link EN10MB"));
    let mut frames = Vec::new();
    for n in 1..=8u8 {
        frames.push(tcp(u32::from(n)));
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
    assert!(status.success(), "the reader failed ({status}) on {filter}");
    out.lines().map(Result::unwrap).collect()
}

/// What [`run`] returns: the first 4 UDP packets (42 bytes of headers and
/// n of payload, ending with n), one received, one more by dispatch.
pub fn want() -> Vec<String> {
    let mut w: Vec<String> = (1..=4)
        .map(|n| format!("{} {} {n}", 42 + n, 42 + n))
        .collect();
    w.push("received 1".into());
    w.push("dispatch 1".into());
    w
}
