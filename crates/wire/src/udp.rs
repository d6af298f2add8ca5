//! UDP datagrams (RFC 768).
//!
//! `new_checked` validates the 8-byte header; the payload is clamped to both the
//! length field and the buffer, since captures are often cut.

use crate::bytes::{clamp, clamp_mut, set_bytes, set_u16, u16_at, Field};
use crate::error::{Error, Result};
use std::net::IpAddr;

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

impl<T: AsRef<[u8]> + AsMut<[u8]>> UdpPacket<T> {
    /// Sets the source port.
    pub fn set_src_port(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::SRC_PORT.start, v);
    }

    /// Sets the destination port.
    pub fn set_dst_port(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::DST_PORT.start, v);
    }

    /// Sets the length field (header and payload).
    pub fn set_len(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::LENGTH.start, v);
    }

    /// Sets the checksum field.
    pub fn set_checksum(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::CHECKSUM.start, v);
    }

    /// The payload, to write into: up to the length field, clamped to the buffer.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let end = self.len() as usize;
        clamp_mut(self.buffer.as_mut(), field::PAYLOAD, end)
    }

    /// Computes the checksum of the datagram (as long as its length field) with
    /// the pseudo-header of `src` and `dst`, and writes it; a sum of zero is sent
    /// as all ones (RFC 768: zero means none).
    pub fn fill_checksum(&mut self, src: &IpAddr, dst: &IpAddr) {
        self.set_checksum(0);
        let len = self.len() as usize;
        let sum = crate::tcp::pseudo_checksum(src, dst, 17, clamp(self.buffer.as_ref(), 0, len));
        self.set_checksum(if sum == 0 { 0xffff } else { sum });
    }
}

/// A UDP datagram, header and payload, to [`emit`](UdpRepr::emit) with its
/// checksum filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UdpRepr<'a> {
    /// The source port.
    pub src_port: u16,
    /// The destination port.
    pub dst_port: u16,
    /// The payload.
    pub payload: &'a [u8],
}

impl<'a> UdpRepr<'a> {
    /// The fields of a datagram (its payload borrowed from it).
    pub fn parse(p: &'a UdpPacket<&'a [u8]>) -> UdpRepr<'a> {
        UdpRepr {
            src_port: p.src_port(),
            dst_port: p.dst_port(),
            payload: p.payload(),
        }
    }

    /// The length of the datagram this emits: header and payload.
    pub fn buffer_len(&self) -> usize {
        field::PAYLOAD + self.payload.len()
    }

    /// Writes the datagram into `p` and fills its checksum for `src` to `dst`.
    /// Panics if it is longer than 65,535 bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(
        &self,
        p: &mut UdpPacket<T>,
        src: &IpAddr,
        dst: &IpAddr,
    ) {
        let len = u16::try_from(self.buffer_len()).expect("a UDP datagram of at most 65535 bytes");
        p.set_src_port(self.src_port);
        p.set_dst_port(self.dst_port);
        p.set_len(len);
        set_bytes(p.payload_mut(), 0, self.payload);
        p.fill_checksum(src, dst);
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

#[cfg(test)]
mod emit_tests {
    use super::*;

    #[test]
    fn emit_fills_the_checksum_over_both_families() {
        for (src, dst) in [
            ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap()),
            ("fd00::1".parse().unwrap(), "fd00::2".parse().unwrap()),
        ] {
            let repr = UdpRepr {
                src_port: 12345,
                dst_port: 1234,
                payload: b"odd",
            };
            let mut buf = vec![0u8; repr.buffer_len()];
            repr.emit(&mut UdpPacket::new_unchecked(&mut buf[..]), &src, &dst);
            assert_eq!(buf[..6], [0x30, 0x39, 0x04, 0xd2, 0, 11]);
            assert_eq!(crate::tcp::pseudo_checksum(&src, &dst, 17, &buf), 0);
            let p = UdpPacket::new_checked(&buf[..]).unwrap();
            assert!(p.check_datagram_len().is_ok());
            assert_eq!(UdpRepr::parse(&p), repr);
        }
    }

    #[test]
    fn a_known_datagram() {
        // 10.0.0.2:12345 -> 10.0.0.1:1234, payload 00 00 00 07: checksum by hand
        // (0a00+0002+0a00+0001+0011+000c + 3039+04d2+000c+0000+0007 = 493e).
        let repr = UdpRepr {
            src_port: 12345,
            dst_port: 1234,
            payload: &[0, 0, 0, 7],
        };
        let mut buf = [0u8; 12];
        let (src, dst) = ("10.0.0.2".parse().unwrap(), "10.0.0.1".parse().unwrap());
        repr.emit(&mut UdpPacket::new_unchecked(&mut buf[..]), &src, &dst);
        assert_eq!(buf, [0x30, 0x39, 0x04, 0xd2, 0, 12, 0xb6, 0xc1, 0, 0, 0, 7]);
    }
}
