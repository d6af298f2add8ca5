//! Shared memory: anonymous files (`memfd`), their seals, and mappings of them.
//!
//! Every FFPF buffer is a [`Memfd`]: an anonymous file that the owner (the
//! future daemon) creates, sizes with `ftruncate`, maps read-write
//! ([`RwMapping`]), and hands to clients as a descriptor. What a client may do
//! with that descriptor is decided by the file's *seals*, not by the
//! descriptor's mode (a descriptor passed over `SCM_RIGHTS`, or reopened through
//! `/proc/self/fd`, is read-write at the file level):
//!
//! * [`Memfd::seal_readers`] (PBuf, IBuf) adds `F_SEAL_SHRINK | F_SEAL_GROW |
//!   F_SEAL_FUTURE_WRITE` and then `F_SEAL_SEAL`. The owner's mapping, made
//!   before, stays writable; every *later* writable mapping and every `write(2)`
//!   fails with `EPERM`, so a client can only map the file read-only
//!   ([`RoMapping`]). Measured on Linux 6.18; the tests check it.
//! * [`Memfd::seal_size`] (control pages, MBuf) adds `F_SEAL_SHRINK |
//!   F_SEAL_GROW | F_SEAL_SEAL`: both sides write, but neither can change the
//!   size, so no mapping can ever fault with `SIGBUS` past a truncated end.
//!
//! A reader checks the shrink seal ([`seals`]) before it maps anything, and the
//! file's size ([`file_len`]) before it trusts any header: a file that could
//! shrink under a mapping would turn a hostile peer's `ftruncate` into our
//! `SIGBUS`.
//!
//! Memory seen through a mapping is written by another process (or thread) at
//! any time, so it is reached only through atomics: [`RwMapping`] lends out
//! `&AtomicU64`/`&AtomicU32`/`&AtomicU8`, and [`RoMapping`] only *loads*
//! (relaxed loads, which Rust allows on read-only memory, followed by an acquire
//! fence where an acquire is meant). Packet bytes are copied word by word with
//! relaxed atomic loads ([`RoMapping::copy_words`]) and validated afterwards;
//! no `&[u8]` is ever formed over shared memory, so a concurrent write is never
//! a data race in Rust's model, only a torn copy that the caller detects.
//!
//! Invariants: a mapping is page-aligned (so every 8-byte-aligned offset is
//! aligned for `AtomicU64`), lives exactly as long as its value (unmapped on
//! drop), and covers `len` bytes of a file whose size cannot shrink below it.

use crate::error::Error;
use std::ffi::CStr;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::atomic::{fence, AtomicU32, AtomicU64, AtomicU8, Ordering};

/// Bytes of one page, as the kernel rounds a mapping.
pub fn page_size() -> usize {
    // SAFETY: sysconf reads a constant of the system; no memory is touched.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(n).ok().filter(|&n| n > 0).unwrap_or(4096)
}

/// The seals a PBuf or IBuf carries once its owner mapped it.
pub const READER_SEALS: i32 =
    libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_FUTURE_WRITE | libc::F_SEAL_SEAL;

/// The seals a control page or MBuf carries: fixed size, writable by both sides.
pub const SIZE_SEALS: i32 = libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_SEAL;

/// An anonymous shared-memory file of a fixed length.
#[derive(Debug)]
pub struct Memfd {
    fd: OwnedFd,
    len: usize,
}

