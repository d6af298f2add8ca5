//! Frames for tests and workloads, built with `netsift_wire`'s `emit`: Ethernet,
//! 802.1Q tags, ARP, IPv4 (whole or in fragments) and IPv6, TCP and UDP with
//! their checksums filled, or any other protocol's bytes as a payload.
//!
//! [`Frame`] is a value: start from [`Frame::ethernet`] (or [`Frame::default`],
//! [`MAC_B`] to [`MAC_A`]), add tags, a network layer, a transport and a payload,
//! and [`Frame::build`] it, or cut it into IPv4 fragments with
//! [`Frame::fragments`].
//!
//! ```
//! use netsift_testkit::frames::Frame;
//! let f = Frame::default()
//!     .vlan(12)
//!     .ipv4([10, 0, 0, 2], [10, 0, 0, 1])
//!     .udp(12345, 1234)
//!     .payload(&7u32.to_be_bytes())
//!     .build();
//! assert_eq!(f.len(), 14 + 4 + 20 + 8 + 4);
//! ```

use netsift_wire::arp::{ArpPacket, ArpRepr};
use netsift_wire::ethernet::{EtherType, EthernetAddress, EthernetFrame, EthernetRepr};
use netsift_wire::ip::IpProtocol;
use netsift_wire::ipv4::{Ipv4Packet, Ipv4Repr};
use netsift_wire::ipv6::{Ipv6Packet, Ipv6Repr};
use netsift_wire::tcp::{TcpPacket, TcpRepr};
use netsift_wire::udp::{UdpPacket, UdpRepr};
use netsift_wire::vlan::{VlanRepr, VlanTag};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// `02:00:00:00:00:0a`, the default destination.
pub const MAC_A: [u8; 6] = [2, 0, 0, 0, 0, 0x0a];
/// `02:00:00:00:00:0b`, the default source.
pub const MAC_B: [u8; 6] = [2, 0, 0, 0, 0, 0x0b];
/// The shortest Ethernet frame without its FCS.
pub const MIN_FRAME: usize = 60;

/// The network layer of a [`Frame`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Net {
    /// Bytes of EtherType `0` (the payload is the frame's payload).
    Raw(u16),
    /// An ARP packet (the payload follows it).
    Arp(ArpRepr),
    /// IPv4 (its payload length is set when built).
    Ipv4(Ipv4Repr),
    /// IPv6 (its payload length is set when built).
    Ipv6(Ipv6Repr),
}

/// The TCP header fields of a [`Frame`]'s transport.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tcp {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Sequence number.
    pub seq: u32,
    /// Acknowledgment number.
    pub ack: u32,
    /// Flag bits (`netsift_wire::tcp::TcpFlags` constants).
    pub flags: u8,
    /// Window.
    pub window: u16,
    /// Options, a multiple of 4 bytes.
    pub options: Vec<u8>,
}

/// The transport of a [`Frame`] over IP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    /// UDP from the first port to the second.
    Udp(u16, u16),
    /// TCP.
    Tcp(Tcp),
    /// The payload as it is, under IP protocol number `0`.
    Raw(u8),
}

/// A frame to build: link layer, tags, network layer, transport and payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Ethernet header (its EtherType is set when built).
    pub eth: EthernetRepr,
    /// 802.1Q tags, outermost first.
    pub vlans: Vec<u16>,
    /// The network layer.
    pub net: Net,
    /// The transport, over IPv4 or IPv6.
    pub transport: Transport,
    /// The innermost payload.
    pub payload: Vec<u8>,
    /// Whether to pad the frame with zeros to [`MIN_FRAME`] bytes.
    pub pad: bool,
}

impl Default for Frame {
    /// An empty frame from [`MAC_B`] to [`MAC_A`].
    fn default() -> Frame {
        Frame::ethernet(MAC_B, MAC_A)
    }
}

