//! Helpers shared by the integration tests: a capture reader, a tcpdump runner,
//! a packet classifier built on netsift-wire's views, and the corpus location.

#![allow(dead_code)]

pub(crate) mod build;
pub(crate) mod capture;
pub(crate) mod tcpdump;
pub(crate) mod whole;
pub(crate) mod write;

use netsift_wire::ethernet::{EtherType, EthernetFrame, FrameKind};
use netsift_wire::ipv4::Ipv4Packet;
use netsift_wire::ipv6::Ipv6Packet;
use netsift_wire::loopback::{family, LoopbackHeader};
use netsift_wire::sll::{Sll2Header, SllHeader};
use netsift_wire::vlan::VlanStack;
use netsift_wire::LinkType;
use std::path::PathBuf;

/// A capture file, its link type and its packets as `(data, wire length)`.
pub(crate) type CaptureFile = (PathBuf, LinkType, Vec<(Vec<u8>, u32)>);

/// Every corpus capture whose packets are all of one of `lts`, in path order.
pub(crate) fn corpus_captures_of(lts: &[LinkType]) -> Vec<CaptureFile> {
    let mut out = Vec::new();
    for sub in ["tcpdump", "libpcap"] {
        let Ok(rd) = std::fs::read_dir(corpus_root().join(sub)) else {
            continue;
        };
        let mut paths: Vec<_> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            let Some(packets) = std::fs::read(&path)
                .ok()
                .and_then(|b| capture::read_capture(&b))
            else {
                continue;
            };
            let Some(lt) = packets.first().map(|p| p.linktype) else {
                continue;
            };
            if lts.contains(&lt) && packets.iter().all(|p| p.linktype == lt) {
                let recs = packets.into_iter().map(|p| (p.data, p.wire_len)).collect();
                out.push((path, lt, recs));
            }
        }
    }
    out
}

/// Where the shared capture corpus lives (`NETSIFT_CORPUS` overrides).
pub(crate) fn corpus_root() -> PathBuf {
    std::env::var_os("NETSIFT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/corpus/pcaps"))
}

/// The corpus capture `tcpdump/name`, its link type and packets.
pub(crate) fn corpus_capture(name: &str) -> CaptureFile {
    let path = corpus_root().join("tcpdump").join(name);
    let bytes = std::fs::read(&path).expect("corpus capture");
    let packets = capture::read_capture(&bytes).expect("a capture");
    let lt = packets.first().expect("packets").linktype;
    let recs = packets.into_iter().map(|p| (p.data, p.wire_len)).collect();
    (path, lt, recs)
}

/// The corpus directory `sub` of [`corpus_root`] (`""`: the root itself), when
/// tcpdump is installed and the directory exists; otherwise `None`, after saying
/// why the test skips.
pub(crate) fn tcpdump_and_corpus(sub: &str) -> Option<PathBuf> {
    if !tcpdump::have_tcpdump() {
        eprintln!("skipping: tcpdump is not installed");
        return None;
    }
    let root = corpus_root().join(sub);
    if !root.is_dir() {
        eprintln!("skipping: no corpus at {}", root.display());
        return None;
    }
    Some(root)
}

/// What a packet carries, for the agreement report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Class {
    Tcp,
    Udp,
    Icmp,
    Arp,
    OtherIp,
    NonIp,
}

impl Class {
    pub(crate) const ALL: [Class; 6] = [
        Class::Tcp,
        Class::Udp,
        Class::Icmp,
        Class::Arp,
        Class::OtherIp,
        Class::NonIp,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Class::Tcp => "TCP",
            Class::Udp => "UDP",
            Class::Icmp => "ICMP/ICMPv6",
            Class::Arp => "ARP/RARP",
            Class::OtherIp => "other IP",
            Class::NonIp => "non-IP",
        }
    }

    /// The classes the agreement floor is asserted on.
    pub(crate) fn is_core(self) -> bool {
        matches!(self, Class::Tcp | Class::Udp | Class::Icmp | Class::Arp)
    }
}

/// Classifies a packet by its outermost network and transport protocols, using
/// the checked views.
pub(crate) fn classify(linktype: LinkType, data: &[u8]) -> Class {
    layers(linktype, data).class
}

