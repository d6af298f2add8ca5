//! `netsift-bench dynamic`: the seeds' FTP capture experiment (section 5.1, thesis
//! V.iii and Table 6), with libpcap as the baseline in the same harness.
//!
//! Three measurements:
//!
//! 1. **Update latency against connections** ([`latency_series`]). The filter holds
//!    `c` data connections spread over the servers; one more is announced and timed,
//!    then withdrawn, many times, while another thread filters packets with the same
//!    filter. netsift's time is the update API call (the edit is visible to the
//!    filtering thread when it returns); libpcap's is rebuilding the expression,
//!    `pcap_compile`, and swapping the program. The kernel's `SO_ATTACH_FILTER` of
//!    the same program is timed beside it. netsift's SET form is measured up to
//!    100,000 connections. Each point times its updates after as many untimed
//!    ones: the steady state, not the first touch of memory.
//! 2. **Missed packets in a real-time replay** ([`replay`]). The FTP workload is
//!    played at a fixed packet rate (optionally with background packets at their own
//!    rate) through the filter; an application thread follows the captured control
//!    packets and updates the filter. A data connection's missed packets are its
//!    packets replayed before the filter accepted its first one.
//! 3. **An announcement's two halves** ([`follow::follow_series`]): real `227`
//!    replies through the follower, the live-set edit (the update API, what the
//!    seeds' Table 2 times) timed apart from the follower's bookkeeping around it.

pub mod contender;
pub mod follow;
mod lsf;
pub mod placement;
pub mod replay;
pub mod svg;

use crate::{ftp_workload, Class, FtpConfig, FtpWorkload};
use contender::{FilterSide, Kind, Updater};
use netsift_follow::tracker::Mode;
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// What to run.
#[derive(Clone, Debug)]
pub struct DynamicConfig {
    /// The FTP workload that is generated once and replayed.
    pub workload: FtpConfig,
    /// Replay rates of the FTP trace, packets per second.
    pub rates: Vec<u64>,
    /// Background rates to mix in (0 = none), packets per second.
    pub backgrounds: Vec<u64>,
    /// Replays per (contender, rate, background); medians are reported.
    pub runs: usize,
    /// Connection counts of the latency series (pass form and libpcap).
    pub counts: Vec<usize>,
    /// Connection counts of the SET-form series.
    pub set_counts: Vec<usize>,
    /// Connection counts of the two-halves series through the follower in pass
    /// mode ([`follow::follow_series`]; the follower's default caps hold at most
    /// 1,024 flows).
    pub follow_counts: Vec<usize>,
    /// The same with SET.
    pub follow_set_counts: Vec<usize>,
    /// Timed updates per point: netsift, libpcap.
    pub reps: (usize, usize),
}

impl DynamicConfig {
    /// The full experiment: four replay rates, with and without
    /// background, three runs each, and latency up to 200 (SET form: 100,000)
    /// connections.
    pub fn full() -> DynamicConfig {
        DynamicConfig {
            workload: FtpConfig::default(),
            rates: vec![100_000, 250_000, 333_000, 555_000],
            backgrounds: vec![0, 500_000],
            runs: 3,
            counts: vec![1, 2, 5, 10, 20, 50, 100, 150, 200],
            set_counts: vec![1, 10, 100, 1_000, 10_000, 100_000],
            follow_counts: vec![1, 10, 50, 100, 200],
            follow_set_counts: vec![1, 10, 100, 1_000],
            reps: (2000, 40),
        }
    }

    /// Under 30 seconds: fewer rates, no background, fewer repetitions.
    pub fn quick() -> DynamicConfig {
        DynamicConfig {
            workload: FtpConfig {
                duration_ns: 5_000_000_000,
                ..FtpConfig::default()
            },
            rates: vec![100_000, 555_000],
            backgrounds: vec![0],
            runs: 1,
            counts: vec![1, 10, 50, 100, 200],
            set_counts: vec![1, 100, 10_000, 100_000],
            follow_counts: vec![1, 200],
            follow_set_counts: vec![1, 1_000],
            reps: (500, 8),
        }
    }
}

pub use crate::stats::{percentile, Stat};

