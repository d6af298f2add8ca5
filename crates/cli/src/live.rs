//! `netsift -i IFACE`: the packet loop over a live capture ring.
//!
//! The kernel hands over blocks of packets; each block's packets are filtered where
//! they lie, [`BATCH`] at a time, by the batch engine, and only the accepted ones
//! are written or printed. With `-w FILE` (no rotation) a block's accepted
//! packets are laid out as pcap records in one buffer and written with one call
//! per block ([`crate::output::Records`]). SIGINT, SIGTERM and SIGHUP end the
//! capture between blocks, so the output is flushed whole and the statistics are
//! printed as tcpdump prints them.

use crate::control::{Clauses, Control};
use crate::filter::{directed_sets, frame_ns, print_stats, Engine, RingFilter, BATCH};
use crate::following::Following;
use crate::output::Sink;
use crate::workers::Shared;
use anyhow::{bail, Context, Result};
use netsift_capture::{Config, Direction, Fanout, Frame, Ring};
use netsift_engine::{BatchScratch, Scratch};
use netsift_pcapc::{Meta, Target};
use netsift_pcapio::{Packet, RawTs, Record};
use netsift_wire::LinkType;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
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

/// `-D`: the interfaces, numbered, with `any` after the running ones, as tcpdump
/// lists them.
pub fn interface_list() -> Result<String> {
    let list = netsift_capture::interfaces().context("listing the interfaces")?;
    let mut out = String::new();
    let mut n = 0;
    let mut any_done = false;
    for i in &list {
        // `any` goes before the first loopback or not-running interface.
        if !any_done && (i.loopback || !i.running) {
            n += 1;
            out.push_str(&format!(
                "{n}.any (Pseudo-device that captures on all interfaces) [Up, Running]\n"
            ));
            any_done = true;
        }
        n += 1;
        let note = match linktype_of(&i.name) {
            Ok(_) => "",
            Err(_) => " (link type not supported by netsift yet)",
        };
        out.push_str(&format!("{n}.{} {}{note}\n", i.name, i.flags()));
    }
    Ok(out)
}

/// The link type netsift captures `iface` with, from its ARPHRD type in sysfs
/// (`any` gives LINUX_SLL2).
pub fn linktype_of(iface: &str) -> Result<LinkType> {
    if iface == netsift_capture::ANY {
        return Ok(LinkType::LINUX_SLL2);
    }
    let t = std::fs::read_to_string(format!("/sys/class/net/{iface}/type"))
        .with_context(|| format!("{iface}: no such device exists"))?;
    let t: u16 = t
        .trim()
        .parse()
        .with_context(|| format!("{iface}: hardware type"))?;
    linktype(t, iface)
}

/// `-L -i IFACE`: the data link types, as tcpdump prints them.
pub fn link_type_list(iface: &str) -> Result<String> {
    if iface == netsift_capture::ANY {
        return Ok(format!(
            "Data link types for {iface} (use option -y to set):\n  LINUX_SLL2 (Linux cooked v2)\n"
        ));
    }
    let lt = linktype_of(iface)?;
    Ok(format!(
        "Data link types for {iface} (use option -y to set):\n  {}\n",
        lt.with_description()
    ))
}

