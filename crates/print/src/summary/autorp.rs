//! Cisco's Auto-RP (UDP port 496), as tcpdump 4.99's `cisco_autorp_print`
//! prints it: the message type and hold time, then each rendezvous point
//! with its PIM versions and group ranges.

use super::{g1, g2, gv4, out, relts, PResult, Printer};

impl Printer<'_> {
    /// `cisco_autorp_print`: `len` bytes of UDP payload, `p` captured.
    pub(super) fn cisco_autorp(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "cisco_autorp";
        let mut len = len as usize;
        if len < 8 {
            return Err(self.caught());
        }
        out!(self, " auto-rp ");
        match g1(p, 0)? {
            0x11 => out!(self, "candidate-advert"),
            0x12 => out!(self, "mapping"),
            t => out!(self, "type-0x{t:02x}"),
        }
        let mut rps = g1(p, 1)?;
        let hold = g2(p, 2)?;
        if hold != 0 {
            out!(self, " Hold {}", relts(u32::from(hold)));
        } else {
            out!(self, " Hold FOREVER");
        }
        let mut at = 8;
        len -= 8;
        while rps != 0 {
            if len < 4 {
                return Err(self.caught());
            }
            let rp = self.host4(gv4(p, at)?);
            out!(self, " RP {rp}");
            at += 4;
            len -= 4;
            if len < 1 {
                return Err(self.caught());
            }
            let b = g1(p, at)?;
            let v = ["PIMv?", "PIMv1", "PIMv2", "PIMv1+2"][(b & 3) as usize];
            out!(self, " {v}");
            if b & 0xfc != 0 {
                out!(self, " [rsvd=0x{:02x}]", b & 0xfc);
            }
            at += 1;
            len -= 1;
            if len < 1 {
                return Err(self.caught());
            }
            let mut entries = g1(p, at)?;
            at += 1;
            len -= 1;
            let mut sep = ' ';
            while entries != 0 {
                if len < 6 {
                    return Err(self.caught());
                }
                let f = g1(p, at)?;
                let src = self.host4(gv4(p, at + 2)?);
                let neg = if f & 1 != 0 { "!" } else { "" };
                out!(self, "{sep}{neg}{src}/{}", g1(p, at + 1)?);
                if f & 0x02 != 0 {
                    out!(self, " bidir");
                }
                if f & 0xfc != 0 {
                    out!(self, "[rsvd=0x{:02x}]", f & 0xfc);
                }
                sep = ',';
                at += 6;
                len -= 6;
                entries -= 1;
            }
            rps -= 1;
        }
        Ok(())
    }
}
