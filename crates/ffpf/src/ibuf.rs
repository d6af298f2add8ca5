//! IBuf: one flow's index, a ring of fixed entries pointing into its group's
//! PBuf, in a sealed memfd the client maps read-only.
//!
//! ```text
//!  file offset 0                                   4096                      4096 + 24·N
//!  ┌────────────────────── header page ──────────────┬──── N entries of 24 bytes ────┐
//!  │ 0 magic  8 version 12 entry_size 16 entries N   │ e[0] │ e[1] │ … │ e[N-1]      │
//!  │ 64 write W (entries written)                    │                               │
//!  │ 128 flags  136 accepted  144 drop_pbuf_full     │                               │
//!  │ 152 drop_ibuf_full                              │                               │
//!  └─────────────────────────────────────────────────┴───────────────────────────────┘
//!
//!  entry i lives in slot i mod N:
//!  ┌──────────────┬──────────────┬──────────┬──────────┐
//!  │ seq (u64)    │ pbuf_pos u64 │ len u32  │ class u32│
//!  └──────────────┴──────────────┴──────────┴──────────┘
//!  seq = i once the entry is complete; BUSY (u64::MAX) while it is rewritten
//! ```
//!
//! Entry indices are monotone `u64`s; `W` counts entries written. The `seq`
//! word makes each entry its own sequence lock: the writer stores `BUSY`,
//! `fence(Release)`, the fields, then `seq = i` (release); a reader loads `seq`
//! (acquire), the fields, `fence(Acquire)`, and `seq` again, and believes the
//! fields only if both loads said `i`. An entry the writer has lapped says
//! `i + k·N` or `BUSY`: the reader counts it overwritten (fast-reader
//! preference), which replaces the seeds' wrap counter with a per-entry check.
//!
//! The header's counters are written by the owner only, so a client can trust
//! them: `accepted` (packets the flow's filter accepted) and the two drops the
//! writer decides, `pbuf_full` and `ibuf_full`; `flags` says whether the flow
//! was detached from the slow-reader policy ([`FLAG_DETACHED`]).
//!
//! The reader's position `R` is *not* here: it is the client's, in the control
//! page ([`crate::control`]).

use crate::error::Error;
use crate::shm::{file_len, Memfd, RoMapping, RwMapping};
use std::mem::offset_of;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{fence, Ordering};

/// "nsfIBUF\0", little-endian.
pub const IBUF_MAGIC: u64 = u64::from_le_bytes(*b"nsfIBUF\0");
/// The layout version this crate writes and reads.
pub const IBUF_VERSION: u32 = 1;
/// Bytes before the first entry.
pub const IBUF_HEADER_LEN: usize = 4096;
/// `seq` of an entry being rewritten.
pub const BUSY: u64 = u64::MAX;
/// The fewest entries an IBuf has.
pub const IBUF_MIN: u64 = 2;
/// The most entries an IBuf has (2^28: 6 GiB of index).
pub const IBUF_MAX: u64 = 1 << 28;
/// `flags` bit: the writer detached the flow from the slow-reader policy; its
/// reader may now be overwritten and counts that itself.
pub const FLAG_DETACHED: u64 = 1;

/// The header page's layout (offsets only; every word is accessed atomically).
#[repr(C)]
pub struct IbufHeader {
    /// [`IBUF_MAGIC`].
    pub magic: u64,
    /// [`IBUF_VERSION`].
    pub version: u32,
    /// `size_of::<IbufEntry>()`, 24.
    pub entry_size: u32,
    /// `N`, a power of two.
    pub entries: u64,
    _pad0: [u64; 5],
    /// `W`: entries written.
    pub write: u64,
    _pad1: [u64; 7],
    /// [`FLAG_DETACHED`].
    pub flags: u64,
    /// Packets the flow accepted (counted by the writer).
    pub accepted: u64,
    /// Accepted packets dropped because PBuf had no room.
    pub drop_pbuf_full: u64,
    /// Accepted packets dropped because this IBuf was full.
    pub drop_ibuf_full: u64,
}

