//! A bounded queue of packets between a capture thread and the thread that
//! reads them through the pcap API, with an `eventfd` that is readable
//! exactly while packets wait (or the capture ended, or someone interrupted).
//!
//! The descriptor's state follows the queue's under the queue's lock: a push
//! onto an empty queue writes it, a pop that empties the queue reads it (resets
//! it to zero). An interrupt writes it without the lock (it may run in a signal
//! handler), so a reader may see a spurious wake-up, never a missed one: the
//! reader checks its break flag after popping and before waiting.

use super::{Control, Error, ErrorKind, Packet, Stats};
use std::collections::VecDeque;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// How the capture ended.
#[derive(Clone, Debug)]
pub struct Ended {
    /// `Err` if it failed.
    pub result: Result<(), Error>,
    /// What it counted.
    pub stats: Stats,
}

struct State {
    packets: VecDeque<Packet>,
    ended: Option<Ended>,
}

/// The queue.
pub struct Queue {
    state: Mutex<State>,
    not_full: Condvar,
    cap: usize,
    efd: OwnedFd,
    /// Packets pushed in all; then, once ended, the end's counts (atomics, for
    /// a reader in a signal handler).
    pushed: AtomicU64,
    ended: AtomicBool,
    received: AtomicU64,
    dropped: AtomicU64,
}

impl Control for Queue {
    fn interrupt(&self) {
        wake(self.efd.as_raw_fd());
    }

    fn stats(&self) -> Stats {
        if self.ended.load(Ordering::Acquire) {
            Stats {
                received: self.received.load(Ordering::Relaxed),
                dropped: self.dropped.load(Ordering::Relaxed),
            }
        } else {
            Stats {
                received: self.pushed.load(Ordering::Relaxed),
                dropped: 0,
            }
        }
    }
}

/// Adds one to eventfd `fd`; async-signal-safe.
fn wake(fd: RawFd) {
    let one: u64 = 1;
    // SAFETY: write(2) of 8 bytes from a local to an eventfd the queue owns;
    // a full counter (EAGAIN) already means readable.
    unsafe { libc::write(fd, (&one as *const u64).cast(), 8) };
}

impl Queue {
    /// An empty queue that holds at most `cap` packets.
    pub fn new(cap: usize) -> Result<Queue, Error> {
        // SAFETY: eventfd(2) with constant flags; the descriptor is owned at once.
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        if fd < 0 {
            let e = std::io::Error::last_os_error();
            return Err(Error::new(ErrorKind::Capture, format!("eventfd: {e}")));
        }
        Ok(Queue {
            state: Mutex::new(State {
                packets: VecDeque::new(),
                ended: None,
            }),
            pushed: AtomicU64::new(0),
            ended: AtomicBool::new(false),
            received: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            not_full: Condvar::new(),
            cap: cap.max(1),
            // SAFETY: a descriptor just returned by eventfd and owned by nothing else.
            efd: unsafe { OwnedFd::from_raw_fd(fd) },
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panicking capture thread leaves the queue in a usable state.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds `p`, waiting while the queue is full (the capture thread is held
    /// back, and the kernel's ring fills and drops, as with libpcap's own
    /// ring); `false` if `stop` was set while waiting.
    pub fn push(&self, p: Packet, stop: &AtomicBool) -> bool {
        let mut s = self.lock();
        while s.packets.len() >= self.cap {
            if stop.load(Ordering::Relaxed) {
                return false;
            }
            s = self
                .not_full
                .wait_timeout(s, Duration::from_millis(50))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        if s.packets.is_empty() {
            wake(self.efd.as_raw_fd());
        }
        s.packets.push_back(p);
        self.pushed.fetch_add(1, Ordering::Relaxed);
        true
    }

    /// Records how the capture ended, and wakes the reader.
    pub fn end(&self, ended: Ended) {
        let mut s = self.lock();
        self.received.store(ended.stats.received, Ordering::Relaxed);
        self.dropped.store(ended.stats.dropped, Ordering::Relaxed);
        self.ended.store(true, Ordering::Release);
        s.ended = Some(ended);
        wake(self.efd.as_raw_fd());
    }

    /// Moves up to `max` packets to `out` (see [`super::LiveSource::next_batch`]).
    pub fn pop(&self, max: usize, out: &mut VecDeque<Packet>) -> Result<bool, Error> {
        let mut s = self.lock();
        let n = max.min(s.packets.len());
        out.extend(s.packets.drain(..n));
        if n > 0 {
            self.not_full.notify_one();
        }
        if s.packets.is_empty() {
            match &s.ended {
                // Ended: the descriptor stays readable, so no one waits on it.
                Some(e) if n == 0 => return e.result.clone().map(|()| false),
                Some(_) => {}
                None => {
                    let mut v = 0u64;
                    // SAFETY: read(2) of 8 bytes into a local from the
                    // queue's non-blocking eventfd; EAGAIN leaves it at zero.
                    unsafe { libc::read(self.efd.as_raw_fd(), (&mut v as *mut u64).cast(), 8) };
                }
            }
        }
        Ok(true)
    }

    /// The descriptor.
    pub fn fd(&self) -> RawFd {
        self.efd.as_raw_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn readable(q: &Queue) -> bool {
        let mut p = libc::pollfd {
            fd: q.fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd on the stack, no wait.
        unsafe { libc::poll(&mut p, 1, 0) == 1 }
    }

    fn packet(n: u8) -> Packet {
        Packet {
            ts_sec: 1,
            ts_nsec: 2,
            wire_len: 60,
            data: vec![n; 3],
        }
    }

    #[test]
    fn the_descriptor_is_readable_exactly_while_packets_wait() {
        let q = Queue::new(4).unwrap();
        let stop = AtomicBool::new(false);
        assert!(!readable(&q));
        assert!(q.push(packet(1), &stop));
        assert!(q.push(packet(2), &stop));
        assert!(readable(&q));
        let mut out = VecDeque::new();
        assert!(q.pop(1, &mut out).unwrap());
        assert!(readable(&q), "one still waits");
        assert!(q.pop(8, &mut out).unwrap());
        assert!(!readable(&q));
        assert_eq!(out.len(), 2);
        q.interrupt();
        assert!(readable(&q), "an interrupt wakes the reader");
        q.end(Ended {
            result: Err(Error::new(ErrorKind::Capture, "gone")),
            stats: Stats {
                received: 2,
                dropped: 1,
            },
        });
        assert_eq!(q.pop(8, &mut out).unwrap_err().message, "gone");
        assert!(readable(&q));
        assert_eq!(q.stats().dropped, 1);
    }

    #[test]
    fn a_full_queue_holds_the_producer_until_stopped() {
        let q = Queue::new(1).unwrap();
        let stop = AtomicBool::new(false);
        assert!(q.push(packet(1), &stop));
        stop.store(true, Ordering::Relaxed);
        assert!(!q.push(packet(2), &stop));
    }
}