impl Memfd {
    /// A new file named `name` (shown in `/proc/PID/fd`), `len` bytes of zeros,
    /// close-on-exec, sealable.
    pub fn create(name: &CStr, len: usize) -> Result<Memfd, Error> {
        if len == 0 || i64::try_from(len).is_err() {
            return Err(Error::invalid(format!(
                "memfd {name:?}: a length of {len} bytes (1 up to i64::MAX)"
            )));
        }
        // SAFETY: `name` is a valid C string for the duration of the call; the
        // call touches no other memory of ours.
        let raw = unsafe {
            libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING)
        };
        if raw < 0 {
            return Err(Error::os(format!("memfd_create {name:?}")));
        }
        // SAFETY: `raw` is a fresh descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: ftruncate on a descriptor we own; the length fits off_t
        // (checked above).
        if unsafe { libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) } < 0 {
            return Err(Error::os(format!(
                "memfd {name:?}: ftruncate to {len} bytes"
            )));
        }
        Ok(Memfd { fd, len })
    }

    /// The file's descriptor.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// The file's length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the file is empty (never: [`Memfd::create`] refuses length 0).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A second descriptor of the same file, close-on-exec, to hand to a client.
    pub fn dup(&self) -> Result<OwnedFd, Error> {
        dup_fd(self.fd(), "memfd")
    }

    /// Maps the whole file read-write (`MAP_SHARED`): the owner's view.
    pub fn map_rw(&self) -> Result<RwMapping, Error> {
        RwMapping::owner(self.fd(), self.len)
    }

    /// Seals the file for readers: no resize, no new writable mapping, no
    /// `write(2)`, no further seals. Call after [`Memfd::map_rw`]: the mapping
    /// made before stays writable.
    pub fn seal_readers(&self) -> Result<(), Error> {
        self.add_seals(libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_FUTURE_WRITE)?;
        self.add_seals(libc::F_SEAL_SEAL)
    }

    /// Seals the file's size only (and the seals themselves): both sides may
    /// write, neither may resize.
    pub fn seal_size(&self) -> Result<(), Error> {
        self.add_seals(libc::F_SEAL_SHRINK | libc::F_SEAL_GROW)?;
        self.add_seals(libc::F_SEAL_SEAL)
    }

    fn add_seals(&self, seals: i32) -> Result<(), Error> {
        // SAFETY: fcntl(F_ADD_SEALS) on a descriptor we own; no memory is passed.
        if unsafe { libc::fcntl(self.fd.as_raw_fd(), libc::F_ADD_SEALS, seals) } < 0 {
            return Err(Error::os(format!("memfd: adding seals {seals:#x}")));
        }
        Ok(())
    }
}

/// A close-on-exec duplicate of `fd`.
pub(crate) fn dup_fd(fd: BorrowedFd<'_>, what: &str) -> Result<OwnedFd, Error> {
    fd.try_clone_to_owned()
        .map_err(|e| Error::os_from(format!("{what}: duplicating fd {}", fd.as_raw_fd()), e))
}

/// The seals on `fd` (`F_GET_SEALS`); an error if it is not a sealable file.
pub fn seals(fd: BorrowedFd<'_>) -> Result<i32, Error> {
    // SAFETY: fcntl(F_GET_SEALS) reads a flag word of the descriptor's file.
    let s = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GET_SEALS) };
    if s < 0 {
        return Err(Error::os(format!("fd {}: reading seals", fd.as_raw_fd())));
    }
    Ok(s)
}

/// The size in bytes of the file behind `fd` (`fstat`).
pub fn file_len(fd: BorrowedFd<'_>) -> Result<u64, Error> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::zeroed();
    // SAFETY: fstat writes one `struct stat` into memory we own and sized for it.
    if unsafe { libc::fstat(fd.as_raw_fd(), st.as_mut_ptr()) } < 0 {
        return Err(Error::os(format!("fd {}: fstat", fd.as_raw_fd())));
    }
    // SAFETY: fstat succeeded, so it filled the struct (and it was zeroed anyway).
    let st = unsafe { st.assume_init() };
    Ok(u64::try_from(st.st_size).unwrap_or(0))
}

/// One `mmap` of `len` bytes, unmapped on drop.
#[derive(Debug)]
struct Raw {
    ptr: NonNull<u8>,
    len: usize,
}

