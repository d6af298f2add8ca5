//! IS-IS traffic engineering: the extended IS reachability TLVs (22, 24,
//! 222), one neighbor each, with their TE, GMPLS, SPB and segment routing
//! sub-TLVs.

use super::isis_id;
use crate::summary::gmpls::{gmpls_encoding, gmpls_switch_cap, mbps, LINK_PROT};
use crate::summary::{
    bit_names, bit_names_or, g1, g2, g3, g4, gv4, name_or, need, out, PResult, Printer, Trunc,
};

fn ext_is_subtlv_name(t: u8) -> &'static str {
    match t {
        3 => "Administrative groups",
        4 => "Link Local/Remote Identifier",
        5 => "Link Remote Identifier",
        6 => "IPv4 interface address",
        8 => "IPv4 neighbor address",
        9 => "Maximum link bandwidth",
        10 => "Reservable link bandwidth",
        11 => "Unreserved bandwidth",
        18 => "Traffic Engineering Metric",
        19 => "Link Attribute",
        20 => "Link Protection Type",
        21 => "Interface Switching Capability",
        12 => "Bandwidth Constraints (old)",
        22 => "Bandwidth Constraints",
        32 => "LAN Adjacency Segment Identifier",
        29 => "SPB Metric",
        250..=254 => "Reserved for cisco specific extensions",
        255 => "Reserved for future expansion",
        _ => "unknown",
    }
}

