//! Real-time replay: one thread plays the trace at a fixed packet rate through the
//! filter (the "kernel"), and hands the control packets it accepted to an
//! application thread, which follows FTP and updates the filter while the replay
//! goes on. Background packets, when asked for, are interleaved at their own rate
//! from a pool, so the trace in memory stays small.

use super::contender::{FilterSide, Update, Updater};
use crate::{Class, FtpWorkload};
use netsift_follow::segment::segment;
use netsift_wire::LinkType;
use std::net::IpAddr;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The next index, spinning while the queue is empty; `None` once the sender is gone.
fn poll(rx: &mpsc::Receiver<usize>) -> Option<usize> {
    loop {
        match rx.try_recv() {
            Ok(i) => return Some(i),
            Err(mpsc::TryRecvError::Empty) => std::hint::spin_loop(),
            Err(mpsc::TryRecvError::Disconnected) => return None,
        }
    }
}

/// What one replay produced.
pub struct ReplayOut {
    /// The filter's verdict on each trace packet.
    pub accepted: Vec<bool>,
    /// Background packets replayed, and how many the filter accepted (should be 0).
    pub background: u64,
    /// Of those background packets, how many the filter accepted.
    pub background_accepted: u64,
    /// How far the replay fell behind its schedule at worst.
    pub max_lag_ns: u64,
    /// Wall-clock time of the filtering loop, nanoseconds.
    pub elapsed_ns: u64,
    /// Every update the application thread made for an FTP announcement, timed.
    pub updates: Vec<Update>,
    /// Announcements whose update failed, with the updater's message.
    pub errors: Vec<String>,
}

/// Plays `w` at `rate` packets per second (plus `pool` at `bg_rate`) through
/// `filter`, with `updater` following FTP on another thread.
pub fn replay(
    w: &FtpWorkload,
    pool: &[Vec<u8>],
    rate: u64,
    bg_rate: u64,
    filter: &FilterSide,
    mut updater: Updater,
) -> ReplayOut {
    let (tx, rx) = mpsc::channel::<usize>();
    std::thread::scope(|scope| {
        let app = scope.spawn(move || {
            let mut updates = Vec::new();
            let mut errors = Vec::new();
            // The application polls its queue, as a capture application polling a
            // packet ring does: a blocking receive would add a futex wake-up
            // (tens of microseconds) to every update, which is not the filter's cost.
            while let Some(i) = poll(&rx) {
                let p = &w.packets[i].data;
                let Some(seg) = segment(LinkType::EN10MB, p) else {
                    continue;
                };
                let IpAddr::V4(server) = seg.src else {
                    continue;
                };
                for a in netsift_follow::ftp::announcements(seg.payload) {
                    let addr = match a.addr {
                        Some(IpAddr::V4(x)) => x,
                        None => server,
                        Some(IpAddr::V6(_)) => continue,
                    };
                    match updater.announce(addr, a.port) {
                        Ok(u) => updates.push(u),
                        Err(e) => errors.push(e),
                    }
                }
            }
            (updates, errors)
        });

        let n = w.packets.len();
        let mut accepted = vec![false; n];
        let mut state = filter.state();
        let period = 1e9 / rate.max(1) as f64;
        let bg_period = if bg_rate > 0 && !pool.is_empty() {
            1e9 / bg_rate as f64
        } else {
            f64::INFINITY
        };
        let (mut i, mut j) = (0usize, 0u64);
        let (mut bg_acc, mut max_lag) = (0u64, 0u64);
        let start = Instant::now();
        while i < n {
            let next_ftp = i as f64 * period;
            let next_bg = j as f64 * bg_period;
            let (due, is_bg) = if next_bg < next_ftp {
                (next_bg, true)
            } else {
                (next_ftp, false)
            };
            let due = Duration::from_nanos(due as u64);
            let mut now = start.elapsed();
            while now < due {
                std::hint::spin_loop();
                now = start.elapsed();
            }
            max_lag = max_lag.max((now - due).as_nanos() as u64);
            if is_bg {
                let p = &pool[j as usize % pool.len()];
                if state.matches(p, p.len() as u32) {
                    bg_acc += 1;
                }
                j += 1;
            } else {
                let p = &w.packets[i];
                let ok = state.matches(&p.data, p.orig_len);
                accepted[i] = ok;
                if ok && matches!(w.truth[i], Class::Control(_)) {
                    // The application sees what the filter captured.
                    let _ = tx.send(i);
                }
                i += 1;
            }
            if (i + j as usize) & 255 == 0 {
                state.quiesce();
            }
        }
        let elapsed_ns = start.elapsed().as_nanos() as u64;
        drop(tx);
        drop(state);
        let (updates, errors) = app.join().expect("the application thread panicked");
        ReplayOut {
            accepted,
            background: j,
            background_accepted: bg_acc,
            max_lag_ns: max_lag,
            elapsed_ns,
            updates,
            errors,
        }
    })
}
