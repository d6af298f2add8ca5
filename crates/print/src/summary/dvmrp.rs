//! The IGMP messages of multicast routing tools, as tcpdump 4.99 prints
//! them: DVMRP (`dvmrp_print`: probes, reports, neighbor lists, prunes and
//! grafts, what `mrinfo` asks and gets) and `mtrace`/`mresp`
//! (`print_mtrace`).

use super::{g1, g3, g4, gv4, out, relts, PResult, Printer};
use std::net::Ipv4Addr;

const NAMES: [&str; 9] = [
    "Probe",
    "Report",
    "Ask-neighbors(old)",
    "Neighbors(old)",
    "Ask-neighbors2",
    "Neighbors2",
    "Prune",
    "Graft",
    "Graft-ACK",
];

impl Printer<'_> {
    /// `print_mtrace`: a multicast traceroute query or response, `bp` the
    /// IGMP message of `len` bytes.
    pub(super) fn mtrace(&mut self, name: &str, bp: &[u8], len: u32) -> PResult {
        if len < 8 + 16 {
            out!(self, " [invalid len {len}]");
            return Ok(());
        }
        let q = 8;
        let qid = g3(bp, q + 13)?;
        let (src, dst) = (self.host4(gv4(bp, q)?), self.host4(gv4(bp, q + 4)?));
        let raddr = gv4(bp, q + 8)?;
        let r = self.host4(raddr);
        out!(self, "{name} {qid}: {src} to {dst} reply-to {r}");
        if raddr.is_multicast() {
            out!(self, " with-ttl {}", g1(bp, q + 12)?);
        }
        Ok(())
    }

    /// `dvmrp_print`, after `igmp dvmrp`.
    pub(super) fn dvmrp(&mut self, bp: &[u8], len: u32) -> PResult {
        self.proto = "dvmrp";
        let t = g1(bp, 1)?;
        let (p, len) = (super::tail(bp, 8), len as usize - 8);
        match NAMES.get((t as usize).wrapping_sub(1)) {
            Some(n) => out!(self, " {n}"),
            None => out!(self, " [type {t}]"),
        }
        match t {
            1 if self.opts.verbose > 0 => self.dvmrp_probe(p, len),
            2 if self.opts.verbose > 1 => self.dvmrp_report(p, len),
            4 => self.dvmrp_neighbors(p, len),
            6 => {
                // The version is in the IGMP group address field.
                out!(self, " (v {}.{}):", g1(bp, 7)?, g1(bp, 6)?);
                self.dvmrp_neighbors2(p, len)
            }
            7 => {
                self.dvmrp_src_grp(p)?;
                out!(self, " timer {}", relts(g4(p, 8)?));
                Ok(())
            }
            8 | 9 => self.dvmrp_src_grp(p),
            _ => Ok(()),
        }
    }

    fn dvmrp_src_grp(&mut self, p: &[u8]) -> PResult {
        let (s, g) = (self.host4(gv4(p, 0)?), self.host4(gv4(p, 4)?));
        out!(self, " src {s} grp {g}");
        Ok(())
    }

    fn dvmrp_invalid(&mut self) -> PResult {
        out!(self, " (invalid)");
        Ok(())
    }

    fn dvmrp_probe(&mut self, p: &[u8], len: usize) -> PResult {
        if len < 4 {
            out!(self, " [full length {len} < 4]");
            return self.dvmrp_invalid();
        }
        let sep = if self.opts.verbose > 1 { "\n\t" } else { " " };
        out!(self, "{sep}genid {}", g4(p, 0)?);
        if self.opts.verbose < 2 {
            return Ok(());
        }
        let (mut at, mut len) = (4, len - 4);
        while len > 0 {
            if len < 4 {
                out!(self, "[remaining length {len} < 4]");
                return self.dvmrp_invalid();
            }
            let n = self.host4(gv4(p, at)?);
            out!(self, "\n\tneighbor {n}");
            at += 4;
            len -= 4;
        }
        Ok(())
    }

    fn dvmrp_report(&mut self, p: &[u8], len: usize) -> PResult {
        let (mut at, mut len) = (0, len);
        while len > 0 {
            if len < 3 {
                out!(self, " [length {len} < 3]");
                return self.dvmrp_invalid();
            }
            let m = [g1(p, at)?, g1(p, at + 1)?, g1(p, at + 2)?];
            let width = match m {
                [_, _, c] if c != 0 => 4,
                [_, b, _] if b != 0 => 3,
                [a, _, _] if a != 0 => 2,
                _ => 1,
            };
            out!(self, "\n\tMask {}", Ipv4Addr::new(0xff, m[0], m[1], m[2]));
            at += 3;
            len -= 3;
            loop {
                if len < width + 1 {
                    out!(self, "\n\t  [Truncated Report]");
                    return self.dvmrp_invalid();
                }
                let mut o = [0u8; 4];
                for (i, b) in o.iter_mut().take(width).enumerate() {
                    *b = g1(p, at + i)?;
                }
                let metric = g1(p, at + width)?;
                at += width + 1;
                len -= width + 1;
                out!(self, "\n\t  {} metric {}", Ipv4Addr::from(o), metric & 0x7f);
                if metric & 0x80 != 0 {
                    break;
                }
            }
        }
        Ok(())
    }

    fn dvmrp_neighbors(&mut self, p: &[u8], len: usize) -> PResult {
        let (mut at, mut len) = (0, len);
        while len > 0 {
            if len < 7 {
                out!(self, " [length {len} < 7]");
                return self.dvmrp_invalid();
            }
            let laddr = at;
            let (metric, thresh, count) = (g1(p, at + 4)?, g1(p, at + 5)?, g1(p, at + 6)?);
            at += 7;
            len -= 7;
            for _ in 0..count {
                if len < 4 {
                    out!(self, " [length {len} < 4]");
                    return self.dvmrp_invalid();
                }
                let l = self.host4(gv4(p, laddr)?);
                out!(self, " [{l} ->");
                let n = self.host4(gv4(p, at)?);
                out!(self, " {n}, ({metric}/{thresh})]");
                at += 4;
                len -= 4;
            }
        }
        Ok(())
    }

    fn dvmrp_neighbors2(&mut self, p: &[u8], len: usize) -> PResult {
        let (mut at, mut len) = (0, len);
        while len > 0 {
            if len < 8 {
                out!(self, " [length {len} < 8]");
                return self.dvmrp_invalid();
            }
            let laddr = at;
            let (metric, thresh) = (g1(p, at + 4)?, g1(p, at + 5)?);
            let (flags, count) = (g1(p, at + 6)?, g1(p, at + 7)?);
            at += 8;
            len -= 8;
            let mut left = count;
            while left > 0 && len > 0 {
                left -= 1;
                if len < 4 {
                    out!(self, " [length {len} < 4]");
                    return self.dvmrp_invalid();
                }
                let l = self.host4(gv4(p, laddr)?);
                out!(self, " [{l} -> ");
                let n = self.host4(gv4(p, at)?);
                out!(self, "{n} ({metric}/{thresh}");
                for (bit, s) in [
                    (0x01, "/tunnel"),
                    (0x02, "/srcrt"),
                    (0x40, "/querier"),
                    (0x20, "/disabled"),
                    (0x10, "/down"),
                ] {
                    if flags & bit != 0 {
                        out!(self, "{s}");
                    }
                }
                out!(self, ")]");
                at += 4;
                len -= 4;
            }
            // tcpdump's count ends at -1 only when every neighbor was there.
            if left != 0 {
                out!(self, " [invalid ncount]");
                return self.dvmrp_invalid();
            }
        }
        Ok(())
    }
}
