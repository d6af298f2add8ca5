//! ICMPv6 (RFC 4443), with the neighbor discovery (RFC 4861) and multicast listener
//! discovery (RFC 2710, RFC 3810) messages carried over it.
//!
//! The 4-byte header (type, code, checksum) is followed by a message body; the
//! accessors for body fields that may lie past the end of a short message return
//! `Option`.

use crate::bytes::{array, rest, u16_at, u32_at, u8_at, Field};
use crate::error::{Error, Result};
use std::net::Ipv6Addr;

/// ICMPv6 message types.
pub mod msg_type {
    /// Destination unreachable; the code says why.
    pub const DST_UNREACH: u8 = 1;
    /// Packet too big: carries the next hop's MTU.
    pub const PACKET_TOO_BIG: u8 = 2;
    /// Time exceeded: the hop limit ran out, or reassembly timed out.
    pub const TIME_EXCEEDED: u8 = 3;
    /// Parameter problem: the offset of a field the receiver could not process.
    pub const PARAM_PROBLEM: u8 = 4;
    /// Echo request: a ping.
    pub const ECHO_REQUEST: u8 = 128;
    /// Echo reply: the answer to a ping.
    pub const ECHO_REPLY: u8 = 129;
    /// Multicast listener query (MLDv1 and MLDv2).
    pub const MLD_QUERY: u8 = 130;
    /// Multicast listener report, version 1 (RFC 2710).
    pub const MLD_REPORT: u8 = 131;
    /// Multicast listener done, version 1 (RFC 2710).
    pub const MLD_DONE: u8 = 132;
    /// Router solicitation (neighbor discovery, RFC 4861).
    pub const ROUTER_SOLICIT: u8 = 133;
    /// Router advertisement (neighbor discovery, RFC 4861).
    pub const ROUTER_ADVERT: u8 = 134;
    /// Neighbor solicitation (neighbor discovery, RFC 4861).
    pub const NEIGHBOR_SOLICIT: u8 = 135;
    /// Neighbor advertisement (neighbor discovery, RFC 4861).
    pub const NEIGHBOR_ADVERT: u8 = 136;
    /// Redirect: a better first hop for the destination (RFC 4861).
    pub const REDIRECT: u8 = 137;
    /// Router renumbering (RFC 2894).
    pub const ROUTER_RENUMBERING: u8 = 138;
    /// Node information query (RFC 4620).
    pub const NODE_INFO_QUERY: u8 = 139;
    /// Node information reply (RFC 4620).
    pub const NODE_INFO_REPLY: u8 = 140;
    /// Inverse neighbor discovery solicitation (RFC 3122).
    pub const INV_NEIGHBOR_SOLICIT: u8 = 141;
    /// Inverse neighbor discovery advertisement (RFC 3122).
    pub const INV_NEIGHBOR_ADVERT: u8 = 142;
    /// Multicast listener report, version 2 (RFC 3810).
    pub const MLDV2_REPORT: u8 = 143;
    /// Mobile IPv6 home agent address discovery request (RFC 6275).
    pub const HA_DISCOVERY_REQUEST: u8 = 144;
    /// Mobile IPv6 home agent address discovery reply (RFC 6275).
    pub const HA_DISCOVERY_REPLY: u8 = 145;
    /// Mobile IPv6 mobile prefix solicitation (RFC 6275).
    pub const MOBILE_PREFIX_SOLICIT: u8 = 146;
    /// Mobile IPv6 mobile prefix advertisement (RFC 6275).
    pub const MOBILE_PREFIX_ADVERT: u8 = 147;
    /// RPL control message (RFC 6550).
    pub const RPL: u8 = 155;

    /// The name tcpdump prints for a type.
    pub fn name(t: u8) -> Option<&'static str> {
        Some(match t {
            1 => "destination unreachable",
            2 => "packet too big",
            3 => "time exceeded in-transit",
            4 => "parameter problem",
            128 => "echo request",
            129 => "echo reply",
            130 => "multicast listener query",
            131 => "multicast listener report",
            132 => "multicast listener done",
            133 => "router solicitation",
            134 => "router advertisement",
            135 => "neighbor solicitation",
            136 => "neighbor advertisement",
            137 => "redirect",
            138 => "router renumbering",
            139 => "who-are-you request",
            140 => "who-are-you reply",
            141 => "inverse neighbor solicitation",
            142 => "inverse neighbor advertisement",
            143 => "multicast listener report v2",
            144 => "ha discovery request",
            145 => "ha discovery reply",
            146 => "mobile router solicitation",
            147 => "mobile router advertisement",
            155 => "RPL",
            200 => "mtrace response",
            201 => "mtrace message",
            _ => return None,
        })
    }
}

