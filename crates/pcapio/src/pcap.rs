//! Classic pcap format, read as libpcap 1.10.3's `sf-pcap.c` reads it.

use std::io::Read;

use crate::error::{Error, ErrorKind, Part};
use crate::input::{Endian, Input};
use crate::libpcap;
use crate::packet::{MAGIC_MICRO, MAGIC_NANO};
use crate::record::{RawTs, Slot, Step};

/// Magic of Alexey Kuznetzov's patched format (24-byte record headers, µs).
pub const MAGIC_KUZNETZOV: u32 = 0xa1b2_cd34;

/// Whether caplen and len are swapped in the record headers (pcap versions < 2.3,
/// some 2.3 files, and DG/UX's 543.0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lengths {
    Normal,
    Swapped,
    MaybeSwapped,
}

#[derive(Debug)]
pub(crate) struct PcapState {
    pub(crate) endian: Endian,
    pub(crate) nano: bool,
    pub(crate) kuznetzov: bool,
    pub(crate) version: (u16, u16),
    /// The whole 32-bit link-type field of the header.
    pub(crate) linktype_field: u32,
    /// LINKTYPE_ value as libpcap understands the low 26 bits of the field.
    pub(crate) linktype: u32,
    /// Snapshot length as libpcap adjusts it.
    pub(crate) snaplen: u32,
    /// The header's snapshot length field as stored.
    pub(crate) snaplen_field: u32,
    lengths: Lengths,
    max_caplen: u32,
    hdr_size: usize,
}

/// Which of the three pcap magics `m` (as read little-endian) is, in which byte order.
pub(crate) fn detect(magic: [u8; 4]) -> Option<(Endian, u32)> {
    let is = |m: u32| m == MAGIC_MICRO || m == MAGIC_NANO || m == MAGIC_KUZNETZOV;
    let le = u32::from_le_bytes(magic);
    if is(le) {
        return Some((Endian::Little, le));
    }
    let be = u32::from_be_bytes(magic);
    if is(be) {
        return Some((Endian::Big, be));
    }
    None
}

impl PcapState {
    /// Reads the rest of the 24-byte file header (the magic has been read).
    pub(crate) fn open<R: Read>(
        input: &mut Input<R>,
        endian: Endian,
        magic: u32,
    ) -> Result<PcapState, Error> {
        let mut h = [0u8; 20];
        let got = input.fill(&mut h)?;
        if got < h.len() {
            return Err(Error::new(
                ErrorKind::Truncated {
                    part: Part::PcapFileHeader,
                    needed: 24,
                    got: 4 + got as u64,
                },
                0,
            ));
        }
        // h holds file bytes 4..24.
        let major = endian.u16([h[0], h[1]]);
        let minor = endian.u16([h[2], h[3]]);
        let snaplen_field = endian.u32([h[12], h[13], h[14], h[15]]);
        let field = endian.u32([h[16], h[17], h[18], h[19]]);

        if major < 2 {
            return Err(Error::new(ErrorKind::ArchaicVersion { major, minor }, 4));
        }
        if !((major == 2 && minor <= 4) || (major == 543 && minor == 0)) {
            return Err(Error::new(
                ErrorKind::UnsupportedVersion { major, minor },
                4,
            ));
        }
        // libpcap 1.10.3 keeps the low 26 bits as the link type, so a file with
        // bits 16-25 set opens with a link type above 65535 that no LINKTYPE_ has,
        // and tcpdump then refuses it ("unknown data link type"). We refuse it here.
        if field & 0x03ff_0000 != 0 {
            return Err(Error::new(ErrorKind::ReservedLinkTypeBits { field }, 20));
        }
        let raw_linktype = field & 0x03ff_ffff;
        let dlt = libpcap::linktype_to_dlt(raw_linktype);
        // The LINKTYPE_ libpcap means by it (e.g. 12, DLT_RAW on Linux, is RAW, 101).
        let linktype = libpcap::dlt_to_linktype(dlt).unwrap_or(raw_linktype);
        let mut snaplen = libpcap::adjust_snapshot(dlt, snaplen_field);
        let kuznetzov = magic == MAGIC_KUZNETZOV;
        if kuznetzov && dlt == 1 {
            // libpcap assumes a cooked-mode capture with a faked Ethernet header.
            snaplen = snaplen.saturating_add(14).min(i32::MAX as u32);
        }
        let lengths = match (major, minor) {
            (2, 0..=2) | (543, _) => Lengths::Swapped,
            (2, 3) => Lengths::MaybeSwapped,
            _ => Lengths::Normal,
        };
        Ok(PcapState {
            endian,
            nano: magic == MAGIC_NANO,
            kuznetzov,
            version: (major, minor),
            linktype_field: field,
            linktype,
            snaplen,
            snaplen_field,
            lengths,
            max_caplen: libpcap::max_snaplen_for(dlt),
            hdr_size: if kuznetzov { 24 } else { 16 },
        })
    }

    /// (caplen, len) from the record header's third and fourth fields, which some
    /// versions store the other way round.
    fn lengths(&self, third: u32, fourth: u32) -> (u32, u32) {
        let swap = match self.lengths {
            Lengths::Normal => false,
            Lengths::Swapped => true,
            Lengths::MaybeSwapped => third > fourth,
        };
        if swap {
            (fourth, third)
        } else {
            (third, fourth)
        }
    }

