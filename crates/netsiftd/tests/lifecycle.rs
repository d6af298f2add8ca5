//! A flow's life cycle through the daemon: its snap length, pause (nothing
//! arrives, its filter leaves the source), a new filter while paused, and
//! activate again (only what the new filter keeps arrives).

mod common;

use common::{afs, afs_daemon, Connect};
use netsift_ffpf::proto::FlowState;
use netsift_ffpf::FlowSpec;
use netsift_oracle::Filter;
use netsift_testkit::{require, Need};
use netsift_wire::LinkType;
use std::time::Duration;

/// Reads at least `n` packets (or what comes in 10 s), checking each
/// against `expr` and the snap length.
fn read_checked(flow: &mut netsift_ffpf::Flow, expr: &str, n: usize) {
    let f = Filter::compile(LinkType::EN10MB, expr).unwrap();
    let r = flow.reader().unwrap();
    let mut seen = 0;
    while seen < n {
        assert!(
            r.wait_for(1, Duration::from_secs(10)).unwrap() > 0,
            "{expr}: nothing"
        );
        while let Some(p) = r.getnext().unwrap() {
            assert!(p.data.len() <= 64, "{expr}: {} bytes kept", p.data.len());
            // The wire length is whole; the filter sees the bytes kept.
            assert!(
                f.accepts(p.data, p.wirelen),
                "{expr}: a packet it does not keep"
            );
            seen += 1;
        }
    }
}

#[test]
fn pause_set_filter_and_activate_again() {
    require!(Need::File(&afs()));
    let d = afs_daemon(&["--fast", "--play", "loop"]);
    let c = d.client();
    let mut flow = c
        .create(&FlowSpec {
            source: "afs".into(),
            filter: "udp port 7001".into(),
            snaplen: Some(64),
            ..FlowSpec::default()
        })
        .unwrap();
    assert_eq!(flow.snaplen(), 64);
    flow.instantiate().unwrap();
    flow.activate().unwrap();
    read_checked(&mut flow, "udp port 7001", 50);

    flow.pause().unwrap();
    assert_eq!(flow.state(), Some(FlowState::Paused));
    let s = c.daemon_stats().unwrap();
    assert_eq!(
        (s.sources[0].distinct_filters, s.sources[0].flows),
        (0, 1),
        "{s:?}"
    );
    let r = flow.reader().unwrap();
    while r.getnext().unwrap().is_some() {}
    let accepted = flow.stats().unwrap().accepted;
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        flow.reader().unwrap().available(),
        0,
        "packets while paused"
    );
    assert_eq!(flow.stats().unwrap().accepted, accepted);

    flow.set_filter("host 131.151.1.146").unwrap();
    assert_eq!(flow.state(), Some(FlowState::Paused));
    flow.activate().unwrap();
    read_checked(&mut flow, "host 131.151.1.146", 50);
    let st = flow.stats().unwrap();
    assert_eq!(st.filter, "host 131.151.1.146");
    assert_eq!(st.state, Some(FlowState::Active));
    flow.close().unwrap();
    let s = c.daemon_stats().unwrap();
    assert_eq!((s.flows, s.sources[0].running), (0, false), "{s:?}");
}
