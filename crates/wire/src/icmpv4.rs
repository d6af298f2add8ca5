//! ICMP for IPv4 (RFC 792 and successors).
//!
//! The 8-byte header holds the type, code and checksum, then four bytes whose
//! meaning depends on the type (echo id and sequence, redirect gateway, next-hop MTU,
//! parameter-problem pointer). Error messages carry the offending IP header and the
//! first bytes of its payload after those 8 bytes.

use crate::bytes::{array, rest, u16_at, u32_at, u8_at, Field};
use crate::checksum::ones_sum;
use crate::error::{Error, Result};
use std::net::Ipv4Addr;

/// ICMPv4 message types.
pub mod msg_type {
    /// Echo reply: the answer to a ping.
    pub const ECHO_REPLY: u8 = 0;
    /// Destination unreachable; the code says why.
    pub const DEST_UNREACHABLE: u8 = 3;
    /// Source quench: slow down (deprecated by RFC 6633).
    pub const SOURCE_QUENCH: u8 = 4;
    /// Redirect: a better first hop for the destination.
    pub const REDIRECT: u8 = 5;
    /// Echo request: a ping.
    pub const ECHO_REQUEST: u8 = 8;
    /// Router advertisement (RFC 1256).
    pub const ROUTER_ADVERT: u8 = 9;
    /// Router solicitation (RFC 1256).
    pub const ROUTER_SOLICIT: u8 = 10;
    /// Time exceeded: the TTL ran out in transit, or reassembly timed out.
    pub const TIME_EXCEEDED: u8 = 11;
    /// Parameter problem: a header field the receiver could not process.
    pub const PARAM_PROBLEM: u8 = 12;
    /// Timestamp request.
    pub const TIMESTAMP: u8 = 13;
    /// Timestamp reply.
    pub const TIMESTAMP_REPLY: u8 = 14;
    /// Information request (obsolete).
    pub const INFO_REQUEST: u8 = 15;
    /// Information reply (obsolete).
    pub const INFO_REPLY: u8 = 16;
    /// Address mask request (RFC 950).
    pub const MASK_REQUEST: u8 = 17;
    /// Address mask reply (RFC 950).
    pub const MASK_REPLY: u8 = 18;

    /// Whether the type is an error carrying the offending datagram.
    pub fn is_error(t: u8) -> bool {
        matches!(t, 3 | 4 | 5 | 11 | 12)
    }

    /// A short name of the type.
    pub fn name(t: u8) -> Option<&'static str> {
        Some(match t {
            0 => "echo reply",
            3 => "destination unreachable",
            4 => "source quench",
            5 => "redirect",
            8 => "echo request",
            9 => "router advertisement",
            10 => "router solicitation",
            11 => "time exceeded",
            12 => "parameter problem",
            13 => "time stamp request",
            14 => "time stamp reply",
            15 => "information request",
            16 => "information reply",
            17 => "address mask request",
            18 => "address mask reply",
            _ => return None,
        })
    }
}

mod field {
    use super::Field;
    pub(crate) const TYPE: usize = 0;
    pub(crate) const CODE: usize = 1;
    pub(crate) const CHECKSUM: Field = 2..4;
    pub(crate) const REST: Field = 4..8;
    pub(crate) const DATA: usize = 8;
}

/// A read view of an ICMPv4 message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Icmpv4Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Icmpv4Packet<T> {
    /// Length of the header.
    pub const HEADER_LEN: usize = field::DATA;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        Icmpv4Packet { buffer }
    }

    /// Wraps a buffer after checking it holds the 8-byte header.
    pub fn new_checked(buffer: T) -> Result<Self> {
        if buffer.as_ref().len() < Self::HEADER_LEN {
            return Err(Error::Truncated);
        }
        Ok(Self::new_unchecked(buffer))
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

    /// Whether the checksum over the whole buffer is right.
    pub fn verify_checksum(&self) -> bool {
        ones_sum(0, self.buffer.as_ref()) == 0xffff
    }

    /// The echo identifier (echo, timestamp, information, mask messages).
    pub fn echo_ident(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::REST.start)
    }

    /// The echo sequence number.
    pub fn echo_seq_no(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::REST.start + 2)
    }

    /// The gateway address of a redirect.
    pub fn gateway(&self) -> Ipv4Addr {
        Ipv4Addr::from(array::<4>(self.buffer.as_ref(), field::REST.start))
    }

    /// The next-hop MTU of a "fragmentation needed" message (0 when absent).
    pub fn next_hop_mtu(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::REST.start + 2)
    }

    /// The pointer of a parameter problem.
    pub fn pointer(&self) -> u8 {
        u8_at(self.buffer.as_ref(), field::REST.start)
    }

    /// The four type-specific bytes as one word.
    pub fn rest_of_header(&self) -> u32 {
        u32_at(self.buffer.as_ref(), field::REST.start)
    }

    /// Everything after the 8-byte header (the offending datagram for errors).
    pub fn data(&self) -> &[u8] {
        rest(self.buffer.as_ref(), field::DATA)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echo() {
        let mut b = vec![8, 0, 0, 0, 0x00, 0x01, 0x00, 0x02, 0xaa, 0xbb];
        let sum = !(ones_sum(0, &b) as u16);
        b[2..4].copy_from_slice(&sum.to_be_bytes());
        let p = Icmpv4Packet::new_checked(&b[..]).unwrap();
        assert_eq!(p.msg_type(), msg_type::ECHO_REQUEST);
        assert_eq!(p.msg_code(), 0);
        assert_eq!((p.echo_ident(), p.echo_seq_no()), (1, 2));
        assert!(p.verify_checksum());
        assert_eq!(p.data(), &[0xaa, 0xbb]);
        assert_eq!(
            Icmpv4Packet::new_checked(&b[..7]).unwrap_err(),
            Error::Truncated
        );
    }

    #[test]
    fn errors() {
        let b = [3, 4, 0, 0, 0, 0, 0x05, 0xdc, 0x45];
        let p = Icmpv4Packet::new_checked(&b[..]).unwrap();
        assert_eq!(p.next_hop_mtu(), 1500);
        assert!(msg_type::is_error(p.msg_type()));
        let r = [5, 1, 0, 0, 10, 0, 0, 254];
        assert_eq!(
            Icmpv4Packet::new_checked(&r[..]).unwrap().gateway(),
            Ipv4Addr::new(10, 0, 0, 254)
        );
    }
}