/// [`classify`], with the source and destination ports of a TCP or UDP header
/// when its first four bytes are captured (and the datagram is no later
/// fragment).
pub(crate) fn classify_ports(linktype: LinkType, data: &[u8]) -> (Class, Option<(u16, u16)>) {
    let Layers { class, l4, .. } = layers(linktype, data);
    let ports = match (class, l4) {
        (Class::Tcp | Class::Udp, Some(p)) if p.len() >= 4 => Some((
            u16::from_be_bytes([p[0], p[1]]),
            u16::from_be_bytes([p[2], p[3]]),
        )),
        _ => None,
    };
    (class, ports)
}

/// What [`layers`] finds in a packet.
pub(crate) struct Layers<'a> {
    pub class: Class,
    /// The EtherType (or equivalent) of the link layer, when there is one.
    pub ethertype: Option<u16>,
    /// The IP protocol of the transport (after IPv6 extension headers).
    pub proto: Option<u8>,
    /// For an IP packet that is no later fragment, the bytes after the IP
    /// header(s).
    pub l4: Option<&'a [u8]>,
}

/// The class of a packet, its EtherType, IP protocol and transport bytes.
pub(crate) fn layers(linktype: LinkType, data: &[u8]) -> Layers<'_> {
    let Some((ethertype, payload)) = link_payload(linktype, data) else {
        return Layers {
            class: Class::NonIp,
            ethertype: None,
            proto: None,
            l4: None,
        };
    };
    let only = |class: Class| Layers {
        class,
        ethertype: Some(ethertype),
        proto: None,
        l4: None,
    };
    let (proto, l4) = match EtherType(ethertype) {
        EtherType::ARP | EtherType::RARP => return only(Class::Arp),
        EtherType::IPV4 => match Ipv4Packet::new_checked(payload) {
            Ok(ip) if ip.version() == 4 => {
                let first = ip.frag_offset_units() == 0;
                let l4 = payload.get(ip.header_len()..).filter(|_| first);
                (ip.protocol().0, l4)
            }
            _ => return only(Class::OtherIp),
        },
        EtherType::IPV6 => match Ipv6Packet::new_checked(payload) {
            Ok(ip) if ip.version() == 6 => {
                let walk = netsift_wire::ipv6::ExtHeaderWalk::new(ip.next_header(), &payload[40..]);
                match walk.upper_layer() {
                    Ok((p, rest)) => (p.0, Some(rest)),
                    Err(_) => return only(Class::OtherIp),
                }
            }
            _ => return only(Class::OtherIp),
        },
        _ => return only(Class::NonIp),
    };
    let class = match proto {
        6 => Class::Tcp,
        17 => Class::Udp,
        1 | 58 => Class::Icmp,
        _ => Class::OtherIp,
    };
    Layers {
        class,
        ethertype: Some(ethertype),
        proto: Some(proto),
        l4,
    }
}

/// The EtherType and payload of the link layer; `None` for frames without one
/// (802.3 with LLC) or cut short.
fn link_payload(linktype: LinkType, data: &[u8]) -> Option<(u16, &[u8])> {
    Some(match linktype {
        LinkType::EN10MB => {
            let Ok(f) = EthernetFrame::new_checked(data) else {
                return None;
            };
            match f.kind() {
                FrameKind::Ieee8023 { .. } => return None,
                FrameKind::EthernetII(t) => {
                    let mut stack = VlanStack::new(t, &data[14..]);
                    for tag in stack.by_ref() {
                        if tag.is_err() {
                            return None;
                        }
                    }
                    (stack.ethertype().0, stack.payload())
                }
            }
        }
        LinkType::LINUX_SLL => match SllHeader::new_checked(data) {
            Ok(h) => (h.protocol().0, &data[16..]),
            Err(_) => return None,
        },
        LinkType::LINUX_SLL2 => match Sll2Header::new_checked(data) {
            Ok(h) => (h.protocol().0, &data[20..]),
            Err(_) => return None,
        },
        LinkType::NULL | LinkType::LOOP => match LoopbackHeader::new_checked(data) {
            Ok(h) => {
                let af = h.family(linktype);
                let t = if af == family::INET {
                    0x0800
                } else if family::is_inet6(af) {
                    0x86dd
                } else {
                    0
                };
                (t, &data[4..])
            }
            Err(_) => return None,
        },
        LinkType::RAW | LinkType::IPV4 | LinkType::IPV6 => match data.first() {
            Some(b) if b >> 4 == 4 => (0x0800, data),
            Some(b) if b >> 4 == 6 => (0x86dd, data),
            _ => return None,
        },
        _ => return None,
    })
}