/// Captures from `iface` until `-c`, or a signal.
pub fn capture(args: &crate::args::Args, iface: &str, expr: &str) -> Result<()> {
    let mut cfg = config(args, iface);
    let workers = args.workers.map_or(1, usize::from);
    if args.workers.is_some() {
        // One group per process: its id only has to differ from other processes'.
        // A follower needs a control connection and the flows it announces in one
        // worker, in order: those share an address pair, not a 5-tuple.
        let how = if args.follow.is_some() {
            Fanout::HostPair
        } else {
            Fanout::FlowHash
        };
        cfg.fanout = Some(((std::process::id() & 0xffff) as u16, how));
    }
    let mut ring = Ring::open(&cfg).map_err(|e| anyhow::anyhow!("{e}"))?;
    let lt = if ring.cooked() {
        LinkType::LINUX_SLL2
    } else {
        linktype(ring.hardware_type(), iface)?
    };
    // Every ring joins the fanout group before anything is said to be listening:
    // a ring that joins later misses the flows the kernel already spread. They are
    // all open before the filter is placed, so a kernel program goes under each.
    let mut others = Vec::new();
    for _ in 1..workers {
        others.push(Ring::open(&cfg).map_err(|e| anyhow::anyhow!("{e}"))?);
    }
    // The rings' sockets, duplicated: a kernel filter goes under them, and the
    // control thread may still edit it while a worker drops its ring.
    let socks = std::iter::once(&ring)
        .chain(&others)
        .map(|r| std::os::fd::AsFd::as_fd(r).try_clone_to_owned())
        .collect::<std::io::Result<Vec<_>>>()
        .context("duplicating a ring's socket")?;
    let target = Target {
        linktype: lt,
        savefile_swapped: None,
        meta: None,
    };
    // `inbound`, `outbound` and `ifindex` test what the socket says of each
    // packet: a static filter is compiled once for received and once for sent
    // packets, on this interface (the same program twice unless it tests them).
    let meta = |outgoing| Target {
        meta: Some(Meta {
            outgoing,
            ifindex: ring.ifindex() as u32,
        }),
        ..target
    };
    let (set, sent_set) = directed_sets(expr, meta(false), meta(true))?;
    // The follower compiles its base filter as for a dead handle, where these
    // primitives never match.
    if args.follow.is_some() && (set != sent_set || set != crate::compile(expr, target)?) {
        bail!(
            "the filter tests the direction of packets or the interface \
             (inbound/outbound/ifindex), which --follow does not read on {iface} yet; \
             -Q in|out picks a direction"
        );
    }
    // With --control, the socket lives as long as the capture (and goes with it).
    let mut _control = None;
    let mut engine: Engine<RingFilter> = if args.follow.is_some() {
        let (mut following, live) = Following::new(args, lt, expr)?;
        let room = following.capacity().max(1024) as u32;
        if let Some(k) = crate::place::follow(args, expr, lt, cfg.snaplen, room, &socks)? {
            following.set_kernel(k);
        }
        Engine::Follow(Box::new(following), live)
    } else if let Some(path) = &args.control {
        let kernel = crate::place::clauses(args, lt, cfg.snaplen, socks)?;
        let (mut clauses, live) = Clauses::on_interface(meta(false), meta(true), kernel);
        if !expr.trim().is_empty() {
            clauses.add(expr).map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        _control = Some(Control::start(path, clauses)?);
        Engine::Edited(live)
    } else if expr.trim().is_empty() {
        Engine::Static(None)
    } else {
        let f = if sent_set != set {
            let both = (&set, &sent_set);
            let decides = crate::place::place_directed(args, both, lt, cfg.snaplen, &socks)?;
            RingFilter::new(set, Some(sent_set), decides)
        } else {
            let decides = crate::place::place(args, Some(&set), lt, cfg.snaplen, &socks)?;
            RingFilter::new(set, None, decides)
        };
        Engine::Static(Some(Box::new(f)))
    };
    let stop = crate::signals::stop_flag()?;
    if args.workers.is_some() {
        let shared = match engine {
            Engine::Static(f) => Shared::Static(f.map(|b| Arc::new(*b))),
            Engine::Follow(following, live) => {
                Shared::Follow(live, Arc::new(Mutex::new(*following)))
            }
            Engine::Edited(live) => Shared::Edited(live),
        };
        let mut rings = vec![ring];
        rings.extend(others);
        return crate::workers::run(args, &cfg, lt, rings, shared, stop);
    }
    let mut sink = Sink::live(args, lt, cfg.snaplen)?;
    eprintln!(
        "listening on {iface}, link-type {}, snapshot length {} bytes",
        lt.with_description(),
        cfg.snaplen
    );
    let mut scratch = BatchScratch::new();
    let mut one = Scratch::new();
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
            // With `-w FILE`, the block's accepted packets are laid out as records
            // and written in one go.
            let mut records = sink.records();
            // The block's frames, BATCH at a time, each read once: the walk that
            // finds a frame hands it to the filter while its bytes are in cache.
            let mut frames = block.frames();
            let mut batch = [Frame::default(); BATCH];
            while accepted < limit {
                let n = frames.fill(&mut batch);
                if n == 0 {
                    break;
                }
                let chunk = &batch[..n];
                let keep = match &mut engine {
                    Engine::Static(None) => u32::MAX,
                    Engine::Static(Some(f)) => f.keep(&mut scratch, chunk),
                    Engine::Follow(following, live) => {
                        let room = limit - accepted;
                        crate::filter::follow_frames(live, &mut one, chunk, room, |fr| {
                            following.judge(fr.data, fr.wire_len, frame_ns(fr), "live packet")
                        })
                    }
                    Engine::Edited(live) => crate::filter::follow_frames(
                        live,
                        &mut one,
                        chunk,
                        limit - accepted,
                        |_| true,
                    ),
                };
                // The accepted frames, from the set bits: which frames a filter
                // accepts is unpredictable, and a branch per frame on it costs a
                // misprediction on about every other one.
                let mut keep = keep & (u32::MAX >> (32 - n));
                while keep != 0 && accepted < limit {
                    let fr = &chunk[keep.trailing_zeros() as usize];
                    keep &= keep - 1;
                    accepted += 1;
                    if let Some(r) = &mut records {
                        r.push(fr.sec, fr.nsec, fr.data, fr.wire_len);
                        continue;
                    }
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
            if let Some(r) = records {
                sink.write_records(r)?;
            }
        }
        Ok(())
    })();
    sink.finish()?;
    let stats = ring.stats().map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut more = crate::filter::ring_line(&stats, accepted);
    if let Engine::Follow(following, _) = &engine {
        more = format!("{more}\n{}", following.summary());
    }
    print_stats(accepted, stats.received, stats.dropped, &more);
    result
}
