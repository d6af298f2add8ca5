//! TCP segments (RFC 9293): the fixed header, flags and options.
//!
//! `new_checked` validates the 20-byte fixed header and a data offset of at least 5.
//! Options may be cut by a capture's snapshot length, so a buffer ending inside the
//! options is accepted: [`TcpPacket::options`] and [`TcpPacket::payload`] are clamped
//! to the buffer and [`TcpPacket::check_header_len`] tells whether the whole header
//! was captured.

use crate::bytes::{
    clamp, clamp_mut, rest, rest_mut, set_bytes, set_u16, set_u32, set_u8, u16_at, u32_at, u8_at,
    Field,
};
use crate::checksum;
use crate::error::{Error, Result};
use std::fmt;
use std::net::IpAddr;

mod field {
    use super::Field;
    pub(crate) const SRC_PORT: Field = 0..2;
    pub(crate) const DST_PORT: Field = 2..4;
    pub(crate) const SEQ_NUM: Field = 4..8;
    pub(crate) const ACK_NUM: Field = 8..12;
    pub(crate) const DATA_OFF: usize = 12;
    pub(crate) const FLAGS: usize = 13;
    pub(crate) const WIN_SIZE: Field = 14..16;
    pub(crate) const CHECKSUM: Field = 16..18;
    pub(crate) const URGENT: Field = 18..20;
    pub(crate) const OPTIONS: usize = 20;
}

/// The eight TCP flag bits (byte 13 of the header).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    /// FIN: the sender has no more data.
    pub const FIN: u8 = 0x01;
    /// SYN: synchronize sequence numbers (opening a connection).
    pub const SYN: u8 = 0x02;
    /// RST: reset the connection.
    pub const RST: u8 = 0x04;
    /// PSH: push the data to the application.
    pub const PSH: u8 = 0x08;
    /// ACK: the acknowledgment number is significant.
    pub const ACK: u8 = 0x10;
    /// URG: the urgent pointer is significant.
    pub const URG: u8 = 0x20;
    /// ECE: ECN echo (RFC 3168).
    pub const ECE: u8 = 0x40;
    /// CWR: congestion window reduced (RFC 3168).
    pub const CWR: u8 = 0x80;

    /// Whether all bits of `mask` are set.
    pub fn contains(self, mask: u8) -> bool {
        self.0 & mask == mask
    }

    /// Whether any bit of `mask` is set.
    pub fn intersects(self, mask: u8) -> bool {
        self.0 & mask != 0
    }
}

impl fmt::Display for TcpFlags {
    /// tcpdump's rendering: `S`, `F`, `R`, `P`, `.` (ACK), `U`, `E`, `W` in that
    /// order, or `none`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const ORDER: [(u8, char); 8] = [
            (TcpFlags::FIN, 'F'),
            (TcpFlags::SYN, 'S'),
            (TcpFlags::RST, 'R'),
            (TcpFlags::PSH, 'P'),
            (TcpFlags::ACK, '.'),
            (TcpFlags::URG, 'U'),
            (TcpFlags::ECE, 'E'),
            (TcpFlags::CWR, 'W'),
        ];
        if self.0 == 0 {
            return f.write_str("none");
        }
        for (bit, c) in ORDER {
            if self.0 & bit != 0 {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

/// A read view of a TCP segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> TcpPacket<T> {
    /// Length of the header without options.
    pub const MIN_HEADER_LEN: usize = field::OPTIONS;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        TcpPacket { buffer }
    }

    /// Wraps a buffer after checking it holds the fixed header and that the data
    /// offset is at least 5.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Checks the fixed header is present and the data offset sane.
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < Self::MIN_HEADER_LEN {
            Err(Error::Truncated)
        } else if self.header_len() < Self::MIN_HEADER_LEN {
            Err(Error::Malformed)
        } else {
            Ok(())
        }
    }

    /// Checks the whole header, options included, is present.
    pub fn check_header_len(&self) -> Result<()> {
        self.check_len()?;
        if self.buffer.as_ref().len() < self.header_len() {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }

    /// Returns the underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The source port.
    pub fn src_port(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::SRC_PORT.start)
    }

    /// The destination port.
    pub fn dst_port(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::DST_PORT.start)
    }

    /// The sequence number.
    pub fn seq_number(&self) -> u32 {
        u32_at(self.buffer.as_ref(), field::SEQ_NUM.start)
    }

    /// The acknowledgment number.
    pub fn ack_number(&self) -> u32 {
        u32_at(self.buffer.as_ref(), field::ACK_NUM.start)
    }

    /// The header length in bytes (data offset * 4).
    pub fn header_len(&self) -> usize {
        (u8_at(self.buffer.as_ref(), field::DATA_OFF) >> 4) as usize * 4
    }

    /// The flags.
    pub fn flags(&self) -> TcpFlags {
        TcpFlags(u8_at(self.buffer.as_ref(), field::FLAGS))
    }

    /// The accurate-ECN / nonce bit (low bit of byte 12).
    pub fn ae(&self) -> bool {
        u8_at(self.buffer.as_ref(), field::DATA_OFF) & 1 != 0
    }

    /// The window.
    pub fn window_len(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::WIN_SIZE.start)
    }

    /// The checksum field.
    pub fn checksum(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::CHECKSUM.start)
    }

    /// The urgent pointer.
    pub fn urgent_at(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::URGENT.start)
    }

    /// The options, clamped to the buffer.
    pub fn options(&self) -> &[u8] {
        clamp(self.buffer.as_ref(), field::OPTIONS, self.header_len())
    }

    /// An iterator over the options.
    pub fn option_iter(&self) -> TcpOptions<'_> {
        TcpOptions::new(self.options())
    }

    /// The payload (empty when the header was not wholly captured).
    pub fn payload(&self) -> &[u8] {
        let b = self.buffer.as_ref();
        if b.len() < self.header_len() {
            &[]
        } else {
            rest(b, self.header_len())
        }
    }
}

