//! Building Ethernet II frames carrying IPv4 with TCP, UDP or ICMP echo, with
//! correct IPv4 header, TCP, UDP and ICMP checksums: the workloads' vocabulary
//! (hosts, IPv4 fields, segments) over `netsift_testkit::frames`, which emits
//! every header with `netsift_wire`.
//!
//! The main types are [`Host`] (a MAC and IPv4 address), [`TcpSegment`] (every
//! field of one TCP segment) and the builders [`tcp_frame`], [`udp_frame`] and
//! [`icmp_echo_frame`]. Invariants of every frame built here:
//!
//! - the IPv4 header is 20 bytes (no options), `total_len` covers exactly the IP
//!   packet, and its checksum verifies;
//! - the transport checksum is computed over the RFC 793/768 pseudo-header and the
//!   whole segment, so it verifies on the untruncated frame;
//! - frames shorter than [`MIN_FRAME`] are zero-padded to 60 bytes, as they are on
//!   the wire where a passive monitor would see them (the IPv4 length tells the
//!   padding apart from the payload).

use netsift_testkit::frames::Frame;
use netsift_wire::checksum;
use std::net::Ipv4Addr;

pub use netsift_wire::tcp::TcpFlags;

/// Ethernet II header length.
pub const ETH_HDR: usize = 14;
/// IPv4 header length (no options).
pub const IPV4_HDR: usize = 20;
/// TCP header length without options.
pub const TCP_HDR: usize = 20;
/// UDP header length.
pub const UDP_HDR: usize = 8;
/// ICMP echo header length.
pub const ICMP_ECHO_HDR: usize = 8;
/// Minimum Ethernet frame without the FCS.
pub const MIN_FRAME: usize = netsift_testkit::frames::MIN_FRAME;
/// The TCP maximum segment size on Ethernet without TCP options (1500 - 20 - 20).
pub const MSS: usize = 1460;

const PROTO_ICMP: u8 = 1;

/// One end of a conversation at layers 2 and 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Host {
    /// Ethernet address.
    pub mac: [u8; 6],
    /// IPv4 address.
    pub ip: Ipv4Addr,
}

impl Host {
    /// A host whose MAC is the locally administered `02:00:a:b:c:d` for the IPv4
    /// address `a.b.c.d`, so every address has its own stable MAC.
    pub fn from_ip(ip: Ipv4Addr) -> Self {
        let o = ip.octets();
        Host {
            mac: [0x02, 0x00, o[0], o[1], o[2], o[3]],
            ip,
        }
    }
}

/// The IPv4 fields that vary between packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpFields {
    /// Identification.
    pub ident: u16,
    /// Time to live.
    pub ttl: u8,
    /// Whether to set Don't Fragment (TCP stacks do; most UDP and ICMP senders
    /// do not).
    pub dont_frag: bool,
}

/// Every field of one TCP segment in an Ethernet frame.
#[derive(Clone, Copy, Debug)]
pub struct TcpSegment<'a> {
    /// Sender.
    pub src: Host,
    /// Receiver.
    pub dst: Host,
    /// Source port.
    pub sport: u16,
    /// Destination port.
    pub dport: u16,
    /// IPv4 fields.
    pub ip: IpFields,
    /// Sequence number.
    pub seq: u32,
    /// Acknowledgment number (written even without ACK, as stacks write 0 then).
    pub ack: u32,
    /// Flag bits ([`TcpFlags`] constants).
    pub flags: u8,
    /// Window field (already scaled down if window scaling is in use).
    pub window: u16,
    /// Options, a multiple of 4 bytes long.
    pub options: &'a [u8],
    /// Payload.
    pub payload: &'a [u8],
}

/// The Internet checksum (RFC 1071) of `data`.
pub fn internet_checksum(data: &[u8]) -> u16 {
    checksum::internet(data)
}

/// The TCP/UDP checksum of `segment` (header with a zero checksum field, plus
/// payload) between `src` and `dst` for IP protocol `proto`.
pub fn transport_checksum(src: Ipv4Addr, dst: Ipv4Addr, proto: u8, segment: &[u8]) -> u16 {
    checksum::pseudo(&src.octets(), &dst.octets(), proto, segment)
}

/// An Ethernet/IPv4 frame from `src` to `dst` with `ip`'s fields, padded to
/// [`MIN_FRAME`], its transport still to choose.
fn ipv4(src: Host, dst: Host, ip: IpFields) -> Frame {
    Frame::ethernet(src.mac, dst.mac)
        .ipv4(src.ip, dst.ip)
        .with_ipv4(|r| {
            r.ident = ip.ident;
            r.ttl = ip.ttl;
            r.dont_frag = ip.dont_frag;
        })
        .padded()
}

