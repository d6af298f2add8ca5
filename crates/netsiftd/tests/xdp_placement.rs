//! Graph elements placed at XDP on an AF_XDP source (`--copy zero`;
//! docs/daemon.md, "Placement"), through the real daemon on a veth pair in
//! a namespace the test makes (root and bpf(2) needed):
//!
//! - a counting graph runs in the source's XDP program (`runs` is `xdp`):
//!   its packet counter behind `udp` counts exactly what `tcpdump -i` keeps
//!   of the frames sent, VLAN-tagged UDP included (at XDP the tag is still in
//!   the frame, which the filter reads as libpcap's kernel filter will once
//!   the kernel took it out), a byte counter every byte of every frame, and
//!   not one frame reaches the daemon;
//!   paused, the counts stay;
//! - next to a flow the daemon serves, the graph's program hands every frame
//!   on to the redirecting program: the flow gets exactly tcpdump's frames
//!   while the counter counts at XDP;
//! - a sampler feeding only a counter runs at XDP with it, 1 in N exactly,
//!   its MBuf showing the daemon's count; when a flow takes what it passes
//!   it moves to the daemon with its count and samples on exactly where the
//!   kernel stopped (the flow gets the very frames the daemon's sampler
//!   picks); under a ring (AF_PACKET) the same sampler runs in the graph's
//!   socket filter, as exactly;
//! - a graph made again after its source stopped counts exactly in the new
//!   source's program, and once the graph closes a served flow gets
//!   tcpdump's frames from the redirecting program alone.

mod common;

use common::graph::{receive, runs};
use common::{bpf, until, Connect};
use netsift_ffpf::{Client, Flow, FlowSpec};
use netsift_testkit::daemon::Daemon;
use netsift_testkit::frames::Frame;
use netsift_testkit::netns::{Side, VethPair};
use netsift_testkit::{require, Need};
use netsift_wire::LinkType;
use std::time::Duration;

/// A veth pair, a zero-copy daemon owning its end `va` in the pair's
/// namespace, and a client of it.
fn start() -> (VethPair, Daemon, Client) {
    start_with(&["--copy", "zero"])
}

/// [`start`] with the daemon's flags `more` instead.
fn start_with(more: &[&str]) -> (VethPair, Daemon, Client) {
    let pair = VethPair::new();
    let (ns, dev) = pair.end(Side::A);
    let mut args = vec!["--iface", dev];
    args.extend(more);
    let d = common::daemon(Some(ns), &args);
    let c = d.client();
    (pair, d, c)
}

/// An active flow on `dev`: graph `graph`, or filter `filter`.
fn active(c: &Client, dev: &str, graph: Option<&str>, filter: &str) -> Flow {
    let mut f = c
        .create(&FlowSpec {
            source: dev.into(),
            graph: graph.map(str::to_string),
            filter: filter.into(),
            ..FlowSpec::default()
        })
        .unwrap_or_else(|e| panic!("{graph:?} {filter:?}: {e}"));
    f.instantiate().unwrap();
    f.activate().unwrap();
    f
}

/// UDP frames to port 1234 and to port 53, TCP frames, and tagged UDP
/// frames (VLAN 7), interleaved.
fn mixed(n: u32) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| match i % 4 {
            0 => netsift_testkit::frames::numbered_udp_from(i, 5000 + i as u16),
            1 => netsift_testkit::frames::numbered(i, None, 8)
                .udp(4000, 53)
                .build(),
            2 => Frame::default()
                .ipv4([10, 0, 0, 2], [10, 0, 0, 1])
                .tcp(40000 + (i % 3) as u16, 80, 0x10)
                .payload(&i.to_be_bytes())
                .build(),
            _ => netsift_testkit::frames::numbered(i, Some(7), 8)
                .udp(4000, 53)
                .build(),
        })
        .collect()
}

