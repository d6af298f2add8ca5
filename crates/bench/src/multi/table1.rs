//! FFPF's Table 1 in process: nanoseconds per operation of the pieces a shared
//! capture is made of, with crates/engine (the filter) and crates/ffpf (the
//! buffers). Each row is timed over many operations per run and reported as
//! the median with min and max over runs; "cycles" converts with the clock the
//! kernel reports (`cpu MHz`), for a rough look beside the paper's column
//! (a 1.2 GHz Pentium III).
//!
//! | row | FFPF's task (cycles there) | here |
//! |---|---|---|
//! | 1 | calling a filter (71) | `Compiled::matches`, the paper's footnote-5 filter, one 1514-byte packet |
//! | 2 | a filter stage (171) | 8 filters that accept at once, each verdict gathered into the packet's flow list; per filter |
//! | 3 | saving an index in IBuf (154) | `IbufWriter::push`, published every 32; and the same inside `write_batch` as the cost of each flow beyond the first ((8 flows - 1 flow) / 7) |
//! | 4 | storing a packet in PBuf (7479) | `Group::write_batch`, 32 packets of 1514 bytes a batch, one flow |
//! | 5 | waking a process (624) | a packet written to a flow whose reader sleeps in `wait_for`, the reader writing it back the same way: half the round trip |
//! | 9 | a BPF filter (740) | libpcap's `pcap_offline_filter` on row 1's filter and packet |

use crate::stats::Stat;
use netsift_engine::{Compiled, Scratch};
use netsift_ffpf::ibuf::IbufWriter;
use netsift_ffpf::{FlowId, FlowReader, Group, Incoming, Policy};
use netsift_wire::LinkType;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// FFPF's footnote 5: "ip src 192.168.1.3 and ip proto \udp and dst port 54321".
pub const FOOTNOTE_FILTER: &str = "ip src 192.168.1.3 and ip proto \\udp and dst port 54321";

/// One row of the table.
#[derive(Clone, Debug)]
pub struct Row {
    /// Short key for the JSON line.
    pub key: &'static str,
    /// What was timed.
    pub task: &'static str,
    /// The paper's figure for its row, cycles.
    pub ffpf_cycles: Option<u32>,
    /// Nanoseconds per operation over the runs.
    pub ns: Stat,
}

/// How much to time.
#[derive(Clone, Copy, Debug)]
pub struct Table1Config {
    /// Timed runs per row.
    pub runs: usize,
    /// Scale of the operations per run (1.0: the full run's).
    pub scale: f64,
}

/// A 1514-byte Ethernet frame, IPv4/UDP from 192.168.1.3 to port 54321: the
/// footnote filter accepts it.
pub fn footnote_packet() -> Vec<u8> {
    let mut p = vec![0u8; 1514];
    p[12..14].copy_from_slice(&[0x08, 0x00]);
    let ip = &mut p[14..34];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&1500u16.to_be_bytes());
    ip[8] = 64;
    ip[9] = 17;
    ip[12..16].copy_from_slice(&[192, 168, 1, 3]);
    ip[16..20].copy_from_slice(&[10, 0, 0, 1]);
    let udp = &mut p[34..42];
    udp[0..2].copy_from_slice(&40000u16.to_be_bytes());
    udp[2..4].copy_from_slice(&54321u16.to_be_bytes());
    udp[4..6].copy_from_slice(&1480u16.to_be_bytes());
    p
}

/// Times `f` (which does `ops` operations) `runs` times; ns per operation.
fn time(runs: usize, ops: u64, mut f: impl FnMut()) -> Stat {
    f(); // warm caches and lazily made state
    let v: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_nanos() as f64 / ops.max(1) as f64
        })
        .collect();
    Stat::of(&v).unwrap_or_default()
}

fn ops(cfg: &Table1Config, full: u64) -> u64 {
    ((full as f64 * cfg.scale) as u64).max(100)
}

