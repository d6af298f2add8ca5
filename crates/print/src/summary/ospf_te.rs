//! The TLVs of OSPFv2's opaque LSAs as tcpdump prints them: traffic
//! engineering (`ospf_te_lsa_print`, with GMPLS's link descriptors), graceful
//! restart (`ospf_grace_lsa_print`) and router information.

use super::gmpls::{gmpls_encoding, gmpls_switch_cap, mbps, LINK_PROT};
use super::ospf2::put;
use super::{bit_names_or, g1, g2, g4, gv4, need, tail, PResult, Printer};

fn te_subtlv_name(t: u16) -> &'static str {
    match t {
        1 => "Link Type",
        2 => "Link ID",
        3 => "Local Interface IP address",
        4 => "Remote Interface IP address",
        5 => "Traffic Engineering Metric",
        6 => "Maximum Bandwidth",
        7 => "Maximum Reservable Bandwidth",
        8 => "Unreserved Bandwidth",
        9 => "Administrative Group",
        11 => "Link Local/Remote Identifier",
        14 => "Link Protection Type",
        15 => "Interface Switching Capability",
        16 => "Shared Risk Link Group",
        17 => "Bandwidth Constraints",
        _ => "unknown",
    }
}

/// Rounds a TLV length up to OSPF's 32-bit alignment.
fn align4(n: usize) -> usize {
    n.div_ceil(4) * 4
}

