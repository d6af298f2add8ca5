//! OpenBSD pflog: a header whose first byte is its own length (the link payload
//! starts that many bytes in, rounded up to 4), the address family at offset 1, and
//! the rule's interface, ruleset, numbers, action, reason and direction.

use super::super::ir::{Cmp, Loc, Pred, Test, Tree, Val};
use super::super::{LResult, Link, Lowerer, Off, Rel};
use super::et;
use crate::syntax::ast::Pf;
use netsift_isa::{AnchorRule, Size};
use netsift_wire::LinkType;

/// `struct pfloghdr` offsets, and the lengths of its two names (NUL included).
const AF: u32 = 1;
const ACTION: u32 = 2;
const REASON: u32 = 3;
const IFNAME: u32 = 4;
const RULESET: u32 = 20;
const RULENR: u32 = 36;
const SUBRULENR: u32 = 40;
const DIR: u32 = 60;
const NAME_LEN: usize = 16;
/// `dir`'s values.
const PF_IN: u32 = 1;
const PF_OUT: u32 = 2;
/// libpcap compares the address family with the compiling host's AF_INET6 (Linux).
const AF_INET: u32 = 2;
const AF_INET6: u32 = 10;

impl Lowerer<'_> {
    /// The link payload starts where the header's length byte says (libpcap keeps
    /// it in a register loaded by gen_load_pflog_llprefixlen); an anchor here.
    pub(crate) fn pflog_offsets(&mut self) {
        let pl = self.anchor(AnchorRule::PflogPayload, 0, 0);
        self.off_linkpl = Off { var: pl, k: 0 };
    }

    /// libpcap's reuse of a register on PFLOG: the payload offset gets its scratch
    /// register when a primitive first needs it, `alloc_reg` hands out the register
    /// a relation allocated last (and freed), and the code that loads the offset
    /// runs at the start of the program, before the relation stores there. So after
    /// a relation that runs on every path (the first primitive) and does not use the
    /// payload, the payload offset is the value that register holds, the relation's
    /// right side, if the next primitive to allocate a register is the payload's
    /// first user (`len > 1000 or tcp` tests `tcp` at 1000; another relation first
    /// takes registers of its own). netsift follows that for a constant right side;
    /// the other cases are in docs/status.md.
    pub(crate) fn pflog_clobber(&mut self, rhs: &Val) {
        if self.link != Link::Pflog || self.pflog_payload_used || self.prims_done != 0 {
            return;
        }
        self.pflog_clobbered = true;
        if let Val::Const(k) = rhs {
            self.pflog_pending = Some(*k);
        }
    }

    /// A primitive uses the payload offset: the first use fixes its register.
    pub(crate) fn pflog_payload_use(&mut self) {
        if self.pflog_payload_used {
            return;
        }
        self.pflog_payload_used = true;
        if let Some(k) = self.pflog_pending {
            self.off_linkpl = Off::at(k);
        }
    }

    /// The load libpcap puts in front of the first test once the payload offset has
    /// a register (insert_compute_vloffsets: gen_load_pflog_llprefixlen's `ldb [0]`,
    /// whatever link type `geneve` left): it runs before any test, so a capture with
    /// no byte is rejected whatever the filter, unless the optimiser decides the
    /// whole filter (a bare return runs no statement), or a first relation stores
    /// into that register before any read of it (`len > 60 or tcp`: the store is
    /// dead, and the optimiser removes it and its load). An always-true test of it.
    pub(crate) fn pflog_prologue(&self) -> Option<Pred> {
        let used = self.target.linktype == LinkType::PFLOG
            && self.pflog_payload_used
            && !self.pflog_clobbered;
        used.then_some(Pred::Cmp(Cmp {
            loc: Loc { anchor: 0, off: 0 },
            size: Size::B1,
            mask: Size::B1.max(),
            test: Test::Ge(0),
        }))
    }

    pub(super) fn pflog_direction(&mut self, inbound: bool) -> LResult<Tree> {
        let v = if inbound { PF_IN } else { PF_OUT };
        self.cmp(Rel::LinkHdr, DIR, Size::B1, v)
    }

    /// gen_pf_ifname, gen_pf_ruleset, gen_pf_rnr, gen_pf_srnr, gen_pf_reason,
    /// gen_pf_action: a field of the pflog header.
    pub(crate) fn pf(&mut self, pf: &Pf) -> LResult<Tree> {
        let what = match pf {
            Pf::Ifname(_) => "ifname",
            Pf::Ruleset(_) => "ruleset",
            Pf::Rnr(_) => "rnr",
            Pf::Srnr(_) => "srnr",
            Pf::Reason(_) => "reason",
            Pf::Action(_) => "action",
        };
        if self.link != Link::Pflog {
            return self.err(format!("{what} supported only on PF linktype"));
        }
        match pf {
            Pf::Ifname(name) if name.len() >= NAME_LEN => self.err(format!(
                "ifname interface names can only be {} characters",
                NAME_LEN - 1
            )),
            Pf::Ruleset(name) if name.len() >= NAME_LEN => self.err(format!(
                "ruleset names can only be {} characters",
                NAME_LEN - 1
            )),
            Pf::Ifname(name) => self.bcmp(Rel::LinkHdr, IFNAME, name.as_bytes()),
            Pf::Ruleset(name) => self.bcmp(Rel::LinkHdr, RULESET, name.as_bytes()),
            Pf::Rnr(n) => self.cmp(Rel::LinkHdr, RULENR, Size::B4, *n),
            Pf::Srnr(n) => self.cmp(Rel::LinkHdr, SUBRULENR, Size::B4, *n),
            Pf::Reason(n) => self.cmp(Rel::LinkHdr, REASON, Size::B1, *n),
            Pf::Action(n) => self.cmp(Rel::LinkHdr, ACTION, Size::B1, *n),
        }
    }

    pub(super) fn pflog_linktype(&mut self, ll_proto: u32) -> LResult<Tree> {
        Ok(match ll_proto {
            et::IP => self.cmp(Rel::LinkHdr, AF, Size::B1, AF_INET)?,
            et::IPV6 => self.cmp(Rel::LinkHdr, AF, Size::B1, AF_INET6)?,
            _ => Tree::Const(false),
        })
    }
}
