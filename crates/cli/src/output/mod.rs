//! Where accepted packets go: pcap files (`-w`, with `-C`/`-G`/`-W` rotation), one
//! line each on stdout, or only their count (`--count`); and the progress bar for
//! long files.
//!
//! - `options`: how `netsift_print` prints each packet's line (`-#`, `-t`...,
//!   `-e`, `-S`, `-q`, `-v`, `-x`, `-X`, `-A`); [`Lines`] writes the lines.
//! - `rotate`: the pcap files of `-w`.

mod options;
mod rotate;

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use netsift_pcapio::{Reader, Record, RecordBatch, TsPrecision};
use netsift_print::Printer;
use netsift_session::Records;
use netsift_wire::LinkType;
use rotate::{Header, PcapOut, Rotation};
use std::io::{self, IsTerminal, Read, Write};

/// Whether `-w` will open more files as it goes (`-C`, `-G`).
pub(crate) fn rotating(args: &crate::args::Args) -> bool {
    args.write.is_some() && (args.rotate_size.is_some() || args.rotate_seconds.is_some())
}

/// Where accepted packets go.
pub(crate) struct Sink {
    out: Out,
    /// `--count` on a file: how many packets were accepted, printed at the end.
    count: Option<u64>,
    /// The buffer of the last [`Records`], for the next.
    spare: Vec<u8>,
    /// `--print` with `-w`: each packet's line too.
    also: Option<Box<Lines>>,
    /// Packets handed to the output while it was open: tcpdump's "packets
    /// captured" (the one that reaches `-G`/`-W`'s limit included, as
    /// there), not those a ring block still held after the output ended.
    taken: u64,
}

/// An enum rather than a trait object: the calls are per batch or per packet,
/// and a match is cheaper than a virtual call.
enum Out {
    /// `-w FILE` (or `-w -`).
    Pcap(Box<PcapOut>),
    /// One line per packet on stdout.
    Print(Box<Lines>),
    /// `--count` without `-w`: nothing per packet.
    Nothing,
}

impl Sink {
    /// The output of `-r` (and of the first file of `-V`).
    pub(crate) fn open<R: Read>(args: &crate::args::Args, reader: &Reader<R>) -> Result<Sink> {
        let hdr = if args.write.is_some() {
            Some(reader.tcpdump_dump_header(args.nano()).with_context(|| {
                format!(
                    "link type {} cannot be written to a pcap file",
                    reader.linktype()
                )
            })?)
        } else {
            None
        };
        let mut sink = Sink::new(
            args,
            reader.linktype(),
            hdr.map(|h| Header {
                linktype: h.linktype,
                snaplen: h.snaplen,
                precision: h.precision,
            }),
        )?;
        if args.count_only {
            sink.count = Some(0);
        }
        Ok(sink)
    }

    /// Where a live capture's packets go: as [`Sink::open`], with the header
    /// tcpdump writes for a live capture (the link type, the snap length,
    /// microseconds unless `--time-stamp-precision nano`).
    pub(crate) fn live(args: &crate::args::Args, linktype: LinkType, snaplen: u32) -> Result<Sink> {
        let precision = if args.nano() {
            TsPrecision::Nano
        } else {
            TsPrecision::Micro
        };
        Sink::new(
            args,
            linktype,
            Some(Header {
                linktype,
                snaplen,
                precision,
            }),
        )
    }

    /// `-w` with the given file header; lines on stdout without it.
    fn new(args: &crate::args::Args, linktype: LinkType, header: Option<Header>) -> Result<Sink> {
        let out = match (&args.write, header) {
            (Some(path), Some(header)) => {
                let rot = Rotation {
                    size: args.rotate_size,
                    seconds: args.rotate_seconds.unwrap_or(0),
                    files: args.rotate_files,
                    packet_buffered: args.packet_buffered,
                    postrotate: args.postrotate.clone(),
                };
                Out::Pcap(Box::new(PcapOut::create(path.clone(), header, rot)?))
            }
            _ if args.count_only => Out::Nothing,
            _ => Out::Print(Lines::new(args, linktype)?),
        };
        let also = match &out {
            Out::Pcap(_) if args.print => Some(Lines::new(args, linktype)?),
            _ => None,
        };
        Ok(Sink {
            out,
            count: None,
            spare: Vec::new(),
            also,
            taken: 0,
        })
    }

    /// The next file of `-V`: printing switches to its link type; a pcap file
    /// cannot change its link type, so that is an error, as in tcpdump.
    pub(crate) fn next_file<R: Read>(&mut self, reader: &Reader<R>, name: &str) -> Result<()> {
        match &mut self.out {
            Out::Pcap(p) => {
                let lt = reader.tcpdump_dump_header(false).map(|h| h.linktype);
                if lt != Some(p.linktype()) {
                    bail!("{name}: new dlt does not match original");
                }
            }
            Out::Print(p) => p.printer.set_linktype(reader.linktype()),
            Out::Nothing => {}
        }
        if let Some(p) = &mut self.also {
            p.printer.set_linktype(reader.linktype());
        }
        Ok(())
    }

    /// How many packets the output took: what tcpdump reports as captured.
    pub(crate) fn taken(&self) -> u64 {
        self.taken
    }

    /// Counts `n` packets handed over, unless `-G`/`-W` ended the output.
    fn take(&mut self, n: u64) {
        if !matches!(&self.out, Out::Pcap(w) if w.ended()) {
            self.taken += n;
        }
        if let Some(c) = &mut self.count {
            *c += n;
        }
    }

