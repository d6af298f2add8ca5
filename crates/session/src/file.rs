//! A capture file as a source: read a batch of records, decide which to keep,
//! hand those to the sink.
//!
//! Records come in batches of up to [`BATCH`] straight from the reader's
//! buffer, so that the per-record costs (reading, dispatch to the sink, the
//! count) are paid per batch, and so that the batch engine takes a whole batch
//! in one call. A follower is the exception: each accepted packet can change the
//! filter for the next one, so it decides packet by packet, in order.

use crate::config::FilterSpec;
use crate::event::Events;
use crate::filter::{lock, Mode, Scratches, StaticFilter, BATCH};
use crate::following::Following;
use crate::report::FileReport;
use crate::sink::Sink;
use crate::{Error, ErrorKind};
use netsift_engine::live::Reader as LiveReader;
use netsift_pcapc::Target;
use netsift_pcapio::{Reader, RecordBatch};
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Batches between progress reports (about 4096 packets).
const PROGRESS_EVERY: u32 = 128;

/// The filter of a capture file: [`FilterSpec::Static`] or
/// [`FilterSpec::Follow`] compiled for the file's link type and byte order.
pub struct FileFilter {
    mode: Mode,
}

impl FileFilter {
    /// `spec` compiled for the files of `target` (a live set of clauses is for
    /// live captures only).
    pub fn new(spec: &FilterSpec, target: Target, events: Events) -> Result<FileFilter, Error> {
        let lt = target.linktype;
        let mode = match spec {
            FilterSpec::Static(expr) if expr.trim().is_empty() => Mode::Static(None),
            FilterSpec::Static(expr) => {
                if !lt.is_filtered() {
                    return Err(Error::new(
                        ErrorKind::Unsupported,
                        format!("link type {lt} is not supported by the filter compiler"),
                    ));
                }
                let set = crate::filter::compile(expr, target)?;
                Mode::Static(Some(Arc::new(StaticFilter::new(set))))
            }
            FilterSpec::Follow(f) => {
                let (following, live) = Following::new(f, (lt, None), events)?;
                Mode::Follow(live, Arc::new(Mutex::new(following)))
            }
            FilterSpec::Clauses(_) => {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    "a live set of clauses is edited while capturing from an interface",
                ))
            }
        };
        Ok(FileFilter { mode })
    }

    /// The follower's live set, listed (`None` for a static filter).
    pub fn follow_listing(&self) -> Option<String> {
        match &self.mode {
            Mode::Follow(_, f) => Some(lock(f).listing()),
            _ => None,
        }
    }

    /// Filters what `reader` holds into `sink`, until its end, `stop`, or `limit`
    /// accepted packets; `progress` is told the reader's offset now and then.
    /// What was accepted before a fault is in the sink (flushed), and counted.
    pub fn run<R: Read, S: Sink>(
        &self,
        reader: &mut Reader<R>,
        sink: &mut S,
        (stop, limit): (&AtomicBool, u64),
        mut progress: impl FnMut(u64),
    ) -> (FileReport, Result<(), Error>) {
        let mut n = FileReport::default();
        let mut scratch = Scratches::new();
        let mut since_progress = 0u32;
        let result = loop {
            if stop.load(Ordering::Relaxed) {
                break Ok(());
            }
            let left = limit.saturating_sub(n.accepted);
            if left == 0 {
                break Ok(());
            }
            let batch = match reader.next_batch(BATCH) {
                Ok(b) if b.is_empty() => break Ok(()),
                Ok(b) => b,
                Err(e) => break Err(Error::with_source(ErrorKind::File, e.to_string(), e)),
            };
            let r = match &self.mode {
                Mode::Static(filter) => {
                    static_batch(filter.as_deref(), &mut scratch, &batch, left, sink, &mut n)
                }
                Mode::Follow(live, following) => {
                    let mut f = lock(following);
                    live_batch(Some(&mut f), live, &mut scratch, &batch, left, sink, &mut n)
                }
                // A file's frames have no tag taken out.
                Mode::Edited(live, _) => {
                    live_batch(None, live, &mut scratch, &batch, left, sink, &mut n)
                }
            };
            if let Err(e) = r {
                break Err(e);
            }
            since_progress += 1;
            if since_progress == PROGRESS_EVERY {
                since_progress = 0;
                progress(reader.offset());
            }
        };
        // Whatever happened, the packets accepted so far are written out.
        let result = result.and(sink.flush().map_err(Error::sink));
        if let Mode::Follow(_, f) = &self.mode {
            n.follow = Some(lock(f).report());
        }
        (n, result)
    }
}

