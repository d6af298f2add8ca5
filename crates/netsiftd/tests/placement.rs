//! Graph elements placed below the daemon (docs/daemon.md, "Placement"),
//! through the real daemon on a veth pair in a namespace the test makes
//! (root and bpf(2) needed): a counting graph runs in the kernel, its MBuf
//! counts exactly the UDP frames sent while none of them reaches the daemon,
//! and pausing it detaches the program; an FPL Figure-6 counter in the
//! kernel ends with the MBuf the interpreter computes over the same frames;
//! a graph that counts and also delivers keeps delivering exactly libpcap's
//! set while its counter runs below; what the kernel cannot run (an inexact
//! filter, an FPL caller of a filter) stays in the daemon and says why.

mod common;

use common::graph::runs;
use common::{until, Connect};
use netsift_ffpf::{Client, Flow, FlowSpec, GraphView};
use netsift_testkit::daemon::Daemon;
use netsift_testkit::held::Held;
use netsift_testkit::netns::{Side, VethPair};
use netsift_testkit::{require, Need};
use std::time::{Duration, Instant};

/// A veth pair, a daemon owning its end `va` in the pair's namespace, and
/// a client of it.
fn start() -> (VethPair, Daemon, Client) {
    let pair = VethPair::new();
    let (ns, dev) = pair.end(Side::A);
    let d = common::daemon(Some(ns), &["--iface", dev]);
    let c = d.client();
    (pair, d, c)
}

/// Graph flow `graph` on `dev`, instantiated and then activated; what the
/// daemon held in between, and the running graph once it is active.
fn activated(d: &Daemon, c: &Client, dev: &str, graph: &str) -> (Flow, Held, GraphView) {
    let mut f = c
        .create(&FlowSpec {
            source: dev.into(),
            graph: Some(graph.into()),
            ..FlowSpec::default()
        })
        .unwrap_or_else(|e| panic!("{graph}: {e}"));
    f.instantiate().unwrap();
    let held = d.held();
    f.activate().unwrap();
    let v = c.graph(dev).unwrap();
    (f, held, v)
}

#[test]
fn a_counting_graph_runs_in_the_kernel_and_copies_nothing_up() {
    require!(Need::Netns, Need::Check(common::bpf()));
    let (pair, d, c) = start();
    let dev = pair.end(Side::A).1;
    let g = format!(r#"(device,{dev}) -> (pcap,"udp") -> (packetcount,,8)"#);
    let (mut f, before, v) = activated(&d, &c, dev, &g);
    let below = [
        ("device", "kernel"),
        ("pcap", "kernel"),
        ("packetcount", "kernel"),
    ];
    assert_eq!(runs(&v), below, "{v:#?}");
    assert!(v.instances[2].why.contains("only its MBuf"), "{v:#?}");
    // One program more (its socket is counted below, once paused: the
    // replies' descriptors come and go); the ring's union program holds no
    // clause for this flow.
    let during = d.held();
    assert_eq!(
        during.bpf_progs,
        before.bpf_progs + 1,
        "{before:?} {during:?}"
    );
    let stats = |c: &Client| c.daemon_stats().unwrap().sources[0].clone();
    assert_eq!(stats(&c).kernel_clauses, 0);

    let frames = common::veth::mixed(200);
    let udp = frames
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 4 != 3)
        .count() as u64;
    common::veth::send(&pair, &frames);
    let m = f.mbuf(2).unwrap();
    until("the kernel's count", || m.u64(0) == Some(udp));
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(m.u64(0), Some(udp), "no more than the UDP frames sent");
    // Not one of them was copied to the daemon: its ring took no packet.
    let s = stats(&c);
    assert_eq!(s.packets, 0, "{s:?}");

    // Paused, the program and its socket are gone and the count stays.
    f.pause().unwrap();
    let after = d.held();
    assert_eq!(
        (after.bpf_progs, after.sockets + 1),
        (before.bpf_progs, during.sockets),
        "{during:?} {after:?}"
    );
    common::veth::send(&pair, &frames[..20]);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(m.u64(0), Some(udp));
    // Active again: the same MBuf counts on.
    f.activate().unwrap();
    common::veth::send(&pair, &frames);
    until("the count after resuming", || m.u64(0) == Some(2 * udp));
    f.close().unwrap();
}

/// Figure 6 of the FFPF paper (crates/fpl/examples/fig6_flow_counts.fpl)
/// on one line: a counter per TCP flow, in a hash table in MBuf.
const FIG6: &str = "IF (PKT.ETH_TYPE == ETH_P_IP && PKT.IP_PROTO == PROTO_TCP) THEN \
                    R[0] = Hash(26, 12, 256); MEM[ R[0] ]++; FI";

