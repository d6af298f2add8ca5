//! Geneve (RFC 8926): an 8-byte base header, variable-length options, then the
//! payload named by an EtherType (0x6558 for an inner Ethernet frame), over UDP
//! port 6081.

use crate::bytes::{rest, slice, u16_at, u24_at, u8_at};
use crate::error::{Error, Result};
use crate::ethernet::EtherType;

/// The IANA UDP port.
pub const GENEVE_PORT: u16 = 6081;

/// A read view of a Geneve header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GeneveHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> GeneveHeader<T> {
    /// Length of the base header.
    pub const BASE_LEN: usize = 8;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        GeneveHeader { buffer }
    }

    /// Wraps a buffer after checking it holds the base header and the options.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let g = Self::new_unchecked(buffer);
        let len = g.buffer.as_ref().len();
        if len < Self::BASE_LEN || len < g.header_len() {
            return Err(Error::Truncated);
        }
        Ok(g)
    }

    /// The version (0).
    pub fn version(&self) -> u8 {
        u8_at(self.buffer.as_ref(), 0) >> 6
    }

    /// Length of the options in bytes (the 6-bit field times 4).
    pub fn options_len(&self) -> usize {
        (u8_at(self.buffer.as_ref(), 0) & 0x3f) as usize * 4
    }

    /// The raw flags byte (O = 0x80, C = 0x40).
    pub fn flags(&self) -> u8 {
        u8_at(self.buffer.as_ref(), 1)
    }

    /// The OAM flag.
    pub fn oam(&self) -> bool {
        self.flags() & 0x80 != 0
    }

    /// The critical-options flag.
    pub fn critical(&self) -> bool {
        self.flags() & 0x40 != 0
    }

    /// The payload protocol.
    pub fn protocol_type(&self) -> EtherType {
        EtherType(u16_at(self.buffer.as_ref(), 2))
    }

    /// The 24-bit virtual network identifier.
    pub fn vni(&self) -> u32 {
        u24_at(self.buffer.as_ref(), 4)
    }

    /// The reserved byte after the VNI.
    pub fn reserved(&self) -> u8 {
        u8_at(self.buffer.as_ref(), 7)
    }

    /// Length of base header and options.
    pub fn header_len(&self) -> usize {
        Self::BASE_LEN + self.options_len()
    }

    /// The raw options.
    pub fn options(&self) -> &[u8] {
        slice(self.buffer.as_ref(), Self::BASE_LEN..self.header_len())
    }

    /// The payload.
    pub fn payload(&self) -> &[u8] {
        rest(self.buffer.as_ref(), self.header_len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_with_options() {
        let b = [
            0x02, 0x40, 0x65, 0x58, 0x00, 0x00, 0x0a, 0x00, // 8 bytes of options, C
            1, 2, 3, 4, 5, 6, 7, 8, 0xee,
        ];
        let g = GeneveHeader::new_checked(&b[..]).unwrap();
        assert_eq!(g.version(), 0);
        assert!(g.critical() && !g.oam());
        assert_eq!(g.protocol_type(), EtherType::TEB);
        assert_eq!(g.vni(), 10);
        assert_eq!(g.options_len(), 8);
        assert_eq!(g.options(), &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(g.payload(), &[0xee]);
        assert_eq!(
            GeneveHeader::new_checked(&b[..15]).unwrap_err(),
            Error::Truncated
        );
        assert_eq!(
            GeneveHeader::new_checked(&b[..7]).unwrap_err(),
            Error::Truncated
        );
    }
}
