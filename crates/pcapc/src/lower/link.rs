//! Link-layer tests: libpcap's gen_linktype and its per-link helpers, the
//! encapsulations that shift later offsets (`vlan`, `mpls`, `pppoes`), LLC, and the
//! link-level primitives (`inbound`, `ifindex`, `broadcast`, `multicast`, `byte`).

mod atm;
mod juniper;
mod lan;
mod llc;
mod mtp;
mod opaque;
mod pflog;
mod ppp;
mod wlan;

use super::ir::{Cmp, Loc, Pred, Test, Tree};
use super::{ByteOp, LResult, Link, Llc, Lowerer, Off, Rel, RelOp, P};
use crate::syntax::ast::Telco;
pub(crate) use juniper::juniper_init;
use netsift_isa::{AnchorRule, Size};
use netsift_wire::LinkType;
pub(crate) use opaque::opaque_label;
pub(crate) use wlan::{Step, WlanRegs};

pub(crate) const ETHERMTU: u32 = 1500;
pub(crate) mod et {
    pub(crate) const IP: u32 = 0x0800;
    pub(crate) const ARP: u32 = 0x0806;
    pub(crate) const REVARP: u32 = 0x8035;
    pub(crate) const IPV6: u32 = 0x86dd;
    pub(crate) const DN: u32 = 0x6003;
    pub(crate) const LAT: u32 = 0x6004;
    pub(crate) const SCA: u32 = 0x6007;
    pub(crate) const MOPDL: u32 = 0x6001;
    pub(crate) const MOPRC: u32 = 0x6002;
    pub(crate) const ATALK: u32 = 0x809b;
    pub(crate) const AARP: u32 = 0x80f3;
    pub(crate) const IPX: u32 = 0x8137;
    pub(crate) const NS: u32 = 0x0600;
    pub(crate) const VLAN_8021Q: u32 = 0x8100;
    pub(crate) const VLAN_8021AD: u32 = 0x88a8;
    pub(crate) const VLAN_QINQ: u32 = 0x9100;
    pub(crate) const MPLS: u32 = 0x8847;
    pub(crate) const PPPOED: u32 = 0x8863;
    pub(crate) const PPPOES: u32 = 0x8864;
}
pub(crate) mod sap {
    pub(crate) const IP: u32 = 0x06;
    pub(crate) const STP: u32 = 0x42;
    pub(crate) const SNAP: u32 = 0xaa;
    pub(crate) const IPX: u32 = 0xe0;
    pub(crate) const NETBEUI: u32 = 0xf0;
    pub(crate) const ISONS: u32 = 0xfe;
}
const SLL_P_802_3: u32 = 0x0001;
const SLL_P_802_2: u32 = 0x0004;
const SLL_OUTGOING: u32 = 4;
/// Linux's ancillary-data area (`SKF_AD_OFF`, -0x1000 as a load offset) and the
/// two fields of it gencode tests: the packet type (`SKF_AD_PKTTYPE`, compared with
/// `PACKET_OUTGOING`) and the interface index (`SKF_AD_IFINDEX`).
const SKF_AD_OFF: u32 = 0xffff_f000;
const SKF_AD_PKTTYPE: u32 = 4;
const SKF_AD_IFINDEX: u32 = 8;
const PACKET_OUTGOING: u32 = 4;
const PPP_MPLS_UCAST: u32 = 0x0281;
/// gen_multicast's refusal for a link (or protocol) without multicast addresses.
const LINK_MULTICAST_ONLY: &str = "link-layer multicast filters supported only on \
     ethernet/FDDI/token ring/ARCNET/802.11/ATM LANE/Fibre Channel";

/// (off_nl, off_nl_nosnap) at the start: where the network layer begins past the
/// link payload's start, with and without 802.2 SNAP.
pub(crate) fn nl_offsets(link: Link, lt: LinkType) -> (u32, u32) {
    if let Some((_, _, nl, nosnap)) = juniper::juniper_offsets(lt) {
        return (nl, nosnap);
    }
    match link {
        Link::En10mb => (0, 3),
        Link::Fddi | Link::TokenRing | Link::IpOverFc | Link::AtmLlc | Link::Sunatm => (8, 3),
        _ => (0, 0),
    }
}

