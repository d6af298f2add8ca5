//! UDP datagrams (RFC 768).
//!
//! `new_checked` validates the 8-byte header; the payload is clamped to both the
//! length field and the buffer, since captures are often cut.

use crate::bytes::{clamp, u16_at, Field};
use crate::error::{Error, Result};

mod field {
    use super::Field;
    pub(crate) const SRC_PORT: Field = 0..2;
    pub(crate) const DST_PORT: Field = 2..4;
    pub(crate) const LENGTH: Field = 4..6;
    pub(crate) const CHECKSUM: Field = 6..8;
    pub(crate) const PAYLOAD: usize = 8;
}

/// A read view of a UDP datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UdpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> UdpPacket<T> {
    /// Length of the header.
    pub const HEADER_LEN: usize = field::PAYLOAD;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        UdpPacket { buffer }
    }

    /// Wraps a buffer after checking it holds the 8-byte header.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Checks the header is present.
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < Self::HEADER_LEN {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }

    /// Checks the length field too: at least 8, and covered by the buffer.
    pub fn check_datagram_len(&self) -> Result<()> {
        self.check_len()?;
        let l = self.len() as usize;
        if l < Self::HEADER_LEN {
            Err(Error::Malformed)
        } else if l > self.buffer.as_ref().len() {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }

    /// The source port.
    pub fn src_port(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::SRC_PORT.start)
    }

    /// The destination port.
    pub fn dst_port(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::DST_PORT.start)
    }

    /// The length field (header and payload).
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::LENGTH.start)
    }

    /// The checksum field (0 when unused over IPv4).
    pub fn checksum(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::CHECKSUM.start)
    }

    /// The payload, clamped to the length field and the buffer.
    pub fn payload(&self) -> &[u8] {
        clamp(self.buffer.as_ref(), field::PAYLOAD, self.len() as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        let b = [0x14, 0xe9, 0x14, 0xe9, 0x00, 0x0a, 0xbe, 0xef, 1, 2, 3];
        let p = UdpPacket::new_checked(&b[..]).unwrap();
        assert_eq!((p.src_port(), p.dst_port()), (5353, 5353));
        assert_eq!(p.len(), 10);
        assert_eq!(p.checksum(), 0xbeef);
        assert_eq!(p.payload(), &[1, 2]);
        assert!(p.check_datagram_len().is_ok());
        assert_eq!(
            UdpPacket::new_checked(&b[..7]).unwrap_err(),
            Error::Truncated
        );
        let mut bad = b;
        bad[5] = 4;
        let p = UdpPacket::new_checked(&bad[..]).unwrap();
        assert_eq!(p.payload(), &[] as &[u8]);
        assert_eq!(p.check_datagram_len().unwrap_err(), Error::Malformed);
        bad[5] = 40;
        let p = UdpPacket::new_checked(&bad[..]).unwrap();
        assert_eq!(p.payload(), &[1, 2, 3]);
        assert_eq!(p.check_datagram_len().unwrap_err(), Error::Truncated);
    }
}
