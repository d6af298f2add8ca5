//! BGP's NLRI as tcpdump 4.99.3 decodes them (`bgp_nlri_print` and the
//! `decode_*` functions): IPv4 and IPv6 prefixes (with ADD-PATH path ids),
//! labeled and VPN prefixes, route target membership, MDT, multicast VPN,
//! L2VPN/VPLS and CLNP prefixes; route distinguishers and extended
//! communities. The decoders return tcpdump's `int`: the bytes read, or -1 (a
//! bad prefix length), -2 (truncated) or -3 (the item is too short); their
//! text goes into a [`Buf`] as tcpdump's `snprintf` would.

use super::super::{g1, g2, g3, g4, gv4, gv6, need, out, PResult, Printer};
use super::names::{self, af_name, safi_name};
use std::fmt::Write;
use std::net::{Ipv4Addr, Ipv6Addr};

pub(super) const AFI_INET: u16 = 1;
pub(super) const AFI_INET6: u16 = 2;
pub(super) const AFI_NSAP: u16 = 3;
pub(super) const AFI_VPLS: u16 = 25;
pub(super) const AFI_L2VPN: u16 = 196;

/// What an AFI/SAFI pair decodes as, tcpdump's `af<<8 | safi` cases.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Family {
    Inet,
    InetLabeled,
    InetVpn,
    InetRtc,
    InetMvpn,
    InetMdt,
    Inet6,
    Inet6Labeled,
    Inet6Vpn,
    Inet6Mvpn,
    Nsap,
    NsapVpn,
    L2Vpn,
}

/// The family of `af`/`safi` among those tcpdump decodes.
pub(super) fn family(af: u16, safi: u8) -> Option<Family> {
    use Family::*;
    Some(match (af, safi) {
        (AFI_INET, 1..=3) => Inet,
        (AFI_INET, 4) => InetLabeled,
        (AFI_INET, 128..=130) => InetVpn,
        (AFI_INET, 132) => InetRtc,
        (AFI_INET, 5) => InetMvpn,
        (AFI_INET, 66) => InetMdt,
        (AFI_INET6, 1..=3) => Inet6,
        (AFI_INET6, 4) => Inet6Labeled,
        (AFI_INET6, 128..=130) => Inet6Vpn,
        // Decoded as an NLRI, though bgp_mp_af_print turns it away first.
        (AFI_INET6, 5) => Inet6Mvpn,
        (AFI_NSAP, 1..=3) => Nsap,
        (AFI_NSAP, 128..=130) => NsapVpn,
        (AFI_L2VPN, 128..=130) | (AFI_VPLS, 65) => L2Vpn,
        _ => return None,
    })
}

/// tcpdump's `char buf[MAXHOSTNAMELEN + 100]` written with `snprintf` and
/// `UPDATE_BUF_BUFLEN`: text past 163 bytes is cut, and `left` is tcpdump's
/// `buflen` (0 once a write did not fit).
pub(super) struct Buf {
    pub(super) s: String,
    left: usize,
}

impl Buf {
    pub(super) fn new() -> Buf {
        Buf {
            s: String::new(),
            left: 164,
        }
    }

    fn full(&self) -> bool {
        self.left == 0
    }
}

impl Write for Buf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.left == 0 {
            return Ok(());
        }
        let mut n = s.len().min(self.left - 1);
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        self.s.push_str(&s[..n]);
        self.left = self.left.saturating_sub(s.len());
        Ok(())
    }
}

/// The first `(plen + 7) / 8` bytes at `at` in an `N`-byte address, the bits
/// past `plen` cleared; the read fails as tcpdump's `GET_CPY_BYTES` does.
fn prefix<const N: usize>(m: &[u8], at: usize, plen: u32) -> PResult<[u8; N]> {
    let n = plen.div_ceil(8) as usize;
    need(m, at, n)?;
    let mut a = [0u8; N];
    a[..n].copy_from_slice(&m[at..at + n]);
    if !plen.is_multiple_of(8) {
        a[n - 1] &= (0xff00u32 >> (plen % 8)) as u8;
    }
    Ok(a)
}

/// `(bottom)` or tcpdump's complaint, from the label's last byte.
fn bottom(b: u8) -> &'static str {
    if b & 1 == 0 {
        "(BOGUS: Bottom of Stack NOT set!)"
    } else {
        "(bottom)"
    }
}

