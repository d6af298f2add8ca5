//! BSD loopback encapsulation: LINKTYPE_NULL and LINKTYPE_LOOP.
//!
//! Both put a 4-byte address family before the network-layer packet. For NULL it is
//! in the byte order of the machine that captured, which a reader cannot know; like
//! tcpdump and libpcap, [`LoopbackHeader::family_null`] reads it little-endian and
//! falls back to big-endian when that gives a value above 0xFFFF, so captures from
//! either kind of machine decode. For LOOP (OpenBSD) it is always big-endian:
//! [`LoopbackHeader::family_loop`].
//!
//! The AF_INET6 value differs between systems: 24 (NetBSD, OpenBSD, BSD/OS),
//! 28 (FreeBSD, DragonFly) and 30 (macOS); all three mean IPv6.

use crate::bytes::{array, rest};
use crate::error::{Error, Result};
use crate::linktype::LinkType;

/// BSD address family numbers found in the header.
pub mod family {
    /// AF_INET: IPv4, on every BSD.
    pub const INET: u32 = 2;
    /// AF_ISO: OSI protocols.
    pub const ISO: u32 = 7;
    /// AF_APPLETALK: AppleTalk.
    pub const APPLETALK: u32 = 16;
    /// AF_IPX: Novell IPX.
    pub const IPX: u32 = 23;
    /// AF_INET6 on NetBSD, OpenBSD and BSD/OS.
    pub const INET6_BSD: u32 = 24;
    /// AF_INET6 on FreeBSD and DragonFly BSD.
    pub const INET6_FREEBSD: u32 = 28;
    /// AF_INET6 on macOS (Darwin).
    pub const INET6_DARWIN: u32 = 30;

    /// Whether `af` is one of the AF_INET6 values.
    pub fn is_inet6(af: u32) -> bool {
        matches!(af, INET6_BSD | INET6_FREEBSD | INET6_DARWIN)
    }

    /// The name tcpdump prints for a family.
    pub fn name(af: u32) -> Option<&'static str> {
        Some(match af {
            INET => "IPv4",
            ISO => "OSI",
            APPLETALK => "Appletalk",
            IPX => "IPX",
            INET6_BSD | INET6_FREEBSD | INET6_DARWIN => "IPv6",
            _ => return None,
        })
    }
}

/// A read view of the 4-byte loopback header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopbackHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> LoopbackHeader<T> {
    /// Length of the header.
    pub const HEADER_LEN: usize = 4;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        LoopbackHeader { buffer }
    }

    /// Wraps a buffer after checking it holds the 4-byte header.
    pub fn new_checked(buffer: T) -> Result<Self> {
        if buffer.as_ref().len() < Self::HEADER_LEN {
            return Err(Error::Truncated);
        }
        Ok(Self::new_unchecked(buffer))
    }

    /// The raw header bytes.
    pub fn raw(&self) -> [u8; 4] {
        array::<4>(self.buffer.as_ref(), 0)
    }

    /// The address family of a LINKTYPE_NULL header, in either byte order.
    pub fn family_null(&self) -> u32 {
        let le = u32::from_le_bytes(self.raw());
        if le & 0xffff_0000 == 0 {
            le
        } else {
            le.swap_bytes()
        }
    }

    /// The address family of a LINKTYPE_LOOP header (network byte order).
    pub fn family_loop(&self) -> u32 {
        u32::from_be_bytes(self.raw())
    }

    /// The address family for `linktype` (LOOP reads big-endian, anything else
    /// like NULL).
    pub fn family(&self, linktype: LinkType) -> u32 {
        if linktype == LinkType::LOOP {
            self.family_loop()
        } else {
            self.family_null()
        }
    }

    /// The network-layer packet.
    pub fn payload(&self) -> &[u8] {
        rest(self.buffer.as_ref(), Self::HEADER_LEN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_orders() {
        let le = [2u8, 0, 0, 0, 0x45];
        let be = [0u8, 0, 0, 2, 0x45];
        let h = LoopbackHeader::new_checked(&le[..]).unwrap();
        assert_eq!(h.family_null(), family::INET);
        assert_eq!(h.payload(), &[0x45]);
        let h = LoopbackHeader::new_checked(&be[..]).unwrap();
        assert_eq!(h.family_null(), family::INET);
        assert_eq!(h.family_loop(), family::INET);
        assert_eq!(h.family(LinkType::LOOP), family::INET);
        let mac = [30u8, 0, 0, 0];
        let h = LoopbackHeader::new_checked(&mac[..]).unwrap();
        assert!(family::is_inet6(h.family_null()));
        assert_eq!(h.family_loop(), 30 << 24);
        assert_eq!(
            LoopbackHeader::new_checked(&le[..3]).unwrap_err(),
            Error::Truncated
        );
    }
}
