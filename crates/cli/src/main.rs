//! `netsift`: a tcpdump-style command line over the netsift libraries.
//!
//! It parses flags, opens the capture, compiles the filter with `netsift-pcapc`,
//! runs it with `netsift-engine`, and prints or writes the accepted packets. It holds
//! no filtering logic of its own.

#![forbid(unsafe_code)]

mod args;
mod classic;
mod config;
mod control;
mod errors;
mod flow;
mod generate;
mod graph;
mod live;
mod output;
mod privileges;
mod signals;
mod stats;
mod tcpdump_flags;

use anyhow::{bail, Context, Result};
use args::Args;
use clap::Parser;
use netsift_isa::PassSet;
use netsift_pcapc::Target;
use netsift_pcapio::Reader;
use netsift_session::{FileFilter, FilterSpec};
use std::io::{self, Read, Write};
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // `netsift flow ...`: a flow of netsiftd, with the same output flags.
    let flow = argv.get(1).is_some_and(|a| a == "flow");
    if flow {
        argv.remove(1);
    }
    let args = match Args::try_parse_from(args::permute(argv)) {
        Ok(a) => a,
        Err(e) => return errors::command_line(&e),
    };
    let result = if flow {
        flow::run(&args)
    } else if args.socket.is_some() {
        Err(anyhow::anyhow!("--socket is for `netsift flow`"))
    } else if args.graph.is_some() || args.instance.is_some() {
        Err(anyhow::anyhow!(
            "--graph and --instance are for `netsift flow`"
        ))
    } else {
        run(&args)
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => errors::report(&e),
    }
}

/// `-d`: the passes of `expr` for link type `lt`, or with `--place` the program
/// made from them for the kernel or the XDP hook.
fn dump(args: &Args, expr: &str, lt: netsift_wire::LinkType) -> Result<String> {
    let set = netsift_session::compile(expr, Target::new(lt))?;
    listing(args, &set, lt)
}

/// `-d`: the pass set, or with `--place kernel|auto|xdp` the eBPF program made
/// from it.
fn listing(args: &Args, set: &PassSet, lt: netsift_wire::LinkType) -> Result<String> {
    let snaplen = args.snaplen.unwrap_or(netsift_session::DEFAULT_SNAPLEN);
    let r = match args.place.as_deref() {
        None | Some("user") => return Ok(set.listing(netsift_pcapc::link_fields(lt))),
        Some("xdp") => netsift_session::xdp_listing(set, lt, snaplen),
        Some(_) => netsift_session::kernel_listing(set, lt, snaplen),
    };
    r.map_err(|e| live::said(e, args))
}

/// `-d --follow` on an interface: the follower's live set, or with `--place
/// kernel|auto` the program it places in the kernel.
fn follow_dump(args: &Args, expr: &str, lt: netsift_wire::LinkType) -> Result<String> {
    let Some(spec) = config::follow(args, expr)? else {
        bail!("--follow is not given");
    };
    if matches!(args.place.as_deref(), Some("kernel" | "auto")) {
        let snaplen = args.snaplen.unwrap_or(netsift_session::DEFAULT_SNAPLEN);
        return netsift_session::follow_listing(&spec, lt, snaplen)
            .map_err(|e| live::said(e, args));
    }
    let f = FileFilter::new(
        &FilterSpec::Follow(spec),
        Target::new(lt),
        netsift_session::events::ignore(),
    )?;
    Ok(f.follow_listing().unwrap_or_default())
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
    tcpdump_flags::check(args)?;
    privileges::check(args)?;
    if args.list_interfaces {
        return print_listing(&live::interface_list()?);
    }
    // tcpdump (libpcap) prints these two lists on stderr.
    if args.list_link_types {
        eprint!("{}", live::link_type_list(&interface(args)?)?);
        return Ok(());
    }
    if args.list_ts_types {
        eprint!("{}", tcpdump_flags::ts_type_list(&interface(args)?)?);
        return Ok(());
    }
    let expr = args.expression_text()?;
    if let Some(list) = &args.read_list {
        return read_list(args, &expr, list);
    }
    let Some(input) = &args.read else {
        let snaplen = args.snaplen.unwrap_or(netsift_session::DEFAULT_SNAPLEN);
        if args.dump > 0 && args.interface.is_none() {
            if args.linktype.is_none() {
                // tcpdump's words for -d without -i or -y.
                eprintln!("Warning: assuming Ethernet");
            }
            let lt = args.linktype()?;
            if args.dump > 1 {
                return print_listing(&classic_dump(args, &expr, lt, snaplen)?);
            }
            return print_listing(&dump(args, &expr, lt)?);
        }
        let iface = interface(args)?;
        if args.dump > 0 {
            // As tcpdump -d -i: the program for the interface's link type.
            let lt = netsift_capture::linktype_of(&iface)?;
            if args.dump > 1 {
                return print_listing(&classic_dump(args, &expr, lt, snaplen)?);
            }
            if args.follow.is_some() {
                return print_listing(&follow_dump(args, &expr, lt)?);
            }
            return print_listing(&dump(args, &expr, lt)?);
        }
        return live::capture(args, &iface, &expr);
    };
    let mut sink = None;
    let r = read_file(args, &expr, input, &mut sink);
    finish(sink, r)
}