/// `isonsap_string` of `n` bytes of `a`.
pub(super) fn nsap(a: &[u8], n: usize) -> String {
    if !(1..=20).contains(&n) || n > a.len() {
        return "isonsap_string: illegal length".to_string();
    }
    let mut s = String::new();
    for (i, b) in a[..n].iter().enumerate() {
        let _ = write!(s, "{b:02x}");
        if i % 2 == 0 && i + 1 < n {
            s.push('.');
        }
    }
    s
}

/// tcpdump's scan for ADD-PATH path ids in `length` bytes at `at`: whether
/// the prefixes make sense with them and not without.
pub(super) fn check_add_path(m: &[u8], at: usize, length: u32, max: u32) -> bool {
    let length = u64::from(length);
    if length < 5 {
        return false;
    }
    let byte = |off: u64| {
        usize::try_from(off)
            .ok()
            .and_then(|o| m.get(at.checked_add(o)?))
    };
    let mut off = 0u64;
    while off < length {
        off += 4;
        let Some(&pl) = byte(off) else { break };
        if u32::from(pl) > max {
            return false;
        }
        off += 1 + u64::from(pl).div_ceil(8);
    }
    if off > length {
        return false;
    }
    off = 0;
    while off < length {
        let Some(&pl) = byte(off) else { break };
        if pl < 1 || u32::from(pl) > max {
            return true;
        }
        off += 1 + u64::from(pl).div_ceil(8);
    }
    off > length
}

