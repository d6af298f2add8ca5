//! The streaming reader: detects the format, then hands out packets one at a time
//! or in batches, as slices of its input buffer.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use netsift_wire::LinkType;

use crate::batch::RecordBatch;
use crate::error::{Error, ErrorKind, Part};
use crate::input::{Input, DEFAULT_CAPACITY};
use crate::libpcap;
use crate::packet::{Packet, TsPrecision};
use crate::pcap::{self, PcapState};
use crate::pcapng::{self, NgState};
use crate::postprocess;
use crate::record::{Record, Slot, Step};

/// The container format of a capture file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Classic libpcap format.
    Pcap,
    /// pcapng.
    PcapNg,
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
/// It reads the file in large pieces (1 MiB by default) into one buffer, parses
/// records where they lie and hands out packets as slices of that buffer, so a
/// packet costs no `read` call and no copy. The buffer grows only for a record or
/// block larger than itself (to that size, never shrunk), so memory stays bounded
/// whatever the file's size. It does its own buffering: give it the file itself,
/// not a `BufReader`.
#[derive(Debug)]
pub struct Reader<R: Read> {
    input: Input<R>,
    state: State,
    done: bool,
    /// An error met after some records of a batch, returned by the next call.
    pending: Option<Error>,
    /// The current batch's records.
    slots: Vec<Slot>,
}

/// Opens a capture file for reading.
pub fn open(path: &Path) -> Result<Reader<File>, Error> {
    let f = File::open(path).map_err(|e| Error::new(ErrorKind::Open(e), 0))?;
    Reader::new(f)
}

impl<R: Read> Reader<R> {
    /// Reads the file header (for pcapng: up to and including the first Interface
    /// Description Block) and detects the format from the first 4 bytes.
    pub fn new(r: R) -> Result<Self, Error> {
        Self::with_capacity(r, DEFAULT_CAPACITY)
    }

    /// Like [`Reader::new`], with an input buffer of `capacity` bytes (it still
    /// grows for a larger record or block).
    pub fn with_capacity(r: R, capacity: usize) -> Result<Self, Error> {
        let mut input = Input::new(r, capacity);
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
        let state = if let Some((endian, m)) = pcap::detect(magic) {
            State::Pcap(PcapState::open(&mut input, endian, m)?)
        } else if u32::from_be_bytes(magic) == pcapng::BT_SHB {
            State::PcapNg(NgState::open(&mut input)?)
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
            state,
            done: false,
            pending: None,
            slots: Vec::new(),
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

    /// Bytes of the file consumed so far: the end of the last record (pcapng:
    /// block) returned, or of the file header. (The reader may have read ahead of
    /// it into its buffer.)
    pub fn offset(&self) -> u64 {
        self.input.offset
    }

    /// The underlying reader.
    pub fn get_ref(&self) -> &R {
        self.input.get_ref()
    }

    /// Gives back the underlying reader. Bytes the reader has read ahead into its
    /// buffer (beyond [`Reader::offset`]) are lost with it.
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
        Ok(self.next_batch(1)?.get(0))
    }

    /// The next records, at most `max` (at least 1), as a batch borrowed from the
    /// reader; an empty batch at the end of the file.
    ///
    /// A batch holds the records that are already in the input buffer, so it can
    /// be shorter than `max` before the end of the file (it then ends where the
    /// buffer must be refilled). An error comes only after every complete record
    /// before the fault has been returned: a fault after some records of a batch
    /// is returned by the next call. After an error (or the end) batches are empty.
    pub fn next_batch(&mut self, max: usize) -> Result<RecordBatch<'_>, Error> {
        self.slots.clear();
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        let max = max.max(1);
        self.slots.reserve(max);
        while !self.done && self.slots.len() < max {
            if let State::Pcap(p) = &self.state {
                let before = self.slots.len();
                p.next_buffered(&mut self.input, &mut self.slots, max);
                if postprocess::is_swapped(p.endian) {
                    for i in before..self.slots.len() {
                        self.fix_pseudo_header(i);
                    }
                }
                if self.slots.len() == max {
                    break;
                }
            }
            // Only the first record may refill the buffer, which moves its
            // contents: the others' positions must stay valid.
            let may_move = self.slots.is_empty();
            let step = match &mut self.state {
                State::Pcap(p) => p.next(&mut self.input, may_move),
                State::PcapNg(n) => n.next(&mut self.input, may_move),
            };
            match step {
                Ok(Step::Record(slot)) => {
                    self.slots.push(slot);
                    self.fix_pseudo_header(self.slots.len() - 1);
                }
                Ok(Step::Later) => break,
                Ok(Step::End) => self.done = true,
                Err(e) => {
                    self.done = true;
                    if self.slots.is_empty() {
                        return Err(e);
                    }
                    self.pending = Some(e);
                }
            }
        }
        let precision = self.precision();
        Ok(RecordBatch::new(self.input.buf(), &self.slots, precision))
    }

    /// For a file in the other byte order, converts the link-layer pseudo-header
    /// of the batch's packet `i` in the buffer, as libpcap does.
    fn fix_pseudo_header(&mut self, i: usize) {
        let (endian, linktype) = match &self.state {
            State::Pcap(p) => (p.endian, p.linktype),
            State::PcapNg(n) => (n.endian, n.linktype),
        };
        if let (true, Some(slot)) = (postprocess::is_swapped(endian), self.slots.get(i)) {
            let end = slot.data_start + slot.caplen as usize;
            if let Some(data) = self.input.buf_mut().get_mut(slot.data_start..end) {
                postprocess::swap_pseudo_header(linktype, data, slot.orig_len);
            }
        }
    }
}
