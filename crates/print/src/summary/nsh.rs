//! Network Service Header (RFC 8300; EtherType 0x894f, tcpdump's
//! `nsh_print`) and VXLAN-GPE (UDP port 4790, `vxlan_gpe_print`), which
//! may carry it: the header's flags, path and index (with `-vv` and
//! `-vvv` more of it, and the context headers), then the inner packet.

use super::{g1, g2, g3, g4, need, out, tail, PResult, Printer};

/// tcpdump's `bittok2str_nosep`: the names of the bits set, one after the
/// other, or `none`.
fn flags_nosep(v: u8, names: &[(u8, &str)]) -> String {
    let s: String = names
        .iter()
        .filter(|&&(b, _)| v & b != 0)
        .map(|&(_, n)| n)
        .collect();
    if s.is_empty() {
        "none".to_string()
    } else {
        s
    }
}

impl Printer<'_> {
    /// `vxlan_gpe_print`.
    pub(super) fn vxlan_gpe(&mut self, bp: &[u8], len: u32) -> PResult {
        self.proto = "vxlan_gpe";
        self.out.push_str("VXLAN-GPE, ");
        if len < 8 {
            out!(self, " (len {len} < 8) (invalid)");
            return Ok(());
        }
        let flags = g1(bp, 0)?;
        let names = [(0x08, "I"), (0x04, "P"), (0x02, "B"), (0x01, "O")];
        out!(self, "flags [{}], ", flags_nosep(flags, &names));
        let next = g1(bp, 3)?;
        let vni = g3(bp, 4)?;
        g1(bp, 7)?;
        out!(self, "vni {vni}");
        self.nsh_sep();
        self.nsh_next(next, tail(bp, 8), len - 8, true)
    }

    /// `\n    ` with `-v`, `: ` without.
    fn nsh_sep(&mut self) {
        let sep = if self.opts.verbose > 0 {
            "\n    "
        } else {
            ": "
        };
        self.out.push_str(sep);
    }

    /// The inner packet by its next-protocol number (`gpe`: after
    /// VXLAN-GPE, where 4 is NSH).
    fn nsh_next(&mut self, next: u8, p: &[u8], len: u32, gpe: bool) -> PResult {
        match next {
            1 => self.ipv4(p, len),
            2 => self.ipv6(p, len),
            3 => self.ether(p, len)?,
            4 if gpe => self.nsh(p, len)?,
            _ => {
                self.out.push_str("ERROR: unknown-next-protocol");
                if gpe {
                    self.out.push_str(" (invalid)");
                }
            }
        }
        Ok(())
    }

    /// `nsh_print`.
    pub(super) fn nsh(&mut self, bp: &[u8], len: u32) -> PResult {
        self.proto = "nsh";
        if len < 8 {
            out!(self, " (packet length {len} < 8) (invalid)");
            return Ok(());
        }
        let base = g4(bp, 0)?;
        let ver = base >> 30;
        let length = (base >> 16) & 0x3f;
        let md = (base >> 8) & 0x0f;
        let next = (base & 0xff) as u8;
        let v = self.opts.verbose;
        self.out.push_str("NSH, ");
        if v > 1 {
            out!(self, "ver {ver}, ");
        }
        if ver != 0 {
            return Ok(());
        }
        let flags = flags_nosep(((base >> 28) & 3) as u8, &[(2, "O")]);
        out!(self, "flags [{flags}], ");
        if v > 2 {
            let mds = match md {
                0 => "reserved".to_string(),
                1 => "1".to_string(),
                2 => "2".to_string(),
                0xf => "experimental".to_string(),
                m => format!("unknown (0x{m:02x})"),
            };
            out!(
                self,
                "TTL {}, length {length}, md type {mds}, ",
                (base >> 22) & 0x3f
            );
        }
        if v > 1 {
            let nps = match next {
                1 => "IPv4".to_string(),
                2 => "IPv6".to_string(),
                3 => "Ethernet".to_string(),
                4 => "NSH".to_string(),
                5 => "MPLS".to_string(),
                0xfe => "Experiment 1".to_string(),
                0xff => "Experiment 2".to_string(),
                n => format!("unknown (0x{n:02x})"),
            };
            out!(self, "next-protocol {nps}, ");
        }
        if len < length * 4 {
            out!(
                self,
                " (too many headers for packet length {len}) (invalid)"
            );
            return Ok(());
        }
        out!(self, "service-path-id 0x{:06x}, ", g3(bp, 4)?);
        out!(self, "service-index 0x{:x}", g1(bp, 7)?);
        if length < 2 {
            self.out.push_str(" (less than two headers) (invalid)");
            return Ok(());
        }
        let ctx = (length as usize - 2) * 4;
        if v > 2 && md == 1 {
            if length != 6 {
                self.out
                    .push_str(" (invalid length for the MD type) (invalid)");
                return Ok(());
            }
            for n in 0..4 {
                out!(
                    self,
                    "\n        Context[{n:02}]: 0x{:08x}",
                    g4(bp, 8 + 4 * n)?
                );
            }
        } else if v > 2 && md == 2 {
            let words = length as usize - 2;
            let (mut n, mut at) = (0usize, 8usize);
            while n < words {
                let class = g2(bp, at)?;
                let ty = g1(bp, at + 2)?;
                let tlen = usize::from(g1(bp, at + 3)? & 0x7f);
                at += 4;
                let padded = tlen.next_multiple_of(4);
                out!(self, "\n        TLV Class {class}, Type {ty}, Len {tlen}");
                n += 1;
                if words < n + padded / 4 {
                    self.out.push_str(" (length too big) (invalid)");
                    return Ok(());
                }
                if tlen != 0 {
                    self.out.push_str("\n            Value: ");
                    for k in 0..tlen {
                        let sep = if k == 0 { "0x" } else { ":" };
                        out!(self, "{sep}{:02x}", g1(bp, at + k)?);
                    }
                    need(bp, at + tlen, padded - tlen)?;
                    at += padded;
                    n += padded / 4;
                }
            }
        } else {
            need(bp, 8, ctx)?;
        }
        self.nsh_sep();
        let hdr = length as usize * 4;
        self.nsh_next(next, tail(bp, hdr), len - length * 4, false)
    }
}
