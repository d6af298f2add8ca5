//! ARP and RARP packets (RFC 826, RFC 903), for any hardware and protocol sizes.
//!
//! The fixed 8-byte part gives the hardware type, protocol type, both address
//! lengths and the operation; four variable-length addresses follow (sender
//! hardware, sender protocol, target hardware, target protocol). `new_checked`
//! validates that all four are present.

use crate::bytes::{set_bytes, set_u16, set_u8, slice, u16_at, u8_at, Field};
use crate::error::{Error, Result};
use crate::ethernet::EtherType;
use std::net::Ipv4Addr;

/// ARP hardware types.
pub mod hardware {
    /// Ethernet (10 Mb/s and faster).
    pub const ETHERNET: u16 = 1;
    /// The 3 Mb/s Experimental Ethernet.
    pub const EXPERIMENTAL_ETHERNET: u16 = 2;
    /// Amateur radio AX.25.
    pub const AX25: u16 = 3;
    /// Proteon ProNET Token Ring.
    pub const PRONET: u16 = 4;
    /// Chaosnet.
    pub const CHAOS: u16 = 5;
    /// IEEE 802 networks (Token Ring and other 802.2 LANs).
    pub const IEEE802: u16 = 6;
    /// ARCNET (RFC 1201).
    pub const ARCNET: u16 = 7;
    /// Frame Relay (RFC 2390).
    pub const FRAME_RELAY: u16 = 15;
    /// ATM, for ATMARP (RFC 2225).
    pub const ATM: u16 = 19;
    /// Metricom STRIP (the Ricochet radio network).
    pub const STRIP: u16 = 23;
    /// IEEE 1394 (FireWire, RFC 2734).
    pub const IEEE1394: u16 = 24;
    /// InfiniBand (RFC 4391).
    pub const INFINIBAND: u16 = 32;

    /// The name tcpdump prints for a hardware type.
    pub fn name(h: u16) -> Option<&'static str> {
        Some(match h {
            1 => "Ethernet",
            2 => "Experimental Ethernet",
            3 => "AX.25 Level 2",
            4 => "Proteon ProNET Token Ring",
            5 => "Chaosnet",
            6 => "IEEE 802 Networks",
            7 => "ARCNET",
            15 => "Frame Relay",
            19 => "ATM (RFC 2225)",
            23 => "STRIP (Ricochet)",
            24 => "IEEE 1394",
            32 => "InfiniBand",
            _ => return None,
        })
    }
}

/// ARP operation codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ArpOperation(pub u16);

impl ArpOperation {
    /// ARP request (RFC 826): who has the target protocol address?
    pub const REQUEST: ArpOperation = ArpOperation(1);
    /// ARP reply: the sender's hardware address for the protocol address asked about.
    pub const REPLY: ArpOperation = ArpOperation(2);
    /// RARP request (RFC 903): which protocol address belongs to the target hardware address?
    pub const REVERSE_REQUEST: ArpOperation = ArpOperation(3);
    /// RARP reply: the protocol address of the hardware address asked about.
    pub const REVERSE_REPLY: ArpOperation = ArpOperation(4);
    /// Inverse ARP request (RFC 2390): the protocol address at the other end of a virtual circuit.
    pub const INVERSE_REQUEST: ArpOperation = ArpOperation(8);
    /// Inverse ARP reply: the protocol address of the peer that was asked.
    pub const INVERSE_REPLY: ArpOperation = ArpOperation(9);
    /// ATMARP negative acknowledgment (RFC 2225): the server does not know the address.
    pub const NAK: ArpOperation = ArpOperation(10);

    /// The name tcpdump prints for this operation.
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            1 => "Request",
            2 => "Reply",
            3 => "Reverse Request",
            4 => "Reverse Reply",
            8 => "Inverse Request",
            9 => "Inverse Reply",
            10 => "NACK Reply",
            _ => return None,
        })
    }
}

mod field {
    use super::Field;
    pub(crate) const HTYPE: Field = 0..2;
    pub(crate) const PTYPE: Field = 2..4;
    pub(crate) const HLEN: usize = 4;
    pub(crate) const PLEN: usize = 5;
    pub(crate) const OPER: Field = 6..8;
    pub(crate) const ADDRESSES: usize = 8;
}

