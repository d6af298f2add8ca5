//! Ethernet II frames, IEEE 802.3 length frames, and the 802.2 LLC / SNAP header.
//!
//! The two bytes after the MAC addresses are an EtherType when they are above 1500
//! (0x05DC) and a payload length otherwise: then an 802.2 LLC header follows, possibly
//! extended by a SNAP header carrying an OUI and an EtherType. [`EthernetFrame`] reads
//! both; [`EthernetFrame::kind`] says which one a frame is, and [`LlcPdu`] reads the
//! LLC (and SNAP) header of an 802.3 frame.
//!
//! VLAN tags sit between the addresses and the final EtherType; see [`crate::vlan`].

use crate::bytes::{array, rest, rest_mut, set_bytes, set_u16, u16_at, u24_at, u8_at, Field};
use crate::error::{Error, Result};
use std::fmt;

/// A 48-bit IEEE MAC address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct EthernetAddress(pub [u8; 6]);

impl EthernetAddress {
    /// `ff:ff:ff:ff:ff:ff`.
    pub const BROADCAST: EthernetAddress = EthernetAddress([0xff; 6]);

    /// Builds an address from the first six bytes of `b` (zeros when shorter).
    pub fn from_bytes(b: &[u8]) -> EthernetAddress {
        EthernetAddress(array::<6>(b, 0))
    }

    /// Whether the group (multicast) bit is set; broadcast is multicast.
    pub fn is_multicast(&self) -> bool {
        self.0[0] & 1 != 0
    }

    /// Whether this is the broadcast address.
    pub fn is_broadcast(&self) -> bool {
        *self == Self::BROADCAST
    }
}

impl fmt::Display for EthernetAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.0;
        write!(
            f,
            "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
            b[0], b[1], b[2], b[3], b[4], b[5]
        )
    }
}

/// An EtherType value (also used by SLL, GRE, Geneve and SNAP).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EtherType(pub u16);

impl EtherType {
    /// Internet Protocol version 4.
    pub const IPV4: EtherType = EtherType(0x0800);
    /// Address Resolution Protocol.
    pub const ARP: EtherType = EtherType(0x0806);
    /// Transparent Ethernet Bridging: a whole Ethernet frame, as GRE (NVGRE) and Geneve carry it.
    pub const TEB: EtherType = EtherType(0x6558);
    /// Reverse ARP (RFC 903).
    pub const RARP: EtherType = EtherType(0x8035);
    /// AppleTalk DDP over Ethernet (EtherTalk).
    pub const APPLETALK: EtherType = EtherType(0x809b);
    /// AppleTalk Address Resolution Protocol.
    pub const AARP: EtherType = EtherType(0x80f3);
    /// IEEE 802.1Q customer VLAN tag.
    pub const VLAN: EtherType = EtherType(0x8100);
    /// Novell IPX.
    pub const IPX: EtherType = EtherType(0x8137);
    /// Internet Protocol version 6.
    pub const IPV6: EtherType = EtherType(0x86dd);
    /// PPP frames directly over Ethernet (and in PPTP's enhanced GRE).
    pub const PPP: EtherType = EtherType(0x880b);
    /// IEEE 802.3 Slow Protocols: LACP, Marker and Ethernet OAM.
    pub const SLOW: EtherType = EtherType(0x8809);
    /// An MPLS label stack, unicast.
    pub const MPLS_UNICAST: EtherType = EtherType(0x8847);
    /// An MPLS label stack, multicast.
    pub const MPLS_MULTICAST: EtherType = EtherType(0x8848);
    /// PPPoE discovery stage (PADI, PADO, PADR, PADS, PADT).
    pub const PPPOE_DISCOVERY: EtherType = EtherType(0x8863);
    /// PPPoE session stage: PPP frames of an established session.
    pub const PPPOE_SESSION: EtherType = EtherType(0x8864);
    /// IEEE 802.1X EAP over LAN.
    pub const EAPOL: EtherType = EtherType(0x888e);
    /// IEEE 802.1ad service VLAN tag (QinQ outer tag).
    pub const QINQ: EtherType = EtherType(0x88a8);
    /// Link Layer Discovery Protocol (IEEE 802.1AB).
    pub const LLDP: EtherType = EtherType(0x88cc);
    /// IEEE 802.1AE MAC security: a SecTAG follows.
    pub const MACSEC: EtherType = EtherType(0x88e5);
    /// Precision Time Protocol (IEEE 1588) directly over Ethernet.
    pub const PTP: EtherType = EtherType(0x88f7);
    /// Connectivity Fault Management (IEEE 802.1ag, ITU-T Y.1731).
    pub const CFM: EtherType = EtherType(0x8902);
    /// Network Service Header (RFC 8300).
    pub const NSH: EtherType = EtherType(0x894f);
    /// The Ethernet configuration testing protocol (loopback).
    pub const LOOPBACK: EtherType = EtherType(0x9000);
    /// Legacy QinQ tag used by some switches.
    pub const VLAN_9100: EtherType = EtherType(0x9100);
    /// Legacy QinQ tag used by some switches.
    pub const VLAN_9200: EtherType = EtherType(0x9200);

