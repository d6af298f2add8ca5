//! HNCP, the home networking control protocol (UDP port 8231), as tcpdump
//! 4.99's `hncp_print` prints it: the length and the TLV types, runs of one
//! type counted (`Node state (x2)`); with `-v` the DNCP TLVs (RFC 7787) on
//! lines of their own, HNCP's own TLVs (`hncp_tlv.rs`) likewise, nested
//! ones inline until `-vv`.

use super::{g1, g2, g4, g8, need, out, PResult, Printer};

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

/// `format_interval`: milliseconds as seconds.
pub(super) fn interval(ms: u32) -> String {
    format!("{}.{:03}s", ms / 1000, ms % 1000)
}

/// `format_256`: 32 bytes in hex.
pub(super) fn hex256(p: &[u8], at: usize) -> PResult<String> {
    Ok(format!(
        "{:016x}{:016x}{:016x}{:016x}",
        g8(p, at)?,
        g8(p, at + 8)?,
        g8(p, at + 16)?,
        g8(p, at + 24)?
    ))
}

/// `format_nid`.
fn nid(p: &[u8], at: usize) -> PResult<String> {
    Ok(format!(
        "{:02x}:{:02x}:{:02x}:{:02x}",
        g1(p, at)?,
        g1(p, at + 1)?,
        g1(p, at + 2)?,
        g1(p, at + 3)?
    ))
}

impl Printer<'_> {
    /// `hncp_print`: `length` bytes of UDP payload, `p` captured.
    pub(super) fn hncp(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "hncp";
        out!(self, "hncp ({length})");
        self.hncp_rec(p, 0, length as usize, 1)
    }

    /// `hncp_print_rec`: the TLVs from `at`, `length` bytes, at `indent`.
    pub(super) fn hncp_rec(
        &mut self,
        p: &[u8],
        at: usize,
        length: usize,
        indent: usize,
    ) -> PResult {
        let v = usize::from(self.opts.verbose);
        // tcpdump's is_in_line: indent - 1 >= vflag.
        let in_line = indent > v && v < 3;
        let mut i = 0;
        let mut first = true;
        let (mut last, mut count) = (u32::MAX, 0u32);
        while i < length {
            let tlv = at + i;
            if !in_line {
                out!(self, "\n{}", "\t".repeat(indent));
            }
            // tcpdump's ND_TCHECKs here end this list, not the packet.
            if need(p, tlv, 4).is_err() {
                self.trunc();
                return Ok(());
            }
            if i + 4 > length {
                out!(self, " (invalid)");
                return Ok(());
            }
            let ty = g2(p, tlv)?;
            let body = g2(p, tlv + 2)? as usize;
            if need(p, tlv + 4, body).is_err() {
                self.trunc();
                return Ok(());
            }
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
            if in_line {
                if mask == last {
                    count += 1;
                } else {
                    self.hncp_type(last, count, indent, &mut first);
                    last = mask;
                    count = 1;
                }
            } else {
                if !self.hncp_tlv(p, ty, tlv + 4, body, mask, indent)? {
                    return Ok(());
                }
            }
            i += 4 + body.next_multiple_of(4);
        }
        self.hncp_type(last, count, indent, &mut first);
        Ok(())
    }

    /// One TLV on a line of its own: the DNCP ones (RFC 7787) here, HNCP's
    /// (RFC 7788) in `hncp_tlv.rs`; false where the list ends.
    fn hncp_tlv(
        &mut self,
        p: &[u8],
        ty: u16,
        value: usize,
        body: usize,
        mask: u32,
        indent: usize,
    ) -> PResult<bool> {
        out!(self, "{}", type_name(mask));
        if mask > 0xffff {
            out!(self, ": type={ty}");
        }
        out!(self, " ({})", body + 4);
        let invalid = |s: &mut Self| {
            s.out.push_str(" (invalid)");
            Ok(true)
        };
        match mask {
            1 if body != 0 => return invalid(self),
            2 if body != 4 => return invalid(self),
            2 => out!(self, " NID: {}", nid(p, value)?),
            3 if body != 8 => return invalid(self),
            3 => out!(
                self,
                " NID: {} EPID: {:08x}",
                nid(p, value)?,
                g4(p, value + 4)?
            ),
            4 if body != 8 => return invalid(self),
            4 => out!(self, " hash: {:016x}", g8(p, value)?),
            5 if body < 20 => return invalid(self),
            5 => {
                out!(
                    self,
                    " NID: {} seqno: {} {} hash: {:016x}",
                    nid(p, value)?,
                    g4(p, value + 4)?,
                    interval(g4(p, value + 8)?),
                    g8(p, value + 12)?
                );
                self.hncp_rec(p, value + 20, body - 20, indent + 1)?;
            }
            8 if body != 12 => return invalid(self),
            8 => out!(
                self,
                " Peer-NID: {} Peer-EPID: {:08x} Local-EPID: {:08x}",
                nid(p, value)?,
                g4(p, value + 4)?,
                g4(p, value + 8)?
            ),
            9 if body < 8 => return invalid(self),
            9 => out!(
                self,
                " EPID: {:08x} Interval: {}",
                g4(p, value)?,
                interval(g4(p, value + 4)?)
            ),
            10 if body <= 36 => return invalid(self),
            10 => {
                out!(
                    self,
                    " Verdict: {} Fingerprint: {} Common Name: ",
                    g1(p, value)?,
                    hex256(p, value + 4)?
                );
                self.jnp(p, value + 36, body - 36)?;
            }
            _ => return self.hncp_own(p, value, body, mask, indent),
        }
        Ok(true)
    }

    /// `print_type_in_line`.
    fn hncp_type(&mut self, mask: u32, count: u32, indent: usize, first: &mut bool) {
        if count == 0 {
            return;
        }
        if *first {
            *first = false;
            if indent > 1 {
                out!(self, "\n{}", "\t".repeat(indent));
            } else {
                self.out.push(' ');
            }
        } else {
            self.out.push_str(", ");
        }
        out!(self, "{}", type_name(mask));
        if count > 1 {
            out!(self, " (x{count})");
        }
    }
}