/// One point of a latency series.
#[derive(Clone, Copy, Debug)]
pub struct LatencyPoint {
    /// Connections already in the filter when the updates were timed.
    pub connections: usize,
    /// Median time of one update (announcing a connection), nanoseconds.
    pub p50_ns: f64,
    /// 99th percentile of the update time, nanoseconds.
    pub p99_ns: f64,
    /// Fastest update, nanoseconds.
    pub min_ns: f64,
    /// Slowest update, nanoseconds.
    pub max_ns: f64,
    /// Kernel attach of the same program (libpcap contender only).
    pub lsf_p50_ns: Option<f64>,
}

/// The `k`-th connection of a synthetic filter state: servers 10.1.0.1..10 as in
/// the workload, ports distinct per server. With more than 60,000 per server, more
/// servers are used.
fn conn(k: usize) -> (Ipv4Addr, u16) {
    let server = (k % 10) as u32 + ((k / 600_000) as u32) * 16;
    let port = 1024 + ((k / 10) % 60_000) as u16;
    (Ipv4Addr::from(0x0a01_0001 + server), port)
}

/// Packets the filtering thread judges under one epoch pin. A capture pins per
/// batch at most (netsift's pins per packet, `Reader::matches`): a reader that
/// stayed pinned over the whole sample (68,880 packets, tens of milliseconds at
/// 200 connections) would keep every version retired meanwhile from the writer's
/// spares, and the edits would time allocation and zeroing instead.
const READER_BATCH: usize = 64;

/// Runs `body` while another thread filters `packets` through `side` in a loop,
/// letting the writer reclaim between loops; `body` starts once the thread is
/// filtering.
pub fn with_filtering<R>(
    side: &FilterSide,
    packets: &[(Vec<u8>, u32)],
    body: impl FnOnce() -> Result<R, String>,
) -> Result<R, String> {
    let stop = AtomicBool::new(false);
    let started = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let filtering = scope.spawn(|| {
            let mut st = side.state();
            let mut n = 0u64;
            loop {
                for batch in packets.chunks(READER_BATCH) {
                    for (p, len) in batch {
                        std::hint::black_box(st.matches(p, *len));
                        n += 1;
                    }
                    st.quiesce();
                }
                started.store(true, Ordering::Release);
                if stop.load(Ordering::Relaxed) {
                    break;
                }
            }
            n
        });
        // Updates are measured while the other thread filters, so wait until it does.
        while !started.load(Ordering::Acquire) {
            std::thread::yield_now();
        }
        let result = body();
        stop.store(true, Ordering::Relaxed);
        let filtered = filtering.join().expect("filter thread panicked");
        if filtered == 0 {
            return Err("the filtering thread filtered nothing".to_string());
        }
        result
    })
}

/// Update latency at each connection count in `counts` (ascending), with a thread
/// filtering `packets` through the same filter the whole time. Each point times
/// `reps` updates after as many untimed ones, so that it measures the steady
/// state (caches, the live set's spare pass versions) and not the first touch.
pub fn latency_series(
    kind: Kind,
    counts: &[usize],
    reps: usize,
    packets: &[(Vec<u8>, u32)],
) -> Result<Vec<LatencyPoint>, String> {
    let (mut up, side) = Updater::new(kind, kind == Kind::Libpcap)?;
    // libpcap's recompiles take milliseconds each: no warm-up pass for them.
    let rounds: &[bool] = if kind == Kind::Libpcap {
        &[true]
    } else {
        &[false, true]
    };
    with_filtering(&side, packets, || {
        let mut points = Vec::new();
        let mut have = 0usize;
        for &c in counts {
            while have < c {
                let (s, p) = conn(have);
                up.announce(s, p)?;
                have += 1;
            }
            let mut ns = Vec::with_capacity(reps);
            let mut lsf = Vec::new();
            for &timed in rounds {
                for r in 0..reps {
                    // A connection not in the filter: a port above the ones in use.
                    let (s, _) = conn(c + r);
                    let port = 65_535 - (r % 400) as u16;
                    let u = up.announce(s, port)?;
                    if timed {
                        ns.push(u.ns as f64);
                        lsf.extend(u.lsf_ns.map(|x| x as f64));
                    }
                    up.withdraw(s, port)?;
                }
            }
            ns.sort_by(f64::total_cmp);
            lsf.sort_by(f64::total_cmp);
            points.push(LatencyPoint {
                connections: c,
                p50_ns: percentile(&ns, 50.0),
                p99_ns: percentile(&ns, 99.0),
                min_ns: ns[0],
                max_ns: ns[ns.len() - 1],
                lsf_p50_ns: (!lsf.is_empty()).then(|| percentile(&lsf, 50.0)),
            });
        }
        Ok(points)
    })
}