    /// Whether this value announces a VLAN tag (0x8100, 0x88a8, 0x9100 or 0x9200).
    pub fn is_vlan(self) -> bool {
        matches!(self.0, 0x8100 | 0x88a8 | 0x9100 | 0x9200)
    }

    /// The name tcpdump prints for this EtherType (`IPv4`, `802.1Q`, ...), if any.
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0x0800 => "IPv4",
            0x8847 => "MPLS unicast",
            0x8848 => "MPLS multicast",
            0x86dd => "IPv6",
            0x8100 => "802.1Q",
            0x9100 => "802.1Q-9100",
            0x88a8 => "802.1Q-QinQ",
            0x9200 => "802.1Q-9200",
            0x8892 => "Profinet",
            0x0200 => "PUP",
            0x0806 => "ARP",
            0x8035 => "Reverse ARP",
            0x0600 => "NS",
            0x0500 => "Sprite",
            0x1000 => "Trail",
            0x6001 => "MOP DL",
            0x6002 => "MOP RC",
            0x6003 => "DN",
            0x6004 => "LAT",
            0x6007 => "SCA",
            0x6558 => "TEB",
            0x8038 => "Lanbridge",
            0x803c => "DEC DNS",
            0x803e => "DEC DTS",
            0x805b => "VEXP",
            0x805c => "VPROD",
            0x809b => "Appletalk",
            0x80f3 => "Appletalk ARP",
            0x8137 => "IPX",
            0x880b => "PPP",
            0x8808 => "MPCP",
            0x8809 => "Slow Protocols",
            0x8863 => "PPPoE D",
            0x8864 => "PPPoE S",
            0x3c12 => "PPPoE D (3Com)",
            0x3c13 => "PPPoE S (3Com)",
            0x888e => "EAPOL",
            0x88e5 => "802.1AE MACsec",
            0x8875 => "RRCP",
            0x886f => "MS NLB heartbeat",
            0x8870 => "Jumbo",
            0x894f => "NSH",
            0x9000 => "Loopback",
            0xfefe => "OSI",
            0x00fe => "GRE-OSI",
            0xabcd => "CFM (old)",
            0x8902 => "CFM",
            0x893a => "IEEE1905.1",
            0x88cc => "LLDP",
            0x88ca => "TIPC",
            0x0707 => "GeoNet (old)",
            0x8947 => "GeoNet",
            0x1111 => "CALM FAST",
            0x88a2 => "AoE",
            0x88f7 => "PTP",
            0x9c40 => "ARISTA",
            0xd28b => "Arista Vendor Specific Protocol",
            _ => return None,
        })
    }
}

impl fmt::Display for EtherType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:04x}", self.0)
    }
}

/// Largest value of the type/length field that is a length (802.3).
pub const MAX_8023_LENGTH: u16 = 1500;

/// What the type/length field of a frame announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// Ethernet II: the field is an EtherType.
    EthernetII(EtherType),
    /// IEEE 802.3: the field is the payload length and an LLC header follows.
    Ieee8023 {
        /// The length field.
        length: u16,
    },
}

