//! `netsift -i IFACE --place xdp`: capture at the XDP hook (FFPF's NIC level on
//! today's Linux, issue 16).
//!
//! The filter is generated as an XDP program (`netsift_kernel::codegen`,
//! `Hook::Xdp`) and linked to the interface. It runs on each received frame before
//! the kernel builds a socket buffer, copies what it accepts into a BPF ring
//! buffer, and passes every frame on to the host stack. This loop reads the ring
//! buffer and writes or prints the records as the ring loop does.
//!
//! What differs from the socket level: only received frames are seen (`-Q in`),
//! before GRO merges them; a frame is copied up to `XDP_CAP_MAX` bytes at most;
//! and time stamps are the program's `bpf_ktime_get_ns`, put on the wall clock here.

use crate::filter::print_stats;
use crate::output::Sink;
use anyhow::{bail, Result};
use netsift_engine::{Compiled, Scratch};
use netsift_kernel::codegen::{generate, Env, XDP_CAP_MAX, XDP_HDR, XDP_STATS};
use netsift_kernel::ringbuf::RingBuf;
use netsift_kernel::sys::{Map, MapKind, ProgKind, Program};
use netsift_pcapio::{Packet, RawTs, Record};
use netsift_wire::LinkType;
use std::sync::atomic::Ordering;

/// The ring buffer's size without `-B`: 4 MiB.
const DEFAULT_RING: usize = 4 << 20;

/// What `--place xdp` cannot do (yet), as an error that says so.
fn refused(args: &crate::args::Args, iface: &str) -> Option<String> {
    if iface == netsift_capture::ANY {
        return Some("the XDP hook belongs to one interface, not `any`".into());
    }
    if args.follow.is_some() || args.control.is_some() {
        return Some("--follow and --control edit the filter in user space".into());
    }
    if args.workers.is_some() {
        return Some("--workers splits a capture ring, and the XDP level has none".into());
    }
    if matches!(args.direction.as_deref(), Some("out" | "inout")) {
        return Some("the XDP hook sees received frames only (-Q in)".into());
    }
    None
}

