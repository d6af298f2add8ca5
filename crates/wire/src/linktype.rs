//! Link-layer header types, as the LINKTYPE_* numbers of the pcap and pcapng formats.

use std::fmt;

/// A LINKTYPE_* value as stored in a pcap header or a pcapng interface block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LinkType(pub u32);

impl LinkType {
    /// BSD loopback: a 4-byte address family in host byte order of the capturing machine.
    pub const NULL: LinkType = LinkType(0);
    /// Ethernet (10Mb and up).
    pub const EN10MB: LinkType = LinkType(1);
    /// Raw IPv4 or IPv6, version read from the first nibble.
    pub const RAW: LinkType = LinkType(101);
    /// OpenBSD loopback: a 4-byte address family in network byte order.
    pub const LOOP: LinkType = LinkType(108);
    /// Linux "cooked" capture, version 1 (16-byte header).
    pub const LINUX_SLL: LinkType = LinkType(113);
    /// Raw IPv4 only.
    pub const IPV4: LinkType = LinkType(228);
    /// Raw IPv6 only.
    pub const IPV6: LinkType = LinkType(229);
    /// Linux "cooked" capture, version 2 (20-byte header).
    pub const LINUX_SLL2: LinkType = LinkType(276);
    /// SLIP: a 16-byte header (direction byte first), then IP.
    pub const SLIP: LinkType = LinkType(8);
    /// PPP, with HDLC-like framing: address, control, 16-bit protocol.
    pub const PPP: LinkType = LinkType(9);
    /// NetBSD sync/async serial PPP (HDLC-like framing as `PPP`).
    pub const PPP_SERIAL: LinkType = LinkType(50);
    /// PPPoE session payload: the 6-byte PPPoE header, then the PPP protocol.
    pub const PPP_ETHER: LinkType = LinkType(51);
    /// BSD/OS SLIP: a 24-byte header, then IP.
    pub const SLIP_BSDOS: LinkType = LinkType(102);
    /// BSD/OS PPP: a 24-byte header, the protocol at offset 5.
    pub const PPP_BSDOS: LinkType = LinkType(103);
    /// Cisco HDLC: address, control, an Ethertype.
    pub const C_HDLC: LinkType = LinkType(104);
    /// Frame Relay (Q.922 address, then NLPID).
    pub const FRELAY: LinkType = LinkType(107);
    /// OpenBSD enc(4): a 12-byte header whose first word is an AF in host order.
    pub const ENC: LinkType = LinkType(109);
    /// OpenBSD pflog: a header whose first byte is its length, then IP.
    pub const PFLOG: LinkType = LinkType(117);
    /// PPP for pppd, with a direction byte in place of the HDLC address.
    pub const PPP_PPPD: LinkType = LinkType(166);
    /// FDDI: frame control, two MAC addresses, then 802.2 LLC.
    pub const FDDI: LinkType = LinkType(10);
    /// Token Ring (IEEE 802.5): access and frame control, two MAC addresses, LLC.
    pub const IEEE802: LinkType = LinkType(6);
    /// RFC 2625 IP over Fibre Channel: a 16-byte network header, then LLC/SNAP.
    pub const IP_OVER_FC: LinkType = LinkType(122);
    /// RFC 1483 LLC-encapsulated ATM: the frame starts with LLC.
    pub const ATM_RFC1483: LinkType = LinkType(100);
    /// Linux Classical IP over ATM: LLC/SNAP as `ATM_RFC1483`.
    pub const ATM_CLIP: LinkType = LinkType(106);
    /// SunATM: a 4-byte pseudo-header (flags and traffic type, VPI, VCI), then AAL5.
    pub const SUNATM: LinkType = LinkType(123);
    /// BSD ARCNET: source, destination, a protocol byte.
    pub const ARCNET: LinkType = LinkType(7);
    /// Linux ARCNET: source, destination, an offset, the protocol byte at 4.
    pub const ARCNET_LINUX: LinkType = LinkType(129);
    /// Apple IP over IEEE 1394: two 8-byte addresses and an Ethertype.
    pub const APPLE_IP_OVER_IEEE1394: LinkType = LinkType(138);
    /// SS7 MTP2 signal units.
    pub const MTP2: LinkType = LinkType(140);
    /// SS7 MTP2 after a 4-byte pseudo-header.
    pub const MTP2_WITH_PHDR: LinkType = LinkType(139);
    /// Endace ERF records (libpcap filters their MTP2 fields).
    pub const ERF: LinkType = LinkType(197);
    /// Solaris ipnet: a 24-byte header, the address family at offset 1.
    pub const IPNET: LinkType = LinkType(226);
    /// Ethernet after a 4-byte netANALYZER pseudo-header.
    pub const NETANALYZER: LinkType = LinkType(240);
    /// Ethernet after the netANALYZER pseudo-header, preamble and SFD (12 bytes).
    pub const NETANALYZER_TRANSPARENT: LinkType = LinkType(241);
    /// 802.11, its header first.
    pub const IEEE802_11: LinkType = LinkType(105);
    /// 802.11 after a radiotap header (its little-endian length at 2).
    pub const IEEE802_11_RADIO: LinkType = LinkType(127);
    /// 802.11 after an AVS header (its big-endian length at 4).
    pub const IEEE802_11_RADIO_AVS: LinkType = LinkType(163);
    /// 802.11 after a 144-byte Prism header (or an AVS header).
    pub const PRISM_HEADER: LinkType = LinkType(119);
    /// A Per-Packet Information header (its little-endian length at 2), then the
    /// link type it names.
    pub const PPI: LinkType = LinkType(192);

