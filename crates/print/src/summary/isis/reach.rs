//! IS-IS reachability: the old-style metric blocks and IPv4 prefixes, the
//! extended IS reachability TLVs (22, 24, 222) with their traffic
//! engineering and segment routing sub-TLVs, the extended IP reachability
//! TLVs (135, 235, 236, 237), multi-topology IDs and the router capability's
//! sub-TLVs.

use super::isis_id;
use crate::summary::transport::mask2plen;
use crate::summary::{
    bit_names, bit_names_or, g1, g2, g3, g4, gv4, name_or, need, out, PResult, Printer, Trunc,
};
use std::net::{Ipv4Addr, Ipv6Addr};

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

fn gmpls_switch_cap(c: u8) -> &'static str {
    match c {
        1 => "Packet-Switch Capable-1",
        2 => "Packet-Switch Capable-2",
        3 => "Packet-Switch Capable-3",
        4 => "Packet-Switch Capable-4",
        51 => "Layer-2 Switch Capable",
        100 => "Time-Division-Multiplex",
        150 => "Lambda-Switch Capable",
        200 => "Fiber-Switch Capable",
        _ => "Unknown",
    }
}

fn gmpls_encoding(e: u8) -> &'static str {
    match e {
        1 => "Packet",
        2 => "Ethernet V2/DIX",
        3 => "ANSI/ETSI PDH",
        4 | 6 | 10 => "Reserved",
        5 => "SDH ITU-T G.707/SONET ANSI T1.105",
        7 => "Digital Wrapper",
        8 => "Lambda (photonic)",
        9 => "Fiber",
        11 => "FiberChannel",
        _ => "Unknown",
    }
}

const GMPLS_LINK_PROT: &[(u32, &str)] = &[
    (0x01, "Extra Traffic"),
    (0x02, "Unprotected"),
    (0x04, "Shared"),
    (0x08, "Dedicated 1:1"),
    (0x10, "Dedicated 1+1"),
    (0x20, "Enhanced"),
    (0x40, "Reserved"),
    (0x80, "Reserved"),
];

/// A bandwidth in bytes per second as an IEEE float, printed in Mbps as
/// tcpdump computes it (in single precision, `%.3f`).
fn mbps(bits: u32) -> String {
    let f = f32::from_bits(bits) * 8.0 / 1_000_000.0;
    if f.is_nan() {
        if f.is_sign_negative() { "-nan" } else { "nan" }.to_string()
    } else if f.is_infinite() {
        if f < 0.0 { "-inf" } else { "inf" }.to_string()
    } else {
        format!("{:.3}", f as f64)
    }
}

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
                    let b = bit_names(g1(p, t)? as u32, GMPLS_LINK_PROT);
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
                if !self.unknown_data(p, t, "\n\t\t    ", sl) {
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
                if rem != 0 && !self.unknown_data(p, c, "\n\t\t    ", rem) {
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
                if !self.unknown_data(p, c, "\n\t\t    ", sl) {
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
                        self.unknown_data(p, sp, "\n\t\t  ", slen as usize);
                    }
                    sp += slen as usize;
                    stl -= slen;
                }
            } else {
                self.unknown_data(p, tptr, "\n\t\t", subl as usize);
            }
            tlen -= subl;
            tptr += subl as usize;
        }
        Ok(())
    }
}
