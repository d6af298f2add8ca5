//! Zero copy ([`CopyMode::Zero`]) with the kernel played by the test: frames
//! go out through `refill`, the "kernel" writes packets into them through
//! the UMEM address (as AF_XDP does), `write_frames` indexes them. Checks
//! exact delivery, that a frame is not handed back while a reader is behind
//! it, that no packet byte is copied, exact accounting, and that a client
//! can map the UMEM read-only only.

mod common;

use common::{check, packet, reader};
use netsift_ffpf::pbuf::RECORD_HEADER_LEN;
use netsift_ffpf::{CopyMode, FlowId, Group, Policy, Received, StallBound};
use std::collections::VecDeque;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

/// Where AF_XDP's copy mode puts a packet in its frame (`XDP_PACKET_HEADROOM`).
const HEADROOM: u64 = 256;
const FRAMES: u64 = 8;

/// The test's kernel: frames it was given, in order.
#[derive(Default)]
struct Kernel {
    fill: VecDeque<u64>,
    dropped: u64,
}

impl Kernel {
    /// Puts packet `seq` in the next frame, if it has one; its descriptor.
    fn receive(&mut self, g: &Group, seq: u64, len: usize) -> Option<(u64, u32)> {
        let Some(frame) = self.fill.pop_front() else {
            self.dropped += 1;
            return None;
        };
        let umem = g.umem().expect("a zero-copy group");
        let bytes = packet(seq, len);
        let addr = frame + HEADROOM;
        assert!(addr + len as u64 <= umem.len);
        // SAFETY: `addr + len` is inside the UMEM (asserted), which the group
        // keeps mapped; only this "kernel" writes packet bytes there, and the
        // group has handed it this frame, so no reader is reading it.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                umem.addr.as_ptr().add(addr as usize),
                len,
            );
        }
        Some((addr, len as u32))
    }
}

fn refill(g: &mut Group, k: &mut Kernel) -> Vec<u64> {
    let mut out = Vec::new();
    g.refill(&mut out);
    k.fill.extend(&out);
    out
}

fn offer(g: &mut Group, k: &mut Kernel, seq: u64, len: usize, flows: &[(FlowId, u32)]) -> bool {
    let Some((addr, len)) = k.receive(g, seq, len) else {
        return false;
    };
    g.write_frames(&[Received {
        addr,
        len,
        wirelen: len + 4,
        ts_ns: seq * 1000,
        flows,
    }])
    .expect("frames in order");
    true
}

#[test]
fn frames_come_back_only_past_the_slowest_reader_and_delivery_is_exact() {
    let mut g = Group::with_copy(Policy::SlowReader, FRAMES * 2048, CopyMode::Zero).unwrap();
    assert_eq!(g.copy_mode(), CopyMode::Zero);
    let (a, fa) = g.add_flow(64).unwrap();
    let (b, fb) = g.add_flow(64).unwrap();
    let (mut ra, mut rb) = (reader(fa), reader(fb));
    let mut k = Kernel::default();
    assert_eq!(
        refill(&mut g, &mut k).len(),
        FRAMES as usize,
        "all frames at first"
    );

    // A reads nothing; B reads everything. Eight packets fill the eight frames.
    for s in 0..FRAMES {
        let flows: &[(FlowId, u32)] = if s % 2 == 0 {
            &[(a, 1), (b, 2)]
        } else {
            &[(a, 1)]
        };
        assert!(offer(&mut g, &mut k, s, 60 + s as usize * 100, flows));
        refill(&mut g, &mut k);
    }
    while let Some(p) = rb.getnext().unwrap() {
        assert_eq!(p.class, 2);
        check(&p);
    }
    assert!(refill(&mut g, &mut k).is_empty(), "A is behind every frame");
    assert!(
        !offer(&mut g, &mut k, 100, 60, &[(a, 1)]),
        "no frame: the kernel drops"
    );
    assert_eq!(k.dropped, 1);

    // A reads three packets: exactly their three frames go back, in order.
    for want in 0..3 {
        assert_eq!(check(&ra.getnext().unwrap().unwrap()), want);
    }
    ra.release();
    assert_eq!(refill(&mut g, &mut k), vec![0, 2048, 4096]);

    // More packets land in those frames; A's unread ones are intact.
    for s in 8..11 {
        assert!(offer(&mut g, &mut k, s, 1000, &[(a, 1), (b, 2)]));
    }
    assert!(refill(&mut g, &mut k).is_empty());
    let mut got = Vec::new();
    while let Some(p) = ra.getnext().unwrap() {
        assert_eq!(p.class, 1);
        got.push(check(&p));
    }
    assert_eq!(got, (3..11).collect::<Vec<u64>>());
    while let Some(p) = rb.getnext().unwrap() {
        check(&p);
    }
    for (id, r) in [(a, &ra), (b, &rb)] {
        let s = r.stats();
        assert!(s.balanced(), "{id}: {s:?}");
        assert_eq!(s.overwritten + s.invalid, 0, "{id}: {s:?}");
        assert_eq!(s.writer, g.counters(id).unwrap().writer);
    }
    assert_eq!(ra.stats().delivered, 11);
    assert_eq!(rb.stats().delivered, 4 + 3);
    // No packet byte copied: 16 bytes of record header per packet.
    assert_eq!(g.pbuf_stats(), (11, 11 * RECORD_HEADER_LEN as u64, 0));
    // Both readers are past everything and the kernel used all it had:
    // every frame is free again.
    assert_eq!(refill(&mut g, &mut k).len(), FRAMES as usize);
}