/// One replay configuration's results over `runs` replays.
#[derive(Clone, Debug)]
pub struct ReplayResult {
    /// The contender's name (`Kind::name`).
    pub contender: &'static str,
    /// Replay rate of the FTP trace, packets per second.
    pub rate: u64,
    /// Background packets mixed in per second (0 = none).
    pub background: u64,
    /// Mean missed packets per data connection, over runs.
    pub missed_per_conn: Stat,
    /// Worst connection, over runs.
    pub missed_max: u32,
    /// FTP control packets the filter accepted, in the last run.
    pub control_captured: usize,
    /// FTP control packets in the trace.
    pub control_total: usize,
    /// FTP data packets the filter accepted, in the last run.
    pub data_captured: usize,
    /// FTP data packets in the trace.
    pub data_total: usize,
    /// Background packets the filter accepted, summed over runs (should be 0).
    pub background_accepted: u64,
    /// The most the replay fell behind its schedule, over runs, nanoseconds.
    pub max_lag_ns: u64,
    /// Update latency during the replay (median over all updates of all runs).
    pub update_p50_ns: f64,
    /// Update failures reported during the replays (consecutive duplicates removed).
    pub errors: Vec<String>,
}

/// A pool of background frames: the background packets of a short workload.
pub fn background_pool(cfg: &FtpConfig, size: usize) -> Result<Vec<Vec<u8>>, String> {
    let small = FtpConfig {
        servers: 1,
        transfers: 1,
        duration_ns: 1_000_000_000,
        background_pps: (size as u64).max(1000),
        ..cfg.clone()
    };
    let w = ftp_workload(&small).map_err(|e| e.message)?;
    Ok(w.packets
        .iter()
        .zip(&w.truth)
        .filter(|(_, c)| matches!(c, Class::Background))
        .map(|(p, _)| p.data.clone())
        .take(size)
        .collect())
}

/// Replays `w` `runs` times for one contender, rate and background rate.
pub fn replay_runs(
    w: &FtpWorkload,
    pool: &[Vec<u8>],
    kind: Kind,
    rate: u64,
    background: u64,
    runs: usize,
) -> Result<ReplayResult, String> {
    let mut per_run = Vec::new();
    let mut missed_max = 0;
    let mut last = None;
    let mut updates = Vec::new();
    let mut errors = Vec::new();
    let mut max_lag = 0;
    let mut bg_acc = 0;
    for _ in 0..runs.max(1) {
        let (up, side) = Updater::new(kind, false)?;
        let out = replay::replay(w, pool, rate, background, &side, up);
        let missed = w.missed_packets(&out.accepted);
        let mean = missed.iter().map(|&m| m as f64).sum::<f64>() / missed.len().max(1) as f64;
        per_run.push(mean);
        missed_max = missed_max.max(missed.iter().copied().max().unwrap_or(0));
        updates.extend(out.updates.iter().map(|u| u.ns as f64));
        errors.extend(out.errors.iter().cloned());
        max_lag = max_lag.max(out.max_lag_ns);
        bg_acc += out.background_accepted;
        last = Some(out);
    }
    let out = last.expect("at least one run");
    let count = |want: fn(&Class) -> bool, only_accepted: bool| {
        w.truth
            .iter()
            .zip(&out.accepted)
            .filter(|(c, &a)| want(c) && (a || !only_accepted))
            .count()
    };
    let is_control: fn(&Class) -> bool = |c| matches!(c, Class::Control(_));
    let is_data: fn(&Class) -> bool = |c| matches!(c, Class::Data(_));
    updates.sort_by(f64::total_cmp);
    errors.dedup();
    Ok(ReplayResult {
        contender: kind.name(),
        rate,
        background,
        missed_per_conn: Stat::of(&per_run).unwrap_or_default(),
        missed_max,
        control_captured: count(is_control, true),
        control_total: count(is_control, false),
        data_captured: count(is_data, true),
        data_total: count(is_data, false),
        background_accepted: bg_acc,
        max_lag_ns: max_lag,
        update_p50_ns: percentile(&updates, 50.0),
        errors,
    })
}

