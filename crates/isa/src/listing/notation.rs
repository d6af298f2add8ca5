//! How the `-d` listing writes the values a field is compared with, where it
//! knows what the field holds: an IPv4 address as a dotted quad, an IPv6 one as
//! its groups, an EtherType and an IP protocol by name and number as tcpdump
//! prints them, a port in decimal. A field's meaning comes from where it is
//! (the link type's offsets, [`LinkFields`], and the anchor it is read from) and
//! from what the pass tested before (an EtherType of IPv4 or IPv6), since
//! `[26:4]` is an IPv4 source address in one pass and an IPv6 address word in
//! another. Anything else stays hexadecimal.

use crate::insn::{Opcode, Size};
use crate::{AnchorRule, PassSet};
use std::fmt::Write;

/// Where a link type's fields lie, and the names of their values, for the
/// listing to write the values compared with them.
#[derive(Clone, Copy, Debug)]
pub struct LinkFields {
    /// The offset of the link-layer type field, an EtherType, if the link has one.
    pub ethertype: Option<u32>,
    /// The offset of the network-layer header.
    pub network: u32,
    /// The name tcpdump prints for an EtherType.
    pub ethertype_name: fn(u16) -> Option<&'static str>,
    /// The name of an IP protocol (an IPv6 next header).
    pub proto_name: fn(u8) -> Option<&'static str>,
}

/// What a field holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    EtherType,
    Ipv4Addr,
    Ipv6Words,
    IpProto,
    Port,
    VlanId,
}

/// The network protocol a pass's EtherType test allows, and after how many
/// VLAN tags (each moving the headers 4 bytes on).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Net {
    #[default]
    Unknown,
    V4(u32),
    V6(u32),
    /// ARP or RARP, whose sender and target addresses are IPv4 ones.
    Arp(u32),
}

/// Most VLAN tags a field is looked for behind (`vlan and vlan and ...`).
const TAGS: u32 = 2;

/// The set's link fields and, for each pass, its network protocol and how many
/// VLAN tags it tested for.
pub(crate) struct Notation {
    link: LinkFields,
    nets: Vec<Net>,
    tags: Vec<u32>,
}

impl Notation {
    pub(crate) fn new(set: &PassSet, link: LinkFields) -> Notation {
        let mut n = Notation {
            link,
            nets: vec![Net::Unknown; set.passes().len()],
            tags: vec![0; set.passes().len()],
        };
        for (i, p) in set.passes().iter().enumerate() {
            n.tags[i] = n.vlan_tags(p.instructions());
            n.nets[i] = n.tested(p.instructions(), n.tags[i]);
        }
        // A sub-pass runs where a GROUP calls it: it knows what its caller knew.
        for (i, p) in set.passes().iter().enumerate() {
            for insn in p.instructions() {
                let d = insn.decode();
                if d.opcode != Some(Opcode::Group) {
                    continue;
                }
                let (first, len) = (insn.p(1) as usize, insn.p(2) as usize);
                for s in first..first.saturating_add(len).min(n.nets.len()) {
                    if n.nets[s] == Net::Unknown {
                        n.nets[s] = n.nets[i];
                        n.tags[s] = n.tags[i];
                    }
                }
            }
        }
        n
    }