mod field {
    use super::Field;
    pub(crate) const DESTINATION: Field = 0..6;
    pub(crate) const SOURCE: Field = 6..12;
    pub(crate) const ETHERTYPE: Field = 12..14;
    pub(crate) const PAYLOAD: usize = 14;
}

/// A read view of an Ethernet II or 802.3 frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EthernetFrame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> EthernetFrame<T> {
    /// Length of the Ethernet header (two addresses and the type/length field).
    pub const HEADER_LEN: usize = field::PAYLOAD;

    /// Wraps a buffer without checking it; accessors on a short buffer return zeros.
    pub fn new_unchecked(buffer: T) -> Self {
        EthernetFrame { buffer }
    }

    /// Wraps a buffer after checking it holds the 14-byte header.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let f = Self::new_unchecked(buffer);
        f.check_len()?;
        Ok(f)
    }

    /// Checks the buffer holds the whole header.
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < Self::HEADER_LEN {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }

    /// Returns the underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The destination MAC address.
    pub fn dst_addr(&self) -> EthernetAddress {
        EthernetAddress(array::<6>(self.buffer.as_ref(), field::DESTINATION.start))
    }

    /// The source MAC address.
    pub fn src_addr(&self) -> EthernetAddress {
        EthernetAddress(array::<6>(self.buffer.as_ref(), field::SOURCE.start))
    }

    /// The raw type/length field.
    pub fn type_or_length(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::ETHERTYPE.start)
    }

    /// The EtherType, or `None` for an 802.3 length frame.
    pub fn ethertype(&self) -> Option<EtherType> {
        match self.kind() {
            FrameKind::EthernetII(t) => Some(t),
            FrameKind::Ieee8023 { .. } => None,
        }
    }

    /// Whether the frame is Ethernet II or 802.3.
    pub fn kind(&self) -> FrameKind {
        let v = self.type_or_length();
        if v <= MAX_8023_LENGTH {
            FrameKind::Ieee8023 { length: v }
        } else {
            FrameKind::EthernetII(EtherType(v))
        }
    }

    /// Everything after the 14-byte header (VLAN tags included).
    pub fn payload(&self) -> &[u8] {
        rest(self.buffer.as_ref(), field::PAYLOAD)
    }
}

/// Well-known LLC service access points.
pub mod sap {
    /// SNAP extension (0xAA).
    pub const SNAP: u8 = 0xaa;
    /// Spanning tree (0x42).
    pub const STP: u8 = 0x42;
    /// ISO network layer (0xFE).
    pub const ISO_NET: u8 = 0xfe;
    /// NetWare (0xE0).
    pub const IPX: u8 = 0xe0;
    /// NetBIOS (0xF0).
    pub const NETBIOS: u8 = 0xf0;
    /// Global DSAP (0xFF).
    pub const GLOBAL: u8 = 0xff;
    /// Novell raw 802.3 ("0xFFFF" where the LLC header should be).
    pub const RAW_IPX: u8 = 0xff;
}

mod llc_field {
    pub(crate) const DSAP: usize = 0;
    pub(crate) const SSAP: usize = 1;
    pub(crate) const CONTROL: usize = 2;
}

