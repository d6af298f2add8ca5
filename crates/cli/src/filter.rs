//! The packet loop: read a batch of records, decide which to keep, write those.
//!
//! Records come in batches of up to [`BATCH`] straight from the reader's buffer,
//! so that the per-record costs (reading, dispatch to the output, the `-c` check)
//! are paid per batch, and so that the batch filter of the engine can take a whole
//! batch in one call. The follower is the exception: each accepted packet can
//! change the filter for the next one, so it decides packet by packet, in order.

use crate::following::Following;
use crate::output::{Progress, Sink};
use anyhow::Result;
use netsift_engine::live::Reader as LiveReader;
use netsift_engine::{BatchScratch, Compiled, Scratch};
use netsift_isa::PassSet;
use netsift_kernel::codegen::DECISIVE_LEN;
use netsift_pcapc::Target;
use netsift_pcapio::{Reader, RecordBatch};
use std::io::Read;
use std::path::Path;

/// Records per batch: the engine's batch width.
pub const BATCH: usize = netsift_engine::LANES;

/// What decides which packets are kept; `S` is the static filter (a capture
/// ring's is a [`RingFilter`]).
pub enum Engine<S = Compiled> {
    /// A compiled expression, decoded for speed (`None`: no filter). Boxed: it is
    /// large, and used once per batch.
    Static(Option<Box<S>>),
    /// A live set that a protocol follower edits as packets are read.
    Follow(Box<Following>, LiveReader),
    /// A live set edited from outside (`--control`).
    Edited(LiveReader),
}

/// Counts for the closing summary.
#[derive(Default)]
struct Counts {
    read: u64,
    accepted: u64,
}

/// Batches between progress-bar updates (about 4096 packets).
const PROGRESS_EVERY: u32 = 128;

/// Filters one capture file into `sink`, which is opened on the first file and
/// carries on over the files of `-V`.
pub fn filter_file<R: Read>(
    args: &crate::args::Args,
    input: &Path,
    reader: &mut Reader<R>,
    mut engine: Engine,
    sink: &mut Option<Sink>,
) -> Result<()> {
    let sink = match sink {
        Some(s) => {
            s.next_file(reader, &input.display().to_string())?;
            s
        }
        None => sink.insert(Sink::open(args, reader)?),
    };
    let size = std::fs::metadata(input).map(|m| m.len()).unwrap_or(0);
    let progress = Progress::new(size);
    let mut scratch = Scratch::new();
    let mut batch_scratch = BatchScratch::new();
    let mut n = Counts::default();
    let mut since_progress = 0u32;
    let mut keep = [false; BATCH];
    let stop = crate::signals::stop_flag()?;
    let result = loop {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            break Ok(());
        }
        // -c: how many more packets may be accepted.
        let left = args
            .count
            .map_or(u64::MAX, |c| c.saturating_sub(n.accepted));
        if left == 0 {
            break Ok(());
        }
        let batch = match reader.next_batch(BATCH) {
            Ok(b) if b.is_empty() => break Ok(()),
            Ok(b) => b,
            Err(e) => break Err(anyhow::Error::new(e).context(format!("{}", input.display()))),
        };
        match &mut engine {
            Engine::Static(filter) => {
                let keep = &mut keep[..batch.len()];
                static_verdicts(filter.as_deref(), &mut batch_scratch, &batch, keep);
                let (used, kept) = limit(keep, left);
                n.read += used as u64;
                n.accepted += kept;
                sink.batch(&batch, keep)?;
            }
            Engine::Follow(following, live) => {
                follow_batch(
                    Some(following),
                    live,
                    &mut scratch,
                    &batch,
                    left,
                    sink,
                    &mut n,
                )?;
            }
            Engine::Edited(live) => {
                follow_batch(None, live, &mut scratch, &batch, left, sink, &mut n)?;
            }
        }
        since_progress += 1;
        if since_progress == PROGRESS_EVERY {
            since_progress = 0;
            progress.set(reader.offset());
        }
    };
    progress.finish();
    // Whatever happened, the packets accepted so far are written out.
    sink.flush()?;
    print_stats(n.accepted, n.read, 0, "");
    if let Engine::Follow(following, _) = &engine {
        eprintln!("{}", following.summary());
    }
    result
}

