//! IP protocol numbers (the IPv4 protocol field and the IPv6 next-header field),
//! and a tcpdump-compatible IPv6 address formatter.

use std::fmt;
use std::net::Ipv6Addr;

/// An IP protocol / IPv6 next-header number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IpProtocol(pub u8);

impl IpProtocol {
    /// IPv6 hop-by-hop options header.
    pub const HOP_BY_HOP: IpProtocol = IpProtocol(0);
    /// Internet Control Message Protocol (for IPv4).
    pub const ICMP: IpProtocol = IpProtocol(1);
    /// Internet Group Management Protocol.
    pub const IGMP: IpProtocol = IpProtocol(2);
    /// IPv4 inside IP (IP-in-IP).
    pub const IPIP: IpProtocol = IpProtocol(4);
    /// Transmission Control Protocol.
    pub const TCP: IpProtocol = IpProtocol(6);
    /// Exterior Gateway Protocol.
    pub const EGP: IpProtocol = IpProtocol(8);
    /// User Datagram Protocol.
    pub const UDP: IpProtocol = IpProtocol(17);
    /// IPv6 inside IP (6in4, RFC 4213).
    pub const IPV6: IpProtocol = IpProtocol(41);
    /// IPv6 routing header.
    pub const ROUTING: IpProtocol = IpProtocol(43);
    /// IPv6 fragment header.
    pub const FRAGMENT: IpProtocol = IpProtocol(44);
    /// Resource Reservation Protocol.
    pub const RSVP: IpProtocol = IpProtocol(46);
    /// Generic Routing Encapsulation.
    pub const GRE: IpProtocol = IpProtocol(47);
    /// IPsec Encapsulating Security Payload.
    pub const ESP: IpProtocol = IpProtocol(50);
    /// IPsec Authentication Header.
    pub const AH: IpProtocol = IpProtocol(51);
    /// ICMP for IPv6.
    pub const ICMPV6: IpProtocol = IpProtocol(58);
    /// IPv6: no header follows.
    pub const NO_NEXT_HEADER: IpProtocol = IpProtocol(59);
    /// IPv6 destination options header.
    pub const DEST_OPTS: IpProtocol = IpProtocol(60);
    /// Enhanced Interior Gateway Routing Protocol.
    pub const EIGRP: IpProtocol = IpProtocol(88);
    /// Open Shortest Path First.
    pub const OSPF: IpProtocol = IpProtocol(89);
    /// Protocol Independent Multicast.
    pub const PIM: IpProtocol = IpProtocol(103);
    /// IP payload compression (RFC 3173).
    pub const IPCOMP: IpProtocol = IpProtocol(108);
    /// Virtual Router Redundancy Protocol (and CARP, which shares the number).
    pub const VRRP: IpProtocol = IpProtocol(112);
    /// Pragmatic General Multicast.
    pub const PGM: IpProtocol = IpProtocol(113);
    /// Stream Control Transmission Protocol.
    pub const SCTP: IpProtocol = IpProtocol(132);
    /// IPv6 mobility header (RFC 6275).
    pub const MOBILITY: IpProtocol = IpProtocol(135);
    /// Datagram Congestion Control Protocol.
    pub const DCCP: IpProtocol = IpProtocol(33);

    /// Whether this number names an IPv6 extension header that
    /// [`crate::ipv6::ExtHeaderWalk`] steps over.
    pub fn is_ipv6_extension(self) -> bool {
        matches!(self.0, 0 | 43 | 44 | 51 | 60)
    }

