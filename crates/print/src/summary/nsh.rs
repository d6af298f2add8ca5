//! The network service header (EtherType 0x894f) and VXLAN-GPE (UDP port
//! 4790), which may carry it, as tcpdump 4.99's `nsh_print` and
//! `vxlan_gpe_print` print them: the headers, with `-vvv` NSH's context
//! headers, then the IPv4, IPv6 or Ethernet packet inside.

use super::{g1, g3, g4, need, out, tail, PResult, Printer};

/// `bittok2str_nosep`: the letters of the bits set, or `none`.
fn letters(v: u8, names: &[(u8, &str)]) -> String {
    let s: String = names
        .iter()
        .filter(|(b, _)| v & b != 0)
        .map(|(_, n)| *n)
        .collect();
    if s.is_empty() {
        "none".to_string()
    } else {
        s
    }
}

impl Printer<'_> {
    /// The separator before an encapsulated packet: its own line with `-v`.
    fn encap_sep(&mut self) {
        let s = if self.opts.verbose > 0 {
            "\n    "
        } else {
            ": "
        };
        out!(self, "{s}");
    }

    /// `vxlan_gpe_print`.
    pub(super) fn vxlan_gpe(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "vxlan_gpe";
        out!(self, "VXLAN-GPE, ");
        if len < 8 {
            out!(self, " (len {len} < 8) (invalid)");
            return Ok(());
        }
        let flags = letters(
            g1(p, 0)?,
            &[(0x08, "I"), (0x04, "P"), (0x02, "B"), (0x01, "O")],
        );
        out!(self, "flags [{flags}], ");
        let next = g1(p, 3)?;
        let vni = g3(p, 4)?;
        need(p, 7, 1)?;
        out!(self, "vni {vni}");
        self.encap_sep();
        let (body, blen) = (tail(p, 8), len - 8);
        match next {
            1 => self.ipv4(body, blen),
            2 => self.ipv6(body, blen),
            3 => self.ether(body, blen)?,
            4 => self.nsh(body, blen)?,
            _ => out!(self, "ERROR: unknown-next-protocol (invalid)"),
        }
        Ok(())
    }

    /// `nsh_print`.
    pub(super) fn nsh(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "nsh";
        if len < 8 {
            out!(self, " (packet length {len} < 8) (invalid)");
            return Ok(());
        }
        let base = g4(p, 0)?;
        let ver = base >> 30;
        let length = (base >> 16) & 0x3f;
        let md = (base >> 8) & 0x0f;
        let next = base & 0xff;
        out!(self, "NSH, ");
        let v = self.opts.verbose;
        if v > 1 {
            out!(self, "ver {ver}, ");
        }
        if ver != 0 {
            return Ok(());
        }
        out!(
            self,
            "flags [{}], ",
            letters(((base >> 28) & 3) as u8, &[(0x2, "O")])
        );
        if v > 2 {
            out!(self, "TTL {}, length {length}, ", (base >> 22) & 0x3f);
            let m = match md {
                0 => "reserved".to_string(),
                1 => "1".to_string(),
                2 => "2".to_string(),
                0xf => "experimental".to_string(),
                _ => format!("unknown (0x{md:02x})"),
            };
            out!(self, "md type {m}, ");
        }
        if v > 1 {
            let n = match next {
                1 => "IPv4".to_string(),
                2 => "IPv6".to_string(),
                3 => "Ethernet".to_string(),
                4 => "NSH".to_string(),
                5 => "MPLS".to_string(),
                0xfe => "Experiment 1".to_string(),
                0xff => "Experiment 2".to_string(),
                _ => format!("unknown (0x{next:02x})"),
            };
            out!(self, "next-protocol {n}, ");
        }
        if len < length * 4 {
            out!(
                self,
                " (too many headers for packet length {len}) (invalid)"
            );
            return Ok(());
        }
        out!(self, "service-path-id 0x{:06x}, ", g3(p, 4)?);
        out!(self, "service-index 0x{:x}", g1(p, 7)?);
        if length < 2 {
            out!(self, " (less than two headers) (invalid)");
            return Ok(());
        }
        let words = (length - 2) as usize;
        let mut at = 8;
        let mut past = false;
        if v > 2 && md == 1 {
            if length != 6 {
                out!(self, " (invalid length for the MD type) (invalid)");
                return Ok(());
            }
            for n in 0..words {
                out!(self, "\n        Context[{n:02}]: 0x{:08x}", g4(p, at)?);
                at += 4;
            }
            past = true;
        } else if v > 2 && md == 2 {
            let mut n = 0;
            while n < words {
                let class = super::g2(p, at)?;
                let t = g1(p, at + 2)?;
                let tl = (g1(p, at + 3)? & 0x7f) as usize;
                at += 4;
                let padded = (tl + 3) & !3;
                out!(self, "\n        TLV Class {class}, Type {t}, Len {tl}");
                n += 1;
                if words < n + padded / 4 {
                    out!(self, " (length too big) (invalid)");
                    return Ok(());
                }
                if tl != 0 {
                    out!(self, "\n            Value: ");
                    for i in 0..tl {
                        let sep = if i == 0 { "0x" } else { ":" };
                        out!(self, "{sep}{:02x}", g1(p, at)?);
                        at += 1;
                    }
                    need(p, at, padded - tl)?;
                    at += padded - tl;
                    n += padded / 4;
                }
            }
            past = true;
        }
        if !past {
            need(p, at, words * 4)?;
            at += words * 4;
        }
        self.encap_sep();
        let (body, blen) = (tail(p, at), len - length * 4);
        match next {
            1 => self.ipv4(body, blen),
            2 => self.ipv6(body, blen),
            3 => self.ether(body, blen)?,
            _ => out!(self, "ERROR: unknown-next-protocol"),
        }
        Ok(())
    }
}
