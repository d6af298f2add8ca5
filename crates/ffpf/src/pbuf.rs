//! PBuf: one flow group's packet store, a byte ring of packet records in a
//! sealed memfd, written once per packet however many flows accepted it.
//!
//! ```text
//!  file offset 0                                   4096                       4096 + C
//!  ┌────────────────────── header page ──────────────┬──────── data area (C bytes) ────────┐
//!  │ 0 magic  8 version 12 header_len 16 capacity C  │ rec │ rec │ rec │ … │ pad │          │
//!  │ 64 write W   72 claim                           │                                     │
//!  │ 128 packets  136 bytes  144 full_drops          │                                     │
//!  └─────────────────────────────────────────────────┴─────────────────────────────────────┘
//!
//!  record at position p, stored at data[p mod C], 8-aligned, never straddling the end:
//!  ┌──────────┬──────────┬──────────┬───────────────────────────────┐
//!  │ caplen   │ wirelen  │ ts_ns    │ caplen bytes, zero-padded to 8 │
//!  │ u32      │ u32      │ u64      │                               │
//!  └──────────┴──────────┴──────────┴───────────────────────────────┘
//!  padding record (fills the tail when the next record would straddle):
//!  caplen = PAD (u32::MAX), wirelen = bytes of padding, header included
//! ```
//!
//! Positions are monotone `u64` byte offsets that never wrap (2^64 bytes is
//! centuries at line rate); the physical offset is `p mod C`, with `C` a power
//! of two. `W` (`write`) is the end of the last complete record. `claim` is the
//! end of the bytes the writer is *about* to write: it is raised before any
//! byte of a record is stored, so a reader that copied the record at `p`
//! (length `len`) and then sees `claim - p <= C` knows no byte it copied was
//! overwritten while it copied: this is the seeds' wrap counter, generalised
//! to a sequence check ([`PbufView::read`]).
//!
//! The record header leads with the lengths (not the time stamp, as the
//! seeds' sketch has it) so that a padding marker fits in the 8 bytes that may
//! be all that is left at the end of the area.
//!
//! Memory ordering (one writer): `claim.store(Relaxed)`, `fence(Release)`, the
//! record's words (relaxed), `write.store(Release)`. A reader loads `write`
//! (acquire) before the record, copies it (relaxed), `fence(Acquire)`, then
//! loads `claim`: if it saw any byte of a newer record, the fences make the
//! newer claim visible, so a torn copy is always caught.
//!
//! Which positions the writer may overwrite is the buffer policy's business
//! ([`crate::policy`]): [`PbufWriter::fits`] answers it for a reclaim position.

use crate::error::Error;
use crate::shm::{file_len, Memfd, RoMapping, RwMapping};
use std::mem::offset_of;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{fence, Ordering};

/// "nsfPBUF\0", little-endian: the first word of every PBuf.
pub const PBUF_MAGIC: u64 = u64::from_le_bytes(*b"nsfPBUF\0");
/// The layout version this crate writes and reads.
pub const PBUF_VERSION: u32 = 1;
/// Bytes before the data area: one page of header.
pub const PBUF_HEADER_LEN: usize = 4096;
/// Bytes of a record's header.
pub const RECORD_HEADER_LEN: usize = 16;
/// `caplen` of a padding record.
pub const PAD: u32 = u32::MAX;
/// The smallest data area (one page) and the largest (1 TiB).
pub const PBUF_MIN: u64 = 4096;
/// The largest data area.
pub const PBUF_MAX: u64 = 1 << 40;

/// The header page's layout. Never instantiated: its field offsets are the
/// offsets of the shared words, all accessed atomically.
#[repr(C)]
pub struct PbufHeader {
    /// [`PBUF_MAGIC`].
    pub magic: u64,
    /// [`PBUF_VERSION`].
    pub version: u32,
    /// [`PBUF_HEADER_LEN`].
    pub header_len: u32,
    /// `C`, the data area's bytes, a power of two.
    pub capacity: u64,
    _pad0: [u64; 5],
    /// `W`: the end position of the last complete record.
    pub write: u64,
    /// The end position of the record being written (`>= W`).
    pub claim: u64,
    _pad1: [u64; 6],
    /// Packets stored.
    pub packets: u64,
    /// Bytes of records stored, padding included.
    pub bytes: u64,
    /// Packets refused because the slow-reader policy found no room.
    pub full_drops: u64,
}

