//! Where accepted packets go: a pcap file, or one line each on stdout; and the
//! progress bar for long files.

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use netsift_pcapio::{PcapWriter, Record};
use netsift_wire::{LinkType, Summarizer};
use std::io::{self, IsTerminal, Write};

pub trait Sink {
    fn packet(&mut self, rec: &Record<'_>) -> Result<()>;
    fn finish(&mut self) -> Result<()>;
}

pub struct Writer<W: Write>(pub PcapWriter<W>);

impl<W: Write> Sink for Writer<W> {
    fn packet(&mut self, rec: &Record<'_>) -> Result<()> {
        self.0.write_record(rec).context("writing the output file")
    }
    fn finish(&mut self) -> Result<()> {
        self.0.flush().context("writing the output file")
    }
}

pub struct Printer {
    linktype: LinkType,
    quiet: bool,
    summarizer: Summarizer,
    out: io::BufWriter<io::Stdout>,
}

impl Printer {
    pub fn new(linktype: LinkType, quiet: bool) -> Printer {
        Printer {
            linktype,
            quiet,
            summarizer: Summarizer::new(),
            out: io::BufWriter::new(io::stdout()),
        }
    }
}

/// `HH:MM:SS.uuuuuu` of the UTC day, as tcpdump prints with TZ=UTC.
fn time_of_day(sec: i64, usec: i64) -> String {
    let s = sec.rem_euclid(86_400);
    format!(
        "{:02}:{:02}:{:02}.{:06}",
        s / 3600,
        s / 60 % 60,
        s % 60,
        usec
    )
}

impl Sink for Printer {
    fn packet(&mut self, rec: &Record<'_>) -> Result<()> {
        let p = &rec.packet;
        let (sec, usec) = rec
            .raw_ts
            .libpcap_timeval(netsift_pcapio::TsPrecision::Micro);
        let mut line = self.summarizer.summarize(self.linktype, p.data, p.orig_len);
        if self.quiet {
            // Keep the addresses and protocol, drop the per-protocol detail.
            if let Some(i) = line.find(": ") {
                line.truncate(i);
            }
            line = format!("{line}, length {}", p.orig_len);
        }
        let r = writeln!(self.out, "{} {line}", time_of_day(sec, usec));
        match r {
            // A closed pipe (`netsift ... | head`) is a normal way to stop.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => std::process::exit(0),
            r => r.context("writing to stdout"),
        }
    }
    fn finish(&mut self) -> Result<()> {
        match self.out.flush() {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            r => r.context("writing to stdout"),
        }
    }
}

/// A progress bar on stderr, shown only for files over 64 MiB on a terminal.
pub struct Progress(Option<ProgressBar>);

impl Progress {
    pub fn new(size: u64) -> Progress {
        if size < 64 << 20 || !io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = ProgressBar::new(size);
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Progress(Some(bar))
    }
    pub fn set(&self, pos: u64) {
        if let Some(b) = &self.0 {
            b.set_position(pos);
        }
    }
    pub fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}