/// A read view of an 802.2 LLC header, with its SNAP extension when present.
///
/// The control field is one byte for unnumbered (U) frames, whose two low bits are
/// both set, and two bytes for information and supervisory frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LlcPdu<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> LlcPdu<T> {
    /// Length of a SNAP header following a 3-byte LLC header.
    pub const SNAP_LEN: usize = 5;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        LlcPdu { buffer }
    }

    /// Wraps a buffer after checking it holds the LLC header, and the SNAP header
    /// when the SAPs announce one.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Checks the buffer holds the whole header.
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        if len < 3 || len < self.header_len() {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }

    /// The destination service access point (with the I/G bit).
    pub fn dsap(&self) -> u8 {
        u8_at(self.buffer.as_ref(), llc_field::DSAP)
    }

    /// The source service access point (with the C/R bit).
    pub fn ssap(&self) -> u8 {
        u8_at(self.buffer.as_ref(), llc_field::SSAP)
    }

    /// The control field: one byte for U frames, two (first byte high) otherwise.
    pub fn control(&self) -> u16 {
        let b = self.buffer.as_ref();
        let c = u8_at(b, llc_field::CONTROL);
        if c & 3 == 3 {
            c as u16
        } else {
            u16::from_be_bytes([c, u8_at(b, llc_field::CONTROL + 1)])
        }
    }

    /// Length of the control field: 1 or 2.
    pub fn control_len(&self) -> usize {
        if u8_at(self.buffer.as_ref(), llc_field::CONTROL) & 3 == 3 {
            1
        } else {
            2
        }
    }

    /// Whether this is an unnumbered-information frame to and from the SNAP SAP.
    pub fn is_snap(&self) -> bool {
        self.dsap() == sap::SNAP && self.ssap() == sap::SNAP && self.control_len() == 1
    }

    /// The LLC header length, plus 5 bytes of SNAP when present.
    pub fn header_len(&self) -> usize {
        2 + self.control_len() + if self.is_snap() { Self::SNAP_LEN } else { 0 }
    }

    /// The SNAP organisation code, when this is SNAP.
    pub fn snap_oui(&self) -> Option<u32> {
        self.is_snap().then(|| u24_at(self.buffer.as_ref(), 3))
    }

    /// The SNAP protocol identifier (an EtherType when the OUI is 0), when SNAP.
    pub fn snap_protocol(&self) -> Option<u16> {
        self.is_snap().then(|| u16_at(self.buffer.as_ref(), 6))
    }

    /// Everything after the LLC (and SNAP) header.
    pub fn payload(&self) -> &[u8] {
        rest(self.buffer.as_ref(), self.header_len())
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> EthernetFrame<T> {
    /// Sets the destination MAC address.
    pub fn set_dst_addr(&mut self, a: EthernetAddress) {
        set_bytes(self.buffer.as_mut(), field::DESTINATION.start, &a.0);
    }

    /// Sets the source MAC address.
    pub fn set_src_addr(&mut self, a: EthernetAddress) {
        set_bytes(self.buffer.as_mut(), field::SOURCE.start, &a.0);
    }

    /// Sets the type/length field to an EtherType.
    pub fn set_ethertype(&mut self, t: EtherType) {
        self.set_type_or_length(t.0);
    }

    /// Sets the raw type/length field (an 802.3 length when at most 1500).
    pub fn set_type_or_length(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::ETHERTYPE.start, v);
    }

    /// Everything after the 14-byte header, to write into.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        rest_mut(self.buffer.as_mut(), field::PAYLOAD)
    }
}

/// The fields of an Ethernet II header, to [`emit`](EthernetRepr::emit) into a
/// frame (smoltcp's `EthernetRepr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EthernetRepr {
    /// The source MAC address.
    pub src_addr: EthernetAddress,
    /// The destination MAC address.
    pub dst_addr: EthernetAddress,
    /// The EtherType of the payload (the first VLAN tag's TPID when tagged).
    pub ethertype: EtherType,
}

impl EthernetRepr {
    /// The fields of an Ethernet II frame; `None` for an 802.3 length frame.
    pub fn parse<T: AsRef<[u8]>>(frame: &EthernetFrame<T>) -> Option<EthernetRepr> {
        Some(EthernetRepr {
            src_addr: frame.src_addr(),
            dst_addr: frame.dst_addr(),
            ethertype: frame.ethertype()?,
        })
    }

    /// The length of the header this emits.
    pub const fn buffer_len(&self) -> usize {
        field::PAYLOAD
    }

    /// Writes the header into `frame`.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, frame: &mut EthernetFrame<T>) {
        frame.set_dst_addr(self.dst_addr);
        frame.set_src_addr(self.src_addr);
        frame.set_ethertype(self.ethertype);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAME: [u8; 18] = [
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // dst
        0x00, 0x11, 0x22, 0x33, 0x44, 0x55, // src
        0x08, 0x06, // ARP
        1, 2, 3, 4,
    ];

