//! An interface captured by several workers (`--workers 3`): three rings in
//! one PACKET_FANOUT group, each on a thread of its own, all handing their
//! batches to the one dispatch. Each flow still gets exactly what libpcap
//! keeps of the frames sent (in any order across connections, since the
//! workers interleave), each packet stored once in its group, and every
//! worker's frames counted. On a veth pair in namespaces this test makes.

mod common;

use common::veth::{balanced, drain, flow, send, trace};
use common::{afs, daemon};
use netsift_ffpf::Client;
use netsift_testkit::netns::VethPair;
use netsift_testkit::{require, Need};
use netsift_wire::LinkType;
use std::time::{Duration, Instant};

#[test]
fn flows_get_what_libpcap_keeps_from_three_fanout_workers() {
    require!(Need::Netns, Need::File(&afs()));
    let frames = trace();
    let pair = VethPair::with_names("nswk", "va", "vb").unwrap_or_else(|e| panic!("veth: {e}"));
    let d = daemon(
        Some(&pair.a),
        &["--iface", "va", "--workers", "3", "--ibuf-entries", "1024"],
    );
    let c = Client::connect(&d.socket).unwrap();
    let filters = ["udp port 7001", "len > 200", "udp port 7001", ""];
    let mut flows: Vec<_> = filters.iter().map(|f| flow(&c, f)).collect();
    std::thread::sleep(Duration::from_millis(300));
    send(&pair, &frames);
    let until = Instant::now() + Duration::from_secs(20);
    let s = loop {
        let s = c.daemon_stats().unwrap().sources.remove(0);
        if s.packets >= frames.len() as u64 {
            break s;
        }
        assert!(Instant::now() < until, "not all frames within 20 s: {s:?}");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(s.packets, frames.len() as u64, "{s:?}");
    // One group (one user), so each frame some flow wants is stored once.
    assert_eq!((s.groups, s.distinct_filters), (1, 3), "{s:?}");
    assert_eq!(s.stored, frames.len() as u64, "{s:?}");
    let sorted = |mut v: Vec<Vec<u8>>| {
        v.sort();
        v
    };
    for (f, expr) in flows.iter_mut().zip(filters) {
        let o = netsift_oracle::Filter::compile(LinkType::EN10MB, expr).unwrap();
        let want: Vec<Vec<u8>> = frames
            .iter()
            .filter(|p| o.accepts(p, p.len() as u32))
            .cloned()
            .collect();
        let n = want.len() as u64;
        let got = drain(f);
        assert_eq!(got.len(), want.len(), "{expr:?}");
        assert!(
            sorted(got) == sorted(want),
            "{expr:?}: not libpcap's frames"
        );
        let st = balanced(f);
        assert_eq!((st.accepted, st.delivered), (n, n), "{expr:?}");
    }
    let udp = flows[0].stats().unwrap().accepted;
    assert!(udp > 0 && udp < frames.len() as u64, "{udp}");
}