/// Everything `netsift-bench dynamic` measured.
pub struct DynamicReport {
    /// Packets in the generated FTP workload.
    pub packets: usize,
    /// FTP data connections in the workload.
    pub connections: usize,
    /// Update latency of netsift's pass form, by connection count.
    pub netsift: Vec<LatencyPoint>,
    /// Update latency of libpcap (recompiling the whole filter), by connection count.
    pub libpcap: Vec<LatencyPoint>,
    /// Update latency of netsift's SET form, by connection count.
    pub netsift_set: Vec<LatencyPoint>,
    /// An announcement's two halves through the follower, pass mode.
    pub follow: Vec<follow::FollowPoint>,
    /// The same with SET.
    pub follow_set: Vec<follow::FollowPoint>,
    /// One result per (background, rate, contender), in that nesting order.
    pub replays: Vec<ReplayResult>,
    /// Wall-clock time of the whole experiment, seconds.
    pub seconds: f64,
    /// One cache line's round trip between two threads, ns, just before the
    /// pass-mode series and just after it ([`placement`]).
    pub core_round_trip_ns: [f64; 2],
}

/// Runs the whole experiment; `log` receives progress lines.
pub fn run(cfg: &DynamicConfig, mut log: impl FnMut(&str)) -> Result<DynamicReport, String> {
    let t0 = Instant::now();
    let w = ftp_workload(&cfg.workload).map_err(|e| e.message)?;
    log(&format!(
        "workload: {} packets, {} data connections",
        w.packets.len(),
        w.connections.len()
    ));
    let sample: Vec<(Vec<u8>, u32)> = w
        .packets
        .iter()
        .step_by((w.packets.len() / 4096).max(1))
        .map(|p| (p.data.clone(), p.orig_len))
        .collect();
    let trip_before = placement::core_round_trip_ns();
    let netsift = latency_series(
        Kind::Netsift(Mode::Passes),
        &cfg.counts,
        cfg.reps.0,
        &sample,
    )?;
    let trip_after = placement::core_round_trip_ns();
    log(&format!(
        "latency series: netsift done (cross-core round trip {trip_before:.0} ns before, {trip_after:.0} after)"
    ));
    let libpcap = latency_series(Kind::Libpcap, &cfg.counts, cfg.reps.1, &sample)?;
    log("latency series: libpcap done");
    let netsift_set = latency_series(
        Kind::Netsift(Mode::Set),
        &cfg.set_counts,
        cfg.reps.0,
        &sample,
    )?;
    log("latency series: netsift SET done");
    let follow = follow::follow_series(Mode::Passes, &cfg.follow_counts, cfg.reps.0, &sample)?;
    let follow_set = follow::follow_series(Mode::Set, &cfg.follow_set_counts, cfg.reps.0, &sample)?;
    log("two halves through the follower done");
    let needs_pool = cfg.backgrounds.iter().any(|&b| b > 0);
    let pool = if needs_pool {
        background_pool(&cfg.workload, 4096)?
    } else {
        Vec::new()
    };
    let mut replays = Vec::new();
    for &bg in &cfg.backgrounds {
        for &rate in &cfg.rates {
            for kind in [Kind::Netsift(Mode::Passes), Kind::Libpcap] {
                let r = replay_runs(&w, &pool, kind, rate, bg, cfg.runs)?;
                log(&format!(
                    "replay {} at {} pps (+{} background): {:.2} missed per connection",
                    r.contender, rate, bg, r.missed_per_conn.median
                ));
                replays.push(r);
            }
        }
    }
    Ok(DynamicReport {
        packets: w.packets.len(),
        connections: w.connections.len(),
        netsift,
        libpcap,
        netsift_set,
        follow,
        follow_set,
        replays,
        seconds: t0.elapsed().as_secs_f64(),
        core_round_trip_ns: [trip_before, trip_after],
    })
}