impl Frame {
    /// An empty Ethernet frame (EtherType 0x88b5, local experimental) from `src`
    /// to `dst`.
    pub fn ethernet(src: [u8; 6], dst: [u8; 6]) -> Frame {
        Frame {
            eth: EthernetRepr {
                src_addr: EthernetAddress(src),
                dst_addr: EthernetAddress(dst),
                ethertype: EtherType(0x88b5),
            },
            vlans: Vec::new(),
            net: Net::Raw(0x88b5),
            transport: Transport::Raw(0),
            payload: Vec::new(),
            pad: false,
        }
    }

    /// Adds an 802.1Q tag with VLAN id `vid` inside those already added.
    pub fn vlan(mut self, vid: u16) -> Frame {
        self.vlans.push(vid);
        self
    }

    /// The payload follows the link layer as EtherType `ethertype`.
    pub fn ethertype(mut self, ethertype: u16) -> Frame {
        self.net = Net::Raw(ethertype);
        self
    }

    /// An ARP packet.
    pub fn arp(mut self, arp: ArpRepr) -> Frame {
        self.net = Net::Arp(arp);
        self
    }

    /// IPv4 from `src` to `dst`, TTL 64, identification 0, no flags.
    pub fn ipv4(mut self, src: impl Into<Ipv4Addr>, dst: impl Into<Ipv4Addr>) -> Frame {
        self.net = Net::Ipv4(Ipv4Repr::new(src.into(), dst.into(), IpProtocol(0), 0));
        self
    }

    /// IPv6 from `src` to `dst`, hop limit 64.
    pub fn ipv6(mut self, src: impl Into<Ipv6Addr>, dst: impl Into<Ipv6Addr>) -> Frame {
        self.net = Net::Ipv6(Ipv6Repr::new(src.into(), dst.into(), IpProtocol(0), 0));
        self
    }

    /// Changes IPv4 header fields (TTL, identification, flags, TOS); panics if the
    /// frame is not IPv4.
    pub fn with_ipv4(mut self, f: impl FnOnce(&mut Ipv4Repr)) -> Frame {
        match &mut self.net {
            Net::Ipv4(r) => f(r),
            other => panic!("with_ipv4 on {other:?}"),
        }
        self
    }

    /// Changes IPv6 header fields; panics if the frame is not IPv6.
    pub fn with_ipv6(mut self, f: impl FnOnce(&mut Ipv6Repr)) -> Frame {
        match &mut self.net {
            Net::Ipv6(r) => f(r),
            other => panic!("with_ipv6 on {other:?}"),
        }
        self
    }

    /// UDP from `src_port` to `dst_port`.
    pub fn udp(mut self, src_port: u16, dst_port: u16) -> Frame {
        self.transport = Transport::Udp(src_port, dst_port);
        self
    }

    /// TCP from `src_port` to `dst_port` with `flags`, sequence and
    /// acknowledgment numbers 0, window 65535.
    pub fn tcp(mut self, src_port: u16, dst_port: u16, flags: u8) -> Frame {
        self.transport = Transport::Tcp(Tcp {
            src_port,
            dst_port,
            seq: 0,
            ack: 0,
            flags,
            window: 65535,
            options: Vec::new(),
        });
        self
    }

    /// Changes TCP header fields; panics if the transport is not TCP.
    pub fn with_tcp(mut self, f: impl FnOnce(&mut Tcp)) -> Frame {
        match &mut self.transport {
            Transport::Tcp(t) => f(t),
            other => panic!("with_tcp on {other:?}"),
        }
        self
    }

    /// The payload as it is, under IP protocol `proto` (ICMP, GRE, ...).
    pub fn ip_proto(mut self, proto: u8) -> Frame {
        self.transport = Transport::Raw(proto);
        self
    }

    /// The innermost payload.
    pub fn payload(mut self, payload: &[u8]) -> Frame {
        self.payload = payload.to_vec();
        self
    }

    /// Pads the frame with zeros to [`MIN_FRAME`] bytes, as on the wire.
    pub fn padded(mut self) -> Frame {
        self.pad = true;
        self
    }

