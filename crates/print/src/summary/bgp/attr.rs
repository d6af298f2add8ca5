//! BGP's path attributes as tcpdump 4.99.3's `bgp_attr_print` prints them:
//! ORIGIN, AS_PATH and AS4_PATH, NEXT_HOP, MED, LOCAL_PREF, AGGREGATOR(4),
//! COMMUNITIES, ORIGINATOR_ID, CLUSTER_LIST, MP_REACH/MP_UNREACH_NLRI,
//! EXTENDED_COMMUNITIES, PMSI_TUNNEL, AIGP, LARGE_COMMUNITY and ATTR_SET;
//! others as hex. `Value::Trunc` is tcpdump's `goto trunc`, `Err` its
//! `longjmp`.

use super::super::{bit_names, g1, g2, g3, g4, gv4, gv6, need, out, PResult, Printer};
use super::names;
use super::nlri::{check_add_path, nsap, Family};
use super::update::{attr_len, len_len};

/// How deep tcpdump follows ATTR_SETs inside ATTR_SETs.
const MAX_ATTR_SET_LEVEL: u32 = 10;

impl Printer<'_> {
    /// `bgp_attr_print`: the value of attribute `ty`, `len` bytes at `at`.
    pub(super) fn bgp_attr(
        &mut self,
        m: &[u8],
        ty: u8,
        at: usize,
        len: usize,
        level: u32,
    ) -> PResult<bool> {
        let mut len = len;
        match self.attr_value(m, ty, at, &mut len, level)? {
            Value::Trunc => return Ok(false),
            Value::Done => {}
        }
        if self.opts.verbose > 1 && len != 0 {
            if need(m, at, len).is_err() {
                return Ok(false);
            }
            self.unknown_data(m, at, len, "\n\t    ");
        }
        Ok(true)
    }

    /// The switch of `bgp_attr_print`; `len` is left as tcpdump leaves it
    /// for the hex dump of `-vv`.
    fn attr_value(
        &mut self,
        m: &[u8],
        ty: u8,
        at: usize,
        len: &mut usize,
        level: u32,
    ) -> PResult<Value> {
        let n = *len;
        match ty {
            1 => {
                if n != 1 {
                    out!(self, "invalid len");
                } else {
                    let o = g1(m, at)?;
                    out!(
                        self,
                        "{}",
                        names::ORIGINS.get(o).unwrap_or("Unknown Origin Typecode")
                    );
                }
            }
            2 | 17 => return self.as_path(m, ty, at, n),
            3 | 9 if n != 4 => out!(self, "invalid len"),
            3 | 9 => {
                let h = self.host4(gv4(m, at)?);
                out!(self, "{h}");
            }
            4 | 5 if n != 4 => out!(self, "invalid len"),
            4 | 5 => out!(self, "{}", g4(m, at)?),
            6 if n != 0 => out!(self, "invalid len"),
            6 => {}
            7 | 18 => {
                if !(n == 8 || (n == 6 && ty == 7)) {
                    out!(self, "invalid len");
                    return Ok(Value::Done);
                }
                if need(m, at, n).is_err() {
                    return Ok(Value::Trunc);
                }
                let (asn, ip) = if n == 6 {
                    (u32::from(g2(m, at)?), gv4(m, at + 2)?)
                } else {
                    (g4(m, at)?, gv4(m, at + 4)?)
                };
                let h = self.host4(ip);
                let asn = self.asn(asn);
                out!(self, " AS #{asn}, origin {}", h);
            }
            8 => {
                if !n.is_multiple_of(4) {
                    out!(self, "invalid len");
                    return Ok(Value::Done);
                }
                for off in (0..n).step_by(4) {
                    if need(m, at + off, 4).is_err() {
                        return Ok(Value::Trunc);
                    }
                    match g4(m, at + off)? {
                        0xffff_ff01 => out!(self, " NO_EXPORT"),
                        0xffff_ff02 => out!(self, " NO_ADVERTISE"),
                        0xffff_ff03 => out!(self, " NO_EXPORT_SUBCONFED"),
                        c => out!(
                            self,
                            "{}:{}{}",
                            c >> 16,
                            c & 0xffff,
                            if n - off > 4 { ", " } else { "" }
                        ),
                    }
                }
            }
            10 => {
                if !n.is_multiple_of(4) {
                    out!(self, "invalid len");
                    return Ok(Value::Done);
                }
                for off in (0..n).step_by(4) {
                    let ip = self.host4(gv4(m, at + off)?);
                    out!(self, "{ip}{}", if n - off > 4 { ", " } else { "" });
                }
            }
            14 => return self.mp_reach(m, at, n),
            15 => return self.mp_unreach(m, at, n),
            16 => {
                if !n.is_multiple_of(8) {
                    out!(self, "invalid len");
                    return Ok(Value::Done);
                }
                for off in (0..n).step_by(8) {
                    if need(m, at + off, 8).is_err() {
                        // tcpdump prints the type before it checks the rest.
                        if need(m, at + off, 2).is_ok() {
                            self.ext_community_type(g2(m, at + off)?);
                        }
                        return Ok(Value::Trunc);
                    }
                    self.ext_community_type(g2(m, at + off)?);
                    out!(self, ": ");
                    self.ext_community(m, at + off)?;
                }
            }
            22 => return self.pmsi_tunnel(m, at, n),
            26 => return self.aigp(m, at, n),
            128 => return self.attr_set(m, at, len, level),
            32 => {
                if n == 0 || !n.is_multiple_of(12) {
                    out!(self, "invalid len");
                    return Ok(Value::Done);
                }
                out!(self, "\n\t    ");
                for off in (0..n).step_by(12) {
                    out!(
                        self,
                        "{}:{}:{}{}",
                        g4(m, at + off)?,
                        g4(m, at + off + 4)?,
                        g4(m, at + off + 8)?,
                        if n - off > 12 { ", " } else { "" }
                    );
                }
                *len = 0;
            }
            _ => {
                if need(m, at, n).is_err() {
                    return Ok(Value::Trunc);
                }
                out!(self, "\n\t    no Attribute {ty} decoder");
                if self.opts.verbose <= 1 {
                    self.unknown_data(m, at, n, "\n\t    ");
                }
            }
        }
        Ok(Value::Done)
    }

    /// The type line of an extended community.
    fn ext_community_type(&mut self, ec: u16) {
        out!(
            self,
            "\n\t    {} (0x{ec:04x}), Flags [{}]",
            names::EXT_COMM_SUBTYPES
                .get(ec)
                .unwrap_or("unknown extd community typecode"),
            bit_names(
                u32::from(ec),
                &[(0x8000, "vendor-specific"), (0x4000, "non-transitive")]
            )
        );
    }

    /// AS_PATH and AS4_PATH, with 2- or 4-byte AS numbers as tcpdump guesses.
    fn as_path(&mut self, m: &[u8], ty: u8, at: usize, len: usize) -> PResult<Value> {
        if !len.is_multiple_of(2) {
            out!(self, "invalid len");
            return Ok(Value::Done);
        }
        if len == 0 {
            out!(self, "empty");
            return Ok(Value::Done);
        }
        let size = as_size(m, ty, at, len)?;
        let mut t = at;
        while t < at + len {
            let seg = g1(m, t)?;
            let (open, close) = match seg {
                1 => ("{ ", "}"),
                2 => ("", ""),
                3 => ("( ", ")"),
                4 => ("({ ", "})"),
                _ => ("?", "?"),
            };
            out!(self, "{open}");
            let count = usize::from(g1(m, t + 1)?);
            for i in (0..count * size).step_by(size) {
                if need(m, t + 2 + i, size).is_err() {
                    return Ok(Value::Trunc);
                }
                let asn = if size == 2 {
                    u32::from(g2(m, t + 2 + i)?)
                } else {
                    g4(m, t + 2 + i)?
                };
                let asn = self.asn(asn);
                out!(self, "{asn} ");
            }
            out!(self, "{close}");
            t += 2 + count * size;
        }
        Ok(Value::Done)
    }

    /// The AFI/SAFI line of an MP attribute of `len` bytes at `at`: the
    /// family to decode, or how the attribute ends when tcpdump has none.
    fn mp_family(
        &mut self,
        m: &[u8],
        at: usize,
        len: usize,
    ) -> PResult<Result<(u16, u8, Family), Value>> {
        let (ret, af, safi) = self.mp_af(m, at, len)?;
        Ok(match (ret, super::nlri::family(af, safi)) {
            (-2, _) => Err(Value::Trunc),
            (0, Some(f)) => Ok((af, safi, f)),
            _ => Err(Value::Done),
        })
    }

    /// MP_REACH_NLRI: AFI/SAFI, next hops, SNPAs, then the NLRI.
    fn mp_reach(&mut self, m: &[u8], at: usize, len: usize) -> PResult<Value> {
        if need(m, at, 3).is_err() || len < 3 {
            return Ok(Value::Trunc);
        }
        let (af, safi, family) = match self.mp_family(m, at, len)? {
            Ok(f) => f,
            Err(end) => return Ok(end),
        };
        let mut t = at + 3;
        let mut tlen = len - 3;
        if need(m, t, 1).is_err() || tlen < 1 {
            return Ok(Value::Trunc);
        }
        let nhlen = usize::from(g1(m, t)?);
        t += 1;
        tlen -= 1;
        if nhlen != 0 {
            if tlen < nhlen {
                return Ok(Value::Trunc);
            }
            out!(self, "\n\t    nexthop: ");
            let mut left = nhlen;
            let mut first = true;
            while left != 0 {
                if !first {
                    out!(self, ", ");
                }
                first = false;
                let used = match self.next_hop(m, family, t, left)? {
                    Hop::Used(used) => used,
                    Hop::Invalid => {
                        out!(self, "invalid len");
                        left
                    }
                    Hop::Trunc => return Ok(Value::Trunc),
                };
                t += used;
                tlen -= used;
                left -= used;
            }
        }
        out!(self, ", nh-length: {nhlen}");
        if tlen < 1 {
            return Ok(Value::Trunc);
        }
        let snpa = g1(m, t)?;
        t += 1;
        tlen -= 1;
        if snpa != 0 {
            out!(self, "\n\t    {snpa} SNPA");
            for _ in 0..snpa {
                if tlen < 1 {
                    return Ok(Value::Trunc);
                }
                let n = usize::from(g1(m, t)?);
                out!(self, "\n\t      {n} bytes");
                t += 1;
                tlen -= 1;
                if tlen < n || need(m, t, n).is_err() {
                    return Ok(Value::Trunc);
                }
                t += n;
                tlen -= n;
            }
        } else {
            out!(self, ", no SNPA");
        }
        self.nlris(m, af, safi, at, t, len)
    }

    /// One next hop of `family` at `t`, `left` bytes of them left.
    fn next_hop(&mut self, m: &[u8], family: Family, t: usize, left: usize) -> PResult<Hop> {
        use Family::*;
        let need_len = match family {
            Inet | InetLabeled | InetRtc | InetMvpn | InetMdt | L2Vpn => 4,
            InetVpn => 12,
            Inet6 | Inet6Labeled => 16,
            Inet6Vpn => 24,
            Nsap => 0,
            NsapVpn => 9,
            Inet6Mvpn => 0,
        };
        if left < need_len {
            return Ok(Hop::Invalid);
        }
        match family {
            Inet | InetLabeled | InetRtc | InetMvpn | InetMdt | L2Vpn => {
                let h = self.host4(gv4(m, t)?);
                out!(self, "{}", h);
            }
            InetVpn => {
                let rd = self.rd(m, t)?;
                let h = self.host4(gv4(m, t + 8)?);
                out!(self, "RD: {rd}, {}", h);
            }
            Inet6 | Inet6Labeled => {
                let h = self.host6(gv6(m, t)?);
                out!(self, "{h}");
            }
            Inet6Vpn => {
                let rd = self.rd(m, t)?;
                let h = self.host6(gv6(m, t + 8)?);
                out!(self, "RD: {rd}, {}", h);
            }
            Nsap | Inet6Mvpn => {
                need(m, t, left)?;
                out!(self, "{}", nsap(&m[t..], left));
                return Ok(Hop::Used(left));
            }
            NsapVpn => {
                if need(m, t, left).is_err() {
                    return Ok(Hop::Trunc);
                }
                let rd = self.rd(m, t)?;
                need(m, t + 8, left - 8)?;
                out!(self, "RD: {rd}, {}", nsap(&m[t + 8..], left - 8));
                if g4(m, t + 8)? == 0x4700_0601 {
                    let h = self.host4(gv4(m, t + 12)?);
                    out!(self, " = {}", h);
                } else if g3(m, t + 8)? == 0x35_0000 {
                    let h = self.host6(gv6(m, t + 11)?);
                    out!(self, " = {}", h);
                }
                return Ok(Hop::Used(left));
            }
        }
        Ok(Hop::Used(need_len))
    }

    /// MP_UNREACH_NLRI: AFI/SAFI, then the withdrawn NLRI.
    fn mp_unreach(&mut self, m: &[u8], at: usize, len: usize) -> PResult<Value> {
        if need(m, at, 3).is_err() {
            return Ok(Value::Trunc);
        }
        let (af, safi) = match self.mp_family(m, at, len)? {
            Ok((af, safi, _)) => (af, safi),
            Err(end) => return Ok(end),
        };
        if len == 3 {
            out!(self, "\n\t      End-of-Rib Marker (empty NLRI)");
        }
        self.nlris(m, af, safi, at, at + 3, len)
    }

    /// The NLRI from `t` to the end of the attribute at `at`, `len` bytes.
    fn nlris(
        &mut self,
        m: &[u8],
        af: u16,
        safi: u8,
        at: usize,
        t: usize,
        len: usize,
    ) -> PResult<Value> {
        // tcpdump's unsigned arithmetic: past the end makes a huge length.
        let rest = (len as u32).wrapping_sub((t - at) as u32);
        let add_path4 = check_add_path(m, t, rest, 32);
        let add_path6 = check_add_path(m, t, rest, 128);
        let mut t = t;
        while t < at + len {
            match self.nlri(m, af, safi, t, len as u32, add_path4, add_path6)? {
                -2 => return Ok(Value::Trunc),
                a if a < 0 => break,
                a => t += a as usize,
            }
        }
        Ok(Value::Done)
    }

    /// PMSI_TUNNEL: flags, tunnel type, label and the tunnel's identifier.
    fn pmsi_tunnel(&mut self, m: &[u8], at: usize, len: usize) -> PResult<Value> {
        if need(m, at, 5).is_err() || len < 5 {
            return Ok(Value::Trunc);
        }
        let (flags, tt) = (g1(m, at)?, g1(m, at + 1)?);
        out!(
            self,
            "\n\t    Tunnel-type {} ({tt}), Flags [{}], MPLS Label {}",
            names::PMSI_TUNNELS.get(tt).unwrap_or("Unknown"),
            bit_names(u32::from(flags), &[(1, "Leaf Information required")]),
            g3(m, at + 2)? >> 4
        );
        let t = at + 5;
        let ip = |p: &Self, off: usize| -> PResult<String> { Ok(p.host4(gv4(m, t + off)?)) };
        match tt {
            4 | 5 => {
                let (s, g) = (ip(self, 0)?, ip(self, 4)?);
                out!(self, "\n\t      Sender {s}, P-Group {g}");
            }
            3 => {
                let (s, g) = (ip(self, 0)?, ip(self, 4)?);
                out!(self, "\n\t      Root-Node {s}, P-Group {g}");
            }
            6 => {
                let e = ip(self, 0)?;
                out!(self, "\n\t      Tunnel-Endpoint {e}");
            }
            2 | 7 => {
                let r = ip(self, 0)?;
                out!(
                    self,
                    "\n\t      Root-Node {r}, LSP-ID 0x{:08x}",
                    g4(m, t + 4)?
                );
            }
            1 => {
                let r = ip(self, 0)?;
                out!(
                    self,
                    "\n\t      Extended-Tunnel-ID {r}, P2MP-ID 0x{:08x}",
                    g4(m, t + 4)?
                );
            }
            _ => {
                if self.opts.verbose <= 1 {
                    self.unknown_data(m, t, len - 5, "\n\t      ");
                }
            }
        }
        Ok(Value::Done)
    }

    /// AIGP: its TLVs.
    fn aigp(&mut self, m: &[u8], at: usize, len: usize) -> PResult<Value> {
        let (mut t, mut tlen) = (at, len);
        while tlen >= 3 {
            let ty = g1(m, t)?;
            let length = usize::from(g2(m, t + 1)?);
            t += 3;
            tlen -= 3;
            out!(
                self,
                "\n\t    {} TLV ({ty}), length {length}",
                if ty == 1 { "AIGP" } else { "Unknown" }
            );
            if length < 3 || tlen < length - 3 {
                return Ok(Value::Trunc);
            }
            let length = length - 3;
            if ty == 1 {
                if length < 8 {
                    return Ok(Value::Trunc);
                }
                let metric = (u64::from(g4(m, t)?) << 32) | u64::from(g4(m, t + 4)?);
                out!(self, ", metric {metric}");
            } else if self.opts.verbose <= 1 {
                self.unknown_data(m, t, length, "\n\t      ");
            }
            t += length;
            tlen -= length;
        }
        Ok(Value::Done)
    }

    /// ATTR_SET: the origin AS and the attributes inside, to a depth of 10.
    fn attr_set(&mut self, m: &[u8], at: usize, len: &mut usize, level: u32) -> PResult<Value> {
        if need(m, at, 4).is_err() || *len < 4 {
            return Ok(Value::Trunc);
        }
        let origin = self.asn(g4(m, at)?);
        out!(self, "\n\t    Origin AS: {origin}");
        let mut t = at + 4;
        *len -= 4;
        while *len != 0 {
            if need(m, t, 2).is_err() {
                return Ok(Value::Trunc);
            }
            if *len < 2 {
                out!(self, " [path attr too short]");
                break;
            }
            let (flags, ty) = (g1(m, t)?, g1(m, t + 1)?);
            t += 2;
            *len -= 2;
            let lenlen = len_len(flags);
            if need(m, t, lenlen).is_err() {
                return Ok(Value::Trunc);
            }
            if *len < lenlen {
                out!(self, " [path attr too short]");
                break;
            }
            let alen = attr_len(m, t, flags)?;
            t += lenlen;
            *len -= lenlen;
            self.attr_line("\n\t      ", ty, alen, flags);
            out!(self, ": ");
            if *len < alen {
                out!(self, " [path attr too short]");
                break;
            }
            if level == MAX_ATTR_SET_LEVEL {
                out!(self, "(too many nested levels, not recursing)");
            } else if !self.bgp_attr(m, ty, t, alen, level + 1)? {
                return Ok(Value::Trunc);
            }
            t += alen;
            *len -= alen;
        }
        Ok(Value::Done)
    }
}

/// What the switch of `bgp_attr_print` ends with.
enum Value {
    /// Break: on to the hex dump of `-vv`.
    Done,
    /// `goto trunc`: return 0.
    Trunc,
}

/// How a next hop of MP_REACH_NLRI was read.
enum Hop {
    /// This many bytes.
    Used(usize),
    /// Too few bytes left for one: tcpdump's `invalid len`, the rest skipped.
    Invalid,
    /// `goto trunc`.
    Trunc,
}

/// `bgp_attr_get_as_size`: 2 when the path parses with 2-byte AS numbers.
fn as_size(m: &[u8], ty: u8, at: usize, len: usize) -> PResult<usize> {
    if ty == 17 {
        return Ok(4);
    }
    let mut t = at;
    while t < at + len {
        let seg = g1(m, t)?;
        if !(1..=4).contains(&seg) {
            return Ok(4);
        }
        t += 2 + usize::from(g1(m, t + 1)?) * 2;
    }
    Ok(if t == at + len { 2 } else { 4 })
}