impl Raw {
    fn new(fd: BorrowedFd<'_>, len: usize, prot: i32) -> Result<Raw, Error> {
        if len == 0 {
            return Err(Error::invalid(format!(
                "fd {}: mapping 0 bytes",
                fd.as_raw_fd()
            )));
        }
        // SAFETY: a fresh shared mapping at an address the kernel chooses; it
        // overlaps nothing of ours. MAP_FAILED is checked below.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                prot,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            let rw = if prot & libc::PROT_WRITE != 0 {
                "read-write"
            } else {
                "read-only"
            };
            return Err(Error::os(format!(
                "fd {}: mapping {len} bytes {rw}",
                fd.as_raw_fd()
            )));
        }
        let ptr =
            NonNull::new(p.cast::<u8>()).ok_or_else(|| Error::invalid("mmap returned null"))?;
        Ok(Raw { ptr, len })
    }

    /// The address of the `size`-byte value at `off`, which must be in bounds
    /// and aligned to `size`.
    #[inline]
    fn at(&self, off: usize, size: usize) -> *mut u8 {
        assert!(
            off.is_multiple_of(size) && off.checked_add(size).is_some_and(|e| e <= self.len),
            "shared-memory access of {size} bytes at {off} outside a {}-byte mapping",
            self.len
        );
        // SAFETY: `off + size <= len` (asserted), so the result stays inside
        // the mapping.
        unsafe { self.ptr.as_ptr().add(off) }
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        // SAFETY: the mapping was made by `Raw::new` with this address and
        // length, and no reference into it outlives `self` (accessors borrow it).
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

// SAFETY: the mapping is plain memory with no thread affinity; every access
// through a shared reference is atomic.
unsafe impl Send for Raw {}
// SAFETY: as above: `&Raw` leads only to atomic accesses.
unsafe impl Sync for Raw {}

/// A read-write shared mapping: the owner's view of a buffer, or a client's view
/// of its control page or an MBuf. Accessed only through atomics.
#[derive(Debug)]
pub struct RwMapping {
    raw: Raw,
}

impl RwMapping {
    /// Maps `len` bytes of a peer's `fd` read-write, after checking that the
    /// file is at least that long and sealed against shrinking.
    pub fn new(fd: BorrowedFd<'_>, len: usize) -> Result<RwMapping, Error> {
        check_mappable(fd, len)?;
        RwMapping::owner(fd, len)
    }

    /// Maps `len` bytes of a file this process just created and has not
    /// shared yet (so no one can shrink it before it is sealed).
    fn owner(fd: BorrowedFd<'_>, len: usize) -> Result<RwMapping, Error> {
        Ok(RwMapping {
            raw: Raw::new(fd, len, libc::PROT_READ | libc::PROT_WRITE)?,
        })
    }

    /// Bytes mapped.
    pub fn len(&self) -> usize {
        self.raw.len
    }

    /// Whether nothing is mapped (never: a mapping has at least one byte).
    pub fn is_empty(&self) -> bool {
        self.raw.len == 0
    }

    /// The 64-bit word at `off`.
    ///
    /// # Panics
    /// If `off` is not 8-aligned or the word is not inside the mapping.
    #[inline]
    pub fn u64(&self, off: usize) -> &AtomicU64 {
        let p = self.raw.at(off, 8);
        // SAFETY: `p` is in bounds and 8-aligned (the mapping is page-aligned
        // and `off` a multiple of 8); the memory is valid for the borrow of
        // `self` and only ever accessed atomically.
        unsafe { AtomicU64::from_ptr(p.cast()) }
    }

    /// The 32-bit word at `off`.
    ///
    /// # Panics
    /// If `off` is not 4-aligned or the word is not inside the mapping.
    #[inline]
    pub fn u32(&self, off: usize) -> &AtomicU32 {
        let p = self.raw.at(off, 4);
        // SAFETY: as in `u64`, for a 4-aligned, in-bounds word.
        unsafe { AtomicU32::from_ptr(p.cast()) }
    }

    /// The byte at `off`.
    ///
    /// # Panics
    /// If `off` is outside the mapping.
    #[inline]
    pub fn u8(&self, off: usize) -> &AtomicU8 {
        let p = self.raw.at(off, 1);
        // SAFETY: as in `u64`, for one in-bounds byte.
        unsafe { AtomicU8::from_ptr(p) }
    }

    /// The address of the byte at `off`, for handing a region of the mapping
    /// to the kernel (an AF_XDP UMEM). Valid while the mapping lives; access
    /// through it is the caller's to make sound.
    ///
    /// # Panics
    /// If `off` is outside the mapping.
    pub fn ptr_at(&self, off: usize) -> NonNull<u8> {
        let p = self.raw.at(off, 1);
        NonNull::new(p).unwrap_or(self.raw.ptr)
    }

    /// Stores `bytes` from `off` (8-aligned) as whole 64-bit words with relaxed
    /// atomic stores, zero-padding the last word: how packet bytes enter PBuf.
    ///
    /// # Panics
    /// If the padded range is not inside the mapping or `off` is not 8-aligned.
    pub fn store_words(&self, off: usize, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        let mut o = off;
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.u64(o).store(u64::from_ne_bytes(w), Ordering::Relaxed);
            o += 8;
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.u64(o).store(u64::from_ne_bytes(w), Ordering::Relaxed);
        }
    }
}

