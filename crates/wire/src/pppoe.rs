//! PPPoE (RFC 2516) discovery and session headers, and the PPP protocol field.
//!
//! Both stages share a 6-byte header: version and type nibbles (both 1), a code, a
//! session id and a payload length. Discovery packets (EtherType 0x8863) carry a list
//! of tags, walked by [`PppoeTags`]; session packets (0x8864, code 0) carry a PPP
//! frame whose protocol field [`ppp_protocol`] reads.

use crate::bytes::{clamp, rest, u16_at, u8_at, Field};
use crate::error::{Error, Result};

/// PPPoE codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PppoeCode(pub u8);

impl PppoeCode {
    /// Session data.
    pub const SESSION: PppoeCode = PppoeCode(0x00);
    /// Active Discovery Offer.
    pub const PADO: PppoeCode = PppoeCode(0x07);
    /// Active Discovery Initiation.
    pub const PADI: PppoeCode = PppoeCode(0x09);
    /// Active Discovery Request.
    pub const PADR: PppoeCode = PppoeCode(0x19);
    /// Active Discovery Session-confirmation.
    pub const PADS: PppoeCode = PppoeCode(0x65);
    /// Active Discovery Terminate.
    pub const PADT: PppoeCode = PppoeCode(0xa7);

    /// The name tcpdump prints for this code.
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0x00 => "PPP-over-Ethernet Session",
            0x07 => "PADO",
            0x09 => "PADI",
            0x19 => "PADR",
            0x65 => "PADS",
            0xa7 => "PADT",
            _ => return None,
        })
    }
}

mod field {
    use super::Field;
    pub(crate) const VER_TYPE: usize = 0;
    pub(crate) const CODE: usize = 1;
    pub(crate) const SESSION_ID: Field = 2..4;
    pub(crate) const LENGTH: Field = 4..6;
    pub(crate) const PAYLOAD: usize = 6;
}

/// A read view of a PPPoE header (discovery or session).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PppoeHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> PppoeHeader<T> {
    /// Length of the PPPoE header.
    pub const HEADER_LEN: usize = field::PAYLOAD;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        PppoeHeader { buffer }
    }

    /// Wraps a buffer after checking it holds the 6-byte header.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let h = Self::new_unchecked(buffer);
        h.check_len()?;
        Ok(h)
    }

    /// Checks the buffer holds the whole header.
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < Self::HEADER_LEN {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }

    /// The version nibble (1).
    pub fn version(&self) -> u8 {
        u8_at(self.buffer.as_ref(), field::VER_TYPE) >> 4
    }

    /// The type nibble (1).
    pub fn pppoe_type(&self) -> u8 {
        u8_at(self.buffer.as_ref(), field::VER_TYPE) & 0x0f
    }

    /// The code.
    pub fn code(&self) -> PppoeCode {
        PppoeCode(u8_at(self.buffer.as_ref(), field::CODE))
    }

    /// The session id.
    pub fn session_id(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::SESSION_ID.start)
    }

    /// The payload length field.
    pub fn payload_len(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::LENGTH.start)
    }

    /// The payload: `payload_len` bytes after the header, clamped to the buffer.
    pub fn payload(&self) -> &[u8] {
        let b = self.buffer.as_ref();
        clamp(
            b,
            field::PAYLOAD,
            field::PAYLOAD + self.payload_len() as usize,
        )
    }

    /// The tags of a discovery packet.
    pub fn tags(&self) -> PppoeTags<'_> {
        PppoeTags::new(self.payload())
    }
}

/// Discovery tag types.
pub mod tag {
    /// End of the tag list: whatever follows is ignored.
    pub const END_OF_LIST: u16 = 0x0000;
    /// The service asked for or offered.
    pub const SERVICE_NAME: u16 = 0x0101;
    /// The access concentrator's name.
    pub const AC_NAME: u16 = 0x0102;
    /// A value of the host, echoed so that it can match replies to requests.
    pub const HOST_UNIQ: u16 = 0x0103;
    /// The access concentrator's cookie, which the host returns.
    pub const AC_COOKIE: u16 = 0x0104;
    /// Vendor-specific data, starting with the vendor id.
    pub const VENDOR_SPECIFIC: u16 = 0x0105;
    /// A relay's session id, to be returned unchanged.
    pub const RELAY_SESSION_ID: u16 = 0x0110;
    /// The largest PPP payload the host can take above 1492 bytes (RFC 4638).
    pub const PPP_MAX_PAYLOAD: u16 = 0x0120;
    /// The service asked for cannot be given.
    pub const SERVICE_NAME_ERROR: u16 = 0x0201;
    /// The access concentrator failed to handle the request.
    pub const AC_SYSTEM_ERROR: u16 = 0x0202;
    /// An error with no more specific tag.
    pub const GENERIC_ERROR: u16 = 0x0203;

