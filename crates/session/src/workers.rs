//! N rings, one worker thread each, all in one PACKET_FANOUT group, all running
//! one filter. Each worker filters its blocks in place and sends only the
//! accepted packets on, a batch a block; the calling thread puts them back in
//! time-stamp order within a bounded window ([`REORDER_WINDOW_NS`],
//! [`REORDER_MAX`]) and hands them to one sink, or each worker's to its own.
//!
//! Within one ring the kernel writes packets in arrival order; across rings, a
//! packet is held until no other worker can still deliver an older one, or
//! until it is [`REORDER_WINDOW_NS`] older than the newest packet seen (a worker
//! that lags longer than that may be written out of order: the window bounds
//! the memory held, not the order, which a lagging worker cannot be made to
//! respect).
//!
//! With a follower, the group spreads packets by address pair
//! ([`netsift_capture::Fanout::HostPair`]), so a control connection and the
//! flows it announces between the same hosts meet in one worker, and an
//! announcement is always observed before its flow's first packet is judged. A
//! flow announced to a third host (SIP media at another address) may land on
//! another worker, which sees the edit as soon as it is published.

use crate::filter::{for_each_kept, frame_ns, Mode, Scratches, BATCH};
use crate::merge::{Batch, Merge, Out};
use crate::report::{Report, RingReport};
use crate::sink::{record, split_ns, Records, Sink};
use crate::{Error, ErrorKind};
use netsift_capture::{Frame, Ring, Stats};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::sync::Arc;
use std::time::Duration;

/// Packets older than the newest seen by this much are written.
pub const REORDER_WINDOW_NS: u64 = 100_000_000;
/// At most this many packets are held for reordering.
pub const REORDER_MAX: usize = 65_536;
/// Spent batches waiting to go back to a worker: a worker whose return queue
/// is full allocates, one whose queue is empty too.
const SPARE_BATCHES: usize = 4;

enum Msg {
    /// A block's accepted packets, in the ring's order: one message a block,
    /// not one a packet, so the channel's locking and wake-ups are paid per
    /// block.
    Packets(Batch),
    /// The worker stopped; its ring's statistics, or why it failed.
    Done(usize, Result<Stats, netsift_capture::Error>),
}

/// One worker: filters its ring's blocks and sends the accepted packets, a
/// batch a block, until `halt`; spent batches come back on `spare`.
fn work(
    id: usize,
    mut ring: Ring,
    mode: Mode,
    halt: Arc<AtomicBool>,
    tx: SyncSender<Msg>,
    spare: Receiver<Batch>,
) {
    let mut scratch = Scratches::new();
    let mut failed = None;
    while !halt.load(Ordering::Relaxed) {
        let block = match ring.next_block(Duration::from_millis(100)) {
            Ok(Some(b)) => b,
            Ok(None) => continue,
            Err(e) => {
                failed = Some(e);
                break;
            }
        };
        let mut out = spare.try_recv().unwrap_or_else(|_| Batch::new(id));
        let mut frames = block.frames();
        let mut chunk = [Frame::default(); BATCH];
        loop {
            let n = frames.fill(&mut chunk);
            if n == 0 {
                break;
            }
            let chunk = &chunk[..n];
            let keep = mode.keep_frames(&mut scratch, chunk, u64::MAX);
            // The one copy: accepted packets leave the ring.
            let _ = for_each_kept::<()>(keep, u64::MAX, |i| {
                let fr = &chunk[i];
                out.push(frame_ns(fr), fr.data, fr.wire_len);
                Ok(())
            });
        }
        drop(block);
        if !out.is_empty() && tx.send(Msg::Packets(out)).is_err() {
            break;
        }
    }
    let stats = match failed {
        Some(e) => Err(e),
        None => ring.stats(),
    };
    let _ = tx.send(Msg::Done(id, stats));
}

