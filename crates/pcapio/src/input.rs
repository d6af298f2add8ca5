//! Byte-counting input and small decoding helpers shared by the pcap and pcapng readers.

use std::io::{self, Read};

use crate::error::{Error, ErrorKind};

/// How much of a declared length is reserved up front; the rest of the buffer
/// grows only as data actually arrives, so a lying length field in a short file
/// cannot make the reader allocate gigabytes.
const RESERVE_CAP: u64 = 1 << 20;

/// The underlying reader plus the count of bytes consumed from it.
#[derive(Debug)]
pub(crate) struct Input<R> {
    r: R,
    pub(crate) offset: u64,
}

impl<R: Read> Input<R> {
    pub(crate) fn new(r: R) -> Self {
        Input { r, offset: 0 }
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

    /// Reads until `buf` is full or the input ends; returns the number of bytes read.
    pub(crate) fn fill(&mut self, buf: &mut [u8]) -> Result<usize, Error> {
        let mut n = 0;
        while n < buf.len() {
            match self.r.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => {
                    n += k;
                    self.offset += k as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.io_err(e)),
            }
        }
        Ok(n)
    }

    /// Replaces the contents of `v` with up to `n` bytes from the input; returns how
    /// many were read (fewer than `n` only at the end of the input). Reuses `v`'s
    /// capacity.
    pub(crate) fn read_vec(&mut self, v: &mut Vec<u8>, n: u64) -> Result<u64, Error> {
        v.clear();
        let want = usize::try_from(n.min(RESERVE_CAP)).unwrap_or(usize::MAX);
        v.reserve(want);
        let res = (&mut self.r).take(n).read_to_end(v);
        self.offset += v.len() as u64;
        match res {
            Ok(k) => Ok(k as u64),
            Err(e) => Err(self.io_err(e)),
        }
    }

    /// Reads and discards up to `n` bytes; returns how many were there.
    pub(crate) fn skip(&mut self, n: u64) -> Result<u64, Error> {
        match io::copy(&mut (&mut self.r).take(n), &mut io::sink()) {
            Ok(k) => {
                self.offset += k;
                Ok(k)
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
