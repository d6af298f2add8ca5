//! OpenFlow 1.0's vendor messages, actions and statistics, and the Big Switch
//! Networks (BSN) extensions tcpdump 4.99.3 decodes among them.

use super::super::{g1, g4, gv4, need, out, print_char, PResult, Printer};
use super::vendor_name;

/// Big Switch Networks' OUI.
const OUI_BSN: u32 = 0x5c16c7;

fn bsn_subtype(t: u32) -> Option<&'static str> {
    const NAMES: [&str; 36] = [
        "SET_IP_MASK",
        "GET_IP_MASK_REQUEST",
        "GET_IP_MASK_REPLY",
        "SET_MIRRORING",
        "GET_MIRRORING_REQUEST",
        "GET_MIRRORING_REPLY",
        "SHELL_COMMAND",
        "SHELL_OUTPUT",
        "SHELL_STATUS",
        "GET_INTERFACES_REQUEST",
        "GET_INTERFACES_REPLY",
        "SET_PKTIN_SUPPRESSION_REQUEST",
        "SET_L2_TABLE_REQUEST",
        "GET_L2_TABLE_REQUEST",
        "GET_L2_TABLE_REPLY",
        "VIRTUAL_PORT_CREATE_REQUEST",
        "VIRTUAL_PORT_CREATE_REPLY",
        "VIRTUAL_PORT_REMOVE_REQUEST",
        "BW_ENABLE_SET_REQUEST",
        "BW_ENABLE_GET_REQUEST",
        "BW_ENABLE_GET_REPLY",
        "BW_CLEAR_DATA_REQUEST",
        "BW_CLEAR_DATA_REPLY",
        "BW_ENABLE_SET_REPLY",
        "SET_L2_TABLE_REPLY",
        "SET_PKTIN_SUPPRESSION_REPLY",
        "VIRTUAL_PORT_REMOVE_REPLY",
        "HYBRID_GET_REQUEST",
        "HYBRID_GET_REPLY",
        "",
        "",
        "PDU_TX_REQUEST",
        "PDU_TX_REPLY",
        "PDU_RX_REQUEST",
        "PDU_RX_REPLY",
        "PDU_RX_TIMEOUT",
    ];
    NAMES.get(t as usize).copied().filter(|n| !n.is_empty())
}

impl Printer<'_> {
    fn of_vendor(&mut self, p: &[u8], at: usize) -> PResult<u32> {
        let vendor = g4(p, at)?;
        out!(self, ", vendor 0x{vendor:08x} ({})", vendor_name(vendor));
        Ok(vendor)
    }

    /// `of10_vendor_message_print` (the body is at least 4 bytes).
    pub(super) fn of10_vendor_message(&mut self, p: &[u8], at: usize, len: u32) -> PResult {
        if self.of_vendor(p, at)? == OUI_BSN {
            self.of10_bsn_message(p, at + 4, len - 4)
        } else {
            self.of_data(p, at + 4, len - 4)
        }
    }

    /// `of10_vendor_action_print`: a vendor action's `len` bytes.
    pub(super) fn of10_vendor_action(&mut self, p: &[u8], at: usize, len: u32) -> PResult {
        if len < 4 {
            return self.of_invalid(p, at, len);
        }
        if self.of_vendor(p, at)? == OUI_BSN {
            self.of10_bsn_action(p, at + 4, len - 4)
        } else {
            self.of_data(p, at + 4, len - 4)
        }
    }

    /// `of10_vendor_data_print`: a vendor id and data.
    pub(super) fn of10_vendor_data(&mut self, p: &[u8], at: usize, len: u32) -> PResult {
        if len < 4 {
            return self.of_invalid(p, at, len);
        }
        self.of_vendor(p, at)?;
        self.of_data(p, at + 4, len - 4)
    }

    fn of10_bsn_message(&mut self, p: &[u8], at: usize, len: u32) -> PResult {
        if len < 4 {
            return self.of_invalid(p, at, len);
        }
        let t = g4(p, at)?;
        match bsn_subtype(t) {
            Some(n) => out!(self, "\n\t subtype {n}"),
            None => out!(self, "\n\t subtype unknown (0x{t:08x})"),
        }
        let (at, len) = (at + 4, len - 4);
        let want = match t {
            0..=2 => Some(8),
            3..=5 | 8 | 17 => Some(4),
            9 | 13 | 19 | 21 | 27 => Some(0),
            _ => None,
        };
        if want.is_some_and(|w| w != len) || (t == 6 && len < 4) {
            return self.of_invalid(p, at, len);
        }
        match t {
            1 => {
                out!(self, ", index {}", g1(p, at)?);
                need(p, at + 1, 7)?;
            }
            0 | 2 => {
                out!(self, ", index {}", g1(p, at)?);
                let mask = self.host4(gv4(p, at + 4)?);
                out!(self, ", mask {mask}");
            }
            3..=5 => {
                let v = g1(p, at)?;
                match v {
                    0 => out!(self, ", report_mirror_ports OFF"),
                    1 => out!(self, ", report_mirror_ports ON"),
                    _ => out!(self, ", report_mirror_ports bogus ({v})"),
                }
                need(p, at + 1, 3)?;
            }
            17 => out!(self, ", vport_no {}", g4(p, at)?),
            6 => {
                out!(self, ", service {}", g4(p, at)?);
                self.of_bsn_text(p, at + 4, len - 4)?;
            }
            7 => self.of_bsn_text(p, at, len)?,
            8 => out!(self, ", status 0x{:08x}", g4(p, at)?),
            9 | 13 | 19 | 21 | 27 => {}
            _ => need(p, at, len as usize)?,
        }
        Ok(())
    }

    /// `, data '...'`: `len` bytes of text.
    fn of_bsn_text(&mut self, p: &[u8], at: usize, len: u32) -> PResult {
        out!(self, ", data '");
        for i in 0..len as usize {
            print_char(&mut self.out, g1(p, at + i)?);
        }
        out!(self, "'");
        Ok(())
    }

    fn of10_bsn_action(&mut self, p: &[u8], at: usize, len: u32) -> PResult {
        if len < 4 {
            return self.of_invalid(p, at, len);
        }
        let t = g4(p, at)?;
        match t {
            1 => out!(self, "\n\t  subtype MIRROR"),
            2 => out!(self, "\n\t  subtype SET_TUNNEL_DST"),
            4 => out!(self, "\n\t  subtype CHECKSUM"),
            _ => out!(self, "\n\t  subtype unknown (0x{t:08x})"),
        }
        let (at, len) = (at + 4, len - 4);
        if t != 1 {
            return need(p, at, len as usize);
        }
        if len != 12 {
            return self.of_invalid(p, at, len);
        }
        out!(self, ", dest_port {}", g4(p, at)?);
        let tag = g4(p, at + 4)?;
        match tag >> 16 {
            0 => out!(self, ", vlan_tag none"),
            0x8100 => {
                let tci = tag & 0xffff;
                let dei = if tci & 0x1000 != 0 { ", DEI" } else { "" };
                out!(
                    self,
                    ", vlan_tag 802.1Q (vlan {}, p {}{dei})",
                    tci & 0xfff,
                    tci >> 13
                );
            }
            other => out!(self, ", vlan_tag unknown (0x{other:04x})"),
        }
        let stage = g1(p, at + 8)?;
        match stage {
            0 => out!(self, ", copy_stage INGRESS"),
            1 => out!(self, ", copy_stage EGRESS"),
            _ => out!(self, ", copy_stage unknown ({stage})"),
        }
        need(p, at + 9, 3)
    }
}
