//! `-w FILE` and its rotation: `-C` (by size), `-G` (by time) and `-W` (how many
//! files), modelled on tcpdump 4.99's `dump_packet_and_trunc` and `MakeFilename`.
//!
//! - Before each packet, with `-G S`: if S seconds of wall-clock time have passed
//!   since the file was opened, the next file is opened (named by strftime(3) of
//!   FILE at that local time). With `-W N` and no `-C`, the Nth rotation ends the
//!   capture instead ("Maximum file limit reached").
//! - Then, with `-C`: if the file already holds more than SIZE bytes (header and
//!   records), the next one is opened: FILE, FILE1, FILE2, ...; with `-W N` the
//!   numbers have as many digits as N - 1 and wrap to 0 after N - 1.
//!
//! Every file starts with the same pcap header, so each is a valid capture.

use anyhow::{anyhow, Context, Result};
use netsift_pcapio::{ChunkWriter, PcapWriter, Record, RecordBatch, TsPrecision};
use netsift_wire::LinkType;
use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;

type Writer = PcapWriter<ChunkWriter<Box<dyn Write>>>;

/// What the file header says; every rotated file gets the same.
#[derive(Clone, Copy, Debug)]
pub(super) struct Header {
    pub linktype: LinkType,
    pub snaplen: u32,
    pub precision: TsPrecision,
}

/// The flags that shape the output files.
#[derive(Clone, Debug, Default)]
pub(super) struct Rotation {
    /// `-C`, in bytes.
    pub size: Option<u64>,
    /// `-G`, in seconds (0: none).
    pub seconds: u32,
    /// `-W`.
    pub files: Option<u32>,
    /// `-U`: flush after each packet.
    pub packet_buffered: bool,
    /// `-z`: the command run on each file a rotation closes.
    pub postrotate: Option<String>,
}

/// The pcap output of `-w`.
pub(super) struct PcapOut {
    /// `None` once `-G` with `-W` has written its last file.
    w: Option<Writer>,
    template: PathBuf,
    /// The file being written.
    current: PathBuf,
    header: Header,
    rot: Rotation,
    /// Digits of the file number (tcpdump's `WflagChars`).
    chars: usize,
    /// tcpdump's `Cflag_count` and `Gflag_count`.
    c_count: u32,
    g_count: u32,
    /// When the current `-G` file was opened (seconds since the epoch).
    g_time: i64,
    /// Bytes in the current file (what `pcap_dump_ftell` reports).
    size: u64,
}

impl PcapOut {
    pub(super) fn create(template: PathBuf, header: Header, rot: Rotation) -> Result<PcapOut> {
        let chars = rot.files.map_or(0, |n| digits(n.saturating_sub(1)));
        let mut out = PcapOut {
            w: None,
            current: template.clone(),
            template,
            header,
            rot,
            chars,
            c_count: 0,
            g_count: 0,
            g_time: now(),
            size: 0,
        };
        // Numbered only with -C.
        let chars = if out.rot.size.is_some() { chars } else { 0 };
        let name = out.file_name(0, chars)?;
        out.open(name)?;
        Ok(out)
    }

    /// tcpdump's `MakeFilename`: strftime(3) of the template at the `-G` time when
    /// `-G` is given, then the number, unless it is 0 with no digits asked for.
    fn file_name(&self, count: u32, chars: usize) -> Result<PathBuf> {
        let mut name = if self.rot.seconds > 0 {
            let template = self.template.to_str().ok_or_else(|| {
                anyhow!(
                    "-G: the file name {} is not UTF-8, so it cannot be a strftime format",
                    self.template.display()
                )
            })?;
            let tz = jiff::tz::TimeZone::system();
            let at = jiff::Timestamp::from_second(self.g_time)
                .map_err(|e| anyhow!("-G: the time {}: {e}", self.g_time))?
                .to_zoned_datetime(tz);
            jiff::fmt::strtime::format(template, &at)
                .map_err(|e| anyhow!("-G: the file name format {template}: {e}"))?
                .into()
        } else {
            self.template.clone().into_os_string()
        };
        if count != 0 || chars != 0 {
            name.push(format!("{count:0chars$}"));
        }
        Ok(PathBuf::from(name))
    }

    fn open(&mut self, name: PathBuf) -> Result<()> {
        self.close()?;
        let file: Box<dyn Write> = if name.as_os_str() == "-" {
            Box::new(io::stdout().lock())
        } else {
            let f = crate::privileges::with_override(|| File::create(&name));
            Box::new(f.with_context(|| format!("{}", name.display()))?)
        };
        let h = self.header;
        let mut w = PcapWriter::new(ChunkWriter::new(file), h.linktype, h.snaplen, h.precision)
            .with_context(|| format!("writing {}", name.display()))?;
        if self.rot.packet_buffered {
            // tcpdump flushes the header at once with -U.
            w.flush()
                .with_context(|| format!("writing {}", name.display()))?;
        }
        self.w = Some(w);
        self.size = 24;
        self.current = name;
        Ok(())
    }

    /// Whether `-G` with `-W` has written its last file: packets are no longer
    /// taken.
    pub(super) fn ended(&self) -> bool {
        self.w.is_none()
    }

    /// Closes the file being written, if one is, and hands it to `-z`'s
    /// command: only rotation closes files this way, never the end of the run,
    /// as in tcpdump.
    fn close(&mut self) -> Result<()> {
        let Some(mut w) = self.w.take() else {
            return Ok(());
        };
        w.flush()
            .with_context(|| format!("writing {}", self.current.display()))?;
        drop(w);
        if let Some(cmd) = &self.rot.postrotate {
            postrotate(cmd, &self.current);
        }
        Ok(())
    }

