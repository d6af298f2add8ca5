//! The user-space side of a BPF ring buffer (`BPF_MAP_TYPE_RINGBUF`): where the
//! XDP level's program puts the packets it accepts.
//!
//! The kernel maps the buffer in two parts: a page holding the consumer position,
//! which user space writes, and, read-only, a page holding the producer position
//! followed by the data pages mapped twice in a row, so a record that wraps around
//! the end reads as one slice. Each record starts with an 8-byte header whose first
//! word is its length with two flags: busy (the program has not submitted it yet)
//! and discarded. Records are read in order up to the producer position, stopping
//! at a busy one, and the consumer position is moved past each record read, which
//! gives its space back to the program.

use crate::sys::{Error, Map, MapKind};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// The record header's flags (`BPF_RINGBUF_BUSY_BIT`, `BPF_RINGBUF_DISCARD_BIT`).
const BUSY: u32 = 1 << 31;
const DISCARD: u32 = 1 << 30;
/// `BPF_RINGBUF_HDR_SZ`.
const HDR: usize = 8;

/// What to add to a `bpf_ktime_get_ns` stamp (CLOCK_MONOTONIC) for the wall
/// clock, as the two clocks stand now.
pub fn monotonic_to_realtime_ns() -> i128 {
    let now = |clock| {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: a valid timespec for the call to fill.
        unsafe { libc::clock_gettime(clock, &mut t) };
        t.tv_sec as i128 * 1_000_000_000 + t.tv_nsec as i128
    };
    now(libc::CLOCK_REALTIME) - now(libc::CLOCK_MONOTONIC)
}

/// One mapping, unmapped on drop.
struct Mapping {
    at: *mut u8,
    len: usize,
}

impl Mapping {
    fn new(fd: i32, len: usize, prot: libc::c_int, offset: usize) -> Result<Mapping, Error> {
        // SAFETY: a fresh shared mapping of `len` bytes of the map's descriptor; no
        // Rust object refers to the address range before this returns it.
        let at = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                prot,
                libc::MAP_SHARED,
                fd,
                offset as libc::off_t,
            )
        };
        if at == libc::MAP_FAILED {
            return Err(Error::last("mapping a ring buffer"));
        }
        Ok(Mapping { at: at.cast(), len })
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `at`/`len` are the mapping made in `new`, and no reference into it
        // outlives the `RingBuf` that owns this.
        unsafe { libc::munmap(self.at.cast(), self.len) };
    }
}

/// A ring buffer map and its user-space mappings.
pub struct RingBuf {
    map: Map,
    consumer: Mapping,
    producer: Mapping,
    page: usize,
    mask: u64,
}

// SAFETY: the mappings are plain shared memory, touched only through `&mut self`
// (reads of the kernel's words are atomic), so moving the owner to another thread
// is sound.
unsafe impl Send for RingBuf {}

impl RingBuf {
    /// A new ring buffer of `size` bytes (a power of 2, at least one page).
    pub fn create(size: u32) -> Result<RingBuf, Error> {
        let map = Map::create(MapKind::RingBuf, 0, 0, size)?;
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
        let consumer = Mapping::new(map.fd(), page, libc::PROT_READ | libc::PROT_WRITE, 0)?;
        let producer = Mapping::new(map.fd(), page + 2 * size as usize, libc::PROT_READ, page)?;
        Ok(RingBuf {
            map,
            consumer,
            producer,
            page,
            mask: u64::from(size) - 1,
        })
    }

    /// The map, whose descriptor the program names.
    pub fn map(&self) -> &Map {
        &self.map
    }

    fn consumer_pos(&self) -> &AtomicU64 {
        // SAFETY: the consumer page is mapped, 8-aligned (a page), and lives as long
        // as `self`; the kernel reads the word, so it is accessed atomically.
        unsafe { &*(self.consumer.at as *const AtomicU64) }
    }

    fn producer_pos(&self) -> &AtomicU64 {
        // SAFETY: as for the consumer position, in the read-only producer page.
        unsafe { &*(self.producer.at as *const AtomicU64) }
    }

    /// Waits up to `timeout_ms` for the program to submit a record; false on a
    /// timeout (or a signal).
    pub fn wait(&self, timeout_ms: i32) -> Result<bool, Error> {
        let mut p = libc::pollfd {
            fd: self.map.fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, for the duration of the call.
        let n = unsafe { libc::poll(&mut p, 1, timeout_ms) };
        if n < 0 {
            let e = Error::last("waiting for the ring buffer");
            if e.raw_os_error() == Some(libc::EINTR) {
                return Ok(false);
            }
            return Err(e);
        }
        Ok(n > 0)
    }

    /// Hands each submitted record to `f`, in order, and gives its space back; stops
    /// at a record still being written. Returns how many were handed over.
    pub fn drain(&mut self, mut f: impl FnMut(&[u8])) -> usize {
        let mut n = 0;
        let mut cons = self.consumer_pos().load(Ordering::Acquire);
        loop {
            let prod = self.producer_pos().load(Ordering::Acquire);
            if cons >= prod {
                return n;
            }
            let at = self.page + (cons & self.mask) as usize;
            // SAFETY: `at` is inside the first copy of the data pages (the mask keeps
            // it below `size`), 8-aligned (records are), and the header's first word
            // is written by the kernel, so it is read atomically.
            let word = unsafe { &*(self.producer.at.add(at) as *const AtomicU32) };
            let len = word.load(Ordering::Acquire);
            if len & BUSY != 0 {
                return n;
            }
            let body = (len & !(BUSY | DISCARD)) as usize;
            if len & DISCARD == 0 {
                // SAFETY: a submitted record's `body` bytes follow its header and fit
                // in the buffer; the double mapping makes a wrapped record one slice,
                // and the kernel does not write it again until the consumer position
                // passes it, which happens below, after `f`.
                let data =
                    unsafe { std::slice::from_raw_parts(self.producer.at.add(at + HDR), body) };
                f(data);
                n += 1;
            }
            cons += ((body + HDR + 7) & !7) as u64;
            self.consumer_pos().store(cons, Ordering::Release);
        }
    }
}
