//! `netsift -i IFACE --workers N`: one capture ring per worker thread, all in one
//! PACKET_FANOUT group (by flow hash, fragments as they are; by address pair with
//! `--follow`, see [`Shared::Follow`]), all running one filter. Each worker filters its blocks in place and sends only the accepted
//! packets on; the writer puts them back in time-stamp order within a bounded
//! window ([`REORDER_WINDOW_NS`], [`REORDER_MAX`]) and writes one file, or each
//! worker writes its own (`--worker-files`).
//!
//! Within one ring the kernel writes packets in arrival order; across rings, a
//! packet is held until no other worker can still deliver an older one, or until
//! it is [`REORDER_WINDOW_NS`] older than the newest packet seen (a worker that
//! lags longer than that may write out of order: the window bounds the memory
//! held, not the order, which a lagging worker cannot be made to respect).

use crate::filter::{frame_ns, print_stats, RingFilter, BATCH};
use crate::following::Following;
use crate::merge::{Batch, Merge, Out};
use crate::output::Sink;
use anyhow::{bail, Result};
use netsift_capture::{Config, Frame, Ring, Stats};
use netsift_engine::live::Reader as LiveReader;
use netsift_engine::{BatchScratch, Scratch};
use netsift_pcapio::{Packet, RawTs, Record};
use netsift_wire::LinkType;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Packets older than the newest seen by this much are written.
pub const REORDER_WINDOW_NS: u64 = 100_000_000;
/// At most this many packets are held for reordering.
pub const REORDER_MAX: usize = 65_536;
/// Spent batches waiting to go back to a worker: a worker whose return queue is
/// full allocates, one whose queue is empty too.
const SPARE_BATCHES: usize = 4;

enum Msg {
    /// A block's accepted packets, in the ring's order: one message a block,
    /// not one a packet, so the channel's locking and wake-ups are paid per block.
    Packets(Batch),
    /// The worker stopped; its ring's statistics.
    Done(usize, Result<Stats, String>),
}

fn record<'a>(o: &Out<'a>) -> Record<'a> {
    let (sec, nsec) = ((o.ts / 1_000_000_000) as u32, (o.ts % 1_000_000_000) as u32);
    Record {
        packet: Packet {
            ts_sec: sec as u64,
            ts_nsec: nsec,
            caplen: o.data.len() as u32,
            orig_len: o.wire,
            data: o.data,
            interface: 0,
        },
        raw_ts: RawTs::Pcap {
            sec,
            frac: nsec,
            nano: true,
        },
    }
}

/// What every worker filters with.
#[derive(Clone)]
pub enum Shared {
    /// One static filter (`None`: every packet).
    Static(Option<Arc<RingFilter>>),
    /// `--follow`: one live set, which one follower edits. Each worker feeds it
    /// the packets it accepts, in its ring's order; the group spreads packets by
    /// address pair ([`netsift_capture::Fanout::HostPair`]), so a control connection
    /// and the flows it announces between the same hosts meet in one worker, and
    /// an announcement is always observed before its flow's first packet is judged.
    /// A flow announced to a third host (SIP media at another address) may land on
    /// another worker, which sees the edit as soon as it is published.
    Follow(LiveReader, Arc<Mutex<Following>>),
    /// `--control`: one live set, edited from outside.
    Edited(LiveReader),
}

/// The follower behind the lock; a worker that panicked while holding it leaves
/// it usable (a follower's state is valid between calls).
fn lock(f: &Mutex<Following>) -> std::sync::MutexGuard<'_, Following> {
    f.lock().unwrap_or_else(|e| e.into_inner())
}

