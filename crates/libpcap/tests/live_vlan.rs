//! VLAN-tagged traffic through `netsiftd`: the kernel takes a received
//! frame's tag out before any socket sees it, and libpcap's kernel filter,
//! and so `tcpdump -i`, reads the frame without it (`vlan` testing the tag
//! kept beside it). A flow's filter reads such a frame the same way, so
//!
//! - a flow with `host A` gets A's tagged frames as well as its untagged ones;
//! - unmodified tcpdump through the drop-in library writes, for filters with
//!   and without `vlan`, the same packets as the stock tcpdump beside it.
//!
//! Needs root (namespaces), tcpdump and the built `netsiftd`: skipped with a
//! message without them, a failure under `CI=true`.

mod common;

use common::{daemon_on_veth, netsiftd, tcpdump_through};
use netsift_ffpf::proto::Direction;
use netsift_ffpf::{Client, FlowSpec};
use netsift_testkit::frames::{tagged, vlan_traffic as traffic, VLAN_HOST as HOST};
use netsift_testkit::live::tcpdump_each;
use netsift_testkit::netns::Side;
use netsift_testkit::{require, Need};
use std::time::{Duration, Instant};

/// The filters compared: `host` and `ip` match tagged frames live, `vlan`
/// tests the tag taken out, `not vlan` rejects every tagged frame.
const EXPRS: [&str; 4] = ["host 10.172.64.7", "ip", "vlan 1213", "not vlan"];

#[test]
fn a_flow_reads_tagged_frames_as_tcpdump_i_does() {
    require!(Need::Netns, Need::File(&netsiftd()));
    let (pair, daemon) = daemon_on_veth();
    let (_, dev) = pair.end(Side::A);
    let client = Client::connect(&daemon.socket).expect("netsiftd listens");
    let mut flow = client
        .create(&FlowSpec {
            source: dev.into(),
            filter: "host 10.172.64.7".into(),
            direction: Direction::InOut,
            ..FlowSpec::default()
        })
        .unwrap();
    flow.instantiate().unwrap();
    flow.activate().unwrap();
    let frames = traffic();
    pair.send(Side::B, &frames);
    let mut want: Vec<Vec<u8>> = frames
        .iter()
        .filter(|f| f[26 + 4 * usize::from(tagged(f))..][..4] == HOST)
        .cloned()
        .collect();
    assert_eq!(want.len(), 9);
    let r = flow.reader().unwrap();
    let mut got = Vec::new();
    let until = Instant::now() + Duration::from_secs(5);
    while got.len() < want.len() + 1 && Instant::now() < until {
        while let Some(p) = r.getnext().unwrap() {
            got.push(p.data.to_vec());
        }
        r.wait_for(1, Duration::from_millis(50)).unwrap();
    }
    got.sort();
    want.sort();
    assert_eq!(
        got, want,
        "host 10.172.64.7: untagged and tagged frames of A"
    );
}

#[test]
fn tcpdump_through_the_daemon_selects_tagged_frames_as_stock_tcpdump() {
    require!(
        Need::Netns,
        Need::Command("tcpdump"),
        Need::File(&netsiftd())
    );
    let (pair, daemon) = daemon_on_veth();
    let (ns, dev) = pair.end(Side::A);
    let dir = tempfile::tempdir().unwrap();
    let shims: Vec<_> = EXPRS
        .iter()
        .enumerate()
        .map(|(k, expr)| {
            tcpdump_through(&daemon.socket, dev)
                .write_to(&dir.path().join(format!("shim{k}.pcap")))
                .filter(expr)
                .start()
        })
        .collect();
    let stocks = tcpdump_each(ns, dev, &[], &EXPRS, dir.path());
    pair.send(Side::B, &traffic());
    // The stock ring hands its block over at its 1 s timeout.
    std::thread::sleep(Duration::from_millis(2500));
    for ((expr, shim), stock) in EXPRS.iter().zip(shims).zip(stocks) {
        let (shim, stock) = (shim.stop().sorted_packets(), stock.stop().sorted_packets());
        assert!(!stock.is_empty(), "{expr}: stock tcpdump kept nothing");
        if *expr != "not vlan" {
            assert!(
                stock.iter().any(|p| tagged(&p.0)),
                "{expr}: no tagged frame"
            );
        }
        assert_eq!(shim, stock, "{expr}: through the daemon, and stock");
        eprintln!("{expr}: {} frames", stock.len());
    }
}