fn ethertype_to_ppptype(p: u32) -> u32 {
    match p {
        et::IP => 0x0021,
        et::IPV6 => 0x0057,
        et::DN => 0x0027,
        et::ATALK => 0x0029,
        et::NS => 0x0025,
        sap::ISONS => 0x0023,
        sap::STP => 0x0031,
        sap::IPX => 0x002b,
        p => p,
    }
}

impl Lowerer<'_> {
    /// Tests that the link layer carries `ll_proto` (an Ethertype or an LLC SAP).
    pub(crate) fn linktype(&mut self, ll_proto: u32) -> LResult<Tree> {
        if self.label_stack_depth > 0 {
            return self.mpls_linktype(ll_proto);
        }
        match self.link {
            Link::En10mb => {
                let b = self.ether_linktype(ll_proto)?;
                Ok(match self.lane_check() {
                    Some(c) if self.geneve_udp.is_none() => Tree::and(c, b),
                    _ => b,
                })
            }
            Link::Sll => self.sll_linktype(ll_proto),
            Link::Raw | Link::Slip | Link::SlipBsdos => Ok(match ll_proto {
                et::IP => self.mcmp(Rel::LinkHdr, 0, Size::B1, 0x40, 0xf0)?,
                et::IPV6 => self.mcmp(Rel::LinkHdr, 0, Size::B1, 0x60, 0xf0)?,
                _ => Tree::Const(false),
            }),
            Link::Ipv4 => Ok(Tree::Const(ll_proto == et::IP)),
            Link::Ipv6 => Ok(Tree::Const(ll_proto == et::IPV6)),
            Link::Ppp | Link::PppSerial | Link::PppPppd => {
                self.cmp(Rel::LinkType, 0, Size::B2, ethertype_to_ppptype(ll_proto))
            }
            Link::PppBsdos => self.ppp_bsdos_linktype(ll_proto),
            Link::CHdlc => self.chdlc_linktype(ll_proto),
            Link::Frelay => self.frelay_linktype(ll_proto),
            Link::Ipnet => self.ipnet_linktype(ll_proto),
            Link::Pflog => self.pflog_linktype(ll_proto),
            Link::Opaque => self.opaque_linktype(),
            Link::Fddi | Link::TokenRing | Link::IpOverFc | Link::AtmLlc => {
                self.llc_linktype(ll_proto)
            }
            Link::Sunatm => self.sunatm_linktype(ll_proto),
            Link::Arcnet => self.arcnet_linktype(ll_proto),
            Link::Ieee1394 => self.cmp(Rel::LinkType, 0, Size::B2, ll_proto),
            Link::Mtp2 => self.mtp2_linktype(),
            Link::Juniper => self.juniper_linktype(),
            Link::Wlan => self.wlan_linktype(ll_proto),
            Link::Null | Link::Loop | Link::Enc => match ll_proto {
                et::IP => self.loopback_linktype(2),
                et::IPV6 => match self.target.savefile_swapped {
                    // Reading a file: any OS's AF_INET6 (BSD 24, FreeBSD 28, Darwin 30).
                    Some(_) => {
                        let a = self.loopback_linktype(24)?;
                        let b = self.loopback_linktype(28)?;
                        let c = self.loopback_linktype(30)?;
                        Ok(Tree::or(Tree::or(a, b), c))
                    }
                    // Live/dead: this machine's AF_INET6 (Linux: 10).
                    None => self.loopback_linktype(10),
                },
                _ => Ok(Tree::Const(false)),
            },
            // SLL2 uses the generic path: an Ethertype at off_linktype; LLC SAPs
            // (<= 1500) compare the same way, as libpcap's default case does.
            Link::Sll2 => self.cmp(Rel::LinkType, 0, Size::B2, ll_proto),
        }
    }

    fn loopback_linktype(&mut self, af: u32) -> LResult<Tree> {
        let v = if matches!(self.link, Link::Null | Link::Enc) {
            // DLT_NULL (and DLT_ENC) holds the AF in the capturing host's byte order. libpcap
            // compares against htonl(af) on this (little-endian) machine, swapped again
            // if the file's byte order differs from ours.
            match self.target.savefile_swapped {
                Some(true) => af,
                _ => af.swap_bytes(),
            }
        } else {
            af
        };
        self.cmp(Rel::LinkHdr, 0, Size::B4, v)
    }

    fn ether_linktype(&mut self, ll_proto: u32) -> LResult<Tree> {
        match ll_proto {
            sap::ISONS | sap::IP | sap::NETBEUI => {
                let b0 = Tree::not(self.cmp_gt(Rel::LinkType, 0, Size::B2, ETHERMTU)?);
                let b1 = self.cmp(Rel::Llc, 0, Size::B2, ll_proto << 8 | ll_proto)?;
                Ok(Tree::and(b0, b1))
            }
            sap::IPX => {
                let a = self.cmp(Rel::Llc, 0, Size::B1, sap::IPX)?;
                let b = self.cmp(Rel::Llc, 0, Size::B2, 0xffff)?;
                let snap = self.snap(0x000000, et::IPX)?;
                let llc = Tree::or(snap, Tree::or(a, b));
                let not8023 = Tree::not(self.cmp_gt(Rel::LinkType, 0, Size::B2, ETHERMTU)?);
                let dix = self.cmp(Rel::LinkType, 0, Size::B2, et::IPX)?;
                Ok(Tree::or(dix, Tree::and(not8023, llc)))
            }
            et::ATALK | et::AARP => {
                let not8023 = Tree::not(self.cmp_gt(Rel::LinkType, 0, Size::B2, ETHERMTU)?);
                let snap = if ll_proto == et::ATALK {
                    self.snap(0x080007, et::ATALK)?
                } else {
                    self.snap(0x000000, et::AARP)?
                };
                let dix = self.cmp(Rel::LinkType, 0, Size::B2, ll_proto)?;
                Ok(Tree::or(dix, Tree::and(not8023, snap)))
            }
            p if p <= ETHERMTU => {
                let not8023 = Tree::not(self.cmp_gt(Rel::LinkType, 0, Size::B2, ETHERMTU)?);
                let b1 = self.cmp(Rel::LinkType, 2, Size::B1, p)?;
                Ok(Tree::and(not8023, b1))
            }
            p => self.cmp(Rel::LinkType, 0, Size::B2, p),
        }
    }

    fn sll_linktype(&mut self, ll_proto: u32) -> LResult<Tree> {
        match ll_proto {
            sap::ISONS | sap::IP | sap::NETBEUI => {
                let b0 = self.cmp(Rel::LinkType, 0, Size::B2, SLL_P_802_2)?;
                let b1 = self.cmp(Rel::Llc, 0, Size::B2, ll_proto << 8 | ll_proto)?;
                Ok(Tree::and(b0, b1))
            }
            sap::IPX => {
                let a = self.cmp(Rel::Llc, 0, Size::B1, sap::IPX)?;
                let snap = self.snap(0x000000, et::IPX)?;
                let llc = self.cmp(Rel::LinkType, 0, Size::B2, SLL_P_802_2)?;
                let b = Tree::and(llc, Tree::or(a, snap));
                let raw = self.cmp(Rel::LinkType, 0, Size::B2, SLL_P_802_3)?;
                let dix = self.cmp(Rel::LinkType, 0, Size::B2, et::IPX)?;
                Ok(Tree::or(dix, Tree::or(raw, b)))
            }
            et::ATALK | et::AARP => {
                let b0 = self.cmp(Rel::LinkType, 0, Size::B2, SLL_P_802_2)?;
                let snap = if ll_proto == et::ATALK {
                    self.snap(0x080007, et::ATALK)?
                } else {
                    self.snap(0x000000, et::AARP)?
                };
                let dix = self.cmp(Rel::LinkType, 0, Size::B2, ll_proto)?;
                Ok(Tree::or(dix, Tree::and(b0, snap)))
            }
            p if p <= ETHERMTU => {
                let b0 = self.cmp(Rel::LinkType, 0, Size::B2, SLL_P_802_2)?;
                let k = self.off_linkpl.k;
                let b1 = self.cmp(Rel::LinkHdr, k, Size::B1, p)?;
                Ok(Tree::and(b0, b1))
            }
            p => self.cmp(Rel::LinkType, 0, Size::B2, p),
        }
    }

    fn mpls_linktype(&mut self, ll_proto: u32) -> LResult<Tree> {
        let version = match ll_proto {
            et::IP => 0x40,
            et::IPV6 => 0x60,
            _ => return self.err("unsupported protocol over mpls"),
        };
        // Bottom-of-stack bit of the last label, then the IP version nibble.
        let b0 = self.mcmp(Rel::LinkPl, (-2i32) as u32, Size::B1, 0x01, 0x01)?;
        let b1 = self.mcmp(Rel::LinkPl, 0, Size::B1, version, 0xf0)?;
        Ok(Tree::and(b0, b1))
    }

    /// An 802.2 SNAP header with `orgcode` and `ptype`.
    pub(crate) fn snap(&mut self, orgcode: u32, ptype: u32) -> LResult<Tree> {
        let block = [
            sap::SNAP as u8,
            sap::SNAP as u8,
            0x03,
            (orgcode >> 16) as u8,
            (orgcode >> 8) as u8,
            orgcode as u8,
            (ptype >> 8) as u8,
            ptype as u8,
        ];
        self.bcmp(Rel::Llc, 0, &block)
    }

    pub(crate) fn vlan(&mut self, vid: Option<u32>) -> LResult<Tree> {
        if self.label_stack_depth > 0 {
            return self.err("no VLAN match after MPLS");
        }
        let wlan = self.link == Link::Wlan && self.target.linktype != LinkType::PPI;
        if self.link != Link::En10mb && !wlan {
            return self.err(format!("no VLAN support for {}", self.link_description()));
        }
        if self.vlan_stack_depth == 0 && self.stripped_tag() {
            // The outermost tag, which the kernel took out: libpcap's
            // gen_vlan_bpf_extensions tests the socket's SKF_AD_VLAN_TAG_PRESENT
            // (true) and SKF_AD_VLAN_TAG, here the tag put back at byte 12, and
            // moves no offset: its filter reads the frame without the tag.
            if let Some(v) = vid {
                if v > 0x0fff {
                    return self.err(format!("VLAN tag {v} greater than maximum 4095"));
                }
            }
            self.vlan_stack_depth += 1;
            return match vid {
                Some(v) => self.mcmp(Rel::PutBackTag, 2, Size::B2, v, 0x0fff),
                None => Ok(Tree::Const(true)),
            };
        }
        let a = self.linktype(et::VLAN_8021Q)?;
        let b = self.linktype(et::VLAN_8021AD)?;
        let c = self.linktype(et::VLAN_QINQ)?;
        let mut t = Tree::or(Tree::or(a, b), c);
        if let Some(v) = vid {
            if v > 0x0fff {
                return self.err(format!("VLAN tag {v} greater than maximum 4095"));
            }
            t = Tree::and(t, self.mcmp(Rel::LinkPl, 0, Size::B2, v, 0x0fff)?);
        }
        self.off_linkpl.k = self.off_linkpl.k.wrapping_add(4);
        if let Some(o) = self.off_linktype.as_mut() {
            o.k = o.k.wrapping_add(4);
        }
        self.vlan_stack_depth += 1;
        Ok(t)
    }

    pub(crate) fn mpls(&mut self, label: Option<u32>) -> LResult<Tree> {
        let mut b0 = if self.label_stack_depth > 0 {
            self.mcmp(Rel::PrevMplsHdr, 2, Size::B1, 0, 0x01)?
        } else {
            match self.link {
                Link::En10mb | Link::CHdlc => self.linktype(et::MPLS)?,
                Link::Ppp => self.linktype(PPP_MPLS_UCAST)?,
                _ => return self.err(format!("no MPLS support for {}", self.link_description())),
            }
        };
        if let Some(l) = label {
            if l > 0xfffff {
                return self.err(format!("MPLS label {l} greater than maximum 1048575"));
            }
            b0 = Tree::and(
                b0,
                self.mcmp(Rel::LinkPl, 0, Size::B4, l << 12, 0xfffff000)?,
            );
        }
        // Wrapping: a Juniper link type may leave these offsets unset (-1).
        self.off_nl_nosnap = self.off_nl_nosnap.wrapping_add(4);
        self.off_nl = self.off_nl.wrapping_add(4);
        self.label_stack_depth += 1;
        Ok(b0)
    }

    pub(crate) fn pppoed(&mut self) -> LResult<Tree> {
        self.linktype(et::PPPOED)
    }

    pub(crate) fn pppoes(&mut self, sess: Option<u32>) -> LResult<Tree> {
        let mut b0 = self.linktype(et::PPPOES)?;
        if let Some(s) = sess {
            if s > 0xffff {
                return self.err(format!(
                    "PPPoE session number {s} greater than maximum 65535"
                ));
            }
            b0 = Tree::and(b0, self.mcmp(Rel::LinkPl, 0, Size::B4, s, 0xffff)?);
        }
        // The PPP header starts 6 bytes past the PPPoE header; later primitives see
        // PPP framing (libpcap's PUSH_LINKHDR to DLT_PPP).
        // Wrapping: a Juniper link type may leave these offsets unset (-1).
        let hdr = Off {
            var: self.off_linkpl.var,
            k: self.off_linkpl.k.wrapping_add(self.off_nl).wrapping_add(6),
        };
        self.link = Link::Ppp;
        self.desc = "PPP";
        self.off_linkhdr = hdr;
        self.off_linktype = Some(hdr);
        self.off_linkpl = Off {
            var: hdr.var,
            k: hdr.k.wrapping_add(2),
        };
        self.off_nl = 0;
        self.off_nl_nosnap = 0;
        Ok(b0)
    }

    /// gen_geneve: Geneve over UDP port 6081 on IPv4 (gen_geneve4) or IPv6
    /// (gen_geneve6), optionally with a VNI; later primitives then look at the
    /// encapsulated frame (gen_geneve_offsets): an Ethernet frame if the Geneve protocol
    /// type is 0x6558 (TEB), else the payload itself with the protocol type as its
    /// link type. libpcap turns its optimizer off for such a filter.
    pub(crate) fn geneve(&mut self, vni: Option<u32>) -> LResult<Tree> {
        let b4 = self.geneve_check(false, vni)?;
        let b6 = self.geneve_check(true, vni)?;
        let found = Tree::or(b4, b6);

        // The outer IP header ends where the branch that matched says: after the
        // IPv4 header length (gen_loadx_iphdrlen) or 40 bytes. The branch is the one
        // whose link-type test held; the anchor rule repeats that test.
        let ip = Off {
            var: self.off_linkpl.var,
            k: self.off_linkpl.k.wrapping_add(self.off_nl),
        };
        let adjacent = |w: u32| {
            ip.k >= w
                && self.off_linktype
                    == Some(Off {
                        var: ip.var,
                        k: ip.k - w,
                    })
        };
        let udp = if self.label_stack_depth > 0 {
            self.anchor(AnchorRule::IpPayloadByVersion, ip.var, ip.k)
        } else {
            match self.link {
                Link::Ipv4 => self.anchor(AnchorRule::Ipv4Payload, ip.var, ip.k),
                Link::Ipv6 => self.anchor(AnchorRule::Const, ip.var, ip.k.wrapping_add(40)),
                Link::En10mb
                | Link::Sll
                | Link::Ppp
                | Link::PppSerial
                | Link::PppPppd
                | Link::CHdlc
                    if adjacent(2) =>
                {
                    self.anchor(AnchorRule::IpPayloadByType, ip.var, ip.k)
                }
                Link::Null | Link::Loop if adjacent(4) => {
                    self.anchor(AnchorRule::IpPayloadByAf, ip.var, ip.k)
                }
                // The SNAP Ethertype libpcap tested is just before the IP header.
                Link::Fddi | Link::TokenRing | Link::IpOverFc | Link::AtmLlc | Link::Sunatm
                    if self.off_nl == 8 && self.off_linkpl.var == ip.var =>
                {
                    self.anchor(AnchorRule::IpPayloadByType, ip.var, ip.k)
                }
                _ => self.anchor(AnchorRule::IpPayloadByVersion, ip.var, ip.k),
            }
        };
        // The offset code loads the Geneve option length (already tested) and the
        // protocol type: an always-true test with that load, so a packet that ends
        // before it is rejected as libpcap's program rejects it.
        let probe = Tree::Atom(Pred::Cmp(Cmp {
            loc: Loc {
                anchor: udp,
                off: 8 + 2,
            },
            size: Size::B2,
            mask: 0xffff,
            test: Test::Ge(0),
        }));
        // gen_geneve_offsets keeps the three new offsets in scratch registers for
        // the rest of the filter.
        self.hold_registers(3)?;
        let hdr = self.anchor(AnchorRule::GenevePayload, udp, 8);
        let lt = self.anchor(AnchorRule::GeneveLinkType, udp, 8);
        let pl = self.anchor(AnchorRule::GeneveLinkPayload, udp, 8);
        self.link = Link::En10mb;
        self.desc = "Ethernet";
        self.off_linkhdr = Off { var: hdr, k: 0 };
        self.off_linktype = Some(Off { var: lt, k: 0 });
        self.off_linkpl = Off { var: pl, k: 0 };
        self.off_nl = 0;
        self.geneve_udp = Some(udp);
        self.no_optimize = true;
        Ok(Tree::and(found, probe))
    }

    /// gen_geneve_check: UDP destination port 6081, Geneve version 0, the VNI.
    fn geneve_check(&mut self, v6: bool, vni: Option<u32>) -> LResult<Tree> {
        const GENEVE_PORT: u32 = 6081;
        const UDP: i32 = 17;
        let (b0, rel) = if v6 {
            (self.port6(GENEVE_PORT, UDP, super::D::Dst)?, Rel::TranIpv6)
        } else {
            (self.port(GENEVE_PORT, UDP, super::D::Dst)?, Rel::TranIpv4)
        };
        let mut b = Tree::and(b0, self.mcmp(rel, 8, Size::B1, 0, 0xc0)?);
        if let Some(v) = vni {
            if v > 0xff_ffff {
                return self.err(format!("Geneve VNI {v} greater than maximum {}", 0xff_ffff));
            }
            b = Tree::and(b, self.mcmp(rel, 12, Size::B4, v << 8, 0xffff_ff00)?);
        }
        Ok(b)
    }

    /// gen_prevlinkhdr_check before a test of the Ethernet header: after `geneve`,
    /// the frame must have one (the protocol type is TEB), which libpcap tests as
    /// "link header offset != link payload offset".
    pub(crate) fn prevlinkhdr_check(&mut self, b: Tree) -> Tree {
        match self.geneve_udp {
            Some(udp) => Tree::and(
                Tree::Atom(Pred::Cmp(Cmp {
                    loc: Loc {
                        anchor: udp,
                        off: 8 + 2,
                    },
                    size: Size::B2,
                    mask: 0xffff,
                    test: Test::Eq(0x6558),
                })),
                b,
            ),
            None => match self.lane_check() {
                Some(c) => Tree::and(c, b),
                None => b,
            },
        }
    }

    /// The ATM and SS7 primitives.
    pub(crate) fn telco(&mut self, t: Telco, values: &[(RelOp, u32)]) -> LResult<Tree> {
        use Telco::*;
        match t {
            Lane | Metac | Bcc | Oamf4ec | Oamf4sc | Sc | Ilmic | Oam | Oamf4 | Connectmsg
            | Metaconnect | Vpi | Vci => self.atm(t, values),
            _ => self.mtp(t, values),
        }
    }

    fn link_description(&self) -> &'static str {
        self.desc
    }

    fn llc_base(&mut self) -> LResult<Tree> {
        if let Some(t) = self.lan_llc()? {
            return Ok(t);
        }
        // gen_llc_internal knows DLT_EN10MB, not the netANALYZER types (until
        // `geneve` makes the link Ethernet).
        let netanalyzer = matches!(
            self.target.linktype,
            LinkType::NETANALYZER | LinkType::NETANALYZER_TRANSPARENT
        ) && self.geneve_udp.is_none();
        if self.link == Link::Wlan {
            return self.wlan_data_frame();
        }
        if self.link != Link::En10mb || netanalyzer {
            return self.err(format!(
                "'llc' not supported for {}",
                self.link_description()
            ));
        }
        let b0 = Tree::not(self.cmp_gt(Rel::LinkType, 0, Size::B2, ETHERMTU)?);
        let b1 = Tree::not(self.cmp(Rel::Llc, 0, Size::B2, 0xffff)?);
        Ok(Tree::and(b0, b1))
    }

    pub(crate) fn llc(&mut self, l: &Llc) -> LResult<Tree> {
        let b0 = self.llc_base()?;
        let b1 = match l {
            Llc::Any => return Ok(b0),
            Llc::I => Tree::not(self.jset(Rel::Llc, 2, Size::B1, 0x01)?),
            Llc::S => self.mcmp(Rel::Llc, 2, Size::B1, 1, 0x03)?,
            Llc::U => self.mcmp(Rel::Llc, 2, Size::B1, 3, 0x03)?,
            Llc::SSubtype(name) => {
                let v = match name.to_ascii_lowercase().as_str() {
                    "rr" => 0x01,
                    "rnr" => 0x05,
                    "rej" => 0x09,
                    _ => return self.err(format!("unknown LLC type name \"{name}\"")),
                };
                self.mcmp(Rel::Llc, 2, Size::B1, v, 0x0f)?
            }
            Llc::USubtype(name) => {
                let v = match name.to_ascii_lowercase().as_str() {
                    "ui" => 0x03,
                    "ua" => 0x63,
                    "disc" => 0x43,
                    "dm" => 0x0f,
                    "sabme" => 0x6f,
                    "test" => 0xe3,
                    "xid" => 0xaf,
                    "frmr" => 0x87,
                    _ => return self.err(format!("unknown LLC type name \"{name}\"")),
                };
                self.mcmp(Rel::Llc, 2, Size::B1, v, 0xef)?
            }
        };
        Ok(Tree::and(b0, b1))
    }

    /// `outbound` is an equality with the outgoing packet type, and `inbound` its
    /// negation (gencode's `gen_not`, which swaps the block's branches: the
    /// optimiser's pull-ups and threading see that polarity).
    pub(crate) fn inbound(&mut self, inbound: bool) -> LResult<Tree> {
        let out = match self.link {
            Link::Sll => self.cmp(Rel::LinkHdr, 0, Size::B2, SLL_OUTGOING)?,
            Link::Sll2 => self.cmp(Rel::LinkHdr, 10, Size::B1, SLL_OUTGOING)?,
            // Links whose header says the direction, each its own way (gen_inbound).
            Link::Slip | Link::PppPppd | Link::Ipnet => return self.direction(inbound),
            Link::Pflog => return self.pflog_direction(inbound),
            Link::Juniper => return self.juniper_direction(inbound),
            _ => self.kernel_only(
                "inbound/outbound",
                SKF_AD_PKTTYPE,
                Size::B2,
                PACKET_OUTGOING,
            )?,
        };
        Ok(if inbound { Tree::not(out) } else { out })
    }

    pub(crate) fn ifindex(&mut self, ifindex: u32) -> LResult<Tree> {
        match self.link {
            Link::Sll2 => self.cmp(Rel::LinkHdr, 4, Size::B4, ifindex),
            _ => self.kernel_only("ifindex", SKF_AD_IFINDEX, Size::B4, ifindex),
        }
    }

    /// Metadata only a live Linux socket has. Reading a file, libpcap refuses it; for a
    /// dead handle it emits gencode's comparison of the field `field` of the kernel's
    /// ancillary-data area (a load at `SKF_AD_OFF + field`) with `v`. Offline
    /// filtering can never perform that load: every packet that reaches it faults and
    /// is rejected. netsift emits the same test, so the optimiser model sees the same
    /// blocks: two of them on one field decide each other (`inbound and outbound`
    /// rejects every packet, `inbound or outbound` accepts every packet without a
    /// load), and one on another field decides nothing.
    ///
    /// With the packets' metadata known ([`super::Meta`], a live capture), the
    /// comparison is a constant, as the kernel's answer to it is for every packet
    /// of that direction and interface.
    fn kernel_only(&mut self, what: &str, field: u32, size: Size, v: u32) -> LResult<Tree> {
        if self.target.savefile_swapped.is_some() {
            return self.err(format!(
                "{what} not supported on {} when reading savefiles",
                self.link_description()
            ));
        }
        if let Some(m) = self.target.meta {
            let known = match field {
                SKF_AD_PKTTYPE => u32::from(m.outgoing) * PACKET_OUTGOING,
                _ => m.ifindex,
            };
            return Ok(Tree::Const(known == v));
        }
        self.cmp(Rel::LinkHdr, SKF_AD_OFF + field, size, v)
    }

    pub(crate) fn broadcast(&mut self, p: P) -> LResult<Tree> {
        match p {
            P::Default | P::Link if self.link == Link::Wlan => {
                self.wlanhostop(&[0xff; 6], super::D::Dst)
            }
            P::Default | P::Link => match self.lan_broadcast()? {
                Some(t) => Ok(t),
                None => self.err("not a broadcast link"),
            },
            P::Ip => {
                // tcpdump reading a file passes netmask 0 (no local network), so the
                // host part is the whole address; a dead handle has no netmask at all.
                if self.target.savefile_swapped.is_none() {
                    return self.err("netmask not known, so 'ip broadcast' not supported");
                }
                let hostmask = u32::MAX;
                let b0 = self.linktype(et::IP)?;
                let b1 = self.mcmp(Rel::LinkPl, 16, Size::B4, 0, hostmask)?;
                let b2 = self.mcmp(Rel::LinkPl, 16, Size::B4, hostmask, hostmask)?;
                Ok(Tree::and(b0, Tree::or(b1, b2)))
            }
            _ => self.err("only link-layer/IP broadcast filters supported"),
        }
    }

    pub(crate) fn multicast(&mut self, p: P) -> LResult<Tree> {
        match p {
            P::Default | P::Link => {
                if self.link == Link::Wlan {
                    return self.wlan_multicast();
                }
                if self.link != Link::En10mb {
                    return match self.lan_multicast()? {
                        Some(t) => Ok(t),
                        None => self.err(LINK_MULTICAST_ONLY),
                    };
                }
                let b = self.jset(Rel::LinkHdr, 0, Size::B1, 1)?;
                Ok(self.prevlinkhdr_check(b))
            }
            P::Ip => {
                let b0 = self.linktype(et::IP)?;
                let b1 = self.cmp_ge(Rel::LinkPl, 16, Size::B1, 224)?;
                Ok(Tree::and(b0, b1))
            }
            P::Ip6 => {
                let b0 = self.linktype(et::IPV6)?;
                let b1 = self.cmp(Rel::LinkPl, 24, Size::B1, 255)?;
                Ok(Tree::and(b0, b1))
            }
            _ => self.err(LINK_MULTICAST_ONLY),
        }
    }

    /// `byte N op M`. libpcap 1.10 emits no load for `&` and `|`: they test whatever
    /// the BPF accumulator holds there (0 at the start of the program, else the field
    /// the previous test loaded). netsift reproduces that through `Pred::Acc`, which
    /// instruction selection resolves against the test before it on each path.
    pub(crate) fn byteop(&mut self, idx: u32, op: ByteOp, val: u32) -> LResult<Tree> {
        match op {
            ByteOp::Eq => self.cmp(Rel::LinkHdr, idx, Size::B1, val),
            ByteOp::Lt => self.cmp_lt(Rel::LinkHdr, idx, Size::B1, val),
            ByteOp::Gt => self.cmp_gt(Rel::LinkHdr, idx, Size::B1, val),
            ByteOp::And => Ok(Tree::Atom(Pred::Acc { or: false, val })),
            ByteOp::Or => Ok(Tree::Atom(Pred::Acc { or: true, val })),
        }
    }
}
