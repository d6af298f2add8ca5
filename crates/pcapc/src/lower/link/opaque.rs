//! The link types for which libpcap 1.10 compiles only tests of the length, of raw
//! `link[]` bytes (and `byte`) and of the kernel's direction and interface: its
//! init_linktype leaves their link-type and payload offsets unset, and gen_linktype
//! refuses every protocol test, naming the link type.

use super::super::ir::Tree;
use super::super::{LResult, Lowerer};
use netsift_wire::LinkType;

/// (LINKTYPE, the name gen_linktype's refusal gives where it is not libpcap's
/// description of the link type).
const OPAQUE: &[(u32, Option<&str>)] = &[
    (184, None),                           // A429
    (185, None),                           // A653_ICM
    (222, None),                           // AOS
    (289, None),                           // ATSC_ALP
    (202, Some("AX.25")),                  // AX25_KISS
    (255, None),                           // BLUETOOTH_BREDR_BB
    (187, Some("Bluetooth")),              // BLUETOOTH_HCI_H4
    (201, Some("Bluetooth")),              // BLUETOOTH_HCI_H4_WITH_PHDR
    (251, None),                           // BLUETOOTH_LE_LL
    (256, None),                           // BLUETOOTH_LE_LL_WITH_PHDR
    (254, None),                           // BLUETOOTH_LINUX_MONITOR
    (190, Some("CAN")),                    // CAN20B
    (227, Some("CAN")),                    // CAN_SOCKETCAN
    (231, None),                           // DBUS
    (221, None),                           // DECT
    (275, None),                           // DISPLAYPORT_AUX
    (143, None),                           // DOCSIS
    (273, None),                           // DOCSIS31_XRA31
    (281, None),                           // DSA_TAG_BRCM
    (282, None),                           // DSA_TAG_BRCM_PREPEND
    (284, None),                           // DSA_TAG_DSA
    (285, None),                           // DSA_TAG_EDSA
    (235, None),                           // DVB_CI
    (279, None),                           // EBHSCR
    (286, None),                           // ELEE
    (259, None),                           // EPON
    (175, None),                           // ERF_ETH
    (176, None),                           // ERF_POS
    (274, None),                           // ETHERNET_MPACKET
    (224, None),                           // FC_2
    (225, None),                           // FC_2_WITH_FRAME_DELIMS
    (171, None),                           // GPF_F
    (170, None),                           // GPF_T
    (169, None),                           // GPRS_LLC
    (195, Some("IEEE 802.15.4")),          // IEEE802_15_4
    (191, Some("IEEE 802.15.4")),          // IEEE802_15_4_LINUX
    (230, Some("IEEE 802.15.4")),          // IEEE802_15_4_NOFCS
    (215, Some("IEEE 802.15.4")),          // IEEE802_15_4_NONASK_PHY
    (283, Some("IEEE 802.15.4")),          // IEEE802_15_4_TAP
    (188, None),                           // IEEE802_16_MAC_CPS
    (193, Some("IEEE 802.16")),            // IEEE802_16_MAC_CPS_RADIO
    (247, None),                           // INFINIBAND
    (199, Some("IPMB")),                   // IPMB_KONTRON
    (209, Some("IPMB")),                   // IPMB_LINUX
    (260, None),                           // IPMI_HPM_2
    (242, None),                           // IPOIB
    (264, None),                           // ISO_14443
    (174, None),                           // JUNIPER_PIC_PEER
    (216, None),                           // LINUX_EVDEV
    (144, Some("IrDA")),                   // LINUX_IRDA
    (177, Some("LAPD")),                   // LINUX_LAPD
    (182, Some("Multi-link Frame Relay")), // MFR
    (243, None),                           // MPEG_2_TS
    (219, None),                           // MPLS
    (141, None),                           // MTP3
    (236, None),                           // MUX27010
    (253, None),                           // NETLINK
    (245, None),                           // NFC_LLCP
    (239, Some("NFLOG")),                  // NFLOG
    (244, None),                           // NG40
    (272, None),                           // NORDIC_BLE
    (267, None),                           // OPENFLOW
    (278, None),                           // OPENVIZSLA
    (246, Some("PFSYNC")),                 // PFSYNC
    (258, None),                           // PKTAP
    (257, None),                           // PROFIBUS_DL
    (198, Some("RAIF1")),                  // RAIF1
    (265, None),                           // RDS
    (250, None),                           // RTAC_SERIAL
    (142, None),                           // SCCP
    (248, None),                           // SCTP
    (268, None),                           // SDLC
    (196, Some("SITA")),                   // SITA
    (237, None),                           // STANAG_5066_D_PDU
    (269, None),                           // TI_LLN_SNIFFER
    (249, Some("USB")),                    // USBPCAP
    (288, None),                           // USB_2_0
    (266, None),                           // USB_DARWIN
    (186, Some("USB")),                    // USB_FREEBSD
    (189, Some("USB")),                    // USB_LINUX
    (220, Some("USB")),                    // USB_LINUX_MMAPPED
    (280, None),                           // VPP_DISPATCH
    (271, None),                           // VSOCK
    (263, None),                           // WATTSTOPPER_DLM
    (223, None),                           // WIHART
    (261, None),                           // ZWAVE_R1_R2
    (262, None),                           // ZWAVE_R3
    (287, None),                           // Z_WAVE_SERIAL
];

/// Whether `lt` is one of these link types; `Some(label)` names it in refusals.
pub(crate) fn opaque_label(lt: LinkType) -> Option<&'static str> {
    let (_, label) = OPAQUE.iter().find(|o| o.0 == lt.0)?;
    Some(label.or(lt.description()).unwrap_or("?"))
}

impl Lowerer<'_> {
    pub(super) fn opaque_linktype(&mut self) -> LResult<Tree> {
        let label = opaque_label(self.target.linktype).unwrap_or(self.desc);
        self.err(format!("{label} link-layer type filtering not implemented"))
    }
}