/// One index entry's layout.
#[repr(C)]
pub struct IbufEntry {
    /// The entry's index, or [`BUSY`].
    pub seq: u64,
    /// The packet's record position in PBuf.
    pub pbuf_pos: u64,
    /// The packet's captured length.
    pub len: u32,
    /// The filter's classification result.
    pub class: u32,
}

const ENTRY: usize = std::mem::size_of::<IbufEntry>();

/// Bytes of one IBuf entry: what a flow of `n` entries costs, beyond the
/// header, is `n` times this (the daemon checks a rule's `buffer` with it).
pub const IBUF_ENTRY_BYTES: u64 = ENTRY as u64;

fn slot(i: u64, n: u64) -> usize {
    IBUF_HEADER_LEN + (i & (n - 1)) as usize * ENTRY
}

/// Writer-side counters of one flow, as published in its IBuf header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriterCounts {
    /// Packets the flow accepted.
    pub accepted: u64,
    /// Dropped: PBuf had no room (slow-reader preference).
    pub pbuf_full: u64,
    /// Dropped: the flow's IBuf was full (slow-reader preference).
    pub ibuf_full: u64,
}

/// The owner's side of an IBuf.
#[derive(Debug)]
pub struct IbufWriter {
    memfd: Memfd,
    map: RwMapping,
    n: u64,
    w: u64,
}

impl IbufWriter {
    /// An IBuf of `entries` slots (a power of two from [`IBUF_MIN`] to
    /// [`IBUF_MAX`]), sealed for readers.
    pub fn create(entries: u64) -> Result<IbufWriter, Error> {
        if !entries.is_power_of_two() || !(IBUF_MIN..=IBUF_MAX).contains(&entries) {
            return Err(Error::invalid(format!(
                "IBuf of {entries} entries: a power of two from {IBUF_MIN} to {IBUF_MAX}"
            )));
        }
        let len = IBUF_HEADER_LEN + entries as usize * ENTRY;
        let memfd = Memfd::create(c"netsift-ibuf", len)?;
        let map = memfd.map_rw()?;
        map.u64(offset_of!(IbufHeader, entries))
            .store(entries, Ordering::Relaxed);
        map.u32(offset_of!(IbufHeader, entry_size))
            .store(ENTRY as u32, Ordering::Relaxed);
        map.u32(offset_of!(IbufHeader, version))
            .store(IBUF_VERSION, Ordering::Relaxed);
        // Slot i starts as "entry i - N", which no reader asks for, so an
        // unwritten slot never passes for entry i: mark them all busy.
        for i in 0..entries {
            map.u64(slot(i, entries)).store(BUSY, Ordering::Relaxed);
        }
        map.u64(offset_of!(IbufHeader, magic))
            .store(IBUF_MAGIC, Ordering::Release);
        memfd.seal_readers()?;
        Ok(IbufWriter {
            memfd,
            map,
            n: entries,
            w: 0,
        })
    }

    /// `N`, the number of slots.
    pub fn entries(&self) -> u64 {
        self.n
    }

    /// `W`, entries written (including any not yet published).
    pub fn write_pos(&self) -> u64 {
        self.w
    }

