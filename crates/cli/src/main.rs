//! `netsift`: a tcpdump-style command line over the netsift libraries.
//!
//! It parses flags, opens the capture, compiles the filter with `netsift-pcapc`,
//! runs it with `netsift-engine`, and prints or writes the accepted packets. It holds
//! no filtering logic of its own.

mod args;
mod output;

use anyhow::{bail, Context, Result};
use args::Args;
use clap::Parser;
use netsift_engine::live::Reader as LiveReader;
use netsift_engine::{Compiled, Scratch};
use netsift_follow::{Follower, Mode, Protocol, Timers};
use netsift_isa::PassSet;
use netsift_pcapc::Target;
use netsift_pcapio::{PcapWriter, Reader};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line first (what went wrong), then any detail (the caret under a
            // filter error), as tcpdump users expect from `tcpdump: ...`.
            let text = format!("{e:#}");
            let mut lines = text.lines();
            if let Some(first) = lines.next() {
                eprintln!("netsift: {first}");
            }
            for l in lines {
                eprintln!("{l}");
            }
            ExitCode::FAILURE
        }
    }
}

fn compile(expr: &str, target: Target) -> Result<PassSet> {
    netsift_pcapc::compile_for(expr, target)
        .map_err(|e| anyhow::anyhow!("bad filter expression: {e}"))
}

/// Prints `-d` output; a closed pipe (`netsift -d ... | head`) is not an error.
fn print_listing(text: &str) -> Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e).context("writing to stdout"),
        _ => Ok(()),
    }
}

fn run(args: &Args) -> Result<()> {
    let expr = args.expression.join(" ");
    let Some(input) = &args.read else {
        if args.dump {
            let lt = args.linktype()?;
            let set = compile(
                &expr,
                Target {
                    linktype: lt,
                    savefile_swapped: None,
                },
            )?;
            return print_listing(&set.to_string());
        }
        bail!("no capture file given: live capture is not supported yet; use -r FILE");
    };
    let mut reader = netsift_pcapio::open(input).with_context(|| format!("{}", input.display()))?;
    let linktype = reader.linktype();
    eprintln!(
        "reading from file {}, link-type {}, snapshot length {}",
        input.display(),
        linktype,
        reader.snaplen()
    );
    let target = Target {
        linktype,
        savefile_swapped: Some(reader.is_big_endian()),
    };
    let filter = if expr.trim().is_empty() {
        None
    } else {
        if !linktype.is_supported() {
            bail!("link type {linktype} is not supported by the filter compiler (supported: EN10MB, RAW, IPV4, IPV6, NULL, LOOP, LINUX_SLL, LINUX_SLL2)");
        }
        Some(compile(&expr, target)?)
    };
    if let Some(protocols) = &args.follow {
        let protocols = Protocol::parse_list(protocols).map_err(|e| anyhow::anyhow!(e))?;
        if !linktype.is_supported() {
            bail!("link type {linktype} is not supported by the filter compiler");
        }
        let mode = if args.follow_set {
            Mode::Set
        } else {
            Mode::Passes
        };
        let base = (!expr.trim().is_empty()).then_some(expr.as_str());
        let (follower, live) = Follower::new(linktype, &protocols, base, mode, Timers::default())
            .map_err(|e| anyhow::anyhow!("bad filter expression: {e}"))?;
        if args.dump {
            return print_listing(&follower.tracker().listing());
        }
        return filter_file(
            args,
            input,
            &mut reader,
            Engine::Follow(Box::new(follower), live),
        );
    }
    if args.dump {
        return match &filter {
            Some(set) => print_listing(&set.to_string()),
            None => print_listing("(no filter: every packet is accepted)\n"),
        };
    }
    filter_file(
        args,
        input,
        &mut reader,
        Engine::Static(filter.map(Compiled::new)),
    )
}

/// What decides which packets are kept.
enum Engine {
    /// A compiled expression, decoded for speed (`None`: no filter).
    Static(Option<Compiled>),
    /// A live set that a protocol follower edits as packets are read.
    Follow(Box<Follower>, LiveReader),
}

fn filter_file<R: io::Read>(
    args: &Args,
    input: &std::path::Path,
    reader: &mut Reader<R>,
    mut engine: Engine,
) -> Result<()> {
    let mut sink: Box<dyn output::Sink> = match &args.write {
        Some(path) => {
            let hdr = reader.tcpdump_dump_header(false).with_context(|| {
                format!(
                    "link type {} cannot be written to a pcap file",
                    reader.linktype()
                )
            })?;
            let file: Box<dyn Write> = if path.as_os_str() == "-" {
                Box::new(io::stdout().lock())
            } else {
                Box::new(File::create(path).with_context(|| format!("{}", path.display()))?)
            };
            let w = PcapWriter::new(
                BufWriter::new(file),
                hdr.linktype,
                hdr.snaplen,
                hdr.precision,
            )
            .with_context(|| format!("writing {}", path.display()))?;
            Box::new(output::Writer(w))
        }
        None => Box::new(output::Printer::new(reader.linktype(), args.quiet)),
    };
    let size = std::fs::metadata(input).map(|m| m.len()).unwrap_or(0);
    let progress = output::Progress::new(size);
    let mut scratch = Scratch::new();
    let (mut read, mut accepted, mut follow_errors) = (0u64, 0u64, 0u64);
    let result = loop {
        if args.count.is_some_and(|c| accepted >= c) {
            break Ok(());
        }
        let rec = match reader.next_record() {
            Ok(Some(r)) => r,
            Ok(None) => break Ok(()),
            Err(e) => break Err(anyhow::Error::new(e).context(format!("{}", input.display()))),
        };
        read += 1;
        let p = &rec.packet;
        let ok = match &engine {
            Engine::Static(filter) => filter
                .as_ref()
                .is_none_or(|f| f.matches(&mut scratch, p.data, p.orig_len)),
            Engine::Follow(_, live) => live.matches(&mut scratch, p.data, p.orig_len),
        };
        if ok {
            accepted += 1;
            sink.packet(&rec)?;
            if let Engine::Follow(follower, _) = &mut engine {
                let ts = p.ts_sec.saturating_mul(1_000_000_000) + p.ts_nsec as u64;
                // A failed update (the live set is full) loses that flow, not the
                // capture: say so and go on.
                if let Err(e) = follower.observe(p.data, ts) {
                    follow_errors += 1;
                    if follow_errors <= 5 {
                        eprintln!(
                            "netsift: follow: packet {read}: {e}; continuing without this update"
                        );
                    }
                }
            }
        }
        if read % 4096 == 0 {
            progress.set(reader.offset());
        }
    };
    progress.finish();
    // Whatever happened, the packets accepted so far are written out.
    sink.finish()?;
    eprintln!("{read} packets read, {accepted} packets accepted");
    if let Engine::Follow(follower, _) = &engine {
        let s = follower.stats();
        eprintln!(
            "followed: {} announcements, {} flows added, {} removed, {} filter updates{}",
            s.announced,
            s.installed,
            s.removed,
            s.edits,
            if follow_errors > 0 {
                format!(", {follow_errors} updates failed")
            } else {
                String::new()
            }
        );
    }
    result
}
