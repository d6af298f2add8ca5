//! 802.11 and the capture headers in front of it (radiotap, PPI, AVS, Prism):
//! libpcap's variable-length link header (`off_linkhdr` in a register loaded from
//! the capture header's length field) and link payload (the 802.11 header's length
//! by frame type), as anchors; the data-frame test before an LLC protocol; the
//! address fields by frame type and direction (gen_wlanhostop); `type`,
//! `subtype` and `dir`; and the code libpcap runs at the start of every program
//! that uses these offsets.

use super::super::ir::{Cmp, Loc, Pred, Test, Tree, Val};
use super::super::{LResult, Link, Lowerer, Off, Rel, D};
use netsift_isa::{AnchorRule, ArithOp, IndexMode, RelOp, Size};
use netsift_wire::LinkType;

/// Frame control, first byte: the type bits, control frames, data frames, the
/// subtypes CTS and ACK (which carry one address).
const FC0_TYPE_MASK: u32 = 0x0c;
const FC0_CTL: u32 = 0x04;
const FC0_DATA: u32 = 0x08;
const FC0_SUBTYPE_MASK: u32 = 0xf0;
const FC0_CTS: u32 = 0xc0;
const FC0_ACK: u32 = 0xd0;
/// Frame control, second byte: To DS, From DS, both.
const FC1_TODS: u32 = 0x01;
const FC1_FROMDS: u32 = 0x02;
const FC1_DIR_MASK: u32 = 0x03;
/// PPI's per-packet link type (`pph_dlt`, little-endian, at 4) must be 802.11
/// (105), which libpcap tests as a big-endian word.
const PPI_DLT_80211: u32 = 105u32.swap_bytes();

/// A step from the root of the expression down to a primitive: a part of a chain
/// of `and`s (or `or`s), or a `not`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    Chain { chain: u32, and: bool, idx: usize },
    Not,
}

/// Whether every path of the unoptimized program to the primitive at `p` runs
/// the one at `r` (earlier in the text) first. Where the two paths part, `r` is in
/// an earlier part of a chain than `p`, and `p` runs only after that part ended
/// true (`and`) or false (`or`): `r` must run on every such way out of its part.
/// A primitive runs on every way out of a subtree it is the first of; below a
/// chain, on the ways out through all parts only (an `and` that ends true), unless
/// it is in the first part.
fn dominates(r: &[Step], p: &[Step]) -> bool {
    let d = r.iter().zip(p).take_while(|(a, b)| a == b).count();
    let (
        Some(&Step::Chain { chain, and, idx: j }),
        Some(&Step::Chain {
            chain: c2, idx: k, ..
        }),
    ) = (r.get(d), p.get(d))
    else {
        return false;
    };
    if chain != c2 || j >= k {
        return false;
    }
    // On which ways out of part j (true, false) the relation has run.
    let (mut t, mut f) = (true, true);
    for s in r[d + 1..].iter().rev() {
        match *s {
            Step::Not => std::mem::swap(&mut t, &mut f),
            Step::Chain { and: true, idx, .. } => f = idx == 0 && t && f,
            Step::Chain {
                and: false, idx, ..
            } => t = idx == 0 && t && f,
        }
    }
    if and {
        t
    } else {
        f
    }
}

/// Which registers libpcap has given the variable offsets so far.
#[derive(Clone, Debug, Default)]
pub(crate) struct WlanRegs {
    pub hdr: bool,
    pub payload: bool,
    /// The capture header's length as computed (0 on bare 802.11): a relation
    /// may replace the value later tests see, not the one the payload's is
    /// computed from.
    pub hdr_anchor: usize,
    /// The value a relation left in the register the next offset takes, and
    /// where the relation is in the expression.
    pub pending: Option<(Val, Vec<Step>)>,
    /// The value the capture header's and the payload's registers hold instead of
    /// their offsets, where a relation left one that is not a constant.
    pub hdr_dyn: Option<Val>,
    pub payload_dyn: Option<Val>,
}

impl WlanRegs {
    /// How many of the two offsets have a register.
    pub(crate) fn taken(&self) -> u32 {
        u32::from(self.hdr) + u32::from(self.payload)
    }
}