/// A read view of an ARP or RARP packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> ArpPacket<T> {
    /// Length of the fixed part.
    pub const FIXED_LEN: usize = field::ADDRESSES;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        ArpPacket { buffer }
    }

    /// Wraps a buffer after checking it holds the fixed part and all four addresses.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Checks the buffer holds the whole packet.
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        if len < Self::FIXED_LEN || len < self.packet_len() {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }

    /// Length of the fixed part and the four addresses.
    pub fn packet_len(&self) -> usize {
        Self::FIXED_LEN + 2 * (self.hardware_len() as usize + self.protocol_len() as usize)
    }

    /// The hardware type (1 for Ethernet).
    pub fn hardware_type(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::HTYPE.start)
    }

    /// The protocol type (an EtherType; 0x0800 for IPv4).
    pub fn protocol_type(&self) -> EtherType {
        EtherType(u16_at(self.buffer.as_ref(), field::PTYPE.start))
    }

    /// Length of a hardware address.
    pub fn hardware_len(&self) -> u8 {
        u8_at(self.buffer.as_ref(), field::HLEN)
    }

    /// Length of a protocol address.
    pub fn protocol_len(&self) -> u8 {
        u8_at(self.buffer.as_ref(), field::PLEN)
    }

    /// The operation.
    pub fn operation(&self) -> ArpOperation {
        ArpOperation(u16_at(self.buffer.as_ref(), field::OPER.start))
    }

    /// Where address `index` lies: sender hardware, sender protocol, target
    /// hardware, target protocol.
    fn addr_field(&self, index: usize) -> Field {
        let h = self.hardware_len() as usize;
        let p = self.protocol_len() as usize;
        let (start, len) = match index {
            0 => (0, h),
            1 => (h, p),
            2 => (h + p, h),
            _ => (2 * h + p, p),
        };
        let start = field::ADDRESSES + start;
        start..start + len
    }

    fn addr(&self, index: usize) -> &[u8] {
        slice(self.buffer.as_ref(), self.addr_field(index))
    }

    /// The sender hardware address.
    pub fn source_hardware_addr(&self) -> &[u8] {
        self.addr(0)
    }

    /// The sender protocol address.
    pub fn source_protocol_addr(&self) -> &[u8] {
        self.addr(1)
    }

    /// The target hardware address.
    pub fn target_hardware_addr(&self) -> &[u8] {
        self.addr(2)
    }

    /// The target protocol address.
    pub fn target_protocol_addr(&self) -> &[u8] {
        self.addr(3)
    }

    /// Whether the protocol addresses are IPv4 (type 0x0800 or the old trailer
    /// type 0x1000, 4-byte addresses).
    pub fn is_ipv4(&self) -> bool {
        matches!(self.protocol_type().0, 0x0800 | 0x1000) && self.protocol_len() == 4
    }

    /// The sender IPv4 address, when [`Self::is_ipv4`].
    pub fn source_ipv4(&self) -> Option<Ipv4Addr> {
        self.ipv4(1)
    }

    /// The target IPv4 address, when [`Self::is_ipv4`].
    pub fn target_ipv4(&self) -> Option<Ipv4Addr> {
        self.ipv4(3)
    }

    fn ipv4(&self, index: usize) -> Option<Ipv4Addr> {
        if !self.is_ipv4() {
            return None;
        }
        let a: [u8; 4] = self.addr(index).try_into().ok()?;
        Some(Ipv4Addr::from(a))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> ArpPacket<T> {
    /// Sets the hardware type ([`hardware`] constants).
    pub fn set_hardware_type(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::HTYPE.start, v);
    }

    /// Sets the protocol type.
    pub fn set_protocol_type(&mut self, v: EtherType) {
        set_u16(self.buffer.as_mut(), field::PTYPE.start, v.0);
    }

    /// Sets the hardware address length (set it before the addresses).
    pub fn set_hardware_len(&mut self, v: u8) {
        set_u8(self.buffer.as_mut(), field::HLEN, v);
    }

    /// Sets the protocol address length (set it before the addresses).
    pub fn set_protocol_len(&mut self, v: u8) {
        set_u8(self.buffer.as_mut(), field::PLEN, v);
    }

    /// Sets the operation.
    pub fn set_operation(&mut self, v: ArpOperation) {
        set_u16(self.buffer.as_mut(), field::OPER.start, v.0);
    }

    fn set_addr(&mut self, index: usize, v: &[u8]) {
        let at = self.addr_field(index);
        if v.len() == at.len() {
            set_bytes(self.buffer.as_mut(), at.start, v);
        }
    }

    /// Sets the sender hardware address (as long as the hardware length says).
    pub fn set_source_hardware_addr(&mut self, v: &[u8]) {
        self.set_addr(0, v);
    }

    /// Sets the sender protocol address (as long as the protocol length says).
    pub fn set_source_protocol_addr(&mut self, v: &[u8]) {
        self.set_addr(1, v);
    }

    /// Sets the target hardware address.
    pub fn set_target_hardware_addr(&mut self, v: &[u8]) {
        self.set_addr(2, v);
    }

    /// Sets the target protocol address.
    pub fn set_target_protocol_addr(&mut self, v: &[u8]) {
        self.set_addr(3, v);
    }
}

/// An ARP packet for IPv4 over Ethernet, to [`emit`](ArpRepr::emit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArpRepr {
    /// The operation (request, reply, ...).
    pub operation: ArpOperation,
    /// The sender's MAC address.
    pub source_hardware_addr: crate::ethernet::EthernetAddress,
    /// The sender's IPv4 address.
    pub source_protocol_addr: Ipv4Addr,
    /// The target's MAC address.
    pub target_hardware_addr: crate::ethernet::EthernetAddress,
    /// The target's IPv4 address.
    pub target_protocol_addr: Ipv4Addr,
}

