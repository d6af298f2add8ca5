//! IPv6 packets (RFC 8200): the fixed header, the extension headers, and a walker
//! over the extension-header chain.
//!
//! [`Ipv6Packet`] views the 40-byte fixed header. Its payload begins with a chain of
//! extension headers, each naming the next one; [`ExtHeaderWalk`] follows the chain
//! through hop-by-hop options, routing, fragment, destination options and
//! authentication (AH) headers, at most [`MAX_EXT_HEADERS`] of them, and hands back
//! the upper-layer protocol and its bytes. Each extension header also has its own
//! view: [`Ipv6OptionsHeader`] (hop-by-hop and destination options),
//! [`Ipv6RoutingHeader`], [`Ipv6FragmentHeader`] and [`AuthHeader`] (which IPv4 uses
//! too).

use crate::bytes::{
    array, clamp, rest, rest_mut, set_bytes, set_u16, set_u32, set_u8, slice, u16_at, u32_at,
    u8_at, Field,
};
use crate::error::{Error, Result};
use crate::ip::IpProtocol;
use std::net::Ipv6Addr;

mod field {
    use super::Field;
    pub(crate) const VER_TC_FLOW: Field = 0..4;
    pub(crate) const LENGTH: Field = 4..6;
    pub(crate) const NXT_HDR: usize = 6;
    pub(crate) const HOP_LIMIT: usize = 7;
    pub(crate) const SRC_ADDR: Field = 8..24;
    pub(crate) const DST_ADDR: Field = 24..40;
    pub(crate) const PAYLOAD: usize = 40;
}

/// A read view of an IPv6 packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv6Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv6Packet<T> {
    /// Length of the fixed header.
    pub const HEADER_LEN: usize = field::PAYLOAD;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        Ipv6Packet { buffer }
    }

    /// Wraps a buffer after checking it holds the 40-byte fixed header.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Checks the buffer holds the fixed header.
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < Self::HEADER_LEN {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }

    /// Checks the payload length too: the buffer must cover it.
    pub fn check_payload_len(&self) -> Result<()> {
        self.check_len()?;
        if self.buffer.as_ref().len() < Self::HEADER_LEN + self.payload_len() as usize {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }

    /// Returns the underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn first_word(&self) -> u32 {
        u32_at(self.buffer.as_ref(), field::VER_TC_FLOW.start)
    }

    /// The version field (6 for a real IPv6 packet).
    pub fn version(&self) -> u8 {
        (self.first_word() >> 28) as u8
    }

    /// The traffic class.
    pub fn traffic_class(&self) -> u8 {
        (self.first_word() >> 20) as u8
    }

    /// The 20-bit flow label.
    pub fn flow_label(&self) -> u32 {
        self.first_word() & 0x000f_ffff
    }

    /// The payload length field (0 for a jumbogram).
    pub fn payload_len(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::LENGTH.start)
    }

    /// The first next-header value.
    pub fn next_header(&self) -> IpProtocol {
        IpProtocol(u8_at(self.buffer.as_ref(), field::NXT_HDR))
    }

    /// The hop limit.
    pub fn hop_limit(&self) -> u8 {
        u8_at(self.buffer.as_ref(), field::HOP_LIMIT)
    }

    /// The source address.
    pub fn src_addr(&self) -> Ipv6Addr {
        Ipv6Addr::from(array::<16>(self.buffer.as_ref(), field::SRC_ADDR.start))
    }

    /// The destination address.
    pub fn dst_addr(&self) -> Ipv6Addr {
        Ipv6Addr::from(array::<16>(self.buffer.as_ref(), field::DST_ADDR.start))
    }

    /// The payload, extension headers included: `payload_len` bytes clamped to the
    /// buffer, or the whole rest of the buffer for a jumbogram (payload length 0
    /// with a hop-by-hop header).
    pub fn payload(&self) -> &[u8] {
        let b = self.buffer.as_ref();
        if self.payload_len() == 0 && self.next_header() == IpProtocol::HOP_BY_HOP {
            rest(b, field::PAYLOAD)
        } else {
            clamp(
                b,
                field::PAYLOAD,
                field::PAYLOAD + self.payload_len() as usize,
            )
        }
    }

    /// A walker over the extension-header chain of the payload.
    pub fn ext_headers(&self) -> ExtHeaderWalk<'_> {
        ExtHeaderWalk::new(self.next_header(), self.payload())
    }
}

