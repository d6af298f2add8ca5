//! A client killed (SIGKILL) while it reads: the daemon closes its flows and
//! frees their buffers (its figures and its descriptor count come back to
//! what they were), and another client carries on.

mod common;

use common::{active_flow, afs, afs_daemon, side, until_ready, wait_stats, Connect};
use netsift_testkit::{require, Need};
use std::io::BufReader;
use std::time::Duration;

const ENV: &str = "NETSIFTD_TEST_VICTIM_SOCKET";

/// The victim's side: runs only when the parent set the variable. It holds
/// two flows (one with a filter of its own) and reads until killed.
#[test]
fn victim_side() {
    let Ok(sock) = std::env::var(ENV) else { return };
    let c = netsift_ffpf::Client::connect(&sock).unwrap();
    let mut a = active_flow(&c, "afs", "udp and port 7000");
    let _b = active_flow(&c, "afs", "");
    println!("ready");
    loop {
        let r = a.reader().unwrap();
        r.wait_for(1, Duration::from_millis(50)).unwrap();
        while r.getnext().unwrap().is_some() {}
    }
}

#[test]
fn a_killed_client_leaves_nothing_behind() {
    require!(Need::File(&afs()));
    let d = afs_daemon(&["--play", "loop"]);
    let other = d.client();
    let mut mine = active_flow(&other, "afs", "udp");
    // The baseline once the file plays (and so is open).
    assert!(
        mine.reader()
            .unwrap()
            .wait_for(1, Duration::from_secs(10))
            .unwrap()
            >= 1
    );
    let baseline = other.daemon_stats().unwrap();
    let fds = d.fds();
    let fd_list = d.fd_list();

    let mut child = side("victim_side").env(ENV, &d.socket).spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    until_ready(&mut out, "the victim");
    let s = wait_stats(&other, "the victim's flows", |s| {
        s.flows == baseline.flows + 2
    });
    assert_eq!(s.sources[0].distinct_filters, 3, "{s:?}");
    assert!(d.fds() > fds);
    // Let it read a while, then kill it mid-read.
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();

    let s = wait_stats(&other, "the victim's flows closed", |s| {
        s.flows == baseline.flows && s.connections == baseline.connections
    });
    assert_eq!(s.sources[0].flows, baseline.sources[0].flows, "{s:?}");
    assert_eq!(s.sources[0].distinct_filters, 1, "{s:?}");
    let until = std::time::Instant::now() + Duration::from_secs(10);
    while d.fds() != fds {
        assert!(
            std::time::Instant::now() < until,
            "{:?} descriptors, {fd_list:?} before",
            d.fd_list()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // The other client carries on.
    let r = mine.reader().unwrap();
    while r.getnext().unwrap().is_some() {}
    assert!(r.wait_for(1, Duration::from_secs(10)).unwrap() >= 1);
    let st = mine.stats().unwrap();
    assert_eq!(st.state, Some(netsift_ffpf::proto::FlowState::Active));
}
