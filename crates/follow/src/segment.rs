//! Finds the transport segment in a captured frame: addresses, ports, TCP flags and
//! payload. Followers need only this much of a packet, for every link type netsift
//! filters.
//!
//! Recognised: Ethernet (with any number of 802.1Q/802.1ad tags), Linux cooked v1 and
//! v2, BSD loopback (NULL/LOOP, either byte order), raw IP, IPv4 (not a later
//! fragment) and IPv6 (skipping hop-by-hop, routing, destination-options and a first
//! fragment header), TCP and UDP. Anything else is `None`. Every read is checked, so
//! any bytes are safe to pass.

use netsift_wire::LinkType;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The transport part of one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment<'a> {
    /// The IP source address.
    pub src: IpAddr,
    /// The IP destination address.
    pub dst: IpAddr,
    /// 6 (TCP) or 17 (UDP).
    pub proto: u8,
    /// The source port.
    pub sport: u16,
    /// The destination port.
    pub dport: u16,
    /// TCP flags (0 for UDP).
    pub flags: u8,
    /// The captured part of the payload.
    pub payload: &'a [u8],
}

/// The TCP flag that closes the sender's half of a connection.
pub const FIN: u8 = 0x01;
/// The TCP flag that opens a connection.
pub const SYN: u8 = 0x02;
/// The TCP flag that aborts a connection.
pub const RST: u8 = 0x04;

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

/// The network-layer start and its kind (4 or 6) for a frame of `linktype`.
fn network(linktype: LinkType, f: &[u8]) -> Option<(usize, u8)> {
    let by_type = |t: u16, at: usize| match t {
        0x0800 => Some((at, 4)),
        0x86dd => Some((at, 6)),
        _ => None,
    };
    match linktype {
        LinkType::EN10MB => {
            let mut at = 12;
            let mut t = be16(f, at)?;
            // 802.1Q, 802.1ad and the old QinQ type, as libpcap's `vlan` knows them.
            while matches!(t, 0x8100 | 0x88a8 | 0x9100) {
                at += 4;
                t = be16(f, at)?;
            }
            by_type(t, at + 2)
        }
        LinkType::LINUX_SLL => by_type(be16(f, 14)?, 16),
        LinkType::LINUX_SLL2 => by_type(be16(f, 0)?, 20),
        LinkType::NULL | LinkType::LOOP => {
            let w = f.get(0..4)?;
            let af = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            let af = if af > 0xffff { af.swap_bytes() } else { af };
            match af {
                2 => Some((4, 4)),
                // The BSDs disagree on AF_INET6: 24, 28 or 30.
                24 | 28 | 30 => Some((4, 6)),
                _ => None,
            }
        }
        LinkType::RAW => Some((0, *f.first()? >> 4)),
        LinkType::IPV4 => Some((0, 4)),
        LinkType::IPV6 => Some((0, 6)),
        _ => None,
    }
}

/// The TCP or UDP segment of an Ethernet `frame` whose outermost VLAN tag (bytes
/// 12 to 15) the kernel took out and a capture ring put back, read as libpcap's
/// kernel filter reads the frame: without that tag, so IP must follow it
/// directly (a second tag is one no address or port test reads past).
pub fn segment_tag_out(frame: &[u8]) -> Option<Segment<'_>> {
    let inner = frame.get(4..)?;
    if matches!(be16(inner, 12)?, 0x8100 | 0x88a8 | 0x9100) {
        return None;
    }
    segment(LinkType::EN10MB, inner)
}

/// The TCP or UDP segment of `frame`, if it has one.
pub fn segment(linktype: LinkType, frame: &[u8]) -> Option<Segment<'_>> {
    let (at, version) = network(linktype, frame)?;
    let ip = frame.get(at..)?;
    // Ethernet pads short frames; the IP length says where the packet ends.
    let ip_len = match version {
        4 => be16(ip, 2)? as usize,
        _ => 40 + be16(ip, 4)? as usize,
    };
    let ip = &ip[..ip.len().min(ip_len)];
    let (src, dst, mut proto, mut l4) = match version {
        4 => {
            let ihl = 4 * (*ip.first()? & 0x0f) as usize;
            if ihl < 20 || be16(ip, 6)? & 0x1fff != 0 {
                return None;
            }
            let a: [u8; 4] = ip.get(12..16)?.try_into().ok()?;
            let b: [u8; 4] = ip.get(16..20)?.try_into().ok()?;
            (
                IpAddr::V4(Ipv4Addr::from(a)),
                IpAddr::V4(Ipv4Addr::from(b)),
                *ip.get(9)?,
                ihl,
            )
        }
        6 => {
            let a: [u8; 16] = ip.get(8..24)?.try_into().ok()?;
            let b: [u8; 16] = ip.get(24..40)?.try_into().ok()?;
            (
                IpAddr::V6(Ipv6Addr::from(a)),
                IpAddr::V6(Ipv6Addr::from(b)),
                *ip.get(6)?,
                40,
            )
        }
        _ => return None,
    };
    if version == 6 {
        // A bounded walk: at most 8 extension headers.
        for _ in 0..8 {
            match proto {
                0 | 43 | 60 => {
                    let next = *ip.get(l4)?;
                    l4 += 8 * (*ip.get(l4 + 1)? as usize + 1);
                    proto = next;
                }
                44 => {
                    // Only a first fragment carries the ports.
                    if be16(ip, l4 + 2)? & 0xfff8 != 0 {
                        return None;
                    }
                    proto = *ip.get(l4)?;
                    l4 += 8;
                }
                _ => break,
            }
        }
    }
    let t = ip.get(l4..)?;
    let (sport, dport) = (be16(t, 0)?, be16(t, 2)?);
    let (flags, payload) = match proto {
        6 => {
            let off = 4 * (*t.get(12)? >> 4) as usize;
            (*t.get(13)?, t.get(off.max(20)..).unwrap_or(&[]))
        }
        17 => (0, t.get(8..).unwrap_or(&[])),
        _ => return None,
    };
    Some(Segment {
        src,
        dst,
        proto,
        sport,
        dport,
        flags,
        payload,
    })
}
