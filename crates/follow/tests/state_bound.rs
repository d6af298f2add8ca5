//! State growth: a million announcements (and 300,000 SIP calls) leave the
//! follower's state within its caps and its memory within the bound documented in
//! docs/follow.md. A counting global allocator measures the heap of this test
//! binary; one test, so nothing else allocates meanwhile.

mod common;
use common::hostile::sip_invite;
use common::*;
use netsift_follow::{Config, Mode, Protocol};
use std::alloc::{GlobalAlloc, Layout, System};
use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = NOW.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        grew(l.size());
        // SAFETY: the caller's contract for `alloc` is passed on as is.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        NOW.fetch_sub(l.size(), Relaxed);
        // SAFETY: as above, for `dealloc`.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new >= l.size() {
            grew(new - l.size());
        } else {
            NOW.fetch_sub(l.size() - new, Relaxed);
        }
        // SAFETY: as above, for `realloc`.
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// The bound docs/follow.md states for the default caps: the follower's heap
/// growth from its start, whatever the traffic.
const BOUND: usize = 16 << 20;

/// Feeds `frames()` to a fresh follower and returns its peak heap growth.
fn peak_growth(protocols: &[Protocol], mode: Mode, feed: impl FnOnce(&mut Rig)) -> usize {
    let mut rig = Rig::new(protocols, mode, Config::default());
    let start = NOW.load(Relaxed);
    PEAK.store(start, Relaxed);
    feed(&mut rig);
    let [exps, flows, owners, controls] = rig.f.state_sizes();
    let l = Config::default().limits;
    assert!(exps + flows <= l.max_flows, "{exps} + {flows}");
    assert!(owners <= l.max_sessions && controls <= l.max_sessions);
    assert!(rig.f.tracker().len() <= l.max_flows);
    PEAK.load(Relaxed) - start
}

fn host(k: u32) -> Ipv4Addr {
    Ipv4Addr::from(0x0a00_0000 + (k & 0x00ff_ffff))
}

#[test]
fn a_million_announcements_stay_within_the_bound() {
    for mode in [Mode::Set, Mode::Passes] {
        // FTP: 250,000 tracked control connections, a reply of four 227 lines
        // each: 1,000,000 announcements.
        let peak = peak_growth(&[Protocol::Ftp], mode, |rig| {
            for k in 0..250_000u32 {
                let (c, s) = (host(2 * k), host(2 * k + 1));
                rig.all(&handshake(c, 40000, s, 21));
                let reply: String = (0..4).map(|p| pasv(s, 30000 + p)).collect();
                rig.next(&tcp(s, 21, c, 40000, PSH_ACK, reply.as_bytes()));
            }
            assert_eq!(rig.f.stats().announced, 1_000_000);
        });
        eprintln!("FTP, {mode:?}: peak heap growth {peak} bytes");
        assert!(peak <= BOUND, "FTP {mode:?}: {peak} bytes");
    }
    // SIP: 300,000 calls (the 145 MB), with RTP and RTCP each:
    // 600,000 announcements, and then 200,000 more calls from one pair of hosts.
    let peak = peak_growth(&[Protocol::Sip], Mode::Set, |rig| {
        for k in 0..300_000u32 {
            let (a, b) = (IpAddr::V4(host(2 * k)), IpAddr::V4(host(2 * k + 1)));
            let id = format!("call-{k}@example.com");
            rig.next(&sip_invite(a, b, &id, "m=audio 49170 RTP/AVP 0\r\n", false));
        }
        for k in 0..200_000u32 {
            let id = format!("same-pair-{k}");
            rig.next(&sip_invite(
                S.into(),
                C.into(),
                &id,
                "m=audio 40000 RTP/AVP 0\r\n",
                false,
            ));
        }
        assert_eq!(rig.f.stats().announced, 1_000_000);
    });
    eprintln!("SIP: peak heap growth {peak} bytes");
    assert!(peak <= BOUND, "SIP: {peak} bytes");
}
