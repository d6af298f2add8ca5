//! Every live feature of the session, driven through its API on a veth pair in
//! network namespaces the tests make: a ring into a callback, the filter in the
//! kernel, workers merged in time order, clauses edited while capturing, the
//! XDP hook, and a sink that fails.

use netsift_pcapio::Record;
use netsift_session::{
    Callback, Capture, Config, ErrorKind, Event, Events, FilterSpec, Placed, Placement, Report,
    SinkError, Source,
};
use netsift_testkit::frames::{Frame, MAC_A, MAC_B};
use netsift_testkit::netns::{in_ns, Side, VethPair};
use netsift_testkit::{require, Need};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// An Ethernet/IPv4/UDP frame from port `sport` to `dport`, its payload `n`.
fn udp(sport: u16, dport: u16, n: u32) -> Vec<u8> {
    Frame::ethernet(MAC_B, MAC_A)
        .ipv4([10, 9, 0, 2], [10, 9, 0, 1])
        .udp(sport, dport)
        .payload(&n.to_be_bytes())
        .build()
}

/// What a test capture gave: the report, the result, the packets' bytes in the
/// order the sink got them, and the events.
struct Run {
    report: Report,
    result: Result<(), netsift_session::Error>,
    packets: Vec<Vec<u8>>,
    events: Vec<Event>,
}

/// A capture of `cfg` (its source an interface of `ns`) in that namespace: it is
/// opened, `during` runs while it captures (given the live set's clauses, if
/// any), then it stops once `cfg.count` packets are in or after `patience`.
fn capture(
    ns: &str,
    cfg: Config,
    patience: Duration,
    during: impl FnOnce(Option<Arc<Mutex<netsift_session::Clauses>>>) + Send + 'static,
) -> Run {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let events: Events = Arc::new(move |e| s.lock().unwrap().push(e));
    let stop = Arc::new(AtomicBool::new(false));
    let (ready, opened) = mpsc::channel();
    let st = stop.clone();
    let run = in_ns(ns, move || {
        let c = match Capture::open(&cfg, events) {
            Ok(c) => c,
            Err(e) => {
                ready.send(None).unwrap();
                return (Report::default(), Err(e), Vec::new());
            }
        };
        ready.send(Some(c.clauses())).unwrap();
        let mut packets = Vec::new();
        let mut sinks = [Callback(|r: &Record<'_>| {
            packets.push(r.packet.data.to_vec());
            Ok::<(), SinkError>(())
        })];
        let (report, result) = c.run(&mut sinks, &st);
        (report, result, packets)
    });
    if let Some(clauses) = opened.recv().unwrap() {
        during(clauses);
    }
    let watchdog = watchdog(stop.clone(), patience);
    let (report, result, packets) = run.join().unwrap();
    stop.store(true, Ordering::Relaxed);
    let _ = watchdog.join();
    let events = seen.lock().unwrap().clone();
    Run {
        report,
        result,
        packets,
        events,
    }
}

/// Sends frames from side B of `pair`, as they are, and returns when all are
/// sent: what a test does while its capture runs on side A.
fn sender(pair: &VethPair) -> impl Fn(Vec<Vec<u8>>) + Send + Clone + 'static {
    let (ns, dev) = pair.end(Side::B);
    let (ns, dev) = (ns.to_string(), dev.to_string());
    move |frames| {
        let dev = dev.clone();
        in_ns(&ns, move || {
            // In bursts of 64 a millisecond apart, as traffic arrives: all at
            // once, a few thousand frames can outrun a capture thread that a
            // busy machine (the rest of the suite) does not schedule for a
            // while, and the ring drops what every test here counts exactly.
            for burst in frames.chunks(64) {
                netsift_testkit::netns::send_frames(&dev, burst);
                std::thread::sleep(Duration::from_millis(1));
            }
        })
        .join()
        .unwrap()
    }
}

/// Sets `stop` after `patience`, unless it is set before (the capture ended).
fn watchdog(stop: Arc<AtomicBool>, patience: Duration) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let start = std::time::Instant::now();
        while !stop.load(Ordering::Relaxed) && start.elapsed() < patience {
            std::thread::sleep(Duration::from_millis(20));
        }
        stop.store(true, Ordering::Relaxed);
    })
}

/// Twenty frames to port 9 and twenty to port 7, interleaved, the last to port
/// 7: when the capture has its twentieth, every frame has been through the
/// filter (and the XDP program's counts are final).
fn mixed() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let all: Vec<Vec<u8>> = (0..40)
        .map(|i| udp(1000, if i % 2 == 1 { 7 } else { 9 }, i))
        .collect();
    let to7 = all.iter().skip(1).step_by(2).cloned().collect();
    (all, to7)
}