/// One worker: filters its ring's blocks and sends the accepted packets, a
/// batch a block; spent batches come back on `spare`.
fn work(
    id: usize,
    mut ring: Ring,
    filter: Shared,
    stop: Arc<AtomicBool>,
    tx: SyncSender<Msg>,
    spare: Receiver<Batch>,
) {
    let mut scratch = BatchScratch::new();
    let mut one = Scratch::new();
    let mut failed = None;
    'run: while !stop.load(Ordering::Relaxed) {
        let block = match ring.next_block(Duration::from_millis(100)) {
            Ok(Some(b)) => b,
            Ok(None) => continue,
            Err(e) => {
                failed = Some(e.to_string());
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
            let keep = match &filter {
                Shared::Static(None) => u32::MAX,
                Shared::Static(Some(f)) => f.keep(&mut scratch, chunk),
                Shared::Follow(live, following) => {
                    crate::filter::follow_frames(live, &mut one, chunk, u64::MAX, |fr| {
                        lock(following).judge(fr.data, fr.wire_len, frame_ns(fr), "live packet")
                    })
                }
                Shared::Edited(live) => {
                    crate::filter::follow_frames(live, &mut one, chunk, u64::MAX, |_| true)
                }
            };
            let mut keep = keep & (u32::MAX >> (32 - n));
            while keep != 0 {
                let fr = &chunk[keep.trailing_zeros() as usize];
                keep &= keep - 1;
                // The one copy: accepted packets leave the ring.
                out.push(frame_ns(fr), fr.data, fr.wire_len);
            }
        }
        drop(block);
        if !out.is_empty() && tx.send(Msg::Packets(out)).is_err() {
            break 'run;
        }
    }
    let stats = match failed {
        Some(e) => Err(e),
        None => ring.stats().map_err(|e| e.to_string()),
    };
    let _ = tx.send(Msg::Done(id, stats));
}

/// Runs one worker per ring (all open, in one fanout group) until `-c` or a signal, all filtering with
/// `filter`.
#[allow(clippy::too_many_arguments)]
pub fn run(
    args: &crate::args::Args,
    cfg: &Config,
    lt: LinkType,
    rings: Vec<Ring>,
    filter: Shared,
    stop: Arc<AtomicBool>,
) -> Result<()> {
    let n = rings.len();
    // Messages are blocks: at most this many in flight bounds what a lagging
    // writer holds to this many rings' blocks of accepted packets.
    let (tx, rx) = sync_channel(64);
    let mut spares = Vec::with_capacity(n);
    let handles: Vec<_> = rings
        .into_iter()
        .enumerate()
        .map(|(id, ring)| {
            let (f, s, t) = (filter.clone(), stop.clone(), tx.clone());
            let (back, spare) = sync_channel(SPARE_BATCHES);
            spares.push(back);
            std::thread::Builder::new()
                .name(format!("netsift-worker-{id}"))
                .spawn(move || work(id, ring, f, s, t, spare))
        })
        .collect::<std::io::Result<_>>()?;
    drop(tx);
    eprintln!(
        "listening on {}, link-type {}, snapshot length {} bytes, {n} workers",
        cfg.interface,
        lt.with_description(),
        cfg.snaplen
    );
    let result = write(args, lt, cfg.snaplen, (&rx, &spares), &stop);
    stop.store(true, Ordering::Relaxed);
    // Drain what the workers still send, so none blocks on a full channel.
    let mut stats = vec![None; n];
    let mut accepted = vec![0u64; n];
    if let Ok((a, s)) = &result {
        accepted.clone_from(a);
        for (i, x) in s.iter().enumerate() {
            stats[i] = x.clone();
        }
    }
    for m in rx.iter() {
        if let Msg::Done(id, s) = m {
            stats[id] = Some(s);
        }
    }
    for h in handles {
        let _ = h.join();
    }
    let (mut received, mut dropped) = (0, 0);
    for (i, s) in stats.iter().enumerate() {
        match s {
            Some(Ok(s)) => {
                received += s.received;
                dropped += s.dropped;
                eprintln!(
                    "worker {i}: {} packets captured, {} received by filter, {} dropped by kernel; {}",
                    accepted[i],
                    s.received,
                    s.dropped,
                    crate::filter::ring_line(s, accepted[i])
                );
            }
            Some(Err(e)) => eprintln!("worker {i}: failed: {e}"),
            None => eprintln!("worker {i}: no statistics"),
        }
    }
    let more = match &filter {
        Shared::Follow(_, following) => lock(following).summary(),
        Shared::Static(..) | Shared::Edited(_) => String::new(),
    };
    print_stats(accepted.iter().sum(), received, dropped, &more);
    result.map(|_| ())
}