impl Printer<'_> {
    /// The body of an opaque LSA of type `otype`: `b` from its first TLV,
    /// `ls_length` long. False when tcpdump stops the LSA early (no `-vv` dump).
    pub(super) fn ospf_opaque_lsa(
        &mut self,
        otype: u8,
        b: &[u8],
        ls_length: usize,
    ) -> PResult<bool> {
        match otype {
            4 => self.ospf_ri_tlvs(b, ls_length),
            3 => self.ospf_grace_tlvs(b, ls_length),
            1 => self.ospf_te_tlvs(b, ls_length),
            _ => {
                if self.opts.verbose <= 1 {
                    self.unknown_data(b, 0, ls_length, "\n\t    ");
                }
                Ok(true)
            }
        }
    }

    fn ospf_ri_tlvs(&mut self, b: &[u8], ls_length: usize) -> PResult<bool> {
        let (mut at, mut left) = (0, ls_length);
        while left != 0 {
            need(b, at, 4)?;
            if left < 4 {
                put!(self, "\n\t    Remaining LS length {left} < 4");
                return Ok(false);
            }
            let t = g2(b, at)?;
            let len = g2(b, at + 2)? as usize;
            at += 4;
            left -= 4;
            let name = if t == 1 {
                "Router Capabilities"
            } else {
                "unknown"
            };
            put!(self, "\n\t    {name} TLV ({t}), length: {len}, value: ");
            if len > left {
                put!(
                    self,
                    "\n\t    Bogus length {len} > remaining LS length {left}"
                );
                return Ok(false);
            }
            need(b, at, len)?;
            if t == 1 {
                if len != 4 {
                    put!(self, "\n\t    Bogus length {len} != 4");
                    return Ok(false);
                }
                const CAPS: [(u32, &str); 10] = [
                    (1, "Reserved"),
                    (2, "Reserved"),
                    (4, "Reserved"),
                    (8, "Reserved"),
                    (16, "graceful restart capable"),
                    (32, "graceful restart helper"),
                    (64, "Stub router support"),
                    (128, "Traffic engineering"),
                    (256, "p2p over LAN"),
                    (512, "path computation server"),
                ];
                let caps = bit_names_or(g4(b, at)?, &CAPS, "Unknown");
                put!(self, "Capabilities: {caps}");
            } else if self.opts.verbose <= 1 {
                self.unknown_data(b, at, len, "\n\t      ");
            }
            at += len;
            left -= len;
        }
        Ok(true)
    }

    /// The type and length of the TLV at `at` with `left` bytes of the LSA
    /// to go; `None` when tcpdump gives up on the LSA (not captured, or too
    /// little left).
    fn opaque_tlv_head(
        &mut self,
        b: &[u8],
        at: usize,
        left: usize,
    ) -> PResult<Option<(u16, usize)>> {
        if need(b, at, 4).is_err() {
            return Ok(None);
        }
        if left < 4 {
            put!(self, "\n\t    Remaining LS length {left} < 4");
            return Ok(None);
        }
        Ok(Some((g2(b, at)?, g2(b, at + 2)? as usize)))
    }

    pub(super) fn ospf_grace_tlvs(&mut self, b: &[u8], ls_length: usize) -> PResult<bool> {
        // tcpdump's unsigned count, which a padded length past the end wraps.
        let (mut at, mut left) = (0usize, ls_length as u32);
        while left > 0 {
            let Some((t, mut len)) = self.opaque_tlv_head(b, at, left as usize)? else {
                return Ok(false);
            };
            at += 4;
            left -= 4;
            let name = match t {
                1 => "Grace Period",
                2 => "Graceful restart Reason",
                3 => "IPv4 interface address",
                _ => "unknown",
            };
            put!(self, "\n\t    {name} TLV ({t}), length {len}, value: ");
            if len > left as usize {
                put!(self, "\n\t    Bogus length {len} > {left}");
                return Ok(false);
            }
            if t == 0 || len == 0 || need(b, at, len).is_err() {
                return Ok(false);
            }
            let want = if t == 2 { 1 } else { 4 };
            if (1..=3).contains(&t) && len != want {
                put!(self, "\n\t    Bogus length {len} != {want}");
                return Ok(false);
            }
            match t {
                1 => put!(self, "{}s", g4(b, at)?),
                2 => {
                    let r = g1(b, at)?;
                    let rn = match r {
                        0 => "Unknown",
                        1 => "Software Restart",
                        2 => "Software Reload/Upgrade",
                        3 => "Control Processor Switch",
                        _ => "Unknown",
                    };
                    put!(self, "{rn} ({r})");
                }
                3 => put!(self, "{}", self.host4(gv4(b, at)?)),
                _ => {
                    if self.opts.verbose <= 1 {
                        self.unknown_data(b, at, len, "\n\t      ");
                    }
                }
            }
            len = align4(len);
            left = left.wrapping_sub(len as u32);
            at += len;
        }
        Ok(true)
    }

    pub(super) fn ospf_te_tlvs(&mut self, b: &[u8], ls_length: usize) -> PResult<bool> {
        let (mut at, mut left) = (0, ls_length);
        while left != 0 {
            let Some((t, mut len)) = self.opaque_tlv_head(b, at, left)? else {
                return Ok(false);
            };
            at += 4;
            left -= 4;
            let name = match t {
                1 => "Router Address",
                2 => "Link",
                _ => "unknown",
            };
            put!(self, "\n\t    {name} TLV ({t}), length: {len}");
            if len > left {
                put!(self, "\n\t    Bogus length {len} > {left}");
                return Ok(false);
            }
            if t == 0 || len == 0 {
                return Ok(false);
            }
            match t {
                2 => {
                    if !self.ospf_te_link(tail(b, at), len)? {
                        return Ok(false);
                    }
                    // tcpdump walks the sub-TLVs with the TLV's own pointer
                    // and count: it moves on from their end without taking
                    // the TLV out of what is left, so it reads past the LSA
                    // until the capture ends.
                    at += len;
                    continue;
                }
                1 => {
                    if len < 4 {
                        put!(self, "\n\t    TLV length {len} < 4");
                        return Ok(false);
                    }
                    put!(self, ", {}", self.host4(gv4(b, at)?));
                }
                _ => {
                    if self.opts.verbose <= 1 {
                        self.unknown_data(b, at, len, "\n\t      ");
                    }
                }
            }
            len = align4(len);
            if len > left {
                put!(self, "\n\t    Bogus padded length {len} > {left}");
                return Ok(false);
            }
            left -= len;
            at += len;
        }
        Ok(true)
    }

    /// The sub-TLVs of a TE Link TLV; false when tcpdump gives up.
    fn ospf_te_link(&mut self, b: &[u8], tlv_len: usize) -> PResult<bool> {
        let (mut at, mut left) = (0, tlv_len);
        while left != 0 {
            if left < 4 {
                put!(self, "\n\t    Remaining TLV length {left} < 4");
                return Ok(false);
            }
            let st = g2(b, at)?;
            let mut slen = g2(b, at + 2)? as usize;
            at += 4;
            left -= 4;
            if st == 0 || slen == 0 {
                put!(self, " (invalid)");
                return Ok(false);
            }
            put!(
                self,
                "\n\t      {} subTLV ({st}), length: {slen}",
                te_subtlv_name(st)
            );
            if left < slen {
                return self.te_link_short(left, slen);
            }
            if need(b, at, slen).is_err() {
                return Ok(false);
            }
            if !self.ospf_te_subtlv(b, at, st, slen)? {
                put!(self, " (invalid)");
                return Ok(false);
            }
            slen = align4(slen);
            if left < slen {
                return self.te_link_short(left, slen);
            }
            left -= slen;
            at += slen;
        }
        Ok(true)
    }

    /// A sub-TLV longer than what is left of its Link TLV: tcpdump says so
    /// and gives up on the LSA.
    fn te_link_short(&mut self, left: usize, slen: usize) -> PResult<bool> {
        put!(
            self,
            "\n\t    Remaining TLV length {} < {}",
            left + 4,
            slen + 4
        );
        Ok(false)
    }

    /// One TE link sub-TLV's value; false for a length tcpdump calls invalid
    /// (after saying why).
    fn ospf_te_subtlv(&mut self, b: &[u8], at: usize, st: u16, slen: usize) -> PResult<bool> {
        macro_rules! bad {
            ($cond:expr, $text:literal) => {
                if $cond {
                    put!(self, $text);
                    return Ok(false);
                }
            };
        }
        match st {
            9 => {
                bad!(slen != 4, " != 4");
                put!(self, ", 0x{:08x}", g4(b, at)?);
            }
            2 | 11 => {
                bad!(slen != 4 && slen != 8, " != 4 && != 8");
                for i in 0..slen / 4 {
                    let v = g4(b, at + 4 * i)?;
                    put!(self, ", {} (0x{v:08x})", self.host4(v.into()));
                }
            }
            3 | 4 => {
                bad!(slen != 4, " != 4");
                put!(self, ", {}", self.host4(gv4(b, at)?));
            }
            6 | 7 => {
                bad!(slen != 4, " != 4");
                put!(self, ", {} Mbps", mbps(g4(b, at)?));
            }
            8 => {
                bad!(slen != 32, " != 32");
                for c in 0..8 {
                    put!(
                        self,
                        "\n\t\tTE-Class {c}: {} Mbps",
                        mbps(g4(b, at + 4 * c)?)
                    );
                }
            }
            17 => {
                bad!(slen < 4, " < 4");
                let m = g1(b, at)?;
                let model = match m {
                    0 => "Russian dolls",
                    1 => "Maximum allocation",
                    2 => "Maximum allocation with E-LSP support",
                    _ => "unknown",
                };
                put!(self, "\n\t\tBandwidth Constraints Model ID: {model} ({m})");
                if !slen.is_multiple_of(4) {
                    put!(self, "\n\t\tlength {slen} != N x 4");
                    return Ok(false);
                }
                if slen > 36 {
                    put!(self, "\n\t\tlength {slen} > 36");
                    return Ok(false);
                }
                for c in 0..(slen - 4) / 4 {
                    let bw = mbps(g4(b, at + 4 + 4 * c)?);
                    put!(self, "\n\t\t  Bandwidth constraint CT{c}: {bw} Mbps");
                }
            }
            5 => {
                bad!(slen != 4, " != 4");
                put!(self, ", Metric {}", g4(b, at)?);
            }
            14 => {
                bad!(slen != 4, " != 4");
                put!(
                    self,
                    ", {}",
                    bit_names_or(g1(b, at)? as u32, LINK_PROT, "none")
                );
            }
            15 => {
                bad!(slen < 36, " < 36");
                put!(
                    self,
                    "\n\t\tInterface Switching Capability: {}",
                    gmpls_switch_cap(g1(b, at)?)
                );
                put!(
                    self,
                    "\n\t\tLSP Encoding: {}\n\t\tMax LSP Bandwidth:",
                    gmpls_encoding(g1(b, at + 1)?)
                );
                for p in 0..8 {
                    let bw = mbps(g4(b, at + 4 + 4 * p)?);
                    put!(self, "\n\t\t  priority level {p}: {bw} Mbps");
                }
            }
            1 => {
                bad!(slen != 1, " != 1");
                let lt = g1(b, at)?;
                let name = match lt {
                    1 => "Point-to-point",
                    2 => "Multi-Access",
                    _ => "unknown",
                };
                put!(self, ", {name} ({lt})");
            }
            16 => {
                bad!(!slen.is_multiple_of(4), " != N x 4");
                let n = slen / 4;
                if n != 0 {
                    put!(self, "\n\t\t  Shared risk group: ");
                }
                for i in 0..n {
                    if i > 0 {
                        put!(self, ", ");
                    }
                    put!(self, "{}", g4(b, at + 4 * i)?);
                }
            }
            _ => {
                if self.opts.verbose <= 1 {
                    self.unknown_data(b, at, slen, "\n\t\t");
                }
            }
        }
        Ok(true)
    }
}
