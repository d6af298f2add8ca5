//! HNCP, the home networking control protocol (UDP port 8231), as tcpdump
//! 4.99's `hncp_print` prints it without `-v`: the length and the types of
//! the top-level TLVs, runs of one type counted (`Node state (x2)`). The
//! TLVs' contents, which `-v` prints, are not decoded yet.

use super::{g2, need, out, PResult, Printer};

/// The defined types (tcpdump's `type_values` up to 0xffff).
const TYPES: [(u32, &str); 22] = [
    (1, "Request network state"),
    (2, "Request node state"),
    (3, "Node endpoint"),
    (4, "Network state"),
    (5, "Node state"),
    (8, "Peer"),
    (9, "Keep-alive interval"),
    (10, "Trust-Verdict"),
    (32, "HNCP-Version"),
    (33, "External-Connection"),
    (34, "Delegated-Prefix"),
    (43, "Prefix-Policy"),
    (37, "DHCPv4-Data"),
    (38, "DHCPv6-Data"),
    (35, "Assigned-Prefix"),
    (36, "Node-Address"),
    (39, "DNS-Delegated-Zone"),
    (40, "Domain-Name"),
    (41, "Node-Name"),
    (42, "Managed-PSK"),
    (0x10000, "Reserved"),
    (0x10001, "Unassigned"),
];

/// The names of the ranges past [`TYPES`]' last two.
fn type_name(mask: u32) -> &'static str {
    match mask {
        0x10002 => "Private use",
        0x10003 => "Future use",
        _ => TYPES
            .iter()
            .find(|&&(k, _)| k == mask)
            .map_or("Easter Egg", |&(_, n)| n),
    }
}

impl Printer<'_> {
    /// `hncp_print` without `-v`: `length` bytes of UDP payload, `p`
    /// captured.
    pub(super) fn hncp(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "hncp";
        out!(self, "hncp ({length})");
        let length = length as usize;
        let mut i = 0;
        let mut first = true;
        let (mut last, mut count) = (u32::MAX, 0u32);
        while i < length {
            need(p, i, 4)?;
            if i + 4 > length {
                out!(self, " (invalid)");
                return Ok(());
            }
            let ty = g2(p, i)?;
            let body = g2(p, i + 2)? as usize;
            need(p, i + 4, body)?;
            if i + body + 4 > length {
                out!(self, " (invalid)");
                return Ok(());
            }
            let mut mask = match ty {
                0 => 0x10000,
                44..=511 => 0x10001,
                768..=1023 => 0x10002,
                _ => 0x10003,
            };
            if let Some(&(k, _)) = TYPES.iter().find(|&&(k, _)| k == u32::from(ty)) {
                mask = k;
            }
            if mask == last {
                count += 1;
            } else {
                self.hncp_type(last, count, &mut first);
                last = mask;
                count = 1;
            }
            i += 4 + body.next_multiple_of(4);
        }
        self.hncp_type(last, count, &mut first);
        Ok(())
    }

    /// `print_type_in_line` at the top level.
    fn hncp_type(&mut self, mask: u32, count: u32, first: &mut bool) {
        if count == 0 {
            return;
        }
        if *first {
            *first = false;
            self.out.push(' ');
        } else {
            self.out.push_str(", ");
        }
        out!(self, "{}", type_name(mask));
        if count > 1 {
            out!(self, " (x{count})");
        }
    }
}