    /// The link types the filter compiler supports.
    pub const SUPPORTED: [LinkType; 8] = [
        Self::NULL,
        Self::EN10MB,
        Self::RAW,
        Self::LOOP,
        Self::LINUX_SLL,
        Self::IPV4,
        Self::IPV6,
        Self::LINUX_SLL2,
    ];

    /// The link types beyond [`Self::SUPPORTED`] the filter compiler also handles
    /// (`netsift -r` filters them; printing them is still tcpdump's `unsupported`).
    pub fn filtered_more() -> impl Iterator<Item = LinkType> {
        MORE.iter().map(|&(v, _, _)| LinkType(v))
    }

    /// Whether the filter compiler handles this link type: [`Self::SUPPORTED`] and
    /// [`Self::filtered_more`].
    pub fn is_filtered(self) -> bool {
        self.is_supported() || self.more().is_some()
    }

    fn more(self) -> Option<&'static (u32, &'static str, &'static str)> {
        MORE.iter().find(|m| m.0 == self.0)
    }

    /// libpcap's description of the link type (`pcap_datalink_val_to_description`),
    /// which tcpdump prints after the name: `link-type EN10MB (Ethernet)`.
    pub fn description(self) -> Option<&'static str> {
        if let Some(m) = self.more() {
            return Some(m.2);
        }
        Some(match self {
            Self::NULL => "BSD loopback",
            Self::EN10MB => "Ethernet",
            Self::RAW => "Raw IP",
            Self::LOOP => "OpenBSD loopback",
            Self::LINUX_SLL => "Linux cooked v1",
            Self::IPV4 => "Raw IPv4",
            Self::IPV6 => "Raw IPv6",
            Self::LINUX_SLL2 => "Linux cooked v2",
            _ => return None,
        })
    }

    /// The name and description as tcpdump prints them after `link-type`:
    /// `EN10MB (Ethernet)`, or the bare name when libpcap has no description.
    pub fn with_description(self) -> String {
        match self.description() {
            Some(d) => format!("{self} ({d})"),
            None => self.to_string(),
        }
    }

    /// The libpcap name of this link type (`EN10MB`, `RAW`, ...), if netsift knows it.
    pub fn name(self) -> Option<&'static str> {
        if let Some(m) = self.more() {
            return Some(m.1);
        }
        Some(match self {
            Self::NULL => "NULL",
            Self::EN10MB => "EN10MB",
            Self::RAW => "RAW",
            Self::LOOP => "LOOP",
            Self::LINUX_SLL => "LINUX_SLL",
            Self::IPV4 => "IPV4",
            Self::IPV6 => "IPV6",
            Self::LINUX_SLL2 => "LINUX_SLL2",
            _ => return None,
        })
    }

    /// Looks up a link type by its libpcap name, ignoring case.
    pub fn from_name(name: &str) -> Option<LinkType> {
        Self::SUPPORTED
            .into_iter()
            .chain(Self::filtered_more())
            .find(|lt| lt.name().is_some_and(|n| n.eq_ignore_ascii_case(name)))
    }

    /// Whether the filter compiler supports this link type.
    pub fn is_supported(self) -> bool {
        Self::SUPPORTED.contains(&self)
    }
}

