//! PIM version 2 messages as `tcpdump -v` prints them (`pimv2_print`): the
//! checksum verdict, then each message type's fields, hello options and
//! join/prune lists on lines of their own. Without `-v` the summary is the one
//! line `PIMv2, Hello, length 34` that `net.rs` prints.

use super::{g1, g2, g4, gv4, gv6, need, out, relts, tail, v6s, IpCtx, PResult, Printer, Trunc};

/// How `pimv2_addr_print` reads an encoded address.
#[derive(Clone, Copy, PartialEq, Eq)]
enum AddrKind {
    Unicast,
    Group,
    Source,
}

/// tcpdump's `pimv2_type_values`.
pub(super) fn pimv2_type_name(t: u8) -> &'static str {
    match t {
        0 => "Hello",
        1 => "Register",
        2 => "Register Stop",
        3 => "Join / Prune",
        4 => "Bootstrap",
        5 => "Assert",
        6 => "Graft",
        7 => "Graft Acknowledgement",
        8 => "Candidate RP Advertisement",
        9 => "Prune Refresh",
        10 => "DF Election",
        11 => "ECMP Redirect",
        _ => "Unknown Type",
    }
}

impl Printer<'_> {
    /// The message after `PIMv2, length N\n\t<type>`: `bp` is the whole PIM
    /// message, `len` its length.
    pub(super) fn pimv2_verbose(&mut self, bp: &[u8], len: u32, ctx: &IpCtx) -> PResult {
        self.proto = "pimv2";
        let len = len as usize;
        if len < 2 {
            out!(self, "[length {len} < 2] (invalid)");
            return Ok(());
        }
        let t = g1(bp, 0)? & 0x0f;
        let rsv = g1(bp, 1)?;
        // RFC 2117's encoding states the address length here; 0 means the
        // encoded addresses carry their family.
        let alen = (rsv & 0x0f) as usize;
        if alen != 0 {
            out!(self, ", RFC2117-encoding");
        }
        if len < 4 {
            out!(self, "[length {len} < 4] (invalid)");
            return Ok(());
        }
        let cksum = g2(bp, 2)?;
        out!(self, ", cksum 0x{cksum:04x} ");
        if cksum == 0 {
            out!(self, "(unverified)");
        } else {
            // A Register's checksum covers its header only, though one over
            // the whole message is also accepted (RFC 4601).
            let mut verdict = pim_checksum(bp, if t == 1 { 8 } else { len }, ctx);
            if t == 1 && verdict == Some(false) {
                verdict = pim_checksum(bp, len, ctx);
            }
            match verdict {
                Some(true) => out!(self, "(correct)"),
                Some(false) => out!(self, "(incorrect)"),
                None => out!(self, "(unverified)"),
            }
        }
        let body = tail(bp, 4);
        let r = match t {
            0 => self.pim_hello(body, len - 4, alen),
            1 => self.pim_register(body, len - 4),
            2 => self
                .pim_fields(
                    body,
                    len - 4,
                    alen,
                    &[
                        (" group=", AddrKind::Group),
                        (" source=", AddrKind::Unicast),
                    ],
                )
                .map(|_| ()),
            3 | 6 | 7 => self.pim_join_prune(body, len - 4, alen, t),
            4 => self.pim_bootstrap(body, len - 4, alen),
            5 => self.pim_assert(body, len - 4, alen),
            8 => self.pim_candidate_rp(body, len - 4, alen),
            9 => self.pim_prune_refresh(body, len - 4, alen),
            10 => self.pim_df_election(body, len - 4, alen, rsv >> 4),
            t => {
                out!(self, " [type {t}]");
                Ok(())
            }
        };
        // A message shorter than its fields ends with the marker, as
        // tcpdump's `goto trunc`.
        if r.is_err() {
            self.trunc();
        }
        Ok(())
    }

    /// `pimv2_addr_print`: one encoded address of `kind`; returns its length,
    /// `Err` where tcpdump's returns -1 (the caller prints the marker).
    fn pim_addr(&mut self, bp: &[u8], len: usize, kind: AddrKind, alen: usize) -> PResult<usize> {
        let (v6, alen, hdr) = if alen == 0 {
            if len < 2 {
                return Err(Trunc);
            }
            let v6 = match g1(bp, 0)? {
                1 => false,
                2 => true,
                _ => return Err(Trunc),
            };
            if g1(bp, 1)? != 0 {
                return Err(Trunc);
            }
            (v6, if v6 { 16 } else { 4 }, 2)
        } else {
            match alen {
                4 => (false, 4, 0),
                16 => (true, 16, 0),
                _ => return Err(Trunc),
            }
        };
        let bp = tail(bp, hdr);
        let len = len - hdr;
        let addr = |at: usize| -> PResult<String> {
            Ok(if v6 {
                v6s(gv6(bp, at)?)
            } else {
                gv4(bp, at)?.to_string()
            })
        };
        if kind == AddrKind::Unicast {
            if len < alen {
                return Err(Trunc);
            }
            need(bp, 0, alen)?;
            out!(self, "{}", addr(0)?);
            return Ok(hdr + alen);
        }
        if len < alen + 2 {
            return Err(Trunc);
        }
        need(bp, 0, alen + 2)?;
        out!(self, "{}", addr(2)?);
        let mask = g1(bp, 1)?;
        if mask as usize != alen * 8 {
            out!(self, "/{mask}");
        }
        let flags = g1(bp, 0)?;
        if flags != 0 {
            if kind == AddrKind::Group {
                out!(self, "(0x{flags:02x})");
            } else {
                out!(self, "(");
                for (bit, c) in [(0x04, 'S'), (0x02, 'W'), (0x01, 'R')] {
                    if flags & bit != 0 {
                        self.out.push(c);
                    }
                }
                if flags & 0xf8 != 0 {
                    out!(self, "+0x{:02x}", flags & 0xf8);
                }
                out!(self, ")");
            }
        }
        Ok(hdr + 2 + alen)
    }

    /// Labelled encoded addresses one after the other; returns the bytes read.
    fn pim_fields(
        &mut self,
        bp: &[u8],
        len: usize,
        alen: usize,
        fields: &[(&str, AddrKind)],
    ) -> PResult<usize> {
        let mut at = 0;
        for &(label, kind) in fields {
            out!(self, "{label}");
            at += self.pim_addr(tail(bp, at), len - at, kind, alen)?;
        }
        Ok(at)
    }

    fn pim_hello(&mut self, bp: &[u8], len: usize, alen: usize) -> PResult {
        let mut at = 0;
        let mut left = len;
        while left > 0 {
            if left < 4 {
                return Err(Trunc);
            }
            let otype = g2(bp, at)?;
            let olen = g2(bp, at + 2)? as usize;
            let name = match otype {
                1 => "Hold Time",
                2 => "LAN Prune Delay",
                18 => "DR Priority (Old)",
                19 => "DR Priority",
                20 => "Generation ID",
                21 => "State Refresh Capability",
                22 => "Bi-Directional Capability",
                24 => "Address List",
                65001 => "Address List (Old)",
                _ => "Unknown",
            };
            out!(
                self,
                "\n\t  {name} Option ({otype}), length {olen}, Value: "
            );
            at += 4;
            left -= 4;
            if left < olen {
                return Err(Trunc);
            }
            need(bp, at, olen)?;
            let want = match otype {
                1 => Some(2),
                2 | 20 | 21 => Some(4),
                18 | 19 if olen != 0 => Some(4),
                _ => None,
            };
            if let Some(want) = want.filter(|&w| w != olen) {
                out!(self, "[option length {olen} != {want}] (invalid)");
                return Ok(());
            }
            match otype {
                1 => out!(self, "{}", relts(g2(bp, at)? as u32)),
                2 => {
                    let delay = g2(bp, at)?;
                    out!(
                        self,
                        "\n\t    T-bit={}, LAN delay {}ms, Override interval {}ms",
                        delay >> 15,
                        delay & 0x7fff,
                        g2(bp, at + 2)?
                    );
                }
                18 | 19 if olen == 0 => out!(self, "Bi-Directional Capability (Old)"),
                18 | 19 => out!(self, "{}", g4(bp, at)?),
                20 => out!(self, "0x{:08x}", g4(bp, at)?),
                21 => {
                    out!(self, "v{}", g1(bp, at)?);
                    let interval = g1(bp, at + 1)?;
                    if interval != 0 {
                        out!(self, ", interval {}", relts(interval as u32));
                    }
                    let rest = g2(bp, at + 2)?;
                    if rest != 0 {
                        out!(self, " ?0x{rest:04x}?");
                    }
                }
                24 | 65001 if self.opts.verbose > 1 => {
                    let mut p = at;
                    while p < at + olen {
                        out!(self, "\n\t    ");
                        p +=
                            self.pim_addr(tail(bp, p), left - (p - at), AddrKind::Unicast, alen)?;
                    }
                }
                22 | 24 | 65001 => {}
                _ if self.opts.verbose <= 1 => {
                    crate::dump::unknown_data(&mut self.out, "\n\t    ", tail(bp, at), olen)
                }
                _ => {}
            }
            // -vv dumps every option's value after decoding it.
            if self.opts.verbose > 1 {
                crate::dump::unknown_data(&mut self.out, "\n\t    ", tail(bp, at), olen);
            }
            at += olen;
            left -= olen;
        }
        Ok(())
    }

    fn pim_register(&mut self, bp: &[u8], len: usize) -> PResult {
        if len < 4 {
            return Err(Trunc);
        }
        // An exact match, as tcpdump's `tok2str`: both bits set is `none`.
        let flags = match g4(bp, 0)? {
            0x8000_0000 => "Border",
            0x4000_0000 => "Null",
            _ => "none",
        };
        out!(self, ", Flags [ {flags} ]\n\t");
        if len == 4 {
            return Err(Trunc);
        }
        let inner = tail(bp, 4);
        let ilen = (len - 4) as u32;
        match g1(inner, 0)? >> 4 {
            0 => out!(
                self,
                "IP-Null-header {} > {}",
                gv4(inner, 12)?,
                gv4(inner, 16)?
            ),
            4 => self.ipv4(inner, ilen),
            6 => self.ipv6(inner, ilen),
            v => out!(self, "IP ver {v}"),
        }
        Ok(())
    }

    fn pim_join_prune(&mut self, bp: &[u8], len: usize, alen: usize, t: u8) -> PResult {
        let mut at = 0;
        // A Graft Acknowledgement has no upstream neighbor nor holdtime.
        let ack = t == 7;
        if !ack {
            at = self.pim_fields(
                bp,
                len,
                alen,
                &[(", upstream-neighbor: ", AddrKind::Unicast)],
            )?;
        }
        if len - at < 4 {
            return Err(Trunc);
        }
        need(bp, at, 4)?;
        let ngroup = g1(bp, at + 1)?;
        let holdtime = g2(bp, at + 2)?;
        out!(self, "\n\t  {ngroup} group(s)");
        if !ack {
            out!(self, ", holdtime: ");
            if holdtime == 0xffff {
                out!(self, "infinite");
            } else {
                out!(self, "{}", relts(holdtime as u32));
            }
        }
        at += 4;
        for i in 0..ngroup {
            out!(self, "\n\t    group #{}: ", i + 1);
            at += self.pim_addr(tail(bp, at), len - at, AddrKind::Group, alen)?;
            if len - at < 4 {
                return Err(Trunc);
            }
            need(bp, at, 4)?;
            let (njoin, nprune) = (g2(bp, at)?, g2(bp, at + 2)?);
            out!(self, ", joined sources: {njoin}, pruned sources: {nprune}");
            at += 4;
            for (n, what) in [(njoin, "joined"), (nprune, "pruned")] {
                for j in 0..n {
                    out!(self, "\n\t      {what} source #{}: ", j + 1);
                    at += self.pim_addr(tail(bp, at), len - at, AddrKind::Source, alen)?;
                }
            }
        }
        Ok(())
    }

    fn pim_bootstrap(&mut self, bp: &[u8], len: usize, alen: usize) -> PResult {
        if len < 2 {
            return Err(Trunc);
        }
        out!(self, " tag={:x}", g2(bp, 0)?);
        if len < 3 {
            return Err(Trunc);
        }
        out!(self, " hashmlen={}", g1(bp, 2)?);
        if len < 4 {
            return Err(Trunc);
        }
        out!(self, " BSRprio={}", g1(bp, 3)?);
        let mut at = 4;
        at += self.pim_fields(
            tail(bp, at),
            len - at,
            alen,
            &[(" BSR=", AddrKind::Unicast)],
        )?;
        let mut i = 0;
        while len > at {
            out!(self, " (group{i}: ");
            at += self.pim_addr(tail(bp, at), len - at, AddrKind::Group, alen)?;
            if len - at < 1 {
                return Err(Trunc);
            }
            out!(self, " RPcnt={}", g1(bp, at)?);
            if len - at < 2 {
                return Err(Trunc);
            }
            let frpcnt = g1(bp, at + 1)?;
            out!(self, " FRPcnt={frpcnt}");
            if len - at < 4 {
                return Err(Trunc);
            }
            at += 4;
            let mut j = 0;
            while j < frpcnt && len > at {
                out!(self, " RP{j}=");
                at += self.pim_addr(tail(bp, at), len - at, AddrKind::Unicast, alen)?;
                if len - at < 2 {
                    return Err(Trunc);
                }
                out!(self, ",holdtime={}", relts(g2(bp, at)? as u32));
                if len - at < 3 {
                    return Err(Trunc);
                }
                out!(self, ",prio={}", g1(bp, at + 2)?);
                if len - at < 4 {
                    return Err(Trunc);
                }
                at += 4;
                j += 1;
            }
            out!(self, ")");
            i += 1;
        }
        Ok(())
    }

    fn pim_assert(&mut self, bp: &[u8], len: usize, alen: usize) -> PResult {
        let fields = [(" group=", AddrKind::Group), (" src=", AddrKind::Unicast)];
        let at = self.pim_fields(bp, len, alen, &fields)?;
        if len - at < 8 {
            return Err(Trunc);
        }
        need(bp, at, 8)?;
        let pref = g4(bp, at)?;
        if pref & 0x8000_0000 != 0 {
            out!(self, " RPT");
        }
        out!(
            self,
            " pref={} metric={}",
            pref & 0x7fff_ffff,
            g4(bp, at + 4)?
        );
        Ok(())
    }

    fn pim_candidate_rp(&mut self, bp: &[u8], len: usize, alen: usize) -> PResult {
        if len < 1 {
            return Err(Trunc);
        }
        let pfxcnt = g1(bp, 0)?;
        out!(self, " prefix-cnt={pfxcnt}");
        if len < 2 {
            return Err(Trunc);
        }
        out!(self, " prio={}", g1(bp, 1)?);
        if len < 4 {
            return Err(Trunc);
        }
        out!(self, " holdtime={}", relts(g2(bp, 2)? as u32));
        let mut at = 4;
        at += self.pim_fields(tail(bp, at), len - at, alen, &[(" RP=", AddrKind::Unicast)])?;
        let mut i = 0;
        while i < pfxcnt && len > at {
            out!(self, " Group{i}=");
            at += self.pim_addr(tail(bp, at), len - at, AddrKind::Group, alen)?;
            i += 1;
        }
        Ok(())
    }

    fn pim_prune_refresh(&mut self, bp: &[u8], len: usize, alen: usize) -> PResult {
        let fields = [
            (" src=", AddrKind::Unicast),
            (" grp=", AddrKind::Group),
            (" forwarder=", AddrKind::Unicast),
        ];
        let at = self.pim_fields(bp, len, alen, &fields)?;
        if len - at < 2 {
            return Err(Trunc);
        }
        out!(self, " TUNR {}", relts(g2(bp, at)? as u32));
        Ok(())
    }

    fn pim_df_election(&mut self, bp: &[u8], len: usize, alen: usize, subtype: u8) -> PResult {
        let name = match subtype {
            1 => "Offer",
            2 => "Winner",
            3 => "Backoff",
            4 => "Pass",
            _ => "Unknown",
        };
        out!(self, "\n\t  {name},");
        let mut at = self.pim_fields(bp, len, alen, &[(" rpa=", AddrKind::Unicast)])?;
        out!(
            self,
            " sender pref={} sender metric={}",
            g4(bp, at)?,
            g4(bp, at + 4)?
        );
        at += 8;
        if subtype == 3 || subtype == 4 {
            let who = if subtype == 3 { "offer" } else { "new winner" };
            out!(self, "\n\t  {who} addr=");
            at += self.pim_addr(
                tail(bp, at),
                len.saturating_sub(at),
                AddrKind::Unicast,
                alen,
            )?;
            out!(
                self,
                " {who} pref={} {who} metric={}",
                g4(bp, at)?,
                g4(bp, at + 4)?
            );
            at += 8;
            if subtype == 3 {
                out!(self, " interval {}ms", g2(bp, at)?);
            }
        }
        Ok(())
    }
}

/// `pimv2_check_checksum` over the first `len` bytes: `None` when they are not
/// all captured.
fn pim_checksum(bp: &[u8], len: usize, ctx: &IpCtx) -> Option<bool> {
    let msg = bp.get(..len)?;
    let sum = if ctx.is_v6() {
        ctx.transport_cksum(103, msg)
    } else {
        netsift_wire::checksum::internet(msg)
    };
    Some(sum == 0)
}