/// A graph counting the UDP frames of `dev`.
fn udp_counter(dev: &str) -> String {
    format!(r#"(device,{dev}) -> (pcap,"udp") -> (packetcount,,8)"#)
}

/// The frames of `frames` that `tcpdump -i` keeps for `expr`, a filter that
/// does not test the tag: libpcap's filter on each frame as a socket filter
/// reads it, its outermost 802.1Q tag taken out by the kernel
/// (`live_vlan.rs` compares with tcpdump itself).
fn libpcap(expr: &str, frames: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let o = netsift_oracle::Filter::compile(LinkType::EN10MB, expr).unwrap();
    let untagged = |f: &[u8]| match netsift_testkit::frames::tagged(f) {
        true => [&f[..12], &f[16..]].concat(),
        false => f.to_vec(),
    };
    frames
        .iter()
        .filter(|f| {
            let u = untagged(f);
            o.accepts(&u, u.len() as u32)
        })
        .cloned()
        .collect()
}

#[test]
fn a_counting_graph_runs_at_xdp_and_no_frame_reaches_the_daemon() {
    require!(Need::Netns, Need::Check(bpf()));
    let (pair, _d, c) = start();
    let dev = pair.end(Side::A).1;
    let packets = udp_counter(dev);
    let bytes = format!(r#"(device,{dev}) -> (bytecount,,8)"#);
    let mut fp = active(&c, dev, Some(&packets), "");
    let mut fb = active(&c, dev, Some(&bytes), "");
    let v = c.graph(dev).unwrap();
    let at_xdp = [
        ("device", "xdp"),
        ("pcap", "xdp"),
        ("packetcount", "xdp"),
        ("bytecount", "xdp"),
    ];
    assert_eq!(runs(&v), at_xdp, "{v:#?}");
    assert!(v.instances.iter().all(|i| i.could_run == "xdp"), "{v:#?}");
    assert!(v.instances[2].why.contains("XDP program"), "{v:#?}");
    assert!(v.instances[2].why.contains("receives"), "{v:#?}");
    let stats = |c: &Client| c.daemon_stats().unwrap().sources[0].clone();
    let s = stats(&c);
    assert_eq!((s.kind.as_str(), s.kernel_clauses), ("xdp", 0), "{s:?}");
    // The socket is bound once the group exists: give it a moment.
    std::thread::sleep(Duration::from_millis(300));

    let frames = mixed(200);
    let udp = libpcap("udp", &frames).len() as u64;
    // Tagged UDP is `udp` to tcpdump -i: 100 untagged and 50 tagged.
    assert_eq!(udp, 150);
    let all: u64 = frames.iter().map(|f| f.len() as u64).sum();
    common::veth::send(&pair, &frames);
    let (mp, mb) = (fp.mbuf(2).unwrap(), fb.mbuf(1).unwrap());
    until("the counts at XDP", || {
        mp.u64(0) == Some(udp) && mb.u64(0) == Some(all)
    });
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!((mp.u64(0), mb.u64(0)), (Some(udp), Some(all)));
    // Not one frame was redirected to the daemon.
    let s = stats(&c);
    assert_eq!((s.packets, s.kernel_dropped), (0, 0), "{s:?}");

    // Paused, nothing counts any more and the counts stay.
    fp.pause().unwrap();
    fb.pause().unwrap();
    let v = c.graph(dev).unwrap();
    assert!(v.instances.iter().all(|i| i.runs == "daemon"), "{v:#?}");
    common::veth::send(&pair, &frames[..20]);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!((mp.u64(0), mb.u64(0)), (Some(udp), Some(all)));
    // Active again: the same MBufs count on.
    fp.activate().unwrap();
    fb.activate().unwrap();
    common::veth::send(&pair, &frames);
    until("the counts after resuming", || {
        mp.u64(0) == Some(2 * udp) && mb.u64(0) == Some(2 * all)
    });
    fp.close().unwrap();
    fb.close().unwrap();
}

#[test]
fn next_to_a_served_flow_the_graph_hands_every_frame_on() {
    require!(Need::Netns, Need::Check(bpf()));
    let (pair, _d, c) = start();
    let dev = pair.end(Side::A).1;
    let g = udp_counter(dev);
    let fg = active(&c, dev, Some(&g), "");
    let mut f = active(&c, dev, None, "udp port 53");
    let v = c.graph(dev).unwrap();
    assert_eq!(v.instances[2].runs, "xdp", "{v:#?}");
    std::thread::sleep(Duration::from_millis(300));

    let frames = mixed(200);
    let want = libpcap("udp port 53", &frames);
    assert_eq!(want.len(), 100);
    common::veth::send(&pair, &frames);
    let got = receive(&mut f, want.len());
    assert!(
        got == want,
        "{} frames, not tcpdump's {}",
        got.len(),
        want.len()
    );
    let m = fg.mbuf(2).unwrap();
    until("the count at XDP", || m.u64(0) == Some(150));
    // Only what the flow's clause keeps was redirected to the daemon.
    let s = c.daemon_stats().unwrap().sources[0].clone();
    assert_eq!(s.packets, want.len() as u64, "{s:?}");
    // The counter did not run in the daemon: its instance saw nothing there.
    let v = c.graph(dev).unwrap();
    assert_eq!(v.instances[2].seen, 0, "{v:#?}");
}

#[test]
fn a_sampler_runs_at_xdp_with_its_counter_and_comes_back_exactly() {
    require!(Need::Netns, Need::Check(bpf()));
    let (pair, _d, c) = start();
    let dev = pair.end(Side::A).1;
    let prefix = format!(r#"(device,{dev}) -> (pcap,"udp") -> (sampler,3,4)"#);
    let counted = format!("{prefix} -> (packetcount,,8)");
    let fa = active(&c, dev, Some(&counted), "");
    let v = c.graph(dev).unwrap();
    assert_eq!(
        runs(&v),
        [
            ("device", "xdp"),
            ("pcap", "xdp"),
            ("sampler", "xdp"),
            ("packetcount", "xdp")
        ],
        "{v:#?}"
    );
    assert!(v.instances[2].why.contains("1 in N"), "{v:#?}");
    std::thread::sleep(Duration::from_millis(300));

    let frames = mixed(200);
    let udp = libpcap("udp", &frames);
    assert_eq!(udp.len(), 150);
    common::veth::send(&pair, &frames);
    let (sampled, since) = (fa.mbuf(3).unwrap(), fa.mbuf(2).unwrap());
    // 1 in 3 of 150: the 3rd, 6th, ... 150th; none since.
    until("the sample at XDP", || {
        sampled.u64(0) == Some(50) && since.u32(0) == Some(0)
    });
    let s = c.daemon_stats().unwrap().sources[0].clone();
    assert_eq!(s.packets, 0, "{s:?}");

    // A flow that takes what the sampler passes: it runs in the daemon now,
    // from the count the kernel reached.
    let mut fb = active(&c, dev, Some(&prefix), "");
    let v = c.graph(dev).unwrap();
    assert!(v.instances.iter().all(|i| i.runs == "daemon"), "{v:#?}");
    std::thread::sleep(Duration::from_millis(300));
    common::veth::send(&pair, &frames);
    // The 153rd, 156th, ... 300th UDP frame overall: 50 more.
    let want: Vec<Vec<u8>> = udp
        .iter()
        .enumerate()
        .filter(|(j, _)| (150 + j + 1) % 3 == 0)
        .map(|(_, f)| f.clone())
        .collect();
    assert_eq!(want.len(), 50);
    let got = receive(&mut fb, want.len());
    assert!(got == want, "{} frames, not the 50 sampled", got.len());
    until("the sample in the daemon", || {
        sampled.u64(0) == Some(100) && since.u32(0) == Some(0)
    });
}

#[test]
fn under_a_ring_a_sampler_runs_in_the_socket_filter_as_exactly() {
    require!(Need::Netns, Need::Check(bpf()));
    let (pair, _d, c) = start_with(&[]);
    let dev = pair.end(Side::A).1;
    let g = format!(r#"(device,{dev}) -> (pcap,"udp") -> (sampler,7,4) -> (bytecount,,8)"#);
    let f = active(&c, dev, Some(&g), "");
    let v = c.graph(dev).unwrap();
    assert!(v.instances.iter().all(|i| i.runs == "kernel"), "{v:#?}");
    let frames = mixed(200);
    let udp = libpcap("udp", &frames);
    // The 7th, 14th, ... 147th UDP frame (tagged ones included, as tcpdump
    // -i reads them): 21 of them, 3 since.
    assert_eq!(udp.len(), 150);
    let bytes: u64 = udp.iter().skip(6).step_by(7).map(|f| f.len() as u64).sum();
    common::veth::send(&pair, &frames);
    let (sum, since) = (f.mbuf(3).unwrap(), f.mbuf(2).unwrap());
    until("the sample in the kernel", || {
        sum.u64(0) == Some(bytes) && since.u32(0) == Some(3)
    });
    let s = c.daemon_stats().unwrap().sources[0].clone();
    assert_eq!(s.packets, 0, "{s:?}");
}

#[test]
fn after_the_graph_closes_the_source_serves_flows_as_before() {
    require!(Need::Netns, Need::Check(bpf()));
    let (pair, _d, c) = start();
    let dev = pair.end(Side::A).1;
    let g = udp_counter(dev);
    let frames = mixed(200);
    // Twice, the source stopping in between with its last flow: each graph
    // counts its own frames exactly, in the program of the source then.
    for _ in 0..2 {
        let f = active(&c, dev, Some(&g), "");
        std::thread::sleep(Duration::from_millis(300));
        common::veth::send(&pair, &frames);
        let m = f.mbuf(2).unwrap();
        until("the count at XDP", || m.u64(0) == Some(150));
        f.close().unwrap();
    }
    // A graph closed while a flow is served: the redirecting program alone
    // again, its flow gets exactly tcpdump's frames.
    let fg = active(&c, dev, Some(&g), "");
    let mut f = active(&c, dev, None, "udp");
    fg.close().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    common::veth::send(&pair, &frames);
    let want = libpcap("udp", &frames);
    let got = receive(&mut f, want.len());
    assert!(
        got == want,
        "{} frames, not tcpdump's {}",
        got.len(),
        want.len()
    );
}
