//! Memory shared with the kernel: a `BPF_F_MMAPABLE` array map mapped read-write
//! into the process, so that user space changes what a loaded program reads with
//! plain stores, no system call.
//!
//! A [`Region`] is one array map of one element of `len` bytes (rounded up to a
//! page), created with `BPF_F_MMAPABLE` and `mmap`ed `MAP_SHARED`: the process's
//! mapping and the map's value are the same pages. A generated program reaches
//! the value by address with [`Asm::ld_map_value`](crate::asm::Asm::ld_map_value)
//! (`BPF_PSEUDO_MAP_VALUE`, no lookup at run time), and user space reads and
//! writes it only as atomics ([`Region::words`], [`Region::dwords`]), since the
//! kernel may read (or a program write) any word at any time.
//!
//! The region knows nothing of what it holds. [`crate::table`] keeps a versioned
//! open-addressing hash table in one; a filter's enable bits and operands, or
//! FFPF-style per-filter persistent memory that a program writes and the
//! application reads, are other layouts over the same type.
//!
//! Invariants: the mapping lives exactly as long as the `Region` (unmapped on
//! drop, after which the map lives on in any program that holds it); its length
//! is a whole number of pages and at least [`Region::len`]; it is page-aligned,
//! so every `u32` and `u64` in it is aligned.

use crate::sys::{Error, Map, MapKind};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicU64};

/// `BPF_F_MMAPABLE`: the array's values may be mapped into a process.
const F_MMAPABLE: u32 = 1 << 10;

/// Bytes of one page, as the kernel rounds a mapping.
fn page() -> usize {
    // SAFETY: sysconf reads a constant of the system; no memory is touched.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(n).ok().filter(|&n| n > 0).unwrap_or(4096)
}

/// A map value shared with the kernel, mapped into this process.
pub struct Region {
    map: Map,
    ptr: NonNull<u8>,
    /// Bytes mapped: `len` rounded up to a page.
    mapped: usize,
    len: usize,
}

// SAFETY: the mapping is plain memory owned by the region (no thread affinity);
// every access through a shared reference is atomic (`words`, `dwords`).
unsafe impl Send for Region {}
// SAFETY: as above: `&Region` gives only atomic views of the memory.
unsafe impl Sync for Region {}

impl std::fmt::Debug for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Region")
            .field("map_fd", &self.map.fd())
            .field("len", &self.len)
            .finish()
    }
}

impl Region {
    /// A new region of `len` bytes (at least 8, a multiple of 8), all zero.
    pub fn create(len: usize) -> Result<Region, Error> {
        if len < 8 || !len.is_multiple_of(8) || len > u32::MAX as usize {
            return Err(Error::invalid(format!(
                "a shared region of {len} bytes (a multiple of 8 from 8 up)"
            )));
        }
        let map = Map::create_with(MapKind::Array, 4, len as u32, 1, F_MMAPABLE)?;
        let mapped = len.div_ceil(page()) * page();
        // SAFETY: a fresh shared mapping of the map's descriptor; the kernel
        // checks the length against the map's value area and returns MAP_FAILED
        // on any error, tested below. Nothing else refers to the new address.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                mapped,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                map.fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(Error::last("mapping a shared region"));
        }
        let ptr = NonNull::new(p.cast::<u8>()).ok_or_else(|| Error::invalid("mmap gave NULL"))?;
        Ok(Region {
            map,
            ptr,
            mapped,
            len,
        })
    }

    /// The map, for [`Asm::ld_map_value`](crate::asm::Asm::ld_map_value) and
    /// `bpf(2)` lookups of key 0.
    pub fn map(&self) -> &Map {
        &self.map
    }

    /// Bytes a program may read (the value's size).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the region is empty (never: at least 8 bytes).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The region as 32-bit words, word `i` at byte `4 * i`.
    pub fn words(&self) -> &[AtomicU32] {
        // SAFETY: the mapping is page-aligned, at least `len` bytes long, and
        // lives as long as `self`; `AtomicU32` has `u32`'s size and alignment, and
        // since every access through the slice is atomic, the kernel's concurrent
        // reads and writes of the same memory are not data races in Rust's model
        // (the kernel's side is outside it, as for any shared memory).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().cast::<AtomicU32>(), self.len / 4) }
    }

    /// The region as 64-bit words, word `i` at byte `8 * i`.
    pub fn dwords(&self) -> &[AtomicU64] {
        // SAFETY: as in `words`; `len` is a multiple of 8 and the base is
        // page-aligned, so every `AtomicU64` is aligned and inside the mapping.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().cast::<AtomicU64>(), self.len / 8) }
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`mapped` are the mapping made in `create`; no reference
        // into it outlives `self` (`words`/`dwords` borrow it).
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.mapped);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_sizes_are_refused_before_any_call() {
        assert!(Region::create(0).is_err());
        assert!(Region::create(12).is_err());
    }
}