    /// Writes the records of `batch` whose `keep` entry is true.
    pub(crate) fn batch(&mut self, batch: &RecordBatch<'_>, keep: &[bool]) -> Result<()> {
        self.take(keep.iter().take(batch.len()).filter(|k| **k).count() as u64);
        if let Some(p) = &mut self.also {
            for (rec, _) in batch.iter().zip(keep).filter(|(_, k)| **k) {
                p.packet(&rec)?;
            }
        }
        match &mut self.out {
            Out::Pcap(w) => w.batch(batch, keep),
            Out::Print(p) => {
                for (rec, _) in batch.iter().zip(keep).filter(|(_, k)| **k) {
                    p.packet(&rec)?;
                }
                Ok(())
            }
            Out::Nothing => Ok(()),
        }
    }

    pub(crate) fn packet(&mut self, rec: &Record<'_>) -> Result<()> {
        self.take(1);
        if let Some(p) = &mut self.also {
            p.packet(rec)?;
        }
        match &mut self.out {
            Out::Pcap(w) => w.record(rec),
            Out::Print(p) => p.packet(rec),
            Out::Nothing => Ok(()),
        }
    }

    /// A buffer for one ring block's accepted packets, if they can be written
    /// so (`-w` into one file); `None`: write them with [`Sink::packet`].
    pub(crate) fn records(&mut self) -> Option<Records> {
        match &self.out {
            Out::Pcap(w) if w.takes_records() && self.also.is_none() => Some(Records::new(
                std::mem::take(&mut self.spare),
                w.precision() == TsPrecision::Nano,
            )),
            _ => None,
        }
    }

    /// Writes what `r` holds, as [`Sink::packet`] would one by one.
    pub(crate) fn write_records(&mut self, r: Records) -> Result<()> {
        self.take(r.len());
        let res = match &mut self.out {
            Out::Pcap(w) if !r.is_empty() => w.records(r.bytes()),
            _ => Ok(()),
        };
        self.spare = r.into_buffer();
        res
    }

    /// Writes out what is buffered (between the files of `-V`, and at the end).
    pub(crate) fn flush(&mut self) -> Result<()> {
        if let Some(p) = &mut self.also {
            p.flush()?;
        }
        match &mut self.out {
            Out::Pcap(w) => w.flush(),
            Out::Print(p) => p.flush(),
            Out::Nothing => Ok(()),
        }
    }

    /// The end of the output: flushes it, and prints `--count`'s line.
    pub(crate) fn finish(&mut self) -> Result<()> {
        self.flush()?;
        if let Some(n) = self.count {
            let mut out = io::stdout().lock();
            let s = if n == 1 { "" } else { "s" };
            match writeln!(out, "{n} packet{s}").and_then(|()| out.flush()) {
                Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
                    return Err(e).context("writing to stdout")
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Each packet's line on stdout (`-l`: flushed line by line).
struct Lines {
    printer: Printer,
    out: io::BufWriter<io::Stdout>,
    line_buffered: bool,
}

impl Lines {
    fn new(args: &crate::args::Args, linktype: LinkType) -> Result<Box<Lines>> {
        Ok(Box::new(Lines {
            printer: Printer::new(linktype, options::print_options(args)?),
            out: io::BufWriter::new(io::stdout()),
            line_buffered: args.line_buffered,
        }))
    }

    fn packet(&mut self, rec: &Record<'_>) -> Result<()> {
        let precision = if self.printer.options().nano {
            TsPrecision::Nano
        } else {
            TsPrecision::Micro
        };
        let (sec, frac) = rec.raw_ts.libpcap_timeval(precision);
        let line = self.printer.line(&netsift_print::Packet {
            sec,
            frac,
            data: rec.packet.data,
            wire_len: rec.packet.orig_len,
        });
        let mut r = self.out.write_all(line.as_bytes());
        if self.line_buffered {
            r = r.and_then(|()| self.out.flush());
        }
        // A closed pipe (`netsift ... | head`) ends the run as it ends tcpdump's.
        r.unwrap_or_else(|e| crate::errors::output_failed(&e));
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.out
            .flush()
            .unwrap_or_else(|e| crate::errors::output_failed(&e));
        Ok(())
    }
}

/// A progress bar on stderr, shown only for files over 64 MiB on a terminal.
pub(crate) struct Progress(Option<ProgressBar>);

impl Progress {
    pub(crate) fn new(size: u64) -> Progress {
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
    pub(crate) fn set(&self, pos: u64) {
        if let Some(b) = &self.0 {
            b.set_position(pos);
        }
    }
    pub(crate) fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

/// A failure of the output, with its whole chain of context, as the session
/// passes it back.
fn boxed(e: anyhow::Error) -> netsift_session::SinkError {
    format!("{e:#}").into()
}

/// The session hands accepted packets to the output through this.
impl netsift_session::Sink for Sink {
    fn packet(&mut self, rec: &Record<'_>) -> Result<(), netsift_session::SinkError> {
        Sink::packet(self, rec).map_err(boxed)
    }

    fn batch(
        &mut self,
        batch: &RecordBatch<'_>,
        keep: &[bool],
    ) -> Result<(), netsift_session::SinkError> {
        Sink::batch(self, batch, keep).map_err(boxed)
    }

    fn records(&mut self) -> Option<Records> {
        Sink::records(self)
    }

    fn write_records(&mut self, records: Records) -> Result<(), netsift_session::SinkError> {
        Sink::write_records(self, records).map_err(boxed)
    }

    fn flush(&mut self) -> Result<(), netsift_session::SinkError> {
        Sink::flush(self).map_err(boxed)
    }
}
