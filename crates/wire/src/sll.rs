//! Linux "cooked" capture headers: SLL (LINKTYPE_LINUX_SLL, 16 bytes) and SLL2
//! (LINKTYPE_LINUX_SLL2, 20 bytes).
//!
//! Both record the packet direction, the ARPHRD_ hardware type, up to 8 bytes of
//! link-layer source address and a protocol: an EtherType, or for values up to 1500
//! one of the Linux `ETH_P_` pseudo-protocols (0x0004: an 802.2 LLC frame follows,
//! 0x0001: a Novell raw 802.3 frame, ...). SLL2 adds the interface index.

use crate::bytes::{slice, u16_at, u32_at, u8_at, Field};
use crate::error::{Error, Result};
use crate::ethernet::EtherType;

/// Packet types (direction) of SLL and SLL2.
pub mod packet_type {
    /// Sent to us.
    pub const HOST: u16 = 0;
    /// Broadcast by somebody else.
    pub const BROADCAST: u16 = 1;
    /// Multicast by somebody else.
    pub const MULTICAST: u16 = 2;
    /// Sent by somebody else to somebody else.
    pub const OTHERHOST: u16 = 3;
    /// Sent by us.
    pub const OUTGOING: u16 = 4;

    /// tcpdump's abbreviation (`In`, `B`, `M`, `P`, `Out`).
    pub fn name(t: u16) -> Option<&'static str> {
        Some(match t {
            HOST => "In",
            BROADCAST => "B",
            MULTICAST => "M",
            OTHERHOST => "P",
            OUTGOING => "Out",
            _ => return None,
        })
    }
}

/// Linux pseudo-protocols found where the EtherType would be.
pub mod pseudo_protocol {
    /// Novell 802.3 frame without an LLC header.
    pub const P_802_3: u16 = 0x0001;
    /// 802.2 LLC frame.
    pub const P_802_2: u16 = 0x0004;
    /// CAN frame.
    pub const P_CAN: u16 = 0x000c;
    /// CAN FD frame.
    pub const P_CANFD: u16 = 0x000d;
}

/// ARPHRD_ hardware types worth naming.
pub mod hardware {
    /// ARPHRD_ETHER: Ethernet.
    pub const ETHER: u16 = 1;
    /// ARPHRD_LOOPBACK: the loopback device.
    pub const LOOPBACK: u16 = 772;
    /// ARPHRD_IPGRE: a GRE tunnel over IP.
    pub const IPGRE: u16 = 778;
    /// ARPHRD_FRAD: a Frame Relay access device.
    pub const FRAD: u16 = 770;
    /// ARPHRD_NETLINK: netlink messages (an nlmon device).
    pub const NETLINK: u16 = 824;
    /// ARPHRD_NONE: no link-level header (a tun device, for one).
    pub const NONE: u16 = 0xfffe;
}

mod field {
    use super::Field;
    pub(crate) const PKTTYPE: Field = 0..2;
    pub(crate) const HATYPE: Field = 2..4;
    pub(crate) const HALEN: Field = 4..6;
    pub(crate) const ADDR: Field = 6..14;
    pub(crate) const PROTOCOL: Field = 14..16;
    pub(crate) const PAYLOAD: usize = 16;
}

/// A read view of an SLL (version 1) header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SllHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> SllHeader<T> {
    /// Length of the header.
    pub const HEADER_LEN: usize = field::PAYLOAD;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        SllHeader { buffer }
    }

    /// Wraps a buffer after checking it holds the 16-byte header.
    pub fn new_checked(buffer: T) -> Result<Self> {
        if buffer.as_ref().len() < Self::HEADER_LEN {
            return Err(Error::Truncated);
        }
        Ok(Self::new_unchecked(buffer))
    }

    /// The packet type (direction).
    pub fn packet_type(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::PKTTYPE.start)
    }

    /// The ARPHRD_ hardware type.
    pub fn hardware_type(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::HATYPE.start)
    }

    /// The link-layer address length field.
    pub fn addr_len(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::HALEN.start)
    }

    /// The link-layer source address (at most 8 bytes).
    pub fn addr(&self) -> &[u8] {
        let n = (self.addr_len() as usize).min(8);
        slice(
            self.buffer.as_ref(),
            field::ADDR.start..field::ADDR.start + n,
        )
    }

    /// The protocol: an EtherType, or a pseudo-protocol when at most 1500.
    pub fn protocol(&self) -> EtherType {
        EtherType(u16_at(self.buffer.as_ref(), field::PROTOCOL.start))
    }

    /// Everything after the header.
    pub fn payload(&self) -> &[u8] {
        crate::bytes::rest(self.buffer.as_ref(), field::PAYLOAD)
    }
}

