//! The control page: one page per flow that *both* sides map read-write, the
//! client's channel to the writer without a system call per packet.
//!
//! ```text
//!  offset  owner    word
//!  0       writer   magic "nsfCTRL\0"      (set once at creation)
//!  8       writer   version
//!  64      client   read        R: entries consumed (release store)
//!  72      client   wake_at     "wake me at >= n unread"; 0 = not armed
//!  80      client   delivered   packets the client took      (report only)
//!  88      client   overwritten entries lost to the writer  (report only)
//!  96      client   invalid     entries the client refused  (report only)
//!  128     writer   status      STATUS_DETACHED
//! ```
//!
//! Client words and writer words sit on different cache lines, so the
//! client's stores to `R` do not bounce the line the writer stores to.
//!
//! The writer treats every client word as hostile ([`ControlWriterSide`]):
//! `R` is clamped into `[the oldest entry the flow still holds, W]` and kept
//! monotone by the writer's own copy, so a client can move only its own view;
//! `wake_at` is clamped to the IBuf's size; the report words are shown as
//! *reported* and never feed a decision. The writer's own words (`status`) are
//! informational for the client: the trustworthy copy of "detached" is in the
//! IBuf header, which the client cannot write. The file is sealed against
//! resizing, so no client can make the writer's mapping fault.

use crate::error::Error;
use crate::shm::{check_mappable, seals, Memfd, RwMapping};
use std::mem::offset_of;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::sync::atomic::Ordering;

/// "nsfCTRL\0", little-endian.
pub const CONTROL_MAGIC: u64 = u64::from_le_bytes(*b"nsfCTRL\0");
/// The layout version.
pub const CONTROL_VERSION: u32 = 1;
/// Bytes of a control page.
pub const CONTROL_LEN: usize = 4096;
/// `status` bit: the flow was detached from the slow-reader policy.
pub const STATUS_DETACHED: u64 = 1;

/// The control page's layout (offsets only; every word is accessed atomically).
#[repr(C)]
pub struct ControlPage {
    /// [`CONTROL_MAGIC`].
    pub magic: u64,
    /// [`CONTROL_VERSION`].
    pub version: u32,
    _pad0: [u32; 13],
    /// `R`, entries consumed (client).
    pub read: u64,
    /// Wake threshold (client; the writer clears it when it signals).
    pub wake_at: u64,
    /// Packets delivered, as the client reports.
    pub delivered: u64,
    /// Entries overwritten before the client read them, as it reports.
    pub overwritten: u64,
    /// Entries the client refused as invalid, as it reports.
    pub invalid: u64,
    _pad1: [u64; 3],
    /// Writer status bits ([`STATUS_DETACHED`]).
    pub status: u64,
}

/// What a client reports in its control page. Untrusted: for statistics only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reported {
    /// `R` as stored (unclamped).
    pub read: u64,
    /// Packets delivered.
    pub delivered: u64,
    /// Entries lost to overwriting.
    pub overwritten: u64,
    /// Entries refused as invalid.
    pub invalid: u64,
}

/// The writer's side of a control page.
#[derive(Debug)]
pub struct ControlWriterSide {
    memfd: Memfd,
    map: RwMapping,
}

impl ControlWriterSide {
    /// A fresh page, `R = 0`, sealed against resizing.
    pub fn create() -> Result<ControlWriterSide, Error> {
        let memfd = Memfd::create(c"netsift-control", CONTROL_LEN)?;
        let map = memfd.map_rw()?;
        map.u32(offset_of!(ControlPage, version))
            .store(CONTROL_VERSION, Ordering::Relaxed);
        map.u64(offset_of!(ControlPage, magic))
            .store(CONTROL_MAGIC, Ordering::Release);
        memfd.seal_size()?;
        Ok(ControlWriterSide { memfd, map })
    }

    /// A second descriptor of the page, for the client.
    pub fn dup(&self) -> Result<OwnedFd, Error> {
        self.memfd.dup()
    }

    /// The client's `R` as stored, unclamped (acquire: the client's reads of
    /// the entries below it happened before).
    pub fn raw_read(&self) -> u64 {
        self.map
            .u64(offset_of!(ControlPage, read))
            .load(Ordering::Acquire)
    }

    /// The client's wake threshold as stored, unclamped.
    pub fn raw_wake_at(&self) -> u64 {
        self.map
            .u64(offset_of!(ControlPage, wake_at))
            .load(Ordering::Relaxed)
    }

