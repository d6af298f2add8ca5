//! `netsift`: a tcpdump-style command line over the netsift libraries.
//!
//! It parses flags, opens the capture, compiles the filter with `netsift-pcapc`,
//! runs it with `netsift-engine`, and prints or writes the accepted packets. It holds
//! no filtering logic of its own.

#![forbid(unsafe_code)]

mod args;
mod control;
mod filter;
mod following;
mod generate;
mod live;
mod merge;
mod output;
mod place;
mod signals;
mod workers;
mod xdp;

use anyhow::{bail, Context, Result};
use args::Args;
use clap::Parser;
use filter::{filter_file, Engine};
use following::Following;
use netsift_engine::Compiled;
use netsift_isa::PassSet;
use netsift_pcapc::Target;
use netsift_pcapio::Reader;
use std::io::{self, Read, Write};
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = Args::parse_from(args::permute(std::env::args_os().collect()));
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

/// `-d` without a file: the passes of `expr` for link type `lt`.
fn dump(args: &Args, expr: &str, lt: netsift_wire::LinkType) -> Result<String> {
    let target = Target {
        linktype: lt,
        savefile_swapped: None,
        meta: None,
    };
    listing(args, &compile(expr, target)?, lt)
}

/// `-d`: the pass set, or with `--place kernel|auto` the eBPF program made from it.
fn listing(args: &Args, set: &netsift_isa::PassSet, lt: netsift_wire::LinkType) -> Result<String> {
    if matches!(args.place.as_deref(), None | Some("user")) {
        return Ok(set.to_string());
    }
    if args.place.as_deref() == Some("xdp") {
        return xdp::listing(set, lt, args.snaplen.unwrap_or(262_144));
    }
    place::listing(set, lt, args.snaplen.unwrap_or(262_144))
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
    if let Some(what) = &args.generate {
        return print_listing(&generate::generate(what)?);
    }
    if args.list_interfaces {
        return print_listing(&live::interface_list()?);
    }
    if args.list_link_types {
        let Some(iface) = &args.interface else {
            bail!("-L needs an interface (-i IFACE)");
        };
        return print_listing(&live::link_type_list(iface)?);
    }
    let expr = args.expression_text()?;
    if let Some(list) = &args.read_list {
        return read_list(args, &expr, list);
    }
    let Some(input) = &args.read else {
        if let Some(iface) = &args.interface {
            if args.dump {
                // As tcpdump -d -i: the program for the interface's link type.
                let lt = live::linktype_of(iface)?;
                if args.follow.is_some() {
                    if matches!(args.place.as_deref(), Some("kernel" | "auto")) {
                        let snaplen = args.snaplen.unwrap_or(262_144);
                        return print_listing(&place::follow_listing(args, &expr, lt, snaplen)?);
                    }
                    return print_listing(&Following::new(args, lt, &expr)?.0.listing());
                }
                return print_listing(&dump(args, &expr, lt)?);
            }
            if args.place.as_deref() == Some("xdp") {
                return xdp::capture(args, iface, &expr);
            }
            return live::capture(args, iface, &expr);
        }
        if args.dump {
            return print_listing(&dump(args, &expr, args.linktype()?)?);
        }
        bail!("no capture source given: use -r FILE or -i IFACE");
    };
    let mut sink = None;
    let r = read_file(args, &expr, input, &mut sink);
    finish(sink, r)
}

/// `-V LIST`: the capture files named in LIST, one a line, into one output.
fn read_list(args: &Args, expr: &str, list: &Path) -> Result<()> {
    let text = if list.as_os_str() == "-" {
        io::read_to_string(io::stdin().lock()).context("reading the file list from stdin")
    } else {
        std::fs::read_to_string(list).with_context(|| format!("{}", list.display()))
    }?;
    let mut names = text
        .split_inclusive('\n')
        .map(|l| l.strip_suffix('\n').unwrap_or(l));
    let Some(first) = names.next() else {
        bail!("Nothing in {}", list.display());
    };
    let mut sink = None;
    let mut r = Ok(());
    for name in std::iter::once(first).chain(names) {
        r = read_file(args, expr, Path::new(name), &mut sink);
        if r.is_err() || args.dump {
            break;
        }
    }
    finish(sink, r)
}

/// Ends the output (and prints `--count`'s line) whatever the run's result.
fn finish(sink: Option<output::Sink>, r: Result<()>) -> Result<()> {
    let f = sink.map_or(Ok(()), |mut s| s.finish());
    r.and(f)
}

/// Opens one capture file (`-` for standard input, as in tcpdump) and filters it.
fn read_file(args: &Args, expr: &str, input: &Path, sink: &mut Option<output::Sink>) -> Result<()> {
    if input.as_os_str() == "-" {
        let reader = Reader::new(io::stdin().lock()).context("-")?;
        return run_reader(args, expr, input, reader, sink);
    }
    let reader = netsift_pcapio::open(input).with_context(|| format!("{}", input.display()))?;
    run_reader(args, expr, input, reader, sink)
}

/// Everything after opening the capture.
fn run_reader<R: Read>(
    args: &Args,
    expr: &str,
    input: &Path,
    mut reader: Reader<R>,
    sink: &mut Option<output::Sink>,
) -> Result<()> {
    let linktype = reader.linktype();
    eprintln!(
        "reading from file {}, link-type {}, snapshot length {}",
        input.display(),
        linktype.with_description(),
        reader.snaplen()
    );
    if linktype == netsift_wire::LinkType::LINUX_SLL2 {
        // An SLL2 header names its interface by index, which means something only
        // on the machine that captured it; tcpdump says so too.
        eprintln!("Warning: interface names might be incorrect");
    }
    let target = Target {
        linktype,
        savefile_swapped: Some(reader.is_big_endian()),
        meta: None,
    };
    let filter = if expr.trim().is_empty() {
        None
    } else {
        if !linktype.is_supported() {
            bail!("link type {linktype} is not supported by the filter compiler (supported: EN10MB, RAW, IPV4, IPV6, NULL, LOOP, LINUX_SLL, LINUX_SLL2)");
        }
        Some(compile(expr, target)?)
    };
    if args.follow.is_some() {
        let (following, live) = Following::new(args, linktype, expr)?;
        if args.dump {
            return print_listing(&following.listing());
        }
        return filter_file(
            args,
            input,
            &mut reader,
            Engine::Follow(Box::new(following), live),
            sink,
        );
    }
    if args.dump {
        return match &filter {
            Some(set) => print_listing(&listing(args, set, linktype)?),
            None => print_listing("(no filter: every packet is accepted)\n"),
        };
    }
    filter_file(
        args,
        input,
        &mut reader,
        Engine::Static(filter.map(|f| Box::new(Compiled::new(f)))),
        sink,
    )
}
