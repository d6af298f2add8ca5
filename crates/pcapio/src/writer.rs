//! Writing classic pcap files the way libpcap's `pcap_dump` does.

use std::io::{self, Write};

use netsift_wire::LinkType;

use crate::batch::RecordBatch;
use crate::packet::{Packet, TsPrecision};
use crate::record::Record;

/// Writes a classic pcap file: a 24-byte header then one record per packet,
/// little-endian, version 2.4, `thiszone` and `sigfigs` 0 (as libpcap writes them
/// on a little-endian machine).
#[derive(Debug)]
pub struct PcapWriter<W: Write> {
    w: W,
    precision: TsPrecision,
    hdr: [u8; 16],
}

impl<W: Write> PcapWriter<W> {
    /// Writes the file header. `linktype` is written as is (all 32 bits), so a caller
    /// that wants to preserve FCS bits stored by another file may pass them.
    pub fn new(
        mut w: W,
        linktype: LinkType,
        snaplen: u32,
        precision: TsPrecision,
    ) -> io::Result<Self> {
        w.write_all(&file_header(linktype, snaplen, precision))?;
        Ok(PcapWriter {
            w,
            precision,
            hdr: [0; 16],
        })
    }

    /// The precision the writer stores time stamps in.
    pub fn precision(&self) -> TsPrecision {
        self.precision
    }

    /// Writes one record. `ts_frac` is in the writer's unit (µs or ns) and is written
    /// as given; `data.len()` is the captured length.
    ///
    /// Fails (writing nothing) if `data` is longer than `u32::MAX` bytes.
    pub fn write_packet(
        &mut self,
        ts_sec: u32,
        ts_frac: u32,
        data: &[u8],
        orig_len: u32,
    ) -> io::Result<()> {
        let caplen = u32::try_from(data.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "packet longer than 4 GiB"))?;
        self.hdr = record_header(ts_sec, ts_frac, caplen, orig_len);
        self.w.write_all(&self.hdr)?;
        self.w.write_all(data)
    }

    /// Writes a packet read by [`crate::Reader`], converting its nanosecond time
    /// stamp to the writer's precision by truncation and its seconds to 32 bits
    /// (as libpcap does: `(bpf_int32)tv_sec`).
    pub fn write(&mut self, p: &Packet<'_>) -> io::Result<()> {
        let frac = match self.precision {
            TsPrecision::Micro => p.ts_nsec / 1000,
            TsPrecision::Nano => p.ts_nsec,
        };
        self.write_packet(p.ts_sec as u32, frac, p.data, p.orig_len)
    }

    /// Writes a record read by [`crate::Reader::next_record`] exactly as
    /// `tcpdump -r IN -w OUT` would: the time stamp is libpcap's `struct timeval`
    /// for the writer's precision ([`crate::RawTs::libpcap_timeval`]), each field
    /// truncated to 32 bits. This differs from [`PcapWriter::write`] only for
    /// malformed time stamps (fraction of a second >= 1 s or >= 2^31).
    pub fn write_record(&mut self, r: &Record<'_>) -> io::Result<()> {
        let (sec, frac) = r.raw_ts.libpcap_timeval(self.precision);
        self.write_packet(sec as u32, frac as u32, r.packet.data, r.packet.orig_len)
    }

    /// Writes the records of `batch` whose entry in `keep` is true, in order, each
    /// as [`PcapWriter::write_record`] would (records beyond `keep` are not
    /// written).
    ///
    /// Runs of consecutive records that the input file stores exactly as they are
    /// written (a little-endian 2.4 pcap file at the writer's precision, for
    /// example a file `tcpdump -w` wrote) are copied from the reader's buffer with
    /// one `write_all` per run instead of one header and one data write per record.
    pub fn write_batch(&mut self, batch: &RecordBatch<'_>, keep: &[bool]) -> io::Result<()> {
        let n = batch.len().min(keep.len());
        // Work on runs of kept records rather than record by record: which
        // records a filter keeps is unpredictable, and one branch per run costs
        // fewer mispredictions than several per record.
        for (c, chunk) in keep[..n].chunks(64).enumerate() {
            let mut mask = chunk
                .iter()
                .enumerate()
                .fold(0u64, |m, (j, &k)| m | u64::from(k) << j);
            while mask != 0 {
                let first = mask.trailing_zeros() as usize;
                let len = (!(mask >> first)).trailing_zeros() as usize;
                let base = c * 64;
                self.write_run(batch, base + first, base + first + len)?;
                // Clear the bits up to the run's end.
                let done = first + len;
                mask = if done >= 64 { 0 } else { mask >> done << done };
            }
        }
        Ok(())
    }

    /// Writes records `first..end` of `batch`: stored runs with one copy each,
    /// the others with [`PcapWriter::write_record`].
    fn write_run(&mut self, batch: &RecordBatch<'_>, first: usize, end: usize) -> io::Result<()> {
        let mut span: Option<(usize, usize)> = None;
        for i in first..end {
            match (batch.stored_span(i, self.precision), &mut span) {
                // The record follows the span in the buffer: extend it.
                (Some((s, e)), Some((_, span_end))) if *span_end == s => *span_end = e,
                (Some(next), _) => {
                    if let Some((s, e)) = span.replace(next) {
                        self.w.write_all(batch.bytes(s, e))?;
                    }
                }
                (None, _) => {
                    if let Some((s, e)) = span.take() {
                        self.w.write_all(batch.bytes(s, e))?;
                    }
                    if let Some(r) = batch.get(i) {
                        self.write_record(&r)?;
                    }
                }
            }
        }
        if let Some((s, e)) = span {
            self.w.write_all(batch.bytes(s, e))?;
        }
        Ok(())
    }

    /// The underlying writer, for writing records laid out elsewhere (each a
    /// [`record_header`] and the packet's bytes).
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.w
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }

    /// Flushes and returns the underlying writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.w.flush()?;
        Ok(self.w)
    }
}

