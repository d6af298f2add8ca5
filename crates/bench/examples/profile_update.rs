//! Runs the pass-mode update series over and over, for `perf record` of the
//! update path (the writer thread) or for A/B runs of writer variants.
//!
//! `cargo run --release -p netsift-bench --example profile_update -- [follow|tracker] [ROUNDS] [REPS]`
//! prints, per round, the p50/p99 of the timed edits at 1 and 200 connections
//! (`follow`: the follower's edit half; `tracker`: `netsift_update_ns`), then
//! the medians over rounds with min/max. `NOFILTER=1` runs without the
//! filtering thread (to tell the writer's own costs from reclamation's).
//! `loop [CONNS] [REPS]` runs one series of announce/withdraw pairs on a
//! tracker holding CONNS connections (default 200) and prints their spread.
//! `COUNTS=1` (comma-separated) picks the connection counts of `follow` and
//! `tracker` (default 1 and 200). `OTHERSET=1` (with `loop`) has the thread
//! filter a second set of the same shape instead, one the writer never
//! edits: the same load on the other core, with no cache line shared.

use netsift_bench::dynamic::contender::Kind;
use netsift_bench::dynamic::{follow, latency_series};
use netsift_bench::stats::Stat;
use netsift_bench::{ftp_workload, FtpConfig};
use netsift_follow::tracker::Mode;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map_or("follow", |s| s.as_str()).to_string();
    // `loop`'s first number is its connection count, the others' their rounds.
    let first: Option<usize> = args.get(2).and_then(|s| s.parse().ok());
    let rounds = first.unwrap_or(5);
    let reps: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let w = ftp_workload(&FtpConfig {
        duration_ns: 5_000_000_000,
        ..FtpConfig::default()
    })
    .expect("workload");
    let sample: Vec<(Vec<u8>, u32)> = if std::env::var_os("NOFILTER").is_some() {
        vec![(w.packets[0].data.clone(), w.packets[0].orig_len)]
    } else {
        w.packets
            .iter()
            .step_by((w.packets.len() / 4096).max(1))
            .map(|p| (p.data.clone(), p.orig_len))
            .collect()
    };
    println!(
        "cross-core round trip: {:.0} ns",
        netsift_bench::dynamic::placement::core_round_trip_ns()
    );
    if what == "loop" {
        return tight_loop(&sample, first.unwrap_or(200), reps);
    }
    // `COUNTS=1` (or `200`, `1,10,200`) for one series point alone, e.g. under
    // callgrind's `--toggle-collect`.
    let counts: Vec<usize> = std::env::var("COUNTS")
        .ok()
        .and_then(|s| s.split(',').map(|c| c.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 200]);
    let mut p50: Vec<Vec<f64>> = vec![Vec::new(); counts.len()];
    let mut p99: Vec<Vec<f64>> = vec![Vec::new(); counts.len()];
    for round in 0..rounds {
        let pts: Vec<(f64, f64)> = if what == "tracker" {
            latency_series(Kind::Netsift(Mode::Passes), &counts, reps, &sample)
                .expect("series")
                .iter()
                .map(|p| (p.p50_ns, p.p99_ns))
                .collect()
        } else {
            follow::follow_series(Mode::Passes, &counts, reps, &sample)
                .expect("series")
                .iter()
                .map(|p| (p.edit_p50_ns, p.edit_p99_ns))
                .collect()
        };
        let line: Vec<String> = pts
            .iter()
            .zip(&counts)
            .map(|((a, b), c)| format!("{c}: p50 {a:.0} p99 {b:.0}"))
            .collect();
        println!("round {round}: {}", line.join(", "));
        for (k, (a, b)) in pts.into_iter().enumerate() {
            p50[k].push(a);
            p99[k].push(b);
        }
    }
    for (k, c) in counts.iter().enumerate() {
        let (a, b) = (
            Stat::of(&p50[k]).expect("rounds"),
            Stat::of(&p99[k]).expect("rounds"),
        );
        println!(
            "{what} at {c}: p50 {:.0} [{:.0}, {:.0}], p99 {:.0} [{:.0}, {:.0}]",
            a.median, a.min, a.max, b.median, b.min, b.max
        );
    }
}

/// `loop`: announce and withdraw one connection on a tracker holding `have`,
/// `reps` times, with a thread filtering the whole time, and print the
/// spread of both (low percentiles stay readable on a busy machine); only the
/// update path runs in the main thread, for `perf record --tid`.
fn tight_loop(sample: &[(Vec<u8>, u32)], have: usize, reps: usize) {
    use netsift_bench::dynamic::contender::Updater;
    let (mut up, side) = Updater::new(Kind::Netsift(Mode::Passes), false).expect("updater");
    let conn = |k: usize| {
        (
            std::net::Ipv4Addr::from(0x0a01_0001 + (k % 10) as u32),
            1024 + (k / 10) as u16,
        )
    };
    for k in 0..have {
        let (s, p) = conn(k);
        up.announce(s, p).expect("announce");
    }
    let mut body = || {
        let mut add = Vec::with_capacity(reps);
        let mut del = Vec::with_capacity(reps);
        for r in 0..reps {
            let (s, _) = conn(have + r);
            let port = 65_535 - (r % 400) as u16;
            add.push(up.announce(s, port)?.ns as f64);
            let t = std::time::Instant::now();
            up.withdraw(s, port)?;
            del.push(t.elapsed().as_nanos() as f64);
        }
        for (name, v) in [("announce", &mut add), ("withdraw", &mut del)] {
            v.sort_by(f64::total_cmp);
            let q = |p: f64| netsift_bench::stats::percentile(v, p);
            println!(
                "{name}: p10 {:.0} p25 {:.0} p50 {:.0} p90 {:.0} p99 {:.0} p99.9 {:.0}",
                q(10.0),
                q(25.0),
                q(50.0),
                q(90.0),
                q(99.0),
                q(99.9)
            );
        }
        Ok::<(), String>(())
    };
    if std::env::var_os("NOFILTER").is_some() {
        drop(side);
        body().expect("loop");
    } else if std::env::var_os("OTHERSET").is_some() {
        let (mut other, other_side) =
            Updater::new(Kind::Netsift(Mode::Passes), false).expect("updater");
        for k in 0..have {
            let (s, p) = conn(k);
            other.announce(s, p).expect("announce");
        }
        drop(side);
        netsift_bench::dynamic::with_filtering(&other_side, sample, body).expect("loop");
    } else {
        netsift_bench::dynamic::with_filtering(&side, sample, body).expect("loop");
    }
}
