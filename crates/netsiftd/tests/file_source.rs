//! Three clients on a capture file played by the daemon, with different and
//! overlapping filters (two the same): each receives exactly the packets
//! libpcap's `pcap_offline_filter` keeps, in order, byte for byte; each
//! distinct filter runs once per batch, and the one group of the three
//! (same user) stores each packet once; with `--copy per-flow` the same
//! packets arrive and a packet `k` flows accepted is stored `k` times.

mod common;

use common::{active_flow, afs, afs_daemon, drain, kept, wait_stats, Connect};
use netsift_testkit::{require, Need};

#[test]
fn three_clients_get_exactly_what_libpcap_keeps() {
    three_clients("once");
}

#[test]
fn a_copy_per_flow_delivers_the_same_with_k_copies() {
    three_clients("per-flow");
}

fn three_clients(copy: &str) {
    require!(Need::File(&afs()));
    let d = afs_daemon(&[
        "--fast",
        "--wait-flows",
        "3",
        "--ibuf-entries",
        "1024",
        "--copy",
        copy,
    ]);
    let filters = ["udp port 7001", "host 131.151.1.59", "host 131.151.1.59"];
    let clients: Vec<_> = filters.iter().map(|_| d.client()).collect();
    let mut flows: Vec<_> = clients
        .iter()
        .zip(filters)
        .map(|(c, f)| active_flow(c, "afs", f))
        .collect();
    let s = wait_stats(&clients[0], "playback", |s| s.sources[0].finished);
    for (flow, f) in flows.iter_mut().zip(filters) {
        let want = kept(f);
        assert!(!want.is_empty(), "{f}: the test needs packets");
        let got = drain(flow);
        assert_eq!(got.len(), want.len(), "{f}: packets");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{f}: packet {i} differs");
        }
        let st = flow.stats().unwrap();
        assert_eq!(st.accepted, want.len() as u64, "{f}: {st:?}");
        assert_eq!((st.pbuf_full, st.ibuf_full), (0, 0), "{f}: {st:?}");
        assert!(flow.reader().unwrap().stats().balanced(), "{f}");
    }
    let src = &s.sources[0];
    assert_eq!(src.distinct_filters, 2, "{src:?}");
    assert!(src.batches > 0, "{src:?}");
    // One run per distinct filter per batch, not one per flow.
    assert_eq!(src.filter_runs, 2 * src.batches, "{src:?}");
    assert_eq!((src.groups, src.flows), (1, 3), "{src:?}");
    if copy == "once" {
        // One stored copy per packet any flow of the group wanted.
        let union = kept("udp port 7001 or host 131.151.1.59").len() as u64;
        assert_eq!(src.stored, union, "{src:?}");
    } else {
        // One stored copy per packet per flow that wanted it.
        let k: u64 = filters.iter().map(|f| kept(f).len() as u64).sum();
        assert_eq!(src.stored, k, "{src:?}");
    }
}