impl ArpRepr {
    /// The fields of an Ethernet/IPv4 ARP packet; `None` for any other kind.
    pub fn parse<T: AsRef<[u8]>>(p: &ArpPacket<T>) -> Option<ArpRepr> {
        if p.hardware_type() != hardware::ETHERNET || p.hardware_len() != 6 {
            return None;
        }
        Some(ArpRepr {
            operation: p.operation(),
            source_hardware_addr: crate::ethernet::EthernetAddress::from_bytes(
                p.source_hardware_addr(),
            ),
            source_protocol_addr: p.source_ipv4()?,
            target_hardware_addr: crate::ethernet::EthernetAddress::from_bytes(
                p.target_hardware_addr(),
            ),
            target_protocol_addr: p.target_ipv4()?,
        })
    }

    /// The length of the packet this emits (28 bytes).
    pub const fn buffer_len(&self) -> usize {
        field::ADDRESSES + 2 * (6 + 4)
    }

    /// Writes the packet into `p`.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut ArpPacket<T>) {
        p.set_hardware_type(hardware::ETHERNET);
        p.set_protocol_type(EtherType::IPV4);
        p.set_hardware_len(6);
        p.set_protocol_len(4);
        p.set_operation(self.operation);
        p.set_source_hardware_addr(&self.source_hardware_addr.0);
        p.set_source_protocol_addr(&self.source_protocol_addr.octets());
        p.set_target_hardware_addr(&self.target_hardware_addr.0);
        p.set_target_protocol_addr(&self.target_protocol_addr.octets());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REQ: [u8; 28] = [
        0x00, 0x01, 0x08, 0x00, 6, 4, 0x00, 0x01, // ether/ip request
        0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 10, 0, 0, 1, // sender
        0, 0, 0, 0, 0, 0, 10, 0, 0, 2, // target
    ];

    #[test]
    fn request() {
        let p = ArpPacket::new_checked(&REQ[..]).unwrap();
        assert_eq!(p.hardware_type(), hardware::ETHERNET);
        assert_eq!(p.protocol_type(), EtherType::IPV4);
        assert_eq!(p.operation(), ArpOperation::REQUEST);
        assert_eq!(
            p.source_hardware_addr(),
            &[0x00, 0x11, 0x22, 0x33, 0x44, 0x55]
        );
        assert_eq!(p.source_ipv4(), Some(Ipv4Addr::new(10, 0, 0, 1)));
        assert_eq!(p.target_ipv4(), Some(Ipv4Addr::new(10, 0, 0, 2)));
        assert_eq!(p.target_hardware_addr(), &[0; 6]);
        assert_eq!(p.packet_len(), 28);
    }

    #[test]
    fn rejects_short() {
        assert_eq!(
            ArpPacket::new_checked(&REQ[..27]).unwrap_err(),
            Error::Truncated
        );
        assert_eq!(
            ArpPacket::new_checked(&REQ[..7]).unwrap_err(),
            Error::Truncated
        );
        // Odd sizes: 0-byte hardware addresses, 16-byte protocol addresses.
        let mut odd = vec![0x00, 0x01, 0x86, 0xdd, 0, 16, 0x00, 0x02];
        odd.extend_from_slice(&[7; 32]);
        let p = ArpPacket::new_checked(&odd[..]).unwrap();
        assert!(!p.is_ipv4());
        assert_eq!(p.source_ipv4(), None);
        assert_eq!(p.target_protocol_addr(), &[7; 16]);
        assert_eq!(p.source_hardware_addr(), &[] as &[u8]);
    }
}

#[cfg(test)]
mod emit_tests {
    use super::*;
    use crate::ethernet::EthernetAddress;

    #[test]
    fn emit_writes_what_the_view_reads() {
        let repr = ArpRepr {
            operation: ArpOperation::REQUEST,
            source_hardware_addr: EthernetAddress([2, 0, 0, 0, 0, 1]),
            source_protocol_addr: Ipv4Addr::new(10, 0, 0, 1),
            target_hardware_addr: EthernetAddress([0; 6]),
            target_protocol_addr: Ipv4Addr::new(10, 0, 0, 2),
        };
        let mut buf = vec![0u8; repr.buffer_len()];
        repr.emit(&mut ArpPacket::new_unchecked(&mut buf[..]));
        let want = [
            0, 1, 8, 0, 6, 4, 0, 1, 2, 0, 0, 0, 0, 1, 10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 10, 0, 0, 2,
        ];
        assert_eq!(buf, want);
        let p = ArpPacket::new_checked(&buf[..]).unwrap();
        assert_eq!(ArpRepr::parse(&p), Some(repr));
    }
}