impl Printer<'_> {
    /// `isis_print_ext_is_reach`: one neighbor of TLV 22, 24 or 222 and its
    /// sub-TLVs; the bytes it took. `Err` where tcpdump's returns 0.
    pub(super) fn isis_ext_is_reach(
        &mut self,
        p: &[u8],
        t: usize,
        ident: &str,
        tlv_type: u8,
        mut rem: usize,
    ) -> PResult<usize> {
        need(p, t, 7)?;
        if rem < 7 {
            return Err(Trunc);
        }
        out!(self, "{ident}IS Neighbor: {}", isis_id(p, t, 7)?);
        let mut tptr = t + 7;
        rem -= 7;
        let mut proc = 7;
        if tlv_type != 24 {
            need(p, tptr, 3)?;
            if rem < 3 {
                return Err(Trunc);
            }
            out!(self, ", Metric: {}", g3(p, tptr)?);
            tptr += 3;
            rem -= 3;
            proc += 3;
        }
        let mut sum_len = g1(p, tptr)? as usize;
        if rem < 1 {
            return Err(Trunc);
        }
        tptr += 1;
        rem -= 1;
        proc += 1;
        out!(
            self,
            ", {}sub-TLVs present",
            if sum_len != 0 { "" } else { "no " }
        );
        if sum_len == 0 {
            return Ok(proc);
        }
        out!(self, " ({sum_len})");
        let ident = format!("{ident}  ");
        while sum_len != 0 {
            need(p, tptr, 2)?;
            if rem < 2 {
                out!(
                    self,
                    "{ident}Remaining data in TLV shorter than a subTLV header"
                );
                proc += rem;
                break;
            }
            if sum_len < 2 {
                out!(
                    self,
                    "{ident}Remaining data in subTLVs shorter than a subTLV header"
                );
                proc += sum_len;
                break;
            }
            let st = p[tptr];
            let sl = p[tptr + 1] as usize;
            tptr += 2;
            rem -= 2;
            sum_len -= 2;
            proc += 2;
            out!(
                self,
                "{ident}{} subTLV #{st}, length: {sl}",
                ext_is_subtlv_name(st)
            );
            if sum_len < sl {
                out!(
                    self,
                    " (remaining data in subTLVs shorter than the current subTLV)"
                );
                proc += sum_len;
                break;
            }
            if rem < sl {
                out!(self, " (> remaining tlv length)");
                proc += rem;
                break;
            }
            need(p, tptr, sl)?;
            let used = self.isis_ext_is_subtlv(p, tptr, st, sl, &ident)?;
            // tcpdump takes what a decoder read off everything but the
            // TLV's remaining length.
            tptr += sl;
            rem -= sl - used;
            sum_len -= sl;
            proc += sl;
        }
        Ok(proc)
    }

    /// One sub-TLV of an extended IS reachability: how many bytes of it the
    /// decoder stepped over itself.
    fn isis_ext_is_subtlv(
        &mut self,
        p: &[u8],
        t: usize,
        st: u8,
        sl: usize,
        ident: &str,
    ) -> PResult<usize> {
        let mut used = 0;
        match st {
            3..=5 => {
                if sl >= 4 {
                    out!(self, ", 0x{:08x}", g4(p, t)?);
                    if sl == 8 {
                        out!(self, ", 0x{:08x}", g4(p, t + 4)?);
                    }
                }
            }
            6 | 8 => {
                if sl >= 4 {
                    let a = self.host4(gv4(p, t)?);
                    out!(self, ", {a}");
                }
            }
            9 | 10 => {
                if sl >= 4 {
                    out!(self, ", {} Mbps", mbps(g4(p, t)?));
                }
            }
            11 => {
                if sl >= 32 {
                    for c in 0..8 {
                        out!(
                            self,
                            "{ident}  TE-Class {c}: {} Mbps",
                            mbps(g4(p, t + 4 * c)?)
                        );
                    }
                    used = 32;
                }
            }
            12 | 22 => {
                if sl != 0 {
                    let m = g1(p, t)?;
                    let n = match m {
                        0 => "Russian dolls",
                        1 => "Maximum allocation",
                        2 => "Maximum allocation with E-LSP support",
                        _ => "unknown",
                    };
                    out!(self, "{ident}Bandwidth Constraints Model ID: {n} ({m})");
                    used = 1;
                    let mut c = 0;
                    while sl - used >= 4 {
                        let bw = mbps(g4(p, t + used)?);
                        out!(self, "{ident}  Bandwidth constraint CT{c}: {bw} Mbps");
                        used += 4;
                        c += 1;
                    }
                }
            }
            18 => {
                if sl >= 3 {
                    out!(self, ", {}", g3(p, t)?);
                }
            }
            19 => {
                if sl == 2 {
                    let v = g2(p, t)?;
                    let b = bit_names_or(
                        v as u32,
                        &[
                            (0x01, "Local Protection Available"),
                            (0x02, "Link excluded from local protection path"),
                            (0x04, "Local maintenance required"),
                        ],
                        "Unknown",
                    );
                    out!(self, ", [ {b} ] (0x{v:04x})");
                }
            }
            20 => {
                if sl >= 2 {
                    let b = bit_names(g1(p, t)? as u32, LINK_PROT);
                    out!(self, ", {b}, Priority {}", g1(p, t + 1)?);
                }
            }
            29 => {
                if sl >= 6 {
                    out!(self, ", LM: {}", g3(p, t)?);
                    out!(self, ", P: {}", g1(p, t + 3)?);
                    out!(self, ", P-ID: {}", g2(p, t + 4)?);
                    used = 4;
                }
            }
            21 => {
                if sl >= 36 {
                    used = self.isis_if_switch_cap(p, t, sl, ident)?;
                }
            }
            32 => {
                if sl >= 8 {
                    self.isis_lan_adj_sid(p, t, sl, ident)?;
                    used = 2;
                }
            }
            _ => {
                if !self.unknown_data(p, t, sl, "\n\t\t    ") {
                    return Err(Trunc);
                }
            }
        }
        Ok(used)
    }

    fn isis_if_switch_cap(&mut self, p: &[u8], t: usize, sl: usize, ident: &str) -> PResult<usize> {
        let cap = g1(p, t)?;
        out!(
            self,
            "{ident}  Interface Switching Capability:{}",
            gmpls_switch_cap(cap)
        );
        out!(self, ", LSP Encoding: {}", gmpls_encoding(g1(p, t + 1)?));
        out!(self, "{ident}  Max LSP Bandwidth:");
        for l in 0..8 {
            let bw = mbps(g4(p, t + 4 + 4 * l)?);
            out!(self, "{ident}    priority level {l}: {bw} Mbps");
        }
        let (c, rem) = (t + 36, sl - 36);
        match cap {
            1..=4 => {
                if rem >= 6 {
                    out!(self, "{ident}  Min LSP Bandwidth: {} Mbps", mbps(g4(p, c)?));
                    out!(self, "{ident}  Interface MTU: {}", g2(p, c + 4)?);
                }
            }
            100 => {
                if rem >= 8 {
                    out!(self, "{ident}  Min LSP Bandwidth: {} Mbps", mbps(g4(p, c)?));
                    let i = g1(p, c + 4)?;
                    let n = name_or(
                        match i {
                            0 => Some("Standard SONET/SDH"),
                            1 => Some("Arbitrary SONET/SDH"),
                            _ => None,
                        },
                        || format!("Unknown ({i})"),
                    );
                    out!(self, "{ident}  Indication {n}");
                }
            }
            _ => {
                if rem != 0 && !self.unknown_data(p, c, rem, "\n\t\t    ") {
                    return Err(Trunc);
                }
            }
        }
        Ok(36)
    }

    fn isis_lan_adj_sid(&mut self, p: &[u8], t: usize, sl: usize, ident: &str) -> PResult {
        let f = g1(p, t)?;
        let b = bit_names(
            f as u32,
            &[
                (0x80, "Address family IPv6"),
                (0x40, "Backup"),
                (0x20, "Value"),
                (0x10, "Local significance"),
                (0x08, "Set of adjacencies"),
                (0x04, "Persistent"),
            ],
        );
        out!(self, "{ident}  Flags: [{b}]");
        let (v, l) = (f & 0x20 != 0, f & 0x10 != 0);
        out!(self, "{ident}  Weight: {}", g1(p, t + 1)?);
        let c = t + 2;
        if sl - 2 >= 6 {
            need(p, c, 6)?;
            out!(self, "{ident}  Neighbor System-ID: {}", isis_id(p, c, 6)?);
        }
        if v && l {
            out!(self, "{ident}  Label: {}", g3(p, c + 6)?);
        } else if !v && !l {
            out!(self, "{ident}  Index: {}", g4(p, c + 6)?);
        } else {
            out!(self, " (invalid)");
        }
        Ok(())
    }
}