/// Builds the Ethernet frame of a TCP segment.
///
/// Panics if the options are not a multiple of 4 bytes or longer than 40, or the
/// segment does not fit in an IPv4 packet: both are bugs in the caller.
pub fn tcp_frame(s: &TcpSegment<'_>) -> Vec<u8> {
    ipv4(s.src, s.dst, s.ip)
        .tcp(s.sport, s.dport, s.flags)
        .with_tcp(|t| {
            t.seq = s.seq;
            t.ack = s.ack;
            t.window = s.window;
            t.options = s.options.to_vec();
        })
        .payload(s.payload)
        .build()
}

/// Builds the Ethernet frame of a UDP datagram.
pub fn udp_frame(
    src: Host,
    dst: Host,
    sport: u16,
    dport: u16,
    ip: IpFields,
    payload: &[u8],
) -> Vec<u8> {
    ipv4(src, dst, ip)
        .udp(sport, dport)
        .payload(payload)
        .build()
}

/// Builds the Ethernet frame of an ICMP echo request (`reply == false`) or reply.
pub fn icmp_echo_frame(
    src: Host,
    dst: Host,
    ip: IpFields,
    reply: bool,
    ident: u16,
    seq: u16,
    payload: &[u8],
) -> Vec<u8> {
    // The ICMP message: type, code, checksum, identifier, sequence, data.
    let mut m = vec![if reply { 0 } else { 8 }, 0, 0, 0];
    m.extend_from_slice(&ident.to_be_bytes());
    m.extend_from_slice(&seq.to_be_bytes());
    m.extend_from_slice(payload);
    let ck = internet_checksum(&m);
    m[2..4].copy_from_slice(&ck.to_be_bytes());
    ipv4(src, dst, ip).ip_proto(PROTO_ICMP).payload(&m).build()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROTO_TCP: u8 = 6;
    const PROTO_UDP: u8 = 17;

    fn hosts() -> (Host, Host) {
        (
            Host::from_ip(Ipv4Addr::new(192, 168, 0, 1)),
            Host::from_ip(Ipv4Addr::new(10, 1, 0, 1)),
        )
    }

    #[test]
    fn rfc1071_example() {
        // RFC 1071 section 3: the sum of these words is 0xddf2, so the checksum is !0xddf2.
        let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(internet_checksum(&data), !0xddf2);
    }

    #[test]
    fn tcp_frame_checksums_verify_and_pad() {
        let (c, s) = hosts();
        let ip = IpFields {
            ident: 7,
            ttl: 64,
            dont_frag: true,
        };
        let seg = TcpSegment {
            src: c,
            dst: s,
            sport: 40000,
            dport: 21,
            ip,
            seq: 1,
            ack: 2,
            flags: TcpFlags::ACK,
            window: 502,
            options: &[],
            payload: &[],
        };
        let f = tcp_frame(&seg);
        assert_eq!(f.len(), MIN_FRAME);
        assert_eq!(internet_checksum(&f[14..34]), 0);
        let l4 = &f[34..54];
        assert_eq!(transport_checksum(c.ip, s.ip, PROTO_TCP, l4), 0);

        let seg = TcpSegment {
            payload: b"USER anonymous\r\n",
            options: &[2, 4, 5, 180],
            flags: TcpFlags::PSH | TcpFlags::ACK,
            ..seg
        };
        let f = tcp_frame(&seg);
        assert_eq!(f.len(), 14 + 20 + 24 + 16);
        assert_eq!(transport_checksum(c.ip, s.ip, PROTO_TCP, &f[34..]), 0);
    }

    #[test]
    fn udp_and_icmp_checksums_verify() {
        let (c, s) = hosts();
        let ip = IpFields {
            ident: 1,
            ttl: 63,
            dont_frag: false,
        };
        let f = udp_frame(c, s, 40001, 40002, ip, b"hello, odd length");
        // 59 bytes padded to 60: the checksum covers the UDP length only.
        assert_eq!(f.len(), MIN_FRAME);
        assert_eq!(transport_checksum(c.ip, s.ip, PROTO_UDP, &f[34..59]), 0);
        let f = icmp_echo_frame(c, s, ip, false, 9, 3, &[0x5a; 56]);
        assert_eq!(internet_checksum(&f[34..]), 0);
        assert_eq!(f.len(), 14 + 20 + 8 + 56);
    }
}