    /// The file's descriptor.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.memfd.fd()
    }

    /// A second descriptor of the file, for a client.
    pub fn dup(&self) -> Result<OwnedFd, Error> {
        self.memfd.dup()
    }

    /// The PBuf position entry `i` points to. The caller asks only for an
    /// entry it wrote and has not overwritten (`W - N <= i < W`).
    pub fn pbuf_pos(&self, i: u64) -> u64 {
        debug_assert!(i < self.w && self.w - i <= self.n);
        self.map.u64(slot(i, self.n) + 8).load(Ordering::Relaxed)
    }

    /// Writes entry `W` (overwriting entry `W - N`); not yet visible to
    /// readers that wait on `W` until [`IbufWriter::publish`].
    pub fn push(&mut self, pbuf_pos: u64, len: u32, class: u32) {
        let at = slot(self.w, self.n);
        let seq = self.map.u64(at);
        seq.store(BUSY, Ordering::Relaxed);
        fence(Ordering::Release);
        self.map.u64(at + 8).store(pbuf_pos, Ordering::Relaxed);
        self.map.u32(at + 16).store(len, Ordering::Relaxed);
        self.map.u32(at + 20).store(class, Ordering::Relaxed);
        seq.store(self.w, Ordering::Release);
        self.w += 1;
    }

    /// Publishes `W` (release: a reader that sees it sees the entries).
    pub fn publish(&self) {
        self.map
            .u64(offset_of!(IbufHeader, write))
            .store(self.w, Ordering::Release);
    }

    /// Publishes the writer's counters.
    pub fn publish_counts(&self, c: &WriterCounts) {
        let m = &self.map;
        m.u64(offset_of!(IbufHeader, accepted))
            .store(c.accepted, Ordering::Relaxed);
        m.u64(offset_of!(IbufHeader, drop_pbuf_full))
            .store(c.pbuf_full, Ordering::Relaxed);
        m.u64(offset_of!(IbufHeader, drop_ibuf_full))
            .store(c.ibuf_full, Ordering::Relaxed);
    }

    /// Sets `flags` bits.
    pub fn set_flags(&self, bits: u64) {
        self.map
            .u64(offset_of!(IbufHeader, flags))
            .fetch_or(bits, Ordering::Release);
    }
}

/// What reading one entry gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryRead {
    /// The entry, read consistently.
    Ok {
        /// The packet's record position in PBuf.
        pbuf_pos: u64,
        /// Its captured length.
        len: u32,
        /// The classification result.
        class: u32,
    },
    /// The writer lapped the entry: it is lost to this reader.
    Overwritten,
    /// The slot holds an *older* entry than asked for although `W` says the
    /// entry was written: the writer is broken or hostile.
    Stale,
}

/// A client's read-only view of an IBuf.
#[derive(Debug)]
pub struct IbufView {
    map: RoMapping,
    n: u64,
}

impl IbufView {
    /// Maps `fd` read-only after checking its seals, size and header.
    pub fn open(fd: BorrowedFd<'_>) -> Result<IbufView, Error> {
        let what = format!("IBuf fd {}", fd.as_raw_fd());
        let size = file_len(fd)?;
        let least = (IBUF_HEADER_LEN + IBUF_MIN as usize * ENTRY) as u64;
        if size < least {
            return Err(Error::bad_buffer(format!(
                "{what}: {size} bytes, shorter than a header page and {IBUF_MIN} entries"
            )));
        }
        let len = usize::try_from(size)
            .map_err(|_| Error::bad_buffer(format!("{what}: {size} bytes, too large to map")))?;
        let map = RoMapping::new(fd, len)?;
        let magic = map.load_acquire(offset_of!(IbufHeader, magic));
        if magic != IBUF_MAGIC {
            return Err(Error::bad_buffer(format!(
                "{what}: magic {magic:#x} is not netsift's IBuf"
            )));
        }
        let version = map.load_u32(offset_of!(IbufHeader, version));
        if version != IBUF_VERSION {
            return Err(Error::bad_buffer(format!(
                "{what}: layout version {version}, this reader knows {IBUF_VERSION}"
            )));
        }
        let entry_size = map.load_u32(offset_of!(IbufHeader, entry_size));
        if entry_size as usize != ENTRY {
            return Err(Error::bad_buffer(format!(
                "{what}: entries of {entry_size} bytes, {ENTRY} expected"
            )));
        }
        let n = map.load_u64(offset_of!(IbufHeader, entries));
        let fits = n
            .checked_mul(ENTRY as u64)
            .and_then(|b| b.checked_add(IBUF_HEADER_LEN as u64))
            .is_some_and(|need| need <= size);
        if !n.is_power_of_two() || !(IBUF_MIN..=IBUF_MAX).contains(&n) || !fits {
            return Err(Error::bad_buffer(format!(
                "{what}: {n} entries is not a power of two that fits the file's {size} bytes"
            )));
        }
        Ok(IbufView { map, n })
    }