impl Printer<'_> {
    /// `decode_prefix4` and `decode_prefix6`.
    pub(super) fn prefix(
        &self,
        m: &[u8],
        at: usize,
        itemlen: u32,
        v6: bool,
        buf: &mut Buf,
    ) -> PResult<i32> {
        if itemlen < 1 {
            return Ok(-2);
        }
        let plen = u32::from(g1(m, at)?);
        if plen > if v6 { 128 } else { 32 } {
            return Ok(-1);
        }
        let bytes = plen.div_ceil(8);
        if itemlen - 1 < bytes {
            return Ok(-2);
        }
        let addr = if v6 {
            self.host6(Ipv6Addr::from(prefix::<16>(m, at + 1, plen)?))
        } else {
            self.host4(Ipv4Addr::from(prefix::<4>(m, at + 1, plen)?))
        };
        let _ = write!(buf, "{addr}/{plen}");
        Ok(1 + bytes as i32)
    }

    /// `decode_labeled_prefix4` and `decode_labeled_prefix6` (which does not
    /// check the prefix fits the item).
    fn labeled_prefix(
        &self,
        m: &[u8],
        at: usize,
        itemlen: u32,
        v6: bool,
        buf: &mut Buf,
    ) -> PResult<i32> {
        if need(m, at, 4).is_err() {
            return Ok(-2);
        }
        if itemlen < 4 {
            return Ok(-3);
        }
        let plen = u32::from(g1(m, at)?);
        if plen < 24 {
            return Ok(-1);
        }
        let plen = plen - 24;
        let bytes = plen.div_ceil(8);
        let addr = if v6 {
            if plen > 128 {
                return Ok(-1);
            }
            let a: [u8; 16] = prefix(m, at + 4, plen)?;
            self.host6(Ipv6Addr::from(a))
        } else {
            if plen > 32 {
                return Ok(-1);
            }
            if itemlen - 4 < bytes {
                return Ok(-3);
            }
            let a: [u8; 4] = prefix(m, at + 4, plen)?;
            self.host4(Ipv4Addr::from(a))
        };
        let _ = write!(
            buf,
            "{addr}/{plen}, label:{} {}",
            g3(m, at + 1)? >> 4,
            bottom(g1(m, at + 3)?)
        );
        Ok(4 + bytes as i32)
    }

    /// `decode_labeled_vpn_prefix4`, `_prefix6` and `_clnp_prefix`: label,
    /// route distinguisher and a prefix of up to `max` bits.
    fn vpn_prefix(&self, m: &[u8], at: usize, max: u32, buf: &mut Buf) -> PResult<i32> {
        let plen = u32::from(g1(m, at)?);
        if plen < 24 + 64 {
            return Ok(-1);
        }
        let plen = plen - (24 + 64);
        if plen > max {
            return Ok(-1);
        }
        let bytes = plen.div_ceil(8);
        let addr = match max {
            32 => self.host4(Ipv4Addr::from(prefix::<4>(m, at + 12, plen)?)),
            128 => self.host6(Ipv6Addr::from(prefix::<16>(m, at + 12, plen)?)),
            _ => nsap(&prefix::<19>(m, at + 12, plen)?, bytes as usize),
        };
        let rd = self.rd(m, at + 4)?;
        let _ = write!(
            buf,
            "RD: {rd}, {addr}/{plen}, label:{} {}",
            g3(m, at + 1)? >> 4,
            bottom(g1(m, at + 3)?)
        );
        Ok(12 + bytes as i32)
    }

    /// `decode_clnp_prefix`, which reads the prefix three bytes late.
    fn clnp_prefix(&self, m: &[u8], at: usize, buf: &mut Buf) -> PResult<i32> {
        let plen = u32::from(g1(m, at)?);
        if plen > 152 {
            return Ok(-1);
        }
        let bytes = plen.div_ceil(8);
        let a: [u8; 19] = prefix(m, at + 4, plen)?;
        let _ = write!(buf, "{}/{plen}", nsap(&a, bytes as usize));
        Ok(1 + bytes as i32)
    }

    /// `bgp_vpn_rd_print`: the route distinguisher at `at`.
    pub(super) fn rd(&self, m: &[u8], at: usize) -> PResult<String> {
        let b = |i: usize| g1(m, at + i);
        Ok(match g2(m, at)? {
            0 => format!(
                "{}:{} (= {}.{}.{}.{})",
                g2(m, at + 2)?,
                g4(m, at + 4)?,
                b(4)?,
                b(5)?,
                b(6)?,
                b(7)?
            ),
            1 => format!("{}.{}.{}.{}:{}", b(2)?, b(3)?, b(4)?, b(5)?, g2(m, at + 6)?),
            2 => format!(
                "{}:{} ({}.{}.{}.{}:{})",
                self.asn(g4(m, at + 2)?),
                g2(m, at + 6)?,
                b(2)?,
                b(3)?,
                b(4)?,
                b(5)?,
                g2(m, at + 6)?
            ),
            _ => "unknown RD format".to_string(),
        })
    }

    /// `bgp_vpn_ip_print`: an address of `bits` bits at `at`.
    fn vpn_ip(&self, m: &[u8], at: usize, bits: u32) -> PResult<String> {
        Ok(match bits {
            32 => self.host4(gv4(m, at)?),
            128 => self.host6(gv6(m, at)?),
            _ => format!("bogus address length {bits}"),
        })
    }

    /// `bgp_vpn_sg_print`: a multicast source and group; the bytes read.
    fn vpn_sg(&self, m: &[u8], at: usize, buf: &mut Buf) -> PResult<u32> {
        let mut total = 0;
        let mut p = at;
        for what in ["Source", "Group"] {
            let bits = g1(m, p)?;
            p += 1;
            let n = usize::from(bits >> 3);
            if need(m, p, n).is_err() {
                return Ok(total);
            }
            total += n as u32 + 1;
            if bits != 0 {
                let _ = write!(buf, ", {what} {}", self.vpn_ip(m, p, bits.into())?);
                p += n;
            }
        }
        Ok(total)
    }

    /// `decode_mdt_vpn_nlri`.
    fn mdt(&self, m: &[u8], at: usize, buf: &mut Buf) -> PResult<i32> {
        if g1(m, at)? != 128 {
            return Ok(-1);
        }
        if need(m, at + 1, 8).is_err() {
            return Ok(-2);
        }
        let _ = write!(
            buf,
            "RD: {}, VPN IP Address: {}, MC Group Address: {}",
            self.rd(m, at + 1)?,
            self.host4(gv4(m, at + 9)?),
            self.host4(gv4(m, at + 13)?)
        );
        Ok(17)
    }

    /// `decode_multicast_vpn`.
    fn mvpn(&self, m: &[u8], at: usize, buf: &mut Buf) -> PResult<i32> {
        let ty = g1(m, at)?;
        let len = g1(m, at + 1)?;
        let p = at + 2;
        let _ = write!(
            buf,
            "Route-Type: {} ({ty}), length: {len}",
            names::MVPN_ROUTE_TYPES.get(ty).unwrap_or("Unknown")
        );
        match ty {
            1 => {
                if need(m, p, 8).is_err() {
                    return Ok(-2);
                }
                // tcpdump's int arithmetic: a short route makes a huge length.
                let bits = ((i32::from(len) - 8) << 3) as u32;
                let _ = write!(
                    buf,
                    ", RD: {}, Originator {}",
                    self.rd(m, p)?,
                    self.vpn_ip(m, p + 8, bits)?
                );
            }
            2 | 6 | 7 => {
                if need(m, p, 12).is_err() {
                    return Ok(-2);
                }
                let _ = write!(
                    buf,
                    ", RD: {}, Source-AS {}",
                    self.rd(m, p)?,
                    self.asn(g4(m, p + 8)?)
                );
                if ty != 2 {
                    self.vpn_sg(m, p + 12, buf)?;
                }
            }
            3 | 5 => {
                if need(m, p, 8).is_err() {
                    return Ok(-2);
                }
                let _ = write!(buf, ", RD: {}", self.rd(m, p)?);
                let sg = self.vpn_sg(m, p + 8, buf)?;
                if ty == 3 {
                    // tcpdump reads the originator where the S,G starts.
                    let n = u32::from(len).wrapping_sub(sg);
                    if need(m, p + 8, n as usize).is_err() {
                        return Ok(-2);
                    }
                    let ip = self.vpn_ip(m, p + 8, n.wrapping_shl(3))?;
                    let _ = write!(buf, ", Originator {ip}");
                }
            }
            _ => {}
        }
        Ok(i32::from(len) + 2)
    }

    /// `decode_labeled_vpn_l2`, which does not step over an unknown TLV.
    fn vpn_l2(&self, m: &[u8], at: usize, buf: &mut Buf) -> PResult<i32> {
        let plen = u32::from(g2(m, at)?);
        let mut p = at + 2;
        let done = plen as i32 + 2;
        if plen == 12 {
            if need(m, p, 12).is_err() {
                return Ok(-2);
            }
            let _ = write!(
                buf,
                "RD: {}, BGPNH: {}",
                self.rd(m, p)?,
                self.host4(gv4(m, p + 8)?)
            );
            return Ok(done);
        }
        if plen <= 17 {
            return Ok(-2);
        }
        if need(m, p, 15).is_err() {
            return Ok(-2);
        }
        let _ = write!(
            buf,
            "RD: {}, CE-ID: {}, Label-Block Offset: {}, Label Base {}",
            self.rd(m, p)?,
            g2(m, p + 8)?,
            g2(m, p + 10)?,
            g3(m, p + 12)? >> 4
        );
        p += 15;
        let mut tlen = plen - 15;
        while tlen != 0 {
            if tlen < 3 {
                let _ = write!(buf, "\n\t\tran past the end");
                return Ok(done);
            }
            let ty = g1(m, p)?;
            let bits = g2(m, p + 1)?;
            let mut bytes = u32::from(bits).div_ceil(8);
            p += 3;
            if ty == 1 {
                let _ = write!(buf, "\n\t\tcircuit status vector ({ty}) length: {bits}: 0x");
                while bytes != 0 {
                    if tlen < 1 {
                        let _ = write!(buf, " (ran past the end)");
                        return Ok(done);
                    }
                    if need(m, p, 1).is_err() {
                        return Ok(-2);
                    }
                    if !buf.full() {
                        let _ = write!(buf, "{:02x}", g1(m, p)?);
                        p += 1;
                    }
                    bytes -= 1;
                    tlen -= 1;
                }
            } else {
                let _ = write!(buf, "\n\t\tunknown TLV #{ty}, length: {bits}");
                if tlen < bytes {
                    let _ = write!(buf, " (ran past the end)");
                    return Ok(done);
                }
                tlen -= bytes;
            }
        }
        Ok(done)
    }

    /// `decode_rt_routing_info`, which prints its own line.
    fn rt_routing_info(&mut self, m: &[u8], at: usize) -> PResult<i32> {
        let plen = u32::from(g1(m, at)?);
        if plen == 0 {
            out!(self, "\n\t      default route target");
            return Ok(1);
        }
        if plen < 32 {
            out!(self, "\n\t      (illegal prefix length)");
            return Ok(-1);
        }
        let origin = self.asn(g4(m, at + 1)?);
        let plen = plen - 32;
        if plen > 64 {
            out!(self, "\n\t      (illegal prefix length)");
            return Ok(-1);
        }
        let rt: [u8; 8] = prefix(m, at + 5, plen)?;
        let rt = rt_prefix(&rt, plen, |a| self.asn(a));
        out!(self, "\n\t      origin AS: {origin}, {rt}");
        Ok(5 + plen.div_ceil(8) as i32)
    }

    /// `bgp_mp_af_print`: the AFI/SAFI line of an MP attribute at `at`; 0
    /// when tcpdump decodes the pair, -1 when not (after a hex dump of the
    /// `tlen` bytes of the attribute), -2 when truncated.
    pub(super) fn mp_af(&mut self, m: &[u8], at: usize, tlen: usize) -> PResult<(i32, u16, u8)> {
        let af = g2(m, at)?;
        let safi = g1(m, at + 2)?;
        out!(
            self,
            "\n\t    AFI: {} ({af}), {}SAFI: {} ({safi})",
            af_name(af).unwrap_or("Unknown AFI"),
            if safi > 128 { "vendor specific " } else { "" },
            safi_name(safi).unwrap_or("Unknown SAFI")
        );
        match family(af, safi) {
            Some(f) if f != Family::Inet6Mvpn => Ok((0, af, safi)),
            _ => {
                if need(m, at, tlen).is_err() {
                    return Ok((-2, af, safi));
                }
                out!(self, "\n\t    no AFI {af} / SAFI {safi} decoder");
                if self.opts.verbose <= 1 {
                    self.unknown_data(m, at, tlen, "\n\t    ");
                }
                Ok((-1, af, safi))
            }
        }
    }

    /// `bgp_nlri_print`: one NLRI at `at`; `len` is what tcpdump passes, the
    /// whole attribute's length.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn nlri(
        &mut self,
        m: &[u8],
        af: u16,
        safi: u8,
        at: usize,
        len: u32,
        add_path4: bool,
        add_path6: bool,
    ) -> PResult<i32> {
        use Family::*;
        let mut buf = Buf::new();
        let Some(f) = family(af, safi) else {
            out!(self, "\n\t    ERROR: no AFI {af} / SAFI {safi} decoder");
            return Ok(-4);
        };
        if let Inet | Inet6 = f {
            let add_path = if f == Inet { add_path4 } else { add_path6 };
            let (mut at, mut path_id) = (at, 0);
            if add_path {
                path_id = g4(m, at)?;
                at += 4;
            }
            let mut advance = self.prefix(m, at, len, f == Inet6, &mut buf)?;
            match advance {
                -1 => out!(self, "\n\t    (illegal prefix length)"),
                -2 => return Ok(-2),
                _ => out!(self, "\n\t      {}", buf.s),
            }
            // As tcpdump: after a bad length too, the path id and its 4 bytes.
            if add_path {
                out!(self, "   Path Id: {path_id}");
                advance += 4;
            }
            return Ok(advance);
        }
        let advance = match f {
            InetLabeled | Inet6Labeled => {
                self.labeled_prefix(m, at, len, f == Inet6Labeled, &mut buf)?
            }
            InetVpn => self.vpn_prefix(m, at, 32, &mut buf)?,
            Inet6Vpn => self.vpn_prefix(m, at, 128, &mut buf)?,
            NsapVpn => self.vpn_prefix(m, at, 152, &mut buf)?,
            InetRtc => return self.rt_routing_info(m, at),
            InetMvpn | Inet6Mvpn => self.mvpn(m, at, &mut buf)?,
            InetMdt => self.mdt(m, at, &mut buf)?,
            L2Vpn => self.vpn_l2(m, at, &mut buf)?,
            Nsap => self.clnp_prefix(m, at, &mut buf)?,
            Inet | Inet6 => unreachable!("handled above"),
        };
        match advance {
            -1 if f == L2Vpn => out!(self, "\n\t    (illegal length)"),
            -1 => out!(self, "\n\t    (illegal prefix length)"),
            -2 | -3 => {}
            _ => out!(self, "\n\t      {}", buf.s),
        }
        Ok(advance)
    }

    /// `bgp_extended_community_print`: the value of the community at `at`.
    pub(super) fn ext_community(&mut self, m: &[u8], at: usize) -> PResult {
        let b = |i: usize| g1(m, at + i);
        match g2(m, at)? {
            0x0002 | 0x0003 | 0x000a => {
                let (asn, v) = (g2(m, at + 2)?, g4(m, at + 4)?);
                let h = self.host4(Ipv4Addr::from(v));
                out!(self, "{asn}:{v} (= {})", h);
            }
            0x0102 | 0x0103 | 0xf10a | 0x010b => {
                let h = self.host4(gv4(m, at + 2)?);
                out!(self, "{}:{}", h, g2(m, at + 6)?);
            }
            0x0202 | 0x0203 => {
                let asn = self.asn(g4(m, at + 2)?);
                out!(self, "{asn}:{}", g2(m, at + 6)?);
            }
            0x4004 => {
                // A float in bytes per second, printed in Mbps as C's float
                // arithmetic computes it.
                let bw = f32::from_bits(g4(m, at + 4)?) * 8.0 / 1_000_000.0;
                out!(self, "bandwidth: {:.3} Mbps", f64::from(bw));
            }
            0x0005 | 0x0105 | 0x0205 | 0x8005 | 0x0107 | 0x8001 => {
                let h = self.host4(gv4(m, at + 2)?);
                out!(self, "{}", h);
            }
            0x0306 | 0x8000 => {
                let area = self.host4(gv4(m, at + 2)?);
                let rtype = b(6)?;
                let rname = names::OSPF_ROUTE_TYPES
                    .get(rtype)
                    .map_or_else(|| format!("unknown (0x{rtype:02x})"), str::to_string);
                out!(
                    self,
                    "area:{area}, router-type:{rname}, metric-type:{}{}",
                    if b(7)? & 1 != 0 { "E2" } else { "" },
                    if rtype == 5 || rtype == 7 { "E1" } else { "" }
                );
            }
            0x800a => out!(
                self,
                "{} Control Flags [0x{:02x}]:MTU {}",
                names::L2VPN_ENCAPS.get(b(2)?).unwrap_or("unknown encaps"),
                b(3)?,
                g2(m, at + 4)?
            ),
            0x0009 => out!(self, "AS {}", g2(m, at + 2)?),
            0x030c => out!(
                self,
                "Tunnel type: {}",
                names::ENCAP_TUNNELS
                    .get(g2(m, at + 6)?)
                    .unwrap_or("unknown encaps")
            ),
            _ => out!(
                self,
                "{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
                b(2)?,
                b(3)?,
                b(4)?,
                b(5)?,
                b(6)?,
                b(7)?
            ),
        }
        Ok(())
    }
}