/// A read view of a hop-by-hop or destination options header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv6OptionsHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv6OptionsHeader<T> {
    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        Ipv6OptionsHeader { buffer }
    }

    /// Wraps a buffer after checking it holds the whole header.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let h = Self::new_unchecked(buffer);
        check_generic(h.buffer.as_ref())?;
        Ok(h)
    }

    /// The next header.
    pub fn next_header(&self) -> IpProtocol {
        IpProtocol(u8_at(self.buffer.as_ref(), 0))
    }

    /// The header length in bytes ((Hdr Ext Len + 1) * 8).
    pub fn header_len(&self) -> usize {
        generic_len(self.buffer.as_ref())
    }

    /// The raw options.
    pub fn options(&self) -> &[u8] {
        slice(self.buffer.as_ref(), 2..self.header_len())
    }

    /// An iterator over the options.
    pub fn option_iter(&self) -> Ipv6Options<'_> {
        Ipv6Options::new(self.options())
    }

    /// Everything after the header.
    pub fn payload(&self) -> &[u8] {
        rest(self.buffer.as_ref(), self.header_len())
    }
}

fn generic_len(b: &[u8]) -> usize {
    (u8_at(b, 1) as usize + 1) * 8
}

fn check_generic(b: &[u8]) -> Result<()> {
    if b.len() < 8 || b.len() < generic_len(b) {
        Err(Error::Truncated)
    } else {
        Ok(())
    }
}

/// Hop-by-hop and destination option types.
pub mod option {
    /// One byte of padding.
    pub const PAD1: u8 = 0;
    /// Two or more bytes of padding.
    pub const PADN: u8 = 1;
    /// Tunnel encapsulation limit (RFC 2473).
    pub const TUNNEL_LIMIT: u8 = 0x04;
    /// Router alert (RFC 2711).
    pub const ROUTER_ALERT: u8 = 0x05;
    /// Jumbo payload length (RFC 2675).
    pub const JUMBO: u8 = 0xc2;
    /// Mobile IPv6 home address (RFC 6275).
    pub const HOME_ADDRESS: u8 = 0xc9;
}

/// One hop-by-hop or destination option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv6Option<'a> {
    /// The option type.
    pub kind: u8,
    /// The option data.
    pub data: &'a [u8],
}

/// Iterator over TLV-encoded IPv6 options; yields `Err(Malformed)` and stops on an
/// option overrunning the area.
#[derive(Clone, Debug)]
pub struct Ipv6Options<'a> {
    rest: &'a [u8],
    done: bool,
}

impl<'a> Ipv6Options<'a> {
    /// Walks the options in `options`.
    pub fn new(options: &'a [u8]) -> Self {
        Ipv6Options {
            rest: options,
            done: false,
        }
    }
}

impl<'a> Iterator for Ipv6Options<'a> {
    type Item = Result<Ipv6Option<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let (&kind, after) = self.rest.split_first()?;
        if kind == option::PAD1 {
            self.rest = after;
            return Some(Ok(Ipv6Option { kind, data: &[] }));
        }
        let len = match after.first() {
            Some(&l) => l as usize,
            None => {
                self.done = true;
                return Some(Err(Error::Malformed));
            }
        };
        match self.rest.get(2..2 + len) {
            Some(data) => {
                self.rest = &self.rest[2 + len..];
                Some(Ok(Ipv6Option { kind, data }))
            }
            None => {
                self.done = true;
                Some(Err(Error::Malformed))
            }
        }
    }
}

