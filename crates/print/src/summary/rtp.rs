//! The audio and video printers of tcpdump's print-udp.c, reached only by
//! `-T vat`, `-T rtp` and `-T rtcp`: `vat_print`, `rtp_print` and
//! `rtcp_print`.

use super::{g2, g4, out, tail, PResult, Printer};

/// tcpdump's `FMAXINT`: 2^32 as a float, the NTP fraction's unit.
const FMAXINT: f64 = 4294967296.0;

impl Printer<'_> {
    /// `vat_print`: LBL's vat (or vt) audio header.
    pub(super) fn vat(&mut self, hdr: &[u8], length: u32) -> PResult {
        self.proto = "vat";
        if length < 2 {
            out!(self, "udp/va/vat, length {length} < 2");
            return Ok(());
        }
        let ts = u32::from(g2(hdr, 0)?);
        if ts & 0xf060 != 0 {
            // Probably vt.
            out!(self, "udp/vt {length} {} / {}", ts & 0x3ff, ts >> 10);
            return Ok(());
        }
        if length < 8 {
            out!(self, "udp/vat, length {length} < 8");
            return Ok(());
        }
        let (i0, i1) = (g4(hdr, 0)?, g4(hdr, 4)?);
        let star = if i0 & 0x80_0000 != 0 { "*" } else { "" };
        out!(self, "udp/vat {} c{} {i1}{star}", length - 8, i0 & 0xffff);
        if i0 & 0x1f_0000 != 0 {
            out!(self, " f{}", (i0 >> 16) & 0x1f);
        }
        if i0 & 0x3f00_0000 != 0 {
            out!(self, " s{}", (i0 >> 24) & 0x3f);
        }
        Ok(())
    }

    /// `rtp_print`: an RTP version 1 or 2 header.
    pub(super) fn rtp(&mut self, hdr: &[u8], len: u32) -> PResult {
        self.proto = "rtp";
        if len < 8 {
            out!(self, "udp/rtp, length {len} < 8");
            return Ok(());
        }
        let (i0, i1) = (g4(hdr, 0)?, g4(hdr, 4)?);
        let mut dlen = len - 8;
        // `ip` walks the header in 32-bit words; `words` is what is left.
        let mut ip = 2usize;
        let mut words = (len >> 2) - 2;
        let (hasopt, hasext, contype, hasmarker, ptype);
        if i0 >> 30 == 1 {
            // Version 1, draft-ietf-avt-rtp-04.
            hasopt = i0 & 0x80_0000 != 0;
            hasext = false;
            contype = (i0 >> 16) & 0x3f;
            hasmarker = i0 & 0x40_0000 != 0;
            ptype = "rtpv1";
        } else {
            // Version 2, RFC 3550.
            if dlen < 4 {
                out!(self, "udp/rtp, length {} < 12", dlen + 8);
                return Ok(());
            }
            hasopt = false;
            hasext = i0 & 0x1000_0000 != 0;
            contype = (i0 >> 16) & 0x7f;
            hasmarker = i0 & 0x80_0000 != 0;
            dlen -= 4;
            ptype = "rtp";
            ip += 1;
            words -= 1;
        }
        out!(
            self,
            "udp/{ptype} {dlen} c{contype} {}{} {} {i1}",
            if hasopt || hasext { "+" } else { "" },
            if hasmarker { "*" } else { "" },
            i0 & 0xffff
        );
        if self.opts.verbose == 0 {
            return Ok(());
        }
        out!(self, " {}", g4(hdr, 8)?);
        if hasopt {
            loop {
                let i2 = g4(hdr, ip * 4)?;
                let optlen = (i2 >> 16) & 0xff;
                if optlen == 0 || optlen > words {
                    out!(self, " !opt");
                    return Ok(());
                }
                ip += optlen as usize;
                words -= optlen;
                if i2 & 0x8000_0000 != 0 {
                    break;
                }
            }
        }
        if hasext {
            let i2 = g4(hdr, ip * 4)?;
            let extlen = (i2 & 0xffff) + 1;
            if extlen > words {
                out!(self, " !ext");
                return Ok(());
            }
            ip += extlen as usize;
        }
        if contype == 0x1f {
            // H.261.
            out!(self, " 0x{:04x}", g4(hdr, ip * 4)? >> 16);
        }
        Ok(())
    }

    /// `-T rtcp`: `rtcp_print` over every RTCP packet of the captured payload.
    pub(super) fn rtcp_all(&mut self, cp: &[u8]) -> PResult {
        let mut at = 0usize;
        while at < cp.len() {
            match self.rtcp(tail(cp, at)) {
                Some(len) => at += len,
                None => break,
            }
        }
        Ok(())
    }

    /// One RTCP packet at the start of `hdr` (captured to its end): its
    /// length, or `None` after tcpdump's marker when it is cut.
    fn rtcp(&mut self, hdr: &[u8]) -> Option<usize> {
        self.proto = "rtcp";
        let r = self.rtcp_fields(hdr);
        if r.is_none() {
            // `nd_print_trunc`: the marker, and the loop ends.
            self.trunc();
            self.caught_trunc = true;
        }
        r
    }

    fn rtcp_fields(&mut self, hdr: &[u8]) -> Option<usize> {
        let flags = u32::from(g2(hdr, 0).ok()?);
        let len = (usize::from(g2(hdr, 2).ok()?) + 1) * 4;
        let ssrc = g4(hdr, 4).ok()?;
        let v = self.opts.verbose > 0;
        let mut cnt = (flags >> 8) & 0x1f;
        // Where the reception reports start.
        let mut rr = 8usize;
        match flags & 0xff {
            200 => {
                out!(self, " sr");
                if len != cnt as usize * 24 + 20 + 8 {
                    out!(self, " [{len}]");
                }
                if v {
                    out!(self, " {ssrc}");
                }
                let ntp = f64::from(g4(hdr, 8).ok()?) + f64::from(g4(hdr, 12).ok()?) / FMAXINT;
                let (ts, np, nb) = (g4(hdr, 16).ok()?, g4(hdr, 20).ok()?, g4(hdr, 24).ok()?);
                out!(self, " @{ntp:.2} {ts} {np}p {nb}b");
                rr = 28;
            }
            201 => {
                out!(self, " rr");
                if len != cnt as usize * 24 + 8 {
                    out!(self, " [{len}]");
                }
                if v {
                    out!(self, " {ssrc}");
                }
            }
            t @ (202 | 203) => {
                let name = if t == 202 { "sdes" } else { "bye" };
                out!(self, " {name} {len}");
                if v {
                    out!(self, " {ssrc}");
                }
                cnt = 0;
            }
            t => {
                out!(self, " type-0x{t:x} {len}");
                cnt = 0;
            }
        }
        if cnt > 1 {
            out!(self, " c{cnt}");
        }
        for _ in 0..cnt {
            let r = hdr.get(rr..rr + 24)?;
            if v {
                out!(self, " {}", g4(r, 0).ok()?);
            }
            let ts = f64::from(g4(r, 16).ok()?) / 65536.0;
            let dts = f64::from(g4(r, 20).ok()?) / 65536.0;
            out!(
                self,
                " {}l {}s {}j @{ts:.2}+{dts:.2}",
                g4(r, 4).ok()? & 0x00ff_ffff,
                g4(r, 8).ok()?,
                g4(r, 12).ok()?
            );
            rr += 24;
        }
        Some(len)
    }
}
