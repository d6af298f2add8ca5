//! Live VLAN traffic through a daemon graph's `pcap` elements and through the
//! AF_XDP source, against stock `tcpdump -i` on the same veth (in a
//! namespace the test makes). Linux takes a received frame's outermost tag
//! out before any socket filter runs, and libpcap's kernel filter reads the
//! frame without it: `host` and `ip` keep tagged frames, `vlan 1213` tests
//! the tag kept beside the frame, `not vlan` keeps only untagged ones.
//!
//! - On a ring source, a graph `(device) -> (pcap,EXPR)` delivers what
//!   tcpdump writes for EXPR, and a counter behind the same filter, run in
//!   the graph's socket filter in the kernel, counts as many frames.
//! - On an AF_XDP source (`--copy zero`), where the tag is still in the
//!   frame, a flow with filter EXPR and the same graph deliver what
//!   tcpdump `-Q in` wrote for the same frames (run before the daemon: a
//!   frame redirected to the AF_XDP socket never reaches tcpdump's), and the
//!   counter, run in the graph's XDP program, counts as many.
//!
//! Needs root (namespaces), bpf(2) and tcpdump: skipped with a message
//! without them, a failure under `CI=true`.

mod common;

use common::graph::{receive, runs};
use common::{active_flow, bpf, graph_flow, until, Connect};
use netsift_ffpf::{Client, Flow};
use netsift_testkit::frames::{tagged, vlan_traffic};
use netsift_testkit::live::tcpdump_each;
use netsift_testkit::netns::{Side, VethPair};
use netsift_testkit::{require, Need};
use std::time::Duration;

/// The filters compared.
const EXPRS: [&str; 4] = ["host 10.172.64.7", "ip", "vlan 1213", "not vlan"];

/// What stock tcpdump (with `args`) writes for each of [`EXPRS`] on the
/// pair's end A while the frames are sent from end B.
fn tcpdump_keeps(pair: &VethPair, args: &[&str], frames: &[Vec<u8>]) -> Vec<Vec<Vec<u8>>> {
    let (ns, dev) = pair.end(Side::A);
    let dir = tempfile::tempdir().unwrap();
    let runs = tcpdump_each(ns, dev, args, &EXPRS, dir.path());
    common::veth::send(pair, frames);
    // The stock ring hands its block over at its 1 s timeout.
    std::thread::sleep(Duration::from_millis(2500));
    let kept: Vec<Vec<Vec<u8>>> = runs
        .into_iter()
        .map(|r| {
            let p = r.stop().sorted_packets();
            p.into_iter().map(|(data, _)| data).collect()
        })
        .collect();
    for (expr, k) in EXPRS.iter().zip(&kept) {
        assert!(!k.is_empty(), "{expr}: tcpdump kept nothing");
        // Every filter but `not vlan` keeps tagged frames live, which a
        // capture file's reading would not.
        assert_eq!(k.iter().any(|f| tagged(f)), *expr != "not vlan", "{expr}");
    }
    kept
}

/// Per filter of [`EXPRS`]: a graph flow delivering what its `pcap` element
/// passes, and one counting it in an element the daemon may place below
/// (the filter in parentheses, so that the two flows share no instance and
/// the delivering one keeps none of the counter's in the daemon).
fn graphs(c: &Client, dev: &str) -> (Vec<Flow>, Vec<Flow>) {
    let served = EXPRS
        .iter()
        .map(|e| graph_flow(c, dev, &format!(r#"(device,{dev}) -> (pcap,"{e}")"#)))
        .collect();
    let counted = EXPRS
        .iter()
        .map(|e| {
            let g = format!(r#"(device,{dev}) -> (pcap,"({e})") -> (packetcount,,8)"#);
            graph_flow(c, dev, &g)
        })
        .collect();
    (served, counted)
}

/// Each flow of `flows` delivers exactly what tcpdump kept for its filter.
fn delivers(flows: &mut [Flow], theirs: &[Vec<Vec<u8>>], what: &str) {
    for ((f, want), expr) in flows.iter_mut().zip(theirs).zip(EXPRS) {
        let mut got = receive(f, want.len());
        got.sort();
        assert!(
            got == *want,
            "{what} {expr}: {} frames ({} tagged), tcpdump's {} ({} tagged)",
            got.len(),
            got.iter().filter(|f| tagged(f)).count(),
            want.len(),
            want.iter().filter(|f| tagged(f)).count()
        );
        eprintln!("{what} {expr}: {} frames", want.len());
    }
}

/// Each counter of `counted` counts as many frames as tcpdump kept for its
/// filter, and every counter runs at `level`.
fn counts(c: &Client, dev: &str, counted: &[Flow], theirs: &[Vec<Vec<u8>>], level: &str) {
    let v = c.graph(dev).unwrap();
    let placed: Vec<_> = runs(&v)
        .into_iter()
        .filter(|(class, _)| *class == "packetcount")
        .collect();
    assert_eq!(placed, [("packetcount", level); 4], "{v:#?}");
    for ((f, want), expr) in counted.iter().zip(theirs).zip(EXPRS) {
        let m = f.mbuf(2).unwrap();
        let n = want.len() as u64;
        until(&format!("{expr}: {n} counted at {level}"), || {
            m.u64(0) == Some(n)
        });
    }
    // Nothing more comes.
    std::thread::sleep(Duration::from_millis(200));
    for ((f, want), expr) in counted.iter().zip(theirs).zip(EXPRS) {
        let m = f.mbuf(2).unwrap();
        assert_eq!(m.u64(0), Some(want.len() as u64), "{expr} at {level}");
    }
}

#[test]
fn on_a_ring_a_graphs_pcap_elements_select_what_tcpdump_i_selects() {
    require!(Need::Netns, Need::Command("tcpdump"), Need::Check(bpf()));
    let pair = VethPair::new();
    let (ns, dev) = pair.end(Side::A);
    let d = common::daemon(Some(ns), &["--iface", dev]);
    let c = d.client();
    let (mut served, counted) = graphs(&c, dev);
    let theirs = tcpdump_keeps(&pair, &[], &vlan_traffic());
    delivers(&mut served, &theirs, "ring graph");
    counts(&c, dev, &counted, &theirs, "kernel");
}

#[test]
fn on_an_af_xdp_source_flows_and_graphs_select_what_tcpdump_i_selects() {
    require!(Need::Netns, Need::Command("tcpdump"), Need::Check(bpf()));
    let pair = VethPair::new();
    let (ns, dev) = pair.end(Side::A);
    let frames = vlan_traffic();
    // The XDP hook sees received frames only.
    let theirs = tcpdump_keeps(&pair, &["-Q", "in"], &frames);
    let d = common::daemon(Some(ns), &["--iface", dev, "--copy", "zero"]);
    let c = d.client();
    let mut filtered: Vec<Flow> = EXPRS.iter().map(|e| active_flow(&c, dev, e)).collect();
    let (mut served, counted) = graphs(&c, dev);
    // The socket is bound once the group exists: give it a moment.
    std::thread::sleep(Duration::from_millis(300));
    common::veth::send(&pair, &frames);
    delivers(&mut filtered, &theirs, "AF_XDP flow");
    delivers(&mut served, &theirs, "AF_XDP graph");
    counts(&c, dev, &counted, &theirs, "xdp");
}