/// Routing header types.
pub mod routing {
    /// Source route (deprecated, RFC 5095).
    pub const TYPE0: u8 = 0;
    /// Nimrod (deprecated).
    pub const TYPE1: u8 = 1;
    /// Mobile IPv6 home address.
    pub const TYPE2: u8 = 2;
    /// RPL source route.
    pub const RPL: u8 = 3;
    /// Segment routing.
    pub const SEGMENT: u8 = 4;
}

/// A read view of a routing header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv6RoutingHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv6RoutingHeader<T> {
    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        Ipv6RoutingHeader { buffer }
    }

    /// Wraps a buffer after checking it holds the whole header.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let h = Self::new_unchecked(buffer);
        check_generic(h.buffer.as_ref())?;
        Ok(h)
    }

    /// The next header.
    pub fn next_header(&self) -> IpProtocol {
        IpProtocol(u8_at(self.buffer.as_ref(), 0))
    }

    /// The header length in bytes.
    pub fn header_len(&self) -> usize {
        generic_len(self.buffer.as_ref())
    }

    /// The raw Hdr Ext Len field (in 8-byte units, not counting the first 8).
    pub fn hdr_ext_len(&self) -> u8 {
        u8_at(self.buffer.as_ref(), 1)
    }

    /// The routing type.
    pub fn routing_type(&self) -> u8 {
        u8_at(self.buffer.as_ref(), 2)
    }

    /// Segments left.
    pub fn segments_left(&self) -> u8 {
        u8_at(self.buffer.as_ref(), 3)
    }

    /// The type-specific data after the first 4 bytes.
    pub fn data(&self) -> &[u8] {
        slice(self.buffer.as_ref(), 4..self.header_len())
    }

    /// The addresses of a type 0 or type 2 header (after 4 reserved bytes), or of a
    /// segment routing header (after its last-entry, flags and tag bytes).
    pub fn addresses(&self) -> impl Iterator<Item = Ipv6Addr> + '_ {
        let area = slice(self.buffer.as_ref(), 8..self.header_len());
        area.chunks_exact(16)
            .map(|c| Ipv6Addr::from(array::<16>(c, 0)))
    }

    /// Everything after the header.
    pub fn payload(&self) -> &[u8] {
        rest(self.buffer.as_ref(), self.header_len())
    }
}

/// A read view of a fragment header (8 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv6FragmentHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv6FragmentHeader<T> {
    /// Length of the fragment header.
    pub const HEADER_LEN: usize = 8;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        Ipv6FragmentHeader { buffer }
    }

    /// Wraps a buffer after checking it holds the 8-byte header.
    pub fn new_checked(buffer: T) -> Result<Self> {
        if buffer.as_ref().len() < Self::HEADER_LEN {
            return Err(Error::Truncated);
        }
        Ok(Self::new_unchecked(buffer))
    }

    /// The next header.
    pub fn next_header(&self) -> IpProtocol {
        IpProtocol(u8_at(self.buffer.as_ref(), 0))
    }

    /// The fragment offset in bytes.
    pub fn frag_offset(&self) -> u32 {
        (u16_at(self.buffer.as_ref(), 2) & 0xfff8) as u32
    }

    /// The more-fragments flag.
    pub fn more_frags(&self) -> bool {
        u16_at(self.buffer.as_ref(), 2) & 1 != 0
    }

    /// The identification field.
    pub fn ident(&self) -> u32 {
        u32_at(self.buffer.as_ref(), 4)
    }

    /// Everything after the header.
    pub fn payload(&self) -> &[u8] {
        rest(self.buffer.as_ref(), Self::HEADER_LEN)
    }
}

