//! The IPv6 mobility header (RFC 6275), as tcpdump's `mobility_print`: the
//! message type and its fields (from offset 6, past the checksum), with `-v`
//! the cookies, tokens and options.

use super::{g1, g2, g4, gv6, need, out, v6s, PResult, Printer};

/// The length tcpdump requires of each type's header.
const MIN_LEN: [usize; 8] = [8, 16, 16, 24, 24, 12, 12, 24];

fn type_name(t: u8) -> String {
    const NAMES: [&str; 8] = ["BRR", "HoTI", "CoTI", "HoT", "CoT", "BU", "BA", "BE"];
    match NAMES.get(t as usize) {
        Some(n) => n.to_string(),
        None => format!("type-#{t}"),
    }
}

impl Printer<'_> {
    /// `mobility_print`; a header cut short ends with the marker.
    pub(super) fn mobility(&mut self, bp: &[u8]) {
        self.proto = "mobility";
        let r = self.mobility_inner(bp);
        self.catch(r);
    }

    // The truncations tcpdump's printer finds itself (`goto trunc`: the
    // length byte missing, a header too short for its type, an option cut
    // short) print the marker and return, so `-x` still leaves the link-level
    // header out (`Printer::caught`); a `GET_` past the capture does not.
    fn mobility_inner(&mut self, bp: &[u8]) -> PResult {
        let mhlen = (g1(bp, 1).map_err(|_| self.caught())? as usize + 1) << 3;
        let t = g1(bp, 2)?;
        if let Some(&min) = MIN_LEN.get(t as usize) {
            if mhlen < min {
                out!(self, "(header length {mhlen} is too small for type {t})");
                return Err(self.caught());
            }
        }
        out!(self, "mobility: {}", type_name(t));
        let v = self.opts.verbose > 0;
        let which = |home: bool| if home { "Home" } else { "Care-of" };
        let hlen = match t {
            0 => 8,
            1 | 2 => {
                if v {
                    out!(
                        self,
                        " {} Init Cookie={:08x}:{:08x}",
                        which(t == 1),
                        g4(bp, 8)?,
                        g4(bp, 12)?
                    );
                }
                16
            }
            3 | 4 => {
                out!(self, " nonce id=0x{:x}", g2(bp, 6)?);
                if v {
                    out!(
                        self,
                        " {} Init Cookie={:08x}:{:08x}",
                        which(t == 3),
                        g4(bp, 8)?,
                        g4(bp, 12)?
                    );
                    out!(
                        self,
                        " {} Keygen Token={:08x}:{:08x}",
                        which(t == 3),
                        g4(bp, 16)?,
                        g4(bp, 20)?
                    );
                }
                24
            }
            5 => {
                out!(self, " seq#={}", g2(bp, 6)?);
                need(bp, 8, 2)?;
                let bits = g1(bp, 8)? >> 4;
                if bits != 0 {
                    out!(self, " ");
                    for (bit, c) in [(8, 'A'), (4, 'H'), (2, 'L'), (1, 'K')] {
                        if bits & bit != 0 {
                            self.out.push(c);
                        }
                    }
                }
                out!(self, " lifetime={}", (g2(bp, 10)? as u32) << 2);
                12
            }
            6 => {
                out!(self, " status={}", g1(bp, 6)?);
                if g1(bp, 7)? & 0x80 != 0 {
                    out!(self, " K");
                }
                out!(self, " seq#={}", g2(bp, 8)?);
                out!(self, " lifetime={}", (g2(bp, 10)? as u32) << 2);
                12
            }
            7 => {
                out!(self, " status={}", g1(bp, 6)?);
                out!(self, " homeaddr {}", v6s(gv6(bp, 8)?));
                24
            }
            _ => {
                out!(self, " len={}", g1(bp, 1)?);
                return Ok(());
            }
        };
        if v {
            self.mobility_opts(bp, hlen, mhlen - hlen)?;
        }
        Ok(())
    }

    /// `mobility_opt_print`: the options of `len` bytes from `at`.
    fn mobility_opts(&mut self, bp: &[u8], at: usize, len: usize) -> PResult {
        let mut i = 0;
        while i < len {
            let o = at + i;
            let t = g1(bp, o)?;
            let optlen = if t == 0 {
                1
            } else if i + 1 < len {
                g1(bp, o + 1)? as usize + 2
            } else {
                return Err(self.caught());
            };
            if i + optlen > len {
                return Err(self.caught());
            }
            // tcpdump wants the byte after the option captured (its
            // `ND_TCHECK_1`, a `goto trunc` in this file).
            need(bp, o + optlen, 1).map_err(|_| self.caught())?;
            let left = len - i;
            let short = |p: &mut Self, min: usize, what: &str| {
                if left < min {
                    out!(p, "({what}: trunc)");
                    return Err(p.caught());
                }
                Ok(())
            };
            match t {
                0 => out!(self, "(pad1)"),
                1 => {
                    short(self, 2, "padn")?;
                    out!(self, "(padn)");
                }
                2 => {
                    short(self, 4, "refresh")?;
                    out!(self, "(refresh: {})", (g2(bp, o + 2)? as u32) << 2);
                }
                3 => {
                    short(self, 18, "altcoa")?;
                    out!(self, "(alt-CoA: {})", v6s(gv6(bp, o + 2)?));
                }
                4 => {
                    short(self, 6, "ni")?;
                    out!(
                        self,
                        "(ni: ho=0x{:04x} co=0x{:04x})",
                        g2(bp, o + 2)?,
                        g2(bp, o + 4)?
                    );
                }
                5 => {
                    short(self, 12, "auth")?;
                    out!(self, "(auth)");
                }
                _ => {
                    short(self, 2, &format!("sopt_type {t}"))?;
                    out!(self, "(type-0x{t:02x}: len={})", g1(bp, o + 1)?);
                }
            }
            i += optlen;
        }
        Ok(())
    }
}
