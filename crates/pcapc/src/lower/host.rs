//! Host and network primitives: libpcap's gen_ncode/gen_mcode/gen_mcode6/gen_ecode,
//! the host part of gen_scode, and gen_host/gen_hostop/gen_host6/gen_ehostop/
//! gen_dnhostop.

use super::ir::Tree;
use super::link::et;
use super::names;
use super::{AddrType, Id, LResult, Lowerer, Qual, Rel, Span, D, P};
use netsift_isa::Size;
use std::net::{IpAddr, Ipv6Addr};

fn typestr(a: AddrType) -> &'static str {
    if a == AddrType::Net {
        "net"
    } else {
        "host"
    }
}

pub(crate) fn proto_name(p: P) -> &'static str {
    match p {
        P::Default => "",
        P::Link => "link",
        P::Ip => "ip",
        P::Arp => "arp",
        P::Rarp => "rarp",
        P::Sctp => "sctp",
        P::Tcp => "tcp",
        P::Udp => "udp",
        P::Icmp => "icmp",
        P::Igmp => "igmp",
        P::Igrp => "igrp",
        P::Pim => "pim",
        P::Vrrp => "vrrp",
        P::Carp => "carp",
        P::Atalk => "atalk",
        P::Aarp => "aarp",
        P::Decnet => "decnet",
        P::Lat => "lat",
        P::Sca => "sca",
        P::Moprc => "moprc",
        P::Mopdl => "mopdl",
        P::Ip6 => "ip6",
        P::Icmp6 => "icmp6",
        P::Ah => "ah",
        P::Esp => "esp",
        P::Iso => "iso",
        P::Esis => "esis",
        P::Isis => "isis",
        P::IsisL1 => "l1",
        P::IsisL2 => "l2",
        P::IsisIih => "iih",
        P::IsisLsp => "lsp",
        P::IsisSnp => "snp",
        P::IsisPsnp => "psnp",
        P::IsisCsnp => "csnp",
        P::Clnp => "clnp",
        P::Stp => "stp",
        P::Ipx => "ipx",
        P::Netbeui => "netbeui",
        P::Radio => "radio",
    }
}