    /// Whether records are stored exactly as [`crate::PcapWriter`] writes them
    /// (little-endian header, caplen and len in their usual places, 16-byte
    /// headers): then an uncut record can be copied to the output byte for byte.
    fn stored_as_written(&self) -> bool {
        self.endian == Endian::Little && self.lengths == Lengths::Normal && !self.kuznetzov
    }

    /// Parses the records that lie wholly in the buffer, up to `max` slots in all,
    /// as long as they need nothing more than reading: the hot loop of a large
    /// file. It stops before a record that is incomplete, must be cut to the
    /// snapshot length or is invalid; [`PcapState::next`] deals with that one.
    pub(crate) fn next_buffered<R: Read>(
        &self,
        input: &mut Input<R>,
        slots: &mut Vec<Slot>,
        max: usize,
    ) {
        // One copy of the loop per byte order, so decoding a field is one load.
        match self.endian {
            Endian::Little => self.take_buffered::<R, false>(input, slots, max),
            Endian::Big => self.take_buffered::<R, true>(input, slots, max),
        }
    }

    fn take_buffered<R: Read, const BIG: bool>(
        &self,
        input: &mut Input<R>,
        slots: &mut Vec<Slot>,
        max: usize,
    ) {
        let field = |h: &[u8], at: usize| {
            let b = [h[at], h[at + 1], h[at + 2], h[at + 3]];
            if BIG {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            }
        };
        // Above this a record is cut or refused: not for this loop.
        let limit = self.snaplen.min(self.max_caplen);
        let stored = self.stored_as_written();
        let hs = self.hdr_size;
        let base = input.pos();
        let bytes = input.buffered();
        let mut at = 0;
        while slots.len() < max {
            let Some(h) = bytes.get(at..at + 16) else {
                break;
            };
            let (sec, frac) = (field(h, 0), field(h, 4));
            let (caplen, len) = self.lengths(field(h, 8), field(h, 12));
            if caplen > limit {
                break;
            }
            let end = at + hs + caplen as usize;
            if end > bytes.len() {
                break;
            }
            slots.push(Slot {
                rec_start: base + at,
                data_start: base + at + hs,
                caplen,
                orig_len: len,
                interface: 0,
                raw: RawTs::Pcap {
                    sec,
                    frac,
                    nano: self.nano,
                },
                stored,
            });
            at = end;
        }
        input.consume(at);
    }

    /// Parses the next record in place. With `may_move` false nothing is read and
    /// nothing moves: a record not wholly buffered gives [`Step::Later`].
    pub(crate) fn next<R: Read>(
        &mut self,
        input: &mut Input<R>,
        may_move: bool,
    ) -> Result<Step, Error> {
        let start = input.offset;
        let hs = self.hdr_size;
        if input.available() < hs {
            if !may_move {
                return Ok(Step::Later);
            }
            let got = input.fill_to(hs)?;
            if got == 0 {
                return Ok(Step::End);
            }
            if got < hs {
                return Err(Error::new(
                    ErrorKind::Truncated {
                        part: Part::PcapRecordHeader,
                        needed: hs as u64,
                        got: got as u64,
                    },
                    start,
                ));
            }
        }
        let h = input.buffered();
        let e = self.endian;
        let sec = e.u32([h[0], h[1], h[2], h[3]]);
        let frac = e.u32([h[4], h[5], h[6], h[7]]);
        let (caplen, len) = self.lengths(
            e.u32([h[8], h[9], h[10], h[11]]),
            e.u32([h[12], h[13], h[14], h[15]]),
        );

        if caplen > self.max_caplen {
            let (limit, snaplen) = if caplen > self.snaplen {
                (self.snaplen, true)
            } else {
                (self.max_caplen, false)
            };
            return Err(Error::new(
                ErrorKind::CaplenTooLarge {
                    caplen,
                    limit,
                    snaplen,
                },
                start,
            ));
        }

        // Like libpcap, a record longer than the snapshot length is cut to it:
        // keep the first snaplen bytes, discard the rest, and report the snapshot
        // length as the captured length.
        let keep = caplen.min(self.snaplen);
        let whole = hs + caplen as usize;
        let rec_start;
        if input.available() >= whole {
            rec_start = input.pos();
            input.consume(whole);
        } else if !may_move {
            return Ok(Step::Later);
        } else {
            let want = hs + keep as usize;
            let got = input.fill_to(want)?;
            if got < want {
                return Err(Error::new(
                    ErrorKind::TruncatedPacket {
                        caplen,
                        got: (got - hs) as u64,
                    },
                    start,
                ));
            }
            rec_start = input.pos();
            input.consume(want);
            let rest = u64::from(caplen - keep);
            let skipped = input.skip(rest)?;
            if skipped < rest {
                return Err(Error::new(
                    ErrorKind::TruncatedPacket {
                        caplen,
                        got: u64::from(keep) + skipped,
                    },
                    start,
                ));
            }
        }

        Ok(Step::Record(Slot {
            rec_start,
            data_start: rec_start + hs,
            caplen: keep,
            orig_len: len,
            interface: 0,
            raw: RawTs::Pcap {
                sec,
                frac,
                nano: self.nano,
            },
            stored: keep == caplen && self.stored_as_written(),
        }))
    }
}