type Outcome = (Vec<u64>, Vec<Option<Result<Stats, String>>>);

/// The writer: merges the workers' packets in time-stamp order within the
/// window, and hands each spent batch back to its worker through `spares`.
fn write(
    args: &crate::args::Args,
    lt: LinkType,
    snaplen: u32,
    (rx, spares): (&Receiver<Msg>, &[SyncSender<Batch>]),
    stop: &AtomicBool,
) -> Result<Outcome> {
    let n = spares.len();
    let limit = args.count.unwrap_or(u64::MAX);
    let mut sinks = Vec::new();
    if args.worker_files {
        let Some(path) = &args.write else {
            bail!("--worker-files needs -w FILE");
        };
        for i in 0..n {
            let mut a = args.clone();
            a.write = Some(format!("{}.{i}", path.display()).into());
            sinks.push(Sink::live(&a, lt, snaplen)?);
        }
    } else {
        sinks.push(Sink::live(args, lt, snaplen)?);
    }
    let mut merge = Merge::new(n, REORDER_WINDOW_NS, REORDER_MAX);
    let mut accepted = vec![0u64; n];
    let mut total = 0u64;
    let mut stats: Vec<Option<Result<Stats, String>>> = vec![None; n];
    let mut done = 0;
    // Writes what may go (all of it if `all`), laid out as records a sink where
    // the sink takes them, and returns the spent batches.
    let mut drain =
        |merge: &mut Merge, all: bool, (accepted, total): (&mut [u64], &mut u64)| -> Result<()> {
            let mut recs: Vec<_> = sinks.iter_mut().map(|s| s.records()).collect();
            let res = merge.drain(
                all,
                |o| -> Result<()> {
                    if *total >= limit {
                        return Ok(());
                    }
                    *total += 1;
                    accepted[o.worker] += 1;
                    let i = if sinks.len() > 1 { o.worker } else { 0 };
                    match &mut recs[i] {
                        Some(r) => {
                            let (sec, nsec) = (o.ts / 1_000_000_000, o.ts % 1_000_000_000);
                            r.push(sec as u32, nsec as u32, o.data, o.wire);
                        }
                        None => sinks[i].packet(&record(&o))?,
                    }
                    if *total >= limit {
                        stop.store(true, Ordering::Relaxed);
                    }
                    Ok(())
                },
                |b| {
                    let w = b.worker();
                    let _ = spares[w].try_send(b);
                },
            );
            for (s, r) in sinks.iter_mut().zip(recs) {
                if let Some(r) = r {
                    s.write_records(r)?;
                }
            }
            res
        };
    while done < n {
        let m = match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(m) => m,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                // Quiet: what the window holds is as ordered as it will get.
                drain(&mut merge, true, (&mut accepted, &mut total))?;
                continue;
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        };
        match m {
            Msg::Packets(b) => {
                if let Some(b) = merge.add(b) {
                    let w = b.worker();
                    let _ = spares[w].try_send(b);
                }
            }
            Msg::Done(id, s) => {
                stats[id] = Some(s);
                merge.done(id);
                done += 1;
            }
        }
        drain(&mut merge, false, (&mut accepted, &mut total))?;
        if stop.load(Ordering::Relaxed) && merge.held() == 0 && total >= limit {
            break;
        }
    }
    drain(&mut merge, true, (&mut accepted, &mut total))?;
    for s in &mut sinks {
        s.finish()?;
    }
    Ok((accepted, stats))
}
