//! The Juniper link types: a capture header that starts with the magic "MGC" and a
//! flags byte (bit 0: inbound), then a cookie and the PIC's frame. libpcap 1.10 tests
//! only the magic for any protocol (gen_linktype: "just lets verify the magic number
//! for now"), reads the direction from the flags, and reads protocol fields at the
//! offsets init_linktype gives each type; where it leaves them unset (-1), the sums
//! wrap as its unsigned arithmetic does (`ip[9]` at 7 on JUNIPER_ES).

use super::super::ir::Tree;
use super::super::{LResult, Link, Lowerer, Rel};
use netsift_isa::Size;
use netsift_wire::LinkType;

/// init_linktype's OFFSET_NOT_SET.
const UNSET: u32 = u32::MAX;
const MAGIC: u32 = 0x4d47_4300;
const MAGIC_MASK: u32 = 0xffff_ff00;
/// The flags byte after the magic, and its direction bit.
const FLAGS: u32 = 3;
const PKT_IN: u32 = 0x01;

/// (LINKTYPE, off_linktype, off_linkpl, off_nl, off_nl_nosnap) of each Juniper link
/// type gencode knows (JUNIPER_PIC_PEER it does not: an opaque type).
const JUNIPER: &[(u32, u32, u32, u32, u32)] = &[
    (134, 4, 4, 0, UNSET),          // JUNIPER_MFR
    (131, 4, 4, 0, UNSET),          // JUNIPER_MLFR
    (130, 4, 4, 0, UNSET),          // JUNIPER_MLPPP
    (179, 4, 4, 0, UNSET),          // JUNIPER_PPP
    (181, 4, 4, 0, UNSET),          // JUNIPER_CHDLC
    (180, 4, 4, 0, UNSET),          // JUNIPER_FRELAY
    (137, 4, 4, 0, 10),             // JUNIPER_ATM1
    (135, 8, 8, 0, 10),             // JUNIPER_ATM2
    (167, 16, 14, 18, 21),          // JUNIPER_PPPOE
    (178, 16, 14, 18, 21),          // JUNIPER_ETHER
    (168, 4, 6, 0, UNSET),          // JUNIPER_PPPOE_ATM
    (133, 6, 12, 0, UNSET),         // JUNIPER_GGSN
    (132, 6, UNSET, UNSET, UNSET),  // JUNIPER_ES
    (164, 12, 12, 0, UNSET),        // JUNIPER_MONITOR
    (136, 12, UNSET, UNSET, UNSET), // JUNIPER_SERVICES
    (183, 18, UNSET, UNSET, UNSET), // JUNIPER_VP
    (200, 18, UNSET, UNSET, UNSET), // JUNIPER_ST
    (194, 8, UNSET, UNSET, UNSET),  // JUNIPER_ISM
    (232, 8, UNSET, UNSET, UNSET),  // JUNIPER_VS
    (233, 8, UNSET, UNSET, UNSET),  // JUNIPER_SRX_E2E
    (234, 8, UNSET, UNSET, UNSET),  // JUNIPER_FIBRECHANNEL
    (238, 8, UNSET, UNSET, UNSET),  // JUNIPER_ATM_CEMIC
];

/// The offsets of a Juniper link type: (link type field, link payload, network
/// layer past the payload, the same without SNAP).
pub(crate) fn juniper_offsets(lt: LinkType) -> Option<(u32, u32, u32, u32)> {
    let &(_, t, pl, nl, nosnap) = JUNIPER.iter().find(|j| j.0 == lt.0)?;
    Some((t, pl, nl, nosnap))
}

/// init_linktype for a Juniper link type: (framing, link header, link-type field,
/// link payload), or `None` for another link type.
pub(crate) fn juniper_init(lt: LinkType) -> Option<(Link, u32, Option<u32>, u32)> {
    let (t, pl, _, _) = juniper_offsets(lt)?;
    Some((Link::Juniper, 0, Some(t), pl))
}

impl Lowerer<'_> {
    /// Any protocol: the magic number.
    pub(super) fn juniper_linktype(&mut self) -> LResult<Tree> {
        self.mcmp(Rel::LinkHdr, 0, Size::B4, MAGIC, MAGIC_MASK)
    }

    /// `inbound`/`outbound`: the flags byte's direction bit.
    pub(super) fn juniper_direction(&mut self, inbound: bool) -> LResult<Tree> {
        let v = if inbound { PKT_IN } else { 0 };
        self.mcmp(Rel::LinkHdr, FLAGS, Size::B1, v, PKT_IN)
    }
}
