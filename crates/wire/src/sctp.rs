//! SCTP packets (RFC 9260): the 12-byte common header and the chunk list.

use crate::bytes::{rest, u16_at, u32_at, u8_at, Field};
use crate::error::{Error, Result};

mod field {
    use super::Field;
    pub(crate) const SRC_PORT: Field = 0..2;
    pub(crate) const DST_PORT: Field = 2..4;
    pub(crate) const VERIFICATION_TAG: Field = 4..8;
    pub(crate) const CHECKSUM: Field = 8..12;
    pub(crate) const CHUNKS: usize = 12;
}

/// A read view of an SCTP packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SctpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> SctpPacket<T> {
    /// Length of the common header.
    pub const HEADER_LEN: usize = field::CHUNKS;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        SctpPacket { buffer }
    }

    /// Wraps a buffer after checking it holds the common header.
    pub fn new_checked(buffer: T) -> Result<Self> {
        if buffer.as_ref().len() < Self::HEADER_LEN {
            return Err(Error::Truncated);
        }
        Ok(Self::new_unchecked(buffer))
    }

    /// The source port.
    pub fn src_port(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::SRC_PORT.start)
    }

    /// The destination port.
    pub fn dst_port(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::DST_PORT.start)
    }

    /// The verification tag.
    pub fn verification_tag(&self) -> u32 {
        u32_at(self.buffer.as_ref(), field::VERIFICATION_TAG.start)
    }

    /// The CRC32c checksum field.
    pub fn checksum(&self) -> u32 {
        u32_at(self.buffer.as_ref(), field::CHECKSUM.start)
    }

    /// The bytes after the common header.
    pub fn chunk_bytes(&self) -> &[u8] {
        rest(self.buffer.as_ref(), field::CHUNKS)
    }

    /// An iterator over the chunks.
    pub fn chunks(&self) -> SctpChunks<'_> {
        SctpChunks::new(self.chunk_bytes())
    }
}

/// SCTP chunk types.
pub mod chunk {
    /// User data.
    pub const DATA: u8 = 0;
    /// Initiation of an association.
    pub const INIT: u8 = 1;
    /// Initiation acknowledgment, with the state cookie.
    pub const INIT_ACK: u8 = 2;
    /// Selective acknowledgment.
    pub const SACK: u8 = 3;
    /// Heartbeat request.
    pub const HEARTBEAT: u8 = 4;
    /// Heartbeat acknowledgment.
    pub const HEARTBEAT_ACK: u8 = 5;
    /// Abort of the association.
    pub const ABORT: u8 = 6;
    /// Shutdown of the association.
    pub const SHUTDOWN: u8 = 7;
    /// Shutdown acknowledgment.
    pub const SHUTDOWN_ACK: u8 = 8;
    /// Operation error.
    pub const ERROR: u8 = 9;
    /// The state cookie, sent back.
    pub const COOKIE_ECHO: u8 = 10;
    /// Cookie acknowledgment: the association is established.
    pub const COOKIE_ACK: u8 = 11;
    /// Explicit congestion notification echo.
    pub const ECNE: u8 = 12;
    /// Congestion window reduced.
    pub const CWR: u8 = 13;
    /// Shutdown complete.
    pub const SHUTDOWN_COMPLETE: u8 = 14;

    /// The name tcpdump prints for a chunk type.
    pub fn name(t: u8) -> Option<&'static str> {
        Some(match t {
            0 => "DATA",
            1 => "INIT",
            2 => "INIT ACK",
            3 => "SACK",
            4 => "HB REQ",
            5 => "HB ACK",
            6 => "ABORT",
            7 => "SHUTDOWN",
            8 => "SHUTDOWN ACK",
            9 => "OP ERR",
            10 => "COOKIE ECHO",
            11 => "COOKIE ACK",
            12 => "ECN ECHO",
            13 => "ECN CWR",
            14 => "SHUTDOWN COMPLETE",
            0xc0 => "FOR CUM TSN",
            0xc1 => "REL CTRL",
            0xc2 => "REL CTRL ACK",
            _ => return None,
        })
    }
}

/// One chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SctpChunk<'a> {
    /// The chunk type.
    pub chunk_type: u8,
    /// The chunk flags.
    pub flags: u8,
    /// The length field (header included, padding excluded).
    pub length: u16,
    /// The chunk value (after the 4-byte chunk header), clamped to the buffer.
    pub value: &'a [u8],
}

/// Most chunks [`SctpChunks`] yields.
pub const MAX_SCTP_CHUNKS: usize = 64;

/// Iterator over chunks, each padded to 4 bytes. A chunk length below 4 yields
/// `Err(Malformed)`; a chunk header cut by the buffer yields `Err(Truncated)`; a
/// value cut by the buffer is yielded clamped and ends the walk.
#[derive(Clone, Debug)]
pub struct SctpChunks<'a> {
    rest: &'a [u8],
    count: usize,
    done: bool,
}

impl<'a> SctpChunks<'a> {
    /// Walks the chunks in `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        SctpChunks {
            rest: bytes,
            count: 0,
            done: false,
        }
    }
}

impl<'a> Iterator for SctpChunks<'a> {
    type Item = Result<SctpChunk<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.rest.is_empty() {
            return None;
        }
        if self.count >= MAX_SCTP_CHUNKS {
            self.done = true;
            return Some(Err(Error::Malformed));
        }
        if self.rest.len() < 4 {
            self.done = true;
            return Some(Err(Error::Truncated));
        }
        let length = u16_at(self.rest, 2);
        if length < 4 {
            self.done = true;
            return Some(Err(Error::Malformed));
        }
        let c = SctpChunk {
            chunk_type: u8_at(self.rest, 0),
            flags: u8_at(self.rest, 1),
            length,
            value: crate::bytes::clamp(self.rest, 4, length as usize),
        };
        let padded = (length as usize + 3) & !3;
        if padded >= self.rest.len() {
            self.rest = &[];
        } else {
            self.rest = &self.rest[padded..];
        }
        self.count += 1;
        Some(Ok(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_chunks() {
        let b = [
            0x0b, 0x59, 0x0b, 0x59, 0, 0, 0, 1, 0xde, 0xad, 0xbe, 0xef, // common
            1, 0, 0, 5, 9, 0, 0, 0, // INIT, length 5, padded to 8
            11, 0, 0, 4, // COOKIE ACK
        ];
        let p = SctpPacket::new_checked(&b[..]).unwrap();
        assert_eq!((p.src_port(), p.dst_port()), (2905, 2905));
        assert_eq!(p.verification_tag(), 1);
        assert_eq!(p.checksum(), 0xdeadbeef);
        let c: Vec<_> = p.chunks().map(|c| c.unwrap()).collect();
        assert_eq!(c.len(), 2);
        assert_eq!(
            (c[0].chunk_type, c[0].length, c[0].value),
            (1, 5, &[9u8][..])
        );
        assert_eq!(c[1].chunk_type, chunk::COOKIE_ACK);
        assert_eq!(
            SctpPacket::new_checked(&b[..11]).unwrap_err(),
            Error::Truncated
        );
        let bad = [0u8, 0, 0, 2];
        assert_eq!(
            SctpChunks::new(&bad).next().unwrap().unwrap_err(),
            Error::Malformed
        );
    }
}