/// A static filter's loop over one batch: one call of the batch engine.
fn static_batch<S: Sink>(
    filter: Option<&StaticFilter>,
    scratch: &mut Scratches,
    batch: &RecordBatch<'_>,
    left: u64,
    sink: &mut S,
    n: &mut FileReport,
) -> Result<(), Error> {
    let mut keep = [false; BATCH];
    let keep = &mut keep[..batch.len()];
    match filter {
        None => keep.fill(true),
        Some(f) => {
            let mut packets: [&[u8]; BATCH] = [&[]; BATCH];
            let mut wire_lens = [0u32; BATCH];
            let len = batch.len().min(BATCH);
            for (i, (p, w)) in packets.iter_mut().zip(&mut wire_lens).take(len).enumerate() {
                (*p, *w) = batch.packet_data(i);
            }
            let m = f.keep(scratch.batch(), &packets[..len], &wire_lens[..len]);
            for (i, k) in keep.iter_mut().enumerate() {
                *k = m >> i & 1 != 0;
            }
        }
    }
    let (used, kept) = limit(keep, left);
    n.read += used as u64;
    n.accepted += kept;
    sink.batch(batch, keep).map_err(Error::sink)
}

/// Keeps at most `left` of the accepted records (clearing the rest) and
/// returns how many records count as read (up to the last one kept when the
/// limit is reached, as if reading had stopped there) and how many are kept.
fn limit(keep: &mut [bool], left: u64) -> (usize, u64) {
    // The usual case, no limit in sight: a count without branches.
    let all = keep.iter().map(|&k| u64::from(k)).sum::<u64>();
    if all < left {
        return (keep.len(), all);
    }
    let mut kept = 0u64;
    for i in 0..keep.len() {
        if keep[i] {
            kept += 1;
            if kept == left {
                keep[i + 1..].fill(false);
                return (i + 1, kept);
            }
        }
    }
    (keep.len(), kept)
}

/// A live set's loop over one batch: packet by packet, since each accepted
/// packet may edit the filter for the next (when a follower is given).
fn live_batch<S: Sink>(
    mut following: Option<&mut Following>,
    live: &LiveReader,
    scratch: &mut Scratches,
    batch: &RecordBatch<'_>,
    left: u64,
    sink: &mut S,
    n: &mut FileReport,
) -> Result<(), Error> {
    let mut taken = 0u64;
    for rec in batch.iter() {
        n.read += 1;
        let p = &rec.packet;
        if !live.matches(scratch.one(), p.data, p.orig_len) {
            continue;
        }
        let ts = p.ts_sec.saturating_mul(1_000_000_000) + u64::from(p.ts_nsec);
        // The follower sees the packet before it is written: its verdict is
        // exact where the live set only narrows to listener endpoints.
        if let Some(f) = following.as_deref_mut() {
            // A file's frames have no tag taken out.
            if !f.judge((p.data, false), p.orig_len, ts, Some(n.read)) {
                continue;
            }
        }
        n.accepted += 1;
        taken += 1;
        sink.packet(&rec).map_err(Error::sink)?;
        if taken == left {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_stops_at_the_last_packet_allowed() {
        let mut k = [true, false, true, true, false];
        assert_eq!(limit(&mut k, 2), (3, 2));
        assert_eq!(k, [true, false, true, false, false]);
        let mut k = [false, true, false];
        assert_eq!(limit(&mut k, 5), (3, 1));
        assert_eq!(k, [false, true, false]);
        let mut k = [false, false];
        assert_eq!(limit(&mut k, u64::MAX), (2, 0));
    }
}