#[test]
fn a_long_run_with_a_lagging_reader_is_exact() {
    let mut g = Group::with_copy(Policy::SlowReader, 16 * 2048, CopyMode::Zero).unwrap();
    let (a, fa) = g.add_flow(16).unwrap();
    let (b, fb) = g.add_flow(256).unwrap();
    let (mut ra, mut rb) = (reader(fa), reader(fb));
    let mut k = Kernel::default();
    let mut seen = (Vec::new(), Vec::new());
    for s in 0..5000u64 {
        refill(&mut g, &mut k);
        let flows: Vec<(FlowId, u32)> = [(a, 1), (b, 2)]
            .into_iter()
            .filter(|(f, _)| *f == a || s % 3 == 0)
            .collect();
        offer(&mut g, &mut k, s, 60 + (s as usize * 37) % 1700, &flows);
        // A reads one packet in three steps; B all of them.
        if s % 3 == 0 {
            if let Some(p) = ra.getnext().unwrap() {
                seen.0.push(check(&p));
            }
        }
        while let Some(p) = rb.getnext().unwrap() {
            seen.1.push(check(&p));
        }
    }
    while let Some(p) = ra.getnext().unwrap() {
        seen.0.push(check(&p));
    }
    assert!(seen.0.windows(2).all(|w| w[0] < w[1]), "in order");
    assert!(
        k.dropped > 0,
        "the slow reader ran the kernel out of frames"
    );
    let (sa, sb) = (ra.stats(), rb.stats());
    assert!(sa.balanced() && sb.balanced(), "{sa:?} {sb:?}");
    assert_eq!(sa.overwritten + sa.invalid + sb.overwritten + sb.invalid, 0);
    assert_eq!(sa.delivered, seen.0.len() as u64);
    assert_eq!(sb.delivered, seen.1.len() as u64);
    assert_eq!(
        sa.writer.accepted + k.dropped,
        5000,
        "every packet the kernel had a frame for reached A's filter"
    );
}

#[test]
fn a_client_maps_the_frames_read_only_only() {
    let mut g = Group::with_copy(Policy::SlowReader, 4 * 2048, CopyMode::Zero).unwrap();
    let (_, fds) = g.add_flow(16).unwrap();
    let fd = fds.pbuf.as_raw_fd();
    let len = 4096 + 4 * 2048;
    for (prot, ok) in [
        (libc::PROT_READ, true),
        (libc::PROT_READ | libc::PROT_WRITE, false),
    ] {
        // SAFETY: a fresh mapping of our own descriptor at an address the
        // kernel picks, unmapped below; nothing reads through it.
        let p = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, libc::MAP_SHARED, fd, 0) };
        assert_eq!(p != libc::MAP_FAILED, ok, "prot {prot}");
        if p != libc::MAP_FAILED {
            // SAFETY: the mapping just made, of `len` bytes.
            unsafe { libc::munmap(p, len) };
        }
    }
    assert!(g.umem().is_some());
    assert!(Group::new(Policy::SlowReader, 4096)
        .unwrap()
        .umem()
        .is_none());
}

#[test]
fn a_reader_that_starves_the_kernel_past_the_bound_is_detached() {
    let mut g = Group::with_copy(Policy::SlowReader, FRAMES * 2048, CopyMode::Zero).unwrap();
    g.set_stall_bound(StallBound {
        time: Some(Duration::from_millis(10)),
        bytes: None,
    });
    let (a, fa) = g.add_flow(64).unwrap();
    let (b, fb) = g.add_flow(64).unwrap();
    let (mut ra, mut rb) = (reader(fa), reader(fb));
    let mut k = Kernel::default();
    refill(&mut g, &mut k);
    for s in 0..FRAMES {
        assert!(offer(&mut g, &mut k, s, 100, &[(a, 1), (b, 2)]));
    }
    while rb.getnext().unwrap().is_some() {}
    let t0 = Instant::now();
    let mut out = Vec::new();
    g.refill_at(&mut out, t0);
    assert!(out.is_empty(), "A holds every frame and the stall starts");
    g.refill_at(&mut out, t0 + Duration::from_millis(5));
    assert!(out.is_empty(), "within the bound");
    g.refill_at(&mut out, t0 + Duration::from_millis(11));
    assert_eq!(out.len(), FRAMES as usize, "A detached: its frames go back");
    assert!(g.counters(a).unwrap().detached);
    assert!(!g.counters(b).unwrap().detached);
    k.fill.extend(&out);
    // The kernel refills A's frames; A finds its old entries overwritten.
    for s in FRAMES..2 * FRAMES {
        assert!(offer(&mut g, &mut k, s, 100, &[(a, 1), (b, 2)]));
    }
    let mut got = Vec::new();
    while let Some(p) = ra.getnext().unwrap() {
        got.push(check(&p));
    }
    while let Some(p) = rb.getnext().unwrap() {
        check(&p);
    }
    let (sa, sb) = (ra.stats(), rb.stats());
    assert!(sa.detached && sa.balanced(), "{sa:?}");
    assert_eq!(sa.overwritten + sa.delivered, 2 * FRAMES, "{sa:?}");
    assert!(sa.overwritten >= FRAMES, "{sa:?}");
    assert_eq!(got.len() as u64, sa.delivered);
    assert!(
        sb.balanced() && sb.delivered == 2 * FRAMES && sb.overwritten == 0,
        "{sb:?}"
    );
}