mod field2 {
    use super::Field;
    pub(crate) const PROTOCOL: Field = 0..2;
    pub(crate) const RESERVED: Field = 2..4;
    pub(crate) const IFINDEX: Field = 4..8;
    pub(crate) const HATYPE: Field = 8..10;
    pub(crate) const PKTTYPE: usize = 10;
    pub(crate) const HALEN: usize = 11;
    pub(crate) const ADDR: Field = 12..20;
    pub(crate) const PAYLOAD: usize = 20;
}

/// A read view of an SLL2 header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sll2Header<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Sll2Header<T> {
    /// Length of the header.
    pub const HEADER_LEN: usize = field2::PAYLOAD;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        Sll2Header { buffer }
    }

    /// Wraps a buffer after checking it holds the 20-byte header.
    pub fn new_checked(buffer: T) -> Result<Self> {
        if buffer.as_ref().len() < Self::HEADER_LEN {
            return Err(Error::Truncated);
        }
        Ok(Self::new_unchecked(buffer))
    }

    /// The protocol: an EtherType, or a pseudo-protocol when at most 1500.
    pub fn protocol(&self) -> EtherType {
        EtherType(u16_at(self.buffer.as_ref(), field2::PROTOCOL.start))
    }

    /// The reserved field.
    pub fn reserved(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field2::RESERVED.start)
    }

    /// The interface index.
    pub fn if_index(&self) -> u32 {
        u32_at(self.buffer.as_ref(), field2::IFINDEX.start)
    }

    /// The ARPHRD_ hardware type.
    pub fn hardware_type(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field2::HATYPE.start)
    }

    /// The packet type (direction).
    pub fn packet_type(&self) -> u16 {
        u8_at(self.buffer.as_ref(), field2::PKTTYPE) as u16
    }

    /// The link-layer address length field.
    pub fn addr_len(&self) -> u8 {
        u8_at(self.buffer.as_ref(), field2::HALEN)
    }

    /// The link-layer source address (at most 8 bytes).
    pub fn addr(&self) -> &[u8] {
        let n = (self.addr_len() as usize).min(8);
        slice(
            self.buffer.as_ref(),
            field2::ADDR.start..field2::ADDR.start + n,
        )
    }

    /// Everything after the header.
    pub fn payload(&self) -> &[u8] {
        crate::bytes::rest(self.buffer.as_ref(), field2::PAYLOAD)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sll_v1() {
        let b = [
            0x00, 0x04, 0x00, 0x01, 0x00, 0x06, // outgoing, ether, 6-byte address
            0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x00, 0x00, // address
            0x08, 0x00, 0x45,
        ];
        let h = SllHeader::new_checked(&b[..]).unwrap();
        assert_eq!(h.packet_type(), packet_type::OUTGOING);
        assert_eq!(h.hardware_type(), hardware::ETHER);
        assert_eq!(h.addr(), &[0x00, 0x11, 0x22, 0x33, 0x44, 0x55]);
        assert_eq!(h.protocol(), EtherType::IPV4);
        assert_eq!(h.payload(), &[0x45]);
        assert_eq!(
            SllHeader::new_checked(&b[..15]).unwrap_err(),
            Error::Truncated
        );
        assert_eq!(packet_type::name(h.packet_type()), Some("Out"));
    }

    #[test]
    fn sll_v2() {
        let b = [
            0x86, 0xdd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, // IPv6, ifindex 2
            0x03, 0x04, 0x00, 0x0c, // loopback, host, address length 12 (clamped)
            1, 2, 3, 4, 5, 6, 7, 8, 0x60,
        ];
        let h = Sll2Header::new_checked(&b[..]).unwrap();
        assert_eq!(h.protocol(), EtherType::IPV6);
        assert_eq!(h.if_index(), 2);
        assert_eq!(h.hardware_type(), hardware::LOOPBACK);
        assert_eq!(h.packet_type(), packet_type::HOST);
        assert_eq!(h.addr(), &[1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(h.payload(), &[0x60]);
        assert_eq!(
            Sll2Header::new_checked(&b[..19]).unwrap_err(),
            Error::Truncated
        );
    }
}
