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
use netsift_wire::LinkType;
use rotate::{Header, PcapOut, Rotation};
use std::io::{self, IsTerminal, Read, Write};

/// Where accepted packets go.
pub struct Sink {
    out: Out,
    /// `--count` on a file: how many packets were accepted, printed at the end.
    count: Option<u64>,
    /// The buffer of the last [`Records`], for the next.
    spare: Vec<u8>,
}

/// A live capture's accepted packets of one ring block, laid out as pcap records
/// ([`Sink::records`]), to be written in one go ([`Sink::write_records`]).
///
/// A copy, but into a buffer the size of one block's records, which stays in
/// cache from one block to the next: cheaper than a vectored write of a header
/// and a slice of the ring per packet (which the kernel takes apart slice by
/// slice), and than the 1 MiB chunks of [`netsift_pcapio::ChunkWriter`], whose
/// every line is a cache miss by the time it is written again.
pub struct Records {
    buf: Vec<u8>,
    /// Packets in `buf`.
    n: u64,
    /// Whether the file keeps nanoseconds (else microseconds).
    nano: bool,
}

impl Records {
    /// Adds a packet with time stamp `sec` s + `nsec` ns, captured bytes `data`
    /// and length `wire` on the wire: the record [`Sink::packet`] writes for it
    /// (a pcap time stamp of nanoseconds, converted as libpcap converts one,
    /// each field cut to 32 bits).
    #[inline]
    pub fn push(&mut self, sec: u32, nsec: u32, data: &[u8], wire: u32) {
        let frac = if self.nano {
            nsec
        } else {
            (nsec as i32 / 1000) as u32
        };
        let h = netsift_pcapio::record_header(sec, frac, data.len() as u32, wire);
        self.buf.extend_from_slice(&h);
        self.buf.extend_from_slice(data);
        self.n += 1;
    }
}

/// An enum rather than a trait object: the calls are per batch or per packet,
/// and a match is cheaper than a virtual call.
enum Out {
    /// `-w FILE` (or `-w -`).
    Pcap(PcapOut),
    /// One line per packet on stdout.
    Print(Box<Lines>),
    /// `--count` without `-w`: nothing per packet.
    Nothing,
}

impl Sink {
    /// The output of `-r` (and of the first file of `-V`).
    pub fn open<R: Read>(args: &crate::args::Args, reader: &Reader<R>) -> Result<Sink> {
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
    pub fn live(args: &crate::args::Args, linktype: LinkType, snaplen: u32) -> Result<Sink> {
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
                };
                Out::Pcap(PcapOut::create(path.clone(), header, rot)?)
            }
            _ if args.count_only => Out::Nothing,
            _ => Out::Print(Box::new(Lines {
                printer: Printer::new(linktype, options::print_options(args)?),
                out: io::BufWriter::new(io::stdout()),
                line_buffered: args.line_buffered,
            })),
        };
        Ok(Sink {
            out,
            count: None,
            spare: Vec::new(),
        })
    }

    /// The next file of `-V`: printing switches to its link type; a pcap file
    /// cannot change its link type, so that is an error, as in tcpdump.
    pub fn next_file<R: Read>(&mut self, reader: &Reader<R>, name: &str) -> Result<()> {
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
        Ok(())
    }

    /// Writes the records of `batch` whose `keep` entry is true.
    pub fn batch(&mut self, batch: &RecordBatch<'_>, keep: &[bool]) -> Result<()> {
        if let Some(n) = &mut self.count {
            *n += keep.iter().take(batch.len()).filter(|k| **k).count() as u64;
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

    pub fn packet(&mut self, rec: &Record<'_>) -> Result<()> {
        if let Some(n) = &mut self.count {
            *n += 1;
        }
        match &mut self.out {
            Out::Pcap(w) => w.record(rec),
            Out::Print(p) => p.packet(rec),
            Out::Nothing => Ok(()),
        }
    }

    /// A buffer for one ring block's accepted packets, if they can be written
    /// so (`-w` into one file); `None`: write them with [`Sink::packet`].
    pub fn records(&mut self) -> Option<Records> {
        match &self.out {
            Out::Pcap(w) if w.takes_records() => Some(Records {
                buf: std::mem::take(&mut self.spare),
                n: 0,
                nano: w.precision() == TsPrecision::Nano,
            }),
            _ => None,
        }
    }

    /// Writes what `r` holds, as [`Sink::packet`] would one by one.
    pub fn write_records(&mut self, mut r: Records) -> Result<()> {
        if let Some(n) = &mut self.count {
            *n += r.n;
        }
        let res = match &mut self.out {
            Out::Pcap(w) if r.n > 0 => w.records(&r.buf),
            _ => Ok(()),
        };
        r.buf.clear();
        self.spare = r.buf;
        res
    }

    /// Writes out what is buffered (between the files of `-V`, and at the end).
    pub fn flush(&mut self) -> Result<()> {
        match &mut self.out {
            Out::Pcap(w) => w.flush(),
            Out::Print(p) => p.flush(),
            Out::Nothing => Ok(()),
        }
    }

    /// The end of the output: flushes it, and prints `--count`'s line.
    pub fn finish(&mut self) -> Result<()> {
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
        match r {
            // A closed pipe (`netsift ... | head`) is a normal way to stop.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => std::process::exit(0),
            r => r.context("writing to stdout"),
        }
    }

    fn flush(&mut self) -> Result<()> {
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

#[cfg(test)]
mod tests {
    use netsift_pcapio::{Packet, PcapWriter, RawTs, Record, TsPrecision};
    use netsift_wire::LinkType;

    /// A record laid out by `Records::push` is the record `Sink::packet` writes
    /// for the same packet, in both precisions, for any time stamp (even one no
    /// kernel gives).
    #[test]
    fn laid_out_records_are_written_records() {
        let data = [7u8; 5];
        for precision in [TsPrecision::Micro, TsPrecision::Nano] {
            let stamps = [
                (0, 0),
                (1_700_000_000, 999_999_999),
                (7, 1_999),
                (u32::MAX, 2_500_000_000),
            ];
            for (sec, nsec) in stamps {
                let mut w = PcapWriter::new(Vec::new(), LinkType::EN10MB, 100, precision).unwrap();
                let rec = Record {
                    packet: Packet {
                        ts_sec: u64::from(sec),
                        ts_nsec: nsec,
                        caplen: 5,
                        orig_len: 60,
                        data: &data,
                        interface: 0,
                    },
                    raw_ts: RawTs::Pcap {
                        sec,
                        frac: nsec,
                        nano: true,
                    },
                };
                w.write_record(&rec).unwrap();
                let mut r = super::Records {
                    buf: Vec::new(),
                    n: 0,
                    nano: precision == TsPrecision::Nano,
                };
                r.push(sec, nsec, &data, 60);
                assert_eq!(
                    r.buf,
                    w.into_inner().unwrap()[24..],
                    "{sec} {nsec} {precision:?}"
                );
            }
        }
    }
}