/// The interface of `-i`, or tcpdump's default: the first of `-D`'s list.
fn interface(args: &Args) -> Result<String> {
    match &args.interface {
        Some(i) => Ok(i.clone()),
        None => live::default_interface(),
    }
}

/// `-dd`/`-ddd`: libpcap's classic program for `expr`, once netsift's own
/// compiler has accepted it (so that a bad filter is said as `-d` says it).
fn classic_dump(
    args: &Args,
    expr: &str,
    lt: netsift_wire::LinkType,
    snaplen: u32,
) -> Result<String> {
    netsift_session::compile(expr, Target::new(lt))?;
    classic::dump(args, expr, lt, snaplen)
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
        if r.is_err() || args.dump > 0 {
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
    // As tcpdump: `FILE: No such file or directory`.
    let file = std::fs::File::open(input)
        .map_err(|e| anyhow::anyhow!("{}: {}", input.display(), errors::strerror(&e)))?;
    let reader = Reader::new(file).with_context(|| format!("{}", input.display()))?;
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
    let target = Target::new(linktype).savefile_swapped(reader.is_big_endian());
    let events = stats::events(false, "");
    let filter = FileFilter::new(&config::filter(args, expr)?, target, events)?;
    if args.dump > 1 {
        return print_listing(&classic_dump(args, expr, linktype, reader.snaplen())?);
    }
    if args.dump > 0 {
        if let Some(l) = filter.follow_listing() {
            return print_listing(&l);
        }
        if expr.trim().is_empty() {
            return print_listing("(no filter: every packet is accepted)\n");
        }
        return print_listing(&listing(
            args,
            &netsift_session::compile(expr, target)?,
            linktype,
        )?);
    }
    // The input is open: as tcpdump, become -Z's user before creating output.
    privileges::drop(args)?;
    let sink = match sink {
        Some(s) => {
            s.next_file(&reader, &input.display().to_string())?;
            s
        }
        None => {
            let s = sink.insert(output::Sink::open(args, &reader)?);
            privileges::outputs_open(output::rotating(args));
            s
        }
    };
    let size = std::fs::metadata(input).map(|m| m.len()).unwrap_or(0);
    let progress = output::Progress::new(size);
    let stop = signals::stop_flag()?;
    let limit = args.count.unwrap_or(u64::MAX);
    let (n, result) = filter.run(&mut reader, sink, (&stop, limit), |at| progress.set(at));
    progress.finish();
    if let Some(f) = &n.follow {
        eprintln!("{}", stats::follow_line(f));
    }
    result.map_err(|e| match e.kind() {
        // A fault in the file says where: the file, then the offset.
        netsift_session::ErrorKind::File => anyhow::anyhow!("{}: {e}", input.display()),
        _ => anyhow::anyhow!("{e}"),
    })
}