/// TCP option kinds.
pub mod option {
    /// End of the option list.
    pub const EOL: u8 = 0;
    /// No operation: one byte of padding between options.
    pub const NOP: u8 = 1;
    /// Maximum segment size.
    pub const MSS: u8 = 2;
    /// Window scale (RFC 7323).
    pub const WSCALE: u8 = 3;
    /// Selective acknowledgment permitted (RFC 2018).
    pub const SACK_PERMITTED: u8 = 4;
    /// Selective acknowledgment blocks (RFC 2018).
    pub const SACK: u8 = 5;
    /// Echo (RFC 1072, obsolete).
    pub const ECHO: u8 = 6;
    /// Echo reply (RFC 1072, obsolete).
    pub const ECHO_REPLY: u8 = 7;
    /// Timestamps (RFC 7323).
    pub const TIMESTAMP: u8 = 8;
    /// T/TCP connection count (RFC 1644, obsolete).
    pub const CC: u8 = 11;
    /// T/TCP CC.NEW (RFC 1644, obsolete).
    pub const CC_NEW: u8 = 12;
    /// T/TCP CC.ECHO (RFC 1644, obsolete).
    pub const CC_ECHO: u8 = 13;
    /// MD5 signature (RFC 2385).
    pub const MD5: u8 = 19;
    /// SCPS capabilities.
    pub const SCPS: u8 = 20;
    /// User timeout (RFC 5482).
    pub const UTO: u8 = 28;
    /// TCP authentication option (RFC 5925).
    pub const TCP_AO: u8 = 29;
    /// Multipath TCP (RFC 8684).
    pub const MPTCP: u8 = 30;
    /// TCP Fast Open cookie (RFC 7413).
    pub const FASTOPEN: u8 = 34;
    /// Experimental option (RFC 4727).
    pub const EXPERIMENT1: u8 = 253;
    /// Experimental option (RFC 4727).
    pub const EXPERIMENT2: u8 = 254;
}

/// One decoded TCP option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpOption<'a> {
    /// End of option list.
    EndOfList,
    /// No operation (padding).
    NoOp,
    /// Maximum segment size.
    Mss(u16),
    /// Window scale shift.
    WindowScale(u8),
    /// SACK permitted.
    SackPermitted,
    /// SACK blocks, as raw (left, right) pairs of sequence numbers.
    Sack(&'a [u8]),
    /// Timestamps.
    Timestamp {
        /// TSval.
        value: u32,
        /// TSecr.
        echo: u32,
    },
    /// Any other option, or a known one with an unexpected length.
    Unknown {
        /// The option kind.
        kind: u8,
        /// The bytes after kind and length.
        data: &'a [u8],
    },
}