/// A read view of an IPsec authentication header (RFC 4302), for IPv4 and IPv6.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AuthHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> AuthHeader<T> {
    /// Length of the fixed part (next header to sequence number).
    pub const FIXED_LEN: usize = 12;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        AuthHeader { buffer }
    }

    /// Wraps a buffer after checking it holds the whole header (ICV included).
    pub fn new_checked(buffer: T) -> Result<Self> {
        let h = Self::new_unchecked(buffer);
        let len = h.buffer.as_ref().len();
        if len < Self::FIXED_LEN {
            return Err(Error::Truncated);
        }
        if h.header_len() < Self::FIXED_LEN {
            return Err(Error::Malformed);
        }
        if len < h.header_len() {
            return Err(Error::Truncated);
        }
        Ok(h)
    }

    /// The next header.
    pub fn next_header(&self) -> IpProtocol {
        IpProtocol(u8_at(self.buffer.as_ref(), 0))
    }

    /// The raw payload length field (in 4-byte units, minus 2).
    pub fn payload_len_field(&self) -> u8 {
        u8_at(self.buffer.as_ref(), 1)
    }

    /// The header length in bytes ((payload length + 2) * 4).
    pub fn header_len(&self) -> usize {
        (self.payload_len_field() as usize + 2) * 4
    }

    /// The security parameters index.
    pub fn spi(&self) -> u32 {
        u32_at(self.buffer.as_ref(), 4)
    }

    /// The sequence number.
    pub fn sequence(&self) -> u32 {
        u32_at(self.buffer.as_ref(), 8)
    }

    /// The integrity check value.
    pub fn icv(&self) -> &[u8] {
        slice(self.buffer.as_ref(), Self::FIXED_LEN..self.header_len())
    }

    /// Everything after the header.
    pub fn payload(&self) -> &[u8] {
        rest(self.buffer.as_ref(), self.header_len())
    }
}

/// Most extension headers [`ExtHeaderWalk`] steps over before giving up.
pub const MAX_EXT_HEADERS: usize = 8;

/// One extension header met by [`ExtHeaderWalk`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtHeader<'a> {
    /// Which header this is (0, 43, 44, 51 or 60).
    pub kind: IpProtocol,
    /// Offset of the header from the start of the IPv6 payload.
    pub offset: usize,
    /// The whole header.
    pub bytes: &'a [u8],
    /// The next-header value it holds.
    pub next_header: IpProtocol,
}

/// Walks the extension-header chain of an IPv6 payload.
///
/// Each call to `next` steps over one hop-by-hop, routing, fragment, destination
/// options or AH header. The walk ends at the first other next-header value (the
/// upper layer, or 59 "no next header"), after a fragment header with a nonzero
/// offset (the rest of the chain is in the first fragment), or with an error: a
/// header cut short (`Truncated`) or more than [`MAX_EXT_HEADERS`] headers
/// (`Malformed`).
#[derive(Clone, Debug)]
pub struct ExtHeaderWalk<'a> {
    next: IpProtocol,
    rest: &'a [u8],
    offset: usize,
    count: usize,
    done: bool,
    later_fragment: bool,
}

impl<'a> ExtHeaderWalk<'a> {
    /// Starts at next-header value `first` over the IPv6 payload `payload`.
    pub fn new(first: IpProtocol, payload: &'a [u8]) -> Self {
        ExtHeaderWalk {
            next: first,
            rest: payload,
            offset: 0,
            count: 0,
            done: false,
            later_fragment: false,
        }
    }

    /// The next-header value reached so far.
    pub fn next_header(&self) -> IpProtocol {
        self.next
    }

    /// The bytes after the headers walked so far.
    pub fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// Offset of [`Self::rest`] from the start of the IPv6 payload.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Whether the walk stopped at a fragment header with a nonzero offset.
    pub fn is_later_fragment(&self) -> bool {
        self.later_fragment
    }

    /// Walks the whole chain and returns the upper-layer protocol and its bytes.
    pub fn upper_layer(mut self) -> Result<(IpProtocol, &'a [u8])> {
        for h in self.by_ref() {
            h?;
        }
        Ok((self.next, self.rest))
    }
}

