//! HNCP's own TLVs (RFC 7788) on lines of their own, as tcpdump 4.99.3's
//! `hncp_print_rec` prints them: version, external connections and their
//! delegated prefixes, prefix policies, DHCP data, assigned prefixes, node
//! addresses and names, delegated DNS zones, domain names, managed PSKs.

use super::hncp::hex256;
use super::hncp::interval;
use super::{g1, g2, g4, gv4, gv6, host4_name, out, PResult, Printer};
use std::net::{Ipv4Addr, Ipv6Addr};

/// The 12 bytes before an IPv4 address mapped into IPv6.
const MAPPED: [u8; 12] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/// Whether the 16 bytes at `at` are an IPv4-mapped IPv6 address.
fn is_mapped(p: &[u8], at: usize) -> bool {
    p.get(at..at + 12) == Some(&MAPPED[..])
}

/// `print_prefix`'s failures, as its negative results.
#[derive(PartialEq)]
enum BadPrefix {
    /// -1: longer than the address.
    Length,
    /// -2/-3: past the end of the TLV.
    Short,
}

impl Printer<'_> {
    /// `format_ip6addr`: an IPv4-mapped address as IPv4.
    fn hncp_addr(&self, p: &[u8], at: usize) -> PResult<String> {
        if is_mapped(p, at) {
            Ok(host4_name(self.opts.names, gv4(p, at + 12)?))
        } else {
            Ok(self.host6(gv6(p, at)?))
        }
    }

    /// `print_prefix`: a prefix length and the bytes it needs, at most
    /// `max` bytes from `at`; the bytes it took.
    fn hncp_prefix(
        &mut self,
        p: &[u8],
        at: usize,
        max: usize,
    ) -> PResult<Result<usize, BadPrefix>> {
        let b0 = g1(p, at)?;
        let mask = |bytes: &mut [u8], plen: usize| {
            if !plen.is_multiple_of(8) {
                bytes[plen / 8] &= (0xff00u16 >> (plen % 8)) as u8;
            }
        };
        if b0 >= 96 && max >= 13 && is_mapped(p, at + 1) {
            let plen = usize::from(b0 - 96);
            if plen > 32 {
                return Ok(Err(BadPrefix::Length));
            }
            let n = plen.div_ceil(8);
            if max - 1 < n + 12 {
                return Ok(Err(BadPrefix::Short));
            }
            let mut a = [0u8; 4];
            for (i, b) in a.iter_mut().enumerate().take(n) {
                *b = g1(p, at + 13 + i)?;
            }
            mask(&mut a, plen);
            let s = host4_name(self.opts.names, Ipv4Addr::from(a));
            out!(self, "{s}/{plen}");
            return Ok(Ok(n + 13));
        }
        let plen = usize::from(b0);
        if plen > 128 {
            return Ok(Err(BadPrefix::Length));
        }
        let n = plen.div_ceil(8);
        if max - 1 < n {
            return Ok(Err(BadPrefix::Short));
        }
        let mut a = [0u8; 16];
        for (i, b) in a.iter_mut().enumerate().take(n) {
            *b = g1(p, at + 1 + i)?;
        }
        mask(&mut a, plen);
        let s = self.host6(Ipv6Addr::from(a));
        out!(self, "{s}/{plen}");
        Ok(Ok(1 + n))
    }

    /// `print_dns_label`: labels from `at`, at most `max` bytes; the bytes
    /// taken, or `None` (after `[|DNS]`) when the name runs past them.
    fn hncp_label(&mut self, p: &[u8], at: usize, max: usize) -> PResult<Option<usize>> {
        let mut len = 0;
        while len < max {
            let l = usize::from(g1(p, at + len)?);
            len += 1;
            if l == 0 {
                return Ok(Some(len));
            }
            if len > 1 {
                self.out.push('.');
            }
            if len + l > max {
                self.jnp(p, at + len, max - len)?;
                break;
            }
            self.jnp(p, at + len, l)?;
            len += l;
        }
        self.out.push_str("[|DNS]");
        Ok(None)
    }

    /// A TLV of HNCP's own after its name and length; false where the
    /// list it is in ends (tcpdump's `goto invalid`).
    pub(super) fn hncp_own(
        &mut self,
        p: &[u8],
        v: usize,
        body: usize,
        mask: u32,
        indent: usize,
    ) -> PResult<bool> {
        let invalid = |s: &mut Self| {
            s.out.push_str(" (invalid)");
            Ok(true)
        };
        // The TLVs nested after `l` bytes, rounded up to 4.
        let rest = |s: &mut Self, l: usize| {
            let l = l.next_multiple_of(4);
            if body >= l {
                s.hncp_rec(p, v + l, body - l, indent + 1)
            } else {
                Ok(())
            }
        };
        match mask {
            32 => {
                if body < 5 {
                    return invalid(self);
                }
                let c = g2(p, v + 2)?;
                out!(
                    self,
                    " M: {} P: {} H: {} L: {} User-agent: ",
                    c >> 12,
                    (c >> 8) & 0xf,
                    (c >> 4) & 0xf,
                    c & 0xf
                );
                self.jnp(p, v + 4, body - 4)?;
            }
            33 => self.hncp_rec(p, v, body, indent + 1)?,
            34 => {
                if body < 9 || body < 9 + usize::from(g1(p, v + 8)?).div_ceil(8) {
                    return invalid(self);
                }
                out!(
                    self,
                    " VLSO: {} PLSO: {} Prefix: ",
                    interval(g4(p, v)?),
                    interval(g4(p, v + 4)?)
                );
                match self.hncp_prefix(p, v + 8, body - 8)? {
                    Err(BadPrefix::Length) => self.out.push_str("(length is invalid)"),
                    Err(_) => return invalid(self),
                    Ok(l) => rest(self, l + 8)?,
                }
            }
            43 => {
                if body < 1 {
                    return invalid(self);
                }
                let policy = g1(p, v)?;
                self.out.push_str(" type: ");
                match policy {
                    0 if body != 1 => return invalid(self),
                    0 => self.out.push_str("Internet connectivity"),
                    1..=128 => {
                        self.out.push_str("Dest-Prefix: ");
                        match self.hncp_prefix(p, v, body)? {
                            Err(BadPrefix::Length) => self.out.push_str("(length is invalid)"),
                            Err(_) => return invalid(self),
                            Ok(_) => {}
                        }
                    }
                    129 => {
                        self.out.push_str("DNS domain: ");
                        self.hncp_label(p, v + 1, body - 1)?;
                    }
                    130 => {
                        self.out.push_str("Opaque UTF-8: ");
                        self.jnp(p, v + 1, body - 1)?;
                    }
                    131 if body != 1 => return invalid(self),
                    131 => self.out.push_str("Restrictive assignment"),
                    _ => out!(self, "Unknown ({policy})"),
                }
            }
            37 | 38 => {
                if body == 0 {
                    return invalid(self);
                }
                if !self.hncp_dhcp(p, v, body, indent + 1, mask == 38)? {
                    self.out.push_str(" (invalid)");
                    // DHCPv4's ends the list, DHCPv6's only the TLV.
                    return Ok(mask == 38);
                }
            }
            35 => {
                if body < 6 || body < 6 + usize::from(g1(p, v + 5)?).div_ceil(8) {
                    return invalid(self);
                }
                out!(
                    self,
                    " EPID: {:08x} Prty: {}",
                    g4(p, v)?,
                    g1(p, v + 4)? & 0xf
                );
                self.out.push_str(" Prefix: ");
                match self.hncp_prefix(p, v + 5, body - 5)? {
                    Err(_) => return invalid(self),
                    Ok(l) => rest(self, l + 5)?,
                }
            }
            36 => {
                if body < 20 {
                    return invalid(self);
                }
                let a = self.hncp_addr(p, v + 4)?;
                out!(self, " EPID: {:08x} IP Address: {a}", g4(p, v)?);
                self.hncp_rec(p, v + 20, body - 20, indent + 1)?;
            }
            39 => {
                if body < 17 {
                    return invalid(self);
                }
                let a = self.hncp_addr(p, v)?;
                let f = g1(p, v + 16)?;
                let bit = |m: u8, c: char| if f & m != 0 { c } else { '-' };
                out!(
                    self,
                    " IP-Address: {a} {}{}{} ",
                    bit(4, 'l'),
                    bit(2, 'b'),
                    bit(1, 's')
                );
                match self.hncp_label(p, v + 17, body - 17)? {
                    None => return invalid(self),
                    Some(l) => rest(self, l + 17)?,
                }
            }
            40 => {
                if body == 0 {
                    return invalid(self);
                }
                self.out.push_str(" Domain: ");
                self.hncp_label(p, v, body)?;
            }
            41 => {
                if body < 17 {
                    return invalid(self);
                }
                let l = usize::from(g1(p, v + 16)?);
                if body < 17 + l {
                    return invalid(self);
                }
                let a = self.hncp_addr(p, v)?;
                out!(self, " IP-Address: {a} Name: ");
                if l < 64 {
                    self.out.push('"');
                    self.jnp(p, v + 17, l)?;
                    self.out.push('"');
                } else {
                    self.out.push_str(" (invalid)");
                }
                rest(self, l + 17)?;
            }
            42 => {
                if body < 32 {
                    return invalid(self);
                }
                out!(self, " PSK: {}", hex256(p, v)?);
                self.hncp_rec(p, v + 32, body - 32, indent + 1)?;
            }
            _ => {}
        }
        Ok(true)
    }

    /// `dhcpv4_print` and (`v6`) `dhcpv6_print`: false where tcpdump's
    /// return -1. Their options differ in the width of type and length
    /// (1 or 2 bytes) and of addresses.
    fn hncp_dhcp(
        &mut self,
        p: &[u8],
        at: usize,
        length: usize,
        indent: usize,
        v6: bool,
    ) -> PResult<bool> {
        let h = if v6 { 4 } else { 2 };
        let mut i = 0;
        while i < length {
            if i + h > length {
                return Ok(false);
            }
            let (ty, len) = if v6 {
                (g2(p, at + i)?, usize::from(g2(p, at + i + 2)?))
            } else {
                (u16::from(g1(p, at + i)?), usize::from(g1(p, at + i + 1)?))
            };
            let v = at + i + h;
            let name = match (v6, ty) {
                (false, 6) | (true, 23) => "DNS-server",
                (false, 42) => "NTP-server",
                (false, 119) => "DNS-search",
                (true, 24) => "DNS-search-list",
                (true, 31) => "SNTP-servers",
                _ => "Unknown",
            };
            out!(self, "\n{}{name} ({})", "\t".repeat(indent), len + h);
            if i + h + len > length {
                return Ok(false);
            }
            match (v6, ty) {
                (false, 6 | 42) => {
                    if len < 4 || !len.is_multiple_of(4) {
                        return Ok(false);
                    }
                    for t in (0..len).step_by(4) {
                        let a = host4_name(self.opts.names, gv4(p, v + t)?);
                        out!(self, " {a}");
                    }
                }
                (true, 23 | 31) => {
                    if !len.is_multiple_of(16) {
                        self.out.push_str(" (invalid)");
                        return Ok(false);
                    }
                    for t in (0..len).step_by(16) {
                        let a = self.host6(gv6(p, v + t)?);
                        out!(self, " {a}");
                    }
                }
                (false, 119) | (true, 24) if !self.hncp_names(p, v, len)? => return Ok(false),
                _ => {}
            }
            i += h + len;
        }
        Ok(true)
    }

    /// Domain names (`fqdn_print`) filling `len` bytes from `v`; false
    /// when one is cut short.
    fn hncp_names(&mut self, p: &[u8], v: usize, len: usize) -> PResult<bool> {
        let end = v + len;
        let mut t = v;
        while t < end {
            self.out.push(' ');
            match self.fqdn(&p[..end.min(p.len())], t) {
                Ok(next) => t = next,
                Err(_) => return Ok(false),
            }
        }
        Ok(true)
    }
}
