//! `netsift flow` (the seeds' `ffpf-flow`): a flow of `netsiftd`, printed or
//! written as `netsift` prints and writes a live capture. Everything about the
//! daemon (the protocol, the buffers, reading) is the client library's
//! (`netsift_ffpf::client`); this module turns flags into a flow, its packets
//! into the output, and its accounting into tcpdump's closing lines.

use crate::args::Args;
use crate::output::Sink;
use anyhow::{bail, Context, Result};
use netsift_ffpf::{Client, ErrorKind, Flow, FlowSpec};
use netsift_wire::LinkType;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The client library's error as one message: its text already says the
/// OS's reason, which a chain would repeat.
fn said(e: netsift_ffpf::Error) -> anyhow::Error {
    anyhow::anyhow!("{e}")
}

/// `--socket`, else `NETSIFT_SOCKET`, else the default.
fn socket(args: &Args) -> PathBuf {
    netsift_ffpf::client::socket_path(args.socket.as_deref())
}

/// How often the daemon is asked whether it is still there while no packet
/// comes.
const LIVENESS: Duration = Duration::from_secs(1);

/// The longest sleep between looks at the stop flag.
const WAIT: Duration = Duration::from_millis(100);

/// `netsift flow [-D] -i SOURCE [flags] [EXPRESSION]`.
pub(crate) fn run(args: &Args) -> Result<()> {
    let path = socket(args);
    let client = Client::connect(&path)
        .map_err(said)
        .with_context(|| format!("netsiftd at {}", path.display()))?;
    if args.daemon_stats {
        print!("{}", daemon_stats(&client.daemon_stats().map_err(said)?));
        return Ok(());
    }
    if args.list_interfaces {
        let mut out = String::new();
        for (i, s) in client.sources().map_err(said)?.iter().enumerate() {
            let lt = LinkType(s.linktype);
            out.push_str(&format!(
                "{}.{} ({}, {})\n",
                i + 1,
                s.name,
                s.kind,
                lt.with_description()
            ));
        }
        print!("{out}");
        return Ok(());
    }
    let Some(source) = &args.interface else {
        bail!("netsift flow needs a source: -i SOURCE (netsift flow -D lists them)");
    };
    let filter = args.expression_text()?;
    if args.graph.is_some() && !filter.trim().is_empty() {
        bail!("--graph takes no expression: the graph's pcap elements are its filters");
    }
    if args.instance.is_some() && !filter.trim().is_empty() {
        bail!("--instance takes no expression: the instance is the filter");
    }
    let spec = FlowSpec {
        source: source.clone(),
        filter,
        graph: args.graph.clone(),
        element: args.element,
        instance: args.instance,
        snaplen: args.snaplen,
        ibuf_entries: None,
        // `-Q`, as the daemon applies it (args checked the word already).
        direction: match args.direction.as_deref() {
            Some("in") => netsift_ffpf::proto::Direction::In,
            Some("out") => netsift_ffpf::proto::Direction::Out,
            _ => netsift_ffpf::proto::Direction::InOut,
        },
    };
    let mut flow = client.create(&spec).map_err(said)?;
    flow.instantiate().map_err(said)?;
    if args.graph.is_some() {
        // Placement is decided for active flows: `-d` shows where each
        // element went, so the flow is active (briefly) when it asks.
        if args.dump > 0 {
            flow.activate().map_err(said)?;
        }
        let view = client.graph(source).map_err(said)?;
        crate::graph::write(args, &view)?;
        if args.dump > 0 {
            print!("{}", crate::graph::placement(&view));
            return flow.close().map_err(said);
        }
        flow.activate().map_err(said)?;
    } else {
        flow.activate().map_err(said)?;
    }
    let lt = LinkType(flow.linktype());
    let mut sink = Sink::live(args, lt, flow.snaplen())?;
    eprintln!(
        "listening on {source} (netsiftd flow {}), link-type {}, snapshot length {} bytes",
        flow.number(),
        lt.with_description(),
        flow.snaplen()
    );
    let read = read(args, &mut flow, &mut sink);
    let finished = sink.finish();
    print_stats(&mut flow);
    read?;
    finished?;
    flow.close().map_err(said)?;
    Ok(())
}

