//! Where accepted packets go. A [`Sink`] takes them one at a time, or a file
//! batch at a time, or a ring block at a time laid out as pcap records
//! ([`Records`]); the front end's sinks are a pcap writer, a printer, a counter,
//! and soon the daemon's shared buffers. [`Callback`] makes a closure a sink.

use netsift_pcapio::{Packet, RawTs, Record, RecordBatch};

/// A sink's own error, passed through as the source of [`crate::Error`].
pub type SinkError = Box<dyn std::error::Error + Send + Sync>;

/// Where accepted packets go.
pub trait Sink {
    /// One accepted packet.
    fn packet(&mut self, rec: &Record<'_>) -> Result<(), SinkError>;

    /// The records of a file batch whose `keep` entry is true. By default one
    /// [`Sink::packet`] each; a writer can copy the records as they are.
    fn batch(&mut self, batch: &RecordBatch<'_>, keep: &[bool]) -> Result<(), SinkError> {
        for (rec, _) in batch.iter().zip(keep).filter(|(_, k)| **k) {
            self.packet(&rec)?;
        }
        Ok(())
    }

    /// A buffer to lay one ring block's accepted packets out in, as pcap
    /// records, if this sink writes them so ([`Sink::write_records`]); `None`:
    /// they come one by one through [`Sink::packet`].
    fn records(&mut self) -> Option<Records> {
        None
    }

    /// Writes what [`Sink::records`] handed out, filled.
    fn write_records(&mut self, records: Records) -> Result<(), SinkError> {
        let _ = records;
        Ok(())
    }

    /// Writes out what is buffered (between files, and at the end).
    fn flush(&mut self) -> Result<(), SinkError> {
        Ok(())
    }
}

/// A closure as a sink: it is called with every accepted packet.
pub struct Callback<F>(pub F);

impl<F: FnMut(&Record<'_>) -> Result<(), SinkError>> Sink for Callback<F> {
    fn packet(&mut self, rec: &Record<'_>) -> Result<(), SinkError> {
        (self.0)(rec)
    }
}

/// One ring block's accepted packets laid out as pcap records, to be written in
/// one go.
///
/// A copy, but into a buffer the size of one block's records, which stays in
/// cache from one block to the next: cheaper than a vectored write of a header
/// and a slice of the ring per packet (which the kernel takes apart slice by
/// slice), and than large chunks whose every line is a cache miss by the time
/// it is written again.
#[derive(Debug, Default)]
pub struct Records {
    buf: Vec<u8>,
    n: u64,
    nano: bool,
    /// Per record, whether the host sent it (`PACKET_OUTGOING`): a pcap record
    /// has no room for it, and the daemon's flows filter on it.
    outgoing: Vec<bool>,
    /// Per record, whether the kernel took a VLAN tag out of it (put back in
    /// the record's data, `netsift_capture::Frame::tag_put_back`): the
    /// daemon's flows read such frames as libpcap's kernel filter does.
    tag_put_back: Vec<bool>,
}

impl Records {
    /// An empty layout in `buf` (emptied), for a file of nanosecond time stamps
    /// if `nano`, else microseconds.
    pub fn new(mut buf: Vec<u8>, nano: bool) -> Records {
        buf.clear();
        Records {
            buf,
            n: 0,
            nano,
            outgoing: Vec::new(),
            tag_put_back: Vec::new(),
        }
    }

    /// Emptied for the next block, keeping both buffers.
    pub fn recycle(mut self) -> Records {
        self.buf.clear();
        self.outgoing.clear();
        self.tag_put_back.clear();
        self.n = 0;
        self
    }

    /// Adds a packet with time stamp `sec` s + `nsec` ns, captured bytes `data`
    /// and length `wire` on the wire: the record a pcap writer writes for
    /// [`record`]`(sec, nsec, data, wire)` (a time stamp of nanoseconds,
    /// converted as libpcap converts one, each field cut to 32 bits).
    #[inline]
    pub fn push(&mut self, sec: u32, nsec: u32, data: &[u8], wire: u32) {
        self.push_directed(sec, nsec, data, wire, (false, false));
    }

    /// [`Records::push`], with whether the host sent the packet
    /// ([`Records::outgoing`]) and whether the kernel took a VLAN tag out of
    /// it ([`Records::tag_put_back`]).
    #[inline]
    pub fn push_directed(
        &mut self,
        sec: u32,
        nsec: u32,
        data: &[u8],
        wire: u32,
        (outgoing, tag_put_back): (bool, bool),
    ) {
        let frac = if self.nano {
            nsec
        } else {
            (nsec as i32 / 1000) as u32
        };
        let h = netsift_pcapio::record_header(sec, frac, data.len() as u32, wire);
        self.buf.extend_from_slice(&h);
        self.buf.extend_from_slice(data);
        self.outgoing.push(outgoing);
        self.tag_put_back.push(tag_put_back);
        self.n += 1;
    }

    /// Per record in order, whether the kernel took a VLAN tag out of it and
    /// the ring put it back (false for records pushed without one).
    pub fn tag_put_back(&self) -> &[bool] {
        &self.tag_put_back
    }

    /// Per record in order, whether the host sent it (false for records
    /// pushed without a direction).
    pub fn outgoing(&self) -> &[bool] {
        &self.outgoing
    }

    /// The records' bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.buf
    }

    /// How many records it holds.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The buffer, for the next block.
    pub fn into_buffer(self) -> Vec<u8> {
        self.buf
    }
}

/// A captured packet as a record: time stamp `sec` s + `nsec` ns, captured bytes
/// `data`, `wire` bytes long on the wire. The one conversion from what a ring,
/// a worker's batch or the XDP ring buffer holds to what sinks take.
#[inline]
pub fn record(sec: u32, nsec: u32, data: &[u8], wire: u32) -> Record<'_> {
    Record {
        packet: Packet {
            ts_sec: u64::from(sec),
            ts_nsec: nsec,
            caplen: data.len() as u32,
            orig_len: wire,
            data,
            interface: 0,
        },
        raw_ts: RawTs::Pcap {
            sec,
            frac: nsec,
            nano: true,
        },
    }
}

/// Splits a time stamp in nanoseconds since the epoch into seconds (cut to 32
/// bits, as a pcap record holds them) and nanoseconds.
#[inline]
pub(crate) fn split_ns(ns: u64) -> (u32, u32) {
    ((ns / 1_000_000_000) as u32, (ns % 1_000_000_000) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use netsift_pcapio::{PcapWriter, TsPrecision};
    use netsift_wire::LinkType;

    /// A record laid out by `Records::push` is the record a pcap writer writes
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
                w.write_record(&record(sec, nsec, &data, 60)).unwrap();
                let mut r = Records::new(Vec::new(), precision == TsPrecision::Nano);
                r.push(sec, nsec, &data, 60);
                assert_eq!(
                    r.bytes(),
                    &w.into_inner().unwrap()[24..],
                    "{sec} {nsec} {precision:?}"
                );
                assert_eq!(r.len(), 1);
            }
        }
    }

    #[test]
    fn a_callback_sees_each_kept_packet() {
        let mut seen = Vec::new();
        let mut s = Callback(|r: &Record<'_>| {
            seen.push(r.packet.orig_len);
            Ok(())
        });
        s.packet(&record(1, 2, &[1, 2, 3], 90)).unwrap();
        s.packet(&record(1, 3, &[1], 91)).unwrap();
        assert_eq!(seen, [90, 91]);
    }
}