    /// The transport segment (header and payload, checksum filled) and its IP
    /// protocol number, between `src` and `dst`.
    fn segment(&self, src: IpAddr, dst: IpAddr) -> (IpProtocol, Vec<u8>) {
        match &self.transport {
            Transport::Udp(sp, dp) => {
                let r = UdpRepr {
                    src_port: *sp,
                    dst_port: *dp,
                    payload: &self.payload,
                };
                let mut b = vec![0; r.buffer_len()];
                r.emit(&mut UdpPacket::new_unchecked(&mut b[..]), &src, &dst);
                (IpProtocol::UDP, b)
            }
            Transport::Tcp(t) => {
                let r = TcpRepr {
                    src_port: t.src_port,
                    dst_port: t.dst_port,
                    seq_number: t.seq,
                    ack_number: t.ack,
                    flags: t.flags,
                    window_len: t.window,
                    urgent_at: 0,
                    options: &t.options,
                    payload: &self.payload,
                };
                let mut b = vec![0; r.buffer_len()];
                r.emit(&mut TcpPacket::new_unchecked(&mut b[..]), &src, &dst);
                (IpProtocol::TCP, b)
            }
            Transport::Raw(p) => (IpProtocol(*p), self.payload.clone()),
        }
    }

    /// The network layer's bytes and its EtherType.
    fn network(&self) -> (EtherType, Vec<u8>) {
        match &self.net {
            Net::Raw(t) => (EtherType(*t), self.payload.clone()),
            Net::Arp(a) => {
                let mut b = vec![0; a.buffer_len()];
                a.emit(&mut ArpPacket::new_unchecked(&mut b[..]));
                b.extend_from_slice(&self.payload);
                (EtherType::ARP, b)
            }
            Net::Ipv4(r) => {
                let (proto, seg) = self.segment(r.src_addr.into(), r.dst_addr.into());
                let r = Ipv4Repr {
                    protocol: proto,
                    ..*r
                };
                (EtherType::IPV4, ipv4_packet(&r, &seg))
            }
            Net::Ipv6(r) => {
                let (proto, seg) = self.segment(r.src_addr.into(), r.dst_addr.into());
                let r = Ipv6Repr {
                    next_header: proto,
                    payload_len: seg.len(),
                    ..*r
                };
                let mut b = vec![0; r.buffer_len() + seg.len()];
                let mut p = Ipv6Packet::new_unchecked(&mut b[..]);
                r.emit(&mut p);
                p.payload_mut().copy_from_slice(&seg);
                (EtherType::IPV6, b)
            }
        }
    }

    /// Ethernet header and tags around `body` of EtherType `ethertype`.
    fn link(&self, ethertype: EtherType, body: &[u8]) -> Vec<u8> {
        let tags = 4 * self.vlans.len();
        let mut f = vec![0; self.eth.buffer_len() + tags + body.len()];
        let first = if self.vlans.is_empty() {
            ethertype
        } else {
            EtherType::VLAN
        };
        EthernetRepr {
            ethertype: first,
            ..self.eth
        }
        .emit(&mut EthernetFrame::new_unchecked(&mut f[..]));
        let mut at = self.eth.buffer_len();
        for (i, vid) in self.vlans.iter().enumerate() {
            let next = if i + 1 < self.vlans.len() {
                EtherType::VLAN
            } else {
                ethertype
            };
            let tag = VlanRepr {
                priority: 0,
                drop_eligible: false,
                vlan_id: *vid,
                ethertype: next,
            };
            tag.emit(&mut VlanTag::new_unchecked(&mut f[at..]));
            at += tag.buffer_len();
        }
        f[at..].copy_from_slice(body);
        if self.pad && f.len() < MIN_FRAME {
            f.resize(MIN_FRAME, 0);
        }
        f
    }

    /// The frame's bytes.
    pub fn build(&self) -> Vec<u8> {
        let (t, body) = self.network();
        self.link(t, &body)
    }

