//! The serial-line link types: the PPP family, Cisco HDLC, Frame Relay, SLIP, and
//! Solaris ipnet (gen_linktype's per-link cases, and gen_inbound for the links whose
//! header carries the direction).

use super::super::ir::Tree;
use super::super::proto::{ISO10589_ISIS, ISO8473_CLNP, ISO9542_ESIS};
use super::super::{LResult, Link, Lowerer, Rel};
use super::{et, sap};
use netsift_isa::Size;

const PPP_IP: u32 = 0x0021;
const PPP_VJC: u32 = 0x002d;
const PPP_VJNC: u32 = 0x002f;
/// Q.922 UI control byte, the byte before a Frame Relay NLPID.
const FR_UI: u32 = 0x03 << 8;
/// Solaris ipnet: the address families at offset 1 and the direction at offset 2.
const IPH_AF_INET: u32 = 2;
const IPH_AF_INET6: u32 = 26;
const IPNET_OUTBOUND: u32 = 1;
const IPNET_INBOUND: u32 = 2;
/// pppd's direction byte (in place of the HDLC address).
const PPP_PPPD_IN: u32 = 0;
const PPP_PPPD_OUT: u32 = 1;

impl Lowerer<'_> {
    /// BSD/OS PPP: IPv4 is also Van Jacobson-compressed TCP/IP, either kind.
    pub(super) fn ppp_bsdos_linktype(&mut self, ll_proto: u32) -> LResult<Tree> {
        if ll_proto != et::IP {
            let p = super::ethertype_to_ppptype(ll_proto);
            return self.cmp(Rel::LinkType, 0, Size::B2, p);
        }
        let ip = self.cmp(Rel::LinkType, 0, Size::B2, PPP_IP)?;
        let vjc = self.cmp(Rel::LinkType, 0, Size::B2, PPP_VJC)?;
        let vjnc = self.cmp(Rel::LinkType, 0, Size::B2, PPP_VJNC)?;
        Ok(Tree::or(Tree::or(ip, vjc), vjnc))
    }

    /// Cisco HDLC carries Ethertypes; OSI is the look-alike 0xfefe.
    pub(super) fn chdlc_linktype(&mut self, ll_proto: u32) -> LResult<Tree> {
        let v = match ll_proto {
            sap::ISONS => sap::ISONS << 8 | sap::ISONS,
            p => p,
        };
        self.cmp(Rel::LinkType, 0, Size::B2, v)
    }

    /// Frame Relay: the NLPID after the two-byte Q.922 address and the UI byte.
    pub(super) fn frelay_linktype(&mut self, ll_proto: u32) -> LResult<Tree> {
        Ok(match ll_proto {
            et::IP => self.cmp(Rel::LinkHdr, 2, Size::B2, FR_UI | 0xcc)?,
            et::IPV6 => self.cmp(Rel::LinkHdr, 2, Size::B2, FR_UI | 0x8e)?,
            sap::ISONS => {
                let clnp = self.cmp(Rel::LinkHdr, 2, Size::B2, FR_UI | ISO8473_CLNP)?;
                let esis = self.cmp(Rel::LinkHdr, 2, Size::B2, FR_UI | ISO9542_ESIS)?;
                let isis = self.cmp(Rel::LinkHdr, 2, Size::B2, FR_UI | ISO10589_ISIS)?;
                Tree::or(clnp, Tree::or(esis, isis))
            }
            _ => Tree::Const(false),
        })
    }

    /// `iso proto v` where the link says ISO its own way (gen_proto's Q_ISO): Frame
    /// Relay's NLPID itself, Cisco HDLC's 0xfefe then the NLPID one byte in. `None`:
    /// the generic LLC form.
    pub(crate) fn iso_proto_link(&mut self, v: u32) -> LResult<Option<Tree>> {
        Ok(match self.link {
            Link::Frelay => Some(self.cmp(Rel::LinkHdr, 2, Size::B2, FR_UI | v)?),
            Link::CHdlc => {
                let b0 = self.linktype(sap::ISONS << 8 | sap::ISONS)?;
                let b1 = self.cmp(Rel::LinkPlNoSnap, 1, Size::B1, v)?;
                Some(Tree::and(b0, b1))
            }
            _ => None,
        })
    }

    /// Solaris ipnet: an address family byte.
    pub(super) fn ipnet_linktype(&mut self, ll_proto: u32) -> LResult<Tree> {
        Ok(match ll_proto {
            et::IP => self.cmp(Rel::LinkType, 0, Size::B1, IPH_AF_INET)?,
            et::IPV6 => self.cmp(Rel::LinkType, 0, Size::B1, IPH_AF_INET6)?,
            _ => Tree::Const(false),
        })
    }

    /// `inbound`/`outbound` on a link whose header records the direction.
    pub(super) fn direction(&mut self, inbound: bool) -> LResult<Tree> {
        match (self.link, inbound) {
            // gen_inbound's relation `link[0] == 0`, negated for outbound.
            (Link::Slip, true) => self.cmp(Rel::LinkHdr, 0, Size::B1, 0),
            (Link::Slip, false) => Ok(Tree::not(self.cmp(Rel::LinkHdr, 0, Size::B1, 0)?)),
            (Link::PppPppd, true) => self.cmp(Rel::LinkHdr, 0, Size::B1, PPP_PPPD_IN),
            (Link::PppPppd, false) => self.cmp(Rel::LinkHdr, 0, Size::B1, PPP_PPPD_OUT),
            (_, true) => self.cmp(Rel::LinkHdr, 2, Size::B2, IPNET_INBOUND),
            (_, false) => self.cmp(Rel::LinkHdr, 2, Size::B2, IPNET_OUTBOUND),
        }
    }
}