/// `bgp_rt_prefix_print`: a route target membership prefix of `plen` bits
/// (at most 60 characters, tcpdump's buffer).
fn rt_prefix(rt: &[u8; 8], plen: u32, asn: impl Fn(u32) -> String) -> String {
    if plen == 0 {
        return "route-target: 0:0/0".to_string();
    }
    let n = plen.div_ceil(8) as usize;
    let mut hex = String::new();
    for (i, b) in rt[..n].iter().enumerate() {
        let _ = write!(hex, "{b:02x}");
        if i % 2 == 1 && i + 1 < n {
            hex.push(' ');
        }
    }
    let be16 = |i: usize| u16::from_be_bytes([rt[i], rt[i + 1]]);
    let be32 = |i: usize| u32::from_be_bytes([rt[i], rt[i + 1], rt[i + 2], rt[i + 3]]);
    let mut s = if plen < 16 {
        format!("route-target: partial-type: ({hex}/{plen})")
    } else {
        match be16(0) {
            0x0002 => format!("route-target: {}:{}/{plen} ({hex})", be16(2), be32(4)),
            0x0102 => format!(
                "route-target: {}.{}.{}.{}:{}/{plen} ({hex})",
                rt[2],
                rt[3],
                rt[4],
                rt[5],
                be16(6)
            ),
            0x0202 => format!("route-target: {}:{}/{plen} ({hex})", asn(be32(2)), be16(6)),
            t => format!("route target: unknown-type({t:04x}) ({hex}/{plen})"),
        }
    };
    s.truncate(60);
    s
}