    /// `N`, the number of slots.
    pub fn entries(&self) -> u64 {
        self.n
    }

    /// `W` as published (acquire).
    pub fn write_pos(&self) -> u64 {
        self.map.load_acquire(offset_of!(IbufHeader, write))
    }

    /// The header's `flags`.
    pub fn flags(&self) -> u64 {
        self.map.load_acquire(offset_of!(IbufHeader, flags))
    }

    /// The writer's counters as last published.
    pub fn counts(&self) -> WriterCounts {
        WriterCounts {
            accepted: self.map.load_u64(offset_of!(IbufHeader, accepted)),
            pbuf_full: self.map.load_u64(offset_of!(IbufHeader, drop_pbuf_full)),
            ibuf_full: self.map.load_u64(offset_of!(IbufHeader, drop_ibuf_full)),
        }
    }

    /// Reads entry `i` (the caller checked `i < W`).
    pub fn read(&self, i: u64) -> EntryRead {
        let at = slot(i, self.n);
        let s1 = self.map.load_acquire(at);
        let pbuf_pos = self.map.load_u64(at + 8);
        let len = self.map.load_u32(at + 16);
        let class = self.map.load_u32(at + 20);
        fence(Ordering::Acquire);
        let s2 = self.map.load_u64(at);
        if s1 == i && s2 == i {
            EntryRead::Ok {
                pbuf_pos,
                len,
                class,
            }
        } else if s1 == BUSY || s2 == BUSY || s1 > i || s2 > i {
            EntryRead::Overwritten
        } else {
            EntryRead::Stale
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_offsets() {
        assert_eq!(offset_of!(IbufHeader, magic), 0);
        assert_eq!(offset_of!(IbufHeader, version), 8);
        assert_eq!(offset_of!(IbufHeader, entry_size), 12);
        assert_eq!(offset_of!(IbufHeader, entries), 16);
        assert_eq!(offset_of!(IbufHeader, write), 64);
        assert_eq!(offset_of!(IbufHeader, flags), 128);
        assert_eq!(offset_of!(IbufHeader, accepted), 136);
        assert_eq!(offset_of!(IbufHeader, drop_pbuf_full), 144);
        assert_eq!(offset_of!(IbufHeader, drop_ibuf_full), 152);
        assert!(std::mem::size_of::<IbufHeader>() <= IBUF_HEADER_LEN);
        assert_eq!(offset_of!(IbufEntry, seq), 0);
        assert_eq!(offset_of!(IbufEntry, pbuf_pos), 8);
        assert_eq!(offset_of!(IbufEntry, len), 16);
        assert_eq!(offset_of!(IbufEntry, class), 20);
        assert_eq!(ENTRY, 24);
    }

    #[test]
    fn entries_round_trip_and_lapped_ones_read_overwritten() {
        let mut w = IbufWriter::create(4).unwrap();
        let v = IbufView::open(w.fd()).unwrap();
        assert_eq!(
            v.read(0),
            EntryRead::Overwritten,
            "unwritten slots are busy"
        );
        for i in 0..6 {
            w.push(i * 64, i as u32, 100 + i as u32);
        }
        w.publish();
        assert_eq!(v.write_pos(), 6);
        assert_eq!(v.read(1), EntryRead::Overwritten);
        assert_eq!(
            v.read(5),
            EntryRead::Ok {
                pbuf_pos: 320,
                len: 5,
                class: 105
            }
        );
        assert_eq!(v.read(9), EntryRead::Stale);
    }
}
