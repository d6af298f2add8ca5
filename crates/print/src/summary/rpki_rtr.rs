//! The RPKI-to-router protocol (TCP port 323), as tcpdump 4.99's
//! `rpki_rtr_print` prints it: its name without `-v`; with `-v` every PDU
//! (serials, prefixes, error reports with one level of encapsulated PDU),
//! with `-vv` each PDU's bytes in hex.

use super::{g1, g2, g4, gv4, gv6, need, out, print_char, PResult, Printer};

/// The PDU header's size.
const HDR: usize = 8;

/// tcpdump's `indent_string`: a newline, a tab per 8, a space per 1 left.
fn indent(n: usize) -> String {
    format!("\n{}{}", "\t".repeat(n / 8), " ".repeat(n % 8))
}

impl Printer<'_> {
    /// `rpki_rtr_print`: `len` bytes of TCP payload, `p` captured.
    pub(super) fn rpki_rtr(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "rpki_rtr";
        if self.opts.verbose == 0 {
            out!(self, ", RPKI-RTR");
            return Ok(());
        }
        let mut at = 0;
        let mut left = len as usize;
        while left > 0 {
            // Every PDU takes at least its header or all that is left.
            let n = self.rpki_pdu(p, at, left, true, 8)?;
            at += n;
            left -= n;
        }
        Ok(())
    }

    /// `rpki_rtr_pdu_print`: the PDU at `at`, `len` bytes left; the bytes it
    /// took.
    fn rpki_pdu(
        &mut self,
        p: &[u8],
        at: usize,
        len: usize,
        recurse: bool,
        ind: usize,
    ) -> PResult<usize> {
        let version = g1(p, at)?;
        if version != 0 {
            out!(self, "{}RPKI-RTRv{version} (unknown)", indent(8));
            return Ok(len);
        }
        if len < HDR {
            out!(self, "({len} bytes is too few to decode)");
            return self.rpki_invalid(p, at, len);
        }
        need(p, at, HDR)?;
        let ty = g1(p, at + 1)?;
        let pdu_len = g4(p, at + 4)? as usize;
        let name = match ty {
            0 => "Serial Notify",
            1 => "Serial Query",
            2 => "Reset Query",
            3 => "Cache Response",
            4 => "IPV4 Prefix",
            6 => "IPV6 Prefix",
            7 => "End of Data",
            8 => "Cache Reset",
            10 => "Error Report",
            _ => "Unknown",
        };
        out!(
            self,
            "{}RPKI-RTRv0, {name} PDU ({ty}), length: {pdu_len}",
            indent(8)
        );
        if pdu_len < HDR || pdu_len > len {
            return self.rpki_invalid(p, at, len);
        }
        let sub = indent(ind + 2);
        let mut hexdump = false;
        match ty {
            0 | 1 | 7 => {
                if pdu_len != HDR + 4 {
                    return self.rpki_invalid(p, at, len);
                }
                out!(
                    self,
                    "{sub}Session ID: 0x{:04x}, Serial: {}",
                    g2(p, at + 2)?,
                    g4(p, at + HDR)?
                );
            }
            2 | 8 => {
                if pdu_len != HDR {
                    return self.rpki_invalid(p, at, len);
                }
            }
            3 => {
                if pdu_len != HDR {
                    return self.rpki_invalid(p, at, len);
                }
                out!(self, "{sub}Session ID: 0x{:04x}", g2(p, at + 2)?);
            }
            4 | 6 => {
                let (alen, fam) = if ty == 4 { (4, "IPv4") } else { (16, "IPv6") };
                if pdu_len != HDR + 4 + alen + 4 {
                    return self.rpki_invalid(p, at, len);
                }
                let a = at + HDR + 4;
                let prefix = if ty == 4 {
                    self.host4(gv4(p, a)?)
                } else {
                    self.host6(gv6(p, a)?)
                };
                out!(
                    self,
                    "{sub}{fam} Prefix {prefix}/{}-{}, origin-as {}, flags 0x{:02x}",
                    g1(p, at + HDR + 1)?,
                    g1(p, at + HDR + 2)?,
                    g4(p, a + alen)?,
                    g1(p, at + HDR)?
                );
            }
            10 => {
                let mut tlen = HDR;
                if pdu_len < tlen + 4 {
                    return self.rpki_invalid(p, at, len);
                }
                need(p, at, tlen + 4)?;
                let encap = g4(p, at + HDR)? as usize;
                tlen += 4;
                let code = g2(p, at + 2)?;
                let cname = [
                    "Corrupt Data",
                    "Internal Error",
                    "No Data Available",
                    "Invalid Request",
                    "Unsupported Protocol Version",
                    "Unsupported PDU Type",
                    "Withdrawal of Unknown Record",
                    "Duplicate Announcement Received",
                ]
                .get(code as usize)
                .copied()
                .unwrap_or("Unknown");
                out!(
                    self,
                    "{sub}Error code: {cname} ({code}), Encapsulated PDU length: {encap}"
                );
                if encap != 0 {
                    if pdu_len < tlen + encap {
                        return self.rpki_invalid(p, at, len);
                    }
                    if recurse {
                        out!(self, "{}-----encapsulated PDU-----", indent(ind + 4));
                        self.rpki_pdu(p, at + tlen, encap, false, ind + 2)?;
                    } else {
                        need(p, at, tlen + encap)?;
                    }
                    tlen += encap;
                }
                if pdu_len < tlen + 4 {
                    return self.rpki_invalid(p, at, len);
                }
                need(p, at, tlen + 4)?;
                let text = g4(p, at + tlen)? as usize;
                tlen += 4;
                if text != 0 {
                    if pdu_len < tlen + text {
                        return self.rpki_invalid(p, at, len);
                    }
                    out!(self, "{sub}Error text: ");
                    // nd_printn with no end: what was captured of it.
                    for &c in p.iter().skip(at + tlen).take(text) {
                        print_char(&mut self.out, c);
                    }
                }
            }
            _ => {
                need(p, at, pdu_len)?;
                hexdump = true;
            }
        }
        if self.opts.verbose > 1 || hexdump {
            let end = (at + pdu_len).min(p.len());
            crate::dump::hex_print(&mut self.out, "\n\t  ", p.get(at..end).unwrap_or(&[]));
        }
        Ok(pdu_len)
    }

    /// `nd_print_invalid` and tcpdump's check that the rest was captured.
    fn rpki_invalid(&mut self, p: &[u8], at: usize, len: usize) -> PResult<usize> {
        out!(self, " (invalid)");
        need(p, at, len)?;
        Ok(len)
    }
}
