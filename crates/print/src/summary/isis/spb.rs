//! IEEE 802.1aq shortest path bridging in IS-IS: the sub-TLVs of the
//! multi-topology port capability (143) and capability (144) TLVs.

use crate::summary::{g1, g2, g3, g4, out, PResult, Printer};

/// What one sub-TLV's printer found: `Err` where the list ends early.
type Verdict = PResult<Result<(), Stop>>;

/// How a sub-TLV list ends early, as tcpdump words it.
enum Stop {
    Trunc,
    TooLong,
    TooShort,
}

impl Printer<'_> {
    fn spb_stop(&mut self, s: Stop) {
        match s {
            Stop::Trunc => self.trunc(),
            Stop::TooLong => out!(self, " (> containing TLV length)"),
            Stop::TooShort => out!(self, " (too short)"),
        }
    }

    /// `isis_print_mcid`: an MST configuration identifier (51 bytes) at `t`.
    fn isis_mcid(&mut self, p: &[u8], t: usize) -> PResult {
        out!(self, "ID: {}, Name: ", g1(p, t)?);
        self.jnp(p, t + 1, 32)?;
        out!(self, "\n\t              Lvl: {}", g2(p, t + 33)?);
        out!(self, ", Digest: ");
        for i in 0..16 {
            out!(self, "{:02x} ", g1(p, t + 35 + i)?);
        }
        Ok(())
    }

    /// `isis_print_mt_port_cap_subtlv`.
    pub(super) fn isis_mt_port_cap_subtlv(&mut self, p: &[u8], t: usize, len: usize) -> PResult {
        let name = |st| match st {
            4 => "SPB MCID",
            5 => "SPB Digest",
            6 => "SPB BVID",
            _ => "unknown",
        };
        self.spb_subtlvs(p, t, len, "\n\t       ", name, Self::port_cap_subtlv)
    }

    /// `isis_print_mt_capability_subtlv`.
    pub(super) fn isis_mt_capability_subtlv(&mut self, p: &[u8], t: usize, len: usize) -> PResult {
        let name = |st| match st {
            1 => "SPB Instance",
            3 => "SPBM Service Identifier and Unicast Address",
            _ => "unknown",
        };
        self.spb_subtlvs(p, t, len, "\n\t      ", name, Self::capability_subtlv)
    }

    /// The sub-TLV list both SPB TLVs share: each sub-TLV's header, then
    /// `body` on its value, which must fit the list and the capture.
    fn spb_subtlvs(
        &mut self,
        p: &[u8],
        mut t: usize,
        mut len: usize,
        ident: &str,
        name: fn(u8) -> &'static str,
        body: fn(&mut Self, &[u8], u8, usize, usize) -> Verdict,
    ) -> PResult {
        while len > 2 {
            let st = g1(p, t)?;
            let sl = g1(p, t + 1)? as usize;
            out!(self, "{ident}{} subTLV #{st}, length: {sl}", name(st));
            t += 2;
            len -= 2;
            let r = if len < sl {
                Err(Stop::TooLong)
            } else if p.len() < t + sl {
                Err(Stop::Trunc)
            } else {
                body(self, p, st, t, sl)?
            };
            if let Err(s) = r {
                self.spb_stop(s);
                return Ok(());
            }
            t += sl;
            len -= sl;
        }
        Ok(())
    }

    fn port_cap_subtlv(&mut self, p: &[u8], st: u8, mut t: usize, mut sl: usize) -> Verdict {
        match st {
            4 => {
                if sl < 102 {
                    return Ok(Err(Stop::TooShort));
                }
                out!(self, "\n\t         MCID: ");
                self.isis_mcid(p, t)?;
                out!(self, "\n\t         AUX-MCID: ");
                self.isis_mcid(p, t + 51)?;
            }
            5 => {
                if sl < 33 {
                    return Ok(Err(Stop::TooShort));
                }
                let b = g1(p, t)?;
                let (res, v, a, d) = (b >> 5, (b >> 4) & 1, (b >> 2) & 3, b & 3);
                out!(self, "\n\t        RES: {res} V: {v} A: {a} D: {d}");
                out!(self, "\n\t         Digest: ");
                for i in 1..=8 {
                    out!(self, "{:08x} ", g4(p, t + 1 + 4 * (i - 1))?);
                    if i % 4 == 0 && i != 8 {
                        out!(self, "\n\t                 ");
                    }
                }
            }
            6 => {
                while sl != 0 {
                    if sl < 4 {
                        return Ok(Err(Stop::TooShort));
                    }
                    out!(self, "\n\t           ECT: {:08x}", g4(p, t)?);
                    t += 4;
                    sl -= 4;
                    if sl < 2 {
                        return Ok(Err(Stop::TooShort));
                    }
                    let w = g2(p, t)?;
                    let (bvid, u, m) = (w >> 4, (w >> 3) & 1, (w >> 2) & 1);
                    out!(self, " BVID: {bvid}, U:{u:01x} M:{m:01x} ");
                    t += 2;
                    sl -= 2;
                }
            }
            _ => {}
        }
        Ok(Ok(()))
    }

    fn capability_subtlv(&mut self, p: &[u8], st: u8, mut t: usize, mut sl: usize) -> Verdict {
        match st {
            1 => {
                if sl < 19 {
                    return Ok(Err(Stop::TooShort));
                }
                out!(self, "\n\t        CIST Root-ID: {:08x}", g4(p, t)?);
                out!(self, " {:08x}", g4(p, t + 4)?);
                out!(self, ", Path Cost: {:08x}", g4(p, t + 8)?);
                out!(self, ", Prio: {}", g2(p, t + 12)?);
                let w = g2(p, t + 14)?;
                out!(self, "\n\t        RES: {}", w >> 5);
                out!(self, ", V: {}", (w >> 4) & 1);
                out!(self, ", SPSource-ID: {}", g4(p, t + 14)? & 0x000f_ffff);
                let mut trees = g1(p, t + 18)?;
                out!(self, ", No of Trees: {trees:x}");
                t += 19;
                sl -= 19;
                while trees != 0 {
                    if sl < 8 {
                        return Ok(Err(Stop::Trunc));
                    }
                    let b = g1(p, t)?;
                    let (u, m, a, res) = (b >> 7, (b >> 6) & 1, (b >> 5) & 1, b & 0x1f);
                    out!(self, "\n\t         U:{u}, M:{m}, A:{a}, RES:{res}");
                    out!(self, ", ECT: {:08x}", g4(p, t + 1)?);
                    let v = g3(p, t + 5)?;
                    out!(self, ", BVID: {}, SPVID: {}", (v >> 12) & 0xfff, v & 0xfff);
                    t += 8;
                    sl -= 8;
                    trees -= 1;
                }
            }
            3 => {
                if sl < 8 {
                    return Ok(Err(Stop::Trunc));
                }
                out!(self, "\n\t        BMAC: {:08x}", g4(p, t)?);
                out!(self, "{:04x}", g2(p, t + 4)?);
                let w = g2(p, t + 6)?;
                out!(self, ", RES: {}, VID: {}", w >> 12, w & 0x0fff);
                t += 8;
                sl -= 8;
                while sl >= 4 {
                    let v = g4(p, t)?;
                    let (tb, r, res) = (v >> 31, (v >> 30) & 1, (v >> 24) & 0x3f);
                    out!(
                        self,
                        "\n\t        T: {tb}, R: {r}, RES: {res}, ISID: {}",
                        v & 0x00ff_ffff
                    );
                    t += 4;
                    sl -= 4;
                }
            }
            _ => {}
        }
        Ok(Ok(()))
    }
}
