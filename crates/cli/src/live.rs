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

/// `-D`: the interfaces, numbered, with `any` after the running ones, as tcpdump
/// lists them.
pub(crate) fn interface_list() -> Result<String> {
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
        let note = match netsift_capture::linktype_of(&i.name) {
            Ok(_) => "",
            Err(_) => " (link type not supported by netsift yet)",
        };
        out.push_str(&format!("{n}.{} {}{note}\n", i.name, i.flags()));
    }
    Ok(out)
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
    let cfg = crate::config::live(args, iface, expr)?;
    let events = crate::stats::events(crate::config::says_where(args), iface);
    let capture = Capture::open(&cfg, events).map_err(|e| said(e, args))?;
    let (lt, snaplen, workers) = (capture.linktype(), capture.snaplen(), capture.workers());
    // With --control, the socket lives as long as the capture (and goes with it).
    let _control = match (&args.control, capture.clauses()) {
        (Some(path), Some(clauses)) => Some(Control::start(path, clauses)?),
        _ => None,
    };
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
    let many = if workers > 1 {
        format!(", {workers} workers")
    } else {
        String::new()
    };
    eprintln!(
        "listening on {iface}, link-type {}, snapshot length {snaplen} bytes{many}",
        lt.with_description()
    );
    let stop = crate::signals::stop_flag()?;
    let (report, result) = capture.run(&mut sinks, &stop);
    let finished = sinks.iter_mut().try_for_each(Sink::finish);
    // What the files hold, not what the rings passed after `-G`/`-W` ended them.
    let captured = sinks.iter().map(Sink::taken).sum();
    crate::stats::print_report(&report, captured);
    result.map_err(|e| said(e, args))?;
    finished
}
