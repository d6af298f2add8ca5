//! HNCP, the home networking control protocol (UDP port 8231), as tcpdump
//! 4.99's `hncp_print` prints it: the length and the TLV types, runs of one
//! type counted (`Node state (x2)`); with `-v` the DNCP TLVs (RFC 7787) on
//! lines of their own. HNCP's own TLVs on lines of their own (`-v` at the
//! top level, `-vv` nested) are not decoded yet: such a datagram prints as
//! `UDP, length N`.

use super::{g1, g2, g4, need, out, PResult, Printer, Trunc};

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

/// Why the TLV list stopped: tcpdump's truncation, or a TLV whose
/// contents `-v` prints and this printer does not decode.
enum Stop {
    Trunc,
    Unsupported,
}

impl From<Trunc> for Stop {
    fn from(_: Trunc) -> Stop {
        Stop::Trunc
    }
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

fn g8(p: &[u8], at: usize) -> PResult<u64> {
    Ok(u64::from(g4(p, at)?) << 32 | u64::from(g4(p, at + 4)?))
}

impl Printer<'_> {
    /// `hncp_print`: `length` bytes of UDP payload, `p` captured. `None`
    /// when `-v` would print the contents of a TLV not decoded here (the
    /// caller then prints the generic line).
    pub(super) fn hncp(&mut self, p: &[u8], length: u32) -> Option<PResult> {
        self.proto = "hncp";
        out!(self, "hncp ({length})");
        match self.hncp_rec(p, 0, length as usize, 1) {
            Ok(()) => Some(Ok(())),
            Err(Stop::Trunc) => Some(Err(Trunc)),
            Err(Stop::Unsupported) => None,
        }
    }

    /// `hncp_print_rec`: the TLVs from `at`, `length` bytes, at `indent`.
    fn hncp_rec(&mut self, p: &[u8], at: usize, length: usize, indent: usize) -> Result<(), Stop> {
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
            need(p, tlv, 4)?;
            if i + 4 > length {
                out!(self, " (invalid)");
                return Ok(());
            }
            let ty = g2(p, tlv)?;
            let body = g2(p, tlv + 2)? as usize;
            need(p, tlv + 4, body)?;
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
                self.hncp_tlv(p, tlv + 4, body, mask, indent)?;
            }
            i += 4 + body.next_multiple_of(4);
        }
        self.hncp_type(last, count, indent, &mut first);
        Ok(())
    }

    /// One TLV on a line of its own: the DNCP ones (RFC 7787) are decoded.
    fn hncp_tlv(
        &mut self,
        p: &[u8],
        value: usize,
        body: usize,
        mask: u32,
        indent: usize,
    ) -> Result<(), Stop> {
        if !(1..=5).contains(&mask) {
            return Err(Stop::Unsupported);
        }
        out!(self, "{}", type_name(mask));
        out!(self, " ({})", body + 4);
        let want = [0, 4, 8, 8, 20][mask as usize - 1];
        let bad = if mask == 5 { body < want } else { body != want };
        if bad {
            out!(self, " (invalid)");
            return Ok(());
        }
        match mask {
            2 => out!(self, " NID: {}", nid(p, value)?),
            3 => out!(
                self,
                " NID: {} EPID: {:08x}",
                nid(p, value)?,
                g4(p, value + 4)?
            ),
            4 => out!(self, " hash: {:016x}", g8(p, value)?),
            5 => {
                let ms = g4(p, value + 8)?;
                out!(
                    self,
                    " NID: {} seqno: {} {}.{:03}s hash: {:016x}",
                    nid(p, value)?,
                    g4(p, value + 4)?,
                    ms / 1000,
                    ms % 1000,
                    g8(p, value + 12)?
                );
                self.hncp_rec(p, value + 20, body - 20, indent + 1)?;
            }
            _ => {}
        }
        Ok(())
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