/// A read-only shared mapping: a client's view of PBuf or IBuf. It only loads.
///
/// Rust allows atomic loads on read-only memory only when they are relaxed and
/// no wider than a register, so [`RoMapping::load_acquire`] is a relaxed load
/// followed by an acquire fence, which orders the same way.
#[derive(Debug)]
pub struct RoMapping {
    raw: Raw,
}

impl RoMapping {
    /// Maps `len` bytes of `fd` read-only, after checking that the file is at
    /// least that long and sealed against shrinking (so the mapping can never
    /// fault past a truncated end).
    pub fn new(fd: BorrowedFd<'_>, len: usize) -> Result<RoMapping, Error> {
        check_mappable(fd, len)?;
        Ok(RoMapping {
            raw: Raw::new(fd, len, libc::PROT_READ)?,
        })
    }

    /// Bytes mapped.
    pub fn len(&self) -> usize {
        self.raw.len
    }

    /// Whether nothing is mapped (never).
    pub fn is_empty(&self) -> bool {
        self.raw.len == 0
    }

    /// The 64-bit word at `off`, relaxed.
    ///
    /// # Panics
    /// If `off` is not 8-aligned or the word is not inside the mapping.
    #[inline]
    pub fn load_u64(&self, off: usize) -> u64 {
        let p = self.raw.at(off, 8);
        // SAFETY: in bounds and aligned (see `RwMapping::u64`); the value is
        // only loaded, relaxed and register-sized, which Rust permits on
        // read-only memory.
        unsafe { AtomicU64::from_ptr(p.cast()) }.load(Ordering::Relaxed)
    }

    /// The 32-bit word at `off`, relaxed.
    ///
    /// # Panics
    /// If `off` is not 4-aligned or the word is not inside the mapping.
    #[inline]
    pub fn load_u32(&self, off: usize) -> u32 {
        let p = self.raw.at(off, 4);
        // SAFETY: as in `load_u64`, for a 4-byte word.
        unsafe { AtomicU32::from_ptr(p.cast()) }.load(Ordering::Relaxed)
    }

    /// The 64-bit word at `off`, with acquire ordering: later loads see at least
    /// what the writer stored before its matching release store.
    #[inline]
    pub fn load_acquire(&self, off: usize) -> u64 {
        let v = self.load_u64(off);
        fence(Ordering::Acquire);
        v
    }

