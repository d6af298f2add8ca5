//! ES-IS (ISO 9542) as tcpdump 4.99 prints it (`esis_print`): the PDU type,
//! and with `-v` the header, the addresses of redirects and hellos, and the
//! options.

use super::{isonsap, nlpid_name};
use crate::summary::link::linkaddr;
use crate::summary::{g1, g2, name_or, need, out, PResult, Printer};

const HEADER: usize = 9;

fn pdu_name(t: u8) -> Option<&'static str> {
    Some(match t {
        6 => "redirect",
        2 => "ESH",
        4 => "ISH",
        _ => return None,
    })
}

fn option_name(op: u8) -> &'static str {
    match op {
        129 => "Protocols supported",
        195 => "QoS Maintenance",
        197 => "Security",
        198 => "ES Configuration Time",
        205 => "Priority",
        225 => "Addressk Mask",
        226 => "SNPA Mask",
        _ => "Unknown",
    }
}

impl Printer<'_> {
    /// `esis_print`: `p` starts with the NLPID.
    pub(super) fn esis(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "esis";
        let e = self.opts.link_header;
        if !e {
            out!(self, "ES-IS");
        }
        if length <= 2 {
            let m = if self.opts.quiet {
                "bad pkt!"
            } else {
                "no header at all!"
            };
            out!(self, "{m}");
            return Ok(());
        }
        need(p, 0, HEADER)?;
        let mut li = p[1] as usize;
        if p[0] != 0x82 {
            out!(self, " nlpid 0x{:02x} packet not supported", p[0]);
            return Ok(());
        }
        let version = p[2];
        if version != 1 {
            out!(self, " version {version} packet not supported");
            return Ok(());
        }
        if li > length as usize {
            out!(self, " length indicator({li}) > PDU size ({length})!");
            return Ok(());
        }
        if li < HEADER + 2 {
            out!(self, " length indicator {li} < min PDU size:");
            for b in p {
                out!(self, "{b:02X}");
            }
            return Ok(());
        }
        let t = p[4] & 0x1f;
        let sep = if e { "" } else { ", " };
        if self.opts.verbose < 1 {
            let n = name_or(pdu_name(t), || format!("unknown type ({t})"));
            out!(self, "{sep}{n}, length {length}");
            return Ok(());
        }
        let n = name_or(pdu_name(t), || format!("unknown type: {t}"));
        out!(self, "{sep}length {length}\n\t{n} ({t})");
        let sum = g2(p, 7)?;
        out!(self, ", v: {version}, checksum: 0x{sum:04x}");
        self.osi_cksum_verdict(p, 0, sum, 7, li);
        out!(
            self,
            ", holding time: {}s, length indicator: {li}",
            g2(p, 5)?
        );
        if self.opts.verbose > 1 {
            self.unknown_data(p, 0, HEADER, "\n\t");
        }
        let mut at = HEADER;
        li -= HEADER;
        // Each step: the length byte at `at`, then that many bytes.
        let field =
            |at: &mut usize, li: &mut usize, dec: bool| -> PResult<Option<(usize, usize)>> {
                let l = g1(p, *at)? as usize;
                if *li < 1 {
                    return Ok(None);
                }
                *at += 1;
                if dec {
                    *li -= 1;
                }
                need(p, *at, l)?;
                if *li < l {
                    return Ok(None);
                }
                let start = *at;
                *at += l;
                *li -= l;
                Ok(Some((start, l)))
            };
        match t {
            6 => {
                let Some((dst, dstl)) = field(&mut at, &mut li, true)? else {
                    out!(self, ", bad redirect/li");
                    return Ok(());
                };
                out!(self, "\n\t  {}", isonsap(p, dst, dstl)?);
                let Some((snpa, snpal)) = field(&mut at, &mut li, true)? else {
                    out!(self, ", bad redirect/li");
                    return Ok(());
                };
                // tcpdump does not count the NET's length byte off the li.
                let Some((neta, netal)) = field(&mut at, &mut li, false)? else {
                    out!(self, ", bad redirect/li");
                    return Ok(());
                };
                let s = if snpal == 6 {
                    let mut mac = [0u8; 6];
                    mac.copy_from_slice(&p[snpa..snpa + 6]);
                    self.ether_str(mac)
                } else {
                    linkaddr(&p[snpa..snpa + snpal])
                };
                out!(self, "\n\t  SNPA (length: {snpal}): {s}");
                if netal != 0 {
                    out!(
                        self,
                        "\n\t  NET (length: {netal}) {}",
                        isonsap(p, neta, netal)?
                    );
                }
            }
            2 => {
                g1(p, at)?;
                if li < 1 {
                    out!(self, ", bad esh/li");
                    return Ok(());
                }
                let mut n = p[at];
                at += 1;
                li -= 1;
                out!(self, "\n\t  Number of Source Addresses: {n}");
                while n > 0 {
                    let Some((a, l)) = field(&mut at, &mut li, true)? else {
                        out!(self, ", bad esh/li");
                        return Ok(());
                    };
                    out!(self, "\n\t  NET (length: {l}): {}", isonsap(p, a, l)?);
                    n -= 1;
                }
            }
            4 => {
                let Some((a, l)) = field(&mut at, &mut li, true)? else {
                    out!(self, ", bad ish/li");
                    return Ok(());
                };
                out!(self, "\n\t  NET (length: {l}): {}", isonsap(p, a, l)?);
            }
            _ => {
                if self.opts.verbose <= 1 && at < p.len() {
                    let rest = p.len() - at;
                    self.unknown_data(p, at, rest, "\n\t  ");
                }
                return Ok(());
            }
        }
        self.esis_options(p, at, li)
    }

    fn esis_options(&mut self, p: &[u8], mut at: usize, mut li: usize) -> PResult {
        while li != 0 {
            if li < 2 {
                out!(self, ", bad opts/li");
                return Ok(());
            }
            let op = g1(p, at)?;
            let mut opli = g1(p, at + 1)? as usize;
            at += 2;
            li -= 2;
            if opli > li {
                out!(self, ", opt ({op}) too long");
                return Ok(());
            }
            li -= opli;
            out!(
                self,
                "\n\t  {} Option #{op}, length {opli}, value: ",
                option_name(op)
            );
            match op {
                198 => {
                    if opli == 2 {
                        out!(self, "{}s", g2(p, at)?);
                    } else {
                        out!(self, "(bad length)");
                    }
                }
                // tcpdump counts the option's length down as it prints the
                // NLPIDs, so it neither dumps them with -vv nor steps over
                // them: the next option is read from the first NLPID.
                129 => {
                    let mut t = at;
                    while opli > 0 {
                        let n = g1(p, t)?;
                        out!(self, "{} (0x{n:02x})", nlpid_name(n).unwrap_or("unknown"));
                        if opli > 1 {
                            out!(self, ", ");
                        }
                        t += 1;
                        opli -= 1;
                    }
                }
                _ => {
                    self.unknown_data(p, at, opli, "\n\t  ");
                }
            }
            if self.opts.verbose > 1 {
                self.unknown_data(p, at, opli, "\n\t  ");
            }
            at += opli;
        }
        Ok(())
    }
}