/// The filter rows: netsift's engine and libpcap's interpreter on one packet.
fn filter_rows(cfg: &Table1Config, rows: &mut Vec<Row>) -> Result<(), String> {
    let pkt = footnote_packet();
    let wire = pkt.len() as u32;
    let set = netsift_pcapc::compile(FOOTNOTE_FILTER, LinkType::EN10MB)
        .map_err(|e| format!("{FOOTNOTE_FILTER}: {e}"))?;
    let c = Compiled::new(set);
    let mut scratch = Scratch::new();
    if !c.matches(&mut scratch, &pkt, wire) {
        return Err("the footnote filter rejects its own packet".into());
    }
    let n = ops(cfg, 2_000_000);
    let ns = time(cfg.runs, n, || {
        for _ in 0..n {
            black_box(c.matches(&mut scratch, black_box(&pkt), wire));
        }
    });
    rows.push(Row {
        key: "filter_call",
        task: "calling a filter (netsift engine, footnote-5 filter, 1514-byte packet)",
        ffpf_cycles: Some(71),
        ns,
    });

    let bpf = netsift_oracle::Filter::compile(LinkType::EN10MB, FOOTNOTE_FILTER)?;
    if !bpf.accepts(&pkt, wire) {
        return Err("libpcap's footnote filter rejects its own packet".into());
    }
    let ns = time(cfg.runs, n, || {
        for _ in 0..n {
            black_box(bpf.accepts(black_box(&pkt), wire));
        }
    });
    rows.push(Row {
        key: "bpf_filter",
        task: "BPF filter (libpcap pcap_offline_filter, same filter and packet)",
        ffpf_cycles: Some(740),
        ns,
    });

    const STAGES: usize = 8;
    let empty = netsift_pcapc::compile("", LinkType::EN10MB).map_err(|e| e.to_string())?;
    let stages: Vec<Compiled> = (0..STAGES).map(|_| Compiled::new(empty.clone())).collect();
    let mut flows: Vec<(usize, u32)> = Vec::with_capacity(STAGES);
    let n = ops(cfg, 500_000);
    let ns = time(cfg.runs, n * STAGES as u64, || {
        for _ in 0..n {
            flows.clear();
            for (k, s) in stages.iter().enumerate() {
                if s.matches(&mut scratch, black_box(&pkt), wire) {
                    flows.push((k, 0));
                }
            }
            black_box(&flows);
        }
    });
    rows.push(Row {
        key: "filter_stage",
        task: "filter stage: a filter that accepts at once, verdict into the flow list (per filter, 8 per packet)",
        ffpf_cycles: Some(171),
        ns,
    });
    Ok(())
}

/// ns per packet of `write_batch` with `flows` flows taking every packet.
fn store_rows(cfg: &Table1Config, flows: usize) -> Result<Stat, String> {
    const BATCH: usize = 32;
    let err = |e: netsift_ffpf::Error| e.to_string();
    let mut g = Group::new(Policy::FastReader, 16 << 20).map_err(err)?;
    let ids: Vec<(FlowId, u32)> = (0..flows)
        .map(|_| g.add_flow(4096).map(|(id, _fds)| (id, 0)))
        .collect::<Result<_, _>>()
        .map_err(err)?;
    let pkt = footnote_packet();
    let batch: Vec<Incoming<'_>> = (0..BATCH)
        .map(|i| Incoming {
            bytes: &pkt,
            ts_ns: i as u64,
            wirelen: pkt.len() as u32,
            flows: &ids,
        })
        .collect();
    let n = ops(cfg, 20_000);
    Ok(time(cfg.runs, n * BATCH as u64, || {
        for _ in 0..n {
            black_box(g.write_batch(black_box(&batch)));
        }
    }))
}

fn buffer_rows(cfg: &Table1Config, rows: &mut Vec<Row>) -> Result<(), String> {
    let mut ib = IbufWriter::create(4096).map_err(|e| e.to_string())?;
    let n = ops(cfg, 2_000_000);
    let ns = time(cfg.runs, n, || {
        for i in 0..n {
            ib.push(black_box(i * 1536), 1514, 0);
            if i % 32 == 31 {
                ib.publish();
            }
        }
    });
    rows.push(Row {
        key: "ibuf_index",
        task: "saving an index in IBuf (IbufWriter::push, published every 32)",
        ffpf_cycles: Some(154),
        ns,
    });
    let one = store_rows(cfg, 1)?;
    let eight = store_rows(cfg, 8)?;
    let per_flow = |a: f64, b: f64| ((b - a) / 7.0).max(0.0);
    rows.push(Row {
        key: "ibuf_index_in_batch",
        task: "saving an index in IBuf inside write_batch: each flow beyond the first ((8 flows - 1) / 7)",
        ffpf_cycles: Some(154),
        ns: Stat {
            median: per_flow(one.median, eight.median),
            min: per_flow(one.max, eight.min),
            max: per_flow(one.min, eight.max),
        },
    });
    rows.push(Row {
        key: "pbuf_store",
        task: "storing a 1514-byte packet in PBuf (Group::write_batch, 1 flow, 32 a batch)",
        ffpf_cycles: Some(7479),
        ns: one,
    });
    rows.push(Row {
        key: "pbuf_store_8_flows",
        task: "the same packet taken by 8 flows (stored once, 8 indexes)",
        ffpf_cycles: None,
        ns: eight,
    });
    Ok(())
}

