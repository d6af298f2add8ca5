//! gen_llc_linktype: a protocol carried in an 802.2 LLC header, on links whose
//! frames are always LLC (802.11, FDDI, Token Ring, IP over Fibre Channel, ATM
//! with LLC encapsulation).

use super::super::ir::Tree;
use super::super::{LResult, Lowerer, Rel};
use super::{et, sap, ETHERMTU};
use netsift_isa::Size;

impl Lowerer<'_> {
    /// `ll_proto` in the LLC header at the link payload: the DSAP and SSAP for
    /// IP, ISO and NetBEUI, the DSAP for other SAPs, AppleTalk's SNAP header, and
    /// for any other Ethertype only the SNAP type field (libpcap checks neither
    /// the SAPs nor the organisation code there).
    pub(crate) fn llc_linktype(&mut self, ll_proto: u32) -> LResult<Tree> {
        match ll_proto {
            sap::IP | sap::ISONS | sap::NETBEUI => {
                self.cmp(Rel::Llc, 0, Size::B2, ll_proto << 8 | ll_proto)
            }
            sap::IPX => self.cmp(Rel::Llc, 0, Size::B1, sap::IPX),
            et::ATALK => self.snap(0x080007, et::ATALK),
            p if p <= ETHERMTU => self.cmp(Rel::Llc, 0, Size::B1, p),
            p => self.cmp(Rel::Llc, 6, Size::B2, p),
        }
    }
}
