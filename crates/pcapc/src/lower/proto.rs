//! Protocol primitives: libpcap's gen_proto_abbrev, gen_proto, gen_protochain and
//! lookup_proto.

use super::host::proto_name;
use super::ir::{Cmp, Loc, Pred, Test, Tree};
use super::link::{et, sap};
use super::names;
use super::{LResult, Lowerer, Rel, Span, D, P};
use netsift_isa::Size;

pub(crate) const ISO9542_ESIS: u32 = 0x82;
pub(crate) const ISO10589_ISIS: u32 = 0x83;
pub(crate) const ISO8473_CLNP: u32 = 0x81;
/// Past this constant offset no frame has a byte.
const FAR: u32 = 0xffff;

const ISIS_L1_LAN_IIH: u32 = 15;
const ISIS_L2_LAN_IIH: u32 = 16;
const ISIS_PTP_IIH: u32 = 17;
const ISIS_L1_LSP: u32 = 18;
const ISIS_L2_LSP: u32 = 20;
const ISIS_L1_CSNP: u32 = 24;
const ISIS_L2_CSNP: u32 = 25;
const ISIS_L1_PSNP: u32 = 26;
const ISIS_L2_PSNP: u32 = 27;

impl Lowerer<'_> {
    /// A protocol name on its own (`tcp`, `ip6`, `l1`, ...).
    pub(crate) fn proto_abbrev(&mut self, p: P) -> LResult<Tree> {
        let span = self.span;
        match p {
            P::Sctp => self.proto(132, P::Default, D::Default, span),
            P::Tcp => self.proto(6, P::Default, D::Default, span),
            P::Udp => self.proto(17, P::Default, D::Default, span),
            P::Icmp => self.proto(1, P::Ip, D::Default, span),
            P::Igmp => self.proto(2, P::Ip, D::Default, span),
            P::Igrp => self.proto(9, P::Ip, D::Default, span),
            P::Pim => self.proto(103, P::Default, D::Default, span),
            P::Vrrp | P::Carp => self.proto(112, P::Ip, D::Default, span),
            P::Ip => self.linktype(et::IP),
            P::Arp => self.linktype(et::ARP),
            P::Rarp => self.linktype(et::REVARP),
            P::Link => self.err("link layer applied in wrong context"),
            P::Atalk => self.linktype(et::ATALK),
            P::Aarp => self.linktype(et::AARP),
            P::Decnet => self.linktype(et::DN),
            P::Sca => self.linktype(et::SCA),
            P::Lat => self.linktype(et::LAT),
            P::Mopdl => self.linktype(et::MOPDL),
            P::Moprc => self.linktype(et::MOPRC),
            P::Ip6 => self.linktype(et::IPV6),
            P::Icmp6 => self.proto(58, P::Ip6, D::Default, span),
            P::Ah => self.proto(51, P::Default, D::Default, span),
            P::Esp => self.proto(50, P::Default, D::Default, span),
            P::Iso => self.linktype(sap::ISONS),
            P::Esis => self.proto(ISO9542_ESIS, P::Iso, D::Default, span),
            P::Isis => self.proto(ISO10589_ISIS, P::Iso, D::Default, span),
            P::IsisL1 => self.isis_any(&[
                ISIS_L1_LAN_IIH,
                ISIS_PTP_IIH,
                ISIS_L1_LSP,
                ISIS_L1_CSNP,
                ISIS_L1_PSNP,
            ]),
            P::IsisL2 => self.isis_any(&[
                ISIS_L2_LAN_IIH,
                ISIS_PTP_IIH,
                ISIS_L2_LSP,
                ISIS_L2_CSNP,
                ISIS_L2_PSNP,
            ]),
            P::IsisIih => self.isis_any(&[ISIS_L1_LAN_IIH, ISIS_L2_LAN_IIH, ISIS_PTP_IIH]),
            P::IsisLsp => self.isis_any(&[ISIS_L1_LSP, ISIS_L2_LSP]),
            P::IsisSnp => self.isis_any(&[ISIS_L1_CSNP, ISIS_L2_CSNP, ISIS_L1_PSNP, ISIS_L2_PSNP]),
            P::IsisCsnp => self.isis_any(&[ISIS_L1_CSNP, ISIS_L2_CSNP]),
            P::IsisPsnp => self.isis_any(&[ISIS_L1_PSNP, ISIS_L2_PSNP]),
            P::Clnp => self.proto(ISO8473_CLNP, P::Iso, D::Default, span),
            P::Stp => self.linktype(sap::STP),
            P::Ipx => self.linktype(sap::IPX),
            P::Netbeui => self.linktype(sap::NETBEUI),
            P::Radio => self.err("'radio' is not a valid protocol type"),
            P::Default => self.err("syntax error"),
        }
    }

    /// libpcap builds these as `or(t0, t1)`, then `or(t2, ..)`, `or(t3, ..)`: each later
    /// type is tested before the ones already joined. Mirror that order.
    fn isis_any(&mut self, types: &[u32]) -> LResult<Tree> {
        let span = self.span;
        let mut acc = self.proto(types[0], P::Isis, D::Default, span)?;
        let second = self.proto(types[1], P::Isis, D::Default, span)?;
        acc = Tree::or(acc, second);
        for &t in &types[2..] {
            let b0 = self.proto(t, P::Isis, D::Default, span)?;
            acc = Tree::or(b0, acc);
        }
        Ok(acc)
    }

    /// gen_proto: `[proto] proto V`.
    pub(crate) fn proto(&mut self, v: u32, proto: P, dir: D, span: Span) -> LResult<Tree> {
        if dir != D::Default {
            return self.err_at("direction applied to 'proto'", span);
        }
        match proto {
            P::Default => {
                let b0 = self.proto(v, P::Ip, dir, span)?;
                let b1 = self.proto(v, P::Ip6, dir, span)?;
                Ok(Tree::or(b0, b1))
            }
            P::Link => self.linktype(v),
            P::Ip => {
                let b0 = self.linktype(et::IP)?;
                let b1 = self.cmp(Rel::LinkPl, 9, Size::B1, v)?;
                Ok(Tree::and(b0, b1))
            }
            P::Ip6 => {
                let b0 = self.linktype(et::IPV6)?;
                let direct = self.cmp(Rel::LinkPl, 6, Size::B1, v)?;
                let frag = self.cmp(Rel::LinkPl, 6, Size::B1, 44)?;
                let after = self.cmp(Rel::LinkPl, 40, Size::B1, v)?;
                Ok(Tree::and(b0, Tree::or(direct, Tree::and(frag, after))))
            }
            P::Iso => {
                if let Some(t) = self.iso_proto_link(v)? {
                    return Ok(t);
                }
                let b0 = self.linktype(sap::ISONS)?;
                let b1 = self.cmp(Rel::LinkPlNoSnap, 0, Size::B1, v)?;
                Ok(Tree::and(b0, b1))
            }
            P::Isis => {
                let b0 = self.proto(ISO10589_ISIS, P::Iso, D::Default, span)?;
                let b1 = self.cmp(Rel::LinkPlNoSnap, 4, Size::B1, v)?;
                Ok(Tree::and(b0, b1))
            }
            P::Arp | P::Rarp => self.err_at(
                format!(
                    "{} does not encapsulate another protocol",
                    proto_name(proto)
                ),
                span,
            ),
            P::Atalk => self.err_at("AppleTalk encapsulation is not specifiable", span),
            P::Decnet => self.err_at("DECNET encapsulation is not specifiable", span),
            P::Lat | P::Sca | P::Moprc | P::Mopdl => self.err_at(
                format!(
                    "{} does not encapsulate another protocol",
                    proto_name(proto).to_uppercase()
                ),
                span,
            ),
            P::Clnp => self.err_at("'clnp proto' is not supported", span),
            p => self.err_at(format!("'{} proto' is bogus", proto_name(p)), span),
        }
    }

    /// gen_protochain.
    pub(crate) fn protochain(&mut self, v: u32, proto: P, span: Span) -> LResult<Tree> {
        // gen_protochain takes a scratch register before anything else and frees
        // it at the end, except when it returns early for `protochain` without
        // `ip`/`ip6`, after calling itself for both: that register stays taken for
        // the rest of the filter (`protochain 1 or geneve and geneve and geneve or
        // geneve or (3 | (15304 % 79 % 2)) >= 0x1d` needs 17 and is refused).
        self.hold_registers(1)?;
        let t = self.protochain_taken(v, proto, span)?;
        if proto != P::Default {
            self.regs_held -= 1;
        }
        Ok(t)
    }

    fn protochain_taken(&mut self, v: u32, proto: P, span: Span) -> LResult<Tree> {
        match proto {
            P::Default => {
                let a = self.protochain(v, P::Ip, span)?;
                let b = self.protochain(v, P::Ip6, span)?;
                Ok(Tree::or(a, b))
            }
            P::Ip | P::Ip6 => {
                // PFLOG's payload offset is variable even where a relation's value
                // replaced it (and after `pppoes`, which keeps it variable).
                let pflog = self.target.linktype == netsift_wire::LinkType::PFLOG;
                if self.off_linkpl.var != 0 || pflog {
                    return self.err_at(
                        "'protochain' not supported with variable length headers",
                        span,
                    );
                }
                // Its loop is a backward branch: libpcap turns the optimizer off.
                self.no_optimize = true;
                let (ll, version) = if proto == P::Ip {
                    (et::IP, 4)
                } else {
                    (et::IPV6, 6)
                };
                let b0 = self.linktype(ll)?;
                let nl = self.loc(Rel::LinkPl, 0)?;
                if nl.anchor == 0 && nl.off > FAR {
                    return Ok(Tree::and(b0, protochain_far(nl.off, version, v)));
                }
                Ok(Tree::and(
                    b0,
                    Tree::Atom(Pred::Protochain {
                        nl,
                        version,
                        proto: v,
                    }),
                ))
            }
            _ => self.err_at("bad protocol applied for 'protochain'", span),
        }
    }

    /// lookup_proto: a protocol name in the namespace of the qualifier.
    pub(crate) fn lookup_proto(&mut self, name: &str, proto: P, span: Span) -> LResult<u32> {
        match proto {
            P::Default | P::Ip | P::Ip6 => match names::protocol(name) {
                Some(v) => Ok(v),
                None => self.err_at(format!("unknown ip proto '{name}'"), span),
            },
            P::Link => match names::ether_proto(name) {
                Some(v) => Ok(v),
                None => self.err_at(format!("unknown ether proto '{name}'"), span),
            },
            P::Iso => match name {
                "esis" => Ok(ISO9542_ESIS),
                "isis" => Ok(ISO10589_ISIS),
                "clnp" => Ok(ISO8473_CLNP),
                _ => self.err_at(format!("unknown osi proto '{name}'"), span),
            },
            _ => self.err_at(format!("unknown protocol: {name}"), span),
        }
    }
}

