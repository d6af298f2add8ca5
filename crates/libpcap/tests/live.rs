//! Live captures through the shim: unmodified tcpdump on `netsift-local:IFACE` and
//! on IFACE itself at the same time, in namespaces joined by a veth pair, see
//! the same packets; `-c N` stops after N; `-Q in` (set after activation)
//! takes effect. Frames go only to the pair's other end.

mod common;

use common::{shim_dir, tcp, udp};
use netsift_testkit::live::Live;
use netsift_testkit::netns::{Side, VethPair};
use netsift_testkit::pcap::as_sent;
use netsift_testkit::{require, Need};
use std::time::Duration;

/// tcpdump with the shim first on `LD_LIBRARY_PATH`.
fn shim_tcpdump() -> Live {
    Live::new("env")
        .arg(format!("LD_LIBRARY_PATH={}", shim_dir().display()))
        .args(["tcpdump", "-Z", "root"])
}

/// Thirty UDP frames with TCP ones between them, and the UDP ones alone.
fn traffic() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let mut all = Vec::new();
    let mut udps = Vec::new();
    for n in 0..30 {
        all.push(udp(n));
        udps.push(udp(n));
        if n % 3 == 0 {
            all.push(tcp(n));
        }
    }
    (all, udps)
}

#[test]
fn tcpdump_through_the_shim_sees_what_tcpdump_sees() {
    require!(Need::Netns, Need::Command("tcpdump"));
    let pair = VethPair::new();
    let (ns, dev) = pair.end(Side::A);
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.pcap"), dir.path().join("b.pcap"));
    let shim = shim_tcpdump()
        .in_ns(ns)
        .on(&format!("netsift-local:{dev}"))
        .write_to(&a)
        .filter("udp")
        .start();
    let real = Live::tcpdump()
        .in_ns(ns)
        .on(dev)
        .write_to(&b)
        .filter("udp")
        .start();
    assert!(
        shim.said().iter().any(|l| l.contains(&format!(
            "listening on netsift-local:{dev}, link-type EN10MB"
        ))),
        "{:?}",
        shim.said()
    );
    let (all, udps) = traffic();
    pair.send(Side::B, &all);
    // libpcap's ring hands a block over when its 1 s timeout expires, and a
    // tcpdump interrupted before then never reads it.
    std::thread::sleep(Duration::from_millis(2500));
    let (shim, real) = (shim.stop(), real.stop());
    shim.assert_success();
    real.assert_success();
    let want = as_sent(&udps);
    assert_eq!(real.packets(), want, "tcpdump itself");
    assert_eq!(shim.packets(), want, "through the shim");
    assert_eq!(
        shim.statistic("packets captured"),
        Some(30),
        "{}",
        shim.stderr
    );
}

#[test]
fn count_stops_the_capture_and_direction_applies_after_activation() {
    require!(Need::Netns, Need::Command("tcpdump"));
    let pair = VethPair::new();
    let (ns, dev) = pair.end(Side::A);
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.pcap");
    let shim = shim_tcpdump()
        .in_ns(ns)
        .args(["-c", "5", "-Q", "in"])
        .on(&format!("netsift-local:{dev}"))
        .write_to(&a)
        .filter("udp")
        .start();
    let (all, udps) = traffic();
    pair.send(Side::B, &all);
    let done = shim.wait(Duration::from_secs(10));
    done.assert_success();
    assert_eq!(done.packets(), as_sent(&udps[..5]));
    assert_eq!(
        done.statistic("packets captured"),
        Some(5),
        "{}",
        done.stderr
    );
}

/// Printed live packets (no file in between) read the same as tcpdump's.
#[test]
fn printing_live_packets_matches_tcpdump() {
    require!(Need::Netns, Need::Command("tcpdump"));
    let pair = VethPair::new();
    let (ns, dev) = pair.end(Side::A);
    let shim = shim_tcpdump()
        .in_ns(ns)
        .args(["-n", "-t", "-c", "4"])
        .on(&format!("netsift-local:{dev}"))
        .filter("tcp or udp port 7")
        .start();
    let real = Live::tcpdump()
        .in_ns(ns)
        .args(["-n", "-t", "-c", "4"])
        .on(dev)
        .filter("tcp or udp port 7")
        .start();
    let (all, _) = traffic();
    pair.send(Side::B, &all[..6]);
    let (shim, real) = (
        shim.wait(Duration::from_secs(10)),
        real.wait(Duration::from_secs(10)),
    );
    shim.assert_success();
    real.assert_success();
    assert_eq!(shim.stdout, real.stdout);
    assert_eq!(shim.stdout.lines().count(), 4, "{}", shim.stdout);
}