fn config(dev: &str, placement: Placement, workers: usize) -> Config {
    let mut cfg = Config::new(Source::Ring(dev.into()));
    cfg.placement = placement;
    cfg.workers = workers;
    cfg.immediate = true;
    cfg.direction = netsift_session::Direction::In;
    cfg.filter = FilterSpec::Static("udp port 7".into());
    cfg.count = Some(20);
    cfg
}

/// One ring, the filter in user space or in the kernel: the callback gets
/// exactly the frames to port 7, in the order sent; the kernel's placement is
/// an event.
#[test]
fn a_ring_hands_what_the_filter_accepts_to_a_callback() {
    require!(Need::Netns);
    for placement in [Placement::User, Placement::Kernel] {
        let pair = VethPair::new();
        let (all, to7) = mixed();
        let send = sender(&pair);
        let (ns, dev) = pair.end(Side::A);
        let r = capture(
            ns,
            config(dev, placement, 1),
            Duration::from_secs(10),
            move |_| send(all),
        );
        r.result.unwrap();
        assert_eq!(r.packets, to7, "{placement:?}");
        assert_eq!(r.report.captured, 20);
        assert_eq!(r.report.rings.len(), 1);
        let placed = r
            .events
            .iter()
            .any(|e| matches!(e, Event::Placed(Placed::Socket { decisive: true, .. })));
        assert_eq!(placed, placement == Placement::Kernel, "{:?}", r.events);
    }
}

/// Two workers in a fanout group: every accepted frame once, merged back in
/// time order, with each ring's share in the report.
#[test]
fn workers_merge_their_rings_in_time_order() {
    require!(Need::Netns);
    let pair = VethPair::new();
    // Many flows, so the flow hash spreads them over both rings.
    let frames: Vec<Vec<u8>> = (0..200)
        .map(|i| udp(2000 + (i % 50) as u16, 7, i))
        .collect();
    let want = frames.clone();
    let send = sender(&pair);
    let (ns, dev) = pair.end(Side::A);
    let mut cfg = config(dev, Placement::User, 2);
    cfg.count = Some(200);
    let r = capture(ns, cfg, Duration::from_secs(10), move |_| send(frames));
    r.result.unwrap();
    assert_eq!(r.packets, want, "every frame once, in the order sent");
    assert_eq!(r.report.rings.len(), 2);
    assert_eq!(r.report.rings.iter().map(|w| w.accepted).sum::<u64>(), 200);
    assert!(r
        .report
        .rings
        .iter()
        .all(|w| w.stats.is_some() && w.failure.is_none()));
}

/// A live set edited while capturing, in user space and with the kernel's
/// program kept in step: what a clause accepts is captured while the clause
/// lives, and nothing after it is deleted.
#[test]
fn clauses_edited_while_capturing_take_effect_at_once() {
    require!(Need::Netns);
    for placement in [Placement::User, Placement::Kernel] {
        let pair = VethPair::new();
        let send = sender(&pair);
        let (ns, dev) = pair.end(Side::A);
        let mut cfg = config(dev, placement, 1);
        cfg.filter = FilterSpec::Clauses(String::new());
        cfg.count = None;
        let first: Vec<Vec<u8>> = (0..10).map(|i| udp(1, 7, i)).collect();
        let second: Vec<Vec<u8>> = (10..20).map(|i| udp(1, 7, i)).collect();
        let want = first.clone();
        let r = capture(ns, cfg, Duration::from_secs(3), move |clauses| {
            let clauses = clauses.expect("a live set");
            let send = |f: Vec<Vec<u8>>| {
                send(f);
                std::thread::sleep(Duration::from_millis(300));
            };
            let n = clauses.lock().unwrap().add("udp port 7").unwrap();
            send(first);
            clauses.lock().unwrap().del(n).unwrap();
            assert_eq!(
                clauses.lock().unwrap().del(n).unwrap_err().kind(),
                ErrorKind::Edit
            );
            send(second);
        });
        r.result.unwrap();
        assert_eq!(r.packets, want, "{placement:?}");
        let placed = r.events.contains(&Event::Placed(Placed::Clauses));
        assert_eq!(placed, placement == Placement::Kernel, "{:?}", r.events);
    }
}

/// Clauses as a kernel prefilter only (`Config::kernel_prefilter_only`, as
/// netsiftd uses them): in the kernel the clause narrows the ring to what it
/// accepts; where the program does not go into the kernel (user placement),
/// user space keeps every frame, for the caller to filter itself.
#[test]
fn clauses_as_a_kernel_prefilter_only_leave_user_space_every_frame() {
    require!(Need::Netns);
    for placement in [Placement::Kernel, Placement::User] {
        let pair = VethPair::new();
        let (all, to7) = mixed();
        let send = sender(&pair);
        let (ns, dev) = pair.end(Side::A);
        let mut cfg = config(dev, placement, 1);
        cfg.filter = FilterSpec::Clauses("udp port 7".into());
        cfg.kernel_prefilter_only = true;
        cfg.count = None;
        let everything = all.clone();
        let r = capture(ns, cfg, Duration::from_secs(3), move |_| {
            send(all);
            std::thread::sleep(Duration::from_millis(300));
        });
        r.result.unwrap();
        let want = if placement == Placement::Kernel {
            to7.clone()
        } else {
            everything
        };
        assert_eq!(r.packets, want, "{placement:?}");
    }
}