impl DynamicReport {
    fn at(points: &[LatencyPoint], c: usize) -> Option<&LatencyPoint> {
        points.iter().find(|p| p.connections == c)
    }

    /// The last point of a series (the most connections measured).
    fn last(points: &[LatencyPoint]) -> Option<&LatencyPoint> {
        points.last()
    }

    /// Markdown tables.
    pub fn tables(&self) -> String {
        let mut s = format!(
            "Cross-core round trip (one cache line, two threads): {:.0} ns before the pass-mode series, {:.0} ns after.\n\n",
            self.core_round_trip_ns[0], self.core_round_trip_ns[1]
        );
        s.push_str("| connections | netsift p50 ns | netsift p99 ns | libpcap p50 ns | libpcap/netsift | kernel attach p50 ns |\n|---|---|---|---|---|---|\n");
        for n in &self.netsift {
            let l = Self::at(&self.libpcap, n.connections);
            s.push_str(&format!(
                "| {} | {:.0} [{:.0}, {:.0}] | {:.0} | {} | {} | {} |\n",
                n.connections,
                n.p50_ns,
                n.min_ns,
                n.max_ns,
                n.p99_ns,
                l.map_or("-".into(), |l| format!(
                    "{:.0} [{:.0}, {:.0}]",
                    l.p50_ns, l.min_ns, l.max_ns
                )),
                l.map_or("-".into(), |l| format!(
                    "{:.0}x",
                    l.p50_ns / n.p50_ns.max(1.0)
                )),
                l.and_then(|l| l.lsf_p50_ns)
                    .map_or("unavailable".into(), |x| format!("{x:.0}")),
            ));
        }
        s.push_str(
            "\n| connections (SET form) | p50 ns | p99 ns | min | max |\n|---|---|---|---|---|\n",
        );
        for n in &self.netsift_set {
            s.push_str(&format!(
                "| {} | {:.0} | {:.0} | {:.0} | {:.0} |\n",
                n.connections, n.p50_ns, n.p99_ns, n.min_ns, n.max_ns
            ));
        }
        s.push_str("\nAn announcement's two halves through the follower (a 227 on a tracked control connection): the live-set edit through the update API, publish included, and the follower's bookkeeping (the rest of `judge`).\n\n| mode | connections | edit p50 ns | edit p99 ns | bookkeeping p50 ns | bookkeeping p99 ns | edits per announcement |\n|---|---|---|---|---|---|---|\n");
        for (mode, points) in [("pass", &self.follow), ("SET", &self.follow_set)] {
            for p in points {
                s.push_str(&format!(
                    "| {mode} | {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.1} |\n",
                    p.connections,
                    p.edit_p50_ns,
                    p.edit_p99_ns,
                    p.bookkeeping_p50_ns,
                    p.bookkeeping_p99_ns,
                    p.edits_per_announcement
                ));
            }
        }
        s.push_str("\n| contender | rate pps | background pps | missed/conn median [min, max] | worst conn | control captured | data captured | background accepted | max lag µs | update p50 ns |\n|---|---|---|---|---|---|---|---|---|---|\n");
        for r in &self.replays {
            s.push_str(&format!(
                "| {} | {} | {} | {:.2} [{:.2}, {:.2}] | {} | {}/{} | {}/{} | {} | {:.0} | {:.0} |\n",
                r.contender,
                r.rate,
                r.background,
                r.missed_per_conn.median,
                r.missed_per_conn.min,
                r.missed_per_conn.max,
                r.missed_max,
                r.control_captured,
                r.control_total,
                r.data_captured,
                r.data_total,
                r.background_accepted,
                r.max_lag_ns as f64 / 1000.0,
                r.update_p50_ns,
            ));
        }
        s
    }