/// Iterator over TCP options. Ends after End-of-List or at the end of the area;
/// yields `Err(Malformed)` and stops on a length byte below 2 or overrunning the
/// area (a length byte cut by the buffer gives `Err(Truncated)`).
#[derive(Clone, Debug)]
pub struct TcpOptions<'a> {
    rest: &'a [u8],
    done: bool,
}

impl<'a> TcpOptions<'a> {
    /// Walks the options in `options`.
    pub fn new(options: &'a [u8]) -> Self {
        TcpOptions {
            rest: options,
            done: false,
        }
    }
}

impl<'a> Iterator for TcpOptions<'a> {
    type Item = Result<TcpOption<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let (&kind, after) = self.rest.split_first()?;
        match kind {
            option::EOL => {
                self.done = true;
                return Some(Ok(TcpOption::EndOfList));
            }
            option::NOP => {
                self.rest = after;
                return Some(Ok(TcpOption::NoOp));
            }
            _ => {}
        }
        let len = match after.first() {
            Some(&l) => l as usize,
            None => {
                self.done = true;
                return Some(Err(Error::Truncated));
            }
        };
        if len < 2 || len > self.rest.len() {
            self.done = true;
            return Some(Err(Error::Malformed));
        }
        let data = &self.rest[2..len];
        self.rest = &self.rest[len..];
        let opt = match (kind, data.len()) {
            (option::MSS, 2) => TcpOption::Mss(u16_at(data, 0)),
            (option::WSCALE, 1) => TcpOption::WindowScale(data[0]),
            (option::SACK_PERMITTED, 0) => TcpOption::SackPermitted,
            (option::SACK, n) if n % 8 == 0 => TcpOption::Sack(data),
            (option::TIMESTAMP, 8) => TcpOption::Timestamp {
                value: u32_at(data, 0),
                echo: u32_at(data, 4),
            },
            _ => TcpOption::Unknown { kind, data },
        };
        Some(Ok(opt))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> TcpPacket<T> {
    /// Sets the source port.
    pub fn set_src_port(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::SRC_PORT.start, v);
    }

    /// Sets the destination port.
    pub fn set_dst_port(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::DST_PORT.start, v);
    }

    /// Sets the sequence number.
    pub fn set_seq_number(&mut self, v: u32) {
        set_u32(self.buffer.as_mut(), field::SEQ_NUM.start, v);
    }

    /// Sets the acknowledgment number.
    pub fn set_ack_number(&mut self, v: u32) {
        set_u32(self.buffer.as_mut(), field::ACK_NUM.start, v);
    }

    /// Sets the header length in bytes (a multiple of 4, 20 to 60), keeping the
    /// AE bit.
    pub fn set_header_len(&mut self, len: usize) {
        let b = self.buffer.as_mut();
        let off = ((len / 4) as u8) << 4 | u8_at(b, field::DATA_OFF) & 0x0f;
        set_u8(b, field::DATA_OFF, off);
    }

    /// Sets the flags byte ([`TcpFlags`] constants or'ed together).
    pub fn set_flags(&mut self, v: u8) {
        set_u8(self.buffer.as_mut(), field::FLAGS, v);
    }

    /// Sets the window.
    pub fn set_window_len(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::WIN_SIZE.start, v);
    }

    /// Sets the checksum field.
    pub fn set_checksum(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::CHECKSUM.start, v);
    }

    /// Sets the urgent pointer.
    pub fn set_urgent_at(&mut self, v: u16) {
        set_u16(self.buffer.as_mut(), field::URGENT.start, v);
    }

    /// The options, to write into (as long as the header length says).
    pub fn options_mut(&mut self) -> &mut [u8] {
        let len = self.header_len();
        clamp_mut(self.buffer.as_mut(), field::OPTIONS, len)
    }

    /// The payload, to write into.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let len = self.header_len();
        rest_mut(self.buffer.as_mut(), len)
    }

    /// Computes the checksum of the whole buffer (header and payload) with the
    /// pseudo-header of `src` and `dst`, and writes it.
    pub fn fill_checksum(&mut self, src: &IpAddr, dst: &IpAddr) {
        self.set_checksum(0);
        let sum = pseudo_checksum(src, dst, 6, self.buffer.as_ref());
        self.set_checksum(sum);
    }
}