impl fmt::Display for LinkType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "LINKTYPE {}", self.0),
        }
    }
}

/// The link types of [`LinkType::filtered_more`]: (LINKTYPE value, libpcap's name,
/// libpcap 1.10.3's description), as `pcap_datalink_name_to_val` and
/// `pcap_datalink_val_to_description` give them (BSD/OS SLIP and PPP under their
/// LINKTYPE values, 102 and 103, not Linux's DLT values 15 and 16; ATM_RFC1483 and
/// ATM_CLIP likewise). The PPP family, Cisco HDLC, SLIP, Frame Relay, enc, pflog,
/// ipnet, the 802.2 LLC LANs and ATM, ARCNET, IEEE 1394, SS7 MTP2 and ERF, Juniper,
/// netANALYZER,
/// then the link
/// types for which libpcap compiles only length and raw `link[]` tests.
const MORE: &[(u32, &str, &str)] = &[
    (9, "PPP", "PPP"),
    (103, "PPP_BSDOS", "BSD/OS PPP"),
    (50, "PPP_SERIAL", "PPP over serial"),
    (51, "PPP_ETHER", "PPPoE"),
    (166, "PPP_PPPD", "PPP for pppd, with direction flag"),
    (104, "C_HDLC", "Cisco HDLC"),
    (107, "FRELAY", "Frame Relay"),
    (8, "SLIP", "SLIP"),
    (102, "SLIP_BSDOS", "BSD/OS SLIP"),
    (109, "ENC", "OpenBSD encapsulated IP"),
    (117, "PFLOG", "OpenBSD pflog file"),
    (226, "IPNET", "Solaris ipnet"),
    (10, "FDDI", "FDDI"),
    (6, "IEEE802", "Token ring"),
    (122, "IP_OVER_FC", "RFC 2625 IP-over-Fibre Channel"),
    (100, "ATM_RFC1483", "RFC 1483 LLC-encapsulated ATM"),
    (106, "ATM_CLIP", "Linux Classical IP over ATM"),
    (123, "SUNATM", "Sun raw ATM"),
    (7, "ARCNET", "BSD ARCNET"),
    (129, "ARCNET_LINUX", "Linux ARCNET"),
    (138, "APPLE_IP_OVER_IEEE1394", "Apple IP-over-IEEE 1394"),
    (140, "MTP2", "SS7 MTP2"),
    (139, "MTP2_WITH_PHDR", "SS7 MTP2 with Pseudo-header"),
    (197, "ERF", "Endace ERF header"),
    (134, "JUNIPER_MFR", "Juniper FRF.16 Frame Relay"),
    (131, "JUNIPER_MLFR", "Juniper Multi-Link Frame Relay"),
    (130, "JUNIPER_MLPPP", "Juniper Multi-Link PPP"),
    (179, "JUNIPER_PPP", "Juniper PPP"),
    (181, "JUNIPER_CHDLC", "Juniper C-HDLC"),
    (180, "JUNIPER_FRELAY", "Juniper Frame Relay"),
    (137, "JUNIPER_ATM1", "Juniper ATM1 PIC"),
    (135, "JUNIPER_ATM2", "Juniper ATM2 PIC"),
    (167, "JUNIPER_PPPOE", "Juniper PPPoE"),
    (178, "JUNIPER_ETHER", "Juniper Ethernet"),
    (168, "JUNIPER_PPPOE_ATM", "Juniper PPPoE/ATM"),
    (133, "JUNIPER_GGSN", "Juniper GGSN PIC"),
    (132, "JUNIPER_ES", "Juniper Encryption Services PIC"),
    (164, "JUNIPER_MONITOR", "Juniper Passive Monitor PIC"),
    (136, "JUNIPER_SERVICES", "Juniper Advanced Services PIC"),
    (183, "JUNIPER_VP", "Juniper Voice PIC"),
    (200, "JUNIPER_ST", "Juniper Secure Tunnel"),
    (194, "JUNIPER_ISM", "Juniper Integrated Service Module"),
    (232, "JUNIPER_VS", "Juniper Virtual Server"),
    (233, "JUNIPER_SRX_E2E", "Juniper SRX E2E"),
    (234, "JUNIPER_FIBRECHANNEL", "Juniper Fibre Channel"),
    (238, "JUNIPER_ATM_CEMIC", "Juniper ATM CEMIC"),
    (
        240,
        "NETANALYZER",
        "Ethernet with Hilscher netANALYZER pseudo-header",
    ),
    (
        241,
        "NETANALYZER_TRANSPARENT",
        "Ethernet with Hilscher netANALYZER pseudo-header and with preamble and SFD",
    ),
    (105, "IEEE802_11", "802.11"),
    (127, "IEEE802_11_RADIO", "802.11 plus radiotap header"),
    (
        163,
        "IEEE802_11_RADIO_AVS",
        "802.11 plus AVS radio information header",
    ),
    (119, "PRISM_HEADER", "802.11 plus Prism header"),
    (192, "PPI", "Per-Packet Information"),
    (184, "A429", "Arinc 429"),
    (185, "A653_ICM", "Arinc 653 Interpartition Communication"),
    (222, "AOS", "AOS Space Data Link protocol"),
    (289, "ATSC_ALP", "ATSC Link-Layer Protocol packets"),
    (202, "AX25_KISS", "AX.25 with KISS header"),
    (
        255,
        "BLUETOOTH_BREDR_BB",
        "Bluetooth Basic Rate/Enhanced Data Rate baseband packets",
    ),
    (
        187,
        "BLUETOOTH_HCI_H4",
        "Bluetooth HCI UART transport layer",
    ),
    (
        201,
        "BLUETOOTH_HCI_H4_WITH_PHDR",
        "Bluetooth HCI UART transport layer plus pseudo-header",
    ),
    (251, "BLUETOOTH_LE_LL", "Bluetooth Low Energy air interface"),
    (
        256,
        "BLUETOOTH_LE_LL_WITH_PHDR",
        "Bluetooth Low Energy air interface with pseudo-header",
    ),
    (254, "BLUETOOTH_LINUX_MONITOR", "Bluetooth Linux Monitor"),
    (190, "CAN20B", "Controller Area Network (CAN) v. 2.0B"),
    (227, "CAN_SOCKETCAN", "CAN-bus with SocketCAN headers"),
    (231, "DBUS", "D-Bus"),
    (221, "DECT", "DECT"),
    (
        275,
        "DISPLAYPORT_AUX",
        "DisplayPort AUX channel monitoring data",
    ),
    (143, "DOCSIS", "DOCSIS"),
    (
        273,
        "DOCSIS31_XRA31",
        "Excentis XRA-31 DOCSIS 3.1 RF sniffer frames",
    ),
    (281, "DSA_TAG_BRCM", "Broadcom tag"),
    (282, "DSA_TAG_BRCM_PREPEND", "Broadcom tag (prepended)"),
    (284, "DSA_TAG_DSA", "Marvell DSA"),
    (285, "DSA_TAG_EDSA", "Marvell EDSA"),
    (235, "DVB_CI", "DVB-CI"),
    (
        279,
        "EBHSCR",
        "Elektrobit High Speed Capture and Replay (EBHSCR)",
    ),
    (286, "ELEE", "ELEE lawful intercept packets"),
    (259, "EPON", "Ethernet with 802.3 Clause 65 EPON preamble"),
    (175, "ERF_ETH", "Ethernet with Endace ERF header"),
    (176, "ERF_POS", "Packet-over-SONET with Endace ERF header"),
    (274, "ETHERNET_MPACKET", "802.3br mPackets"),
    (224, "FC_2", "Fibre Channel FC-2"),
    (
        225,
        "FC_2_WITH_FRAME_DELIMS",
        "Fibre Channel FC-2 with frame delimiters",
    ),
    (171, "GPF_F", "GPF-F"),
    (170, "GPF_T", "GPF-T"),
    (169, "GPRS_LLC", "GPRS LLC"),
    (195, "IEEE802_15_4", "IEEE 802.15.4 with FCS"),
    (
        191,
        "IEEE802_15_4_LINUX",
        "IEEE 802.15.4 with Linux padding",
    ),
    (230, "IEEE802_15_4_NOFCS", "IEEE 802.15.4 without FCS"),
    (
        215,
        "IEEE802_15_4_NONASK_PHY",
        "IEEE 802.15.4 with non-ASK PHY data",
    ),
    (283, "IEEE802_15_4_TAP", "IEEE 802.15.4 with pseudo-header"),
    (
        188,
        "IEEE802_16_MAC_CPS",
        "IEEE 802.16 MAC Common Part Sublayer",
    ),
    (
        193,
        "IEEE802_16_MAC_CPS_RADIO",
        "IEEE 802.16 MAC Common Part Sublayer plus radiotap header",
    ),
    (247, "INFINIBAND", "InfiniBand"),
    (199, "IPMB_KONTRON", "IPMB with Kontron pseudo-header"),
    (
        209,
        "IPMB_LINUX",
        "IPMB with Linux/Pigeon Point pseudo-header",
    ),
    (260, "IPMI_HPM_2", "IPMI trace packets"),
    (242, "IPOIB", "RFC 4391 IP-over-Infiniband"),
    (264, "ISO_14443", "ISO 14443 messages"),
    (174, "JUNIPER_PIC_PEER", "Juniper PIC Peer"),
    (216, "LINUX_EVDEV", "Linux evdev events"),
    (144, "LINUX_IRDA", "Linux IrDA"),
    (177, "LINUX_LAPD", "Linux vISDN LAPD"),
    (182, "MFR", "FRF.16 Frame Relay"),
    (243, "MPEG_2_TS", "MPEG-2 transport stream"),
    (219, "MPLS", "MPLS with label as link-layer header"),
    (141, "MTP3", "SS7 MTP3"),
    (236, "MUX27010", "MUX27010"),
    (253, "NETLINK", "Linux netlink"),
    (245, "NFC_LLCP", "NFC LLCP PDUs with pseudo-header"),
    (239, "NFLOG", "Linux netfilter log messages"),
    (244, "NG40", "ng40 protocol tester Iub/Iur"),
    (
        272,
        "NORDIC_BLE",
        "Nordic Semiconductor Bluetooth LE sniffer frames",
    ),
    (267, "OPENFLOW", "OpenBSD DLT_OPENFLOW"),
    (278, "OPENVIZSLA", "OpenVizsla USB"),
    (246, "PFSYNC", "Packet filter state syncing"),
    (258, "PKTAP", "Apple DLT_PKTAP"),
    (257, "PROFIBUS_DL", "PROFIBUS data link layer"),
    (198, "RAIF1", "Ethernet with u10 Networks pseudo-header"),
    (265, "RDS", "IEC 62106 Radio Data System groups"),
    (
        250,
        "RTAC_SERIAL",
        "Schweitzer Engineering Laboratories RTAC packets",
    ),
    (142, "SCCP", "SS7 SCCP"),
    (248, "SCTP", "SCTP"),
    (268, "SDLC", "IBM SDLC frames"),
    (196, "SITA", "SITA pseudo-header"),
    (237, "STANAG_5066_D_PDU", "STANAG 5066 D_PDUs"),
    (269, "TI_LLN_SNIFFER", "TI LLN sniffer frames"),
    (249, "USBPCAP", "USB with USBPcap header"),
    (
        288,
        "USB_2_0",
        "USB 2.0/1.1/1.0 as transmitted over the cable",
    ),
    (266, "USB_DARWIN", "USB with Darwin header"),
    (186, "USB_FREEBSD", "USB with FreeBSD header"),
    (189, "USB_LINUX", "USB with Linux header"),
    (220, "USB_LINUX_MMAPPED", "USB with padded Linux header"),
    (280, "VPP_DISPATCH", "VPP graph dispatch tracer"),
    (271, "VSOCK", "Linux vsock"),
    (
        263,
        "WATTSTOPPER_DLM",
        "WattStopper Digital Lighting Management (DLM) and Legrand Nitoo Open protocol",
    ),
    (223, "WIHART", "Wireless HART"),
    (261, "ZWAVE_R1_R2", "Z-Wave RF profile R1 and R2 packets"),
    (262, "ZWAVE_R3", "Z-Wave RF profile R3 packets"),
    (
        287,
        "Z_WAVE_SERIAL",
        "Z-Wave serial frames between host and chip",
    ),
];