/// The 16-byte record header [`PcapWriter::write_packet`] writes before a packet:
/// time stamp (seconds, fraction in the file's unit), captured and original
/// length, little-endian.
#[inline]
pub fn record_header(ts_sec: u32, ts_frac: u32, caplen: u32, orig_len: u32) -> [u8; 16] {
    let mut h = [0u8; 16];
    h[0..4].copy_from_slice(&ts_sec.to_le_bytes());
    h[4..8].copy_from_slice(&ts_frac.to_le_bytes());
    h[8..12].copy_from_slice(&caplen.to_le_bytes());
    h[12..16].copy_from_slice(&orig_len.to_le_bytes());
    h
}

/// The 24-byte pcap file header `PcapWriter::new` writes.
pub fn file_header(linktype: LinkType, snaplen: u32, precision: TsPrecision) -> [u8; 24] {
    let mut h = [0u8; 24];
    h[0..4].copy_from_slice(&precision.magic().to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes());
    h[6..8].copy_from_slice(&4u16.to_le_bytes());
    // thiszone, sigfigs: 0
    h[16..20].copy_from_slice(&snaplen.to_le_bytes());
    h[20..24].copy_from_slice(&linktype.0.to_le_bytes());
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_record_layout() {
        let mut w =
            PcapWriter::new(Vec::new(), LinkType::EN10MB, 262144, TsPrecision::Micro).unwrap();
        w.write_packet(0x0102_0304, 999_999, &[0xaa, 0xbb, 0xcc], 60)
            .unwrap();
        let out = w.into_inner().unwrap();
        assert_eq!(
            out,
            [
                0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 1, 0, 0, 0,
                4, 3, 2, 1, 0x3f, 0x42, 0x0f, 0, 3, 0, 0, 0, 60, 0, 0, 0, 0xaa, 0xbb, 0xcc
            ]
        );
    }

    #[test]
    fn nano_magic_and_truncating_conversion() {
        let mut w = PcapWriter::new(Vec::new(), LinkType::RAW, 65535, TsPrecision::Nano).unwrap();
        let p = Packet {
            ts_sec: 0x1_0000_0005,
            ts_nsec: 123_456_789,
            caplen: 1,
            orig_len: 1,
            data: &[0x45],
            interface: 0,
        };
        w.write(&p).unwrap();
        let out = w.into_inner().unwrap();
        assert_eq!(&out[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(&out[24..28], &5u32.to_le_bytes());
        assert_eq!(&out[28..32], &123_456_789u32.to_le_bytes());

        let mut w = PcapWriter::new(Vec::new(), LinkType::RAW, 65535, TsPrecision::Micro).unwrap();
        w.write(&p).unwrap();
        let out = w.into_inner().unwrap();
        assert_eq!(&out[28..32], &123_456u32.to_le_bytes());
    }
}
