//! Waking: a reader sleeps until its threshold, the writer signals once per
//! batch, and the callback loop runs for its lifetime.

mod common;

use common::{check, incoming, packet, reader};
use netsift_ffpf::{FlowId, Group, Incoming, Policy};
use std::time::{Duration, Instant};

fn batch(g: &mut Group, from: u64, n: u64, id: FlowId) -> netsift_ffpf::BatchSummary {
    let pkts: Vec<Vec<u8>> = (from..from + n).map(|s| packet(s, 60)).collect();
    g.write_batch(&incoming(&pkts, from, &[(id, 0)]))
}

#[test]
fn wait_for_sleeps_until_n_packets() {
    let mut g = Group::new(Policy::SlowReader, 1 << 16).unwrap();
    let (id, fds) = g.add_flow(256).unwrap();
    let mut r = reader(fds);
    let t = std::thread::spawn(move || {
        let t0 = Instant::now();
        let have = r.wait_for(10, Duration::from_secs(10)).unwrap();
        (have, t0.elapsed(), r)
    });
    for k in 0..3 {
        std::thread::sleep(Duration::from_millis(30));
        batch(&mut g, k * 4, 4, id);
    }
    let (have, took, mut r) = t.join().unwrap();
    assert!(have >= 10, "{have}");
    assert!(
        took < Duration::from_secs(5),
        "woken, not timed out: {took:?}"
    );
    assert!(
        took >= Duration::from_millis(60),
        "not before the threshold: {took:?}"
    );
    let mut n = 0;
    while let Some(p) = r.getnext().unwrap() {
        assert_eq!(check(&p), n);
        n += 1;
    }
    assert_eq!(n, 12);
}

#[test]
fn wait_for_times_out() {
    let mut g = Group::new(Policy::FastReader, 1 << 16).unwrap();
    let (id, fds) = g.add_flow(256).unwrap();
    let mut r = reader(fds);
    batch(&mut g, 0, 3, id);
    let t0 = Instant::now();
    assert_eq!(r.wait_for(5, Duration::from_millis(50)).unwrap(), 3);
    assert!(t0.elapsed() >= Duration::from_millis(50));
    assert_eq!(r.wait_for(0, Duration::ZERO).unwrap(), 3, "n = 0 means 1");
}

#[test]
fn the_writer_signals_once_per_batch_and_arming() {
    let mut g = Group::new(Policy::SlowReader, 1 << 16).unwrap();
    let (id, fds) = g.add_flow(256).unwrap();
    let mut r = reader(fds);
    assert_eq!(batch(&mut g, 0, 32, id).woken, 0, "not armed");
    // Arm at 64 (the wait times out at once), then cross it in one batch.
    assert_eq!(r.wait_for(64, Duration::ZERO).unwrap(), 32);
    let t = std::thread::spawn(move || {
        let have = r.wait_for(64, Duration::from_secs(10)).unwrap();
        (have, r)
    });
    std::thread::sleep(Duration::from_millis(20));
    let s = batch(&mut g, 32, 40, id);
    let (have, _r) = t.join().unwrap();
    assert_eq!(have, 72);
    assert!(
        s.woken <= 1,
        "at most one signal for the whole batch: {s:?}"
    );
    assert_eq!(
        batch(&mut g, 72, 40, id).woken,
        0,
        "disarmed after signalling"
    );
}

#[test]
fn an_armed_threshold_gets_exactly_one_signal() {
    use netsift_ffpf::control::ControlPage;
    use netsift_ffpf::wake::{drain, poll_readable};
    use std::os::fd::AsFd;
    use std::sync::atomic::Ordering;
    let mut g = Group::new(Policy::FastReader, 1 << 16).unwrap();
    let (id, fds) = g.add_flow(256).unwrap();
    let page = netsift_ffpf::shm::RwMapping::new(fds.control.as_fd(), 4096).unwrap();
    let wake_at = page.u64(std::mem::offset_of!(ControlPage, wake_at));
    wake_at.store(10, Ordering::Relaxed);
    assert_eq!(batch(&mut g, 0, 9, id).woken, 0, "below the threshold");
    assert_eq!(
        batch(&mut g, 9, 32, id).woken,
        1,
        "one signal for 32 packets"
    );
    assert_eq!(wake_at.load(Ordering::Relaxed), 0, "disarmed");
    assert!(poll_readable(fds.wake.as_fd(), 0).unwrap());
    assert_eq!(drain(fds.wake.as_fd()), 1);
    assert_eq!(batch(&mut g, 41, 32, id).woken, 0, "not re-armed");
    assert!(!poll_readable(fds.wake.as_fd(), 0).unwrap());
}

#[test]
fn for_each_calls_back_for_its_lifetime() {
    let mut g = Group::new(Policy::SlowReader, 1 << 16).unwrap();
    let (id, fds) = g.add_flow(1024).unwrap();
    let mut r = reader(fds);
    let t = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let n = r
            .for_each(10, Duration::from_secs(10), |p| {
                seen.push(check(p));
                seen.len() < 100
            })
            .unwrap();
        (n, seen)
    });
    for k in 0..10 {
        std::thread::sleep(Duration::from_millis(5));
        batch(&mut g, k * 10, 10, id);
    }
    let (n, seen) = t.join().unwrap();
    assert_eq!(n, 100);
    assert_eq!(seen, (0..100).collect::<Vec<u64>>());

    // A lifetime with too few packets ends on time with what arrived.
    let (id2, fds2) = g.add_flow(64).unwrap();
    let mut r2 = reader(fds2);
    batch(&mut g, 0, 3, id2);
    let t0 = Instant::now();
    let n = r2
        .for_each(10, Duration::from_millis(40), |_| true)
        .unwrap();
    assert_eq!(n, 3);
    assert!(t0.elapsed() >= Duration::from_millis(40));
}

