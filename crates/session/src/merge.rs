//! The writer's side of `--workers`: the workers' accepted packets put back in
//! time-stamp order within a bounded window.
//!
//! A worker sends a ring block's accepted packets as one [`Batch`]: their bytes
//! in one buffer, not a buffer a packet, so a packet costs no allocation on its
//! way and the buffer goes back to its worker to be filled again. Within one
//! ring the kernel writes packets in arrival order, so each worker's batches are
//! a queue already in order, and [`Merge`] only has to pick, packet by packet,
//! the oldest of the queues' heads (a scan of one head a worker): a heap of every
//! held packet cost a dozen cache misses a packet at 100 ms of packets held.
//!
//! A head is written once no other worker can still send an older packet, that
//! is when every worker that has not stopped has a packet waiting, or once it is
//! `window` older than the newest packet seen, or when more than `max` packets
//! are held (a worker that lags longer than the window may then be written out
//! of order: the window bounds the memory held, not the order, which a lagging
//! worker cannot be made to respect).

use std::collections::VecDeque;

/// One packet of a [`Batch`].
#[derive(Clone, Copy, Debug)]
struct Pkt {
    /// Time stamp, nanoseconds since the epoch.
    ts: u64,
    /// Where its bytes start in the batch's buffer.
    off: usize,
    /// How many bytes were captured.
    len: u32,
    /// Its length on the wire.
    wire: u32,
}

/// A ring block's accepted packets, from one worker, in the ring's order.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    worker: usize,
    data: Vec<u8>,
    pkts: Vec<Pkt>,
}

impl Batch {
    /// An empty batch of `worker`'s.
    pub(crate) fn new(worker: usize) -> Batch {
        Batch {
            worker,
            ..Batch::default()
        }
    }

    /// Adds a packet: time stamp `ts` (ns), captured bytes `data`, `wire` bytes
    /// long on the wire.
    pub(crate) fn push(&mut self, ts: u64, data: &[u8], wire: u32) {
        self.pkts.push(Pkt {
            ts,
            off: self.data.len(),
            len: data.len() as u32,
            wire,
        });
        self.data.extend_from_slice(data);
    }

    /// The worker it came from.
    pub(crate) fn worker(&self) -> usize {
        self.worker
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.pkts.is_empty()
    }

    /// Empties it for its worker's next block, keeping the buffers.
    pub(crate) fn clear(&mut self) {
        self.data.clear();
        self.pkts.clear();
    }

    fn bytes(&self, p: &Pkt) -> &[u8] {
        &self.data[p.off..p.off + p.len as usize]
    }
}

/// One worker's batches not yet written.
#[derive(Debug, Default)]
struct Queue {
    batches: VecDeque<Batch>,
    /// The next packet of the front batch.
    at: usize,
    /// The worker stopped: an empty queue no longer holds the others back.
    done: bool,
}

impl Queue {
    fn head(&self) -> Option<u64> {
        self.batches.front().map(|b| b.pkts[self.at].ts)
    }
}

/// A packet as the merge writes it.
pub(crate) struct Out<'a> {
    /// The worker whose ring it came from.
    pub(crate) worker: usize,
    /// Time stamp, nanoseconds since the epoch.
    pub(crate) ts: u64,
    pub(crate) data: &'a [u8],
    pub(crate) wire: u32,
}

/// The workers' queues and the window.
#[derive(Debug)]
pub(crate) struct Merge {
    queues: Vec<Queue>,
    /// Packets in all the queues.
    held: usize,
    /// The newest time stamp seen.
    newest: u64,
    window_ns: u64,
    max: usize,
}

impl Merge {
    /// A merge of `workers` queues, writing a packet at the latest when it is
    /// `window_ns` older than the newest seen or more than `max` are held.
    pub(crate) fn new(workers: usize, window_ns: u64, max: usize) -> Merge {
        Merge {
            queues: (0..workers).map(|_| Queue::default()).collect(),
            held: 0,
            newest: 0,
            window_ns,
            max,
        }
    }

    /// Takes a worker's batch (an empty one is handed straight back).
    pub(crate) fn add(&mut self, b: Batch) -> Option<Batch> {
        if b.is_empty() {
            return Some(b);
        }
        self.newest = b.pkts.iter().fold(self.newest, |m, p| m.max(p.ts));
        self.held += b.pkts.len();
        self.queues[b.worker].batches.push_back(b);
        None
    }

    /// Worker `worker` stopped and will send nothing more.
    pub(crate) fn done(&mut self, worker: usize) {
        self.queues[worker].done = true;
    }

    /// Packets held.
    pub(crate) fn held(&self) -> usize {
        self.held
    }