/// The daemon's accounting as lines: one for the daemon, one per source.
fn daemon_stats(d: &netsift_ffpf::proto::DaemonStats) -> String {
    let mut out = format!(
        "netsiftd: {} connections, {} flows\n",
        d.connections, d.flows
    );
    for s in &d.sources {
        out.push_str(&format!(
            "{} ({}{}): {} packets in {} batches, {} filter runs, {} distinct filters, \
             {} kernel clauses, {} groups, {} flows, {} packets stored\n",
            s.name,
            s.kind,
            if s.running { ", running" } else { "" },
            s.packets,
            s.batches,
            s.filter_runs,
            s.distinct_filters,
            s.kernel_clauses,
            s.groups,
            s.flows,
            s.stored
        ));
    }
    out
}

/// Reads the flow into `sink` until `-c`, a signal, or the daemon goes.
fn read(args: &Args, flow: &mut Flow, sink: &mut Sink) -> Result<()> {
    let stop = crate::signals::stop_flag()?;
    let limit = args.count.unwrap_or(u64::MAX);
    let mut taken = 0u64;
    let mut asked = Instant::now();
    let mut told = false;
    while taken < limit && !stop.load(Ordering::Relaxed) {
        let reader = flow.reader().map_err(said)?;
        let slept = Instant::now();
        let waiting = reader.wait_for(1, WAIT).map_err(said)?;
        if !told && reader.is_detached() {
            // Said when seen, not only in the closing lines: from here on
            // packets this reader falls behind on are lost to overwriting.
            told = true;
            eprintln!(
                "netsift: netsiftd detached this flow for stalling its group; \
                 it now reads under fast-reader preference (what it falls behind on is overwritten)"
            );
        }
        if waiting == 0 {
            // Back early with nothing: the daemon closed the wake channel
            // (it is gone); ask at once rather than spin until LIVENESS.
            if asked.elapsed() >= LIVENESS || slept.elapsed() < WAIT / 2 {
                asked = Instant::now();
                flow.stats().map_err(said).context("netsiftd went away")?;
            }
            continue;
        }
        while taken < limit {
            let p = match reader.getnext() {
                Ok(Some(p)) => p,
                Ok(None) => break,
                // A lying entry is skipped and counted; the next one is read.
                Err(e) if e.kind() == ErrorKind::Corrupt => continue,
                Err(e) => return Err(said(e)),
            };
            let (sec, nsec) = (
                (p.ts_ns / 1_000_000_000) as u32,
                (p.ts_ns % 1_000_000_000) as u32,
            );
            sink.packet(&netsift_session::record(sec, nsec, p.data, p.wirelen))?;
            taken += 1;
        }
    }
    Ok(())
}

/// tcpdump's closing lines, from the flow's accounting: captured (delivered),
/// received by filter (accepted), dropped, and the drops by reason.
fn print_stats(flow: &mut Flow) {
    let Ok(reader) = flow.reader() else { return };
    reader.release();
    let s = reader.stats();
    let w = s.writer;
    let dropped = w.pbuf_full + w.ibuf_full + s.overwritten + s.invalid;
    eprintln!("{} packets captured", s.delivered);
    eprintln!("{} packets received by filter", w.accepted);
    eprintln!("{dropped} packets dropped by netsiftd");
    // Accepted after the last read (by -c, or a signal) and never read.
    let unread = w.accepted.saturating_sub(s.delivered + dropped);
    eprintln!(
        "drops: {} PBuf full, {} IBuf full, {} overwritten, {} invalid; {unread} left unread{}",
        w.pbuf_full,
        w.ibuf_full,
        s.overwritten,
        s.invalid,
        if s.detached {
            " (detached for stalling)"
        } else {
            ""
        }
    );
}
