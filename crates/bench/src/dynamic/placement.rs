//! How far apart the two cores the update experiments run on are, right now.
//!
//! An edit made while another thread filters pays for every cache line it
//! takes from that thread's core, so its latency follows the cost of one trip
//! between the cores. On a shared VM that cost is not a constant: the host
//! moves the vCPUs, and the same build measured a round trip of 52, 130 and
//! 550 ns within one hour (`docs/BENCHMARKS.md` section 6). The update figures
//! are therefore reported beside this probe, taken just before them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// A counter on a cache line of its own.
#[repr(align(128))]
struct Line(AtomicU64);

/// Round trips per batch, and batches.
const TRIPS: u64 = 20_000;
const BATCHES: usize = 5;

/// The median over a few batches of one cache line's round trip between two
/// threads (each waits for the other's store, then stores), in nanoseconds.
/// The two threads are not pinned: on an idle two-core machine they run on
/// the two cores, as the experiment's writer and filtering thread do; on a
/// busy one the figure says so too.
pub fn core_round_trip_ns() -> f64 {
    let (ping, pong) = (Line(AtomicU64::new(0)), Line(AtomicU64::new(0)));
    let total = TRIPS * BATCHES as u64;
    let mut per_batch = Vec::with_capacity(BATCHES);
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 1..=total {
                while ping.0.load(Ordering::Acquire) != i {
                    std::hint::spin_loop();
                }
                pong.0.store(i, Ordering::Release);
            }
        });
        let mut i = 0;
        for _ in 0..BATCHES {
            let t = Instant::now();
            for _ in 0..TRIPS {
                i += 1;
                ping.0.store(i, Ordering::Release);
                while pong.0.load(Ordering::Acquire) != i {
                    std::hint::spin_loop();
                }
            }
            per_batch.push(t.elapsed().as_nanos() as f64 / TRIPS as f64);
        }
    });
    crate::stats::Stat::of(&per_batch).map_or(f64::NAN, |s| s.median)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_round_trip_takes_some_time_and_ends() {
        let ns = super::core_round_trip_ns();
        // A store seen by another thread and answered cannot be free, and on
        // any machine that runs this it is far below a millisecond.
        assert!(ns > 1.0 && ns < 1_000_000.0, "{ns} ns");
    }
}
