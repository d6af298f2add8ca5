//! Broadcom's lawful-intercept shim over UDP (source port 49152), as tcpdump
//! 4.99.3 prints it: the shim's direction, packet type and subtype and the
//! intercept id, then with `-v` only the intercepted packet on a line of its
//! own (an Ethernet frame, or an IP packet told by its version).

use super::{g1, g4, name_or, out, tail, PResult, Printer};

const SHIM_LEN: u32 = 4;

impl Printer<'_> {
    /// `bcm_li_print`: `len` bytes of UDP payload, `p` captured.
    pub(super) fn bcm_li(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "bcm_li";
        if len < SHIM_LEN {
            out!(self, " (length {len} < {SHIM_LEN}) (invalid)");
            return Ok(());
        }
        let shim = g4(p, 0)?;
        let direction = match shim >> 29 {
            1 => Some("unused"),
            2 => Some("egress"),
            3 => Some("ingress"),
            _ => None,
        };
        let pkt_type = match (shim >> 25) & 0xf {
            4 => Some("undecided"),
            5 => Some("ipv4"),
            6 => Some("ipv6"),
            7 => Some("ethernet"),
            _ => None,
        };
        let subtype = match (shim >> 22) & 0x7 {
            1 => Some("single VLAN tag"),
            2 => Some("double VLAN tag"),
            3 => Some("untagged"),
            _ => None,
        };
        let unknown = || "unknown".to_string();
        let brk = if self.opts.verbose > 0 { "\n    " } else { "" };
        out!(
            self,
            "{brk}BCM-LI-SHIM: direction {}, pkt-type {}, pkt-subtype {}, li-id {}",
            name_or(direction, unknown),
            name_or(pkt_type, unknown),
            name_or(subtype, unknown),
            shim & 0x3f_ffff
        );
        if self.opts.verbose == 0 {
            return Ok(());
        }
        out!(self, "\n    ");
        let (p, len) = (tail(p, SHIM_LEN as usize), len - SHIM_LEN);
        let version = match (shim >> 25) & 0xf {
            7 => return self.ether(p, len),
            5 => 4,
            6 => 6,
            4 => g1(p, 0)? >> 4,
            _ => {
                self.out.push_str(" (invalid)");
                return Ok(());
            }
        };
        match version {
            4 => self.ipv4(p, len),
            6 => self.ipv6(p, len),
            _ => out!(self, "unknown payload"),
        }
        Ok(())
    }
}