/// The transport checksum of `segment` between `src` and `dst` (both of one
/// family), protocol `proto`.
pub(crate) fn pseudo_checksum(src: &IpAddr, dst: &IpAddr, proto: u8, segment: &[u8]) -> u16 {
    match (src, dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => {
            checksum::pseudo(&s.octets(), &d.octets(), proto, segment)
        }
        (IpAddr::V6(s), IpAddr::V6(d)) => {
            checksum::pseudo(&s.octets(), &d.octets(), proto, segment)
        }
        _ => panic!("a checksum between {src} and {dst}: addresses of two families"),
    }
}

/// A TCP segment, header and payload, to [`emit`](TcpRepr::emit) with its
/// checksum filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpRepr<'a> {
    /// The source port.
    pub src_port: u16,
    /// The destination port.
    pub dst_port: u16,
    /// The sequence number.
    pub seq_number: u32,
    /// The acknowledgment number (written even without ACK).
    pub ack_number: u32,
    /// The flags ([`TcpFlags`] constants or'ed together).
    pub flags: u8,
    /// The window.
    pub window_len: u16,
    /// The urgent pointer.
    pub urgent_at: u16,
    /// The options, a multiple of 4 bytes and at most 40.
    pub options: &'a [u8],
    /// The payload.
    pub payload: &'a [u8],
}

