//! `netsift -i IFACE`: the packet loop over a live capture ring.
//!
//! The kernel hands over blocks of packets; each block's packets are filtered where
//! they lie, [`BATCH`] at a time, by the batch engine, and only the accepted ones
//! are written or printed. SIGINT, SIGTERM and SIGHUP end the capture between
//! blocks, so the output is flushed whole and the statistics are printed as
//! tcpdump prints them.

use crate::filter::BATCH;
use crate::output::Sink;
use anyhow::{bail, Context, Result};
use netsift_capture::{Config, Direction, Ring};
use netsift_engine::{BatchScratch, Compiled};
use netsift_pcapio::{Packet, RawTs, Record};
use netsift_wire::LinkType;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The ring's configuration from the command line.
fn config(args: &crate::args::Args, iface: &str) -> Config {
    let mut cfg = Config::new(iface);
    if let Some(s) = args.snaplen {
        cfg.snaplen = s;
    }
    if let Some(k) = args.buffer_kib {
        cfg.buffer_size = k as usize * 1024;
    }
    cfg.promiscuous = !args.no_promiscuous;
    cfg.direction = match args.direction.as_deref() {
        Some("in") => Direction::In,
        Some("out") => Direction::Out,
        _ => Direction::InOut,
    };
    if args.immediate {
        cfg.block_timeout = Duration::from_millis(1);
    }
    cfg
}

/// The link type of an interface's ARPHRD hardware type, where netsift filters it.
fn linktype(hatype: u16, iface: &str) -> Result<LinkType> {
    match hatype {
        // Ethernet, and loopback (which carries an Ethernet header).
        1 | 772 => Ok(LinkType::EN10MB),
        t => bail!("{iface}: hardware type {t} is not supported for live capture yet (Ethernet and loopback are)"),
    }
}

/// Captures from `iface` until `-c`, or a signal.
pub fn capture(args: &crate::args::Args, iface: &str, expr: &str) -> Result<()> {
    let cfg = config(args, iface);
    let mut ring = Ring::open(&cfg).map_err(|e| anyhow::anyhow!("{e}"))?;
    let lt = linktype(ring.hardware_type(), iface)?;
    let filter = if expr.trim().is_empty() {
        None
    } else {
        let set = crate::compile(
            expr,
            netsift_pcapc::Target {
                linktype: lt,
                savefile_swapped: None,
            },
        )?;
        Some(Compiled::new(set))
    };
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register(sig, stop.clone()).context("installing a signal handler")?;
    }
    let mut sink = Sink::live(args, lt, cfg.snaplen)?;
    eprintln!(
        "listening on {iface}, link-type {lt}, snapshot length {} bytes",
        cfg.snaplen
    );
    let mut scratch = BatchScratch::new();
    let mut accepted = 0u64;
    let limit = args.count.unwrap_or(u64::MAX);
    let result = (|| -> Result<()> {
        while !stop.load(Ordering::Relaxed) && accepted < limit {
            let Some(block) = ring
                .next_block(Duration::from_millis(100))
                .map_err(|e| anyhow::anyhow!("{e}"))?
            else {
                continue;
            };
            let frames: Vec<_> = block.frames().collect();
            for chunk in frames.chunks(BATCH) {
                let keep = match &filter {
                    None => u32::MAX,
                    Some(f) => {
                        let mut data: [&[u8]; BATCH] = [&[]; BATCH];
                        let mut wire = [0u32; BATCH];
                        for (i, fr) in chunk.iter().enumerate() {
                            data[i] = fr.data;
                            wire[i] = fr.wire_len;
                        }
                        f.filter_batch(&mut scratch, &data[..chunk.len()], &wire[..chunk.len()])
                    }
                };
                for (i, fr) in chunk.iter().enumerate() {
                    if keep >> i & 1 == 0 || accepted >= limit {
                        continue;
                    }
                    accepted += 1;
                    let rec = Record {
                        packet: Packet {
                            ts_sec: fr.sec as u64,
                            ts_nsec: fr.nsec,
                            caplen: fr.data.len() as u32,
                            orig_len: fr.wire_len,
                            data: fr.data,
                            interface: 0,
                        },
                        raw_ts: RawTs::Pcap {
                            sec: fr.sec,
                            frac: fr.nsec,
                            nano: true,
                        },
                    };
                    sink.packet(&rec)?;
                }
            }
        }
        Ok(())
    })();
    sink.finish()?;
    let stats = ring.stats().map_err(|e| anyhow::anyhow!("{e}"))?;
    eprintln!("{accepted} packets captured");
    eprintln!("{} packets received by filter", stats.received);
    eprintln!("{} packets dropped by kernel", stats.dropped);
    result
}
