//! PGM (RFC 3208), as tcpdump's `pgm_print`: the ports and length, and with
//! `-v` the global source id, the message type's fields and the options.

use super::{g1, g2, g4, gv4, gv6, need, out, v6s, IpCtx, PResult, Printer, Trunc};

/// A network-layer address: the family (1 IPv4, 2 IPv6) at `afi`, the
/// address at `at`; `None` for another family (tcpdump's `goto trunc`).
fn nla(bp: &[u8], afi: u16, at: usize) -> PResult<(String, usize)> {
    match afi {
        1 => Ok((gv4(bp, at)?.to_string(), 4)),
        2 => Ok((v6s(gv6(bp, at)?), 16)),
        _ => Err(Trunc),
    }
}

impl Printer<'_> {
    /// `pgm_print`.
    pub(super) fn pgm(&mut self, bp: &[u8], length: u32, ctx: &IpCtx) -> PResult {
        self.proto = "pgm";
        let (src, dst) = self.addr_str(&ctx.addrs);
        if bp.len() < 4 {
            out!(self, "{src} > {dst}:");
            return Err(Trunc);
        }
        let (sp, dp) = (self.tcp_port(g2(bp, 0)?), self.tcp_port(g2(bp, 2)?));
        if ctx.first_nh == 113 {
            out!(self, "{src}.{sp} > {dst}.{dp}: ");
        } else {
            out!(self, "{sp} > {dp}: ");
        }
        need(bp, 0, 16)?;
        out!(self, "PGM, length {}", g2(bp, 14)?);
        if self.opts.verbose == 0 {
            return Ok(());
        }
        let t = g1(bp, 4)?;
        out!(self, " 0x");
        for b in &bp[8..14] {
            out!(self, "{b:02x}");
        }
        out!(self, " ");
        // Where the options start, past the type's fields.
        let mut p = 16usize;
        match t {
            0 => {
                need(bp, p, 16)?;
                let (a, n) = nla(bp, g2(bp, p + 12)?, p + 16)?;
                out!(
                    self,
                    "SPM seq {} trail {} lead {} nla {a}",
                    g4(bp, p)?,
                    g4(bp, p + 4)?,
                    g4(bp, p + 8)?
                );
                p += 16 + n;
            }
            1 => {
                need(bp, p, 12)?;
                let (a, n) = nla(bp, g2(bp, p + 8)?, p + 12)?;
                let q = p + 12 + n;
                out!(
                    self,
                    "POLL seq {} round {} nla {a} ivl {} rnd 0x{:08x} mask 0x{:08x}",
                    g4(bp, p)?,
                    g2(bp, p + 4)?,
                    g4(bp, q)?,
                    g4(bp, q + 4)?,
                    g4(bp, q + 8)?
                );
                p = q + 12;
            }
            2 => {
                need(bp, p, 8)?;
                out!(self, "POLR seq {} round {}", g4(bp, p)?, g2(bp, p + 4)?);
                p += 8;
            }
            4 | 5 => {
                need(bp, p, 8)?;
                let name = if t == 4 { "ODATA" } else { "RDATA" };
                out!(self, "{name} trail {} seq {}", g4(bp, p + 4)?, g4(bp, p)?);
                p += 8;
            }
            8..=0x0a => {
                need(bp, p, 8)?;
                let (s, n) = nla(bp, g2(bp, p + 4)?, p + 8)?;
                // The group's family follows the source and two reserved words.
                let g = p + 8 + n + 4;
                let (grp, m) = nla(bp, g2(bp, g)?, g)?;
                let name = match t {
                    8 => "NAK",
                    9 => "NNAK",
                    _ => "NCF",
                };
                out!(self, "{name} ({s} -> {grp}), seq {}", g4(bp, p)?);
                // tcpdump reads the group address where its family is.
                p = g + m;
            }
            0x0d => {
                need(bp, p, 8)?;
                out!(self, "ACK seq {}", g4(bp, p)?);
                p += 8;
            }
            // tcpdump's cursor stays at the header's start for these.
            0x0c => {
                out!(self, "SPMR");
                p = 0;
            }
            _ => {
                out!(self, "UNKNOWN type 0x{t:02x}");
                p = 0;
            }
        }
        if g1(bp, 5)? & 0x01 != 0 {
            match self.pgm_options(bp, p)? {
                Some(end) => p = end,
                None => return Ok(()),
            }
        }
        out!(self, " [{length}]");
        if self.opts.packet_type == Some(super::PacketType::PgmZmtp1) && matches!(t, 4 | 5) {
            return self.zmtp1_datagram(bp.get(p..).ok_or(Trunc)?, u32::from(g2(bp, 14)?));
        }
        Ok(())
    }

    /// The options from `p`: where they end, or `None` where tcpdump returns
    /// without the trailing length.
    fn pgm_options(&mut self, bp: &[u8], mut p: usize) -> PResult<Option<usize>> {
        need(bp, p, 4)?;
        let first = g1(bp, p)?;
        if first & 0x7f != 0 {
            out!(
                self,
                "[First option bad, should be PGM_OPT_LENGTH, is {}]",
                first & 0x7f
            );
            return Ok(None);
        }
        let l = g1(bp, p + 1)?;
        if l != 4 {
            out!(self, "[Bad OPT_LENGTH option, length {l} != 4]");
            return Ok(None);
        }
        let mut opts_len = g2(bp, p + 2)? as u32;
        if opts_len < 4 {
            out!(self, "[Bad total option length {opts_len} < 4]");
            return Ok(None);
        }
        out!(self, " OPTS LEN {opts_len}");
        opts_len -= 4;
        p += 4;
        while opts_len != 0 {
            if opts_len < 4 {
                out!(
                    self,
                    "[Total option length leaves no room for final option]"
                );
                return Ok(None);
            }
            let ot = g1(bp, p)?;
            let ol = g1(bp, p + 1)? as u32;
            if ol < 4 {
                out!(self, "[Bad option, length {ol} < 4]");
                break;
            }
            if opts_len < ol {
                out!(
                    self,
                    "[Total option length leaves no room for final option]"
                );
                return Ok(None);
            }
            need(bp, p + 2, ol as usize - 2)?;
            match ot & 0x7f {
                0 => {
                    if ol != 4 {
                        out!(self, "[Bad OPT_LENGTH option, length {ol} != 4]");
                        return Ok(None);
                    }
                    out!(self, " OPTS LEN (extra?) {}", g2(bp, p + 2)?);
                    p += 4;
                    opts_len -= 4;
                }
                0x02 => {
                    let mut left = ol - 4;
                    out!(self, " NAK LIST");
                    p += 4;
                    while left != 0 {
                        if left < 4 {
                            out!(self, "[Option length not a multiple of 4]");
                            return Ok(None);
                        }
                        out!(self, " {}", g4(bp, p)?);
                        p += 4;
                        left -= 4;
                        // tcpdump does not count the option's header.
                        opts_len = opts_len.wrapping_sub(4);
                    }
                }
                0x07 | 0x12 | 0x13 => {
                    let (name, text, base) = match ot & 0x7f {
                        0x07 => ("OPT_REDIRECT", "REDIRECT", 8),
                        0x12 => ("OPT_PGMCC_DATA", "PGMCC DATA", 12),
                        _ => ("OPT_PGMCC_FEEDBACK", "PGMCC FEEDBACK", 12),
                    };
                    if ol < base {
                        let name = if ot & 0x7f == 0x13 {
                            "PGM_OPT_PGMCC_FEEDBACK"
                        } else {
                            name
                        };
                        out!(self, "[Bad {name} option, length {ol} < {base}]");
                        return Ok(None);
                    }
                    let afi_at = p + base as usize - 4;
                    let afi = g2(bp, afi_at)?;
                    let alen = match afi {
                        1 => 4,
                        2 => 16,
                        _ => return Err(Trunc),
                    };
                    if ol != base + alen {
                        out!(
                            self,
                            "[Bad {name} option, length {ol} != {base} + address size]"
                        );
                        return Ok(None);
                    }
                    let (a, _) = nla(bp, afi, p + base as usize)?;
                    if base == 12 {
                        out!(self, " {text} {} {a}", g4(bp, p + 4)?);
                    } else {
                        out!(self, " {text} {a}");
                    }
                    p += (base + alen) as usize;
                    opts_len -= base + alen;
                }
                // tcpdump steps over these from past the option's header.
                0x0c | 0x10 => {
                    if ot & 0x7f == 0x0c {
                        out!(self, " PATH_NLA [{ol}]");
                    } else {
                        out!(self, " CR");
                    }
                    p += 2 + ol as usize;
                    opts_len -= ol;
                }
                o => {
                    let known: Option<(&str, u32, &str, usize)> = match o {
                        0x01 => Some(("OPT_FRAGMENT", 16, " FRAG seq {} off {} len {}", 3)),
                        0x03 => Some(("OPT_JOIN", 8, " JOIN {}", 1)),
                        0x04 => Some(("OPT_NAK_BO_IVL", 12, " BACKOFF ivl {} ivlseq {}", 2)),
                        0x05 => Some(("OPT_NAK_BO_RNG", 12, " BACKOFF max {} min {}", 2)),
                        0x08 => Some(("OPT_PARITY_PRM", 8, " PARITY MAXTGS {}", 1)),
                        0x09 => Some(("OPT_PARITY_GRP", 8, " PARITY GROUP {}", 1)),
                        0x0a => Some(("OPT_CURR_TGSIZE", 8, " PARITY ATGS {}", 1)),
                        0x0b => Some(("OPT_NBR_UNREACH", 4, " NBR_UNREACH", 0)),
                        0x0d => Some(("OPT_SYN", 4, " SYN", 0)),
                        0x0e => Some(("OPT_FIN", 4, " FIN", 0)),
                        0x0f => Some(("OPT_RST", 4, " RST", 0)),
                        0x11 => Some(("OPT_CRQST", 4, " CRQST", 0)),
                        _ => None,
                    };
                    match known {
                        Some((name, want, text, n)) => {
                            if ol != want {
                                out!(self, "[Bad {name} option, length {ol} != {want}]");
                                return Ok(None);
                            }
                            let mut parts = text.split("{}");
                            out!(self, "{}", parts.next().unwrap_or(""));
                            for (i, rest) in parts.enumerate().take(n) {
                                out!(self, "{}{rest}", g4(bp, p + 4 + 4 * i)?);
                            }
                            p += want as usize;
                            opts_len -= want;
                        }
                        None => {
                            out!(self, " OPT_{ot:02X} [{ol}] ");
                            p += 2 + ol as usize;
                            opts_len -= ol;
                        }
                    }
                }
            }
            if ot & 0x80 != 0 {
                break;
            }
        }
        Ok(Some(p))
    }
}