impl Lowerer<'_> {
    /// init_linktype for the 802.11 link types: the 802.11 header after the
    /// capture header's own length, the LLC header after the 802.11 header.
    pub(crate) fn wlan_offsets(&mut self) {
        let rule = match self.target.linktype {
            LinkType::IEEE802_11_RADIO | LinkType::PPI => Some(AnchorRule::RadiotapHdr),
            LinkType::IEEE802_11_RADIO_AVS => Some(AnchorRule::AvsHdr),
            LinkType::PRISM_HEADER => Some(AnchorRule::PrismHdr),
            _ => None,
        };
        let hdr = rule.map_or(0, |r| self.anchor(r, 0, 0));
        let pl = if self.target.linktype == LinkType::IEEE802_11_RADIO {
            AnchorRule::WlanPayloadPadded
        } else {
            AnchorRule::WlanPayload
        };
        let pl = self.anchor(pl, hdr, 0);
        self.wlan_regs.hdr_anchor = hdr;
        self.off_linkhdr = Off { var: hdr, k: 0 };
        self.off_linkpl = Off { var: pl, k: 0 };
        self.off_linktype = Some(Off::at(24));
        self.off_nl = 8;
        self.off_nl_nosnap = 3;
        // gen_load_prism_llprefixlen turns libpcap's optimizer off whether or not
        // the filter uses the header's length.
        if self.target.linktype == LinkType::PRISM_HEADER {
            self.no_optimize = true;
        }
    }

    /// Whether the packets are 802.11 ones, whatever `geneve` or `pppoes` made
    /// the link since.
    pub(crate) fn wlan_target(&self) -> bool {
        matches!(
            self.target.linktype,
            LinkType::IEEE802_11
                | LinkType::IEEE802_11_RADIO
                | LinkType::IEEE802_11_RADIO_AVS
                | LinkType::PRISM_HEADER
                | LinkType::PPI
        )
    }

    fn wlan_prefixed(&self) -> bool {
        self.target.linktype != LinkType::IEEE802_11
    }

    /// A load relative to `rel` on 802.11: the first use of a variable offset
    /// takes its register (a relation before may have left its value there, see
    /// `wlan_clobber`), and the code that computes the link payload's offset turns
    /// libpcap's optimizer off.
    pub(crate) fn wlan_use(&mut self, rel: Rel) -> LResult<()> {
        if rel == Rel::LinkType {
            return Ok(());
        }
        // The payload's offset takes a register of its own; the header's is taken
        // here only by a load from the header (where the payload's is used alone,
        // libpcap takes it at the end, a fresh one).
        if rel == Rel::LinkHdr && self.wlan_prefixed() && !self.wlan_regs.hdr {
            self.wlan_regs.hdr = true;
            let (off, x) = self.take_register()?;
            self.off_linkhdr = off.unwrap_or(self.off_linkhdr);
            self.wlan_regs.hdr_dyn = x;
        }
        if rel != Rel::LinkHdr && !self.wlan_regs.payload {
            self.wlan_regs.payload = true;
            let (off, x) = self.take_register()?;
            self.off_linkpl = off.unwrap_or(self.off_linkpl);
            self.wlan_regs.payload_dyn = x;
            self.no_optimize = true;
        }
        Ok(())
    }

    /// An offset takes a register: a value a relation left there is what the
    /// tests after it see, as the offset (a constant) or as their X (computed).
    fn take_register(&mut self) -> LResult<(Option<Off>, Option<Val>)> {
        let pending = self.wlan_regs.pending.take();
        let got = match pending {
            Some((v, at)) if dominates(&at, &self.path) => match v {
                Val::Const(k) => (Some(Off::at(k)), None),
                x => (Some(Off::at(0)), Some(x)),
            },
            _ => (None, None),
        };
        self.hold_registers(1)?;
        Ok(got)
    }

    /// libpcap's reuse of registers on 802.11 (as on PFLOG, see `pflog_clobber`):
    /// the register a relation took last, and left its right side in, is the one
    /// the next variable offset gets if nothing takes it before; the code that
    /// loads the offsets runs first, so the value the tests after the relation see
    /// is the relation's. Followed where the relation runs on every path to the
    /// primitive that takes the register ([`dominates`]); elsewhere the offset is
    /// the relation's on some paths and the header's on others, which no anchor
    /// says. (The relation's own loads may have taken the header's register
    /// before its right side took the next one; where the right side's loads
    /// take it, that register is the last one taken, and the next is a fresh one.)
    /// `taken` is [`WlanRegs::taken`] before the right side.
    pub(crate) fn wlan_clobber(&mut self, rhs: &Val, taken: u32) {
        if self.link == Link::Wlan && self.wlan_regs.taken() == taken {
            self.wlan_regs.pending = Some((rhs.clone(), self.path.clone()));
        }
    }

    /// A comparison at `loc` (of `rel`) through a register a relation left a
    /// computed value in: libpcap's `ld [x + k]` with that value in X, as an
    /// arithmetic relation. `None` where the offset is what it should be.
    pub(crate) fn wlan_dyn_cmp(
        &self,
        rel: Rel,
        loc: Loc,
        size: Size,
        mask: u32,
        test: Test,
    ) -> Option<Tree> {
        if self.link != Link::Wlan {
            return None;
        }
        let x = match rel {
            Rel::LinkHdr => self.wlan_regs.hdr_dyn.as_ref()?,
            Rel::LinkType | Rel::TranIpv4 => return None,
            _ => self.wlan_regs.payload_dyn.as_ref()?,
        };
        let load = Val::Load {
            anchor: loc.anchor,
            off: loc.off,
            index: Box::new(x.clone()),
            size,
            mode: IndexMode::InX,
        };
        let lhs = if mask == size.max() {
            load
        } else {
            Val::Bin(ArithOp::And, Box::new(load), Box::new(Val::Const(mask)))
        };
        let (rel, k) = match test {
            Test::Eq(k) => (RelOp::Eq, k),
            Test::Gt(k) => (RelOp::Gt, k),
            Test::Ge(k) => (RelOp::Ge, k),
        };
        Some(Tree::Atom(Pred::Rel {
            rel,
            lhs,
            rhs: Val::Const(k),
        }))
    }

    /// The code libpcap puts before the first test when the filter uses the
    /// variable offsets, which loads the packet whatever the tests do, and PPI's
    /// test of its link type: always true but for the faults of those loads. In an
    /// optimized program (only the capture header's length used) those loads are
    /// the first test's own, which netsift makes through the anchor.
    pub(crate) fn wlan_finish(&mut self, tree: Tree) -> Tree {
        let t = self.target.linktype;
        let mut probes = Vec::new();
        if self.unopt && (self.wlan_regs.hdr || self.wlan_regs.payload) {
            match t {
                LinkType::IEEE802_11_RADIO | LinkType::PPI => probes.push(ge0(0, 2, Size::B2)),
                LinkType::IEEE802_11_RADIO_AVS => probes.push(ge0(0, 4, Size::B4)),
                LinkType::PRISM_HEADER => {
                    let avs = Tree::Atom(Pred::Cmp(Cmp {
                        loc: Loc { anchor: 0, off: 0 },
                        size: Size::B4,
                        mask: 0xffff_f000,
                        test: Test::Eq(0x8021_1000),
                    }));
                    probes.push(Tree::or(Tree::not(avs), ge0(0, 4, Size::B4)));
                }
                _ => {}
            }
        }
        if self.unopt && self.wlan_regs.payload {
            // The 802.11 header length: the frame control byte, and for a data
            // frame on radiotap the presence word and the flags byte.
            let h = self.wlan_regs.hdr_anchor;
            probes.push(ge0(h, 0, Size::B1));
            if t == LinkType::IEEE802_11_RADIO {
                let data = Tree::and(
                    Tree::not(bits(h, 0, Size::B1, FC0_CTL)),
                    bits(h, 0, Size::B1, FC0_DATA),
                );
                let present = |m| bits(0, 4, Size::B4, m);
                let flags = Tree::or(
                    Tree::and(present(0x0100_0000), ge0(0, 16, Size::B1)),
                    ge0(0, 8, Size::B1),
                );
                let pad = Tree::or(
                    Tree::not(present(0x0200_0000)),
                    Tree::or(present(0x80), flags),
                );
                probes.push(Tree::or(Tree::not(data), pad));
            }
        }
        probes.push(tree);
        let tree = Tree::and_all(probes);
        // gen_ppi_dlt_check tests the link type gencode has at the end, which
        // `geneve` and `pppoes` replaced (PUSH_LINKHDR, as `self.link` here): after
        // either, anywhere in the filter, libpcap's program has no DLT test.
        if t != LinkType::PPI || self.link != Link::Wlan {
            return tree;
        }
        let dlt = Tree::Atom(Pred::Cmp(Cmp {
            loc: Loc { anchor: 0, off: 4 },
            size: Size::B4,
            mask: u32::MAX,
            test: Test::Eq(PPI_DLT_80211),
        }));
        Tree::and(dlt, tree)
    }

    /// Tests of the frame control: `FC0 & 0x04` clear (not a control frame) and
    /// `FC0 & 0x08` set: a data frame (gen_check_802_11_data_frame).
    pub(crate) fn wlan_data_frame(&mut self) -> LResult<Tree> {
        let ctl = self.jset(Rel::LinkHdr, 0, Size::B1, FC0_CTL)?;
        let data = self.jset(Rel::LinkHdr, 0, Size::B1, FC0_DATA)?;
        Ok(Tree::and(Tree::not(ctl), data))
    }

    /// gen_linktype on 802.11: a data frame whose LLC header carries `ll_proto`.
    pub(crate) fn wlan_linktype(&mut self, ll_proto: u32) -> LResult<Tree> {
        let b0 = self.wlan_data_frame()?;
        Ok(Tree::and(b0, self.llc_linktype(ll_proto)?))
    }

    /// `type`/`subtype` (gen_p80211_type): the frame control's first byte.
    pub(crate) fn p80211_type(&mut self, value: u32, mask: u32) -> LResult<Tree> {
        if !self.wlan_headers() {
            return self.err("802.11 link-layer types supported only on 802.11");
        }
        self.mcmp(Rel::LinkHdr, 0, Size::B1, value, mask)
    }

    /// `dir` (gen_p80211_fcdir): the frame control's direction bits.
    pub(crate) fn p80211_dir(&mut self, dir: u32) -> LResult<Tree> {
        if !self.wlan_headers() {
            return self.err("frame direction supported only with 802.11 headers");
        }
        self.mcmp(Rel::LinkHdr, 1, Size::B1, dir, FC1_DIR_MASK)
    }

    /// The link types gen_p80211_type and gen_p80211_fcdir take: not PPI.
    fn wlan_headers(&self) -> bool {
        self.link == Link::Wlan && self.target.linktype != LinkType::PPI
    }

    /// `FC1 & flag` set, then `then`; else `otherwise` (gencode's `(!f and B) or
    /// (f and A)`, the unset branch first).
    fn by_flag(&mut self, off: u32, flag: u32, set: Tree, unset: Tree) -> LResult<Tree> {
        let f = self.jset(Rel::LinkHdr, off, Size::B1, flag)?;
        let nf = Tree::not(self.jset(Rel::LinkHdr, off, Size::B1, flag)?);
        Ok(Tree::or(Tree::and(nf, unset), Tree::and(f, set)))
    }

    /// The destination address's field (`at(4)` or `at(16)`) of a frame that is
    /// not a control frame, by type and To DS: libpcap's shape for `wlan dst` and
    /// `multicast`.
    fn wlan_by_dst(
        &mut self,
        at: &mut dyn FnMut(&mut Self, u32) -> LResult<Tree>,
    ) -> LResult<Tree> {
        let a16 = at(self, 16)?;
        let a4 = at(self, 4)?;
        let data = self.by_flag(1, FC1_TODS, a16, a4)?;
        let a4 = at(self, 4)?;
        self.not_ctl_by_type(data, a4)
    }

    /// Not a control frame, and `data` for a data frame, `other` for another.
    fn not_ctl_by_type(&mut self, data: Tree, other: Tree) -> LResult<Tree> {
        let t = self.by_flag(0, FC0_DATA, data, other)?;
        let ctl = self.jset(Rel::LinkHdr, 0, Size::B1, FC0_CTL)?;
        Ok(Tree::and(Tree::not(ctl), t))
    }

    /// gen_wlanhostop: a MAC address in the fields `dir` names.
    pub(crate) fn wlanhostop(&mut self, mac: &[u8; 6], dir: D) -> LResult<Tree> {
        let mut at = |lw: &mut Self, off: u32| lw.bcmp(Rel::LinkHdr, off, mac);
        match dir {
            D::Src => {
                let a24 = at(self, 24)?;
                let a16 = at(self, 16)?;
                let fromds = self.by_flag(1, FC1_TODS, a24, a16)?;
                let a10 = at(self, 10)?;
                let data = self.by_flag(1, FC1_FROMDS, fromds, a10)?;
                let a10 = at(self, 10)?;
                self.not_ctl_by_type(data, a10)
            }
            D::Dst => self.wlan_by_dst(&mut at),
            D::And => {
                let a = self.wlanhostop(mac, D::Src)?;
                Ok(Tree::and(a, self.wlanhostop(mac, D::Dst)?))
            }
            D::Default | D::Or => {
                let a = self.wlanhostop(mac, D::Src)?;
                Ok(Tree::or(a, self.wlanhostop(mac, D::Dst)?))
            }
            D::Addr1 => at(self, 4),
            D::Addr2 => {
                let b = self.not_ctl_or_two_addresses()?;
                Ok(Tree::and(b, at(self, 10)?))
            }
            D::Addr3 => {
                let ctl = self.mcmp(Rel::LinkHdr, 0, Size::B1, FC0_CTL, FC0_TYPE_MASK)?;
                Ok(Tree::and(Tree::not(ctl), at(self, 16)?))
            }
            D::Addr4 => {
                let b = self.mcmp(Rel::LinkHdr, 1, Size::B1, FC1_DIR_MASK, FC1_DIR_MASK)?;
                Ok(Tree::and(b, at(self, 24)?))
            }
            D::Ra => {
                let b = self.jset(Rel::LinkHdr, 0, Size::B1, FC0_DATA)?;
                Ok(Tree::and(b, at(self, 4)?))
            }
            D::Ta => {
                let b = self.not_ctl_or_two_addresses()?;
                let data = self.jset(Rel::LinkHdr, 0, Size::B1, FC0_DATA)?;
                Ok(Tree::and(Tree::and(data, b), at(self, 10)?))
            }
        }
    }

    /// Not a control frame, or one other than CTS and ACK (which have no second
    /// address).
    fn not_ctl_or_two_addresses(&mut self) -> LResult<Tree> {
        let ctl = self.mcmp(Rel::LinkHdr, 0, Size::B1, FC0_CTL, FC0_TYPE_MASK)?;
        let cts = self.mcmp(Rel::LinkHdr, 0, Size::B1, FC0_CTS, FC0_SUBTYPE_MASK)?;
        let ack = self.mcmp(Rel::LinkHdr, 0, Size::B1, FC0_ACK, FC0_SUBTYPE_MASK)?;
        Ok(Tree::or(
            Tree::not(ctl),
            Tree::and(Tree::not(cts), Tree::not(ack)),
        ))
    }

    /// `multicast` on 802.11: the group bit of the destination address.
    pub(crate) fn wlan_multicast(&mut self) -> LResult<Tree> {
        self.wlan_by_dst(&mut |lw: &mut Self, off| lw.jset(Rel::LinkHdr, off, Size::B1, 1))
    }
}

/// `p[anchor + off]` (of `size`) is there: an always-true test with that load.
fn ge0(anchor: usize, off: u32, size: Size) -> Tree {
    Tree::Atom(Pred::Cmp(Cmp {
        loc: Loc { anchor, off },
        size,
        mask: size.max(),
        test: Test::Ge(0),
    }))
}

/// `p[anchor + off] & mask != 0` (BPF's jset).
fn bits(anchor: usize, off: u32, size: Size, mask: u32) -> Tree {
    Tree::not(Tree::Atom(Pred::Cmp(Cmp {
        loc: Loc { anchor, off },
        size,
        mask,
        test: Test::Eq(0),
    })))
}
