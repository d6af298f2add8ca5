//! IPv4 packets (RFC 791): the fixed header, flags and fragment offset, options.
//!
//! `new_checked` validates the header only: 20 bytes, an IHL of at least 5 and a
//! buffer covering IHL * 4 bytes. A total length beyond the buffer is normal in a
//! capture cut by its snapshot length, so it is not an error there;
//! [`Ipv4Packet::payload`] is clamped to both the total length and the buffer, and
//! [`Ipv4Packet::check_total_len`] applies the strict check when wanted.

use crate::bytes::{
    array, clamp, clamp_mut, set_bytes, set_u16, set_u8, slice, u16_at, u8_at, Field,
};
use crate::checksum::ones_sum;
use crate::error::{Error, Result};
use crate::ip::IpProtocol;
use std::net::Ipv4Addr;

mod field {
    use super::Field;
    pub(crate) const VER_IHL: usize = 0;
    pub(crate) const TOS: usize = 1;
    pub(crate) const LENGTH: Field = 2..4;
    pub(crate) const IDENT: Field = 4..6;
    pub(crate) const FLG_OFF: Field = 6..8;
    pub(crate) const TTL: usize = 8;
    pub(crate) const PROTOCOL: usize = 9;
    pub(crate) const CHECKSUM: Field = 10..12;
    pub(crate) const SRC_ADDR: Field = 12..16;
    pub(crate) const DST_ADDR: Field = 16..20;
    pub(crate) const OPTIONS: usize = 20;
}

/// A read view of an IPv4 packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv4Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv4Packet<T> {
    /// Length of the header without options.
    pub const MIN_HEADER_LEN: usize = field::OPTIONS;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        Ipv4Packet { buffer }
    }

    /// Wraps a buffer after checking it holds the whole header, options included.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Checks the header: 20 bytes present, IHL >= 5, IHL * 4 bytes present.
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        if len < Self::MIN_HEADER_LEN {
            Err(Error::Truncated)
        } else if self.header_len() < Self::MIN_HEADER_LEN {
            Err(Error::Malformed)
        } else if len < self.header_len() {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }

    /// Checks the total length too: not below the header length, not beyond the
    /// buffer.
    pub fn check_total_len(&self) -> Result<()> {
        self.check_len()?;
        let total = self.total_len() as usize;
        if total < self.header_len() {
            Err(Error::Malformed)
        } else if total > self.buffer.as_ref().len() {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }

    /// Returns the underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The version field (4 for a real IPv4 packet).
    pub fn version(&self) -> u8 {
        u8_at(self.buffer.as_ref(), field::VER_IHL) >> 4
    }

    /// The header length in bytes (IHL * 4).
    pub fn header_len(&self) -> usize {
        (u8_at(self.buffer.as_ref(), field::VER_IHL) & 0x0f) as usize * 4
    }

    /// The type-of-service byte (DSCP and ECN).
    pub fn tos(&self) -> u8 {
        u8_at(self.buffer.as_ref(), field::TOS)
    }

    /// The differentiated services code point.
    pub fn dscp(&self) -> u8 {
        self.tos() >> 2
    }

    /// The explicit congestion notification bits.
    pub fn ecn(&self) -> u8 {
        self.tos() & 3
    }

    /// The total length field.
    pub fn total_len(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::LENGTH.start)
    }

    /// The identification field.
    pub fn ident(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::IDENT.start)
    }

    /// The reserved ("evil") flag.
    pub fn reserved_flag(&self) -> bool {
        u16_at(self.buffer.as_ref(), field::FLG_OFF.start) & 0x8000 != 0
    }

    /// The don't-fragment flag.
    pub fn dont_frag(&self) -> bool {
        u16_at(self.buffer.as_ref(), field::FLG_OFF.start) & 0x4000 != 0
    }

    /// The more-fragments flag.
    pub fn more_frags(&self) -> bool {
        u16_at(self.buffer.as_ref(), field::FLG_OFF.start) & 0x2000 != 0
    }

    /// The fragment offset in 8-byte units.
    pub fn frag_offset_units(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::FLG_OFF.start) & 0x1fff
    }

    /// The fragment offset in bytes.
    pub fn frag_offset(&self) -> u32 {
        self.frag_offset_units() as u32 * 8
    }

    /// Whether this is a fragment (offset nonzero or more-fragments set).
    pub fn is_fragment(&self) -> bool {
        self.more_frags() || self.frag_offset_units() != 0
    }

    /// The time to live.
    pub fn ttl(&self) -> u8 {
        u8_at(self.buffer.as_ref(), field::TTL)
    }

    /// The payload protocol.
    pub fn protocol(&self) -> IpProtocol {
        IpProtocol(u8_at(self.buffer.as_ref(), field::PROTOCOL))
    }

    /// The header checksum field.
    pub fn checksum(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::CHECKSUM.start)
    }

    /// Whether the header checksum is right.
    pub fn verify_checksum(&self) -> bool {
        let h = clamp(self.buffer.as_ref(), 0, self.header_len());
        ones_sum(0, h) == 0xffff
    }

    /// The source address.
    pub fn src_addr(&self) -> Ipv4Addr {
        Ipv4Addr::from(array::<4>(self.buffer.as_ref(), field::SRC_ADDR.start))
    }

    /// The destination address.
    pub fn dst_addr(&self) -> Ipv4Addr {
        Ipv4Addr::from(array::<4>(self.buffer.as_ref(), field::DST_ADDR.start))
    }

    /// The raw options (IHL * 4 - 20 bytes).
    pub fn options(&self) -> &[u8] {
        slice(self.buffer.as_ref(), field::OPTIONS..self.header_len())
    }

    /// An iterator over the options.
    pub fn option_iter(&self) -> Ipv4Options<'_> {
        Ipv4Options::new(self.options())
    }

    /// The payload: from the end of the header to the total length, clamped to the
    /// buffer. A total length below the header length gives an empty payload.
    pub fn payload(&self) -> &[u8] {
        let b = self.buffer.as_ref();
        clamp(b, self.header_len(), self.total_len() as usize)
    }
}