/// gen_protochain where the network header's offset is a constant no frame
/// reaches: libpcap's unset link-payload offset (-1) on the Juniper types,
/// whose sums wrap in 32 bits when it compiles. Its first protocol byte is an
/// absolute load at that offset plus 6 (IPv6) or 9 (IPv4), wrapped (`ldb [4]`
/// for -1 + -1 + 6), and every load after it is indexed by the offset itself,
/// which lies past the frame and faults. So IPv6: the byte is the protocol
/// wanted, or it names an extension header or AH, whose walk faults at once, or
/// the chain ends there; IPv4 reads its header length next, and faults.
fn protochain_far(nl: u32, version: u32, want: u32) -> Tree {
    let byte = |at: u32, k: u32| {
        Tree::Atom(Pred::Cmp(Cmp {
            loc: Loc { anchor: 0, off: at },
            size: Size::B1,
            mask: 0xff,
            test: Test::Eq(k),
        }))
    };
    // A load past every frame: a fault wherever it runs.
    let fault = byte(nl, 0);
    if version == 4 {
        return fault;
    }
    let first = nl.wrapping_add(6);
    let walks = [0, 60, 43, 44, 51].map(|k| byte(first, k));
    Tree::or(
        byte(first, want),
        Tree::and(Tree::Or(walks.to_vec()), fault),
    )
}
