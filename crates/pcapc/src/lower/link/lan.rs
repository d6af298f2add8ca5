//! The LANs other than Ethernet: FDDI, Token Ring and RFC 2625 IP over Fibre Channel
//! (MAC addresses at their own offsets, then 802.2 LLC), LLC-encapsulated ATM, and
//! ARCNET (one-byte addresses, a protocol byte). gencode's gen_llc_linktype,
//! gen_fhostop/gen_thostop/gen_ipfchostop, gen_acode/gen_ahostop, and the per-link
//! cases of gen_broadcast, gen_multicast and gen_llc.
//!
//! libpcap reads these headers at fixed offsets: Token Ring's source-routed frames
//! (the top bit of the source address set, a routing field after it) are read as if
//! they were not, and FDDI's padding (`pcap_fddipad`) is 0 on Linux.

use super::super::ir::Tree;
use super::super::{names, LResult, Link, Lowerer, Rel, D};
use super::et;
use crate::syntax::ast::{AddrType, Proto as P, Qual, Span};
use netsift_isa::Size;
use netsift_wire::LinkType;

/// ARCNET protocol bytes (RFC 1201, and RFC 1051's older ones).
const ARCTYPE_IP_OLD: u32 = 240;
const ARCTYPE_ARP_OLD: u32 = 241;
const ARCTYPE_IP: u32 = 212;
const ARCTYPE_ARP: u32 = 213;
const ARCTYPE_REVARP: u32 = 214;
const ARCTYPE_ATALK: u32 = 221;
const ARCTYPE_INET6: u32 = 0xc4;