/// IPv4 option kinds.
pub mod option {
    /// End of the option list.
    pub const END: u8 = 0;
    /// No operation: one byte of padding between options.
    pub const NOP: u8 = 1;
    /// Basic security (RFC 1108).
    pub const SECURITY: u8 = 130;
    /// Loose source and record route.
    pub const LSRR: u8 = 131;
    /// Extended security (RFC 1108).
    pub const EXT_SECURITY: u8 = 133;
    /// Commercial IP security option (CIPSO).
    pub const COMMERCIAL_SECURITY: u8 = 134;
    /// Record route.
    pub const RECORD_ROUTE: u8 = 7;
    /// Internet timestamp.
    pub const TIMESTAMP: u8 = 68;
    /// Stream identifier (obsolete).
    pub const STREAM_ID: u8 = 136;
    /// Strict source and record route.
    pub const SSRR: u8 = 137;
    /// Router alert (RFC 2113).
    pub const ROUTER_ALERT: u8 = 148;
}

/// One IPv4 option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv4Option<'a> {
    /// The option type byte (copied flag, class and number).
    pub kind: u8,
    /// The option data, after the type and length bytes.
    pub data: &'a [u8],
}

/// Iterator over IPv4 options. Stops after End-of-List; yields
/// `Err(Malformed)` (and stops) on a length byte below 2 or overrunning the options.
#[derive(Clone, Debug)]
pub struct Ipv4Options<'a> {
    rest: &'a [u8],
    done: bool,
}

impl<'a> Ipv4Options<'a> {
    /// Walks the options in `options`.
    pub fn new(options: &'a [u8]) -> Self {
        Ipv4Options {
            rest: options,
            done: false,
        }
    }
}