    /// Disarms the wake threshold if it still holds `seen`; true if this call
    /// disarmed it (so exactly one signal answers one arming).
    pub fn disarm(&self, seen: u64) -> bool {
        self.map
            .u64(offset_of!(ControlPage, wake_at))
            .compare_exchange(seen, 0, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }

    /// Sets writer status bits.
    pub fn set_status(&self, bits: u64) {
        self.map
            .u64(offset_of!(ControlPage, status))
            .fetch_or(bits, Ordering::Release);
    }

    /// What the client reports.
    pub fn reported(&self) -> Reported {
        let m = &self.map;
        let at = |o| m.u64(o).load(Ordering::Relaxed);
        Reported {
            read: at(offset_of!(ControlPage, read)),
            delivered: at(offset_of!(ControlPage, delivered)),
            overwritten: at(offset_of!(ControlPage, overwritten)),
            invalid: at(offset_of!(ControlPage, invalid)),
        }
    }
}

/// The client's side of a control page.
#[derive(Debug)]
pub struct ControlClientSide {
    map: RwMapping,
}

impl ControlClientSide {
    /// Maps `fd` read-write after checking its seals, size and header.
    pub fn open(fd: BorrowedFd<'_>) -> Result<ControlClientSide, Error> {
        let what = format!("control page fd {}", fd.as_raw_fd());
        check_mappable(fd, CONTROL_LEN)?;
        let s = seals(fd)?;
        if s & (libc::F_SEAL_WRITE | libc::F_SEAL_FUTURE_WRITE) != 0 {
            return Err(Error::bad_buffer(format!(
                "{what}: sealed against writing (seals {s:#x}), so not a control page"
            )));
        }
        let map = RwMapping::new(fd, CONTROL_LEN)?;
        let magic = map
            .u64(offset_of!(ControlPage, magic))
            .load(Ordering::Acquire);
        if magic != CONTROL_MAGIC {
            return Err(Error::bad_buffer(format!(
                "{what}: magic {magic:#x} is not netsift's control page"
            )));
        }
        let version = map
            .u32(offset_of!(ControlPage, version))
            .load(Ordering::Relaxed);
        if version != CONTROL_VERSION {
            return Err(Error::bad_buffer(format!(
                "{what}: layout version {version}, this reader knows {CONTROL_VERSION}"
            )));
        }
        Ok(ControlClientSide { map })
    }

    /// The word at `off` of [`ControlPage`].
    pub(crate) fn word(&self, off: usize) -> &std::sync::atomic::AtomicU64 {
        self.map.u64(off)
    }

    /// What is reported now (the client's own words).
    pub fn reported(&self) -> Reported {
        let at = |o| self.map.u64(o).load(Ordering::Relaxed);
        Reported {
            read: at(offset_of!(ControlPage, read)),
            delivered: at(offset_of!(ControlPage, delivered)),
            overwritten: at(offset_of!(ControlPage, overwritten)),
            invalid: at(offset_of!(ControlPage, invalid)),
        }
    }

    /// Writer status bits (informational: a client may have changed them).
    pub fn status(&self) -> u64 {
        self.map
            .u64(offset_of!(ControlPage, status))
            .load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_offsets() {
        assert_eq!(offset_of!(ControlPage, magic), 0);
        assert_eq!(offset_of!(ControlPage, version), 8);
        assert_eq!(offset_of!(ControlPage, read), 64);
        assert_eq!(offset_of!(ControlPage, wake_at), 72);
        assert_eq!(offset_of!(ControlPage, delivered), 80);
        assert_eq!(offset_of!(ControlPage, overwritten), 88);
        assert_eq!(offset_of!(ControlPage, invalid), 96);
        assert_eq!(offset_of!(ControlPage, status), 128);
        assert!(std::mem::size_of::<ControlPage>() <= CONTROL_LEN);
    }

    #[test]
    fn disarm_answers_one_arming_once() {
        let c = ControlWriterSide::create().unwrap();
        let fd = c.dup().unwrap();
        let client = ControlClientSide::open(std::os::fd::AsFd::as_fd(&fd)).unwrap();
        client
            .word(offset_of!(ControlPage, wake_at))
            .store(5, Ordering::Relaxed);
        assert_eq!(c.raw_wake_at(), 5);
        assert!(c.disarm(5));
        assert!(!c.disarm(5));
        assert_eq!(c.raw_wake_at(), 0);
    }
}
