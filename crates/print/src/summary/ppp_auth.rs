//! PPP's PAP (RFC 1334) and the multilink header (RFC 1990), as tcpdump
//! 4.99's print-ppp.c prints them (`handle_pap`, `handle_mlppp`).

use super::{bit_names, g1, g2, out, print_char, PResult, Printer};

impl Printer<'_> {
    /// `handle_mlppp`: the 12-bit sequence number and the begin/end flags.
    pub(super) fn mlppp(&mut self, p: &[u8], length: u32) -> PResult {
        if !self.opts.link_header {
            out!(self, "MLPPP, ");
        }
        if length < 2 || p.len() < 2 {
            // Printed, not tcpdump's `nd_print_trunc`: `-x` leaves the link
            // header out.
            out!(self, "[|mlppp]");
            self.caught_trunc = true;
            return Ok(());
        }
        let flags = u32::from(g1(p, 0)? & 0xc0);
        out!(
            self,
            "seq 0x{:03x}, Flags [{}], length {length}",
            g2(p, 0)? & 0x0fff,
            bit_names(flags, &[(0x80, "begin"), (0x40, "end")])
        );
        Ok(())
    }

    /// `handle_pap`: the code and id, then an Authenticate-Request's peer and
    /// password, or an ACK's or NAK's message.
    pub(super) fn pap(&mut self, p: &[u8], length: u32) -> PResult {
        if length < 1 {
            return self.pap_trunc();
        }
        if length < 4 {
            out!(self, "[|pap 0x{:02x}]", g1(p, 0)?);
            self.caught_trunc = true;
            return Ok(());
        }
        let code = g1(p, 0)?;
        let name = match code {
            1 => "Auth-Req",
            2 => "Auth-ACK",
            3 => "Auth-NACK",
            _ => "unknown",
        };
        out!(self, "PAP, {name} (0x{code:02x})");
        out!(self, ", id {}", g1(p, 1)?);
        let len = u32::from(g2(p, 2)?);
        if len > length {
            out!(self, ", length {len} > packet size");
            return Ok(());
        }
        if len < 4 {
            out!(self, ", length {len} < PAP header length");
            return Ok(());
        }
        let len = len as usize;
        let mut at = 4usize;
        // Each counted string: its length byte, then that many characters,
        // printed only when all of it is within the declared length.
        let fields: &[&str] = match code {
            1 if len < 6 => return self.pap_trunc(),
            1 => &[", Peer ", ", Name "],
            2 | 3 if len < 5 => return self.pap_trunc(),
            2 | 3 => &[", Msg "],
            _ => &[],
        };
        for label in fields {
            if len - at < 1 {
                return Ok(());
            }
            let n = usize::from(g1(p, at)?);
            at += 1;
            if len - at < n {
                return Ok(());
            }
            out!(self, "{label}");
            for _ in 0..n {
                print_char(&mut self.out, g1(p, at)?);
                at += 1;
            }
        }
        Ok(())
    }

    /// `handle_pap`'s own marker (not `nd_print_trunc`).
    fn pap_trunc(&mut self) -> PResult {
        out!(self, "[|pap]");
        self.caught_trunc = true;
        Ok(())
    }
}