impl Lowerer<'_> {
    /// gen_ncode: a number or a dotted address with host/net/port/... qualifiers.
    pub(crate) fn ncode(&mut self, s: Option<&str>, v: u32, q: Qual, span: Span) -> LResult<Tree> {
        let (mut v, vlen) = match s {
            None => (v, 32),
            Some(s) if q.proto == P::Decnet => match names::atodn(s) {
                Some(v) => (v, 32),
                None => return self.err_at(format!("malformed decnet address '{s}'"), span),
            },
            Some(s) => match names::atoin(s) {
                Some(x) => x,
                None => return self.err_at(format!("invalid IPv4 address '{s}'"), span),
            },
        };
        match q.addr {
            AddrType::Default | AddrType::Host | AddrType::Net => {
                if q.proto == P::Decnet {
                    return self.host(v, 0, q.proto, q.dir, q.addr);
                }
                if q.proto == P::Link {
                    return self.err_at("illegal link layer address", span);
                }
                let mut mask = u32::MAX;
                if s.is_none() && q.addr == AddrType::Net {
                    while v != 0 && v & 0xff00_0000 == 0 {
                        v <<= 8;
                        mask <<= 8;
                    }
                } else {
                    v = v.checked_shl(32 - vlen).unwrap_or(0);
                    mask = mask.checked_shl(32 - vlen).unwrap_or(0);
                }
                self.host(v, mask, q.proto, q.dir, q.addr)
            }
            AddrType::Port => {
                let proto = self.port_proto(q.proto, "port")?;
                if v > 65535 {
                    return self
                        .err_at(format!("port number {v} greater than maximum 65535"), span);
                }
                let b = self.port(v, proto, q.dir)?;
                let b6 = self.port6(v, proto, q.dir)?;
                Ok(Tree::or(b6, b))
            }
            AddrType::Portrange => {
                let proto = self.port_proto(q.proto, "portrange")?;
                if v > 65535 {
                    return self
                        .err_at(format!("port number {v} greater than maximum 65535"), span);
                }
                let b = self.portrange(v, v, proto, q.dir)?;
                let b6 = self.portrange6(v, v, proto, q.dir)?;
                Ok(Tree::or(b6, b))
            }
            AddrType::Gateway => self.err_at(
                format!("'gateway' is not a valid qualifier for '{v}'"),
                span,
            ),
            AddrType::Proto => self.proto(v, q.proto, q.dir, span),
            AddrType::Protochain => self.protochain(v, q.proto, span),
        }
    }

    /// gen_mcode: `net A/len` and `net A mask M`.
    pub(crate) fn mcode(
        &mut self,
        s1: &str,
        s2: Option<&String>,
        masklen: u32,
        q: Qual,
        span: Span,
    ) -> LResult<Tree> {
        let Some((n, nlen)) = names::atoin(s1) else {
            return self.err_at(format!("invalid IPv4 address '{s1}'"), span);
        };
        let n = n.checked_shl(32 - nlen).unwrap_or(0);
        let m = if let Some(s2) = s2 {
            let Some((m, mlen)) = names::atoin(s2) else {
                return self.err_at(format!("invalid IPv4 address '{s2}'"), span);
            };
            let m = m.checked_shl(32 - mlen).unwrap_or(0);
            if n & !m != 0 {
                return self.err_at(format!("non-network bits set in \"{s1} mask {s2}\""), span);
            }
            m
        } else {
            if masklen > 32 {
                return self.err_at(format!("mask length must be <= 32 (got {masklen})"), span);
            }
            let m = if masklen == 0 {
                0
            } else {
                u32::MAX << (32 - masklen)
            };
            if n & !m != 0 {
                return self.err_at(format!("non-network bits set in \"{s1}/{masklen}\""), span);
            }
            m
        };
        match q.addr {
            AddrType::Net => self.host(n, m, q.proto, q.dir, q.addr),
            _ => self.err_at("Mask syntax for networks only", span),
        }
    }

    /// gen_mcode6: an IPv6 address with an optional prefix length.
    pub(crate) fn mcode6(&mut self, s: &str, masklen: u32, q: Qual, span: Span) -> LResult<Tree> {
        let Ok(addr) = s.parse::<Ipv6Addr>() else {
            return self.err_at(format!("invalid ip6 address {s}"), span);
        };
        if masklen > 128 {
            return self.err_at("mask length must be <= 128", span);
        }
        let mask: u128 = if masklen == 0 {
            0
        } else {
            u128::MAX << (128 - masklen)
        };
        let a = u128::from(addr);
        if a & !mask != 0 {
            return self.err_at(format!("non-network bits set in \"{s}/{masklen}\""), span);
        }
        match q.addr {
            AddrType::Default | AddrType::Host if masklen != 128 => {
                self.err_at("Mask syntax for networks only", span)
            }
            AddrType::Default | AddrType::Host | AddrType::Net => {
                self.host6(a, mask, q.proto, q.dir, q.addr)
            }
            _ => self.err_at("invalid qualifier against IPv6 address", span),
        }
    }

    /// gen_ecode: a MAC address.
    pub(crate) fn ecode(&mut self, s: &str, q: Qual, span: Span) -> LResult<Tree> {
        if s.starts_with('$') {
            return self.acode(s, q, span);
        }
        if matches!(q.addr, AddrType::Host | AddrType::Default) && q.proto == P::Link {
            let Some(mac) = names::parse_mac(s) else {
                return self.err_at("invalid Ethernet address", span);
            };
            if self.link == super::Link::Wlan {
                return self.wlanhostop(&mac, q.dir);
            }
            return match self.mac_hostop(&mac, q.dir)? {
                Some(t) => Ok(t),
                None => self.err_at("ethernet addresses supported only on ethernet/FDDI/token ring/802.11/ATM LANE/Fibre Channel", span),
            };
        }
        self.err_at("Ethernet address used in non-ether expression", span)
    }

    /// The host/net part of gen_scode: a name.
    pub(crate) fn host_name(&mut self, name: &str, q: Qual, span: Span) -> LResult<Tree> {
        if q.addr == AddrType::Net {
            let Some(mut addr) = names::network(name) else {
                return self.err_at(format!("unknown network '{name}'"), span);
            };
            let mut mask = u32::MAX;
            while addr != 0 && addr & 0xff00_0000 == 0 {
                addr <<= 8;
                mask <<= 8;
            }
            return self.host(addr, mask, q.proto, q.dir, q.addr);
        }
        if q.proto == P::Link && self.link == super::Link::Wlan {
            let Some(mac) = names::ether_host(name) else {
                return self.err_at(format!("unknown 802.11 host '{name}'"), span);
            };
            return self.wlanhostop(&mac, q.dir);
        }
        if q.proto == P::Link {
            return self.link_host_name(name, q.dir, span);
        }
        if q.proto == P::Decnet {
            return self.err_at(
                format!("decnet name support not included, '{name}' cannot be translated"),
                span,
            );
        }
        let addrs = names::host_addrs(name);
        if addrs.is_empty() {
            return self.err_at(format!("unknown host '{name}'"), span);
        }
        let (mut t4, mut t6) = (q.proto, q.proto);
        if self.off_linktype.is_none() && q.proto == P::Default {
            t4 = P::Ip;
            t6 = P::Ip6;
        }
        let mut b: Option<Tree> = None;
        for a in addrs {
            let t = match a {
                IpAddr::V4(v4) => {
                    if t4 == P::Ip6 {
                        continue;
                    }
                    self.host(u32::from(v4), u32::MAX, t4, q.dir, q.addr)?
                }
                IpAddr::V6(v6) => {
                    if t6 == P::Ip {
                        continue;
                    }
                    self.host6(u128::from(v6), u128::MAX, t6, q.dir, q.addr)?
                }
            };
            b = Some(match b {
                Some(prev) => Tree::or(prev, t),
                None => t,
            });
        }
        match b {
            Some(t) => Ok(t),
            None => self.err_at(
                format!(
                    "unknown host '{name}'{}",
                    if q.proto == P::Default {
                        ""
                    } else {
                        " for specified address family"
                    }
                ),
                span,
            ),
        }
    }

    /// gen_host.
    pub(crate) fn host(
        &mut self,
        addr: u32,
        mask: u32,
        proto: P,
        dir: D,
        ty: AddrType,
    ) -> LResult<Tree> {
        match proto {
            P::Default => {
                let b0 = self.host(addr, mask, P::Ip, dir, ty)?;
                if self.label_stack_depth == 0 {
                    let b1 = self.host(addr, mask, P::Arp, dir, ty)?;
                    let b2 = self.host(addr, mask, P::Rarp, dir, ty)?;
                    return Ok(Tree::or(Tree::or(b0, b1), b2));
                }
                Ok(b0)
            }
            P::Link => self.err(format!("link-layer modifier applied to {}", typestr(ty))),
            P::Ip => self.hostop(addr, mask, dir, et::IP, 12, 16),
            P::Rarp => self.hostop(addr, mask, dir, et::REVARP, 14, 24),
            P::Arp => self.hostop(addr, mask, dir, et::ARP, 14, 24),
            P::Decnet => self.dnhostop(addr, dir),
            P::Atalk => self.err("AppleTalk host filtering not implemented"),
            P::Lat => self.err("LAT host filtering not implemented"),
            P::Sca => self.err("SCA host filtering not implemented"),
            P::Moprc => self.err("MOPRC host filtering not implemented"),
            P::Mopdl => self.err("MOPDL host filtering not implemented"),
            P::Aarp => self.err("AARP host filtering not implemented"),
            P::Iso => self.err("ISO host filtering not implemented"),
            P::Ipx => self.err("IPX host filtering not implemented"),
            P::Ip6 => self.err(format!("'ip6' modifier applied to ip {}", typestr(ty))),
            p => self.err(format!(
                "'{}' modifier applied to {}",
                proto_name(p),
                typestr(ty)
            )),
        }
    }

    fn dir_check(&self, dir: D, what: &str) -> LResult<()> {
        let msg = match dir {
            D::Addr1 => "'addr1' and 'address1' are not valid qualifiers for ",
            D::Addr2 => "'addr2' and 'address2' are not valid qualifiers for ",
            D::Addr3 => "'addr3' and 'address3' are not valid qualifiers for ",
            D::Addr4 => "'addr4' and 'address4' are not valid qualifiers for ",
            D::Ra => "'ra' is not a valid qualifier for ",
            D::Ta => "'ta' is not a valid qualifier for ",
            _ => return Ok(()),
        };
        self.err(format!("{msg}{what}"))
    }

    /// gen_hostop: a masked 32-bit address at src_off/dst_off of the network header.
    pub(crate) fn hostop(
        &mut self,
        addr: u32,
        mask: u32,
        dir: D,
        ll: u32,
        src: u32,
        dst: u32,
    ) -> LResult<Tree> {
        self.dir_check(dir, "addresses other than 802.11 MAC addresses")?;
        let offset = match dir {
            D::Src => src,
            D::Dst => dst,
            D::And => {
                let a = self.hostop(addr, mask, D::Src, ll, src, dst)?;
                return Ok(Tree::and(a, self.hostop(addr, mask, D::Dst, ll, src, dst)?));
            }
            _ => {
                let a = self.hostop(addr, mask, D::Src, ll, src, dst)?;
                return Ok(Tree::or(a, self.hostop(addr, mask, D::Dst, ll, src, dst)?));
            }
        };
        let b0 = self.linktype(ll)?;
        let b1 = self.mcmp(Rel::LinkPl, offset, Size::B4, addr, mask)?;
        Ok(Tree::and(b0, b1))
    }

    /// gen_host6.
    pub(crate) fn host6(
        &mut self,
        addr: u128,
        mask: u128,
        proto: P,
        dir: D,
        ty: AddrType,
    ) -> LResult<Tree> {
        match proto {
            P::Default | P::Ip6 => self.hostop6(addr, mask, dir, 8, 24),
            P::Ip => self.err(format!("'ip' modifier applied to ip6 {}", typestr(ty))),
            p => self.err(format!(
                "'{}' modifier applied to ip6 {}",
                proto_name(p),
                typestr(ty)
            )),
        }
    }

    fn hostop6(&mut self, addr: u128, mask: u128, dir: D, src: u32, dst: u32) -> LResult<Tree> {
        self.dir_check(dir, "addresses other than 802.11 MAC addresses")?;
        let offset = match dir {
            D::Src => src,
            D::Dst => dst,
            D::And => {
                let a = self.hostop6(addr, mask, D::Src, src, dst)?;
                return Ok(Tree::and(a, self.hostop6(addr, mask, D::Dst, src, dst)?));
            }
            _ => {
                let a = self.hostop6(addr, mask, D::Src, src, dst)?;
                return Ok(Tree::or(a, self.hostop6(addr, mask, D::Dst, src, dst)?));
            }
        };
        // gen_hostop6 makes the address tests before the link-type test, which
        // matters where they take registers (802.11's offsets); they run after it.
        let mut words = Vec::with_capacity(4);
        for i in 0..4u32 {
            let shift = 96 - 32 * i;
            let a = (addr >> shift) as u32;
            let m = (mask >> shift) as u32;
            words.push(self.mcmp(Rel::LinkPl, offset + 4 * i, Size::B4, a, m)?);
        }
        let mut parts = vec![self.linktype(et::IPV6)?];
        parts.extend(words);
        Ok(Tree::and_all(parts))
    }

    /// gen_ehostop: Ethernet source/destination addresses.
    pub(crate) fn ehostop(&mut self, mac: &[u8; 6], dir: D) -> LResult<Tree> {
        match dir {
            D::Src => self.bcmp(Rel::LinkHdr, 6, mac),
            D::Dst => self.bcmp(Rel::LinkHdr, 0, mac),
            D::And => {
                let a = self.ehostop(mac, D::Src)?;
                Ok(Tree::and(a, self.ehostop(mac, D::Dst)?))
            }
            D::Default | D::Or => {
                let a = self.ehostop(mac, D::Src)?;
                Ok(Tree::or(a, self.ehostop(mac, D::Dst)?))
            }
            D::Addr1 => {
                self.err("'addr1' and 'address1' are only supported on 802.11 with 802.11 headers")
            }
            D::Addr2 => {
                self.err("'addr2' and 'address2' are only supported on 802.11 with 802.11 headers")
            }
            D::Addr3 => {
                self.err("'addr3' and 'address3' are only supported on 802.11 with 802.11 headers")
            }
            D::Addr4 => {
                self.err("'addr4' and 'address4' are only supported on 802.11 with 802.11 headers")
            }
            D::Ra => self.err("'ra' is only supported on 802.11 with 802.11 headers"),
            D::Ta => self.err("'ta' is only supported on 802.11 with 802.11 headers"),
        }
    }

    /// gen_dnhostop: DECnet short and long data headers, with and without padding.
    fn dnhostop(&mut self, addr: u32, dir: D) -> LResult<Tree> {
        self.dir_check(dir, "addresses other than 802.11 MAC addresses")?;
        let (sh, lh) = match dir {
            D::Dst => (1, 7),
            D::Src => (3, 15),
            D::And => {
                let a = self.dnhostop(addr, D::Src)?;
                return Ok(Tree::and(a, self.dnhostop(addr, D::Dst)?));
            }
            _ => {
                let a = self.dnhostop(addr, D::Src)?;
                return Ok(Tree::or(a, self.dnhostop(addr, D::Dst)?));
            }
        };
        // Addresses are little-endian on the wire.
        let a = (addr as u16).swap_bytes() as u32;
        let b0 = self.linktype(et::DN)?;
        // Padded long header.
        let t = self.mcmp(Rel::LinkPl, 2, Size::B2, 0x8106, 0xff07)?;
        let b1 = Tree::and(t, self.cmp(Rel::LinkPl, 2 + 1 + lh, Size::B2, a)?);
        // Unpadded long header.
        let t = self.mcmp(Rel::LinkPl, 2, Size::B1, 0x06, 0x07)?;
        let b2 = Tree::and(t, self.cmp(Rel::LinkPl, 2 + lh, Size::B2, a)?);
        let b1 = Tree::or(b2, b1);
        // Padded short header.
        let t = self.mcmp(Rel::LinkPl, 2, Size::B2, 0x8102, 0xff07)?;
        let b2 = Tree::and(t, self.cmp(Rel::LinkPl, 2 + 1 + sh, Size::B2, a)?);
        let b1 = Tree::or(b2, b1);
        // Unpadded short header.
        let t = self.mcmp(Rel::LinkPl, 2, Size::B1, 0x02, 0x07)?;
        let b2 = Tree::and(t, self.cmp(Rel::LinkPl, 2 + sh, Size::B2, a)?);
        let b1 = Tree::or(b2, b1);
        Ok(Tree::and(b0, b1))
    }

    /// gen_scode: a name operand.
    pub(crate) fn scode(&mut self, name: &str, q: Qual, span: Span) -> LResult<Tree> {
        match q.addr {
            AddrType::Net | AddrType::Default | AddrType::Host => self.host_name(name, q, span),
            AddrType::Port => self.port_name(name, q, span),
            AddrType::Portrange => self.portrange_name(name, q, span),
            AddrType::Gateway => self
                .err_at("'gateway' is not supported by netsift", span)
                .map_err(|e| e.with_kind(crate::ErrorKind::Unsupported)),
            AddrType::Proto => {
                let v = self.lookup_proto(name, q.proto, span)?;
                self.proto(v, q.proto, q.dir, span)
            }
            AddrType::Protochain => {
                let v = self.lookup_proto(name, q.proto, span)?;
                self.protochain(v, q.proto, span)
            }
        }
    }

    #[allow(dead_code)]
    fn unused(&self, _: &Id) {}
}