/// Bytes a record of `caplen` bytes takes, header and padding included.
pub fn record_len(caplen: u32) -> u64 {
    RECORD_HEADER_LEN as u64 + u64::from(caplen).div_ceil(8) * 8
}

/// Where a record of `len` bytes written at `w` starts and ends in a ring of
/// `cap` bytes: at `w`, or at the next multiple of `cap` when it would straddle.
fn span(w: u64, len: u64, cap: u64) -> (u64, u64) {
    let off = w & (cap - 1);
    let start = if off + len > cap { w + (cap - off) } else { w };
    (start, start + len)
}

/// The owner's side of a PBuf: appends records.
#[derive(Debug)]
pub struct PbufWriter {
    memfd: Memfd,
    map: RwMapping,
    cap: u64,
    w: u64,
    packets: u64,
    bytes: u64,
    full_drops: u64,
}

/// A memfd holding a PBuf header for a data area of `capacity` bytes,
/// mapped read-write here and then sealed, so that every other mapping of it
/// (a client's, and for zero copy the kernel's pins through this one) is
/// read-only. The shared store and the zero-copy frame ring both start so.
pub(crate) fn create_sealed(
    name: &std::ffi::CStr,
    what: &str,
    capacity: u64,
) -> Result<(Memfd, RwMapping), Error> {
    let len = usize::try_from(capacity)
        .ok()
        .and_then(|c| c.checked_add(PBUF_HEADER_LEN))
        .ok_or_else(|| Error::invalid(format!("{what} of {capacity} bytes: too large")))?;
    let memfd = Memfd::create(name, len)?;
    let map = memfd.map_rw()?;
    map.u64(offset_of!(PbufHeader, capacity))
        .store(capacity, Ordering::Relaxed);
    map.u32(offset_of!(PbufHeader, version))
        .store(PBUF_VERSION, Ordering::Relaxed);
    map.u32(offset_of!(PbufHeader, header_len))
        .store(PBUF_HEADER_LEN as u32, Ordering::Relaxed);
    map.u64(offset_of!(PbufHeader, magic))
        .store(PBUF_MAGIC, Ordering::Release);
    memfd.seal_readers()?;
    Ok((memfd, map))
}

impl PbufWriter {
    /// A PBuf with a data area of `capacity` bytes (a power of two from
    /// [`PBUF_MIN`] to [`PBUF_MAX`]), mapped read-write and then sealed so
    /// every other mapping of it is read-only.
    pub fn create(capacity: u64) -> Result<PbufWriter, Error> {
        if !capacity.is_power_of_two() || !(PBUF_MIN..=PBUF_MAX).contains(&capacity) {
            return Err(Error::invalid(format!(
                "PBuf of {capacity} bytes: a power of two from {PBUF_MIN} to {PBUF_MAX}"
            )));
        }
        let (memfd, map) = create_sealed(c"netsift-pbuf", "PBuf", capacity)?;
        Ok(PbufWriter {
            memfd,
            map,
            cap: capacity,
            w: 0,
            packets: 0,
            bytes: 0,
            full_drops: 0,
        })
    }

    /// `C`, the data area's bytes.
    pub fn capacity(&self) -> u64 {
        self.cap
    }

    /// `W`, the end position of the last record.
    pub fn write_pos(&self) -> u64 {
        self.w
    }

    /// The longest capture a record can hold; longer packets are cut to it.
    pub fn max_caplen(&self) -> u32 {
        u32::try_from(self.cap - RECORD_HEADER_LEN as u64).unwrap_or(u32::MAX - 7)
    }

