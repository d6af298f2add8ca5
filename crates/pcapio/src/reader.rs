//! The streaming reader: detects the format, then hands out one packet at a time
//! from a single reused buffer.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use netsift_wire::LinkType;

use crate::error::{Error, ErrorKind, Part};
use crate::input::Input;
use crate::libpcap;
use crate::packet::{Packet, TsPrecision};
use crate::pcap::{self, PcapState};
use crate::pcapng::{self, NgState};
use crate::postprocess;

/// The container format of a capture file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Classic libpcap format.
    Pcap,
    /// pcapng.
    PcapNg,
}

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
#[derive(Debug)]
pub(crate) struct Slot {
    pub(crate) data_start: usize,
    pub(crate) caplen: u32,
    pub(crate) orig_len: u32,
    pub(crate) ts_sec: u64,
    pub(crate) ts_nsec: u32,
    pub(crate) interface: u32,
    pub(crate) raw: RawTs,
}

#[derive(Debug)]
enum State {
    Pcap(PcapState),
    PcapNg(NgState),
}

/// What `tcpdump -r IN -w OUT` writes as OUT's file header, for a given input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DumpHeader {
    /// The whole link-type field to write (FCS bits of a pcap input included);
    /// pass it to [`crate::PcapWriter::new`].
    pub linktype: LinkType,
    /// Snapshot length to write (the input's, as libpcap adjusted it).
    pub snaplen: u32,
    /// Precision to write.
    pub precision: TsPrecision,
}

/// A streaming pcap/pcapng reader.
///
/// It keeps one packet buffer (grown to the largest packet or block seen, never
/// shrunk), never reads ahead beyond the packet it returns, and never loads the
/// whole file: wrap unbuffered sources in a `BufReader` (as [`open`] does).
#[derive(Debug)]
pub struct Reader<R: Read> {
    input: Input<R>,
    buf: Vec<u8>,
    state: State,
    done: bool,
}

/// Opens a capture file for reading, buffered.
pub fn open(path: &Path) -> Result<Reader<BufReader<File>>, Error> {
    let f = File::open(path).map_err(|e| Error::new(ErrorKind::Io(e), 0))?;
    Reader::new(BufReader::with_capacity(64 * 1024, f))
}

impl<R: Read> Reader<R> {
    /// Reads the file header (for pcapng: up to and including the first Interface
    /// Description Block) and detects the format from the first 4 bytes.
    pub fn new(r: R) -> Result<Self, Error> {
        let mut input = Input::new(r);
        let mut magic = [0u8; 4];
        let got = input.fill(&mut magic)?;
        if got == 0 {
            return Err(Error::new(ErrorKind::Empty, 0));
        }
        if got < 4 {
            return Err(Error::new(
                ErrorKind::Truncated {
                    part: Part::Magic,
                    needed: 4,
                    got: got as u64,
                },
                0,
            ));
        }
        let mut buf = Vec::with_capacity(2048);
        let state = if let Some((endian, m)) = pcap::detect(magic) {
            State::Pcap(PcapState::open(&mut input, endian, m)?)
        } else if u32::from_be_bytes(magic) == pcapng::BT_SHB {
            State::PcapNg(NgState::open(&mut input, &mut buf)?)
        } else {
            return Err(Error::new(
                ErrorKind::UnknownFormat {
                    magic: u32::from_be_bytes(magic),
                },
                0,
            ));
        };
        Ok(Reader {
            input,
            buf,
            state,
            done: false,
        })
    }

    /// The file's link type (pcap: from the low bits of the header field; pcapng:
    /// the first interface's), as libpcap understands it: the few values that are
    /// Linux DLT_ numbers rather than LINKTYPE_ numbers are mapped to the LINKTYPE_
    /// libpcap treats them as (11 → 100, 12 → 101 RAW, 15 → 102, 16 → 103,
    /// 19 → 106). Use [`Reader::linktype_field`] for the value as stored.
    pub fn linktype(&self) -> LinkType {
        LinkType(match &self.state {
            State::Pcap(p) => p.linktype,
            State::PcapNg(n) => n.linktype,
        })
    }

    /// The pcap header's whole link-type field as stored, including the FCS-length
    /// bits 26-31 (pcapng: the first interface's link type as stored).
    pub fn linktype_field(&self) -> u32 {
        match &self.state {
            State::Pcap(p) => p.linktype_field,
            State::PcapNg(n) => n.linktype_field,
        }
    }

    /// The snapshot length, as libpcap's `pcap_snapshot()` reports it: the header's
    /// (pcapng: the first interface's), or the link type's maximum (262144 for most)
    /// if that is 0 or above 2^31-1 (plus 14 for Kuznetzov-format Ethernet files).
    pub fn snaplen(&self) -> u32 {
        match &self.state {
            State::Pcap(p) => p.snaplen,
            State::PcapNg(n) => n.snaplen,
        }
    }

