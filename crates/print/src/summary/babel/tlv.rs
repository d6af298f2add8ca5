//! Babel's messages as tcpdump 4.99.3's `babel_print_v2_tlvs` prints them with
//! `-v`: a line each, with its fields. The caller checked that the message,
//! `len + 2` bytes from `m`, is captured and inside the body.

use super::super::{g1, g2, g4, out, Printer};
use super::prefix::{id, interval, interval_update, network_prefix, Previous};
use super::Stop;

type R = Result<(), Stop>;

fn valid(ok: bool) -> R {
    if ok {
        Ok(())
    } else {
        Err(Stop::Invalid)
    }
}

impl Printer<'_> {
    pub(super) fn babel_tlv(
        &mut self,
        p: &[u8],
        m: usize,
        kind: u8,
        len: u32,
        prev: &mut Previous,
    ) -> R {
        let end = m + 2 + len as usize;
        match kind {
            1 => out!(self, "\n\tPad {}", len + 2),
            2 => {
                out!(self, "\n\tAcknowledgment Request ");
                valid(len >= 6)?;
                let (nonce, i) = (g2(p, m + 4)?, g2(p, m + 6)?);
                out!(self, "{nonce:04x} {}", interval(i));
            }
            3 => {
                out!(self, "\n\tAcknowledgment ");
                valid(len >= 2)?;
                out!(self, "{:04x}", g2(p, m + 2)?);
            }
            4 => {
                out!(self, "\n\tHello ");
                valid(len >= 6)?;
                if g2(p, m + 2)? & 0x8000 != 0 {
                    out!(self, "(Unicast) ");
                }
                out!(self, "seqno {} ", g2(p, m + 4)?);
                match g2(p, m + 6)? {
                    0 => out!(self, "unscheduled"),
                    i => out!(self, "interval {}", interval(i)),
                }
                if len > 6 {
                    self.babel_subtlvs(p, m + 8, end, kind);
                }
            }
            5 => {
                out!(self, "\n\tIHU ");
                valid(len >= 6)?;
                let (rxcost, i, ae) = (g2(p, m + 4)?, g2(p, m + 6)?, g1(p, m + 2)?);
                match network_prefix(ae, None, 0, p, m + 8, None, len - 6) {
                    // tcpdump marks a bad address as truncation and goes on.
                    None => self.trunc(),
                    Some((a, rc)) => {
                        let who = if ae == 0 {
                            "any".to_string()
                        } else {
                            self.babel_address(&a)
                        };
                        out!(self, "{who} rxcost {rxcost} interval {}", interval(i));
                        if rc < len - 6 {
                            self.babel_subtlvs(p, m + 8 + rc as usize, end, kind);
                        }
                    }
                }
            }
            6 => {
                out!(self, "\n\tRouter Id");
                valid(len >= 10)?;
                out!(self, " {}", id(p, m + 4).ok_or(Stop::Truncated)?);
            }
            7 => {
                out!(self, "\n\tNext Hop");
                valid(len >= 2)?;
                let ae = g1(p, m + 2)?;
                let (a, _) =
                    network_prefix(ae, None, 0, p, m + 4, None, len - 2).ok_or(Stop::Invalid)?;
                if ae == 0 {
                    out!(self, " invalid AE 0");
                } else {
                    let a = self.babel_address(&a);
                    out!(self, " {a}");
                }
            }
            8 => self.babel_update(p, m, len, prev)?,
            9 => {
                out!(self, "\n\tRoute Request ");
                valid(len >= 2)?;
                let (ae, raw) = (g1(p, m + 2)?, g1(p, m + 3)?);
                let (a, _) = network_prefix(ae, Some(raw), 0, p, m + 4, None, len - 2)
                    .ok_or(Stop::Invalid)?;
                let plen = raw.wrapping_add(if ae == 1 { 96 } else { 0 });
                let a = self.babel_prefix_or(ae, &a, plen, "any");
                out!(self, "for {a}");
            }
            10 => {
                out!(self, "\n\tSeqno Request ");
                valid(len >= 14)?;
                let (ae, raw, seqno) = (g1(p, m + 2)?, g1(p, m + 3)?, g2(p, m + 4)?);
                let (a, _) = network_prefix(ae, Some(raw), 0, p, m + 16, None, len - 14)
                    .ok_or(Stop::Invalid)?;
                let plen = raw.wrapping_add(if ae == 1 { 96 } else { 0 });
                let a = self.babel_prefix_or(ae, &a, plen, "invalid AE 0");
                out!(
                    self,
                    "({} hops) for {a} seqno {seqno} id {}",
                    g1(p, m + 6)?,
                    id(p, m + 8).ok_or(Stop::Truncated)?
                );
            }
            11 => {
                out!(self, "\n\tTS/PC ");
                valid(len >= 6)?;
                out!(
                    self,
                    "timestamp {} packetcounter {}",
                    g4(p, m + 4)?,
                    g2(p, m + 2)?
                );
            }
            12 => {
                out!(self, "\n\tHMAC ");
                valid(len >= 18)?;
                out!(self, "key-id {} digest-{} ", g2(p, m + 2)?, len - 2);
                for j in 0..(len - 2) as usize {
                    out!(self, "{:02X}", g1(p, m + 4 + j)?);
                }
            }
            13 => self.babel_ss_update(p, m, len, prev)?,
            14 => {
                out!(self, "\n\tSS-Request ");
                valid(len >= 3)?;
                let (ae, plen, src_plen) = (g1(p, m + 2)?, g1(p, m + 3)?, g1(p, m + 4)?);
                let dst = (plen, 0, None);
                let (a, s, _) = self.babel_src_specific(p, ae, dst, src_plen, m + 5, len - 3)?;
                if ae == 0 {
                    out!(self, "for any");
                } else {
                    out!(self, "for ({a}, {s})");
                }
            }
            15 => {
                out!(self, "\n\tSS-MH-Request ");
                valid(len >= 14)?;
                let (ae, plen, seqno) = (g1(p, m + 2)?, g1(p, m + 3)?, g2(p, m + 4)?);
                let (hopc, src_plen) = (g1(p, m + 6)?, g1(p, m + 7)?);
                let dst = (plen, 0, None);
                let (a, s, _) = self.babel_src_specific(p, ae, dst, src_plen, m + 16, len - 14)?;
                let id = id(p, m + 8).ok_or(Stop::Truncated)?;
                out!(self, "({hopc} hops) for ({a}, {s}) seqno {seqno} id {id}");
            }
            16 => out!(self, "\n\tMAC len {len}"),
            17 => {
                out!(self, "\n\tPC");
                valid(len >= 4)?;
                out!(self, " value {} index len {}", g4(p, m + 2)?, len - 4);
            }
            18 | 19 => {
                let word = if kind == 18 { "Request" } else { "Reply" };
                out!(self, "\n\tChallenge {word}");
                valid(len <= 192)?;
                out!(self, " len {len}");
            }
            _ => out!(self, "\n\tUnknown message type {kind}"),
        }
        Ok(())
    }

    /// `format_prefix`, or `ae0` for address encoding 0.
    fn babel_prefix_or(&self, ae: u8, a: &[u8; 16], plen: u8, ae0: &str) -> String {
        if ae == 0 {
            ae0.to_string()
        } else {
            self.babel_prefix(a, plen)
        }
    }

    /// An update: its flags, prefix (some bytes maybe omitted, taken from the
    /// last update with the prefix flag), metric, seqno, interval, sub-TLVs.
    fn babel_update(&mut self, p: &[u8], m: usize, len: u32, prev: &mut Previous) -> R {
        out!(self, "\n\tUpdate");
        valid(len >= 10)?;
        let (ae, flags, raw, omitted) =
            (g1(p, m + 2)?, g1(p, m + 3)?, g1(p, m + 4)?, g1(p, m + 5)?);
        let plen = raw.wrapping_add(if ae == 1 { 96 } else { 0 });
        let dp = if ae == 1 { &prev.v4 } else { &prev.v6 };
        let (a, rc) = network_prefix(ae, Some(raw), omitted, p, m + 12, Some(dp), len - 10)
            .ok_or(Stop::Invalid)?;
        let (i, seqno, metric) = (g2(p, m + 6)?, g2(p, m + 8)?, g2(p, m + 10)?);
        for (bit, name) in [(0x80, "/prefix"), (0x40, "/id")] {
            if flags & bit != 0 {
                out!(self, "{name}");
            }
        }
        if flags & 0x3f != 0 {
            out!(self, "/unknown");
        }
        let shown = self.babel_prefix_or(ae, &a, plen, "any");
        out!(
            self,
            " {shown} metric {metric} seqno {seqno} interval {}",
            interval_update(i)
        );
        if flags & 0x80 != 0 {
            if ae == 1 {
                prev.v4 = a;
            } else {
                prev.v6 = a;
            }
        }
        if rc < len - 10 {
            self.babel_subtlvs(p, m + 12 + rc as usize, m + 2 + len as usize, 8);
        }
        Ok(())
    }

    /// A source-specific update (draft-boutier-babel-source-specific-01).
    fn babel_ss_update(&mut self, p: &[u8], m: usize, len: u32, prev: &Previous) -> R {
        out!(self, "\n\tSS-Update");
        valid(len >= 10)?;
        let (ae, src_plen, plen, omitted) =
            (g1(p, m + 2)?, g1(p, m + 3)?, g1(p, m + 4)?, g1(p, m + 5)?);
        let (i, seqno, metric) = (g2(p, m + 6)?, g2(p, m + 8)?, g2(p, m + 10)?);
        let dp = if ae == 1 { &prev.v4 } else { &prev.v6 };
        let dst = (plen, omitted, Some(dp));
        let (a, s, rc) = self.babel_src_specific(p, ae, dst, src_plen, m + 12, len - 10)?;
        out!(
            self,
            " {a} from {s} metric {metric} seqno {seqno} interval {}",
            interval_update(i)
        );
        let parsed = 10 + rc;
        if parsed < len {
            self.babel_subtlvs(p, m + 2 + parsed as usize, m + 2 + len as usize, 13);
        }
        Ok(())
    }

    /// A source-specific message's destination prefix (length, bytes
    /// omitted, where they come from) at `at`, `left` bytes of the message
    /// from there, and its source prefix after it: both formatted, and the
    /// bytes they took.
    fn babel_src_specific(
        &self,
        p: &[u8],
        ae: u8,
        (plen, omitted, dp): (u8, u8, Option<&[u8; 16]>),
        src_plen: u8,
        at: usize,
        left: u32,
    ) -> Result<(String, String, u32), Stop> {
        let (a, rc) =
            network_prefix(ae, Some(plen), omitted, p, at, dp, left).ok_or(Stop::Invalid)?;
        let (s, rc2) = network_prefix(ae, Some(src_plen), 0, p, at + rc as usize, None, left - rc)
            .ok_or(Stop::Invalid)?;
        let add = if ae == 1 { 96 } else { 0 };
        Ok((
            self.babel_prefix(&a, plen.wrapping_add(add)),
            self.babel_prefix(&s, src_plen.wrapping_add(add)),
            rc + rc2,
        ))
    }
}