    /// The file's descriptor (sealed: others can map it read-only only).
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.memfd.fd()
    }

    /// A second descriptor of the file, for a client.
    pub fn dup(&self) -> Result<OwnedFd, Error> {
        self.memfd.dup()
    }

    /// Whether a record of `caplen` bytes can be written without touching any
    /// position in `[reclaim, W)`, the bytes some reader still needs.
    pub fn fits(&self, caplen: u32, reclaim: u64) -> bool {
        let (_, end) = span(self.w, record_len(caplen), self.cap);
        reclaim >= self.w || end.saturating_sub(self.cap) <= reclaim
    }

    /// Counts a packet refused for lack of room.
    pub fn count_full_drop(&mut self) {
        self.full_drops += 1;
    }

    /// Appends one record and returns its position. The caller decided it may
    /// overwrite what lies there ([`PbufWriter::fits`] under the slow-reader
    /// policy).
    ///
    /// # Panics
    /// If `bytes` is longer than [`PbufWriter::max_caplen`] (a
    /// [`crate::Group`] cuts packets to it first).
    pub fn append(&mut self, bytes: &[u8], ts_ns: u64, wirelen: u32) -> u64 {
        let caplen = u32::try_from(bytes.len())
            .ok()
            .filter(|&c| c <= self.max_caplen())
            .expect("PbufWriter::append: record longer than max_caplen");
        let len = record_len(caplen);
        let (start, end) = span(self.w, len, self.cap);
        let base = PBUF_HEADER_LEN as u64;
        // Announce the bytes about to change before changing any (see the
        // module's memory ordering).
        self.map
            .u64(offset_of!(PbufHeader, claim))
            .store(end, Ordering::Relaxed);
        fence(Ordering::Release);
        // A padding record, unless the new record itself covers its place
        // (only when nothing unread is left in the ring).
        if start > self.w && end.saturating_sub(self.cap) <= self.w {
            let at = (base + (self.w & (self.cap - 1))) as usize;
            let pad = (start - self.w) as u32;
            self.map.u32(at).store(PAD, Ordering::Relaxed);
            self.map.u32(at + 4).store(pad, Ordering::Relaxed);
        }
        let at = (base + (start & (self.cap - 1))) as usize;
        self.map.u32(at).store(caplen, Ordering::Relaxed);
        self.map.u32(at + 4).store(wirelen, Ordering::Relaxed);
        self.map.u64(at + 8).store(ts_ns, Ordering::Relaxed);
        self.map.store_words(at + RECORD_HEADER_LEN, bytes);
        self.bytes += end - self.w;
        self.packets += 1;
        self.w = end;
        // Publishes the record: a reader that sees this W sees its bytes.
        self.map
            .u64(offset_of!(PbufHeader, write))
            .store(end, Ordering::Release);
        start
    }

    /// Publishes the statistics words (once per batch).
    pub fn publish_stats(&self) {
        let m = &self.map;
        m.u64(offset_of!(PbufHeader, packets))
            .store(self.packets, Ordering::Relaxed);
        m.u64(offset_of!(PbufHeader, bytes))
            .store(self.bytes, Ordering::Relaxed);
        m.u64(offset_of!(PbufHeader, full_drops))
            .store(self.full_drops, Ordering::Relaxed);
    }

    /// Packets stored, bytes of records (padding included), packets refused.
    pub fn stats(&self) -> (u64, u64, u64) {
        (self.packets, self.bytes, self.full_drops)
    }
}

/// What reading one record gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordRead {
    /// The record, copied whole: its time stamp and length on the wire (the
    /// bytes were appended to the caller's buffer).
    Ok {
        /// Nanoseconds since the epoch.
        ts_ns: u64,
        /// The packet's length on the wire.
        wirelen: u32,
    },
    /// The writer overwrote (part of) the record: the copy is discarded.
    Overwritten,
    /// The position or length does not describe a record of this PBuf: the
    /// reason, for the caller's error.
    Invalid(&'static str),
}

/// A client's read-only view of a PBuf.
#[derive(Debug)]
pub struct PbufView {
    map: RoMapping,
    cap: u64,
}

