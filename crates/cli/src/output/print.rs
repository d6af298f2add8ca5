//! One line per packet on stdout, as tcpdump 4.99's `pretty_print_packet` prints
//! it: the packet number (`-#`), the time stamp (`-t`...), the summary (`-e`, `-S`)
//! and the dump (`-x`, `-X`, `-A`).

use super::hex::{link_header_len, Dump};
use super::time::{Clock, TimeFormat};
use anyhow::{bail, Context, Result};
use netsift_pcapio::{Record, TsPrecision};
use netsift_wire::{LinkType, Summarizer, SummaryOptions};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::sync::OnceLock;

/// How lines are printed.
#[derive(Clone, Copy, Debug)]
pub struct PrintOptions {
    pub summary: SummaryOptions,
    pub time: TimeFormat,
    pub nano: bool,
    pub dump: Option<Dump>,
    pub number: bool,
    pub line_buffered: bool,
}

impl PrintOptions {
    pub fn from_args(args: &crate::args::Args) -> Result<PrintOptions> {
        let Some(time) = TimeFormat::from_count(args.time_format) else {
            bail!("only -t, -tt, -ttt, -tttt and -ttttt are supported");
        };
        Ok(PrintOptions {
            summary: SummaryOptions {
                absolute_tcp_seq: args.absolute_seq,
                link_header: args.link_header,
                interface_name: Some(interface_name),
                verbose: args.verbose,
                quiet: args.quiet,
            },
            time,
            nano: args.nano(),
            dump: Dump::from_counts(args.hex, args.hex_ascii, args.ascii),
            number: args.number,
            line_buffered: args.line_buffered,
        })
    }
}

/// The name of this machine's interface `index`, as tcpdump's `if_indextoname`
/// gives it for an SLL2 header (read once from /sys/class/net).
fn interface_name(index: u32) -> Option<String> {
    static NAMES: OnceLock<HashMap<u32, String>> = OnceLock::new();
    NAMES
        .get_or_init(|| {
            netsift_capture::interfaces()
                .map(|v| v.into_iter().map(|i| (i.index, i.name)).collect())
                .unwrap_or_default()
        })
        .get(&index)
        .cloned()
}

pub struct Printer {
    linktype: LinkType,
    opts: PrintOptions,
    summarizer: Summarizer,
    clock: Clock,
    /// Packets printed so far (tcpdump's `packets_captured`, for `-#`).
    count: u64,
    line: String,
    out: io::BufWriter<io::Stdout>,
}

impl Printer {
    pub fn new(linktype: LinkType, opts: PrintOptions) -> Printer {
        Printer {
            linktype,
            opts,
            summarizer: Summarizer::with_options(opts.summary),
            clock: Clock::new(opts.time, opts.nano),
            count: 0,
            line: String::with_capacity(256),
            out: io::BufWriter::new(io::stdout()),
        }
    }

    /// The next file of `-V` has this link type (the TCP and time state carry on,
    /// as in tcpdump).
    pub fn set_linktype(&mut self, linktype: LinkType) {
        self.linktype = linktype;
    }

    pub fn packet(&mut self, rec: &Record<'_>) -> Result<()> {
        let p = &rec.packet;
        let precision = if self.opts.nano {
            TsPrecision::Nano
        } else {
            TsPrecision::Micro
        };
        let (sec, frac) = rec.raw_ts.libpcap_timeval(precision);
        self.count += 1;
        let line = &mut self.line;
        line.clear();
        if self.opts.number {
            let _ = write!(line, "{:5}  ", self.count);
        }
        let summary = self.summarizer.summarize(self.linktype, p.data, p.orig_len);
        // tcpdump checks the record's lengths before anything else: a bad one gets
        // its `[Invalid header: ...]` line without time stamp or dump.
        let invalid = summary.starts_with("[Invalid header");
        if !invalid {
            self.clock.stamp(line, sec, frac);
        }
        line.push_str(&summary);
        if let Some(dump) = self.opts.dump.filter(|_| !invalid) {
            let link = link_header_len(self.linktype, p.data, p.orig_len, &summary);
            dump.append(line, p.data, link);
        }
        line.push('\n');
        let mut r = self.out.write_all(line.as_bytes());
        if self.opts.line_buffered {
            r = r.and_then(|()| self.out.flush());
        }
        match r {
            // A closed pipe (`netsift ... | head`) is a normal way to stop.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => std::process::exit(0),
            r => r.context("writing to stdout"),
        }
    }

    pub fn flush(&mut self) -> Result<()> {
        match self.out.flush() {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            r => r.context("writing to stdout"),
        }
    }
}
