//! The pcap API beyond what tcpdump calls, through a small C program built
//! against libpcap's headers and run with the shim: `pcap_create`,
//! `pcap_next_ex`, `pcap_stats`, a non-blocking `pcap_dispatch`, and both
//! kinds of filter: one `pcap_compile` made (its text goes to netsift) and one
//! built by hand (the shim runs its BPF on every packet).

mod common;

use common::{reader, shim_dir};
use netsift_testkit::netns::{Side, VethPair};
use netsift_testkit::{require, Need};
use std::path::Path;

/// Runs the reader on `netsift-local:IFACE` of side A with `filter` and
/// returns what it printed.
fn run(filter: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let built = reader::build(dir.path());
    let pair = VethPair::new();
    let (ns, dev) = pair.end(Side::A);
    let mut cmd = netsift_testkit::netns::exec(ns, "env");
    cmd.arg(format!("LD_LIBRARY_PATH={}", shim_dir().display()))
        .arg(&built);
    reader::run(cmd, &format!("netsift-local:{dev}"), filter, &pair)
}

/// The reader's 4 UDP packets and figures with `filter`.
fn reads(filter: &str) {
    require!(
        Need::Netns,
        Need::Command("cc"),
        Need::File(Path::new(reader::HEADERS))
    );
    assert_eq!(run(filter), reader::want(), "{filter}");
}

#[test]
fn a_compiled_filter_goes_to_netsift() {
    reads("udp");
}

#[test]
fn a_hand_built_filter_runs_in_the_shim() {
    reads("hand");
}
