//! Classic pcap format, read as libpcap 1.10.3's `sf-pcap.c` reads it.

use std::io::Read;

use crate::error::{Error, ErrorKind, Part};
use crate::input::{Endian, Input};
use crate::libpcap;
use crate::reader::{RawTs, Slot};

/// Magic of a microsecond pcap file.
pub const MAGIC_MICRO: u32 = 0xa1b2_c3d4;
/// Magic of a nanosecond pcap file.
pub const MAGIC_NANO: u32 = 0xa1b2_3c4d;
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

    /// Reads the next record into `buf`.
    pub(crate) fn next<R: Read>(
        &mut self,
        input: &mut Input<R>,
        buf: &mut Vec<u8>,
    ) -> Result<Option<Slot>, Error> {
        let start = input.offset;
        let mut h = [0u8; 24];
        let hdr = &mut h[..self.hdr_size];
        let got = input.fill(hdr)?;
        if got == 0 {
            return Ok(None);
        }
        if got < hdr.len() {
            return Err(Error::new(
                ErrorKind::Truncated {
                    part: Part::PcapRecordHeader,
                    needed: self.hdr_size as u64,
                    got: got as u64,
                },
                start,
            ));
        }
        let e = self.endian;
        let sec = e.u32([h[0], h[1], h[2], h[3]]);
        let frac = e.u32([h[4], h[5], h[6], h[7]]);
        let mut caplen = e.u32([h[8], h[9], h[10], h[11]]);
        let mut len = e.u32([h[12], h[13], h[14], h[15]]);
        let swap = match self.lengths {
            Lengths::Normal => false,
            Lengths::Swapped => true,
            Lengths::MaybeSwapped => caplen > len,
        };
        if swap {
            std::mem::swap(&mut caplen, &mut len);
        }

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

        if caplen > self.snaplen {
            // Like libpcap: keep the first snaplen bytes, discard the rest, and
            // report the snapshot length as the captured length.
            let got = input.read_vec(buf, u64::from(self.snaplen))?;
            if got < u64::from(self.snaplen) {
                return Err(Error::new(
                    ErrorKind::TruncatedPacket { caplen, got },
                    start,
                ));
            }
            let rest = u64::from(caplen - self.snaplen);
            let skipped = input.skip(rest)?;
            if skipped < rest {
                return Err(Error::new(
                    ErrorKind::TruncatedPacket {
                        caplen,
                        got: got + skipped,
                    },
                    start,
                ));
            }
            caplen = self.snaplen;
        } else {
            let got = input.read_vec(buf, u64::from(caplen))?;
            if got < u64::from(caplen) {
                return Err(Error::new(
                    ErrorKind::TruncatedPacket { caplen, got },
                    start,
                ));
            }
        }

        let frac_ns = if self.nano {
            u64::from(frac)
        } else {
            u64::from(frac) * 1000
        };
        Ok(Some(Slot {
            data_start: 0,
            caplen,
            orig_len: len,
            ts_sec: u64::from(sec) + frac_ns / 1_000_000_000,
            ts_nsec: (frac_ns % 1_000_000_000) as u32,
            interface: 0,
            raw: RawTs::Pcap {
                sec,
                frac,
                nano: self.nano,
            },
        }))
    }
}