#[test]
fn a_reader_waiting_on_a_vanished_writer_returns() {
    let mut g = Group::new(Policy::SlowReader, 1 << 16).unwrap();
    let (id, fds) = g.add_flow(64).unwrap();
    let mut r = reader(fds);
    batch(&mut g, 0, 2, id);
    let t = std::thread::spawn(move || {
        let t0 = Instant::now();
        let have = r.wait_for(10, Duration::from_secs(20)).unwrap();
        (have, t0.elapsed())
    });
    std::thread::sleep(Duration::from_millis(20));
    drop(g);
    let (have, took) = t.join().unwrap();
    assert_eq!(have, 2, "the mappings outlive the writer");
    assert!(
        took < Duration::from_secs(10),
        "returned when the writer went: {took:?}"
    );
}

/// Under slow-reader preference a rare flow's unread packet holds the group's
/// PBuf: once PBuf is half held, a reader armed for many packets is woken with
/// the one it has, so that it frees the room before the busy flow's packets
/// are dropped for want of it.
#[test]
fn a_half_held_pbuf_wakes_a_reader_before_its_threshold() {
    let mut g = Group::new(Policy::SlowReader, 1 << 16).unwrap();
    let (rare, rare_fds) = g.add_flow(4096).unwrap();
    let (busy, busy_fds) = g.add_flow(4096).unwrap();
    let mut rare_r = reader(rare_fds);
    let _busy_r = reader(busy_fds);
    // The rare flow takes packet 0 and waits for 1,000 of them.
    let first = [(rare, 0), (busy, 0)];
    let p = packet(0, 60);
    g.write_batch(&[Incoming {
        bytes: &p,
        ts_ns: 0,
        wirelen: 64,
        flows: &first,
    }]);
    // Asleep, armed for 1,000 packets.
    let sleeper = std::thread::spawn(move || {
        let t0 = Instant::now();
        let have = rare_r.wait_for(1000, Duration::from_secs(10)).unwrap();
        (have, t0.elapsed(), rare_r)
    });
    std::thread::sleep(Duration::from_millis(50));
    // The busy flow's packets fill PBuf behind the rare one's (its reader
    // reads nothing, as a reader between two of its batches).
    let mut woken = 0;
    let mut batches = 0;
    while woken == 0 {
        woken = batch(&mut g, 1 + batches * 32, 32, busy).woken;
        batches += 1;
        assert!(batches < 64, "PBuf filled without waking the rare reader");
    }
    let (have, took, mut rare_r) = sleeper.join().unwrap();
    assert_eq!(have, 1, "woken with its one packet");
    assert!(
        took < Duration::from_secs(5),
        "woken, not timed out: {took:?}"
    );
    assert_eq!(check(&rare_r.getnext().unwrap().unwrap()), 0);
    assert_eq!(
        g.counters(busy).unwrap().writer.pbuf_full,
        0,
        "nothing dropped for the busy flow yet"
    );
}

#[test]
fn wait_for_or_returns_when_the_other_descriptor_is_readable() {
    use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
    let mut g = Group::new(Policy::SlowReader, 1 << 16).unwrap();
    let (id, fds) = g.add_flow(256).unwrap();
    let mut r = reader(fds);
    // SAFETY: eventfd(2) with constant flags; owned at once.
    let efd = unsafe { OwnedFd::from_raw_fd(libc::eventfd(0, libc::EFD_NONBLOCK)) };
    let raw = efd.as_raw_fd();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(30));
        let one = 1u64;
        // SAFETY: 8 bytes from a local to the eventfd, alive until joined.
        unsafe { libc::write(raw, (&one as *const u64).cast(), 8) };
    });
    let t0 = Instant::now();
    let got = r
        .wait_for_or(10, Duration::from_secs(10), efd.as_fd())
        .unwrap();
    t.join().unwrap();
    assert_eq!(got, None, "interrupted");
    assert!(t0.elapsed() < Duration::from_secs(5));
    // Not interrupted: as wait_for.
    let mut v = 0u64;
    // SAFETY: 8 bytes into a local from the eventfd.
    unsafe { libc::read(raw, (&mut v as *mut u64).cast(), 8) };
    batch(&mut g, 0, 3, id);
    assert_eq!(
        r.wait_for_or(5, Duration::from_millis(20), efd.as_fd())
            .unwrap(),
        Some(3)
    );
}

#[test]
fn arm_makes_the_writer_signal_the_wake_descriptor() {
    let mut g = Group::new(Policy::SlowReader, 1 << 16).unwrap();
    let (id, fds) = g.add_flow(256).unwrap();
    let mut r = reader(fds);
    assert_eq!(r.arm(2), 0);
    assert_eq!(batch(&mut g, 0, 1, id).woken, 0, "below the threshold");
    assert_eq!(batch(&mut g, 1, 1, id).woken, 1, "at it");
    assert!(netsift_ffpf::wake::poll_readable(r.wake_fd(), 0).unwrap());
    assert!(netsift_ffpf::wake::drain(r.wake_fd()) > 0);
    assert_eq!(batch(&mut g, 2, 1, id).woken, 0, "disarmed once signalled");
    assert_eq!(r.arm(1), 3, "already waiting: the caller looks");
}