    /// Writes through `emit`, oldest first, every packet that may go (all of them
    /// if `all`: the link went quiet, or the capture ends); every batch written
    /// out goes to `spent`, to be filled again.
    pub(crate) fn drain<E>(
        &mut self,
        all: bool,
        mut emit: impl FnMut(Out<'_>) -> Result<(), E>,
        mut spent: impl FnMut(Batch),
    ) -> Result<(), E> {
        loop {
            // The oldest head, first worker on a tie; and whether a running
            // worker has nothing waiting (it may still send an older packet).
            let mut best: Option<(u64, usize)> = None;
            let mut waiting = false;
            for (i, q) in self.queues.iter().enumerate() {
                match q.head() {
                    Some(ts) if best.is_none_or(|(b, _)| ts < b) => best = Some((ts, i)),
                    Some(_) => {}
                    None => waiting |= !q.done,
                }
            }
            let Some((ts, i)) = best else {
                return Ok(());
            };
            let sure = !waiting
                || all
                || ts.saturating_add(self.window_ns) <= self.newest
                || self.held > self.max;
            if !sure {
                return Ok(());
            }
            let q = &mut self.queues[i];
            let b = q.batches.front().expect("a head");
            let p = b.pkts[q.at];
            let out = Out {
                worker: i,
                ts: p.ts,
                data: b.bytes(&p),
                wire: p.wire,
            };
            let r = emit(out);
            q.at += 1;
            self.held -= 1;
            if q.at == b.pkts.len() {
                q.at = 0;
                let mut b = q.batches.pop_front().expect("a head");
                b.clear();
                spent(b);
            }
            r?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(worker: usize, ts: &[u64]) -> Batch {
        let mut b = Batch::new(worker);
        for &t in ts {
            b.push(t, &t.to_be_bytes(), 100);
        }
        b
    }

    /// Drains and returns (worker, ts, bytes-as-ts) written.
    fn drain(m: &mut Merge, all: bool) -> Vec<(usize, u64)> {
        let mut out = Vec::new();
        m.drain::<()>(
            all,
            |o| {
                assert_eq!(o.data, o.ts.to_be_bytes(), "bytes go with their packet");
                assert_eq!(o.wire, 100);
                out.push((o.worker, o.ts));
                Ok(())
            },
            |b| assert!(b.is_empty()),
        )
        .unwrap();
        out
    }

    #[test]
    fn waits_for_every_running_worker_then_merges_in_order() {
        let mut m = Merge::new(2, 1_000, 100);
        assert!(m.add(batch(0, &[10, 30, 50])).is_none());
        // Worker 1 may still send something older than 10.
        assert_eq!(drain(&mut m, false), vec![]);
        m.add(batch(1, &[20, 40]));
        // Worker 1's queue runs dry after 40: 50 waits for it.
        assert_eq!(
            drain(&mut m, false),
            vec![(0, 10), (1, 20), (0, 30), (1, 40)]
        );
        assert_eq!(m.held(), 1);
        m.done(1);
        assert_eq!(drain(&mut m, false), vec![(0, 50)]);
        assert_eq!(m.held(), 0);
    }

    #[test]
    fn the_window_and_the_bound_let_a_head_go_without_the_others() {
        let mut m = Merge::new(2, 1_000, 100);
        m.add(batch(0, &[10, 500]));
        m.add(batch(0, &[1_200]));
        // 1_200 - 1_000 = 200: 10 is older than the window, 500 is not.
        assert_eq!(drain(&mut m, false), vec![(0, 10)]);
        assert_eq!(drain(&mut m, true), vec![(0, 500), (0, 1_200)]);

        let mut m = Merge::new(2, u64::MAX, 2);
        m.add(batch(1, &[1, 2, 3, 4]));
        // More than 2 held: written down to 2.
        assert_eq!(drain(&mut m, false), vec![(1, 1), (1, 2)]);
        assert_eq!(m.held(), 2);
    }

    #[test]
    fn a_tie_goes_to_the_first_worker_and_empty_batches_come_back() {
        let mut m = Merge::new(3, 1_000, 100);
        assert!(m.add(Batch::new(2)).is_some());
        m.add(batch(1, &[5]));
        m.add(batch(0, &[5]));
        m.done(2);
        // Worker 0, its queue dry after 5, may still send another 5.
        assert_eq!(drain(&mut m, false), vec![(0, 5)]);
        m.done(0);
        assert_eq!(drain(&mut m, false), vec![(1, 5)]);
    }

    #[test]
    fn an_error_stops_the_drain_after_the_packet() {
        let mut m = Merge::new(1, 1_000, 100);
        m.add(batch(0, &[1, 2]));
        let mut seen = 0;
        let r = m.drain(
            true,
            |_| {
                seen += 1;
                Err("disk full")
            },
            |_| {},
        );
        assert_eq!((r, seen, m.held()), (Err("disk full"), 1, 1));
    }
}