/// Writes one 64-byte packet to flow `id` of `g`.
fn bounce_send(g: &mut Group, id: FlowId) {
    let pkt = [0u8; 64];
    let flows = [(id, 0)];
    g.write_batch(&[Incoming {
        bytes: &pkt,
        ts_ns: 0,
        wirelen: 64,
        flows: &flows,
    }]);
}

/// Sleeps in `wait_for` until a packet is there, and takes it.
fn bounce_recv(r: &mut FlowReader) -> Result<(), String> {
    let have = r
        .wait_for(1, Duration::from_secs(5))
        .map_err(|e| e.to_string())?;
    match r.getnext().map_err(|e| e.to_string())? {
        Some(_) => Ok(()),
        None => Err(format!("no packet after a wake-up ({have} waiting)")),
    }
}

/// A slow-reader group with one flow and its reader.
fn bounce_flow() -> Result<(Group, FlowId, FlowReader), String> {
    let err = |e: netsift_ffpf::Error| e.to_string();
    let mut g = Group::new(Policy::SlowReader, 1 << 16).map_err(err)?;
    let (id, f) = g.add_flow(256).map_err(err)?;
    let r = FlowReader::from_fds(f.pbuf, f.ibuf, f.control, f.wake).map_err(err)?;
    Ok((g, id, r))
}

/// Half the round trip of a packet bounced between two threads, each asleep
/// in `wait_for` until the other's `write_batch` wakes it.
fn wake_row(cfg: &Table1Config) -> Result<Row, String> {
    let (mut g1, id1, mut r1) = bounce_flow()?;
    let (mut g2, id2, mut r2) = bounce_flow()?;
    let n = ops(cfg, 20_000);
    // `time` runs the closure once more to warm up.
    let total = n * (cfg.runs.max(1) as u64 + 1);
    let echo = std::thread::spawn(move || -> Result<(), String> {
        for _ in 0..total {
            bounce_recv(&mut r1)?;
            bounce_send(&mut g2, id2);
        }
        Ok(())
    });
    let mut failed = None;
    let ns = time(cfg.runs, n * 2, || {
        for _ in 0..n {
            if failed.is_some() {
                return;
            }
            bounce_send(&mut g1, id1);
            if let Err(e) = bounce_recv(&mut r2) {
                failed = Some(e);
            }
        }
    });
    echo.join().map_err(|_| "the echo thread panicked")??;
    if let Some(e) = failed {
        return Err(e);
    }
    Ok(Row {
        key: "wake",
        task:
            "waking a process: a reader asleep in wait_for woken by write_batch (half a round trip)",
        ffpf_cycles: Some(624),
        ns,
    })
}

/// All rows, in the order of the paper's table.
pub fn run(cfg: &Table1Config) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    filter_rows(cfg, &mut rows)?;
    buffer_rows(cfg, &mut rows)?;
    rows.push(wake_row(cfg)?);
    let order = [
        "filter_call",
        "filter_stage",
        "ibuf_index",
        "ibuf_index_in_batch",
        "pbuf_store",
        "pbuf_store_8_flows",
        "wake",
        "bpf_filter",
    ];
    rows.sort_by_key(|r| order.iter().position(|k| *k == r.key));
    Ok(rows)
}

/// The clock the kernel reports for the first CPU, MHz (`None` if unknown).
pub fn cpu_mhz() -> Option<f64> {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()?
        .lines()
        .find(|l| l.starts_with("cpu MHz"))?
        .split(':')
        .nth(1)?
        .trim()
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_timed() {
        let rows = run(&Table1Config {
            runs: 1,
            scale: 0.001,
        })
        .unwrap();
        assert_eq!(rows.len(), 8);
        for r in &rows {
            assert!(r.ns.median > 0.0 || r.key == "ibuf_index_in_batch", "{r:?}");
        }
    }
}