    /// The name tcpdump prints for a tag type.
    pub fn name(t: u16) -> Option<&'static str> {
        Some(match t {
            END_OF_LIST => "EOL",
            SERVICE_NAME => "Service-Name",
            AC_NAME => "AC-Name",
            HOST_UNIQ => "Host-Uniq",
            AC_COOKIE => "AC-Cookie",
            VENDOR_SPECIFIC => "Vendor-Specific",
            RELAY_SESSION_ID => "Relay-Session-ID",
            PPP_MAX_PAYLOAD => "PPP-Max-Payload",
            SERVICE_NAME_ERROR => "Service-Name-Error",
            AC_SYSTEM_ERROR => "AC-System-Error",
            GENERIC_ERROR => "Generic-Error",
            _ => return None,
        })
    }
}

/// One discovery tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PppoeTag<'a> {
    /// The tag type.
    pub tag_type: u16,
    /// The tag value.
    pub value: &'a [u8],
}

/// Most tags [`PppoeTags`] yields.
pub const MAX_PPPOE_TAGS: usize = 64;

/// Iterator over discovery tags; stops at the end of the payload, at an
/// End-Of-List tag, after [`MAX_PPPOE_TAGS`] tags, or with an error on a tag that
/// overruns the payload.
#[derive(Clone, Debug)]
pub struct PppoeTags<'a> {
    rest: &'a [u8],
    count: usize,
    done: bool,
}

impl<'a> PppoeTags<'a> {
    /// Walks the tags in `payload`.
    pub fn new(payload: &'a [u8]) -> Self {
        PppoeTags {
            rest: payload,
            count: 0,
            done: false,
        }
    }
}

impl<'a> Iterator for PppoeTags<'a> {
    type Item = Result<PppoeTag<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.rest.is_empty() {
            return None;
        }
        if self.count >= MAX_PPPOE_TAGS {
            self.done = true;
            return Some(Err(Error::Malformed));
        }
        if self.rest.len() < 4 {
            self.done = true;
            return Some(Err(Error::Truncated));
        }
        let t = u16_at(self.rest, 0);
        let len = u16_at(self.rest, 2) as usize;
        let value = match self.rest.get(4..4 + len) {
            Some(v) => v,
            None => {
                self.done = true;
                return Some(Err(Error::Truncated));
            }
        };
        self.rest = rest(self.rest, 4 + len);
        self.count += 1;
        if t == tag::END_OF_LIST {
            self.done = true;
        }
        Some(Ok(PppoeTag { tag_type: t, value }))
    }
}

/// PPP protocol numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PppProtocol(pub u16);

impl PppProtocol {
    /// Internet Protocol version 4.
    pub const IPV4: PppProtocol = PppProtocol(0x0021);
    /// OSI network layer.
    pub const OSI: PppProtocol = PppProtocol(0x0023);
    /// Novell IPX.
    pub const IPX: PppProtocol = PppProtocol(0x002b);
    /// Van Jacobson compressed TCP/IP (RFC 1144).
    pub const VJC: PppProtocol = PppProtocol(0x002d);
    /// Van Jacobson uncompressed TCP/IP (RFC 1144).
    pub const VJNC: PppProtocol = PppProtocol(0x002f);
    /// A Multilink PPP fragment (RFC 1990).
    pub const MULTILINK: PppProtocol = PppProtocol(0x003d);
    /// Internet Protocol version 6.
    pub const IPV6: PppProtocol = PppProtocol(0x0057);
    /// A datagram compressed as CCP negotiated (RFC 1962).
    pub const COMP: PppProtocol = PppProtocol(0x00fd);
    /// An MPLS label stack, unicast.
    pub const MPLS_UNICAST: PppProtocol = PppProtocol(0x0281);
    /// An MPLS label stack, multicast.
    pub const MPLS_MULTICAST: PppProtocol = PppProtocol(0x0283);
    /// IP Control Protocol (RFC 1332).
    pub const IPCP: PppProtocol = PppProtocol(0x8021);
    /// OSI Network Layer Control Protocol.
    pub const OSICP: PppProtocol = PppProtocol(0x8023);
    /// IPX Control Protocol.
    pub const IPXCP: PppProtocol = PppProtocol(0x802b);
    /// IPv6 Control Protocol (RFC 5072).
    pub const IPV6CP: PppProtocol = PppProtocol(0x8057);
    /// Compression Control Protocol (RFC 1962).
    pub const CCP: PppProtocol = PppProtocol(0x80fd);
    /// MPLS Control Protocol (RFC 3032).
    pub const MPLSCP: PppProtocol = PppProtocol(0x8281);
    /// Link Control Protocol (RFC 1661).
    pub const LCP: PppProtocol = PppProtocol(0xc021);
    /// Password Authentication Protocol.
    pub const PAP: PppProtocol = PppProtocol(0xc023);
    /// Link Quality Report (RFC 1989).
    pub const LQM: PppProtocol = PppProtocol(0xc025);
    /// Challenge Handshake Authentication Protocol.
    pub const CHAP: PppProtocol = PppProtocol(0xc223);
    /// Extensible Authentication Protocol.
    pub const EAP: PppProtocol = PppProtocol(0xc227);
    /// Bandwidth Allocation Control Protocol (RFC 2125).
    pub const BACP: PppProtocol = PppProtocol(0xc02b);
    /// Bandwidth Allocation Protocol (RFC 2125).
    pub const BAP: PppProtocol = PppProtocol(0xc02d);

