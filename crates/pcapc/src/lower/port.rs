//! Port and port-range primitives: libpcap's gen_port/gen_portop/gen_port6/
//! gen_portop6 and the port-range twins, plus the port part of gen_scode.

use super::ir::Tree;
use super::link::et;
use super::names::{self, PROTO_UNDEF};
use super::{LResult, Lowerer, Qual, Rel, Span, D, P};
use netsift_isa::Size;

const TCP: i32 = 6;
const UDP: i32 = 17;
const SCTP: i32 = 132;

impl Lowerer<'_> {
    /// The transport a `port`/`portrange` qualifier asks for.
    pub(crate) fn port_proto(&self, p: P, what: &str) -> LResult<i32> {
        match p {
            P::Udp => Ok(UDP),
            P::Tcp => Ok(TCP),
            P::Sctp => Ok(SCTP),
            P::Default => Ok(PROTO_UNDEF),
            _ => self.err(format!("illegal qualifier of '{what}'")),
        }
    }

    fn check_dir(&self, dir: D, what: &str) -> LResult<()> {
        match dir {
            D::Addr1 | D::Addr2 | D::Addr3 | D::Addr4 | D::Ra | D::Ta => self.err(format!(
                "802.11 address qualifiers are not valid qualifiers for {what}"
            )),
            _ => Ok(()),
        }
    }

    /// Source/destination port tests at `rel` (the transport header).
    fn port_atoms(
        &mut self,
        rel: Rel,
        dir: D,
        atom: &mut dyn FnMut(&mut Self, Rel, u32) -> LResult<Tree>,
    ) -> LResult<Tree> {
        Ok(match dir {
            D::Src => atom(self, rel, 0)?,
            D::Dst => atom(self, rel, 2)?,
            D::And => {
                let a = atom(self, rel, 0)?;
                Tree::and(a, atom(self, rel, 2)?)
            }
            _ => {
                let a = atom(self, rel, 0)?;
                Tree::or(a, atom(self, rel, 2)?)
            }
        })
    }

    /// `ip proto P and not a later fragment and <atoms>` for one transport.
    fn portop4(
        &mut self,
        proto: i32,
        dir: D,
        atom: &mut dyn FnMut(&mut Self, Rel, u32) -> LResult<Tree>,
    ) -> LResult<Tree> {
        let tmp = self.cmp(Rel::LinkPl, 9, Size::B1, proto as u32)?;
        let frag = self.ipfrag()?;
        let b0 = Tree::and(tmp, frag);
        let b1 = self.port_atoms(Rel::TranIpv4, dir, atom)?;
        Ok(Tree::and(b0, b1))
    }

    fn portop6(
        &mut self,
        proto: i32,
        dir: D,
        atom: &mut dyn FnMut(&mut Self, Rel, u32) -> LResult<Tree>,
    ) -> LResult<Tree> {
        let b0 = self.cmp(Rel::LinkPl, 6, Size::B1, proto as u32)?;
        let b1 = self.port_atoms(Rel::TranIpv6, dir, atom)?;
        Ok(Tree::and(b0, b1))
    }

    fn per_transport(
        &mut self,
        v6: bool,
        ip_proto: i32,
        dir: D,
        atom: &mut dyn FnMut(&mut Self, Rel, u32) -> LResult<Tree>,
    ) -> LResult<Tree> {
        let b0 = self.linktype(if v6 { et::IPV6 } else { et::IP })?;
        let op =
            |s: &mut Self, p: i32, atom: &mut dyn FnMut(&mut Self, Rel, u32) -> LResult<Tree>| {
                if v6 {
                    s.portop6(p, dir, atom)
                } else {
                    s.portop4(p, dir, atom)
                }
            };
        let b1 = if ip_proto == PROTO_UNDEF {
            let t = op(self, TCP, atom)?;
            let u = op(self, UDP, atom)?;
            let s = op(self, SCTP, atom)?;
            Tree::or(s, Tree::or(t, u))
        } else {
            op(self, ip_proto, atom)?
        };
        Ok(Tree::and(b0, b1))
    }

    pub(crate) fn port(&mut self, port: u32, ip_proto: i32, dir: D) -> LResult<Tree> {
        self.check_dir(dir, "ports")?;
        self.per_transport(false, ip_proto, dir, &mut |s, rel, off| {
            s.cmp(rel, off, Size::B2, port)
        })
    }

    pub(crate) fn port6(&mut self, port: u32, ip_proto: i32, dir: D) -> LResult<Tree> {
        self.check_dir(dir, "ports")?;
        self.per_transport(true, ip_proto, dir, &mut |s, rel, off| {
            s.cmp(rel, off, Size::B2, port)
        })
    }

    fn range_atom(&mut self, rel: Rel, off: u32, lo: u32, hi: u32) -> LResult<Tree> {
        let (lo, hi) = if lo > hi { (hi, lo) } else { (lo, hi) };
        let b1 = self.cmp_ge(rel, off, Size::B2, lo)?;
        let b2 = self.cmp_le(rel, off, Size::B2, hi)?;
        Ok(Tree::and(b1, b2))
    }

    pub(crate) fn portrange(&mut self, p1: u32, p2: u32, ip_proto: i32, dir: D) -> LResult<Tree> {
        self.check_dir(dir, "port ranges")?;
        self.per_transport(false, ip_proto, dir, &mut |s, rel, off| {
            s.range_atom(rel, off, p1, p2)
        })
    }

    pub(crate) fn portrange6(&mut self, p1: u32, p2: u32, ip_proto: i32, dir: D) -> LResult<Tree> {
        self.check_dir(dir, "port ranges")?;
        self.per_transport(true, ip_proto, dir, &mut |s, rel, off| {
            s.range_atom(rel, off, p1, p2)
        })
    }

    /// `ip[6:2] & 0x1fff == 0`: not a later fragment.
    pub(crate) fn ipfrag(&mut self) -> LResult<Tree> {
        Ok(Tree::not(self.jset(Rel::LinkPl, 6, Size::B2, 0x1fff)?))
    }

    fn named_proto(&self, name: &str, p: P, real: i32, what: &str) -> LResult<i32> {
        let is = |x: i32| match x {
            TCP => "tcp",
            UDP => "udp",
            _ => "sctp",
        };
        let want = match p {
            P::Udp => UDP,
            P::Tcp => TCP,
            P::Sctp => SCTP,
            _ => return Ok(real),
        };
        if real != PROTO_UNDEF && real != want {
            return self.err(format!("{what} '{name}' is {}", is(real)));
        }
        Ok(want)
    }

    pub(crate) fn port_name(&mut self, name: &str, q: Qual, span: Span) -> LResult<Tree> {
        if !matches!(q.proto, P::Default | P::Udp | P::Tcp | P::Sctp) {
            return self.err_at("illegal qualifier of 'port'", span);
        }
        let Some((port, real)) = names::nametoport(name) else {
            return self.err_at(format!("unknown port '{name}'"), span);
        };
        let real = self.named_proto(name, q.proto, real, "port")?;
        let b = self.port(port, real, q.dir)?;
        let b6 = self.port6(port, real, q.dir)?;
        Ok(Tree::or(b6, b))
    }

    pub(crate) fn portrange_name(&mut self, name: &str, q: Qual, span: Span) -> LResult<Tree> {
        if !matches!(q.proto, P::Default | P::Udp | P::Tcp | P::Sctp) {
            return self.err_at("illegal qualifier of 'portrange'", span);
        }
        let Some((p1, p2, real)) = names::nametoportrange(name) else {
            return self.err_at(format!("unknown port in range '{name}'"), span);
        };
        let real = self.named_proto(name, q.proto, real, "port in range")?;
        for p in [p1, p2] {
            if p > 65535 {
                return self.err_at(format!("port number {p} greater than maximum 65535"), span);
            }
        }
        let b = self.portrange(p1, p2, real, q.dir)?;
        let b6 = self.portrange6(p1, p2, real, q.dir)?;
        Ok(Tree::or(b6, b))
    }
}