    /// The frame's IPv4 packet cut into fragments that carry at most
    /// `max_payload` bytes of it each (rounded down to a multiple of 8), as a
    /// router would send them; one frame if it fits. Panics if the frame is not
    /// IPv4.
    pub fn fragments(&self, max_payload: usize) -> Vec<Vec<u8>> {
        let Net::Ipv4(r) = &self.net else {
            panic!("fragments of {:?}", self.net);
        };
        let step = max_payload / 8 * 8;
        assert!(step > 0, "fragments of at least 8 bytes");
        let (proto, seg) = self.segment(r.src_addr.into(), r.dst_addr.into());
        let chunks: Vec<&[u8]> = seg.chunks(step).collect();
        chunks
            .iter()
            .enumerate()
            .map(|(i, chunk)| {
                let frag = Ipv4Repr {
                    protocol: proto,
                    more_frags: i + 1 < chunks.len() || r.more_frags,
                    frag_offset: r.frag_offset + (i * step) as u32,
                    ..*r
                };
                self.link(EtherType::IPV4, &ipv4_packet(&frag, chunk))
            })
            .collect()
    }
}

/// The live tests' numbered frame, to build or change: UDP/IPv4 from [`MAC_B`],
/// 10.0.0.2:12345 to [`MAC_A`], 10.0.0.1:1234 (identification 1, Don't
/// Fragment), tagged with VLAN `vid` if given, whose payload is `seq` (big-endian,
/// at byte 42 untagged) and then `pad` bytes 0, 1, 2, ...
pub fn numbered(seq: u32, vid: Option<u16>, pad: usize) -> Frame {
    let mut payload = seq.to_be_bytes().to_vec();
    payload.extend((0..pad).map(|i| i as u8));
    let mut f = Frame::default();
    if let Some(v) = vid {
        f = f.vlan(v);
    }
    f.ipv4([10, 0, 0, 2], [10, 0, 0, 1])
        .with_ipv4(|ip| {
            ip.ident = 1;
            ip.dont_frag = true;
        })
        .udp(12345, 1234)
        .payload(&payload)
}

/// [`numbered`], built.
pub fn numbered_udp(seq: u32, vid: Option<u16>, pad: usize) -> Vec<u8> {
    numbered(seq, vid, pad).build()
}

/// [`numbered_udp`] (untagged, 16 bytes of padding) from UDP source port
/// `sport`: frames of different ports are different flows to a fanout hash.
pub fn numbered_udp_from(seq: u32, sport: u16) -> Vec<u8> {
    numbered(seq, None, 16).udp(sport, 1234).build()
}

/// The source address the live VLAN tests' `host` filters name.
pub const VLAN_HOST: [u8; 4] = [10, 172, 64, 7];
/// The live VLAN tests' other source address.
pub const VLAN_OTHER: [u8; 4] = [10, 172, 64, 9];

/// The live VLAN tests' frames: UDP/IPv4 to 10.0.0.1 from [`VLAN_HOST`] and
/// from [`VLAN_OTHER`], three each untagged, in VLAN 1213 and in VLAN 5,
/// each numbered in its payload (18 frames, 12 tagged).
pub fn vlan_traffic() -> Vec<Vec<u8>> {
    let mut seq = 0u32..;
    let mut out = Vec::new();
    for vid in [None, Some(1213), Some(5)] {
        for src in [VLAN_HOST, VLAN_OTHER] {
            for _ in 0..3 {
                let f = vid.map_or(Frame::default(), |v| Frame::default().vlan(v));
                let n = seq.next().unwrap_or_default();
                let f = f.ipv4(src, [10, 0, 0, 1]).udp(4000, 5000);
                out.push(f.payload(&n.to_be_bytes()).build());
            }
        }
    }
    out
}

/// Whether a frame's outermost EtherType is 802.1Q (a tag at byte 12).
pub fn tagged(f: &[u8]) -> bool {
    f.get(12..14) == Some(&[0x81, 0x00][..])
}

