//! MBuf: a filter's persistent memory array, shared read-write between the
//! writer (where the filter runs) and the client (FFPF §3.1.2: results out,
//! configuration in).
//!
//! An MBuf is a plain array of bytes in a memfd sealed against resizing (so
//! neither side can make the other's mapping fault) with no header: its length
//! is the file's. Both sides reach it only through the atomic accessors here,
//! at offsets checked against the length and aligned to the value's size;
//! there is no ordering between different words (each access is relaxed, as a
//! filter's counters need), and no lock: FFPF leaves synchronisation between
//! filter and application to them, and so does this type.

use crate::error::Error;
use crate::shm::{check_mappable, file_len, Memfd, RwMapping};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::sync::atomic::Ordering;

/// The largest MBuf (1 GiB).
pub const MBUF_MAX: usize = 1 << 30;

/// A filter's memory array, mapped read-write.
#[derive(Debug)]
pub struct Mbuf {
    fd: OwnedFd,
    map: RwMapping,
    len: usize,
}

impl Mbuf {
    /// A new array of `len` zero bytes (1 up to [`MBUF_MAX`]), sealed against
    /// resizing.
    pub fn create(len: usize) -> Result<Mbuf, Error> {
        if len == 0 || len > MBUF_MAX {
            return Err(Error::invalid(format!(
                "MBuf of {len} bytes: 1 up to {MBUF_MAX}"
            )));
        }
        let memfd = Memfd::create(c"netsift-mbuf", len)?;
        let map = memfd.map_rw()?;
        memfd.seal_size()?;
        let fd = memfd.dup()?;
        Ok(Mbuf { fd, map, len })
    }

    /// Maps an MBuf a peer created, after checking that it cannot be resized
    /// under the mapping.
    pub fn from_fd(fd: OwnedFd) -> Result<Mbuf, Error> {
        let what = format!("MBuf fd {}", fd.as_raw_fd());
        let size = file_len(fd.as_fd())?;
        let len = usize::try_from(size)
            .ok()
            .filter(|&l| (1..=MBUF_MAX).contains(&l))
            .ok_or_else(|| {
                Error::bad_buffer(format!("{what}: {size} bytes, 1 up to {MBUF_MAX} expected"))
            })?;
        check_mappable(fd.as_fd(), len)?;
        if crate::shm::seals(fd.as_fd())? & libc::F_SEAL_GROW == 0 {
            return Err(Error::bad_buffer(format!(
                "{what}: not sealed against growing"
            )));
        }
        let map = RwMapping::new(fd.as_fd(), len)?;
        Ok(Mbuf { fd, map, len })
    }

    /// The array's length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the array is empty (never).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The array's descriptor.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// A second descriptor, for the other side.
    pub fn dup(&self) -> Result<OwnedFd, Error> {
        crate::shm::dup_fd(self.fd.as_fd(), "MBuf")
    }

    fn check(&self, off: usize, size: usize) -> Result<(), Error> {
        if !off.is_multiple_of(size) || off.checked_add(size).is_none_or(|e| e > self.len) {
            return Err(Error::invalid(format!(
                "MBuf access of {size} bytes at offset {off}: outside {} bytes or not {size}-aligned",
                self.len
            )));
        }
        Ok(())
    }

    /// The byte at `off`.
    pub fn get_u8(&self, off: usize) -> Result<u8, Error> {
        self.check(off, 1)?;
        Ok(self.map.u8(off).load(Ordering::Relaxed))
    }

    /// Stores the byte at `off`.
    pub fn set_u8(&self, off: usize, v: u8) -> Result<(), Error> {
        self.check(off, 1)?;
        self.map.u8(off).store(v, Ordering::Relaxed);
        Ok(())
    }

    /// The native-endian `u32` at `off` (4-aligned).
    pub fn get_u32(&self, off: usize) -> Result<u32, Error> {
        self.check(off, 4)?;
        Ok(self.map.u32(off).load(Ordering::Relaxed))
    }

    /// Stores the native-endian `u32` at `off` (4-aligned).
    pub fn set_u32(&self, off: usize, v: u32) -> Result<(), Error> {
        self.check(off, 4)?;
        self.map.u32(off).store(v, Ordering::Relaxed);
        Ok(())
    }

    /// The native-endian `u64` at `off` (8-aligned).
    pub fn get_u64(&self, off: usize) -> Result<u64, Error> {
        self.check(off, 8)?;
        Ok(self.map.u64(off).load(Ordering::Relaxed))
    }

    /// Stores the native-endian `u64` at `off` (8-aligned).
    pub fn set_u64(&self, off: usize, v: u64) -> Result<(), Error> {
        self.check(off, 8)?;
        self.map.u64(off).store(v, Ordering::Relaxed);
        Ok(())
    }

    /// Adds `v` to the `u64` at `off` (8-aligned) atomically, returning the old
    /// value: a counter both sides may bump.
    pub fn add_u64(&self, off: usize, v: u64) -> Result<u64, Error> {
        self.check(off, 8)?;
        Ok(self.map.u64(off).fetch_add(v, Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_see_each_others_stores() {
        let a = Mbuf::create(64).unwrap();
        let b = Mbuf::from_fd(a.dup().unwrap()).unwrap();
        a.set_u64(8, 0x1122_3344_5566_7788).unwrap();
        assert_eq!(b.get_u64(8).unwrap(), 0x1122_3344_5566_7788);
        b.set_u32(60, 7).unwrap();
        assert_eq!(a.get_u32(60).unwrap(), 7);
        b.set_u8(63, 9).unwrap();
        assert_eq!(a.get_u8(63).unwrap(), 9);
        assert_eq!(a.add_u64(0, 3).unwrap(), 0);
        assert_eq!(b.add_u64(0, 4).unwrap(), 3);
        assert_eq!(a.get_u64(0).unwrap(), 7);
    }

    #[test]
    fn out_of_bounds_and_misaligned_are_errors() {
        let a = Mbuf::create(64).unwrap();
        assert!(a.get_u64(64).is_err());
        assert!(a.get_u64(60).is_err());
        assert!(a.get_u64(4).is_err());
        assert!(a.set_u32(62, 1).is_err());
        assert!(a.get_u8(64).is_err());
        assert!(a.get_u64(usize::MAX - 3).is_err());
        assert!(Mbuf::create(0).is_err());
    }

    #[test]
    fn unsealed_files_are_refused() {
        let m = Memfd::create(c"not-sealed", 64).unwrap();
        let e = Mbuf::from_fd(m.dup().unwrap()).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::BadBuffer, "{e}");
    }
}