impl Lowerer<'_> {
    /// ARCNET's protocol byte; IPv4 and ARP have an old and a new value each.
    pub(super) fn arcnet_linktype(&mut self, ll_proto: u32) -> LResult<Tree> {
        let either = |lw: &mut Self, a, b| -> LResult<Tree> {
            let a = lw.cmp(Rel::LinkType, 0, Size::B1, a)?;
            Ok(Tree::or(a, lw.cmp(Rel::LinkType, 0, Size::B1, b)?))
        };
        match ll_proto {
            et::IPV6 => self.cmp(Rel::LinkType, 0, Size::B1, ARCTYPE_INET6),
            et::IP => either(self, ARCTYPE_IP, ARCTYPE_IP_OLD),
            et::ARP => either(self, ARCTYPE_ARP, ARCTYPE_ARP_OLD),
            et::REVARP => self.cmp(Rel::LinkType, 0, Size::B1, ARCTYPE_REVARP),
            et::ATALK => self.cmp(Rel::LinkType, 0, Size::B1, ARCTYPE_ATALK),
            _ => Ok(Tree::Const(false)),
        }
    }

    /// A MAC address test on a link that has 6-byte MAC addresses (gen_ehostop and
    /// its FDDI, Token Ring and Fibre Channel forms); `None` on other links.
    pub(crate) fn mac_hostop(&mut self, mac: &[u8; 6], dir: D) -> LResult<Option<Tree>> {
        // (source, destination) offsets in the link header.
        let (src, dst) = match self.link {
            Link::En10mb => {
                let b = self.ehostop(mac, dir)?;
                return Ok(Some(self.prevlinkhdr_check(b)));
            }
            Link::Fddi => (6 + 1, 1),
            Link::TokenRing => (8, 2),
            Link::IpOverFc => (10, 2),
            _ => return Ok(None),
        };
        self.addr_at(mac, src, dst, dir).map(Some)
    }

    /// `link host NAME`: the name's MAC address from the ethers file, on a link
    /// with MAC addresses (gen_scode's Q_LINK cases).
    pub(crate) fn link_host_name(&mut self, name: &str, dir: D, span: Span) -> LResult<Tree> {
        let what = match self.link {
            Link::En10mb => "ether",
            Link::Fddi => "FDDI",
            Link::TokenRing => "token ring",
            Link::IpOverFc => "Fibre Channel",
            _ => return self.err_at("only ethernet/FDDI/token ring/802.11/ATM LANE/Fibre Channel supports link-level host name", span),
        };
        let Some(mac) = names::ether_host(name) else {
            return self.err_at(format!("unknown {what} host '{name}'"), span);
        };
        match self.mac_hostop(&mac, dir)? {
            Some(t) => Ok(t),
            None => self.err_at("link-level host name on a link without MAC addresses", span),
        }
    }

    /// `bytes` as the source at `src`, the destination at `dst`, or per `dir`.
    fn addr_at(&mut self, bytes: &[u8], src: u32, dst: u32, dir: D) -> LResult<Tree> {
        match dir {
            D::Src => self.bcmp(Rel::LinkHdr, src, bytes),
            D::Dst => self.bcmp(Rel::LinkHdr, dst, bytes),
            D::And => {
                let a = self.addr_at(bytes, src, dst, D::Src)?;
                Ok(Tree::and(a, self.addr_at(bytes, src, dst, D::Dst)?))
            }
            D::Default | D::Or => {
                let a = self.addr_at(bytes, src, dst, D::Src)?;
                Ok(Tree::or(a, self.addr_at(bytes, src, dst, D::Dst)?))
            }
            D::Addr1 => self.err("'addr1' and 'address1' are only supported on 802.11"),
            D::Addr2 => self.err("'addr2' and 'address2' are only supported on 802.11"),
            D::Addr3 => self.err("'addr3' and 'address3' are only supported on 802.11"),
            D::Addr4 => self.err("'addr4' and 'address4' are only supported on 802.11"),
            D::Ra => self.err("'ra' is only supported on 802.11"),
            D::Ta => self.err("'ta' is only supported on 802.11"),
        }
    }

    /// gen_ahostop: ARCNET's one-byte addresses, the source first.
    fn ahostop(&mut self, addr: u8, dir: D) -> LResult<Tree> {
        self.addr_at(&[addr], 0, 1, dir)
    }

    /// gen_acode: `link host $xx`. libpcap reads the address with pcap_ether_aton,
    /// `$` included: the `$` becomes the high nibble 0xd of the first byte, and the
    /// first hex digit its low nibble, the one byte gen_ahostop compares.
    pub(crate) fn acode(&mut self, s: &str, q: Qual, span: Span) -> LResult<Tree> {
        if self.link != Link::Arcnet {
            return self.err_at("aid supported only on ARCnet", span);
        }
        if !(matches!(q.addr, AddrType::Host | AddrType::Default) && q.proto == P::Link) {
            return self.err_at("ARCnet address used in non-arc expression", span);
        }
        let digit = s
            .as_bytes()
            .get(1)
            .and_then(|&c| (c as char).to_digit(16))
            .unwrap_or(0) as u8;
        self.ahostop(0xd0 | digit, q.dir)
    }

    /// Link-layer `broadcast` on these links; `None` where gencode has no case.
    pub(super) fn lan_broadcast(&mut self) -> LResult<Option<Tree>> {
        if self.link == Link::Arcnet {
            return self.ahostop(0, D::Dst).map(Some);
        }
        self.mac_hostop(&[0xff; 6], D::Dst)
    }

    /// Link-layer `multicast`: the group bit of the destination (ARCNET: its one
    /// broadcast address); `None` where gencode has no case.
    pub(super) fn lan_multicast(&mut self) -> LResult<Option<Tree>> {
        let off = match self.link {
            Link::Arcnet => return self.ahostop(0, D::Dst).map(Some),
            Link::Fddi => 1,
            Link::TokenRing | Link::IpOverFc => 2,
            _ => return Ok(None),
        };
        self.jset(Rel::LinkHdr, off, Size::B1, 1).map(Some)
    }

    /// gen_llc_internal's cases other than Ethernet: FDDI, Token Ring and RFC 1483
    /// ATM are taken to be LLC throughout, SunATM says so in its pseudo-header.
    pub(super) fn lan_llc(&mut self) -> LResult<Option<Tree>> {
        Ok(match self.link {
            Link::Fddi | Link::TokenRing => Some(Tree::Const(true)),
            Link::AtmLlc if self.target.linktype == LinkType::ATM_RFC1483 => {
                Some(Tree::Const(true))
            }
            Link::Sunatm => Some(self.atmtype_llc()?),
            _ => None,
        })
    }
}
