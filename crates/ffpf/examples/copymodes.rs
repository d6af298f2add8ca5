//! The copy modes side by side (NIC-FIX §4.3), in process so the figures are
//! exact and quick: a group's writer (`Group::write_batch`) and its flows'
//! readers (`FlowReader::getnext`) on one thread, for N flows (1, 2, 4, 8),
//! with every flow accepting every packet (`all`) or each packet accepted by
//! half the flows (`half`: flow j takes packet i when i + j is even), for
//! 64- and 1500-byte packets, in `once` (one PBuf per group) and `per-flow`
//! (a PBuf per flow, as sockets each get a copy).
//!
//! Per configuration it prints, as medians with min–max over the runs:
//! - `write ns/pkt`: the writer alone (no reader reads during the timed
//!   part: slow-reader preference, readers drained untimed after each batch);
//! - `w+r ns/pkt`: writer and every flow's reader draining its packets after
//!   each batch (the copy out to the reader included);
//! - `B stored/pkt`: bytes of PBuf records written per offered packet (16-byte
//!   record header and padding to 8 included), exact, not timed.
//!
//! Every run checks that each flow got exactly its packets (no drop), so the
//! two modes are compared on equal deliveries.
//!
//! ```sh
//! cargo run --release -p netsift-ffpf --example copymodes -- [--runs 7] [--packets 100000] [--pbuf BYTES]
//! ```

use netsift_ffpf::{CopyMode, FlowFds, FlowId, FlowReader, Group, Incoming, Policy};
use std::time::Instant;

const BATCH: usize = 32;

struct Args {
    runs: usize,
    packets: usize,
    pbuf: u64,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        runs: 7,
        packets: 100_000,
        pbuf: 4 << 20,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let val = it.next().ok_or_else(|| format!("{flag}: needs a value"))?;
        let n: u64 = val
            .parse()
            .map_err(|_| format!("{flag} {val}: not a number"))?;
        match flag.as_str() {
            "--runs" => a.runs = (n as usize).max(1),
            "--packets" => a.packets = (n as usize).max(BATCH),
            "--pbuf" => a.pbuf = n,
            _ => return Err(format!("{flag}: unknown (--runs, --packets, --pbuf)")),
        }
    }
    Ok(a)
}

/// Median, min and max.
fn stat(v: &mut [f64]) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let med = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    (med, v[0], v[n - 1])
}

#[derive(Clone, Copy, PartialEq)]
enum Overlap {
    All,
    Half,
}

fn accepts(o: Overlap, pkt: usize, flow: usize) -> bool {
    o == Overlap::All || (pkt + flow).is_multiple_of(2)
}

fn reader(fds: FlowFds) -> FlowReader {
    FlowReader::from_fds(fds.pbuf, fds.ibuf, fds.control, fds.wake).expect("a flow's reader")
}

/// Drains every reader; returns packets read.
fn drain(readers: &mut [FlowReader]) -> u64 {
    let mut n = 0;
    for r in readers.iter_mut() {
        while let Some(p) = r.getnext().expect("no corrupt entry") {
            std::hint::black_box(p.data);
            n += 1;
        }
    }
    n
}

/// One run: (write ns/pkt, writer+readers ns/pkt, bytes stored per packet).
fn run(a: &Args, copy: CopyMode, flows: usize, o: Overlap, size: usize) -> (f64, f64, f64) {
    let one = |timed_readers: bool| {
        let mut g = Group::with_copy(Policy::SlowReader, a.pbuf, copy).expect("a group");
        let mut ids: Vec<FlowId> = Vec::new();
        let mut readers = Vec::new();
        for _ in 0..flows {
            let (id, fds) = g.add_flow(4096).expect("a flow");
            ids.push(id);
            readers.push(reader(fds));
        }
        let frames: Vec<Vec<u8>> = (0..BATCH).map(|i| vec![i as u8; size]).collect();
        // Per packet of a batch (its index decides which flows take it).
        let targets: Vec<Vec<(FlowId, u32)>> = (0..BATCH)
            .map(|i| {
                (0..flows)
                    .filter(|&j| accepts(o, i, j))
                    .map(|j| (ids[j], 0))
                    .collect()
            })
            .collect();
        let batch: Vec<Incoming<'_>> = (0..BATCH)
            .filter(|&i| !targets[i].is_empty())
            .map(|i| Incoming {
                bytes: &frames[i],
                ts_ns: i as u64,
                wirelen: size as u32,
                flows: &targets[i],
            })
            .collect();
        let want: u64 = targets.iter().map(|t| t.len() as u64).sum();
        // Untimed warm-up: every page of every PBuf and IBuf touched (faulted
        // in) before timing, so a mode is not charged for its first laps.
        let warm = 4 * a.pbuf as usize / (BATCH * (size + 16)) + 4096 / BATCH * 2 + 1;
        for _ in 0..warm {
            g.write_batch(&batch);
            drain(&mut readers);
        }
        let before = g.pbuf_stats().1;
        let batches = a.packets / BATCH;
        let mut timed = 0u128;
        for _ in 0..batches {
            let t = Instant::now();
            g.write_batch(&batch);
            if timed_readers {
                let got = drain(&mut readers);
                timed += t.elapsed().as_nanos();
                assert_eq!(got, want, "every flow got its packets");
            } else {
                timed += t.elapsed().as_nanos();
                assert_eq!(drain(&mut readers), want, "every flow got its packets");
            }
        }
        for (id, r) in ids.iter().zip(&readers) {
            let c = g.counters(*id).expect("a flow");
            assert_eq!(c.writer.pbuf_full + c.writer.ibuf_full, 0, "no drop");
            assert!(r.stats().balanced());
        }
        let pkts = (batches * BATCH) as f64;
        (
            timed as f64 / pkts,
            (g.pbuf_stats().1 - before) as f64 / pkts,
        )
    };
    let (w, bytes) = one(false);
    let (wr, _) = one(true);
    (w, wr, bytes)
}

fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("copymodes: {e}");
            std::process::exit(2);
        }
    };
    println!(
        "copy modes, in process: {} packets x {} runs, batches of {BATCH}, PBuf {} B (per group, or per flow), slow-reader preference, no drop",
        a.packets, a.runs, a.pbuf
    );
    println!(
        "{:>5} {:>5} {:>7} {:>9} | {:>24} | {:>24} | {:>12}",
        "size",
        "flows",
        "overlap",
        "mode",
        "write ns/pkt med (min-max)",
        "w+r ns/pkt med (min-max)",
        "B stored/pkt"
    );
    for size in [64usize, 1500] {
        for flows in [1usize, 2, 4, 8] {
            for (o, oname) in [(Overlap::All, "all"), (Overlap::Half, "half")] {
                for (copy, cname) in [(CopyMode::Once, "once"), (CopyMode::PerFlow, "per-flow")] {
                    let (mut w, mut wr, mut b) = (Vec::new(), Vec::new(), 0.0);
                    for _ in 0..a.runs {
                        let (x, y, z) = run(&a, copy, flows, o, size);
                        w.push(x);
                        wr.push(y);
                        b = z;
                    }
                    let (w, wr) = (stat(&mut w), stat(&mut wr));
                    println!(
                        "{size:>5} {flows:>5} {oname:>7} {cname:>9} | {:>8.1} ({:>6.1}-{:>6.1}) | {:>8.1} ({:>6.1}-{:>6.1}) | {b:>12.1}",
                        w.0, w.1, w.2, wr.0, wr.1, wr.2
                    );
                }
            }
        }
    }
}