    fn rotating(&self) -> bool {
        self.rot.size.is_some() || self.rot.seconds > 0
    }

    /// Opens the next file if a `-G` or `-C` limit says so. Returns false when
    /// `-G` with `-W` has reached its last file: the capture ends.
    fn before_packet(&mut self) -> Result<bool> {
        if self.w.is_none() {
            return Ok(false);
        }
        if self.rot.seconds > 0 {
            let t = now();
            if t - self.g_time >= i64::from(self.rot.seconds) {
                self.g_time = t;
                self.g_count += 1;
                if self.rot.size.is_none() && self.rot.files.is_some_and(|n| self.g_count >= n) {
                    self.close()?;
                    eprintln!(
                        "Maximum file limit reached: {}",
                        self.rot.files.unwrap_or(0)
                    );
                    crate::signals::request_stop();
                    return Ok(false);
                }
                self.c_count = 0;
                let chars = if self.rot.size.is_some() {
                    self.chars
                } else {
                    0
                };
                let name = self.file_name(0, chars)?;
                self.open(name)?;
            }
        }
        if let Some(limit) = self.rot.size {
            if self.size > limit {
                self.c_count += 1;
                if self.rot.files.is_some_and(|n| self.c_count >= n) {
                    self.c_count = 0;
                }
                let name = self.file_name(self.c_count, self.chars)?;
                self.open(name)?;
            }
        }
        Ok(true)
    }

    pub(super) fn record(&mut self, rec: &Record<'_>) -> Result<()> {
        if !self.before_packet()? {
            return Ok(());
        }
        let Some(w) = &mut self.w else {
            return Ok(());
        };
        written(w.write_record(rec))?;
        self.size += 16 + rec.packet.data.len() as u64;
        if self.rot.packet_buffered {
            written(w.flush())?;
        }
        Ok(())
    }

    /// Whether records may come laid out, as [`PcapOut::records`] takes them: one
    /// file, kept open (no `-C` or `-G`, which decide before each packet whether
    /// it starts a new file).
    pub(super) fn takes_records(&self) -> bool {
        !self.rotating() && self.w.is_some()
    }

    /// The precision the files store time stamps in.
    pub(super) fn precision(&self) -> TsPrecision {
        self.header.precision
    }

    /// Writes whole records laid out as the file holds them (each a record
    /// header and the packet), as [`PcapOut::record`] would one by one, when
    /// [`PcapOut::takes_records`]: in one write. With `-U` they are flushed, as
    /// each record is.
    pub(super) fn records(&mut self, recs: &[u8]) -> Result<()> {
        let Some(w) = &mut self.w else {
            return Ok(());
        };
        written(w.get_mut().write_through(recs))?;
        self.size += recs.len() as u64;
        if self.rot.packet_buffered {
            written(w.flush())?;
        }
        Ok(())
    }

    pub(super) fn batch(&mut self, batch: &RecordBatch<'_>, keep: &[bool]) -> Result<()> {
        if self.rotating() || self.rot.packet_buffered {
            for (rec, _) in batch.iter().zip(keep).filter(|(_, k)| **k) {
                self.record(&rec)?;
            }
            return Ok(());
        }
        match &mut self.w {
            Some(w) => written(w.write_batch(batch, keep)),
            None => Ok(()),
        }
    }

    pub(super) fn flush(&mut self) -> Result<()> {
        match &mut self.w {
            Some(w) => written(w.flush()),
            None => Ok(()),
        }
    }

    /// The link type the files are written with.
    pub(super) fn linktype(&self) -> LinkType {
        self.header.linktype
    }
}

/// The result of a write to the output file. A closed pipe (`netsift -w - | head`)
/// ends the run quietly, as the printing mode and tcpdump (killed by SIGPIPE) end.
pub(super) fn written(r: io::Result<()>) -> Result<()> {
    match r {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => std::process::exit(0),
        r => r.context("writing the output file"),
    }
}

/// `-z CMD`: runs `CMD FILE` (no shell; CMD found on PATH, as tcpdump's
/// `execlp`) in the background, reaped by a thread of its own so the capture
/// never waits for it. A command that cannot start is said, and the capture
/// goes on.
fn postrotate(cmd: &str, file: &std::path::Path) {
    match std::process::Command::new(cmd).arg(file).spawn() {
        Ok(mut child) => {
            std::thread::spawn(move || child.wait());
        }
        Err(e) => eprintln!(
            "netsift: -z: {cmd} {}: {}",
            file.display(),
            crate::errors::strerror(&e)
        ),
    }
}

/// Seconds since the epoch, as `time(NULL)`.
fn now() -> i64 {
    jiff::Timestamp::now().as_second()
}

/// tcpdump's `getWflagChars(N)` is the number of digits of N - 1 (0 for 0).
fn digits(mut x: u32) -> usize {
    let mut c = 0;
    while x > 0 {
        c += 1;
        x /= 10;
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_numbered_as_tcpdump_numbers_them() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("out");
        let header = Header {
            linktype: LinkType::EN10MB,
            snaplen: 100,
            precision: TsPrecision::Micro,
        };
        let rot = Rotation {
            size: Some(1),
            files: Some(11),
            ..Rotation::default()
        };
        let o = PcapOut::create(t.clone(), header, rot).unwrap();
        assert_eq!(o.file_name(3, o.chars).unwrap(), dir.path().join("out03"));
        assert!(dir.path().join("out00").exists());
        assert_eq!(digits(0), 0);
        assert_eq!(digits(9), 1);
        assert_eq!(digits(10), 2);
    }
}