#[test]
fn an_fpl_counter_in_the_kernel_ends_as_the_interpreter_does() {
    require!(Need::Netns, Need::Check(common::bpf()));
    let (pair, d, c) = start();
    let dev = pair.end(Side::A).1;
    let g = format!(r#"(device,{dev}) -> (fpl,"{FIG6}",2048)"#);
    let (f, _, v) = activated(&d, &c, dev, &g);
    assert_eq!(v.instances[1].runs, "kernel", "{v:#?}");
    let frames = common::veth::mixed(240);
    common::veth::send(&pair, &frames);

    let opts = netsift_fpl::Options {
        mbuf_len: 2048,
        ..netsift_fpl::Options::default()
    };
    let p = netsift_fpl::compile(FIG6, &opts, &netsift_externs::standard()).unwrap();
    let mut mem = vec![0u8; 2048];
    let mut regs = netsift_fpl::Registers::default();
    for fr in &frames {
        let _ = netsift_fpl::run(&p, fr, &mut mem, &mut regs);
    }
    let want: Vec<u64> = mem
        .chunks(8)
        .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
        .collect();
    assert_eq!(
        want.iter().sum::<u64>(),
        60,
        "the interpreter counts the TCP frames"
    );
    let m = f.mbuf(1).unwrap();
    let got = || {
        (0..256)
            .map(|i| m.u64(8 * i).unwrap())
            .collect::<Vec<u64>>()
    };
    until("the kernel's counters", || got() == want);
    let s = c.daemon_stats().unwrap().sources[0].clone();
    assert_eq!(s.packets, 0, "{s:?}");
    f.close().unwrap();
}

#[test]
fn a_graph_that_counts_and_delivers_delivers_what_libpcap_keeps() {
    require!(Need::Netns, Need::Check(common::bpf()));
    let (pair, d, c) = start();
    let dev = pair.end(Side::A).1;
    let g =
        format!(r#"(device,{dev}) -> (pcap,"udp") -> ((packetcount,,8) | (pcap,"dst port 1234"))"#);
    let (mut f, _, v) = activated(&d, &c, dev, &g);
    let placed = [
        ("device", "daemon"),
        ("pcap", "daemon"),
        ("packetcount", "kernel"),
        ("pcap", "daemon"),
    ];
    assert_eq!(runs(&v), placed, "{v:#?}");
    let frames = common::veth::mixed(200);
    common::veth::send(&pair, &frames);
    let lt = netsift_wire::LinkType::EN10MB;
    let oracle = netsift_oracle::Filter::compile(lt, "udp and dst port 1234").unwrap();
    let kept: Vec<Vec<u8>> = frames
        .iter()
        .filter(|fr| oracle.accepts(fr, fr.len() as u32))
        .cloned()
        .collect();
    assert_eq!(kept.len(), 100);
    let mut got = Vec::new();
    let end = Instant::now() + Duration::from_secs(10);
    while got.len() < kept.len() && Instant::now() < end {
        let r = f.reader().unwrap();
        r.wait_for(1, Duration::from_millis(100)).unwrap();
        got.extend(common::veth::drain(&mut f));
    }
    std::thread::sleep(Duration::from_millis(200));
    got.extend(common::veth::drain(&mut f));
    assert_eq!(got, kept);
    let m = f.mbuf(2).unwrap();
    until("the kernel's count", || m.u64(0) == Some(150));
    // The counter did not run in the daemon: its instance saw nothing there.
    let v = c.graph(dev).unwrap();
    assert_eq!(v.instances[2].seen, 0, "{v:#?}");
    f.close().unwrap();
}

/// A filter the kernel cannot evaluate exactly (`protochain` is left to
/// user space): its counter falls back to the daemon, which says why, holds
/// the filter's clause under the ring and counts there, exactly.
#[test]
fn what_the_kernel_cannot_do_exactly_stays_in_the_daemon_and_says_why() {
    require!(Need::Netns, Need::Check(common::bpf()));
    let (pair, d, c) = start();
    let dev = pair.end(Side::A).1;
    let g = format!(r#"(device,{dev}) -> (pcap,"ip protochain 6") -> (packetcount,,8)"#);
    let (f, before, v) = activated(&d, &c, dev, &g);
    let placed = [
        ("device", "daemon"),
        ("pcap", "daemon"),
        ("packetcount", "daemon"),
    ];
    assert_eq!(runs(&v), placed, "{v:#?}");
    assert!(
        v.instances[1].why.contains("not exact in the kernel"),
        "{v:#?}"
    );
    assert!(v.instances[2].why.contains("upstream #"), "{v:#?}");
    assert_eq!(d.held().bpf_progs, before.bpf_progs, "no graph program");
    assert_eq!(c.daemon_stats().unwrap().sources[0].kernel_clauses, 1);
    let frames = common::veth::mixed(200);
    common::veth::send(&pair, &frames);
    let m = f.mbuf(2).unwrap();
    until("the daemon's count", || m.u64(0) == Some(50));
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(m.u64(0), Some(50));
    f.close().unwrap();
}

/// An FPL counter that never passes a packet could count in the kernel,
/// but one that calls a filter of its flow stays in the daemon, saying
/// why (the kernel back end does not inline filter calls), and counts
/// there: its own word and its callee's, in the window of its MBuf, each
/// the UDP frames sent.
#[test]
fn an_fpl_element_that_calls_a_filter_stays_in_the_daemon_and_says_why() {
    require!(Need::Netns, Need::Check(common::bpf()));
    let (pair, d, c) = start();
    let dev = pair.end(Side::A).1;
    let g = format!(
        r#"count = (fpl,"MEM[0]++; RETURN 0;",8);
           (device,{dev}) -> (pcap,"udp") -> (fpl,"MEM[0]++; R[0] = EXTERN(count, 8, 16); RETURN 0;",24)"#
    );
    let (f, before, v) = activated(&d, &c, dev, &g);
    assert_eq!(runs(&v)[2], ("fpl", "daemon"), "{v:#?}");
    assert!(
        v.instances[2].why.contains("does not inline filter calls"),
        "{v:#?}"
    );
    assert_eq!(d.held().bpf_progs, before.bpf_progs, "no graph program");
    let frames = common::veth::mixed(200);
    common::veth::send(&pair, &frames);
    let m = f.mbuf(2).unwrap();
    let words = || (m.u64(0), m.u64(8), m.u64(16));
    until("the daemon's counts", || {
        words() == (Some(150), Some(150), Some(0))
    });
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(words(), (Some(150), Some(150), Some(0)));
    f.close().unwrap();
}
