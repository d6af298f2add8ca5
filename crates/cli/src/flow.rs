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

/// The daemon's socket when neither `--socket` nor `NETSIFT_SOCKET` names one.
pub(crate) const DEFAULT_SOCKET: &str = "/run/netsift.sock";

/// `--socket`, else `NETSIFT_SOCKET`, else the default.
fn socket(args: &Args) -> PathBuf {
    args.socket
        .clone()
        .or_else(|| std::env::var_os("NETSIFT_SOCKET").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_SOCKET))
}

/// How often the daemon is asked whether it is still there while no packet
/// comes.
const LIVENESS: Duration = Duration::from_secs(1);

/// `netsift flow [-D] -i SOURCE [flags] [EXPRESSION]`.
pub(crate) fn run(args: &Args) -> Result<()> {
    let path = socket(args);
    let client = Client::connect(&path)
        .with_context(|| format!("connecting to netsiftd at {}", path.display()))?;
    if args.list_interfaces {
        let mut out = String::new();
        for (i, s) in client.sources()?.iter().enumerate() {
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
    let spec = FlowSpec {
        source: source.clone(),
        filter: args.expression_text()?,
        snaplen: args.snaplen,
        ibuf_entries: None,
    };
    let mut flow = client.create(&spec)?;
    flow.instantiate()?;
    flow.activate()?;
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
    flow.close()?;
    Ok(())
}

/// Reads the flow into `sink` until `-c`, a signal, or the daemon goes.
fn read(args: &Args, flow: &mut Flow, sink: &mut Sink) -> Result<()> {
    let stop = crate::signals::stop_flag()?;
    let limit = args.count.unwrap_or(u64::MAX);
    let snaplen = flow.snaplen() as usize;
    let mut taken = 0u64;
    let mut asked = Instant::now();
    while taken < limit && !stop.load(Ordering::Relaxed) {
        let reader = flow.reader()?;
        let waiting = reader.wait_for(1, Duration::from_millis(100))?;
        if waiting == 0 {
            if asked.elapsed() >= LIVENESS {
                asked = Instant::now();
                flow.stats().context("netsiftd went away")?;
            }
            continue;
        }
        while taken < limit {
            let p = match reader.getnext() {
                Ok(Some(p)) => p,
                Ok(None) => break,
                // A lying entry is skipped and counted; the next one is read.
                Err(e) if e.kind() == ErrorKind::Corrupt => continue,
                Err(e) => return Err(e.into()),
            };
            let data = &p.data[..p.data.len().min(snaplen)];
            let (sec, nsec) = (
                (p.ts_ns / 1_000_000_000) as u32,
                (p.ts_ns % 1_000_000_000) as u32,
            );
            sink.packet(&netsift_session::record(sec, nsec, data, p.wirelen))?;
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