    /// The values of the un-negated EQs on a two-byte field at `offset` from the
    /// packet's start.
    fn eq_values(insns: &[crate::Instruction], offset: u32) -> impl Iterator<Item = Vec<u32>> + '_ {
        insns.iter().filter_map(move |insn| {
            let d = insn.decode();
            let on = d.opcode == Some(Opcode::Eq)
                && !d.negate
                && d.anchor == 0
                && d.size == Some(Size::B2)
                && u32::from(d.offset) == offset;
            on.then(|| {
                (0..d.count as usize)
                    .map(|i| insn.operand(1, Size::B2, i))
                    .collect()
            })
        })
    }

    /// How many VLAN tags in a row a pass tests for (`vlan`'s EQ on the
    /// EtherType field, then on the one 4 bytes on, ...).
    fn vlan_tags(&self, insns: &[crate::Instruction]) -> u32 {
        let Some(et) = self.link.ethertype else {
            return 0;
        };
        (0..TAGS)
            .take_while(|t| {
                Self::eq_values(insns, et + 4 * t)
                    .any(|v| v.iter().all(|x| matches!(x, 0x8100 | 0x88a8 | 0x9100)))
            })
            .count() as u32
    }

    /// The protocol an EQ on the EtherType field (behind `tags` tags) admits
    /// alone.
    fn tested(&self, insns: &[crate::Instruction], tags: u32) -> Net {
        let Some(et) = self.link.ethertype else {
            return Net::Unknown;
        };
        for v in Self::eq_values(insns, et + 4 * tags) {
            match v[..] {
                [0x0800] => return Net::V4(tags),
                [0x86dd] => return Net::V6(tags),
                _ if v.iter().all(|&t| matches!(t, 0x0806 | 0x8035)) => return Net::Arp(tags),
                _ => {}
            }
        }
        Net::Unknown
    }

    /// What the field of `size` bytes at `anchor` + `offset` holds in pass
    /// `pass`, if the listing knows.
    pub(crate) fn kind(
        &self,
        set: &PassSet,
        pass: usize,
        (anchor, offset, size): (u8, u16, Size),
    ) -> Option<Kind> {
        let off = u32::from(offset);
        if anchor != 0 {
            let rule = set.anchors().get(anchor as usize)?.rule()?;
            let transport = matches!(
                rule,
                AnchorRule::Ipv4Payload
                    | AnchorRule::IpPayloadByType
                    | AnchorRule::IpPayloadByVersion
                    | AnchorRule::IpPayloadByAf
            );
            return (transport && size == Size::B2 && off <= 2 && off % 2 == 0)
                .then_some(Kind::Port);
        }
        if let Some(et) = self.link.ethertype {
            let tags = self.tags.get(pass).copied().unwrap_or(0);
            if size == Size::B2 && (0..=tags).any(|t| off == et + 4 * t) {
                return Some(Kind::EtherType);
            }
            // A tag's control information, after its protocol identifier.
            if size == Size::B2 && (0..tags).any(|t| off == et + 2 + 4 * t) {
                return Some(Kind::VlanId);
            }
        }
        let net = |tags: u32| self.link.network + 4 * tags;
        match (self.nets.get(pass).copied()?, size) {
            (Net::V4(t), Size::B1) if off == net(t) + 9 => Some(Kind::IpProto),
            (Net::V4(t), Size::B4) if off == net(t) + 12 || off == net(t) + 16 => {
                Some(Kind::Ipv4Addr)
            }
            // An Ethernet ARP packet's sender and target protocol addresses.
            (Net::Arp(t), Size::B4) if off == net(t) + 14 || off == net(t) + 24 => {
                Some(Kind::Ipv4Addr)
            }
            (Net::V6(t), Size::B1) if off == net(t) + 6 => Some(Kind::IpProto),
            (Net::V6(t), Size::B4) if (net(t) + 8..net(t) + 40).contains(&off) => {
                ((off - net(t)) % 4 == 0).then_some(Kind::Ipv6Words)
            }
            (Net::V6(t), Size::B2) if off == net(t) + 40 || off == net(t) + 42 => Some(Kind::Port),
            _ => None,
        }
    }
}

/// How one instruction's operands are written: for a field of `kind`, with the
/// names `notation`'s link gives.
#[derive(Clone, Copy, Default)]
pub(crate) struct Operands<'n> {
    pub(crate) kind: Option<Kind>,
    pub(crate) notation: Option<&'n Notation>,
}

impl Operands<'_> {
    /// Value `v` (hexadecimal where the field is not known).
    pub(crate) fn value(&self, v: u32) -> String {
        let named = |name: Option<&str>, number: String| match name {
            Some(n) => format!("{n} ({number})"),
            None => number,
        };
        let link = self.notation.map(|n| n.link);
        match (self.kind, link) {
            (Some(Kind::EtherType), Some(l)) => named(
                u16::try_from(v).ok().and_then(l.ethertype_name),
                format!("{v:#06x}"),
            ),
            (Some(Kind::IpProto), Some(l)) => {
                named(u8::try_from(v).ok().and_then(l.proto_name), v.to_string())
            }
            (kind, _) => value(kind, v),
        }
    }

    /// A mask over the field: over an address, as the address is written.
    pub(crate) fn mask(&self, m: u32) -> String {
        mask(self.kind, m)
    }

    /// Whether the field is an IPv4 address (a range's bounds are then
    /// addresses too).
    pub(crate) fn is_address(&self) -> bool {
        self.kind == Some(Kind::Ipv4Addr)
    }
}

/// Value `v` of a field of kind `kind`, by number (hexadecimal where there is
/// no kind).
fn value(kind: Option<Kind>, v: u32) -> String {
    match kind {
        None => format!("{v:#x}"),
        Some(Kind::Port | Kind::VlanId) => v.to_string(),
        Some(Kind::Ipv4Addr) => std::net::Ipv4Addr::from(v).to_string(),
        Some(Kind::Ipv6Words) => format!("{:x}:{:x}", v >> 16, v & 0xffff),
        Some(Kind::EtherType) => format!("{v:#06x}"),
        Some(Kind::IpProto) => v.to_string(),
    }
}

/// A mask over a field of kind `kind`: over an address, as the address is
/// written.
fn mask(kind: Option<Kind>, m: u32) -> String {
    let mut s = String::new();
    match kind {
        Some(Kind::Ipv4Addr | Kind::Ipv6Words) => write!(s, "{}", value(kind, m)),
        _ => write!(s, "{m:#x}"),
    }
    .ok();
    s
}