impl<'a> Iterator for ExtHeaderWalk<'a> {
    type Item = Result<ExtHeader<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || !self.next.is_ipv6_extension() {
            return None;
        }
        if self.count >= MAX_EXT_HEADERS {
            self.done = true;
            return Some(Err(Error::Malformed));
        }
        let kind = self.next;
        let len = match kind {
            IpProtocol::FRAGMENT => Ipv6FragmentHeader::new_checked(self.rest)
                .map(|_| Ipv6FragmentHeader::<&[u8]>::HEADER_LEN),
            IpProtocol::AH => AuthHeader::new_checked(self.rest).map(|h| h.header_len()),
            _ => check_generic(self.rest).map(|_| generic_len(self.rest)),
        };
        let len = match len {
            Ok(l) => l,
            Err(e) => {
                self.done = true;
                return Some(Err(e));
            }
        };
        let bytes = &self.rest[..len];
        let next_header = IpProtocol(bytes[0]);
        let h = ExtHeader {
            kind,
            offset: self.offset,
            bytes,
            next_header,
        };
        if kind == IpProtocol::FRAGMENT
            && Ipv6FragmentHeader::new_unchecked(bytes).frag_offset() != 0
        {
            self.later_fragment = true;
            self.done = true;
        }
        self.rest = &self.rest[len..];
        self.offset += len;
        self.next = next_header;
        self.count += 1;
        Some(Ok(h))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv6Packet<T> {
    fn set_first_word(&mut self, w: u32) {
        set_u32(self.buffer.as_mut(), field::VER_TC_FLOW.start, w);
    }

    /// Sets the version field (6).
    pub fn set_version(&mut self, v: u8) {
        let w = self.first_word() & 0x0fff_ffff | u32::from(v & 0x0f) << 28;
        self.set_first_word(w);
    }

    /// Sets the traffic class.
    pub fn set_traffic_class(&mut self, v: u8) {
        let w = self.first_word() & 0xf00f_ffff | u32::from(v) << 20;
        self.set_first_word(w);
    }

    /// Sets the 20-bit flow label.
    pub fn set_flow_label(&mut self, v: u32) {
        let w = self.first_word() & 0xfff0_0000 | v & 0x000f_ffff;
        self.set_first_word(w);
    }

    /// Sets the payload length.
    pub fn set_payload_len(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::LENGTH.start, v);
    }

    /// Sets the next header.
    pub fn set_next_header(&mut self, v: IpProtocol) {
        set_u8(self.buffer.as_mut(), field::NXT_HDR, v.0);
    }

    /// Sets the hop limit.
    pub fn set_hop_limit(&mut self, v: u8) {
        set_u8(self.buffer.as_mut(), field::HOP_LIMIT, v);
    }

    /// Sets the source address.
    pub fn set_src_addr(&mut self, a: Ipv6Addr) {
        set_bytes(self.buffer.as_mut(), field::SRC_ADDR.start, &a.octets());
    }

    /// Sets the destination address.
    pub fn set_dst_addr(&mut self, a: Ipv6Addr) {
        set_bytes(self.buffer.as_mut(), field::DST_ADDR.start, &a.octets());
    }

    /// Everything after the fixed header, to write into.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        rest_mut(self.buffer.as_mut(), field::PAYLOAD)
    }
}

/// The fields of an IPv6 fixed header, to [`emit`](Ipv6Repr::emit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv6Repr {
    /// The source address.
    pub src_addr: Ipv6Addr,
    /// The destination address.
    pub dst_addr: Ipv6Addr,
    /// The first next header.
    pub next_header: IpProtocol,
    /// The payload length (extension headers included).
    pub payload_len: usize,
    /// The hop limit.
    pub hop_limit: u8,
    /// The traffic class.
    pub traffic_class: u8,
    /// The flow label (20 bits).
    pub flow_label: u32,
}

impl Ipv6Repr {
    /// A header with hop limit 64, traffic class and flow label 0.
    pub fn new(
        src_addr: Ipv6Addr,
        dst_addr: Ipv6Addr,
        next_header: IpProtocol,
        payload_len: usize,
    ) -> Ipv6Repr {
        Ipv6Repr {
            src_addr,
            dst_addr,
            next_header,
            payload_len,
            hop_limit: 64,
            traffic_class: 0,
            flow_label: 0,
        }
    }

