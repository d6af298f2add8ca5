//! A batch of records read together ([`crate::Reader::next_batch`]), borrowed
//! from the reader's buffer.

use crate::packet::{Packet, TsPrecision};
use crate::record::{Record, Slot};

/// Up to `max` records read by one [`crate::Reader::next_batch`] call, valid until
/// the reader's next read.
///
/// Batching lets a caller filter many packets with one call, and lets
/// [`crate::PcapWriter::write_batch`] copy runs of records that are stored exactly
/// as they are written with one copy.
#[derive(Clone, Copy, Debug)]
pub struct RecordBatch<'a> {
    buf: &'a [u8],
    slots: &'a [Slot],
    precision: TsPrecision,
}

impl<'a> RecordBatch<'a> {
    pub(crate) fn new(buf: &'a [u8], slots: &'a [Slot], precision: TsPrecision) -> Self {
        RecordBatch {
            buf,
            slots,
            precision,
        }
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether there are none (the end of the file).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Record `i`, or `None` if `i >= len()`.
    pub fn get(&self, i: usize) -> Option<Record<'a>> {
        let s = self.slots.get(i)?;
        let end = s.data_start + s.caplen as usize;
        let data = self.buf.get(s.data_start..end).unwrap_or_default();
        let (ts_sec, ts_nsec) = s.raw.instant();
        Some(Record {
            packet: Packet {
                ts_sec,
                ts_nsec,
                caplen: data.len() as u32,
                orig_len: s.orig_len,
                data,
                interface: s.interface,
            },
            raw_ts: s.raw,
        })
    }

    /// The records in order.
    pub fn iter(&self) -> impl Iterator<Item = Record<'a>> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// Record `i`'s captured bytes and length on the wire (empty, 0 if out of
    /// range): what a filter needs, without the rest of the record.
    pub fn packet_data(&self, i: usize) -> (&'a [u8], u32) {
        match self.slots.get(i) {
            Some(s) => {
                let end = s.data_start + s.caplen as usize;
                (
                    self.buf.get(s.data_start..end).unwrap_or_default(),
                    s.orig_len,
                )
            }
            None => (&[], 0),
        }
    }

    /// Where record `i`'s file bytes (header and data) lie in the buffer, if the
    /// record is stored exactly as [`crate::PcapWriter::write_record`] writes it at
    /// `precision`: then copying those bytes writes the record.
    ///
    /// That holds for little-endian pcap files of version 2.4 with 16-byte record
    /// headers, read and written at the same precision, for records not cut to the
    /// snapshot length: `write_record` then rewrites every header field with the
    /// value it had (the time stamp fields of a same-precision file pass through
    /// libpcap's `struct timeval` unchanged, as 32-bit values).
    pub(crate) fn stored_span(&self, i: usize, precision: TsPrecision) -> Option<(usize, usize)> {
        let s = self.slots.get(i)?;
        (s.stored && precision == self.precision)
            .then(|| (s.rec_start, s.data_start + s.caplen as usize))
    }

    /// Bytes of the buffer (for spans from [`RecordBatch::stored_span`]).
    pub(crate) fn bytes(&self, start: usize, end: usize) -> &'a [u8] {
        self.buf.get(start..end).unwrap_or_default()
    }
}
