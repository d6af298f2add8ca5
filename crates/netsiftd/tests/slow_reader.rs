//! A slow reader under each preference, through the daemon: every packet its
//! filter accepted is delivered or dropped for a reason, exactly, as the
//! reader and the daemon both count.

mod common;

use common::{active_flow, afs, afs_daemon, drain, wait_stats, Connect};
use netsift_testkit::{require, Need};
use std::time::Duration;

fn slow_reader(prefer: &str) -> (netsift_ffpf::ReaderStats, netsift_ffpf::proto::FlowStats) {
    // A small PBuf and IBuf, the file as fast as it reads: the reader, which
    // waits before it reads, cannot keep up.
    let d = afs_daemon(&[
        "--fast",
        "--prefer",
        prefer,
        "--pbuf-size",
        "65536",
        "--ibuf-entries",
        "64",
    ]);
    let c = d.client();
    let mut f = active_flow(&c, "afs", "");
    let mut n = 0;
    let mut done = false;
    while !done {
        done = c.daemon_stats().unwrap().sources[0].finished;
        std::thread::sleep(Duration::from_millis(30));
        for _ in 0..16 {
            if f.reader().unwrap().getnext().unwrap().is_none() {
                break;
            }
            n += 1;
        }
    }
    wait_stats(&c, "playback", |s| s.sources[0].finished);
    n += drain(&mut f).len() as u64;
    let r = f.reader().unwrap();
    r.release();
    let rs = r.stats();
    assert_eq!(rs.delivered, n);
    (rs, f.stats().unwrap())
}

fn check(prefer: &str) -> (netsift_ffpf::ReaderStats, netsift_ffpf::proto::FlowStats) {
    let (rs, ds) = slow_reader(prefer);
    assert_eq!(rs.writer.accepted, 601, "{prefer}: {rs:?}");
    assert!(rs.balanced(), "{prefer}: {rs:?}");
    // The daemon's view: its own counters and what the reader reported.
    assert_eq!(ds.accepted, 601, "{prefer}: {ds:?}");
    assert_eq!(
        ds.delivered + ds.overwritten + ds.invalid + ds.pbuf_full + ds.ibuf_full,
        ds.accepted,
        "{prefer}: {ds:?}"
    );
    assert!(
        rs.delivered < 601,
        "{prefer}: the reader was not slow: {rs:?}"
    );
    (rs, ds)
}

#[test]
fn slow_reader_preference_drops_new_packets_exactly() {
    require!(Need::File(&afs()));
    let (rs, _) = check("slow");
    assert_eq!(rs.overwritten, 0, "{rs:?}");
    assert!(rs.writer.pbuf_full + rs.writer.ibuf_full > 0, "{rs:?}");
}

#[test]
fn fast_reader_preference_overwrites_exactly() {
    require!(Need::File(&afs()));
    let (rs, _) = check("fast");
    assert_eq!(rs.writer.pbuf_full + rs.writer.ibuf_full, 0, "{rs:?}");
    assert!(rs.overwritten > 0, "{rs:?}");
}
