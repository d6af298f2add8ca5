//! GRE (RFC 2784, RFC 2890) and the enhanced GRE of PPTP (RFC 2637, version 1).
//!
//! The 4-byte base header holds the flags, the version and the protocol type (an
//! EtherType). Optional fields follow in a fixed order, each present when its flag
//! is set: checksum and offset (C or R), key (K; for version 1 the payload length
//! and call id), sequence number (S) and, for version 1, acknowledgment number (A).
//! `new_checked` validates that the buffer covers all the announced fields. The
//! source routing entries of the deprecated R flag are not walked.

use crate::bytes::{rest, u16_at, u32_at, Field};
use crate::error::{Error, Result};
use crate::ethernet::EtherType;

/// GRE flag bits (in the first 16-bit word).
pub mod flags {
    /// C: a checksum (and a reserved field) follows the fixed header.
    pub const CHECKSUM: u16 = 0x8000;
    /// R: routing information follows (RFC 1701).
    pub const ROUTING: u16 = 0x4000;
    /// K: a 32-bit key follows (RFC 2890; the call id in PPTP).
    pub const KEY: u16 = 0x2000;
    /// S: a 32-bit sequence number follows.
    pub const SEQUENCE: u16 = 0x1000;
    /// s: the route is a strict source route (RFC 1701).
    pub const STRICT_SOURCE_ROUTE: u16 = 0x0800;
    /// A: an acknowledgment number follows (PPTP's enhanced GRE, version 1).
    pub const ACK: u16 = 0x0080;
    /// The version bits: 0 for GRE, 1 for the enhanced GRE of PPTP (RFC 2637).
    pub const VERSION_MASK: u16 = 0x0007;
}

mod field {
    use super::Field;
    pub(crate) const FLAGS_VERSION: Field = 0..2;
    pub(crate) const PROTOCOL: Field = 2..4;
    pub(crate) const OPTIONAL: usize = 4;
}

/// A read view of a GRE header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GrePacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> GrePacket<T> {
    /// Length of the base header.
    pub const BASE_LEN: usize = field::OPTIONAL;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        GrePacket { buffer }
    }

    /// Wraps a buffer after checking it holds the base header and every optional
    /// field the flags announce.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Self::new_unchecked(buffer);
        let len = p.buffer.as_ref().len();
        if len < Self::BASE_LEN || len < p.header_len() {
            return Err(Error::Truncated);
        }
        Ok(p)
    }

    /// The raw flags-and-version word.
    pub fn flags_version(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::FLAGS_VERSION.start)
    }

    fn flag(&self, f: u16) -> bool {
        self.flags_version() & f != 0
    }

    /// The version (0 for GRE, 1 for enhanced GRE).
    pub fn version(&self) -> u8 {
        (self.flags_version() & flags::VERSION_MASK) as u8
    }

    /// The protocol type of the payload.
    pub fn protocol_type(&self) -> EtherType {
        EtherType(u16_at(self.buffer.as_ref(), field::PROTOCOL.start))
    }

    /// Whether the checksum (and offset) fields are present.
    pub fn has_checksum(&self) -> bool {
        self.flag(flags::CHECKSUM) || self.flag(flags::ROUTING)
    }

    /// Whether the key field is present.
    pub fn has_key(&self) -> bool {
        self.flag(flags::KEY)
    }

    /// Whether the sequence number field is present.
    pub fn has_sequence(&self) -> bool {
        self.flag(flags::SEQUENCE)
    }

    /// Whether the routing flag is set (routing entries follow the header).
    pub fn has_routing(&self) -> bool {
        self.flag(flags::ROUTING)
    }

    /// Whether the acknowledgment field is present (version 1 only).
    pub fn has_ack(&self) -> bool {
        self.version() == 1 && self.flag(flags::ACK)
    }

    fn offset_of(&self, which: u8) -> usize {
        // 0: checksum, 1: key, 2: sequence, 3: ack
        let mut off = Self::BASE_LEN;
        if which > 0 && self.has_checksum() {
            off += 4;
        }
        if which > 1 && self.has_key() {
            off += 4;
        }
        if which > 2 && self.has_sequence() {
            off += 4;
        }
        off
    }

    /// The header length: base header plus optional fields.
    pub fn header_len(&self) -> usize {
        self.offset_of(3) + if self.has_ack() { 4 } else { 0 }
    }

    /// The checksum, when present.
    pub fn checksum(&self) -> Option<u16> {
        self.has_checksum()
            .then(|| u16_at(self.buffer.as_ref(), self.offset_of(0)))
    }

    /// The offset field, when present.
    pub fn offset(&self) -> Option<u16> {
        self.has_checksum()
            .then(|| u16_at(self.buffer.as_ref(), self.offset_of(0) + 2))
    }

    /// The key, when present (for version 1: payload length << 16 | call id).
    pub fn key(&self) -> Option<u32> {
        self.has_key()
            .then(|| u32_at(self.buffer.as_ref(), self.offset_of(1)))
    }

    /// The PPTP call id (low half of the key), for version 1.
    pub fn call_id(&self) -> Option<u16> {
        self.key().map(|k| k as u16)
    }

    /// The sequence number, when present.
    pub fn sequence(&self) -> Option<u32> {
        self.has_sequence()
            .then(|| u32_at(self.buffer.as_ref(), self.offset_of(2)))
    }

    /// The acknowledgment number, when present (version 1).
    pub fn ack(&self) -> Option<u32> {
        self.has_ack()
            .then(|| u32_at(self.buffer.as_ref(), self.offset_of(3)))
    }

    /// Everything after the header.
    pub fn payload(&self) -> &[u8] {
        rest(self.buffer.as_ref(), self.header_len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_and_sequence() {
        let b = [
            0x30, 0x00, 0x08, 0x00, // K, S, IPv4
            0x00, 0x00, 0x00, 0x28, // key
            0x00, 0x00, 0x00, 0x05, // seq
            0x45,
        ];
        let g = GrePacket::new_checked(&b[..]).unwrap();
        assert_eq!(g.version(), 0);
        assert_eq!(g.protocol_type(), EtherType::IPV4);
        assert_eq!(g.checksum(), None);
        assert_eq!(g.key(), Some(0x28));
        assert_eq!(g.sequence(), Some(5));
        assert_eq!(g.header_len(), 12);
        assert_eq!(g.payload(), &[0x45]);
        assert_eq!(
            GrePacket::new_checked(&b[..11]).unwrap_err(),
            Error::Truncated
        );
    }

    #[test]
    fn checksum_and_pptp() {
        let b = [0x80, 0x00, 0x86, 0xdd, 0xab, 0xcd, 0x00, 0x00];
        let g = GrePacket::new_checked(&b[..]).unwrap();
        assert_eq!((g.checksum(), g.offset()), (Some(0xabcd), Some(0)));
        assert_eq!(g.header_len(), 8);

        let v1 = [
            0x30, 0x81, 0x88, 0x0b, // K S, A, v1, PPP
            0x00, 0x10, 0x12, 0x34, // len 16, call 0x1234
            0, 0, 0, 1, // seq
            0, 0, 0, 2, // ack
        ];
        let g = GrePacket::new_checked(&v1[..]).unwrap();
        assert_eq!(g.version(), 1);
        assert_eq!(g.call_id(), Some(0x1234));
        assert_eq!((g.sequence(), g.ack()), (Some(1), Some(2)));
        assert_eq!(g.header_len(), 16);
        assert_eq!(
            GrePacket::new_checked(&v1[..15]).unwrap_err(),
            Error::Truncated
        );
    }
}
