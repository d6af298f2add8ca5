//! IGMP (RFC 1112, RFC 2236, RFC 9776): queries, reports and leaves.
//!
//! Versions 1 and 2 use one 8-byte message; an IGMPv3 query is at least 12 bytes and
//! an IGMPv3 report carries a count of group records at offset 6.

use crate::bytes::{array, u16_at, u8_at, Field};
use crate::error::{Error, Result};
use std::net::Ipv4Addr;

/// IGMP message types.
pub mod msg_type {
    /// Membership query, of every version (the length tells IGMPv3 apart).
    pub const MEMBERSHIP_QUERY: u8 = 0x11;
    /// IGMPv1 membership report (RFC 1112).
    pub const V1_MEMBERSHIP_REPORT: u8 = 0x12;
    /// DVMRP routing message.
    pub const DVMRP: u8 = 0x13;
    /// PIM version 1 message.
    pub const PIM_V1: u8 = 0x14;
    /// IGMPv2 membership report (RFC 2236).
    pub const V2_MEMBERSHIP_REPORT: u8 = 0x16;
    /// IGMPv2 leave group (RFC 2236).
    pub const LEAVE_GROUP: u8 = 0x17;
    /// Multicast traceroute response.
    pub const MTRACE_RESP: u8 = 0x1e;
    /// Multicast traceroute query or request.
    pub const MTRACE: u8 = 0x1f;
    /// IGMPv3 membership report (RFC 3376).
    pub const V3_MEMBERSHIP_REPORT: u8 = 0x22;
}

mod field {
    use super::Field;
    pub(crate) const TYPE: usize = 0;
    pub(crate) const MAX_RESP: usize = 1;
    pub(crate) const CHECKSUM: Field = 2..4;
    pub(crate) const GROUP: Field = 4..8;
    pub(crate) const V3_NUM_RECORDS: Field = 6..8;
    pub(crate) const V3_NUM_SOURCES: Field = 10..12;
}

/// A read view of an IGMP message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IgmpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> IgmpPacket<T> {
    /// Length of a version 1/2 message.
    pub const HEADER_LEN: usize = 8;

    /// Wraps a buffer without checking it.
    pub fn new_unchecked(buffer: T) -> Self {
        IgmpPacket { buffer }
    }

    /// Wraps a buffer after checking it holds 8 bytes.
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

    /// The max response time (or code, for IGMPv3), in tenths of a second.
    pub fn max_resp_code(&self) -> u8 {
        u8_at(self.buffer.as_ref(), field::MAX_RESP)
    }

    /// The checksum field.
    pub fn checksum(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::CHECKSUM.start)
    }

    /// The group address (queries, v1/v2 reports, leaves).
    pub fn group_addr(&self) -> Ipv4Addr {
        Ipv4Addr::from(array::<4>(self.buffer.as_ref(), field::GROUP.start))
    }

    /// The number of group records of an IGMPv3 report.
    pub fn v3_report_records(&self) -> u16 {
        u16_at(self.buffer.as_ref(), field::V3_NUM_RECORDS.start)
    }

    /// The number of sources of an IGMPv3 query, when the 12-byte query is present.
    pub fn v3_query_sources(&self) -> Option<u16> {
        let b = self.buffer.as_ref();
        (b.len() >= 12).then(|| u16_at(b, field::V3_NUM_SOURCES.start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_report() {
        let b = [0x16, 0, 0xfa, 0x04, 239, 255, 255, 250];
        let p = IgmpPacket::new_checked(&b[..]).unwrap();
        assert_eq!(p.msg_type(), msg_type::V2_MEMBERSHIP_REPORT);
        assert_eq!(p.group_addr(), Ipv4Addr::new(239, 255, 255, 250));
        assert_eq!(p.checksum(), 0xfa04);
        assert_eq!(p.v3_query_sources(), None);
        assert_eq!(
            IgmpPacket::new_checked(&b[..7]).unwrap_err(),
            Error::Truncated
        );
    }

    #[test]
    fn v3() {
        let q = [0x11, 100, 0, 0, 0, 0, 0, 0, 2, 125, 0, 0];
        assert_eq!(
            IgmpPacket::new_checked(&q[..]).unwrap().v3_query_sources(),
            Some(0)
        );
        let r = [0x22, 0, 0, 0, 0, 0, 0, 3];
        assert_eq!(
            IgmpPacket::new_checked(&r[..]).unwrap().v3_report_records(),
            3
        );
    }
}
