//! `netsift -i IFACE`: a live capture, run by `netsift_session`, and the
//! interface listings of `-D` and `-L`. This module only turns the flags into a
//! session, opens the output, serves `--control`, and prints what the session
//! reports; SIGINT, SIGTERM and SIGHUP end the capture between blocks, so the
//! output is flushed whole and the statistics are printed as tcpdump prints
//! them.

use crate::args::Args;
use crate::control::Control;
use crate::output::Sink;
use anyhow::{anyhow, Context, Result};
use netsift_session::{Capture, ErrorKind};

/// The interfaces as `-D` lists them, in tcpdump's order (libpcap's
/// `pcap_findalldevs`): `any` after the running ones, before the first
/// loopback or not-running one. Each is its name and its line.
fn listed() -> Result<Vec<(String, String)>> {
    let list = netsift_capture::interfaces().context("listing the interfaces")?;
    let any = || {
        let text = "any (Pseudo-device that captures on all interfaces) [Up, Running]";
        (netsift_capture::ANY.to_string(), text.to_string())
    };
    let mut out = Vec::new();
    for i in &list {
        if out.iter().all(|(n, _)| n != netsift_capture::ANY) && (i.loopback || !i.running) {
            out.push(any());
        }
        let note = match netsift_capture::linktype_of(&i.name) {
            Ok(_) => "",
            Err(_) => " (link type not supported by netsift yet)",
        };
        out.push((i.name.clone(), format!("{} {}{note}", i.name, i.flags())));
    }
    if out.iter().all(|(n, _)| n != netsift_capture::ANY) {
        out.push(any());
    }
    Ok(out)
}

/// `-D`: the interfaces, numbered, as tcpdump lists them.
pub(crate) fn interface_list() -> Result<String> {
    Ok(listed()?
        .iter()
        .enumerate()
        .map(|(n, (_, line))| format!("{}.{line}\n", n + 1))
        .collect())
}

/// The interface tcpdump captures on without `-i`: the first `-D` lists (a
/// running interface that is not a loopback, else `any`).
pub(crate) fn default_interface() -> Result<String> {
    Ok(listed()?.swap_remove(0).0)
}

/// `-L -i IFACE`: the data link types, as tcpdump prints them.
pub(crate) fn link_type_list(iface: &str) -> Result<String> {
    let lt = netsift_capture::linktype_of(iface)?;
    Ok(format!(
        "Data link types for {iface} (use option -y to set):\n  {}\n",
        lt.with_description()
    ))
}

/// A session's error as the command line says it: placement errors name the
/// flag that asked for it.
pub(crate) fn said(e: netsift_session::Error, args: &Args) -> anyhow::Error {
    match e.kind() {
        ErrorKind::Placement | ErrorKind::Unsupported if crate::config::xdp(args) => {
            anyhow!("--place xdp: {e}")
        }
        ErrorKind::Placement => anyhow!("--place kernel: {e}"),
        _ => anyhow!("{e}"),
    }
}

/// Captures from `iface` until `-c`, or a signal.
pub(crate) fn capture(args: &Args, iface: &str, expr: &str) -> Result<()> {
    crate::tcpdump_flags::live(args, iface)?;
    let cfg = crate::config::live(args, iface, expr)?;
    let events = crate::stats::events(crate::config::says_where(args), iface);
    let capture = Capture::open(&cfg, events).map_err(|e| said(e, args))?;
    let (lt, snaplen, workers) = (capture.linktype(), capture.snaplen(), capture.workers());
    // With --control, the socket lives as long as the capture (and goes with it).
    let _control = match (&args.control, capture.clauses()) {
        (Some(path), Some(clauses)) => Some(Control::start(path, clauses)?),
        _ => None,
    };
    // The capture is open: as tcpdump, become -Z's user before creating output.
    crate::privileges::drop(args)?;
    let mut sinks = Vec::new();
    match (&args.write, args.worker_files) {
        (Some(path), true) => {
            for i in 0..workers {
                let mut a = args.clone();
                a.write = Some(format!("{}.{i}", path.display()).into());
                sinks.push(Sink::live(&a, lt, snaplen)?);
            }
        }
        (None, true) => anyhow::bail!("--worker-files needs -w FILE"),
        _ => sinks.push(Sink::live(args, lt, snaplen)?),
    }
    crate::privileges::outputs_open(crate::output::rotating(args));
    let many = if workers > 1 {
        format!(", {workers} workers")
    } else {
        String::new()
    };
    // Before "listening on": whoever waits for that line may interrupt at once.
    let stop = crate::signals::stop_flag()?;
    if args.verbose == 0 && args.write.is_none() && !args.count_only {
        // tcpdump's hint when it prints lines without -v.
        eprintln!("netsift: verbose output suppressed, use -v[v]... for full protocol decode");
    }
    eprintln!(
        "listening on {iface}, link-type {}, snapshot length {snaplen} bytes{many}",
        lt.with_description()
    );
    let (report, result) = capture.run(&mut sinks, &stop);
    let finished = sinks.iter_mut().try_for_each(Sink::finish);
    // What the files hold, not what the rings passed after `-G`/`-W` ended them.
    let captured = sinks.iter().map(Sink::taken).sum();
    crate::stats::print_report(&report, captured);
    result.map_err(|e| said(e, args))?;
    finished
}