impl<'a> Iterator for Ipv4Options<'a> {
    type Item = Result<Ipv4Option<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let (&kind, after) = self.rest.split_first()?;
        if kind == option::END || kind == option::NOP {
            self.rest = after;
            self.done = kind == option::END;
            return Some(Ok(Ipv4Option { kind, data: &[] }));
        }
        let len = match after.first() {
            Some(&l) => l as usize,
            None => {
                self.done = true;
                return Some(Err(Error::Malformed));
            }
        };
        if len < 2 || len > self.rest.len() {
            self.done = true;
            return Some(Err(Error::Malformed));
        }
        let data = &self.rest[2..len];
        self.rest = &self.rest[len..];
        Some(Ok(Ipv4Option { kind, data }))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv4Packet<T> {
    /// Sets the version field (4).
    pub fn set_version(&mut self, v: u8) {
        let b = self.buffer.as_mut();
        set_u8(b, field::VER_IHL, v << 4 | u8_at(b, field::VER_IHL) & 0x0f);
    }

    /// Sets the header length in bytes (a multiple of 4, 20 to 60).
    pub fn set_header_len(&mut self, len: usize) {
        let b = self.buffer.as_mut();
        let ihl = (len / 4) as u8 & 0x0f;
        set_u8(b, field::VER_IHL, u8_at(b, field::VER_IHL) & 0xf0 | ihl);
    }

    /// Sets the type-of-service byte (DSCP and ECN).
    pub fn set_tos(&mut self, v: u8) {
        set_u8(self.buffer.as_mut(), field::TOS, v);
    }

    /// Sets the total length (header and payload).
    pub fn set_total_len(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::LENGTH.start, v);
    }

    /// Sets the identification.
    pub fn set_ident(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::IDENT.start, v);
    }

    fn set_flag_bits(&mut self, mask: u16, on: bool) {
        let b = self.buffer.as_mut();
        let v = u16_at(b, field::FLG_OFF.start) & !mask | if on { mask } else { 0 };
        set_u16(b, field::FLG_OFF.start, v);
    }

    /// Sets the reserved ("evil") flag.
    pub fn set_reserved_flag(&mut self, on: bool) {
        self.set_flag_bits(0x8000, on);
    }

    /// Sets the Don't Fragment flag.
    pub fn set_dont_frag(&mut self, on: bool) {
        self.set_flag_bits(0x4000, on);
    }

    /// Sets the More Fragments flag.
    pub fn set_more_frags(&mut self, on: bool) {
        self.set_flag_bits(0x2000, on);
    }

    /// Sets the fragment offset in bytes (a multiple of 8).
    pub fn set_frag_offset(&mut self, bytes: u32) {
        let b = self.buffer.as_mut();
        let v = u16_at(b, field::FLG_OFF.start) & 0xe000 | (bytes / 8) as u16 & 0x1fff;
        set_u16(b, field::FLG_OFF.start, v);
    }

    /// Sets the time to live.
    pub fn set_ttl(&mut self, v: u8) {
        set_u8(self.buffer.as_mut(), field::TTL, v);
    }

    /// Sets the protocol of the payload.
    pub fn set_protocol(&mut self, v: IpProtocol) {
        set_u8(self.buffer.as_mut(), field::PROTOCOL, v.0);
    }

    /// Sets the header checksum field.
    pub fn set_checksum(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::CHECKSUM.start, v);
    }

    /// Computes the header checksum and writes it (set every other header field
    /// first).
    pub fn fill_checksum(&mut self) {
        self.set_checksum(0);
        let len = self.header_len();
        let sum = !(ones_sum(0, clamp(self.buffer.as_ref(), 0, len)) as u16);
        self.set_checksum(sum);
    }

    /// Sets the source address.
    pub fn set_src_addr(&mut self, a: Ipv4Addr) {
        set_bytes(self.buffer.as_mut(), field::SRC_ADDR.start, &a.octets());
    }

    /// Sets the destination address.
    pub fn set_dst_addr(&mut self, a: Ipv4Addr) {
        set_bytes(self.buffer.as_mut(), field::DST_ADDR.start, &a.octets());
    }

    /// The options, to write into (as long as the header length says).
    pub fn options_mut(&mut self) -> &mut [u8] {
        let len = self.header_len();
        clamp_mut(self.buffer.as_mut(), field::OPTIONS, len)
    }

    /// The payload, to write into: from the header's end to the total length,
    /// clamped to the buffer.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let (start, end) = (self.header_len(), self.total_len() as usize);
        clamp_mut(self.buffer.as_mut(), start, end)
    }
}

