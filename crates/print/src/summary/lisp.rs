//! LISP control messages (RFC 6830) on UDP port 4342, as tcpdump's
//! `lisp_print`: only Map-Register and Map-Notify are decoded (their EID
//! records and locators); other types print their name alone.

use super::{bit_names, g1, g2, g4, gv4, gv6, need, out, v6s, PResult, Printer, Trunc};

const HDR_LEN: usize = 16;
const EID_LEN: usize = 12;
const LOC_LEN: usize = 8;

fn type_name(t: u8) -> String {
    match t {
        0 => "LISP-Reserved".into(),
        1 => "LISP-Map-Request".into(),
        2 => "LISP-Map-Reply".into(),
        3 => "LISP-Map-Register".into(),
        4 => "LISP-Map-Notify".into(),
        8 => "LISP-Encapsulated-Contol-Message".into(),
        _ => format!("unknown-type-{t}"),
    }
}

impl Printer<'_> {
    /// `lisp_print`.
    pub(super) fn lisp(&mut self, bp: &[u8], length: u32) -> PResult {
        self.proto = "lisp";
        need(bp, 0, HDR_LEN)?;
        let t = g1(bp, 0)? >> 4;
        out!(self, "{},", type_name(t));
        let v = self.opts.verbose > 0;
        let flags = g4(bp, 0)?;
        let xtr = match t {
            3 => {
                let names = [
                    (0x0800_0000, "P-Proxy-Map-Reply"),
                    (0x0400_0000, "S-LISP-SEC-Capable"),
                    (0x0200_0000, "I-xTR-ID-Present"),
                    (0x0100_0000, "R-Build-For-RTR"),
                    (0x0000_0100, "M-Want-Map-Notify"),
                ];
                if v {
                    out!(self, " flags [{}],", bit_names(flags, &names));
                }
                flags & 0x0200_0000 != 0
            }
            4 => {
                let names = [
                    (0x0800_0000, "I-xTR-ID-Present"),
                    (0x0400_0000, "R-Build-For-RTR"),
                ];
                if v {
                    out!(self, " flags [{}],", bit_names(flags, &names));
                }
                flags & 0x0800_0000 != 0
            }
            _ => return Ok(()),
        };
        let auth_len = g2(bp, 14)? as usize;
        let mut records = g1(bp, 3)?;
        if v {
            let auth = match g2(bp, 12)? {
                0 => "None",
                1 => "SHA1",
                2 => "SHA256",
                _ => "unknown-type",
            };
            out!(self, "\n    {records} record(s), Authentication {auth},");
            self.hex_or_trunc("\n    Authentication-Data: ", bp, HDR_LEN, auth_len)?;
        } else {
            out!(self, " {records} record(s),");
        }
        // tcpdump keeps the offset in 16 bits.
        let mut off = (HDR_LEN + auth_len) & 0xffff;
        if records == 0 {
            out!(self, " (invalid)");
            return Ok(());
        }
        while length as usize > off && records != 0 {
            records -= 1;
            need(bp, off, EID_LEN)?;
            // tcpdump starts each record with a line break, an undecoded
            // (LCAF) EID's too: the line stays empty.
            out!(self, "\n");
            let e = off;
            off += EID_LEN;
            let mask = g1(bp, e + 5)?;
            let mut locs = g1(bp, e + 4)?;
            if v {
                let act = g1(bp, e + 6)?;
                out!(
                    self,
                    "      Record TTL {}, {}, {}, Map Version: {},",
                    g4(bp, e)?,
                    if act & 0x10 != 0 {
                        "Authoritative"
                    } else {
                        "Non-Authoritative"
                    },
                    match act >> 5 {
                        0 => "No-Action",
                        1 => "Natively-Forward",
                        2 => "Send-Map-Request",
                        3 => "Drop",
                        _ => "unknown",
                    },
                    g2(bp, e + 8)? & 0x0fff
                );
            }
            match g2(bp, e + 10)? {
                1 => {
                    out!(self, " EID {}/{mask},", gv4(bp, off)?);
                    off += 4;
                }
                2 => {
                    out!(self, " EID {}/{mask},", v6s(gv6(bp, off)?));
                    off += 16;
                }
                // LCAF is not decoded.
                _ => return Ok(()),
            }
            out!(self, " {locs} locator(s)");
            while locs != 0 {
                locs -= 1;
                need(bp, off, LOC_LEN)?;
                let l = off;
                off += LOC_LEN;
                if v {
                    out!(self, "\n       ");
                }
                match g2(bp, l + 6)? {
                    1 => {
                        out!(self, " LOC {}", gv4(bp, off)?);
                        off += 4;
                    }
                    2 => {
                        out!(self, " LOC {}", v6s(gv6(bp, off)?));
                        off += 16;
                    }
                    _ => {}
                }
                if v {
                    let names = [(4, "Local-Locator"), (2, "RLoc-Probed"), (1, "Reachable")];
                    out!(
                        self,
                        "\n          Priority/Weight {}/{}, Multicast Priority/Weight {}/{}, flags [{}],",
                        g1(bp, l)?,
                        g1(bp, l + 1)?,
                        g1(bp, l + 2)?,
                        g1(bp, l + 3)?,
                        bit_names(g2(bp, l + 4)? as u32, &names)
                    );
                }
            }
        }
        if xtr {
            if need(bp, off, 24).is_err() {
                out!(self, " (invalid)");
                return Ok(());
            }
            self.hex_or_trunc("\n    xTR-ID: ", bp, off, 16)?;
            let site = u64::from(g4(bp, off + 16)?) << 32 | u64::from(g4(bp, off + 20)?);
            out!(self, "\n    SITE-ID: {site}");
        } else if off < bp.len() {
            self.hex_or_trunc("\n    Data: ", bp, off, bp.len() - off)?;
        }
        Ok(())
    }

    /// tcpdump's `hex_print` of `len` bytes at `at`: as many as were
    /// captured, then the truncation marker if some were not.
    fn hex_or_trunc(&mut self, ident: &str, bp: &[u8], at: usize, len: usize) -> PResult {
        let avail = bp.get(at..).unwrap_or(&[]);
        crate::dump::unknown_data(&mut self.out, ident, avail, len);
        if len > avail.len() {
            return Err(Trunc);
        }
        Ok(())
    }
}