    /// The fields of a fixed header.
    pub fn parse<T: AsRef<[u8]>>(p: &Ipv6Packet<T>) -> Ipv6Repr {
        Ipv6Repr {
            src_addr: p.src_addr(),
            dst_addr: p.dst_addr(),
            next_header: p.next_header(),
            payload_len: p.payload_len() as usize,
            hop_limit: p.hop_limit(),
            traffic_class: p.traffic_class(),
            flow_label: p.flow_label(),
        }
    }

    /// The length of the header this emits (40 bytes).
    pub const fn buffer_len(&self) -> usize {
        field::PAYLOAD
    }

    /// Writes the header into `p`. Panics if the payload is longer than 65,535
    /// bytes (a jumbogram needs a hop-by-hop option this does not write).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Ipv6Packet<T>) {
        let len = u16::try_from(self.payload_len).expect("an IPv6 payload of at most 65535 bytes");
        p.set_first_word(0);
        p.set_version(6);
        p.set_traffic_class(self.traffic_class);
        p.set_flow_label(self.flow_label);
        p.set_payload_len(len);
        p.set_next_header(self.next_header);
        p.set_hop_limit(self.hop_limit);
        p.set_src_addr(self.src_addr);
        p.set_dst_addr(self.dst_addr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(next: u8, plen: u16) -> Vec<u8> {
        let mut b = vec![0x60, 0x00, 0x00, 0x00];
        b.extend_from_slice(&plen.to_be_bytes());
        b.extend_from_slice(&[next, 64]);
        b.extend_from_slice(&"fe80::1".parse::<Ipv6Addr>().unwrap().octets());
        b.extend_from_slice(&"ff02::16".parse::<Ipv6Addr>().unwrap().octets());
        b
    }

    #[test]
    fn fixed_header() {
        let mut b = header(58, 4);
        b[1] = 0xa1;
        b[2] = 0x23;
        b[3] = 0x45;
        b.extend_from_slice(&[1, 2, 3, 4, 5]);
        let p = Ipv6Packet::new_checked(&b[..]).unwrap();
        assert_eq!(p.version(), 6);
        assert_eq!(p.traffic_class(), 0x0a);
        assert_eq!(p.flow_label(), 0x12345);
        assert_eq!(p.payload_len(), 4);
        assert_eq!(p.next_header(), IpProtocol::ICMPV6);
        assert_eq!(p.hop_limit(), 64);
        assert_eq!(p.src_addr(), "fe80::1".parse::<Ipv6Addr>().unwrap());
        assert_eq!(p.dst_addr(), "ff02::16".parse::<Ipv6Addr>().unwrap());
        assert_eq!(p.payload(), &[1, 2, 3, 4]);
        assert!(p.check_payload_len().is_ok());
        assert_eq!(
            Ipv6Packet::new_checked(&b[..39]).unwrap_err(),
            Error::Truncated
        );
        let p = Ipv6Packet::new_checked(&b[..42]).unwrap();
        assert_eq!(p.payload(), &[1, 2]);
        assert_eq!(p.check_payload_len().unwrap_err(), Error::Truncated);
    }

    #[test]
    fn chain_walk() {
        // HBH (router alert) -> routing type 0 with one address -> fragment (first)
        // -> destination options -> AH -> UDP
        let mut pl = vec![43, 0, 5, 2, 0, 0, 1, 0]; // HBH: RA, PadN(0)
        pl.extend_from_slice(&[44, 2, 0, 1, 0, 0, 0, 0]); // routing, 24 bytes
        pl.extend_from_slice(&"2001:db8::1".parse::<Ipv6Addr>().unwrap().octets());
        pl.extend_from_slice(&[60, 0, 0x00, 0x01, 0xde, 0xad, 0xbe, 0xef]); // frag, M
        pl.extend_from_slice(&[51, 0, 1, 4, 0, 0, 0, 0]); // dstopts: PadN(4)
        pl.extend_from_slice(&[17, 4, 0, 0, 0, 0, 1, 0, 0, 0, 0, 7]); // AH len 24
        pl.extend_from_slice(&[0; 12]);
        pl.extend_from_slice(&[0x12, 0x34, 0x00, 0x35, 0, 8, 0, 0]); // UDP
        let walk = ExtHeaderWalk::new(IpProtocol::HOP_BY_HOP, &pl);
        let kinds: Vec<_> = walk.clone().map(|h| h.unwrap().kind.0).collect();
        assert_eq!(kinds, vec![0, 43, 44, 60, 51]);
        let (proto, upper) = walk.upper_layer().unwrap();
        assert_eq!(proto, IpProtocol::UDP);
        assert_eq!(upper.len(), 8);

        let hbh = Ipv6OptionsHeader::new_checked(&pl[..]).unwrap();
        let opts: Vec<_> = hbh.option_iter().map(|o| o.unwrap().kind).collect();
        assert_eq!(opts, vec![option::ROUTER_ALERT, option::PADN]);
        let rt = Ipv6RoutingHeader::new_checked(&pl[8..]).unwrap();
        assert_eq!(
            (rt.routing_type(), rt.segments_left(), rt.header_len()),
            (0, 1, 24)
        );
        assert_eq!(rt.addresses().count(), 1);
        let fr = Ipv6FragmentHeader::new_checked(&pl[32..]).unwrap();
        assert_eq!(
            (fr.frag_offset(), fr.more_frags(), fr.ident()),
            (0, true, 0xdeadbeef)
        );
        let ah = AuthHeader::new_checked(&pl[48..]).unwrap();
        assert_eq!((ah.header_len(), ah.spi(), ah.sequence()), (24, 0x100, 7));
    }

    #[test]
    fn chain_errors() {
        // Truncated header.
        let pl = [6u8, 1, 0, 0, 0, 0, 0, 0, 0];
        let mut w = ExtHeaderWalk::new(IpProtocol::DEST_OPTS, &pl);
        assert_eq!(w.next().unwrap().unwrap_err(), Error::Truncated);
        assert!(w.next().is_none());
        // A loop of destination options headers hits the bound.
        let pl = [60u8, 0, 1, 4, 0, 0, 0, 0].repeat(20);
        let w = ExtHeaderWalk::new(IpProtocol::DEST_OPTS, &pl);
        assert_eq!(w.clone().count(), MAX_EXT_HEADERS + 1);
        assert_eq!(w.upper_layer().unwrap_err(), Error::Malformed);
        // A later fragment stops the walk.
        let pl = [6u8, 0, 0x05, 0xa8, 0, 0, 0, 1, 0xff];
        let mut w = ExtHeaderWalk::new(IpProtocol::FRAGMENT, &pl);
        assert!(w.next().unwrap().is_ok());
        assert!(w.next().is_none());
        assert!(w.is_later_fragment());
        assert_eq!(w.next_header(), IpProtocol::TCP);
        assert_eq!(w.rest(), &[0xff]);
        // AH with a bad length.
        assert_eq!(
            AuthHeader::new_checked(&[6u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0][..]).unwrap_err(),
            Error::Malformed
        );
    }
}

#[cfg(test)]
mod emit_tests {
    use super::*;

    #[test]
    fn emit_writes_what_the_view_reads() {
        let repr = Ipv6Repr {
            traffic_class: 0xa5,
            flow_label: 0x12345,
            hop_limit: 255,
            ..Ipv6Repr::new(
                "fd00::1".parse().unwrap(),
                "fd00::2".parse().unwrap(),
                IpProtocol(17),
                4,
            )
        };
        let mut buf = vec![0u8; repr.buffer_len() + 4];
        let mut p = Ipv6Packet::new_unchecked(&mut buf[..]);
        repr.emit(&mut p);
        p.payload_mut().copy_from_slice(b"abcd");
        let mut want = vec![0x6a, 0x51, 0x23, 0x45, 0, 4, 17, 255, 0xfd];
        want.extend([0; 14]);
        want.extend([1, 0xfd]);
        want.extend([0; 14]);
        want.extend([2]);
        want.extend(b"abcd");
        assert_eq!(buf, want);
        let p = Ipv6Packet::new_checked(&buf[..]).unwrap();
        assert_eq!(Ipv6Repr::parse(&p), repr);
        assert_eq!(p.payload(), b"abcd");
    }
}
