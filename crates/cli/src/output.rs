//! Where accepted packets go: a pcap file, or one line each on stdout; and the
//! progress bar for long files.

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use netsift_pcapio::{ChunkWriter, PcapWriter, Reader, Record, RecordBatch};
use netsift_wire::{LinkType, Summarizer};
use std::fs::File;
use std::io::{self, IsTerminal, Read, Write};

/// Where accepted packets go. An enum rather than a trait object: the calls are
/// per batch or per packet, and a match is cheaper than a virtual call.
pub enum Sink {
    /// `-w FILE` (or `-w -`): a pcap file, in 1 MiB aligned chunks (see
    /// [`ChunkWriter`]; the file or stdout behind it is called once per chunk).
    Pcap(PcapWriter<ChunkWriter<Box<dyn Write>>>),
    /// One line per packet on stdout.
    Print(Printer),
}

impl Sink {
    pub fn open<R: Read>(args: &crate::args::Args, reader: &Reader<R>) -> Result<Sink> {
        if args.write.is_none() {
            return Ok(Sink::Print(Printer::new(reader.linktype(), args.quiet)));
        }
        let hdr = reader.tcpdump_dump_header(false).with_context(|| {
            format!(
                "link type {} cannot be written to a pcap file",
                reader.linktype()
            )
        })?;
        Sink::pcap(
            args,
            reader.linktype(),
            hdr.linktype,
            hdr.snaplen,
            hdr.precision,
        )
    }

    /// Where a live capture's packets go: as [`Sink::open`], with the header
    /// tcpdump writes for a live capture (the link type, the snap length,
    /// microseconds).
    pub fn live(args: &crate::args::Args, linktype: LinkType, snaplen: u32) -> Result<Sink> {
        Sink::pcap(
            args,
            linktype,
            linktype,
            snaplen,
            netsift_pcapio::TsPrecision::Micro,
        )
    }

    /// `-w FILE` (or `-w -`) with the given file header; lines on stdout without `-w`.
    fn pcap(
        args: &crate::args::Args,
        linktype: LinkType,
        header_linktype: LinkType,
        snaplen: u32,
        precision: netsift_pcapio::TsPrecision,
    ) -> Result<Sink> {
        let Some(path) = &args.write else {
            return Ok(Sink::Print(Printer::new(linktype, args.quiet)));
        };
        let file: Box<dyn Write> = if path.as_os_str() == "-" {
            Box::new(io::stdout().lock())
        } else {
            Box::new(File::create(path).with_context(|| format!("{}", path.display()))?)
        };
        let w = PcapWriter::new(ChunkWriter::new(file), header_linktype, snaplen, precision)
            .with_context(|| format!("writing {}", path.display()))?;
        Ok(Sink::Pcap(w))
    }

    /// Writes the records of `batch` whose `keep` entry is true.
    pub fn batch(&mut self, batch: &RecordBatch<'_>, keep: &[bool]) -> Result<()> {
        match self {
            Sink::Pcap(w) => written(w.write_batch(batch, keep)),
            Sink::Print(p) => {
                for (rec, _) in batch.iter().zip(keep).filter(|(_, k)| **k) {
                    p.packet(&rec)?;
                }
                Ok(())
            }
        }
    }

    pub fn packet(&mut self, rec: &Record<'_>) -> Result<()> {
        match self {
            Sink::Pcap(w) => written(w.write_record(rec)),
            Sink::Print(p) => p.packet(rec),
        }
    }

    pub fn finish(&mut self) -> Result<()> {
        match self {
            Sink::Pcap(w) => written(w.flush()),
            Sink::Print(p) => p.finish(),
        }
    }
}

/// The result of a write to the output file. A closed pipe (`netsift -w - | head`)
/// ends the run quietly, as the printing mode and tcpdump (killed by SIGPIPE) end.
fn written(r: io::Result<()>) -> Result<()> {
    match r {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => std::process::exit(0),
        r => r.context("writing the output file"),
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

impl Printer {
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
