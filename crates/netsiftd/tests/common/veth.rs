//! Frames sent over a veth pair to a daemon that owns its end `va` in the
//! pair's namespace `a` (`zero_copy.rs`, `workers.rs`): the corpus capture's
//! frames, sent in bursts, and flows on `va` drained and checked.

use netsift_ffpf::{Client, Flow};
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
    super::active_flow(c, "va", filter)
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

/// Two veth pairs whose ends `va` and `vc` share the first pair's namespace
/// (`vc` moved there, up, without IPv6's own chatter), for a daemon reading
/// both: send to `va` from the first pair's `vb`, to `vc` from the second's
/// `vd`.
pub fn two_interfaces() -> (VethPair, VethPair) {
    use netsift_testkit::netns::ip;
    let one = VethPair::new();
    let two = VethPair::with_names("nstk", "vc", "vd").unwrap_or_else(|e| panic!("veth: {e}"));
    let ns = one.a.as_str();
    ip(&["-n", &two.a, "link", "set", "vc", "netns", ns]).unwrap();
    let v6 = "net.ipv6.conf.vc.disable_ipv6=1";
    ip(&["netns", "exec", ns, "sysctl", "-qw", v6]).unwrap();
    ip(&["-n", ns, "link", "set", "vc", "up"]).unwrap();
    (one, two)
}

/// UDP frames to port 1234 from ports `5000 + i`, UDP to port 53, and TCP
/// frames of a few connections, interleaved.
pub fn mixed(n: u32) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| match i % 4 {
            0 | 1 => netsift_testkit::frames::numbered_udp_from(i, 5000 + i as u16),
            2 => netsift_testkit::frames::numbered(i, None, 8)
                .udp(4000, 53)
                .build(),
            _ => netsift_testkit::frames::Frame::default()
                .ipv4([10, 0, 0, 2], [10, 0, 0, 1])
                .tcp(40000 + (i % 3) as u16, 80, 0x10)
                .payload(&i.to_be_bytes())
                .build(),
        })
        .collect()
}