    /// The one-line JSON object the issue asks for.
    pub fn json(&self) -> String {
        let at200 = |p: &[LatencyPoint]| Self::at(p, 200).or(Self::last(p)).copied();
        let n200 = at200(&self.netsift);
        let l200 = at200(&self.libpcap);
        let top = self.replays.iter().map(|r| r.rate).max().unwrap_or(0);
        let missed = |name: &str| {
            // At the highest rate, with the most background measured.
            self.replays
                .iter()
                .filter(|r| r.contender == name && r.rate == top)
                .max_by_key(|r| r.background)
                .map_or(f64::NAN, |r| r.missed_per_conn.median)
        };
        let num = |x: f64| {
            if x.is_finite() {
                format!("{x:.3}")
            } else {
                "null".into()
            }
        };
        let series: Vec<String> = self
            .netsift
            .iter()
            .map(|n| {
                format!(
                    "{{\"connections\":{},\"netsift_ns\":{},\"libpcap_ns\":{}}}",
                    n.connections,
                    num(n.p50_ns),
                    Self::at(&self.libpcap, n.connections).map_or("null".into(), |l| num(l.p50_ns))
                )
            })
            .collect();
        let set_series: Vec<String> = self
            .netsift_set
            .iter()
            .map(|n| {
                format!(
                    "{{\"connections\":{},\"p50_ns\":{},\"p99_ns\":{}}}",
                    n.connections,
                    num(n.p50_ns),
                    num(n.p99_ns)
                )
            })
            .collect();
        let halves = |mode: &str, points: &[follow::FollowPoint]| -> Vec<String> {
            points
                .iter()
                .map(|p| {
                    format!(
                        "{{\"mode\":\"{mode}\",\"connections\":{},\"edit_ns_p50\":{},\"edit_ns_p99\":{},\"bookkeeping_ns_p50\":{},\"bookkeeping_ns_p99\":{},\"edits_per_announcement\":{}}}",
                        p.connections,
                        num(p.edit_p50_ns),
                        num(p.edit_p99_ns),
                        num(p.bookkeeping_p50_ns),
                        num(p.bookkeeping_p99_ns),
                        num(p.edits_per_announcement)
                    )
                })
                .collect()
        };
        let mut follow_series = halves("pass", &self.follow);
        follow_series.extend(halves("set", &self.follow_set));
        let f200 = self
            .follow
            .iter()
            .find(|p| p.connections == 200)
            .or(self.follow.last());
        let fset = self.follow_set.last();
        let replays: Vec<String> = self
            .replays
            .iter()
            .map(|r| {
                format!(
                    "{{\"contender\":\"{}\",\"rate\":{},\"background\":{},\"missed_per_conn\":{},\"control_captured\":{},\"control_total\":{},\"data_captured\":{},\"data_total\":{}}}",
                    r.contender,
                    r.rate,
                    r.background,
                    num(r.missed_per_conn.median),
                    r.control_captured,
                    r.control_total,
                    r.data_captured,
                    r.data_total
                )
            })
            .collect();
        format!(
            "{{\"packets\":{},\"connections\":{},\"netsift_update_ns_p50\":{},\"netsift_update_ns_p99\":{},\"libpcap_update_ns_p50\":{},\"lsf_attach_ns_p50\":{},\"netsift_missed_per_conn\":{},\"libpcap_missed_per_conn\":{},\"highest_rate\":{},\"series\":[{}],\"set_series\":[{}],\"netsift_edit_ns_p50\":{},\"netsift_bookkeeping_ns_p50\":{},\"netsift_set_edit_ns_p50\":{},\"netsift_set_bookkeeping_ns_p50\":{},\"follow_series\":[{}],\"replays\":[{}],\"core_round_trip_ns\":[{},{}]}}",
            self.packets,
            self.connections,
            num(n200.map_or(f64::NAN, |p| p.p50_ns)),
            num(n200.map_or(f64::NAN, |p| p.p99_ns)),
            num(l200.map_or(f64::NAN, |p| p.p50_ns)),
            num(l200.and_then(|p| p.lsf_p50_ns).unwrap_or(f64::NAN)),
            num(missed("netsift")),
            num(missed("libpcap")),
            top,
            series.join(","),
            set_series.join(","),
            num(f200.map_or(f64::NAN, |p| p.edit_p50_ns)),
            num(f200.map_or(f64::NAN, |p| p.bookkeeping_p50_ns)),
            num(fset.map_or(f64::NAN, |p| p.edit_p50_ns)),
            num(fset.map_or(f64::NAN, |p| p.bookkeeping_p50_ns)),
            follow_series.join(","),
            replays.join(","),
            num(self.core_round_trip_ns[0]),
            num(self.core_round_trip_ns[1])
        )
    }
}