impl PbufView {
    /// Maps `fd` read-only after checking its seals, size and header.
    pub fn open(fd: BorrowedFd<'_>) -> Result<PbufView, Error> {
        let what = format!("PBuf fd {}", fd.as_raw_fd());
        let size = file_len(fd)?;
        if size < PBUF_HEADER_LEN as u64 + PBUF_MIN {
            return Err(Error::bad_buffer(format!(
                "{what}: {size} bytes, shorter than a header page and the smallest data area"
            )));
        }
        let len = usize::try_from(size)
            .map_err(|_| Error::bad_buffer(format!("{what}: {size} bytes, too large to map")))?;
        let map = RoMapping::new(fd, len)?;
        let magic = map.load_acquire(offset_of!(PbufHeader, magic));
        if magic != PBUF_MAGIC {
            return Err(Error::bad_buffer(format!(
                "{what}: magic {magic:#x} is not netsift's PBuf"
            )));
        }
        let version = map.load_u32(offset_of!(PbufHeader, version));
        if version != PBUF_VERSION {
            return Err(Error::bad_buffer(format!(
                "{what}: layout version {version}, this reader knows {PBUF_VERSION}"
            )));
        }
        let header_len = map.load_u32(offset_of!(PbufHeader, header_len));
        if header_len as usize != PBUF_HEADER_LEN {
            return Err(Error::bad_buffer(format!(
                "{what}: header of {header_len} bytes, {PBUF_HEADER_LEN} expected"
            )));
        }
        let cap = map.load_u64(offset_of!(PbufHeader, capacity));
        if !cap.is_power_of_two()
            || !(PBUF_MIN..=PBUF_MAX).contains(&cap)
            || cap + PBUF_HEADER_LEN as u64 > size
        {
            return Err(Error::bad_buffer(format!(
                "{what}: capacity {cap} is not a power of two that fits the file's {size} bytes"
            )));
        }
        Ok(PbufView { map, cap })
    }

    /// `C`, the data area's bytes.
    pub fn capacity(&self) -> u64 {
        self.cap
    }

    /// `W` as published (acquire).
    pub fn write_pos(&self) -> u64 {
        self.map.load_acquire(offset_of!(PbufHeader, write))
    }

    /// Packets stored, bytes of records, packets refused for lack of room, as
    /// the writer last published them.
    pub fn stats(&self) -> (u64, u64, u64) {
        (
            self.map.load_u64(offset_of!(PbufHeader, packets)),
            self.map.load_u64(offset_of!(PbufHeader, bytes)),
            self.map.load_u64(offset_of!(PbufHeader, full_drops)),
        )
    }

