//! What a record of a capture file is, before and after the reader hands it out:
//! its raw time stamp, the packet with that time stamp, and where a parsed record
//! lies in the reader's buffer. The format parsers (`pcap`, `pcapng`) produce these,
//! and the reader, batches and writer consume them.

use crate::packet::{Packet, TsPrecision};

/// A packet's time stamp as the file stores it, for callers that must reproduce
/// libpcap (and so tcpdump) exactly, including on malformed time stamps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawTs {
    /// pcap record header fields (in host order).
    Pcap {
        /// Seconds field.
        sec: u32,
        /// Fraction field: microseconds, or nanoseconds if `nano`; may be >= 1 s in
        /// a malformed file.
        frac: u32,
        /// Whether the file is a nanosecond file.
        nano: bool,
    },
    /// pcapng 64-bit time stamp and its interface's conversion.
    PcapNg {
        /// The time stamp, in units of 1/`tsresol` s.
        ts: u64,
        /// Units per second (if_tsresol).
        tsresol: u64,
        /// Whether if_tsresol is a power of 2.
        binary: bool,
        /// Seconds to add (if_tsoffset).
        tsoffset: u64,
    },
}

impl RawTs {
    /// The exact instant: seconds since the epoch and nanoseconds (below 1 s),
    /// truncating finer resolutions (what [`Packet::ts_sec`] and
    /// [`Packet::ts_nsec`] hold).
    pub fn instant(&self) -> (u64, u32) {
        match *self {
            RawTs::Pcap { sec, frac, nano } => {
                let frac_ns = if nano {
                    u64::from(frac)
                } else {
                    u64::from(frac) * 1000
                };
                (
                    u64::from(sec) + frac_ns / 1_000_000_000,
                    (frac_ns % 1_000_000_000) as u32,
                )
            }
            RawTs::PcapNg {
                ts,
                tsresol,
                binary,
                tsoffset,
            } => {
                let tsresol = tsresol.max(1); // never 0 when read from a file
                let sec = (ts / tsresol).wrapping_add(tsoffset);
                let frac = ts % tsresol;
                let ns = if tsresol == 1_000_000_000 {
                    frac
                } else if !binary && tsresol < 1_000_000_000 {
                    frac * (1_000_000_000 / tsresol)
                } else if !binary {
                    frac / (tsresol / 1_000_000_000)
                } else {
                    (u128::from(frac) * 1_000_000_000 / u128::from(tsresol)) as u64
                };
                (sec, ns as u32)
            }
        }
    }

    /// The `struct timeval` libpcap 1.10.3 (64-bit Linux) hands to its caller when
    /// the file is opened with `precision`: `(tv_sec, tv_usec)` in µs or ns.
    ///
    /// For pcap files both fields are the stored 32-bit values *as signed*
    /// (a seconds field >= 2^31 gives a negative `tv_sec`, a fraction >= 2^31 a
    /// negative fraction), then the fraction is scaled (truncating toward zero).
    /// For pcapng the integer arithmetic is libpcap's, including its wrap-around.
    /// This is what tcpdump prints and what `tcpdump -w` stores (each field
    /// truncated to 32 bits).
    pub fn libpcap_timeval(&self, precision: TsPrecision) -> (i64, i64) {
        match *self {
            RawTs::Pcap { sec, frac, nano } => {
                let s = i64::from(sec as i32);
                let f = i64::from(frac as i32);
                let f = match (nano, precision) {
                    (true, TsPrecision::Micro) => f / 1000,
                    (false, TsPrecision::Nano) => f * 1000,
                    _ => f,
                };
                (s, f)
            }
            RawTs::PcapNg {
                ts,
                tsresol,
                binary,
                tsoffset,
            } => {
                let user = u64::from(precision.units_per_sec());
                let tsresol = tsresol.max(1); // never 0 when read from a file
                let sec = (ts / tsresol).wrapping_add(tsoffset);
                let mut frac = ts % tsresol;
                if tsresol != user {
                    if binary {
                        frac = frac.wrapping_mul(user) / tsresol;
                    } else if tsresol > user {
                        frac /= tsresol / user;
                    } else {
                        frac = frac.wrapping_mul(user / tsresol);
                    }
                }
                (sec as i64, i64::from(frac as i32))
            }
        }
    }
}

/// A packet together with its raw time stamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record<'a> {
    /// The packet.
    pub packet: Packet<'a>,
    /// Its time stamp as stored in the file.
    pub raw_ts: RawTs,
}

/// Where a packet sits in the reader's buffer (crate-internal).
#[derive(Clone, Debug)]
pub(crate) struct Slot {
    /// Start of the record (pcap header, pcapng block) in the buffer.
    pub(crate) rec_start: usize,
    pub(crate) data_start: usize,
    pub(crate) caplen: u32,
    pub(crate) orig_len: u32,
    pub(crate) interface: u32,
    pub(crate) raw: RawTs,
    /// Whether `rec_start..data_start + caplen` is the record exactly as
    /// [`crate::PcapWriter::write_record`] writes it at the file's precision.
    pub(crate) stored: bool,
}

/// What parsing the next record found (crate-internal).
pub(crate) enum Step {
    Record(Slot),
    /// A clean end of file.
    End,
    /// The record is not wholly buffered, and the buffer was not allowed to move
    /// (earlier records of the batch point into it): try again with a new batch.
    Later,
}