/// The XDP hook: the program copies what it accepts, and says so.
#[test]
fn the_xdp_hook_copies_what_the_filter_accepts() {
    require!(Need::Netns);
    let pair = VethPair::new();
    let (all, to7) = mixed();
    let send = sender(&pair);
    let (ns, dev) = pair.end(Side::A);
    let mut cfg = config(dev, Placement::Auto, 1);
    cfg.source = Source::Xdp(dev.into());
    let r = capture(ns, cfg, Duration::from_secs(10), move |_| send(all));
    r.result.unwrap();
    assert_eq!(r.packets, to7);
    let x = r.report.xdp.expect("the XDP program's counts");
    assert_eq!((x.seen, x.accepted), (40, 20));
    assert!(r
        .events
        .iter()
        .any(|e| matches!(e, Event::Placed(Placed::Xdp { .. }))));
}

/// A follower, in user space and with its first stage in the kernel: from a
/// replayed FTP trace, exactly the control and data packets, none of the
/// background, in the order sent.
#[test]
fn a_follower_captures_the_flows_its_control_connections_announce() {
    use netsift_gen::ftp::{ftp_workload, Class, FtpConfig};
    require!(Need::Netns);
    let w = ftp_workload(&FtpConfig {
        servers: 3,
        transfers: 4,
        duration_ns: 1_000_000_000,
        background_pps: 2_000,
        seed: 11,
        ..FtpConfig::default()
    })
    .unwrap();
    let frames: Vec<Vec<u8>> = w.packets.iter().map(|p| p.data.clone()).collect();
    let want: Vec<Vec<u8>> = w
        .packets
        .iter()
        .zip(&w.truth)
        .filter(|(_, c)| !matches!(c, Class::Background))
        .map(|(p, _)| p.data.clone())
        .collect();
    assert!(frames.len() - want.len() > 1000, "background to leave out");
    for placement in [Placement::User, Placement::Kernel] {
        let pair = VethPair::new();
        let send = sender(&pair);
        let (ns, dev) = pair.end(Side::A);
        let mut cfg = config(dev, placement, 1);
        cfg.filter = FilterSpec::Follow(netsift_session::FollowSpec {
            protocols: vec![netsift_follow::Protocol::Ftp],
            base: None,
            mode: netsift_follow::Mode::Passes,
            config: netsift_follow::Config::default(),
        });
        cfg.count = Some(want.len() as u64);
        let frames = frames.clone();
        let r = capture(ns, cfg, Duration::from_secs(20), move |_| send(frames));
        r.result.unwrap();
        assert!(
            r.packets == want,
            "{placement:?}: {} of {} packets ({} dropped by the kernel)",
            r.packets.len(),
            want.len(),
            r.report.dropped
        );
        let f = r.report.follow.expect("the follower's report");
        assert_eq!((f.stats.announced, f.failed), (12, 0), "{placement:?}");
        let placed = r
            .events
            .iter()
            .any(|e| matches!(e, Event::Placed(Placed::Follow { ftp: true, .. })));
        assert_eq!(placed, placement == Placement::Kernel, "{:?}", r.events);
    }
}

/// A sink that fails ends the capture with its error, and what was counted
/// before it is still reported.
#[test]
fn a_failing_sink_ends_the_capture_with_its_error() {
    require!(Need::Netns);
    let pair = VethPair::new();
    let (all, _) = mixed();
    let send = sender(&pair);
    let (ns, dev) = pair.end(Side::A);
    let mut cfg = config(dev, Placement::User, 1);
    // Every frame: one block's records go one by one to the callback.
    cfg.filter = FilterSpec::Static(String::new());
    let stop = Arc::new(AtomicBool::new(false));
    let (ready, opened) = mpsc::channel();
    let st = stop.clone();
    let run = in_ns(ns, move || {
        let c = Capture::open(&cfg, netsift_session::events::ignore()).unwrap();
        ready.send(()).unwrap();
        let mut n = 0;
        let mut sinks = [Callback(|_: &Record<'_>| {
            n += 1;
            if n == 3 {
                return Err::<(), SinkError>("disk full".into());
            }
            Ok(())
        })];
        c.run(&mut sinks, &st)
    });
    opened.recv().unwrap();
    send(all);
    let guard = watchdog(stop.clone(), Duration::from_secs(10));
    let (report, result) = run.join().unwrap();
    stop.store(true, Ordering::Relaxed);
    let _ = guard.join();
    let e = result.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Sink);
    assert_eq!(e.to_string(), "disk full");
    assert!(report.captured >= 3, "{report:?}");
}
