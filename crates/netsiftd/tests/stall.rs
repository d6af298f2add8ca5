//! The slow-reader bound through the daemon: two flows in one group under
//! slow-reader preference, one of which stops reading. It holds the group
//! back until it has cost `--stall-bytes` of refused records; then it is
//! detached (its IBuf header and the daemon's figures say so) and the other
//! receives every packet from there on. Both flows' books balance exactly.

mod common;

use common::{active_flow, daemon, wait_stats, Connect};
use std::collections::HashMap;
use std::time::Duration;

/// Packets in the file, one a millisecond.
const N: usize = 1500;
/// Bytes of refused records after which a stalled reader is detached.
const BOUND: u64 = 8192;

#[test]
fn a_stalled_reader_is_detached_and_the_other_gets_everything_after() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("numbered.pcap");
    let frames = common::numbered_file(&path, N);
    let index: HashMap<&[u8], usize> = frames
        .iter()
        .enumerate()
        .map(|(i, f)| (f.as_slice(), i))
        .collect();
    let src = format!("numbered={}", path.display());
    let bound = BOUND.to_string();
    let d = daemon(
        None,
        &[
            "--file",
            &src,
            "--wait-flows",
            "2",
            "--prefer",
            "slow",
            "--pbuf-size",
            "65536",
            "--ibuf-entries",
            "4096",
            "--stall-bytes",
            &bound,
        ],
    );
    let (c1, c2) = (d.client(), d.client());
    let mut stalled = active_flow(&c1, "numbered", "");
    let mut live = active_flow(&c2, "numbered", "");
    // The live reader reads as packets come, until the file has played and
    // nothing is left.
    let mut got = Vec::new();
    loop {
        let finished = c2.daemon_stats().unwrap().sources[0].finished;
        let r = live.reader().unwrap();
        r.wait_for(1, Duration::from_millis(20)).unwrap();
        while let Some(p) = r.getnext().unwrap() {
            got.push(*index.get(p.data).expect("a packet of the file"));
        }
        if finished {
            break;
        }
    }
    let s = wait_stats(&c2, "playback", |s| s.sources[0].finished);
    assert_eq!((s.sources[0].groups, s.sources[0].flows), (1, 2), "{s:?}");

    // The stalled flow: detached, as its IBuf header and the daemon say.
    let rs = stalled.reader().unwrap();
    assert!(rs.is_detached(), "the stalled reader was not detached");
    let ds = stalled.stats().unwrap();
    assert!(ds.detached, "{ds:?}");

    // The live flow lost what arrived while the stalled one held the group
    // back (at most the bound, plus the record that crossed it), all in one
    // run; everything after the detach arrived, in order.
    let r = live.reader().unwrap();
    r.release();
    let ls = r.stats();
    assert!(ls.balanced(), "{ls:?}");
    assert_eq!(ls.writer.accepted, N as u64, "{ls:?}");
    assert_eq!(ls.delivered, got.len() as u64);
    assert_eq!(
        ls.writer.ibuf_full + ls.overwritten + ls.invalid,
        0,
        "{ls:?}"
    );
    let lost = ls.writer.pbuf_full;
    assert!(
        lost > 0,
        "the stalled reader never held the group back: {ls:?}"
    );
    let record = netsift_ffpf::pbuf::record_len(frames[0].len() as u32);
    assert!(lost * record <= BOUND + record, "{lost} lost: {ls:?}");
    assert!(got.windows(2).all(|w| w[0] < w[1]), "out of order");
    let gap = got
        .windows(2)
        .position(|w| w[1] != w[0] + 1)
        .expect("a run was lost");
    assert_eq!(got[gap + 1] - got[gap] - 1, lost as usize, "one run lost");
    assert_eq!(got[gap + 1..], (got[gap + 1]..N).collect::<Vec<_>>()[..]);
    let ld = live.stats().unwrap();
    assert!(!ld.detached, "{ld:?}");
    assert_eq!((ld.accepted, ld.pbuf_full), (N as u64, lost), "{ld:?}");
    assert_eq!(ld.delivered, got.len() as u64, "{ld:?}");

    // The stalled one, read at last under fast-reader rules: what it lost to
    // overwriting it counts itself, and its books balance too, as it and the
    // daemon count.
    let rs = stalled.reader().unwrap();
    let mut late = 0u64;
    while rs.getnext().unwrap().is_some() {
        late += 1;
    }
    rs.release();
    let ss = rs.stats();
    assert!(ss.balanced(), "{ss:?}");
    assert_eq!(ss.writer.accepted, N as u64, "{ss:?}");
    assert_eq!(ss.delivered, late);
    assert!(ss.overwritten > 0, "{ss:?}");
    let ds = stalled.stats().unwrap();
    assert_eq!(
        ds.delivered + ds.overwritten + ds.invalid + ds.pbuf_full + ds.ibuf_full,
        ds.accepted,
        "{ds:?}"
    );
    assert_eq!(ds.accepted, N as u64, "{ds:?}");
}