impl<'a> TcpRepr<'a> {
    /// A segment from `src_port` to `dst_port` with `flags`, window 65535 and
    /// everything else zero or empty.
    pub fn new(src_port: u16, dst_port: u16, flags: u8) -> TcpRepr<'a> {
        TcpRepr {
            src_port,
            dst_port,
            seq_number: 0,
            ack_number: 0,
            flags,
            window_len: 65535,
            urgent_at: 0,
            options: &[],
            payload: &[],
        }
    }

    /// The fields of a segment (its options and payload borrowed from it).
    pub fn parse(p: &'a TcpPacket<&'a [u8]>) -> TcpRepr<'a> {
        TcpRepr {
            src_port: p.src_port(),
            dst_port: p.dst_port(),
            seq_number: p.seq_number(),
            ack_number: p.ack_number(),
            flags: p.flags().0,
            window_len: p.window_len(),
            urgent_at: p.urgent_at(),
            options: p.options(),
            payload: p.payload(),
        }
    }

    /// The length of the header.
    pub fn header_len(&self) -> usize {
        field::OPTIONS + self.options.len()
    }

    /// The length of the segment this emits: header, options and payload.
    pub fn buffer_len(&self) -> usize {
        self.header_len() + self.payload.len()
    }

    /// Writes the segment into `p` and fills its checksum for `src` to `dst`.
    /// Panics if the options are not a multiple of 4 bytes or longer than 40.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(
        &self,
        p: &mut TcpPacket<T>,
        src: &IpAddr,
        dst: &IpAddr,
    ) {
        assert!(
            self.options.len().is_multiple_of(4) && self.options.len() <= 40,
            "TCP options of {} bytes",
            self.options.len()
        );
        p.set_src_port(self.src_port);
        p.set_dst_port(self.dst_port);
        p.set_seq_number(self.seq_number);
        p.set_ack_number(self.ack_number);
        set_u8(p.buffer.as_mut(), field::DATA_OFF, 0);
        p.set_header_len(self.header_len());
        p.set_flags(self.flags);
        p.set_window_len(self.window_len);
        p.set_urgent_at(self.urgent_at);
        p.options_mut().copy_from_slice(self.options);
        set_bytes(p.payload_mut(), 0, self.payload);
        p.fill_checksum(src, dst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn syn() -> Vec<u8> {
        vec![
            0xcc, 0xc6, 0x00, 0x50, // ports 52422 -> 80
            0x00, 0x00, 0x00, 0x01, // seq 1
            0x00, 0x00, 0x00, 0x00, // ack 0
            0xb0, 0x02, 0xff, 0xff, // off 11, SYN, win 65535
            0x12, 0x34, 0x00, 0x00, // cksum, urg
            0x02, 0x04, 0x05, 0xb4, // mss 1460
            0x04, 0x02, 0x01, 0x03, 0x03, 0x07, // sackOK, nop, wscale 7
            0x08, 0x0a, 0, 0, 0, 1, 0, 0, 0, 0, // TS 1 0
            0x00, 0x00, 0x00, 0x00, // eol, pad
        ]
    }

    #[test]
    fn fields_and_options() {
        let b = syn();
        let p = TcpPacket::new_checked(&b[..]).unwrap();
        assert_eq!((p.src_port(), p.dst_port()), (52422, 80));
        assert_eq!((p.seq_number(), p.ack_number()), (1, 0));
        assert_eq!(p.header_len(), 44);
        assert!(p.flags().contains(TcpFlags::SYN));
        assert_eq!(p.flags().to_string(), "S");
        assert_eq!(p.window_len(), 65535);
        assert_eq!(p.checksum(), 0x1234);
        let o: Vec<_> = p.option_iter().map(|o| o.unwrap()).collect();
        assert_eq!(
            o,
            vec![
                TcpOption::Mss(1460),
                TcpOption::SackPermitted,
                TcpOption::NoOp,
                TcpOption::WindowScale(7),
                TcpOption::Timestamp { value: 1, echo: 0 },
                TcpOption::EndOfList,
            ]
        );
        assert_eq!(p.payload(), &[] as &[u8]);
        assert!(p.check_header_len().is_ok());
    }

    #[test]
    fn rejects_short_and_malformed() {
        let b = syn();
        assert_eq!(
            TcpPacket::new_checked(&b[..19]).unwrap_err(),
            Error::Truncated
        );
        let p = TcpPacket::new_checked(&b[..24]).unwrap();
        assert_eq!(p.check_header_len().unwrap_err(), Error::Truncated);
        assert_eq!(p.options(), &[0x02, 0x04, 0x05, 0xb4]);
        assert_eq!(p.payload(), &[] as &[u8]);
        let mut bad = b.clone();
        bad[12] = 0x40;
        assert_eq!(
            TcpPacket::new_checked(&bad[..]).unwrap_err(),
            Error::Malformed
        );
        let v: Vec<_> = TcpOptions::new(&[2, 9, 0]).collect();
        assert_eq!(v, vec![Err(Error::Malformed)]);
        let v: Vec<_> = TcpOptions::new(&[1, 2]).collect();
        assert_eq!(v, vec![Ok(TcpOption::NoOp), Err(Error::Truncated)]);
    }

    #[test]
    fn flag_rendering() {
        assert_eq!(TcpFlags(0x18).to_string(), "P.");
        assert_eq!(TcpFlags(0x11).to_string(), "F.");
        assert_eq!(TcpFlags(0x12).to_string(), "S.");
        assert_eq!(TcpFlags(0xc2).to_string(), "SEW");
        assert_eq!(TcpFlags(0).to_string(), "none");
    }
}

#[cfg(test)]
mod emit_tests {
    use super::*;
    use std::net::Ipv4Addr;

    #[test]
    fn emit_fills_a_checksum_that_verifies_and_the_view_reads_it_back() {
        let (src, dst) = (
            IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
            IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
        );
        let repr = TcpRepr {
            seq_number: 1,
            ack_number: 2,
            window_len: 502,
            options: &[2, 4, 5, 180],
            payload: b"USER x\r\n",
            ..TcpRepr::new(40000, 21, TcpFlags::PSH | TcpFlags::ACK)
        };
        let mut buf = vec![0u8; repr.buffer_len()];
        repr.emit(&mut TcpPacket::new_unchecked(&mut buf[..]), &src, &dst);
        let want: [u8; 24] = [
            0x9c, 0x40, 0, 21, 0, 0, 0, 1, 0, 0, 0, 2, 0x60, 0x18, 0x01, 0xf6, 0, 0, 0, 0, 2, 4, 5,
            180,
        ];
        // Everything but the checksum is as written; the checksum verifies.
        assert_eq!(buf[..16], want[..16]);
        assert_eq!(buf[18..24], want[18..]);
        assert_eq!(&buf[24..], b"USER x\r\n");
        assert_eq!(pseudo_checksum(&src, &dst, 6, &buf), 0);
        let p = TcpPacket::new_checked(&buf[..]).unwrap();
        assert_eq!(TcpRepr::parse(&p), repr);
    }
}