/// The static filter's verdicts for a batch (every packet, without a filter).
fn static_verdicts(
    filter: Option<&Compiled>,
    scratch: &mut BatchScratch,
    batch: &RecordBatch<'_>,
    keep: &mut [bool],
) {
    let Some(filter) = filter else {
        keep.fill(true);
        return;
    };
    let mut packets: [&[u8]; BATCH] = [&[]; BATCH];
    let mut wire_lens = [0u32; BATCH];
    let n = batch.len().min(BATCH);
    for (i, (p, w)) in packets.iter_mut().zip(&mut wire_lens).take(n).enumerate() {
        (*p, *w) = batch.packet_data(i);
    }
    // One call filters the whole batch (the engine's batch form: lane masks and
    // vector compares, same verdicts as one packet at a time).
    let m = filter.filter_batch(scratch, &packets[..n], &wire_lens[..n]);
    for (i, k) in keep.iter_mut().enumerate() {
        *k = m >> i & 1 != 0;
    }
}

/// tcpdump's closing lines on stderr (`-r` reads drop nothing: its kernel count
/// is 0), with `more` (netsift's own accounting) after them.
pub fn print_stats(captured: u64, received: u64, dropped: u64, more: &str) {
    eprintln!("{captured} packets captured");
    eprintln!("{received} packets received by filter");
    eprintln!("{dropped} packets dropped by kernel");
    if !more.is_empty() {
        eprintln!("{more}");
    }
}

/// netsift's account of a ring, after tcpdump's lines: where the packets went.
pub fn ring_line(s: &netsift_capture::Stats, copied: u64) -> String {
    format!(
        "ring: {} blocks read, {} packets filtered in place, {copied} copied out, full {} times",
        s.blocks, s.frames, s.frozen
    )
}

/// A live capture's static filter, as the ring's frames are filtered with it.
pub struct RingFilter {
    /// The program; for received packets only, where `sent` is set.
    received: Compiled,
    /// Where the expression tests the packets' direction on a link header
    /// without one (`inbound`, `outbound`; [`netsift_pcapc::Meta`]): the program
    /// for the packets this host sent.
    sent: Option<Compiled>,
    /// The program under the ring (`--place kernel`) gives the engine's answer
    /// on every frame up to [`DECISIVE_LEN`] bytes.
    kernel_decides: bool,
}

impl RingFilter {
    pub fn new(received: PassSet, sent: Option<PassSet>, kernel_decides: bool) -> RingFilter {
        RingFilter {
            received: Compiled::new(received),
            sent: sent.map(Compiled::new),
            kernel_decides,
        }
    }