    #[test]
    fn ethernet_ii() {
        let f = EthernetFrame::new_checked(&FRAME[..]).unwrap();
        assert!(f.dst_addr().is_broadcast());
        assert_eq!(f.src_addr().to_string(), "00:11:22:33:44:55");
        assert_eq!(f.kind(), FrameKind::EthernetII(EtherType::ARP));
        assert_eq!(f.ethertype(), Some(EtherType::ARP));
        assert_eq!(f.payload(), &[1, 2, 3, 4]);
        assert_eq!(EtherType::ARP.name(), Some("ARP"));
    }

    #[test]
    fn rejects_short() {
        assert_eq!(
            EthernetFrame::new_checked(&FRAME[..13]).unwrap_err(),
            Error::Truncated
        );
        assert!(EthernetFrame::new_checked(&FRAME[..14]).is_ok());
        // Unchecked views over short buffers never panic.
        let f = EthernetFrame::new_unchecked(&FRAME[..3]);
        assert_eq!(f.type_or_length(), 0);
        assert_eq!(f.payload(), &[] as &[u8]);
    }

    #[test]
    fn ieee8023_llc_snap() {
        let mut f = FRAME.to_vec();
        f[12] = 0x00;
        f[13] = 0x26;
        f.truncate(14);
        // STP: DSAP 0x42, SSAP 0x42, UI
        f.extend_from_slice(&[0x42, 0x42, 0x03, 0, 0]);
        let e = EthernetFrame::new_checked(&f[..]).unwrap();
        assert_eq!(e.kind(), FrameKind::Ieee8023 { length: 0x26 });
        assert_eq!(e.ethertype(), None);
        let llc = LlcPdu::new_checked(e.payload()).unwrap();
        assert_eq!((llc.dsap(), llc.ssap(), llc.control()), (0x42, 0x42, 3));
        assert!(!llc.is_snap());
        assert_eq!(llc.header_len(), 3);
        assert_eq!(llc.payload(), &[0, 0]);

        let snap = [0xaa, 0xaa, 0x03, 0x00, 0x00, 0x0c, 0x20, 0x00, 9];
        let llc = LlcPdu::new_checked(&snap[..]).unwrap();
        assert!(llc.is_snap());
        assert_eq!(llc.snap_oui(), Some(0x00000c));
        assert_eq!(llc.snap_protocol(), Some(0x2000));
        assert_eq!(llc.payload(), &[9]);
        assert_eq!(
            LlcPdu::new_checked(&snap[..7]).unwrap_err(),
            Error::Truncated
        );
        assert_eq!(
            LlcPdu::new_checked(&snap[..2]).unwrap_err(),
            Error::Truncated
        );

        // I-frame: two-byte control.
        let i = [0xf0, 0xf0, 0x00, 0x02, 7];
        let llc = LlcPdu::new_checked(&i[..]).unwrap();
        assert_eq!(llc.control(), 0x0002);
        assert_eq!(llc.payload(), &[7]);
    }
}

#[cfg(test)]
mod emit_tests {
    use super::*;

    #[test]
    fn emit_writes_what_the_view_reads() {
        let repr = EthernetRepr {
            src_addr: EthernetAddress([2, 0, 0, 0, 0, 0x0b]),
            dst_addr: EthernetAddress::BROADCAST,
            ethertype: EtherType::ARP,
        };
        let mut buf = vec![0u8; repr.buffer_len() + 2];
        let mut f = EthernetFrame::new_unchecked(&mut buf[..]);
        repr.emit(&mut f);
        f.payload_mut().copy_from_slice(&[0xaa, 0xbb]);
        assert_eq!(
            buf,
            [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 0x0b, 0x08, 0x06, 0xaa, 0xbb]
        );
        let f = EthernetFrame::new_checked(&buf[..]).unwrap();
        assert_eq!(EthernetRepr::parse(&f), Some(repr));
        assert_eq!(f.payload(), &[0xaa, 0xbb]);
        // A setter past the end of a short buffer writes nothing and does not panic.
        let mut short = [0u8; 4];
        EthernetFrame::new_unchecked(&mut short[..]).set_ethertype(EtherType::IPV4);
        assert_eq!(short, [0; 4]);
    }
}
