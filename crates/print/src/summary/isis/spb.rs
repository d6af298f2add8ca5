//! IEEE 802.1aq shortest path bridging in IS-IS: the sub-TLVs of the
//! multi-topology port capability (143) and capability (144) TLVs.

use crate::summary::{g1, g2, g3, g4, out, PResult, Printer};

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
        if let Err(s) = self.mt_port_cap_subtlvs(p, t, len)? {
            self.spb_stop(s);
        }
        Ok(())
    }

    fn mt_port_cap_subtlvs(
        &mut self,
        p: &[u8],
        mut t: usize,
        mut len: usize,
    ) -> PResult<Result<(), Stop>> {
        while len > 2 {
            let st = g1(p, t)?;
            let mut sl = g1(p, t + 1)? as usize;
            let n = match st {
                4 => "SPB MCID",
                5 => "SPB Digest",
                6 => "SPB BVID",
                _ => "unknown",
            };
            out!(self, "\n\t       {n} subTLV #{st}, length: {sl}");
            t += 2;
            len -= 2;
            if len < sl {
                return Ok(Err(Stop::TooLong));
            }
            if p.len() < t + sl {
                return Ok(Err(Stop::Trunc));
            }
            match st {
                4 => {
                    if sl < 102 {
                        return Ok(Err(Stop::TooShort));
                    }
                    out!(self, "\n\t         MCID: ");
                    self.isis_mcid(p, t)?;
                    out!(self, "\n\t         AUX-MCID: ");
                    self.isis_mcid(p, t + 51)?;
                    t += 102;
                    len -= 102;
                    sl -= 102;
                }
                5 => {
                    if sl < 33 {
                        return Ok(Err(Stop::TooShort));
                    }
                    let b = g1(p, t)?;
                    out!(
                        self,
                        "\n\t        RES: {} V: {} A: {} D: {}",
                        b >> 5,
                        (b >> 4) & 1,
                        (b >> 2) & 3,
                        b & 3
                    );
                    out!(self, "\n\t         Digest: ");
                    for i in 1..=8 {
                        out!(self, "{:08x} ", g4(p, t + 1 + 4 * (i - 1))?);
                        if i % 4 == 0 && i != 8 {
                            out!(self, "\n\t                 ");
                        }
                    }
                    t += 33;
                    len -= 33;
                    sl -= 33;
                }
                6 => {
                    while sl != 0 {
                        if sl < 4 {
                            return Ok(Err(Stop::TooShort));
                        }
                        out!(self, "\n\t           ECT: {:08x}", g4(p, t)?);
                        t += 4;
                        len -= 4;
                        sl -= 4;
                        if sl < 2 {
                            return Ok(Err(Stop::TooShort));
                        }
                        let w = g2(p, t)?;
                        out!(
                            self,
                            " BVID: {}, U:{:01x} M:{:01x} ",
                            w >> 4,
                            (w >> 3) & 1,
                            (w >> 2) & 1
                        );
                        t += 2;
                        len -= 2;
                        sl -= 2;
                    }
                }
                _ => {}
            }
            t += sl;
            len -= sl;
        }
        Ok(Ok(()))
    }

    /// `isis_print_mt_capability_subtlv`.
    pub(super) fn isis_mt_capability_subtlv(&mut self, p: &[u8], t: usize, len: usize) -> PResult {
        if let Err(s) = self.mt_capability_subtlvs(p, t, len)? {
            self.spb_stop(s);
        }
        Ok(())
    }

    fn mt_capability_subtlvs(
        &mut self,
        p: &[u8],
        mut t: usize,
        mut len: usize,
    ) -> PResult<Result<(), Stop>> {
        while len > 2 {
            let st = g1(p, t)?;
            let mut sl = g1(p, t + 1)? as usize;
            t += 2;
            len -= 2;
            let n = match st {
                1 => "SPB Instance",
                3 => "SPBM Service Identifier and Unicast Address",
                _ => "unknown",
            };
            out!(self, "\n\t      {n} subTLV #{st}, length: {sl}");
            if len < sl {
                return Ok(Err(Stop::TooLong));
            }
            if p.len() < t + sl {
                return Ok(Err(Stop::Trunc));
            }
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
                    len -= 19;
                    sl -= 19;
                    while trees != 0 {
                        if sl < 8 {
                            return Ok(Err(Stop::Trunc));
                        }
                        let b = g1(p, t)?;
                        out!(
                            self,
                            "\n\t         U:{}, M:{}, A:{}, RES:{}",
                            b >> 7,
                            (b >> 6) & 1,
                            (b >> 5) & 1,
                            b & 0x1f
                        );
                        out!(self, ", ECT: {:08x}", g4(p, t + 1)?);
                        let v = g3(p, t + 5)?;
                        out!(self, ", BVID: {}, SPVID: {}", (v >> 12) & 0xfff, v & 0xfff);
                        t += 8;
                        len -= 8;
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
                    len -= 8;
                    sl -= 8;
                    while sl >= 4 {
                        let v = g4(p, t)?;
                        out!(
                            self,
                            "\n\t        T: {}, R: {}, RES: {}, ISID: {}",
                            v >> 31,
                            (v >> 30) & 1,
                            (v >> 24) & 0x3f,
                            v & 0x00ff_ffff
                        );
                        t += 4;
                        len -= 4;
                        sl -= 4;
                    }
                }
                _ => {}
            }
            t += sl;
            len -= sl;
        }
        Ok(Ok(()))
    }
}