/// An IPv4 packet of `r`'s header (its payload length set) and `payload`.
fn ipv4_packet(r: &Ipv4Repr, payload: &[u8]) -> Vec<u8> {
    let r = Ipv4Repr {
        payload_len: payload.len(),
        ..*r
    };
    let mut b = vec![0; r.buffer_len() + payload.len()];
    let mut p = Ipv4Packet::new_unchecked(&mut b[..]);
    r.emit(&mut p);
    p.payload_mut().copy_from_slice(payload);
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use netsift_wire::tcp::TcpFlags;

    #[test]
    fn a_tagged_udp_frame_is_byte_for_byte_what_it_should_be() {
        let f = Frame::default()
            .vlan(12)
            .ipv4([10, 0, 0, 2], [10, 0, 0, 1])
            .with_ipv4(|ip| {
                ip.ident = 1;
                ip.dont_frag = true;
            })
            .udp(12345, 1234)
            .payload(&[0, 0, 0, 7])
            .build();
        let want: Vec<u8> = [
            &MAC_A[..],
            &MAC_B,
            &[0x81, 0x00, 0x00, 0x0c, 0x08, 0x00],
            &[
                0x45, 0, 0, 32, 0, 1, 0x40, 0, 64, 17, 0x26, 0xca, 10, 0, 0, 2, 10, 0, 0, 1,
            ],
            &[0x30, 0x39, 0x04, 0xd2, 0, 12, 0xb6, 0xc1, 0, 0, 0, 7],
        ]
        .concat();
        assert_eq!(f, want);
    }

    #[test]
    fn fragments_reassemble_to_the_whole_datagram() {
        let payload: Vec<u8> = (0..3000).map(|i| i as u8).collect();
        let frame = Frame::default()
            .ipv4([10, 0, 0, 2], [10, 0, 0, 1])
            .with_ipv4(|ip| ip.ident = 9)
            .udp(1, 2)
            .payload(&payload);
        let whole = frame.build();
        let frags = frame.fragments(1480);
        assert_eq!(frags.len(), 3);
        let mut joined = Vec::new();
        for (i, f) in frags.iter().enumerate() {
            let ip = Ipv4Packet::new_checked(&f[14..]).unwrap();
            assert!(ip.verify_checksum());
            assert_eq!(ip.frag_offset() as usize, joined.len());
            assert_eq!(ip.more_frags(), i < 2);
            assert_eq!(ip.ident(), 9);
            joined.extend_from_slice(ip.payload());
        }
        assert_eq!(joined, whole[34..]);
    }

    #[test]
    fn tcp_over_ipv6_and_arp_and_padding() {
        let f = Frame::default()
            .ipv6(
                "fd00::1".parse::<Ipv6Addr>().unwrap(),
                "fd00::2".parse::<Ipv6Addr>().unwrap(),
            )
            .tcp(40000, 21, TcpFlags::SYN)
            .with_tcp(|t| t.options = vec![2, 4, 5, 180])
            .build();
        assert_eq!(f.len(), 14 + 40 + 24);
        let ip = Ipv6Packet::new_checked(&f[14..]).unwrap();
        assert_eq!((ip.next_header(), ip.payload_len()), (IpProtocol::TCP, 24));
        let tcp = TcpPacket::new_checked(ip.payload()).unwrap();
        assert_eq!((tcp.dst_port(), tcp.options()), (21, &[2, 4, 5, 180][..]));

        let arp = ArpRepr {
            operation: netsift_wire::arp::ArpOperation::REQUEST,
            source_hardware_addr: EthernetAddress(MAC_B),
            source_protocol_addr: Ipv4Addr::new(10, 0, 0, 2),
            target_hardware_addr: EthernetAddress([0; 6]),
            target_protocol_addr: Ipv4Addr::new(10, 0, 0, 1),
        };
        let f = Frame::ethernet(MAC_B, [0xff; 6]).arp(arp).padded().build();
        assert_eq!(f.len(), MIN_FRAME);
        assert_eq!(f[12..14], [8, 6]);
        let p = ArpPacket::new_checked(&f[14..]).unwrap();
        assert_eq!(ArpRepr::parse(&p), Some(arp));
    }
}
