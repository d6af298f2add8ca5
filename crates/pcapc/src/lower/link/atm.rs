//! SunATM: a 4-byte pseudo-header (flags with the traffic type in the low nibble,
//! VPI, VCI) before an AAL5 frame that is LLC-encapsulated, LANE (Ethernet two bytes
//! in) or Q.2931 signalling. gencode's gen_atmfield_code, gen_atmtype_abbrev,
//! gen_atmmulti_abbrev and gen_msg_abbrev.
//!
//! `lane` makes later primitives see the Ethernet frame (libpcap's PUSH_LINKHDR to
//! DLT_EN10MB), whose Ethernet tests first check that the frame is not an LE
//! control frame (gen_prevlinkhdr_check).

use super::super::ir::{Cmp, Loc, Pred, Test, Tree};
use super::super::{LResult, Link, Lowerer, Off, Rel, RelOp};
use crate::syntax::ast::Telco;
use netsift_isa::Size;
use netsift_wire::LinkType;

/// sunatmpos.h: where the pseudo-header holds each field, and where the AAL5
/// frame begins.
const VPI_POS: u32 = 1;
const VCI_POS: u32 = 2;
const PROTO_POS: u32 = 0;
const PKT_BEGIN_POS: u32 = 4;
/// The traffic types of the pseudo-header's low nibble.
const PT_LANE: u32 = 0x01;
const PT_LLC: u32 = 0x02;
/// Q.2931's message type, in the signalling frame.
const MSG_TYPE_POS: u32 = 5;
/// Q.2931 message types (atmuni31.h).
const CALL_PROCEED: u32 = 0x02;
const CONNECT: u32 = 0x07;
const CONNECT_ACK: u32 = 0x0f;
const SETUP: u32 = 0x05;
const RELEASE: u32 = 0x4d;
const RELEASE_DONE: u32 = 0x5a;
/// Well-known VCIs on VPI 0.
const VCI_METAC: u32 = 1;
const VCI_BCC: u32 = 2;
const VCI_OAMF4SC: u32 = 3;
const VCI_OAMF4EC: u32 = 4;
const VCI_SC: u32 = 5;
const VCI_ILMIC: u32 = 16;

/// A pseudo-header field gen_atmfield_code tests.
#[derive(Clone, Copy)]
enum Field {
    Vpi,
    Vci,
    Proto,
    MsgType,
}