    /// The snapshot length as stored in the file (pcapng: first interface).
    pub fn snaplen_field(&self) -> u32 {
        match &self.state {
            State::Pcap(p) => p.snaplen_field,
            State::PcapNg(n) => n.snaplen_field,
        }
    }

    /// Time-stamp precision of the file. pcap: from the magic number. pcapng:
    /// `Micro` while every interface seen so far has a resolution of 1 µs or
    /// coarser, else `Nano`. At open only the first interface is known, so for a
    /// pcapng file this can change from `Micro` to `Nano` while reading (never back).
    pub fn precision(&self) -> TsPrecision {
        match &self.state {
            State::Pcap(p) if p.nano => TsPrecision::Nano,
            State::Pcap(_) => TsPrecision::Micro,
            State::PcapNg(n) if n.fine => TsPrecision::Nano,
            State::PcapNg(_) => TsPrecision::Micro,
        }
    }

    /// pcap or pcapng.
    pub fn format(&self) -> Format {
        match &self.state {
            State::Pcap(_) => Format::Pcap,
            State::PcapNg(_) => Format::PcapNg,
        }
    }

    /// Format version (pcap header; pcapng: first section).
    pub fn version(&self) -> (u16, u16) {
        match &self.state {
            State::Pcap(p) => p.version,
            State::PcapNg(n) => n.version,
        }
    }

    /// Whether the file (pcapng: the first section) is big-endian.
    pub fn is_big_endian(&self) -> bool {
        let e = match &self.state {
            State::Pcap(p) => p.endian,
            State::PcapNg(n) => n.endian,
        };
        e == crate::input::Endian::Big
    }

    /// Whether this is a pcap file in Kuznetzov's patched format (magic a1b2cd34).
    pub fn is_kuznetzov(&self) -> bool {
        matches!(&self.state, State::Pcap(p) if p.kuznetzov)
    }

    /// Bytes consumed from the underlying reader so far.
    pub fn offset(&self) -> u64 {
        self.input.offset
    }

    /// The underlying reader.
    pub fn get_ref(&self) -> &R {
        self.input.get_ref()
    }

    /// Gives back the underlying reader.
    pub fn into_inner(self) -> R {
        self.input.into_inner()
    }

    /// What `tcpdump -r THIS -w OUT` (tcpdump 4.99.3, libpcap 1.10.3) writes as
    /// OUT's header; `nano` is whether tcpdump runs with `--nano`
    /// (`--time-stamp-precision=nano`). `None` if libpcap cannot write this link
    /// type to a pcap file (tcpdump then fails).
    pub fn tcpdump_dump_header(&self, nano: bool) -> Option<DumpHeader> {
        let ext = match &self.state {
            State::Pcap(p) => p.linktype_field & 0xfc00_0000,
            State::PcapNg(_) => 0,
        };
        let lt = libpcap::rewritten_linktype(self.linktype().0)?;
        Some(DumpHeader {
            linktype: LinkType(lt | ext),
            snaplen: self.snaplen(),
            precision: if nano {
                TsPrecision::Nano
            } else {
                TsPrecision::Micro
            },
        })
    }

    /// The next packet, or `Ok(None)` at the end of the file.
    ///
    /// An error comes only after every complete packet before the fault has been
    /// returned; after an error (or the end) this returns `Ok(None)`.
    pub fn next_packet(&mut self) -> Result<Option<Packet<'_>>, Error> {
        Ok(self.next_record()?.map(|r| r.packet))
    }

    /// Like [`Reader::next_packet`], with the time stamp as stored in the file.
    pub fn next_record(&mut self) -> Result<Option<Record<'_>>, Error> {
        if self.done {
            return Ok(None);
        }
        let res = match &mut self.state {
            State::Pcap(p) => p.next(&mut self.input, &mut self.buf),
            State::PcapNg(n) => n.next(&mut self.input, &mut self.buf),
        };
        let slot = match res {
            Ok(Some(s)) => s,
            Ok(None) => {
                self.done = true;
                return Ok(None);
            }
            Err(e) => {
                self.done = true;
                return Err(e);
            }
        };
        let end = slot.data_start + slot.caplen as usize;
        let (endian, linktype) = match &self.state {
            State::Pcap(p) => (p.endian, p.linktype),
            State::PcapNg(n) => (n.endian, n.linktype),
        };
        let data = self.buf.get_mut(slot.data_start..end).unwrap_or_default();
        if postprocess::is_swapped(endian) {
            postprocess::swap_pseudo_header(linktype, data, slot.orig_len);
        }
        let data: &[u8] = data;
        Ok(Some(Record {
            packet: Packet {
                ts_sec: slot.ts_sec,
                ts_nsec: slot.ts_nsec,
                caplen: data.len() as u32,
                orig_len: slot.orig_len,
                data,
                interface: slot.interface,
            },
            raw_ts: slot.raw,
        }))
    }
}
