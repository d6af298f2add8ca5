//! Frames sent over a veth pair to a daemon that owns its end `va` in the
//! pair's namespace `a` (`zero_copy.rs`, `workers.rs`): the corpus capture's
//! frames, sent in bursts, and flows on `va` drained and checked.

use netsift_ffpf::{Client, Flow, FlowSpec};
use netsift_testkit::netns::{Side, VethPair};
use std::time::Duration;

/// The capture's frames (all Ethernet, at most 1514 bytes: each fits a
/// 2048-byte UMEM frame after the kernel's 256 bytes of headroom).
pub fn trace() -> Vec<Vec<u8>> {
    let mut c = netsift_oracle::Capture::open(&super::afs()).unwrap();
    let mut out = Vec::new();
    while let Some(p) = c.next() {
        out.push(p.unwrap().data);
    }
    out
}

/// Sends `frames` from `vb` in small bursts, so that veth's queue (256
/// frames) never overflows before the receiving side's NAPI runs.
pub fn send(pair: &VethPair, frames: &[Vec<u8>]) {
    for chunk in frames.chunks(32) {
        pair.send(Side::B, chunk);
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// An active flow on source `va` (the daemon's end of the pair) with `filter`.
pub fn flow(c: &Client, filter: &str) -> Flow {
    let mut f = c
        .create(&FlowSpec {
            source: "va".into(),
            filter: filter.into(),
            ..FlowSpec::default()
        })
        .unwrap();
    f.instantiate().unwrap();
    f.activate().unwrap();
    f
}

pub fn drain(f: &mut Flow) -> Vec<Vec<u8>> {
    let r = f.reader().unwrap();
    let mut out = Vec::new();
    while let Some(p) = r.getnext().unwrap() {
        assert_eq!(p.wirelen as usize, p.data.len());
        out.push(p.data.to_vec());
    }
    out
}

/// Per flow: every packet its filter accepted is delivered or dropped for a
/// reason, as the daemon counts (after the reader reported).
pub fn balanced(f: &mut Flow) -> netsift_ffpf::proto::FlowStats {
    f.reader().unwrap().release();
    let s = f.stats().unwrap();
    assert_eq!(
        s.delivered + s.overwritten + s.invalid + s.pbuf_full + s.ibuf_full,
        s.accepted,
        "{s:?}"
    );
    s
}
