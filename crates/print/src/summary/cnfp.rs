//! Cisco NetFlow versions 1, 5 and 6, as tcpdump's print-cnfp.c prints them
//! (reached only by `-T cnfp`).

use super::{g1, g2, g4, need, out, PResult, Printer};
use std::net::Ipv4Addr;

impl Printer<'_> {
    /// `cnfp_print`.
    pub(super) fn cnfp(&mut self, cp: &[u8]) -> PResult {
        self.proto = "cnfp";
        let ver = g2(cp, 0)?;
        // The header's and each record's size in tcpdump's structures (its
        // v5 and v6 records carry a peer next hop the wire format has not).
        let (hlen, rlen) = match ver {
            1 => (16, 48),
            5 | 6 => (24, 52),
            _ => {
                out!(self, "NetFlow v{ver:x}");
                return Ok(());
            }
        };
        need(cp, 0, hlen).map_err(|_| self.caught())?;
        // tcpdump reads the 16-bit count as 32 bits, with half the uptime.
        let mut nrecs = g4(cp, 2)?;
        let up = g4(cp, 4)?;
        out!(
            self,
            "NetFlow v{ver:x}, {}.{:03} uptime, {}.{:09}, ",
            up / 1000,
            up % 1000,
            g4(cp, 8)?,
            g4(cp, 12)?
        );
        if ver != 1 {
            out!(self, "#{}, ", g4(cp, 16)?);
        }
        out!(self, "{nrecs:2} recs");
        let mut at = hlen;
        while nrecs != 0 {
            let r = cp.get(at..at + rlen).ok_or_else(|| self.caught())?;
            self.cnfp_record(r, ver)?;
            at += rlen;
            nrecs -= 1;
        }
        Ok(())
    }

    fn cnfp_record(&mut self, r: &[u8], ver: u16) -> PResult {
        let (start, last) = (g4(r, 24)?, g4(r, 28)?);
        out!(
            self,
            "\n  started {}.{:03}, last {}.{:03}",
            start / 1000,
            start % 1000,
            last / 1000,
            last % 1000
        );
        let ends = |mask: usize, asn: usize| -> PResult<(String, String)> {
            if ver == 1 {
                Ok((String::new(), String::new()))
            } else {
                Ok((format!("/{}", g1(r, mask)?), format!(":{}", g2(r, asn)?)))
            }
        };
        let (m, a) = ends(44, 40)?;
        out!(
            self,
            "\n    {}{m}{a}:{} ",
            Ipv4Addr::from(g4(r, 0)?),
            g2(r, 32)?
        );
        let (m, a) = ends(45, 42)?;
        out!(
            self,
            "> {}{m}{a}:{} ",
            Ipv4Addr::from(g4(r, 4)?),
            g2(r, 34)?
        );
        out!(self, ">> {}\n    ", Ipv4Addr::from(g4(r, 8)?));
        let (proto, tos, tcp_flags) = if ver == 1 {
            (g1(r, 38)?, g1(r, 39)?, g1(r, 40)?)
        } else {
            (g1(r, 38)?, g1(r, 39)?, g1(r, 37)?)
        };
        match self.opts.names.and_then(|n| n.protocol(proto)) {
            Some(name) => out!(self, "{name} "),
            None => out!(self, "{proto} "),
        }
        if proto == 6 {
            for (bit, c) in [
                (0x01, 'F'),
                (0x02, 'S'),
                (0x04, 'R'),
                (0x08, 'P'),
                (0x10, 'A'),
                (0x20, 'U'),
            ] {
                if tcp_flags & bit != 0 {
                    self.out.push(c);
                }
            }
            if tcp_flags != 0 {
                self.out.push(' ');
            }
        }
        let encaps = if ver == 6 {
            let f = g2(r, 46)?;
            format!("({}<>{} encaps)", f >> 8, f & 0xff)
        } else {
            String::new()
        };
        out!(
            self,
            "tos {tos}, {} ({} octets) {encaps}",
            g4(r, 16)?,
            g4(r, 20)?
        );
        Ok(())
    }
}
