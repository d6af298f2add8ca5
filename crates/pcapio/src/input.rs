//! The reader's input buffer, and small decoding helpers shared by the pcap and
//! pcapng readers.
//!
//! Records and blocks are parsed where they lie in one large buffer: one `read`
//! call brings in many records, and a packet handed out is a slice of the buffer,
//! never a copy. Data moves only when a record runs past the end of the buffer:
//! then the unconsumed tail (less than one record) is moved to the front and the
//! rest of the buffer is refilled. The buffer grows only for a record larger than
//! itself, and only as that record's bytes actually arrive, so a lying length
//! field in a short file cannot make the reader allocate gigabytes.

use std::io::{self, Read};

use crate::error::{Error, ErrorKind};

/// Default buffer size: large enough that `read` calls are few and cheap per
/// byte, small enough to stay in the L2 cache of common CPUs.
pub(crate) const DEFAULT_CAPACITY: usize = 1 << 20;

/// The underlying reader, the buffer, and the count of bytes consumed.
#[derive(Debug)]
pub(crate) struct Input<R> {
    r: R,
    buf: Vec<u8>,
    /// `buf[start..end]` holds read but unconsumed bytes.
    start: usize,
    end: usize,
    /// Set once `r` has returned end of file.
    eof: bool,
    /// File offset of `buf[start]`: bytes consumed so far.
    pub(crate) offset: u64,
}

impl<R: Read> Input<R> {
    pub(crate) fn new(r: R, capacity: usize) -> Self {
        Input {
            r,
            // Zeroed by the allocator (fresh pages), not by a memset.
            buf: vec![0; capacity.max(64)],
            start: 0,
            end: 0,
            eof: false,
            offset: 0,
        }
    }

    pub(crate) fn get_ref(&self) -> &R {
        &self.r
    }

    pub(crate) fn into_inner(self) -> R {
        self.r
    }

    fn io_err(&self, e: io::Error) -> Error {
        Error::new(ErrorKind::Io(e), self.offset)
    }

    /// The whole buffer; slots index it with absolute positions.
    pub(crate) fn buf(&self) -> &[u8] {
        &self.buf
    }

    pub(crate) fn buf_mut(&mut self) -> &mut [u8] {
        &mut self.buf
    }

    /// Position in [`Input::buf`] of the next unconsumed byte.
    pub(crate) fn pos(&self) -> usize {
        self.start
    }

    /// How many unconsumed bytes are buffered.
    pub(crate) fn available(&self) -> usize {
        self.end - self.start
    }

    /// The unconsumed bytes.
    pub(crate) fn buffered(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// Marks `n` buffered bytes as consumed.
    pub(crate) fn consume(&mut self, n: usize) {
        debug_assert!(n <= self.available());
        let n = n.min(self.available());
        self.start += n;
        self.offset += n as u64;
    }

    /// Makes `n` unconsumed bytes available, reading as needed; returns how many
    /// are (fewer than `n` only at the end of the input). This may move the
    /// buffered bytes, so positions taken before it are invalid after it.
    pub(crate) fn fill_to(&mut self, n: usize) -> Result<usize, Error> {
        if self.available() >= n || self.eof {
            return Ok(self.available().min(n));
        }
        // Move the unconsumed tail (usually part of one record) to the front, so
        // that the read below gets the whole rest of the buffer.
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        while self.end < n {
            if self.end == self.buf.len() {
                // The buffer is full of real data and still too small: grow it,
                // at most doubling, so memory follows the data actually present.
                let grown = n.min(self.buf.len().saturating_mul(2));
                self.buf.resize(grown, 0);
            }
            match self.r.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(k) => self.end += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.io_err(e)),
            }
        }
        Ok(self.available().min(n))
    }

    /// Reads until `out` is full or the input ends; returns the number of bytes
    /// read.
    pub(crate) fn fill(&mut self, out: &mut [u8]) -> Result<usize, Error> {
        let n = self.fill_to(out.len())?;
        out[..n].copy_from_slice(&self.buffered()[..n]);
        self.consume(n);
        Ok(n)
    }

    /// Consumes and discards up to `n` bytes; returns how many were there. The
    /// buffer's contents before the current position are left in place (they may
    /// hold the packet whose tail is being skipped).
    pub(crate) fn skip(&mut self, n: u64) -> Result<u64, Error> {
        let here = (self.available() as u64).min(n);
        self.consume(here as usize);
        if here == n || self.eof {
            return Ok(here);
        }
        // The buffer is now empty; skip the rest straight from the reader.
        // `take` stops the reads exactly at the end of the skipped bytes.
        match io::copy(&mut (&mut self.r).take(n - here), &mut io::sink()) {
            Ok(k) => {
                self.offset += k;
                if k < n - here {
                    self.eof = true;
                }
                Ok(here + k)
            }
            Err(e) => Err(self.io_err(e)),
        }
    }
}

/// Byte order of a file or section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Endian {
    Little,
    Big,
}

impl Endian {
    pub(crate) fn u16(self, b: [u8; 2]) -> u16 {
        match self {
            Endian::Little => u16::from_le_bytes(b),
            Endian::Big => u16::from_be_bytes(b),
        }
    }

    pub(crate) fn u32(self, b: [u8; 4]) -> u32 {
        match self {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        }
    }

    pub(crate) fn u64(self, b: [u8; 8]) -> u64 {
        match self {
            Endian::Little => u64::from_le_bytes(b),
            Endian::Big => u64::from_be_bytes(b),
        }
    }
}

/// Copies `N` bytes at `at` out of `b`, or `None` if `b` is too short.
pub(crate) fn arr<const N: usize>(b: &[u8], at: usize) -> Option<[u8; N]> {
    let end = at.checked_add(N)?;
    let s = b.get(at..end)?;
    let mut out = [0u8; N];
    out.copy_from_slice(s);
    Some(out)
}
