//! `netsift flow` against a real `netsiftd` owning one end of a veth pair in a
//! namespace the test makes: two flows with different, overlapping filters
//! (and a third with the first one's text) each write exactly their packets
//! of the frames the test sends; the kernel's program holds one clause per
//! distinct filter.
//!
//! `netsiftd` is another package's binary, so it is built first with `cargo
//! build -p netsiftd` and found beside this test's `netsift`
//! (`target/<profile>/netsiftd`).

use netsift_ffpf::proto::ErrorCode;
use netsift_ffpf::Client;
use netsift_testkit::daemon::Daemon;
use netsift_testkit::frames::numbered_udp_from;
use netsift_testkit::live::Live;
use netsift_testkit::netns::{Side, VethPair};
use netsift_testkit::pcap;
use netsift_testkit::{require, Need};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// `netsiftd`, beside `netsift`, built first (a stale daemon would test
/// old code).
fn netsiftd() -> PathBuf {
    netsift_testkit::daemon::built(Path::new(env!("CARGO_BIN_EXE_netsift")))
}

#[test]
fn two_flows_on_a_veth_each_get_exactly_their_frames() {
    require!(Need::Netns);
    let dir = tempfile::tempdir().unwrap();
    let pair = VethPair::new();
    let (ns, dev) = pair.end(Side::A);
    let daemon = Daemon::start(&netsiftd(), Some(ns), &["--iface", dev]);
    let socket = daemon.socket.clone();
    let client = Client::connect(&socket).expect("netsiftd listens");

    // A filter that tests the direction compiles (one program a direction);
    // one that rejects every packet both ways is refused, as by libpcap.
    client
        .create(&netsift_ffpf::FlowSpec {
            source: dev.to_string(),
            filter: "inbound and udp".into(),
            ..Default::default()
        })
        .unwrap();
    let e = client
        .create(&netsift_ffpf::FlowSpec {
            source: dev.to_string(),
            filter: "inbound and outbound".into(),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(e.refusal(), Some(ErrorCode::Filter), "{e}");

    // Frames from source ports 5001, 5002 and 5003, interleaved.
    let frames: Vec<Vec<u8>> = (0..300u32)
        .map(|i| numbered_udp_from(i, 5001 + (i % 3) as u16))
        .collect();
    let from = |ports: &[u16]| -> Vec<Vec<u8>> {
        (0..300u32)
            .filter(|i| ports.contains(&(5001 + (i % 3) as u16)))
            .map(|i| frames[i as usize].clone())
            .collect()
    };
    let flows = [
        ("udp src port 5001", from(&[5001])),
        ("udp src portrange 5001-5002", from(&[5001, 5002])),
        ("udp src port 5001", from(&[5001])),
    ];
    let runs: Vec<_> = flows
        .iter()
        .enumerate()
        .map(|(k, (expr, want))| {
            let count = want.len().to_string();
            let run = Live::new(env!("CARGO_BIN_EXE_netsift"))
                .arg("flow")
                .arg("--socket")
                .arg(&socket)
                .args(["-i", dev, "-c", &count])
                .write_to(&dir.path().join(format!("out{k}.pcap")))
                .filter(expr)
                .start();
            (expr, want, run)
        })
        .collect();
    let s = client.daemon_stats().unwrap();
    let src = &s.sources[0];
    assert_eq!((src.flows, src.distinct_filters), (3, 2), "{src:?}");
    // One kernel clause per distinct filter, shared by equal texts.
    assert_eq!(src.kernel_clauses, 2, "{src:?}");

    pair.send(Side::B, &frames);
    for (expr, want, run) in runs {
        let done = run.wait(Duration::from_secs(20));
        assert!(
            done.status.success(),
            "{expr}: netsift flow exited {}",
            done.status
        );
        assert_eq!(done.packets(), pcap::as_sent(want), "{expr}");
        assert_eq!(
            done.statistic("packets captured"),
            Some(want.len() as u64),
            "{expr}"
        );
    }
    // Their flows closed with them, and the source stopped.
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let s = client.daemon_stats().unwrap();
        if s.flows == 0 && !s.sources[0].running {
            assert_eq!(s.sources[0].kernel_clauses, 0);
            break;
        }
        assert!(Instant::now() < until, "flows left: {s:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}
