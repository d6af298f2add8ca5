//! The copy modes side by side (NIC-FIX §4.3), in process so the figures are
//! exact and quick: a group's writer (`Group::write_batch`) and its flows'
//! readers (`FlowReader::getnext`) on one thread, for N flows (1, 2, 4, 8),
//! with every flow accepting every packet (`all`) or each packet accepted by
//! half the flows (`half`: flow j takes packet i when i + j is even), for
//! 64- and 1500-byte packets, in `once` (one PBuf per group), `per-flow`
//! (a PBuf per flow, as sockets each get a copy) and `zero` (PBuf is a frame
//! ring the kernel writes, an AF_XDP UMEM: this program plays the kernel and
//! copies each packet into its frame *untimed*, since that copy is the
//! kernel's, or the NIC's DMA; the daemon's part timed is `write_frames` and
//! `refill`).
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

use netsift_ffpf::{CopyMode, FlowFds, FlowId, FlowReader, Group, Incoming, Policy, Received};
use std::collections::VecDeque;
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

/// Where AF_XDP's copy mode puts a packet in its frame.
const HEADROOM: u64 = 256;

/// One batch through the group; the nanoseconds of the daemon's part. In
/// zero copy, every packet of `all` takes the next free frame (the kernel's
/// copy into it is done first and not timed), and the frames the readers
/// passed go back to `fill`.
fn write(
    g: &mut Group,
    batch: &[Incoming<'_>],
    all: &[Incoming<'_>],
    fill: &mut VecDeque<u64>,
) -> u128 {
    let Some(umem) = g.umem() else {
        let t = Instant::now();
        g.write_batch(batch);
        return t.elapsed().as_nanos();
    };
    let mut recv = Vec::with_capacity(all.len());
    for p in all {
        let frame = fill.pop_front().expect("a free frame: the readers keep up");
        let addr = frame + HEADROOM;
        assert!(addr + p.bytes.len() as u64 <= umem.len);
        // SAFETY: the frame is one the group handed out and no reader reads
        // (it comes back only past every reader), `addr + len` is inside the
        // UMEM (asserted), which the group keeps mapped.
        unsafe {
            std::ptr::copy_nonoverlapping(
                p.bytes.as_ptr(),
                umem.addr.as_ptr().add(addr as usize),
                p.bytes.len(),
            );
        }
        recv.push(Received {
            addr,
            len: p.bytes.len() as u32,
            wirelen: p.wirelen,
            ts_ns: p.ts_ns,
            flows: p.flows,
        });
    }
    let t = Instant::now();
    g.write_frames(&recv).expect("frames in order");
    let mut out = Vec::new();
    g.refill(&mut out);
    let ns = t.elapsed().as_nanos();
    fill.extend(out);
    ns
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
        let all: Vec<Incoming<'_>> = (0..BATCH)
            .map(|i| Incoming {
                bytes: &frames[i],
                ts_ns: i as u64,
                wirelen: size as u32,
                flows: &targets[i],
            })
            .collect();
        // What the dispatch offers a copying group: the packets some flow took.
        let batch: Vec<Incoming<'_>> = all
            .iter()
            .filter(|p| !p.flows.is_empty())
            .copied()
            .collect();
        let mut fill = VecDeque::new();
        let mut out = Vec::new();
        g.refill(&mut out);
        fill.extend(out);
        let want: u64 = targets.iter().map(|t| t.len() as u64).sum();
        // Untimed warm-up: every page of every PBuf and IBuf touched (faulted
        // in) before timing, so a mode is not charged for its first laps.
        let warm = 4 * a.pbuf as usize / (BATCH * (size + 16)) + 4096 / BATCH * 2 + 1;
        for _ in 0..warm {
            write(&mut g, &batch, &all, &mut fill);
            drain(&mut readers);
        }
        let before = g.pbuf_stats().1;
        let batches = a.packets / BATCH;
        let mut timed = 0u128;
        for _ in 0..batches {
            timed += write(&mut g, &batch, &all, &mut fill);
            let t = Instant::now();
            let got = drain(&mut readers);
            if timed_readers {
                timed += t.elapsed().as_nanos();
            }
            assert_eq!(got, want, "every flow got its packets");
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
                for (copy, cname) in [
                    (CopyMode::Once, "once"),
                    (CopyMode::PerFlow, "per-flow"),
                    (CopyMode::Zero, "zero"),
                ] {
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