/// The fields of an IPv4 header without options, to [`emit`](Ipv4Repr::emit)
/// with its checksum filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv4Repr {
    /// The source address.
    pub src_addr: Ipv4Addr,
    /// The destination address.
    pub dst_addr: Ipv4Addr,
    /// The protocol of the payload.
    pub protocol: IpProtocol,
    /// The length of the payload (of this fragment, when a fragment).
    pub payload_len: usize,
    /// The time to live.
    pub ttl: u8,
    /// The type-of-service byte.
    pub tos: u8,
    /// The identification.
    pub ident: u16,
    /// Don't Fragment.
    pub dont_frag: bool,
    /// More Fragments.
    pub more_frags: bool,
    /// The fragment offset in bytes (a multiple of 8).
    pub frag_offset: u32,
}

impl Ipv4Repr {
    /// A header with TTL 64 and every other field zero or clear.
    pub fn new(
        src_addr: Ipv4Addr,
        dst_addr: Ipv4Addr,
        protocol: IpProtocol,
        payload_len: usize,
    ) -> Ipv4Repr {
        Ipv4Repr {
            src_addr,
            dst_addr,
            protocol,
            payload_len,
            ttl: 64,
            tos: 0,
            ident: 0,
            dont_frag: false,
            more_frags: false,
            frag_offset: 0,
        }
    }

    /// The fields of a header (its options are left out).
    pub fn parse<T: AsRef<[u8]>>(p: &Ipv4Packet<T>) -> Ipv4Repr {
        Ipv4Repr {
            src_addr: p.src_addr(),
            dst_addr: p.dst_addr(),
            protocol: p.protocol(),
            payload_len: (p.total_len() as usize).saturating_sub(p.header_len()),
            ttl: p.ttl(),
            tos: p.tos(),
            ident: p.ident(),
            dont_frag: p.dont_frag(),
            more_frags: p.more_frags(),
            frag_offset: p.frag_offset(),
        }
    }

    /// The length of the header this emits (20 bytes).
    pub const fn buffer_len(&self) -> usize {
        field::OPTIONS
    }

    /// Writes the header into `p`, the checksum last. Panics if the packet would
    /// be longer than 65,535 bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Ipv4Packet<T>) {
        let total = u16::try_from(self.buffer_len() + self.payload_len)
            .expect("an IPv4 packet is at most 65535 bytes");
        p.set_version(4);
        p.set_header_len(self.buffer_len());
        p.set_tos(self.tos);
        p.set_total_len(total);
        p.set_ident(self.ident);
        set_u16(p.buffer.as_mut(), field::FLG_OFF.start, 0);
        p.set_dont_frag(self.dont_frag);
        p.set_more_frags(self.more_frags);
        p.set_frag_offset(self.frag_offset);
        p.set_ttl(self.ttl);
        p.set_protocol(self.protocol);
        p.set_src_addr(self.src_addr);
        p.set_dst_addr(self.dst_addr);
        p.fill_checksum();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet() -> Vec<u8> {
        let mut p = vec![
            0x46, 0x00, 0x00, 0x20, // v4, ihl 6, len 32
            0x12, 0x34, 0x60, 0x02, // id, DF|MF, offset 2
            0x40, 0x06, 0x00, 0x00, // ttl 64, tcp
            10, 0, 0, 1, 10, 0, 0, 2, // addresses
            0x94, 0x04, 0x00, 0x00, // router alert
        ];
        let sum = !(ones_sum(0, &p) as u16);
        p[10..12].copy_from_slice(&sum.to_be_bytes());
        p.extend_from_slice(&[0xaa; 8]);
        p
    }

