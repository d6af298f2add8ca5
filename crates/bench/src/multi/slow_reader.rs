//! The slow-reader run: FFPF's accounting claim checked in process. A
//! [`Group`] under the slow-reader preference with a small PBuf is written
//! 1500-byte packets in batches of 32 every 100 µs or so, three flows with
//! overlapping interests: a reader that keeps up, one that sleeps 1 ms after
//! every packet (and, as every reader, publishes its position every 64), and
//! one whose IBuf is small. The writer never waits, so packets are dropped (PBuf full
//! for everyone while the sleeper pins it; IBuf full for one flow alone).
//! Once every reader has caught up, each flow must satisfy
//! `delivered + overwritten + invalid + pbuf_full + ibuf_full = accepted`,
//! with the writer's counters taken from [`Group::counters`] and the reader's
//! from [`FlowReader::stats`], and the two views of the writer's counters must
//! agree. A second pass bounds the stall ([`StallBound`]), so the sleeper is
//! detached and lapped: its losses move to `overwritten`, and the sum must
//! still hold. [`SlowReaderRun::exact`] is the conjunction, reported as it is.

use netsift_ffpf::{FlowId, FlowReader, Group, Incoming, Policy, ReaderStats, StallBound};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// One flow's accounting at the end.
#[derive(Clone, Debug)]
pub struct FlowAccount {
    /// Which reader: `fast`, `sleeper`, `small-ibuf`.
    pub name: &'static str,
    /// The reader's view (the writer's published counters and its own).
    pub stats: ReaderStats,
    /// Whether the writer's own counters equal the published ones and the
    /// five terms sum to `accepted`.
    pub balanced: bool,
}

/// One pass of the run.
#[derive(Clone, Debug)]
pub struct SlowReaderRun {
    /// Packets offered.
    pub packets: u64,
    /// Whether the stall was bounded (the sleeper detached).
    pub bounded: bool,
    /// Per flow.
    pub flows: Vec<FlowAccount>,
}

impl SlowReaderRun {
    /// Every flow balanced.
    pub fn exact(&self) -> bool {
        self.flows.iter().all(|f| f.balanced)
    }
}

/// Reads until the writer is done and nothing is left; the sleeper naps
/// `nap` after every packet.
fn drain(mut r: FlowReader, done: Arc<AtomicBool>, nap: Duration) -> Result<FlowReader, String> {
    loop {
        let finished = done.load(Ordering::Acquire);
        match r.getnext() {
            Ok(Some(_)) => {
                if !nap.is_zero() {
                    std::thread::sleep(nap);
                }
            }
            Ok(None) if finished => break,
            Ok(None) => {
                r.wait_for(1, Duration::from_millis(5))
                    .map_err(|e| e.to_string())?;
            }
            // A corrupt entry is counted as invalid by the reader; go on.
            Err(e) if e.kind() == netsift_ffpf::ErrorKind::Corrupt => {}
            Err(e) => return Err(e.to_string()),
        }
    }
    r.release();
    Ok(r)
}

/// Which flows take packet `seq`: the fast reader all, the sleeper half, the
/// small-IBuf reader two of three.
fn takers(seq: u64, ids: &[FlowId; 3]) -> Vec<(FlowId, u32)> {
    let mut v = vec![(ids[0], 0)];
    if seq.is_multiple_of(2) {
        v.push((ids[1], 1));
    }
    if !seq.is_multiple_of(3) {
        v.push((ids[2], 2));
    }
    v
}

/// One pass: `packets` 1500-byte packets; `bounded` detaches the sleeper
/// after it held the group back 20 ms.
pub fn run(packets: u64, bounded: bool) -> Result<SlowReaderRun, String> {
    let err = |e: netsift_ffpf::Error| e.to_string();
    let mut g = Group::new(Policy::SlowReader, 256 * 1024).map_err(err)?;
    if bounded {
        g.set_stall_bound(StallBound {
            time: Some(Duration::from_millis(20)),
            bytes: None,
        });
    }
    let names = ["fast", "sleeper", "small-ibuf"];
    let sizes = [4096, 1024, 16];
    let naps = [Duration::ZERO, Duration::from_millis(1), Duration::ZERO];
    let done = Arc::new(AtomicBool::new(false));
    let mut ids = Vec::new();
    let mut threads = Vec::new();
    for k in 0..3 {
        let (id, fds) = g.add_flow(sizes[k]).map_err(err)?;
        ids.push(id);
        let r = FlowReader::from_fds(fds.pbuf, fds.ibuf, fds.control, fds.wake).map_err(err)?;
        let (done, nap) = (done.clone(), naps[k]);
        threads.push(std::thread::spawn(move || drain(r, done, nap)));
    }
    let ids: [FlowId; 3] = [ids[0], ids[1], ids[2]];
    let frame = vec![0x5au8; 1500];
    const BATCH: u64 = 32;
    let mut seq = 0;
    while seq < packets {
        let n = BATCH.min(packets - seq);
        let flows: Vec<Vec<(FlowId, u32)>> = (seq..seq + n).map(|s| takers(s, &ids)).collect();
        let batch: Vec<Incoming<'_>> = flows
            .iter()
            .enumerate()
            .map(|(i, f)| Incoming {
                bytes: &frame,
                ts_ns: (seq + i as u64) * 1000,
                wirelen: 1500,
                flows: f,
            })
            .collect();
        g.write_batch(&batch);
        seq += n;
        // A writer at a line rate, not a loop: readers get to run.
        std::thread::sleep(Duration::from_micros(100));
    }
    done.store(true, Ordering::Release);
    let mut flows = Vec::new();
    for (k, t) in threads.into_iter().enumerate() {
        let r = t.join().map_err(|_| "a reader panicked".to_string())??;
        let stats = r.stats();
        let mine = g.counters(ids[k]).ok_or("a flow vanished")?;
        let w = stats.writer;
        let sum = stats.delivered + stats.overwritten + stats.invalid + w.pbuf_full + w.ibuf_full;
        flows.push(FlowAccount {
            name: names[k],
            stats,
            balanced: mine.writer == w && sum == w.accepted && stats.balanced(),
        });
    }
    Ok(SlowReaderRun {
        packets,
        bounded,
        flows,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn accounting_holds_with_a_sleeping_reader() {
        for bounded in [false, true] {
            let r = super::run(3000, bounded).unwrap();
            assert!(r.exact(), "{r:#?}");
            let fast = &r.flows[0].stats;
            assert_eq!(fast.writer.accepted, 3000);
        }
    }
}