    /// Appends `len` bytes from `off` to `out`, copied as whole 64-bit words with
    /// relaxed loads (so the copy may be torn by a concurrent writer: the caller
    /// validates it afterwards). `None`, copying nothing, if `off` is not
    /// 8-aligned or the padded range leaves the mapping.
    pub fn copy_words(&self, off: usize, len: usize, out: &mut Vec<u8>) -> Option<()> {
        let padded = len.checked_add(7)? & !7;
        if !off.is_multiple_of(8) || off.checked_add(padded)? > self.raw.len {
            return None;
        }
        if padded == 0 {
            return Some(());
        }
        let start = out.len();
        out.reserve(padded);
        // One bounds check for the whole range (above), then a plain loop of
        // word loads and stores the compiler keeps in registers, into the
        // vector's spare room (not zeroed first): a reader's copy of every
        // packet is most of its time, and a check and a `Vec` growth per word
        // made it 37% of a tcpdump's (docs/libpcap.md).
        let src = self.raw.at(off, 8).cast::<u64>();
        let room = &mut out.spare_capacity_mut()[..padded];
        for (k, dst) in room.chunks_exact_mut(8).enumerate() {
            // SAFETY: word k is at `off + 8k`, and `off + 8k + 8 <= off +
            // padded <= len` (checked above), 8-aligned as `off` and the
            // mapping are; loaded as `load_u64` loads (relaxed, register-sized,
            // permitted on read-only memory).
            let w = unsafe { AtomicU64::from_ptr(src.add(k)) }.load(Ordering::Relaxed);
            for (d, b) in dst.iter_mut().zip(w.to_ne_bytes()) {
                d.write(b);
            }
        }
        // SAFETY: the loop wrote all `padded` bytes after `start` (`padded`
        // is a multiple of 8, so `chunks_exact_mut` left none out), within
        // the capacity reserved above.
        unsafe { out.set_len(start + padded) };
        out.truncate(start + len);
        Some(())
    }
}

/// Refuses a file too short for `len` bytes or not sealed against shrinking.
pub(crate) fn check_mappable(fd: BorrowedFd<'_>, len: usize) -> Result<(), Error> {
    let s = seals(fd)?;
    if s & libc::F_SEAL_SHRINK == 0 {
        return Err(Error::bad_buffer(format!(
            "fd {}: not sealed against shrinking (seals {s:#x}), so a mapping could fault",
            fd.as_raw_fd()
        )));
    }
    let size = file_len(fd)?;
    if size < len as u64 {
        return Err(Error::bad_buffer(format!(
            "fd {}: {size} bytes, {len} needed",
            fd.as_raw_fd()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `copy_words` appends exactly `len` bytes from `off`, for lengths that
    /// end inside a word and on one, and refuses a range it cannot take
    /// without touching `out`.
    #[test]
    fn copied_words_are_the_stored_bytes() {
        let m = Memfd::create(c"copy-words", 4096).unwrap();
        let w = m.map_rw().unwrap();
        let bytes: Vec<u8> = (0..200u32).map(|i| (i * 7 + 3) as u8).collect();
        w.store_words(64, &bytes);
        m.seal_size().unwrap();
        let r = RoMapping::new(m.fd(), 4096).unwrap();
        for len in [0, 1, 7, 8, 9, 63, 64, 200] {
            let mut out = vec![0xEE; 3];
            r.copy_words(64, len, &mut out).unwrap();
            assert_eq!(out[..3], [0xEE; 3], "{len}");
            assert_eq!(out[3..], bytes[..len], "{len}");
        }
        let mut out = vec![1, 2];
        assert!(r.copy_words(60, 8, &mut out).is_none(), "unaligned");
        assert!(r.copy_words(4088, 9, &mut out).is_none(), "past the end");
        assert!(
            r.copy_words(8, usize::MAX - 3, &mut out).is_none(),
            "overflow"
        );
        assert_eq!(out, [1, 2]);
    }
}
