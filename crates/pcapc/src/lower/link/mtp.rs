//! SS7: MTP2 signal units (the length indicator tells FISU, LSSU and MSU apart) and
//! the MTP3 routing label of an MSU (service information octet, originating and
//! destination point codes, signalling link selection), in MTP2, MTP2 with its
//! pseudo-header, and ERF records. The `h…` forms read the high-speed link (HSL)
//! layout, 3 bytes later with a 9-bit length. gencode's gen_mtp2type_abbrev and
//! gen_mtp3field_code; libpcap filters no protocol on these link types.

use super::super::ir::{Test, Tree};
use super::super::{LResult, Link, Lowerer, Rel, RelOp};
use super::atm::{or_all, rel_ncmp};
use crate::syntax::ast::Telco;
use netsift_isa::Size;
use netsift_wire::LinkType;

/// MTP2 (ERF, MTP2 with its pseudo-header): where the length indicator and the
/// service information octet are (init_linktype's off_li, off_li_hsl, off_sio; the
/// routing label follows the SIO).
fn offsets(lt: LinkType) -> Option<(u32, u32, u32)> {
    match lt.0 {
        140 => Some((2, 4, 3)),
        139 => Some((6, 8, 7)),
        197 => Some((22, 24, 23)),
        _ => None,
    }
}

impl Lowerer<'_> {
    /// gen_linktype refuses every protocol on these link types.
    pub(super) fn mtp2_linktype(&mut self) -> LResult<Tree> {
        let name = if self.target.linktype.0 == 197 {
            "ERF"
        } else {
            "MTP2"
        };
        self.err(format!("{name} link-layer type filtering not implemented"))
    }

    /// An MTP2 signal-unit type or an MTP3 field test.
    pub(crate) fn mtp(&mut self, t: Telco, values: &[(RelOp, u32)]) -> LResult<Tree> {
        let offs = offsets(self.target.linktype).filter(|_| self.link == Link::Mtp2);
        match t {
            Telco::Fisu | Telco::Lssu | Telco::Msu | Telco::Hfisu | Telco::Hlssu | Telco::Hmsu => {
                match offs {
                    Some((li, li_hsl, _)) => self.mtp2type(t, li, li_hsl),
                    None => {
                        let hsl = if matches!(t, Telco::Fisu | Telco::Lssu | Telco::Msu) {
                            ""
                        } else {
                            "_HSL"
                        };
                        self.err(format!("'{}' supported only on MTP2{hsl}", t.name()))
                    }
                }
            }
            _ => {
                let mut parts = Vec::new();
                for &(op, v) in values {
                    parts.push(self.mtp3field(t, offs.map(|o| o.2), op, v)?);
                }
                Ok(or_all(parts))
            }
        }
    }

    /// FISU: length 0; LSSU: 1 or 2; MSU: 3 or more (HSL: the length in 9 bits).
    fn mtp2type(&mut self, t: Telco, li: u32, li_hsl: u32) -> LResult<Tree> {
        let (off, size, mask, two) = match t {
            Telco::Fisu | Telco::Lssu | Telco::Msu => (li, Size::B1, 0x3f, 2),
            _ => (li_hsl, Size::B2, 0xff80, 0x0100),
        };
        let r = Rel::LinkHdr;
        Ok(match t {
            Telco::Fisu | Telco::Hfisu => self.ncmp(r, off, size, mask, Test::Eq(0))?,
            Telco::Msu | Telco::Hmsu => self.ncmp(r, off, size, mask, Test::Gt(two))?,
            _ => {
                let nonzero = self.ncmp(r, off, size, mask, Test::Gt(0))?;
                let short = Tree::not(self.ncmp(r, off, size, mask, Test::Gt(two))?);
                Tree::and(nonzero, short)
            }
        })
    }

    /// An MTP3 field against one value, the value put in the field's wire layout
    /// (point codes are spread over bytes, SLS is the high nibble).
    fn mtp3field(&mut self, t: Telco, sio: Option<u32>, op: RelOp, v: u32) -> LResult<Tree> {
        let hsl = matches!(t, Telco::Hsio | Telco::Hopc | Telco::Hdpc | Telco::Hsls);
        let (name, max) = match t {
            Telco::Sio | Telco::Hsio => ("sio", 255),
            Telco::Opc | Telco::Hopc => ("opc", 16383),
            Telco::Dpc | Telco::Hdpc => ("dpc", 16383),
            _ => ("sls", 15),
        };
        let Some(sio) = sio else {
            return self.err(format!("'{name}' supported only on SS7"));
        };
        if v > max {
            return self.err(format!("{name} value {v} too big; max value = {max}"));
        }
        let off = sio + if hsl { 3 } else { 0 };
        let r = Rel::LinkHdr;
        match name {
            "sio" => rel_ncmp(self, r, off, Size::B1, u32::MAX, op, v),
            "opc" => {
                let w = ((v & 0x3c00) >> 10) + ((v & 0x03fc) << 6) + ((v & 0x3) << 22);
                rel_ncmp(self, r, off + 1, Size::B4, 0x00c0_ff0f, op, w)
            }
            "dpc" => {
                let w = ((v & 0xff) << 24) + ((v & 0x3f00) << 8);
                rel_ncmp(self, r, off + 1, Size::B4, 0xff3f_0000, op, w)
            }
            _ => rel_ncmp(self, r, off + 4, Size::B1, 0xf0, op, v << 4),
        }
    }
}