mod field {
    use super::Field;
    pub(crate) const TYPE: usize = 0;
    pub(crate) const CODE: usize = 1;
    pub(crate) const CHECKSUM: Field = 2..4;
    pub(crate) const DATA32: Field = 4..8;
    pub(crate) const BODY: usize = 8;
}

/// A read view of an ICMPv6 message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Icmpv6Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Icmpv6Packet<T> {
    /// Length of the type, code and checksum.
    pub const HEADER_LEN: usize = 4;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        Icmpv6Packet { buffer }
    }

    /// Wraps a buffer after checking it holds type, code and checksum.
    pub fn new_checked(buffer: T) -> Result<Self> {
        if buffer.as_ref().len() < Self::HEADER_LEN {
            return Err(Error::Truncated);
        }
        Ok(Self::new_unchecked(buffer))
    }

    fn has(&self, n: usize) -> bool {
        self.buffer.as_ref().len() >= n
    }

    /// The message type.
    pub fn msg_type(&self) -> u8 {
        u8_at(self.buffer.as_ref(), field::TYPE)
    }

    /// The code.
    pub fn msg_code(&self) -> u8 {
        u8_at(self.buffer.as_ref(), field::CODE)
    }

    /// The checksum field.
    pub fn checksum(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::CHECKSUM.start)
    }

    /// Echo identifier and sequence number, when the first body word is present.
    pub fn echo(&self) -> Option<(u16, u16)> {
        let b = self.buffer.as_ref();
        self.has(8).then(|| {
            (
                u16_at(b, field::DATA32.start),
                u16_at(b, field::DATA32.start + 2),
            )
        })
    }

    /// The first 32-bit body word (MTU of "packet too big", pointer of "parameter
    /// problem"), when present.
    pub fn data32(&self) -> Option<u32> {
        self.has(8)
            .then(|| u32_at(self.buffer.as_ref(), field::DATA32.start))
    }

    /// The IPv6 address at byte `offset`, when present: the target of a neighbor
    /// solicitation or advertisement or of a redirect is at 8, a redirect's
    /// destination and an MLD multicast address at 24 and 8.
    pub fn addr_at(&self, offset: usize) -> Option<Ipv6Addr> {
        self.has(offset + 16)
            .then(|| Ipv6Addr::from(array::<16>(self.buffer.as_ref(), offset)))
    }

    /// The target address of a neighbor solicitation or advertisement.
    pub fn nd_target(&self) -> Option<Ipv6Addr> {
        self.addr_at(8)
    }

    /// Everything after the first 8 bytes (the offending packet of an error).
    pub fn body(&self) -> &[u8] {
        rest(self.buffer.as_ref(), field::BODY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbor_solicitation() {
        let mut b = vec![135, 0, 0x12, 0x34, 0, 0, 0, 0];
        b.extend_from_slice(&"fe80::1".parse::<Ipv6Addr>().unwrap().octets());
        let p = Icmpv6Packet::new_checked(&b[..]).unwrap();
        assert_eq!(p.msg_type(), msg_type::NEIGHBOR_SOLICIT);
        assert_eq!(p.checksum(), 0x1234);
        assert_eq!(p.nd_target(), Some("fe80::1".parse().unwrap()));
        assert_eq!(p.addr_at(24), None);
        assert_eq!(msg_type::name(p.msg_type()), Some("neighbor solicitation"));
    }

    #[test]
    fn echo_and_short() {
        let b = [128, 0, 0, 0, 0, 7, 0, 9];
        let p = Icmpv6Packet::new_checked(&b[..]).unwrap();
        assert_eq!(p.echo(), Some((7, 9)));
        let p = Icmpv6Packet::new_checked(&b[..5]).unwrap();
        assert_eq!(p.echo(), None);
        assert_eq!(p.data32(), None);
        assert_eq!(
            Icmpv6Packet::new_checked(&b[..3]).unwrap_err(),
            Error::Truncated
        );
    }
}