/// Runs one worker per ring (all open, in one fanout group) until `stop` or
/// `limit` accepted packets, all filtering with `mode`, into `sinks`: one, or
/// one per ring.
pub(crate) fn run<S: Sink>(
    rings: Vec<Ring>,
    mode: &Mode,
    sinks: &mut [S],
    stop: &AtomicBool,
    limit: u64,
) -> (Report, Result<(), Error>) {
    let n = rings.len();
    // Messages are blocks: at most this many in flight bounds what a lagging
    // writer holds to this many rings' blocks of accepted packets.
    let (tx, rx) = sync_channel(64);
    let halt = Arc::new(AtomicBool::new(false));
    let mut spares = Vec::with_capacity(n);
    let mut handles = Vec::with_capacity(n);
    let mut spawned = Ok(());
    for (id, ring) in rings.into_iter().enumerate() {
        let (m, h, t) = (mode.clone(), halt.clone(), tx.clone());
        let (back, spare) = sync_channel(SPARE_BATCHES);
        spares.push(back);
        match std::thread::Builder::new()
            .name(format!("netsift-worker-{id}"))
            .spawn(move || work(id, ring, m, h, t, spare))
        {
            Ok(h) => handles.push(h),
            Err(e) => {
                spawned = Err(Error::with_source(
                    ErrorKind::Io,
                    "starting a worker thread",
                    e,
                ));
                break;
            }
        }
    }
    drop(tx);
    let mut w = Writer {
        sinks,
        spares: &spares,
        limit,
        accepted: vec![0; n],
        total: 0,
        stats: (0..n).map(|_| None).collect(),
        halt: &halt,
    };
    let result = spawned.and_then(|()| w.write(&rx, stop, handles.len()));
    halt.store(true, Ordering::Relaxed);
    // Drain what the workers still send, so none blocks on a full channel.
    for m in rx.iter() {
        if let Msg::Done(id, s) = m {
            w.stats[id] = Some(s);
        }
    }
    for h in handles {
        let _ = h.join();
    }
    let flushed = w
        .sinks
        .iter_mut()
        .try_for_each(|s| s.flush())
        .map_err(Error::sink);
    (w.report(), result.and(flushed))
}

/// The calling thread's side: the merge and the sinks.
struct Writer<'a, S> {
    sinks: &'a mut [S],
    spares: &'a [SyncSender<Batch>],
    limit: u64,
    accepted: Vec<u64>,
    total: u64,
    stats: Vec<Option<Result<Stats, netsift_capture::Error>>>,
    halt: &'a AtomicBool,
}

impl<S: Sink> Writer<'_, S> {
    /// Merges the workers' packets in time-stamp order within the window until
    /// every one of the `running` workers has stopped.
    fn write(
        &mut self,
        rx: &Receiver<Msg>,
        stop: &AtomicBool,
        running: usize,
    ) -> Result<(), Error> {
        let n = self.spares.len();
        let mut merge = Merge::new(n, REORDER_WINDOW_NS, REORDER_MAX);
        let mut done = n - running;
        while done < n {
            if stop.load(Ordering::Relaxed) {
                self.halt.store(true, Ordering::Relaxed);
            }
            let m = match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => {
                    // Quiet: what the window holds is as ordered as it will get.
                    self.drain(&mut merge, true)?;
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => break,
            };
            match m {
                Msg::Packets(b) => {
                    if let Some(b) = merge.add(b) {
                        let _ = self.spares[b.worker()].try_send(b);
                    }
                }
                Msg::Done(id, s) => {
                    self.stats[id] = Some(s);
                    merge.done(id);
                    done += 1;
                }
            }
            self.drain(&mut merge, false)?;
            if self.halt.load(Ordering::Relaxed) && merge.held() == 0 && self.total >= self.limit {
                break;
            }
        }
        self.drain(&mut merge, true)
    }

    /// Writes what may go (all of it if `all`), laid out as records a sink
    /// where the sink takes them, and returns the spent batches.
    fn drain(&mut self, merge: &mut Merge, all: bool) -> Result<(), Error> {
        let mut recs: Vec<Option<Records>> = self.sinks.iter_mut().map(|s| s.records()).collect();
        let (sinks, spares) = (&mut *self.sinks, self.spares);
        let (accepted, total, limit, halt) =
            (&mut self.accepted, &mut self.total, self.limit, self.halt);
        let res = merge.drain(
            all,
            |o: Out<'_>| -> Result<(), Error> {
                if *total >= limit {
                    return Ok(());
                }
                *total += 1;
                accepted[o.worker] += 1;
                let i = if sinks.len() > 1 { o.worker } else { 0 };
                let (sec, nsec) = split_ns(o.ts);
                match &mut recs[i] {
                    Some(r) => r.push(sec, nsec, o.data, o.wire),
                    None => sinks[i]
                        .packet(&record(sec, nsec, o.data, o.wire))
                        .map_err(Error::sink)?,
                }
                if *total >= limit {
                    halt.store(true, Ordering::Relaxed);
                }
                Ok(())
            },
            |b| {
                let _ = spares[b.worker()].try_send(b);
            },
        );
        for (s, r) in sinks.iter_mut().zip(recs) {
            if let Some(r) = r {
                s.write_records(r).map_err(Error::sink)?;
            }
        }
        res
    }

    /// The rings' statistics, summed.
    fn report(&mut self) -> Report {
        let mut report = Report::default();
        for (accepted, s) in self.accepted.iter().zip(self.stats.drain(..)) {
            let mut r = RingReport {
                accepted: *accepted,
                ..RingReport::default()
            };
            match s {
                Some(Ok(s)) => {
                    report.received += s.received;
                    report.dropped += s.dropped;
                    r.stats = Some(s);
                }
                Some(Err(e)) => r.failure = Some(Error::capture(e)),
                None => {}
            }
            report.captured += accepted;
            report.rings.push(r);
        }
        report
    }
}
