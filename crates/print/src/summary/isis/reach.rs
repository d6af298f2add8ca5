//! IS-IS reachability: the old-style metric blocks and IPv4 prefixes, the
//! extended IP reachability TLVs (135, 235, 236, 237) with their tag and
//! prefix SID sub-TLVs, multi-topology IDs and the router capability's
//! sub-TLVs. The extended IS reachability TLVs are in `te.rs`.

use crate::summary::transport::mask2plen;
use crate::summary::{
    bit_names, bit_names_or, g1, g2, g3, g4, gv4, need, out, PResult, Printer, Trunc,
};
use std::net::{Ipv4Addr, Ipv6Addr};

fn ie(b: u8) -> &'static str {
    if b & 0x40 != 0 {
        "External"
    } else {
        "Internal"
    }
}

impl Printer<'_> {
    /// `isis_print_metric_block`: the four metrics at `t`.
    pub(super) fn isis_metric_block(&mut self, p: &[u8], t: usize) -> PResult {
        let d = g1(p, t)?;
        out!(self, ", Default Metric: {}, {}", d & 0x3f, ie(d));
        for (i, name) in ["Delay", "Expense", "Error"].into_iter().enumerate() {
            let m = g1(p, t + 1 + i)?;
            if m & 0x80 == 0 {
                out!(self, "\n\t\t  {name} Metric: {}, {}", m & 0x3f, ie(m));
            }
        }
        Ok(())
    }

    /// `isis_print_tlv_ip_reach`: false where tcpdump's returns 0 (and so
    /// `isis_print` returns without a word).
    pub(super) fn isis_tlv_ip_reach(
        &mut self,
        p: &[u8],
        mut t: usize,
        ident: &str,
        mut length: usize,
    ) -> PResult<bool> {
        while length > 0 {
            if length < 12 {
                out!(self, "short IPv4 Reachability ({length} vs 12)");
                return Ok(false);
            }
            if need(p, t, 12).is_err() {
                return Ok(false);
            }
            let prefix = self.host4(gv4(p, t + 4)?);
            let mask = g4(p, t + 8)?;
            match mask2plen(mask) {
                -1 => {
                    let m = self.host4(Ipv4Addr::from(mask));
                    out!(self, "{ident}IPv4 prefix: {prefix} mask {m}");
                }
                n => out!(self, "{ident}IPv4 prefix: {prefix:>15}/{n}"),
            }
            let d = p[t];
            let updown = if d & 0x80 != 0 { "down" } else { "up" };
            out!(
                self,
                ", Distribution: {updown}, Metric: {}, {}",
                d & 0x3f,
                ie(d)
            );
            for (i, name) in ["Delay", "Expense", "Error"].into_iter().enumerate() {
                let m = p[t + 1 + i];
                if m & 0x80 == 0 {
                    out!(self, "{ident}  {name} Metric: {}, {}", m & 0x3f, ie(m));
                }
            }
            length -= 12;
            t += 12;
        }
        Ok(true)
    }

    /// `isis_print_mtid`: the topology of an MT TLV; its 2 bytes.
    pub(super) fn isis_mtid(
        &mut self,
        p: &[u8],
        t: usize,
        ident: &str,
        rem: usize,
    ) -> PResult<usize> {
        if rem < 2 {
            return Err(Trunc);
        }
        let w = g2(p, t)?;
        let id = w & 0x0fff;
        let n = match id {
            0 => "IPv4 unicast",
            1 => "In-Band Management",
            2 => "IPv6 unicast",
            3 => "Multicast",
            4095 => "Development, Experimental or Proprietary",
            _ => "Reserved for IETF Consensus",
        };
        let f = bit_names(
            (w & 0xf000) as u32,
            &[(0x4000, "ATT bit set"), (0x8000, "Overload bit set")],
        );
        out!(self, "{ident}{n} Topology (0x{id:03x}), Flags: [{f}]");
        Ok(2)
    }

    /// `isis_print_extd_ip_reach`: one prefix of TLV 135, 235, 236 or 237;
    /// the bytes it took. `Err` where tcpdump's returns 0.
    pub(super) fn isis_extd_ip_reach(
        &mut self,
        p: &[u8],
        t: usize,
        ident: &str,
        v6: bool,
    ) -> PResult<usize> {
        let metric = g4(p, t)?;
        let mut tptr = t + 4;
        let mut processed = 4;
        let status = g1(p, tptr)?;
        let bit_length = if v6 {
            let b = g1(p, tptr + 1)? as usize;
            if b > 128 {
                out!(self, "{ident}IPv6 prefix: bad bit length {b}");
                return Err(Trunc);
            }
            tptr += 2;
            processed += 2;
            b
        } else {
            let b = (status & 0x3f) as usize;
            if b > 32 {
                out!(self, "{ident}IPv4 prefix: bad bit length {b}");
                return Err(Trunc);
            }
            tptr += 1;
            processed += 1;
            b
        };
        let byte_length = bit_length.div_ceil(8);
        need(p, tptr, byte_length)?;
        let mut prefix = [0u8; 16];
        prefix[..byte_length].copy_from_slice(&p[tptr..tptr + byte_length]);
        tptr += byte_length;
        processed += byte_length;
        if v6 {
            let a = self.host6(Ipv6Addr::from(prefix));
            out!(self, "{ident}IPv6 prefix: {a}/{bit_length}");
        } else {
            let a = self.host4(Ipv4Addr::new(prefix[0], prefix[1], prefix[2], prefix[3]));
            out!(self, "{ident}IPv4 prefix: {a:>15}/{bit_length}");
        }
        let updown = if status & 0x80 != 0 { "down" } else { "up" };
        out!(self, ", Distribution: {updown}, Metric: {metric}");
        let subtlvs = if v6 {
            let s = status & 0x20 != 0;
            let sub = if s { ", sub-TLVs present" } else { "" };
            out!(self, ", {}{sub}", ie(status));
            s
        } else {
            let s = status & 0x40 != 0;
            if s {
                out!(self, ", sub-TLVs present");
            }
            s
        };
        if subtlvs {
            let sublen = g1(p, tptr)?;
            tptr += 1;
            processed += sublen as usize + 1;
            out!(self, " ({sublen})");
            let ident = format!("{ident}  ");
            // tcpdump's count may wrap; the reads then end at the capture.
            let mut sublen = sublen as u32;
            while sublen > 0 {
                let st = g1(p, tptr)?;
                let sl = g1(p, tptr + 1)?;
                tptr += 2;
                self.isis_ip_reach_subtlv(p, tptr, st, sl as usize, &ident)?;
                tptr += sl as usize;
                sublen = sublen.wrapping_sub(sl as u32 + 2);
            }
        }
        Ok(processed)
    }

    /// `isis_print_ip_reach_subtlv`.
    fn isis_ip_reach_subtlv(
        &mut self,
        p: &[u8],
        t: usize,
        st: u8,
        mut sl: usize,
        ident: &str,
    ) -> PResult {
        let n = match st {
            1 => "32-Bit Administrative tag",
            2 => "64-Bit Administrative tag",
            3 => "Prefix SID",
            117 => "Management Prefix Color",
            _ => "unknown",
        };
        out!(self, "{ident}{n} subTLV #{st}, length: {sl}");
        if need(p, t, sl).is_err() {
            self.trunc();
            return Err(Trunc);
        }
        let mut c = t;
        match st {
            1 | 117 => {
                while sl >= 4 {
                    let v = g4(p, c)?;
                    out!(self, ", 0x{v:08x} (={v})");
                    c += 4;
                    sl -= 4;
                }
            }
            2 => {
                while sl >= 8 {
                    out!(self, ", 0x{:08x}{:08x}", g4(p, c)?, g4(p, c + 4)?);
                    c += 8;
                    sl -= 8;
                }
            }
            3 => {
                let flags = g1(p, c)?;
                let algo = g1(p, c + 1)?;
                let value = flags & 0x08 != 0;
                let sid = if value {
                    if sl < 5 {
                        self.trunc();
                        return Err(Trunc);
                    }
                    g3(p, c + 2)?
                } else {
                    if sl < 6 {
                        self.trunc();
                        return Err(Trunc);
                    }
                    g4(p, c + 2)?
                };
                let f = bit_names_or(
                    flags as u32,
                    &[
                        (0x80, "Readvertisement"),
                        (0x40, "Node"),
                        (0x20, "No-PHP"),
                        (0x10, "Explicit NULL"),
                        (0x08, "Value"),
                        (0x04, "Local"),
                    ],
                    "None",
                );
                let an = match algo {
                    0 => "SPF",
                    1 => "strict-SPF",
                    _ => "Unknown",
                };
                let what = if value { "label" } else { "index" };
                out!(self, ", Flags [{f}], Algo {an} ({algo}), {what} {sid}");
            }
            _ => {
                if !self.unknown_data(p, c, sl, "\n\t\t    ") {
                    return Err(Trunc);
                }
            }
        }
        Ok(())
    }

    /// `isis_print_router_cap_subtlv`.
    pub(super) fn isis_router_cap_subtlv(&mut self, p: &[u8], t: usize, mut tlen: u8) -> PResult {
        let mut tptr = t;
        while tlen >= 2 {
            let subt = g1(p, tptr)?;
            let subl = g1(p, tptr + 1)?;
            tlen -= 2;
            tptr += 2;
            let n = if subt == 2 {
                "SR-Capabilities"
            } else {
                "unknown"
            };
            out!(self, "\n\t\t{n} subTLV #{subt}, length: {subl}");
            if subl > tlen {
                break;
            }
            if need(p, tptr, subl as usize).is_err() {
                return Ok(());
            }
            if subt == 2 {
                let flags = g1(p, tptr)?;
                let range = g3(p, tptr + 1)?;
                let f = bit_names_or(flags as u32, &[(0x80, "ipv4"), (0x40, "ipv6")], "None");
                out!(self, ", Flags [{f}], Range {range}");
                let mut sp = tptr + 4;
                // Wraps as tcpdump's does when the sub-TLV is shorter than 4.
                let mut stl = subl.wrapping_sub(4);
                while stl >= 5 {
                    let stype = g1(p, sp)?;
                    let slen = g1(p, sp + 1)?;
                    stl -= 2;
                    sp += 2;
                    if slen > stl {
                        break;
                    }
                    if stype == 1 {
                        match slen {
                            3 => out!(self, ", SID value {}", g3(p, sp)?),
                            4 => out!(self, ", SID value {}", g4(p, sp)?),
                            _ => out!(self, ", Unknown SID length{slen}"),
                        }
                    } else {
                        self.unknown_data(p, sp, slen as usize, "\n\t\t  ");
                    }
                    sp += slen as usize;
                    stl -= slen;
                }
            } else {
                self.unknown_data(p, tptr, subl as usize, "\n\t\t");
            }
            tlen -= subl;
            tptr += subl as usize;
        }
        Ok(())
    }
}