    /// Copies the record at `pos`, which an index entry says holds `caplen`
    /// bytes, appending its bytes to `out` (cleared first). Nothing read from
    /// shared memory is trusted: the position and length are bounds-checked
    /// before the copy, and the copy is checked against `claim` after it.
    pub fn read(&self, pos: u64, caplen: u32, out: &mut Vec<u8>) -> RecordRead {
        out.clear();
        let len = record_len(caplen);
        let off = pos & (self.cap - 1);
        if !pos.is_multiple_of(8) {
            return RecordRead::Invalid("record position not 8-aligned");
        }
        if off + len > self.cap {
            return RecordRead::Invalid("record longer than the data area or straddling its end");
        }
        let w = self.write_pos();
        if pos.checked_add(len).is_none_or(|end| end > w) {
            return RecordRead::Invalid("record beyond the write position");
        }
        let at = PBUF_HEADER_LEN + off as usize;
        let head_caplen = self.map.load_u32(at);
        let wirelen = self.map.load_u32(at + 4);
        let ts_ns = self.map.load_u64(at + 8);
        // `at + len <= header + C <= mapping` was checked above, so this copy
        // cannot fail; treat a failure as invalid rather than panic.
        if self
            .map
            .copy_words(at + RECORD_HEADER_LEN, caplen as usize, out)
            .is_none()
        {
            return RecordRead::Invalid("record outside the mapping");
        }
        fence(Ordering::Acquire);
        let claim = self.map.load_u64(offset_of!(PbufHeader, claim));
        if claim.saturating_sub(pos) > self.cap {
            out.clear();
            return RecordRead::Overwritten;
        }
        if head_caplen != caplen {
            out.clear();
            return RecordRead::Invalid("record's caplen disagrees with its index entry");
        }
        RecordRead::Ok { ts_ns, wirelen }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_offsets() {
        assert_eq!(offset_of!(PbufHeader, magic), 0);
        assert_eq!(offset_of!(PbufHeader, version), 8);
        assert_eq!(offset_of!(PbufHeader, header_len), 12);
        assert_eq!(offset_of!(PbufHeader, capacity), 16);
        assert_eq!(offset_of!(PbufHeader, write), 64);
        assert_eq!(offset_of!(PbufHeader, claim), 72);
        assert_eq!(offset_of!(PbufHeader, packets), 128);
        assert_eq!(offset_of!(PbufHeader, bytes), 136);
        assert_eq!(offset_of!(PbufHeader, full_drops), 144);
        assert!(std::mem::size_of::<PbufHeader>() <= PBUF_HEADER_LEN);
    }

    #[test]
    fn spans_never_straddle() {
        let cap = 4096;
        assert_eq!(span(0, 64, cap), (0, 64));
        assert_eq!(span(4032, 64, cap), (4032, 4096));
        assert_eq!(span(4040, 64, cap), (4096, 4160));
        assert_eq!(span(8184, 16, cap), (8192, 8208));
        assert_eq!(span(8176, 16, cap), (8176, 8192));
    }

    #[test]
    fn append_then_read_round_trips_and_detects_overwrite() {
        let mut w = PbufWriter::create(4096).unwrap();
        let v = PbufView::open(w.fd()).unwrap();
        let mut out = Vec::new();
        let p0 = w.append(b"hello, world", 7, 60);
        assert_eq!(
            v.read(p0, 12, &mut out),
            RecordRead::Ok {
                ts_ns: 7,
                wirelen: 60
            }
        );
        assert_eq!(out, b"hello, world");
        let empty = w.append(&[], 8, 0);
        assert_eq!(empty, p0 + record_len(12));
        assert_eq!(
            v.read(empty, 0, &mut out),
            RecordRead::Ok {
                ts_ns: 8,
                wirelen: 0
            }
        );
        assert!(out.is_empty());
        // Fill the ring past p0 until the writer claims its bytes again.
        let big = vec![0xabu8; 1000];
        for _ in 0..5 {
            w.append(&big, 1, 1000);
        }
        assert_eq!(v.read(p0, 12, &mut out), RecordRead::Overwritten);
        assert!(out.is_empty());
    }

    #[test]
    fn fits_respects_the_reclaim_position() {
        let mut w = PbufWriter::create(4096).unwrap();
        let p0 = w.append(&[1; 2000], 0, 2000);
        assert!(w.fits(2000, p0), "2016 + 2016 bytes fit in 4096");
        w.append(&[2; 2000], 0, 2000);
        assert!(w.fits(48, p0), "64 bytes are left at the end");
        assert!(!w.fits(100, p0), "the ring holds two unread records");
        assert!(w.fits(16, w.write_pos()), "all read: anything fits");
        assert!(w.fits(w.max_caplen(), w.write_pos()));
    }

    #[test]
    fn bad_positions_are_invalid_not_panics() {
        let mut w = PbufWriter::create(4096).unwrap();
        let v = PbufView::open(w.fd()).unwrap();
        w.append(&[0; 100], 0, 100);
        let mut out = Vec::new();
        for (pos, len) in [
            (3, 4),
            (0, u32::MAX),
            (4088, 100),
            (u64::MAX - 7, 8),
            (8192, 8),
        ] {
            assert!(
                matches!(v.read(pos, len, &mut out), RecordRead::Invalid(_)),
                "pos {pos} len {len}"
            );
        }
        assert!(matches!(v.read(0, 50, &mut out), RecordRead::Invalid(_)));
    }
}