    #[test]
    fn fields() {
        let b = packet();
        let p = Ipv4Packet::new_checked(&b[..]).unwrap();
        assert_eq!(p.version(), 4);
        assert_eq!(p.header_len(), 24);
        assert_eq!(p.total_len(), 32);
        assert_eq!(p.ident(), 0x1234);
        assert!(p.dont_frag() && p.more_frags() && !p.reserved_flag());
        assert_eq!(p.frag_offset(), 16);
        assert!(p.is_fragment());
        assert_eq!(p.ttl(), 64);
        assert_eq!(p.protocol(), IpProtocol::TCP);
        assert!(p.verify_checksum());
        assert_eq!(p.src_addr(), Ipv4Addr::new(10, 0, 0, 1));
        assert_eq!(p.dst_addr(), Ipv4Addr::new(10, 0, 0, 2));
        let opts: Vec<_> = p.option_iter().collect();
        assert_eq!(
            opts,
            vec![Ok(Ipv4Option {
                kind: option::ROUTER_ALERT,
                data: &[0, 0]
            })]
        );
        assert_eq!(p.payload(), &[0xaa; 8]);
        assert!(p.check_total_len().is_ok());
    }

    #[test]
    fn rejects_short_and_malformed() {
        let b = packet();
        assert_eq!(
            Ipv4Packet::new_checked(&b[..19]).unwrap_err(),
            Error::Truncated
        );
        assert_eq!(
            Ipv4Packet::new_checked(&b[..23]).unwrap_err(),
            Error::Truncated
        );
        let mut bad = b.clone();
        bad[0] = 0x44;
        assert_eq!(
            Ipv4Packet::new_checked(&bad[..]).unwrap_err(),
            Error::Malformed
        );
        // Snapshot cut: header fine, payload clamped, strict check refuses.
        let p = Ipv4Packet::new_checked(&b[..28]).unwrap();
        assert_eq!(p.payload(), &[0xaa; 4]);
        assert_eq!(p.check_total_len().unwrap_err(), Error::Truncated);
        // Total length below the header length.
        let mut bad = b.clone();
        bad[3] = 10;
        let p = Ipv4Packet::new_checked(&bad[..]).unwrap();
        assert_eq!(p.payload(), &[] as &[u8]);
        assert_eq!(p.check_total_len().unwrap_err(), Error::Malformed);
    }

    #[test]
    fn options_malformed() {
        let o = [1, 7, 1, 0];
        let v: Vec<_> = Ipv4Options::new(&o).collect();
        assert_eq!(v.len(), 2);
        assert_eq!(v[1], Err(Error::Malformed));
        let o = [1, 0, 7, 3];
        let v: Vec<_> = Ipv4Options::new(&o).collect();
        assert_eq!(v.len(), 2); // NOP, END and stop
    }
}

#[cfg(test)]
mod emit_tests {
    use super::*;

    #[test]
    fn emit_fills_the_checksum_and_the_view_reads_it_back() {
        // The usual worked example of the header checksum: b861.
        let repr = Ipv4Repr {
            dont_frag: true,
            ..Ipv4Repr::new(
                Ipv4Addr::new(192, 168, 0, 1),
                Ipv4Addr::new(192, 168, 0, 199),
                IpProtocol(17),
                0x73 - 20,
            )
        };
        let mut buf = vec![0u8; repr.buffer_len() + repr.payload_len];
        let mut p = Ipv4Packet::new_unchecked(&mut buf[..]);
        repr.emit(&mut p);
        p.payload_mut().fill(0x5a);
        let want: [u8; 20] = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(buf[..20], want);
        assert!(buf[20..].iter().all(|b| *b == 0x5a));
        let p = Ipv4Packet::new_checked(&buf[..]).unwrap();
        assert!(p.verify_checksum() && p.check_total_len().is_ok());
        assert_eq!(Ipv4Repr::parse(&p), repr);
    }

    #[test]
    fn fragment_fields_round_trip() {
        let repr = Ipv4Repr {
            more_frags: true,
            frag_offset: 1480,
            ident: 7,
            ..Ipv4Repr::new(
                Ipv4Addr::new(10, 0, 0, 1),
                Ipv4Addr::new(10, 0, 0, 2),
                IpProtocol(17),
                8,
            )
        };
        let mut buf = [0u8; 28];
        repr.emit(&mut Ipv4Packet::new_unchecked(&mut buf[..]));
        assert_eq!(buf[6..8], [0x20, 185]);
        let p = Ipv4Packet::new_checked(&buf[..]).unwrap();
        assert!(p.is_fragment() && p.verify_checksum());
        assert_eq!(Ipv4Repr::parse(&p), repr);
    }
}