impl Lowerer<'_> {
    /// `field op value`, relative to the link header (which `lane` moves, so that
    /// after it these read inside the LANE frame, as libpcap's do).
    fn atmfield(&mut self, f: Field, op: RelOp, v: u32) -> LResult<Tree> {
        let (off, size, mask) = match f {
            Field::Vpi => (VPI_POS, Size::B1, u32::MAX),
            Field::Vci => (VCI_POS, Size::B2, u32::MAX),
            Field::Proto => (PROTO_POS, Size::B1, 0x0f),
            Field::MsgType => (PKT_BEGIN_POS + MSG_TYPE_POS, Size::B1, u32::MAX),
        };
        rel_ncmp(self, Rel::LinkHdr, off, size, mask, op, v)
    }

    fn vpi0_vci(&mut self, vci: u32) -> LResult<Tree> {
        let a = self.atmfield(Field::Vpi, RelOp::Eq, 0)?;
        Ok(Tree::and(a, self.atmfield(Field::Vci, RelOp::Eq, vci)?))
    }

    /// LLC-encapsulated traffic (gen_atmtype_llc).
    pub(super) fn atmtype_llc(&mut self) -> LResult<Tree> {
        self.atmfield(Field::Proto, RelOp::Eq, PT_LLC)
    }

    /// gen_linktype on SunATM: LLC encapsulation, then the protocol in it.
    pub(super) fn sunatm_linktype(&mut self, ll_proto: u32) -> LResult<Tree> {
        let b0 = self.atmtype_llc()?;
        Ok(Tree::and(b0, self.llc_linktype(ll_proto)?))
    }

    /// An ATM primitive: a circuit or message abbreviation, or `vpi`/`vci` tests.
    pub(crate) fn atm(&mut self, t: Telco, values: &[(RelOp, u32)]) -> LResult<Tree> {
        if self.target.linktype != LinkType::SUNATM {
            let name = match t {
                Telco::Oamf4sc => "oam4sc",
                Telco::Oamf4ec => "oam4ec",
                t => t.name(),
            };
            return self.err(format!("'{name}' supported only on raw ATM"));
        }
        Ok(match t {
            Telco::Vpi | Telco::Vci => {
                let f = if t == Telco::Vpi {
                    Field::Vpi
                } else {
                    Field::Vci
                };
                let mut parts = Vec::new();
                for &(op, v) in values {
                    parts.push(self.atmfield(f, op, v)?);
                }
                or_all(parts)
            }
            Telco::Metac => self.vpi0_vci(VCI_METAC)?,
            Telco::Bcc => self.vpi0_vci(VCI_BCC)?,
            Telco::Oamf4sc => self.vpi0_vci(VCI_OAMF4SC)?,
            Telco::Oamf4ec => self.vpi0_vci(VCI_OAMF4EC)?,
            Telco::Sc => self.vpi0_vci(VCI_SC)?,
            Telco::Ilmic => self.vpi0_vci(VCI_ILMIC)?,
            Telco::Oam | Telco::Oamf4 => {
                let sc = self.atmfield(Field::Vci, RelOp::Eq, VCI_OAMF4SC)?;
                let ec = self.atmfield(Field::Vci, RelOp::Eq, VCI_OAMF4EC)?;
                let vpi = self.atmfield(Field::Vpi, RelOp::Eq, 0)?;
                Tree::and(vpi, Tree::or(sc, ec))
            }
            Telco::Connectmsg | Telco::Metaconnect => {
                // gencode ors each message type in front of the ones before it
                // (the first two stay in order).
                let msgs: &[u32] = if t == Telco::Connectmsg {
                    &[
                        RELEASE_DONE,
                        RELEASE,
                        CONNECT_ACK,
                        CONNECT,
                        SETUP,
                        CALL_PROCEED,
                    ]
                } else {
                    &[RELEASE_DONE, RELEASE, CONNECT, SETUP, CALL_PROCEED]
                };
                let mut parts = Vec::new();
                for &m in msgs {
                    parts.push(self.atmfield(Field::MsgType, RelOp::Eq, m)?);
                }
                let vci = if t == Telco::Connectmsg {
                    VCI_SC
                } else {
                    VCI_METAC
                };
                let circuit = self.vpi0_vci(vci)?;
                Tree::and(circuit, or_all(parts))
            }
            _ => self.lane()?,
        })
    }

    /// `lane`: LANE traffic; from here on the frame is Ethernet, 2 bytes into the
    /// AAL5 frame.
    fn lane(&mut self) -> LResult<Tree> {
        let b = self.atmfield(Field::Proto, RelOp::Eq, PT_LANE)?;
        let hdr = Off {
            var: self.off_linkhdr.var,
            k: PKT_BEGIN_POS + 2,
        };
        self.prev_linkhdr = Some(self.off_linkhdr);
        self.link = Link::En10mb;
        self.desc = "Ethernet";
        self.off_linkhdr = hdr;
        self.off_linktype = Some(Off {
            k: hdr.k + 12,
            ..hdr
        });
        self.off_linkpl = Off {
            k: hdr.k + 14,
            ..hdr
        };
        self.off_nl = 0;
        self.off_nl_nosnap = 3;
        Ok(b)
    }

    /// gen_prevlinkhdr_check after `lane`: the frame is not an LE control frame
    /// (marker 0xff00 where the AAL5 frame begins).
    pub(super) fn lane_check(&self) -> Option<Tree> {
        let prev = self.prev_linkhdr?;
        let marker = Tree::Atom(Pred::Cmp(Cmp {
            loc: Loc {
                anchor: prev.var,
                off: prev.k + PKT_BEGIN_POS,
            },
            size: Size::B2,
            mask: 0xffff,
            test: Test::Eq(0xff00),
        }));
        Some(Tree::not(marker))
    }
}

/// gen_ncmp with a relation as the grammar gives it: `<=`, `<` are the negations
/// of `>`, `>=`; `!=` is compared as `=` (gen_ncmp reverses only `>` and `>=`).
pub(super) fn rel_ncmp(
    lw: &mut Lowerer<'_>,
    rel: Rel,
    off: u32,
    size: Size,
    mask: u32,
    op: RelOp,
    v: u32,
) -> LResult<Tree> {
    Ok(match op {
        RelOp::Eq | RelOp::Ne => lw.ncmp(rel, off, size, mask, Test::Eq(v))?,
        RelOp::Gt => lw.ncmp(rel, off, size, mask, Test::Gt(v))?,
        RelOp::Ge => lw.ncmp(rel, off, size, mask, Test::Ge(v))?,
        RelOp::Le => Tree::not(lw.ncmp(rel, off, size, mask, Test::Gt(v))?),
        RelOp::Lt => Tree::not(lw.ncmp(rel, off, size, mask, Test::Ge(v))?),
    })
}

/// The alternatives in order (one alone is itself).
pub(super) fn or_all(parts: Vec<Tree>) -> Tree {
    parts
        .into_iter()
        .reduce(Tree::or)
        .unwrap_or(Tree::Const(false))
}