/// Captures from `iface` at its XDP hook until `-c`, or a signal.
pub fn capture(args: &crate::args::Args, iface: &str, expr: &str) -> Result<()> {
    if let Some(why) = refused(args, iface) {
        bail!("--place xdp: {why}");
    }
    let lt = crate::live::linktype_of(iface)?;
    if lt != LinkType::EN10MB {
        bail!("--place xdp: the XDP program reads Ethernet frames, not {lt}");
    }
    let ifindex = netsift_capture::ifindex(iface).map_err(|e| anyhow::anyhow!("{e}"))? as u32;
    let snaplen = args.snaplen.unwrap_or(262_144);
    // Every frame at the hook was received on this interface: `inbound` and
    // `ifindex` are constants of the program.
    let set = crate::compile(
        expr,
        netsift_pcapc::Target {
            linktype: lt,
            savefile_swapped: None,
            meta: Some(netsift_pcapc::Meta {
                outgoing: false,
                ifindex,
            }),
        },
    )?;
    let size = args
        .buffer_kib
        .map_or(DEFAULT_RING, |k| k as usize * 1024)
        .next_power_of_two()
        .clamp(1 << 16, 1 << 30);
    let k = |e: netsift_kernel::sys::Error| anyhow::anyhow!("--place xdp: {e}");
    let mut ring = RingBuf::create(size as u32).map_err(k)?;
    let stats = Map::create(MapKind::PerCpuArray, 4, 8, XDP_STATS).map_err(k)?;
    let g = generate(&set, Env::xdp(ring.map().fd(), stats.fd(), snaplen))
        .map_err(|e| anyhow::anyhow!("--place xdp: {e}"))?;
    let prog = Program::load(ProgKind::Xdp, "netsift", &g.insns).map_err(k)?;
    // The driver's hook where the interface has one, else the generic one.
    let _link = prog.link_xdp(ifindex, 0).map_err(k)?;
    // A program that is not decisive accepts some frames unsure: user space
    // decides those.
    let recheck = (!g.decisive).then(|| Compiled::new(set));
    let mut sink = Sink::live(args, lt, snaplen)?;
    eprintln!(
        "capturing at the XDP hook of {iface} (eBPF, {} instructions{}): received frames only, up to {} bytes each",
        g.insns.len(),
        if g.decisive { "" } else { "; user space decides what it passes" },
        snaplen.min(XDP_CAP_MAX)
    );
    eprintln!(
        "listening on {iface}, link-type {}, snapshot length {snaplen} bytes",
        lt.with_description()
    );
    // The program stamps CLOCK_MONOTONIC; a record's wall-clock time adds the
    // offset between the clocks now.
    let offset = netsift_kernel::ringbuf::monotonic_to_realtime_ns();
    let stop = crate::signals::stop_flag()?;
    let limit = args.count.unwrap_or(u64::MAX);
    let mut scratch = Scratch::new();
    let mut captured = 0u64;
    let result = (|| -> Result<()> {
        while !stop.load(Ordering::Relaxed) && captured < limit {
            if !ring.wait(100).map_err(k)? {
                continue;
            }
            let mut failed = None;
            ring.drain(|rec| {
                if failed.is_some() || captured >= limit || rec.len() < XDP_HDR as usize {
                    return;
                }
                let word = |at: usize| u32::from_ne_bytes(rec[at..at + 4].try_into().unwrap());
                let (cap, wire) = (word(0) as usize, word(4));
                let mono = u64::from_ne_bytes(rec[8..16].try_into().unwrap());
                let Some(data) = rec.get(XDP_HDR as usize..XDP_HDR as usize + cap) else {
                    return;
                };
                if let Some(f) = &recheck {
                    if !f.matches(&mut scratch, data, wire) {
                        return;
                    }
                }
                let ns = (mono as i128 + offset).max(0) as u64;
                let (sec, nsec) = ((ns / 1_000_000_000) as u32, (ns % 1_000_000_000) as u32);
                let data = &data[..cap.min(snaplen as usize)];
                let rec = Record {
                    packet: Packet {
                        ts_sec: u64::from(sec),
                        ts_nsec: nsec,
                        caplen: data.len() as u32,
                        orig_len: wire,
                        data,
                        interface: 0,
                    },
                    raw_ts: RawTs::Pcap {
                        sec,
                        frac: nsec,
                        nano: true,
                    },
                };
                captured += 1;
                if let Err(e) = sink.packet(&rec) {
                    failed = Some(e);
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
        }
        Ok(())
    })();
    sink.finish()?;
    let count = |w: u32| stats.sum_percpu_u64(w).map_err(k);
    let (seen, accepted, full) = (count(0)?, count(1)?, count(2)?);
    print_stats(
        captured,
        seen,
        full,
        &format!("xdp: {seen} frames seen, {accepted} accepted by the program, {full} lost to a full ring buffer"),
    );
    result
}

/// `-d --place xdp`: the XDP program made from `set` (with maps made for it).
pub fn listing(set: &netsift_isa::PassSet, lt: LinkType, snaplen: u32) -> Result<String> {
    if lt != LinkType::EN10MB {
        bail!("--place xdp: the XDP program reads Ethernet frames, not {lt}");
    }
    let k = |e: netsift_kernel::sys::Error| anyhow::anyhow!("--place xdp: {e}");
    let ring = RingBuf::create(1 << 16).map_err(k)?;
    let stats = Map::create(MapKind::PerCpuArray, 4, 8, XDP_STATS).map_err(k)?;
    let g = generate(set, Env::xdp(ring.map().fd(), stats.fd(), snaplen))
        .map_err(|e| anyhow::anyhow!("--place xdp: {e}"))?;
    let mut out = format!(
        "; XDP program, {} instructions; {}\n",
        g.insns.len(),
        if g.decisive {
            "decisive: it copies exactly what the filter accepts"
        } else {
            "user space decides what it copies unsure"
        }
    );
    out.push_str(&netsift_kernel::asm::listing(&g.insns));
    Ok(out)
}
