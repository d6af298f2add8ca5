//! Juniper's capture header extensions with `-vv` (tcpdump's
//! `juniper_parse_header` and `juniper_read_tlv_value`): the flags, each
//! extension TLV with its value, and the `-----original packet-----` line.

use super::{bit_names, g1, g2, g3, g4, out, PResult, Printer};

/// `juniper_ifmt_values`: device media types.
fn ifmt_name(v: u32) -> Option<&'static str> {
    Some(match v {
        1 => "Ethernet",
        2 => "FDDI",
        3 => "Token-Ring",
        4 => "PPP",
        5 => "Frame-Relay",
        6 => "Cisco-HDLC",
        7 => "SMDS-DXI",
        8 => "ATM-PVC",
        9 => "PPP-CCC",
        10 => "Frame-Relay-CCC",
        11 => "IP-over-IP",
        12 => "GRE",
        13 => "PIM-Encapsulator",
        14 => "PIM-Decapsulator",
        15 => "Cisco-HDLC-CCC",
        16 => "VLAN-CCC",
        17 => "Multilink-PPP",
        18 => "Multilink-FR",
        19 => "Multilink",
        20 => "LSI",
        22 => "ATM-CCC-Cell-Relay",
        23 => "IPSEC-over-IP",
        24 => "GGSN",
        27 => "PPP-TCC",
        28 => "Frame-Relay-TCC",
        29 => "Cisco-HDLC-TCC",
        30 => "Ethernet-CCC",
        31 => "VPN-Loopback-tunnel",
        32 => "Extended-VLAN-CCC",
        33 => "Ethernet-over-ATM",
        34 => "Monitor",
        35 => "Ethernet-TCC",
        36 => "VLAN-TCC",
        37 => "Extended-VLAN-TCC",
        38 => "Controller",
        39 => "Multilink-FR-UNI-NNI",
        40 => "LinkService",
        41 => "VPLS",
        42 => "VLAN-VPLS",
        43 => "Extended-VLAN-VPLS",
        44 => "Logical-tunnel",
        45 => "General-Services",
        46 => "Ethernet-VPLS-over-ATM",
        48 => "Extended FR-CCC",
        49 => "Extended FR-TCC",
        50 => "Flexible-FrameRelay",
        52 => "Flexible-Ethernet-Services",
        53 => "Flow-collection",
        56 => "PPPoE",
        57 => "PPP-Subordinate",
        59 => "Dynamic-Flow-Capture",
        60 => "PIC Peer",
        _ => return None,
    })
}

/// `juniper_ifle_values`: logical interface encapsulations.
fn ifle_name(v: u32) -> Option<&'static str> {
    Some(match v {
        2 => "ATM SNAP",
        3 => "ATM NLPID",
        4 => "ATM VCMUX",
        5 => "ATM LLC",
        6 => "PPP over ATM VCMUX",
        7 => "PPP over ATM LLC",
        8 => "PPP over FUNI",
        9 => "CCC over ATM",
        10 => "FR NLPID",
        11 => "FR SNAP",
        12 => "FR PPP",
        13 => "FR CCC",
        14 => "Ethernet",
        17 => "PPP",
        18 => "C-HDLC",
        19 => "PPP CCC",
        20 => "IPIP",
        21 => "PIM Null",
        22 => "GRE NULL",
        23 => "PPP over GRE",
        24 => "PIMd",
        25 => "C-HDLC CCC",
        26 => "CISCO compatible NLPID",
        27 => "VLAN CCC",
        28 => "MLPPP",
        29 => "MLFR",
        30 => "LSI Null",
        32 => "ATM CCC Cell Relay",
        33 => "Crypto",
        34 => "GGSN",
        35 => "ATM VCMUX TCC",
        36 => "FR TCC",
        37 => "PPP TCC",
        38 => "C-HDLC TCC",
        39 => "Ethernet CCC",
        40 => "VT",
        41 => "Ethernet over ATM LLC",
        42 => "Extended VLAN CCC",
        43 => "ATM SNAP TCC",
        44 => "Monitor",
        45 => "Ethernet TCC",
        46 => "VLAN TCC",
        47 => "Extended VLAN TCC",
        48 => "MFR",
        49 => "VPLS",
        50 => "VLAN VPLS",
        51 => "Extended VLAN VPLS",
        52 => "General Services",
        53 => "Ethernet VPLS over ATM LLC",
        54 => "FR CCC",
        55 => "MLPPP over ATM LLC",
        56 => "Ethernet over ATM CCC",
        57 => "LT VLAN",
        58 => "Collector",
        59 => "Aggregator",
        60 => "LAPD",
        61 => "PPPoE over ATM LLC",
        62 => "PPPoE over Ethernet",
        63 => "PPPoE",
        64 => "",
        65 => "C-HDLC via dialer",
        _ => return None,
    })
}

/// `jnx_ext_tlv_values`.
fn ext_name(t: u8) -> &'static str {
    match t {
        1 => "Device Interface Index",
        2 => "Device Interface Name",
        3 => "Device Media Type",
        4 => "Logical Interface Index",
        5 => "Logical Unit Number",
        6 => "Logical Interface Encapsulation",
        7 => "TTP derived Device Media Type",
        8 => "TTP derived Logical Interface Encapsulation",
        _ => "Unknown",
    }
}

/// `juniper_read_tlv_value`: little-endian below type 128, big-endian
/// from it; `None` for other lengths than 1 to 4.
fn tlv_value(p: &[u8], at: usize, ty: u8, len: usize) -> PResult<Option<u32>> {
    let le = ty < 128;
    Ok(Some(match len {
        1 => u32::from(g1(p, at)?),
        2 if le => u32::from(g2(p, at)?.swap_bytes()),
        2 => u32::from(g2(p, at)?),
        3 if le => g3(p, at)?.swap_bytes() >> 8,
        3 => g3(p, at)?,
        4 if le => g4(p, at)?.swap_bytes(),
        4 => g4(p, at)?,
        _ => return Ok(None),
    }))
}

impl Printer<'_> {
    /// `\n\tJuniper PCAP Flags [...]`.
    pub(super) fn juniper_flags(&mut self, flags: u8) {
        let names = [
            (0x80, "Ext"),
            (0x40, "Filter"),
            (0x04, "IIF"),
            (0x02, "no-L2"),
            (0x01, "In"),
        ];
        out!(
            self,
            "\n\tJuniper PCAP Flags [{}]",
            bit_names(u32::from(flags), &names)
        );
    }

    /// One extension TLV at `at` (its type and length bytes) with `-vv`.
    pub(super) fn juniper_ext_tlv(&mut self, p: &[u8], at: usize) -> PResult {
        let (ty, len) = (g1(p, at)?, usize::from(g1(p, at + 1)?));
        out!(
            self,
            "\n\t  {} Extension TLV #{ty}, length {len}, value ",
            ext_name(ty)
        );
        let Some(v) = tlv_value(p, at + 2, ty, len)? else {
            return Ok(());
        };
        // tcpdump keeps the value in an int: -1 is its "none".
        if v == u32::MAX {
            return Ok(());
        }
        match ty {
            2 => {}
            3 | 7 => out!(self, "{} ({v})", ifmt_name(v).unwrap_or("Unknown")),
            6 | 8 => out!(self, "{} ({v})", ifle_name(v).unwrap_or("Unknown")),
            _ => out!(self, "{v}"),
        }
        Ok(())
    }
}
