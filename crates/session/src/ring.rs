//! One ring, filtered on the calling thread: the kernel hands over blocks of
//! packets; each block's packets are filtered where they lie, [`BATCH`] at a
//! time, and only the accepted ones go to the sink: laid out as pcap records in
//! one buffer a block where the sink writes them so, else one by one.

use crate::filter::{for_each_kept, Mode, Scratches, BATCH};
use crate::report::{Report, RingReport};
use crate::sink::{record, Sink};
use crate::Error;
use netsift_capture::{Frame, Ring};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Filters `ring` into `sink` until `stop` or `limit` accepted packets.
pub(crate) fn run<S: Sink>(
    ring: &mut Ring,
    mode: &Mode,
    sink: &mut S,
    stop: &AtomicBool,
    limit: u64,
) -> (Report, Result<(), Error>) {
    let mut accepted = 0u64;
    let result = blocks(ring, mode, sink, stop, limit, &mut accepted);
    let flushed = sink.flush().map_err(Error::sink);
    let mut report = Report {
        captured: accepted,
        ..Report::default()
    };
    let stats = ring.stats().map_err(Error::capture);
    let result = result.and(flushed);
    let result = match stats {
        Ok(s) => {
            report.received = s.received;
            report.dropped = s.dropped;
            report.rings.push(RingReport {
                accepted,
                stats: Some(s),
                failure: None,
            });
            result
        }
        Err(e) => result.and(Err(e)),
    };
    (report, result)
}

/// The packet loop.
fn blocks<S: Sink>(
    ring: &mut Ring,
    mode: &Mode,
    sink: &mut S,
    stop: &AtomicBool,
    limit: u64,
    accepted: &mut u64,
) -> Result<(), Error> {
    let mut scratch = Scratches::new();
    while !stop.load(Ordering::Relaxed) && *accepted < limit {
        let Some(block) = ring
            .next_block(Duration::from_millis(100))
            .map_err(Error::capture)?
        else {
            continue;
        };
        let mut records = sink.records();
        // The block's frames, BATCH at a time, each read once: the walk that
        // finds a frame hands it to the filter while its bytes are in cache.
        let mut frames = block.frames();
        let mut batch = [Frame::default(); BATCH];
        while *accepted < limit {
            let n = frames.fill(&mut batch);
            if n == 0 {
                break;
            }
            let chunk = &batch[..n];
            let keep = mode.keep_frames(&mut scratch, chunk, limit - *accepted);
            let (taken, r) = for_each_kept(keep, limit - *accepted, |i| {
                let fr = &chunk[i];
                match &mut records {
                    Some(r) => {
                        let flags = (fr.outgoing, fr.tag_put_back);
                        r.push_directed(fr.sec, fr.nsec, fr.data, fr.wire_len, flags);
                        Ok(())
                    }
                    None => sink
                        .packet(&record(fr.sec, fr.nsec, fr.data, fr.wire_len))
                        .map_err(Error::sink),
                }
            });
            *accepted += taken;
            r?;
        }
        if let Some(r) = records {
            sink.write_records(r).map_err(Error::sink)?;
        }
    }
    Ok(())
}