    /// The usual short name of the protocol (`tcp`, `udp`, ...).
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0 => "hopopt",
            1 => "icmp",
            2 => "igmp",
            4 => "ipip",
            6 => "tcp",
            8 => "egp",
            17 => "udp",
            33 => "dccp",
            41 => "ipv6",
            43 => "ipv6-route",
            44 => "ipv6-frag",
            46 => "rsvp",
            47 => "gre",
            50 => "esp",
            51 => "ah",
            58 => "ipv6-icmp",
            59 => "ipv6-nonxt",
            60 => "ipv6-opts",
            88 => "eigrp",
            89 => "ospf",
            103 => "pim",
            108 => "ipcomp",
            112 => "vrrp",
            113 => "pgm",
            132 => "sctp",
            135 => "mobility-header",
            _ => return None,
        })
    }
}

impl fmt::Display for IpProtocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "ip-proto-{}", self.0),
        }
    }
}

/// Formats an IPv6 address the way tcpdump does: RFC 5952 zero compression (the
/// first longest run of two or more zero groups), and a dotted-quad tail for
/// IPv4-compatible (`::a.b.c.d`) and IPv4-mapped (`::ffff:a.b.c.d`) addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv6Display(pub Ipv6Addr);

impl fmt::Display for Ipv6Display {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self.0.segments();
        let (mut best_base, mut best_len) = (usize::MAX, 0usize);
        let (mut cur_base, mut cur_len) = (usize::MAX, 0usize);
        for (i, &word) in w.iter().enumerate() {
            if word == 0 {
                if cur_base == usize::MAX {
                    cur_base = i;
                    cur_len = 1;
                } else {
                    cur_len += 1;
                }
            } else if cur_base != usize::MAX {
                if best_base == usize::MAX || cur_len > best_len {
                    best_base = cur_base;
                    best_len = cur_len;
                }
                cur_base = usize::MAX;
            }
        }
        if cur_base != usize::MAX && (best_base == usize::MAX || cur_len > best_len) {
            best_base = cur_base;
            best_len = cur_len;
        }
        if best_base != usize::MAX && best_len < 2 {
            best_base = usize::MAX;
        }
        let in_run =
            |i: usize| best_base != usize::MAX && i >= best_base && i < best_base + best_len;
        let o = self.0.octets();
        for i in 0..8 {
            if in_run(i) {
                if i == best_base {
                    f.write_str(":")?;
                }
                continue;
            }
            if i != 0 {
                f.write_str(":")?;
            }
            if i == 6 && best_base == 0 && (best_len == 6 || (best_len == 5 && w[5] == 0xffff)) {
                return write!(f, "{}.{}.{}.{}", o[12], o[13], o[14], o[15]);
            }
            write!(f, "{:x}", w[i])?;
        }
        if best_base != usize::MAX && best_base + best_len == 8 {
            f.write_str(":")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(s: &str) -> String {
        Ipv6Display(s.parse().unwrap()).to_string()
    }

    #[test]
    fn ipv6_like_tcpdump() {
        assert_eq!(show("::"), "::");
        assert_eq!(show("::1"), "::1");
        assert_eq!(show("ff02::fb"), "ff02::fb");
        assert_eq!(
            show("fe80::b299:28ff:fec8:d66c"),
            "fe80::b299:28ff:fec8:d66c"
        );
        assert_eq!(show("2001:db8:0:1:1:1:1:1"), "2001:db8:0:1:1:1:1:1");
        assert_eq!(show("2001:0:0:1:0:0:0:1"), "2001:0:0:1::1");
        assert_eq!(show("2001:db8::"), "2001:db8::");
        assert_eq!(show("::ffff:10.0.0.1"), "::ffff:10.0.0.1");
        assert_eq!(show("::10.0.0.1"), "::10.0.0.1");
        assert_eq!(show("1:0:0:2:0:0:3:4"), "1::2:0:0:3:4");
    }

    #[test]
    fn protocol_names() {
        assert_eq!(IpProtocol::TCP.to_string(), "tcp");
        assert_eq!(IpProtocol(250).to_string(), "ip-proto-250");
        assert!(IpProtocol::FRAGMENT.is_ipv6_extension());
        assert!(!IpProtocol::TCP.is_ipv6_extension());
    }
}