    /// The batch engine's verdicts on up to [`BATCH`] frames, where they lie in
    /// the ring, each frame by its direction's program. A chunk of frames the
    /// kernel program decided is kept whole; a chunk with a longer frame is
    /// filtered again.
    pub fn keep(&self, scratch: &mut BatchScratch, chunk: &[netsift_capture::Frame<'_>]) -> u32 {
        if self.kernel_decides && chunk.iter().all(|fr| fr.wire_len <= DECISIVE_LEN) {
            return u32::MAX;
        }
        let mut data: [&[u8]; BATCH] = [&[]; BATCH];
        let mut wire = [0u32; BATCH];
        for (i, fr) in chunk.iter().enumerate() {
            data[i] = fr.data;
            wire[i] = fr.wire_len;
        }
        let (data, wire) = (&data[..chunk.len()], &wire[..chunk.len()]);
        let Some(sent) = &self.sent else {
            return self.received.filter_batch(scratch, data, wire);
        };
        let out = chunk
            .iter()
            .enumerate()
            .fold(0u32, |m, (i, fr)| m | u32::from(fr.outgoing) << i);
        let all = u32::MAX >> (32 - chunk.len());
        let received = if out != all {
            self.received.filter_batch(scratch, data, wire)
        } else {
            0
        };
        let sent = if out != 0 {
            sent.filter_batch(scratch, data, wire)
        } else {
            0
        };
        (received & !out) | (sent & out)
    }
}

/// `expr` compiled for received and for sent packets on a live interface. A
/// direction for which it rejects every packet (`inbound` for sent ones) gets a
/// program that accepts none; refused only if it rejects every packet both ways,
/// as libpcap's optimiser then proves of its kernel program (`inbound and
/// outbound`).
pub fn directed_sets(expr: &str, received: Target, sent: Target) -> Result<(PassSet, PassSet)> {
    use netsift_pcapc::ErrorKind::RejectsAll;
    match (
        netsift_pcapc::compile_for(expr, received),
        netsift_pcapc::compile_for(expr, sent),
    ) {
        (Ok(r), Ok(s)) => Ok((r, s)),
        (Ok(r), Err(e)) if e.kind() == RejectsAll => Ok((r, netsift_pcapc::reject_all())),
        (Err(e), Ok(s)) if e.kind() == RejectsAll => Ok((netsift_pcapc::reject_all(), s)),
        (Err(e), _) | (_, Err(e)) => Err(anyhow::anyhow!("bad filter expression: {e}")),
    }
}

/// The live set's verdicts on up to [`BATCH`] frames, packet by packet: each
/// frame the live set accepts goes to `judge` (the follower, which may change the
/// filter) before the next is filtered, and is kept only if `judge` says so: the
/// live set narrows to listener endpoints, the follower decides exactly
/// (docs/follow.md). At most `room` frames are kept (`-c`).
pub fn follow_frames(
    live: &LiveReader,
    scratch: &mut Scratch,
    chunk: &[netsift_capture::Frame<'_>],
    room: u64,
    mut judge: impl FnMut(&netsift_capture::Frame<'_>) -> bool,
) -> u32 {
    let mut keep = 0u32;
    for (i, fr) in chunk.iter().enumerate() {
        if u64::from(keep.count_ones()) >= room {
            break;
        }
        if live.matches(scratch, fr.data, fr.wire_len) && judge(fr) {
            keep |= 1 << i;
        }
    }
    keep
}

/// A frame's time stamp in nanoseconds, as the follower's timers count.
pub fn frame_ns(fr: &netsift_capture::Frame<'_>) -> u64 {
    u64::from(fr.sec) * 1_000_000_000 + u64::from(fr.nsec)
}

/// Applies `-c`: keeps at most `left` of the accepted records (clearing the rest)
/// and returns how many records count as read (up to the last one kept when the
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

/// A live set's loop over one batch: packet by packet, since each accepted packet
/// may edit the filter for the next (when a follower is given).
fn follow_batch(
    mut following: Option<&mut Following>,
    live: &LiveReader,
    scratch: &mut Scratch,
    batch: &RecordBatch<'_>,
    left: u64,
    sink: &mut Sink,
    n: &mut Counts,
) -> Result<()> {
    let mut taken = 0u64;
    for rec in batch.iter() {
        n.read += 1;
        let p = &rec.packet;
        if !live.matches(scratch, p.data, p.orig_len) {
            continue;
        }
        let ts = p.ts_sec.saturating_mul(1_000_000_000) + p.ts_nsec as u64;
        // The follower sees the packet before it is written: its verdict is exact
        // where the live set only narrows to listener endpoints.
        if let Some(f) = following.as_deref_mut() {
            if !f.judge(p.data, p.orig_len, ts, format_args!("packet {}", n.read)) {
                continue;
            }
        }
        n.accepted += 1;
        taken += 1;
        sink.packet(&rec)?;
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