    /// The name tcpdump prints for this protocol.
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0x0021 => "IP",
            0x0023 => "OSI",
            0x0029 => "AT",
            0x002b => "IPX",
            0x002d => "VJC",
            0x002f => "VJNC",
            0x003d => "ML",
            0x0057 => "IPV6",
            0x00fd => "COMP",
            0x0281 => "MPLS",
            0x0283 => "MPLS",
            0x8021 => "IPCP",
            0x8023 => "OSICP",
            0x802b => "IPXCP",
            0x8057 => "IP6CP",
            0x80fd => "CCP",
            0x8281 => "MPLSCP",
            0xc021 => "LCP",
            0xc023 => "PAP",
            0xc025 => "LQM",
            0xc223 => "CHAP",
            0xc227 => "EAP",
            0xc02b => "BACP",
            0xc02d => "BAP",
            _ => return None,
        })
    }
}

/// Reads the PPP protocol field at the start of `frame`, returning the protocol and
/// the field's length (1 when compressed per RFC 1661 section 6.5, else 2).
///
/// `None` when the buffer is too short.
pub fn ppp_protocol(frame: &[u8]) -> Option<(PppProtocol, usize)> {
    let first = *frame.first()?;
    if first & 1 == 1 {
        Some((PppProtocol(first as u16), 1))
    } else {
        let second = *frame.get(1)?;
        Some((PppProtocol(u16::from_be_bytes([first, second])), 2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery() {
        let b = [
            0x11, 0x09, 0x00, 0x00, 0x00, 0x0c, // PADI, len 12
            0x01, 0x01, 0x00, 0x00, // Service-Name ""
            0x01, 0x03, 0x00, 0x04, 0x16, 0x37, 0x2c, 0x16, // Host-Uniq
        ];
        let h = PppoeHeader::new_checked(&b[..]).unwrap();
        assert_eq!((h.version(), h.pppoe_type()), (1, 1));
        assert_eq!(h.code(), PppoeCode::PADI);
        assert_eq!(h.session_id(), 0);
        assert_eq!(h.payload_len(), 12);
        let tags: Vec<_> = h.tags().map(|t| t.unwrap()).collect();
        assert_eq!(tags.len(), 2);
        assert_eq!(tags[0].tag_type, tag::SERVICE_NAME);
        assert_eq!(tags[1].value, &[0x16, 0x37, 0x2c, 0x16]);
        assert_eq!(
            PppoeHeader::new_checked(&b[..5]).unwrap_err(),
            Error::Truncated
        );
    }

    #[test]
    fn tag_overrun() {
        let p = [0x01, 0x03, 0x00, 0x09, 1, 2];
        let mut t = PppoeTags::new(&p);
        assert_eq!(t.next().unwrap().unwrap_err(), Error::Truncated);
        assert!(t.next().is_none());
    }

    #[test]
    fn session_and_ppp() {
        let b = [
            0x11, 0x00, 0x12, 0x34, 0x00, 0x04, 0x00, 0x21, 0x45, 0x00, 0xee,
        ];
        let h = PppoeHeader::new_checked(&b[..]).unwrap();
        assert_eq!(h.code(), PppoeCode::SESSION);
        assert_eq!(h.session_id(), 0x1234);
        assert_eq!(h.payload(), &[0x00, 0x21, 0x45, 0x00]);
        assert_eq!(ppp_protocol(h.payload()), Some((PppProtocol::IPV4, 2)));
        assert_eq!(ppp_protocol(&[0x21, 0x45]), Some((PppProtocol::IPV4, 1)));
        assert_eq!(ppp_protocol(&[0xc0]), None);
        assert_eq!(PppProtocol::LCP.name(), Some("LCP"));
    }
}
