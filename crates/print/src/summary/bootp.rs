//! BOOTP and DHCP as tcpdump's `bootp_print` prints them: the one-line
//! summary, and with `-v` the header's fields and the RFC 1048 options
//! (`rfc1048_print`) or the CMU vendor area.

use super::dhcp_opts::{dhcp_msg_name, tag_info};
use super::ospf2::put;
use super::{g1, g2, g4, gv4, print_char, tail, PResult, Printer, Trunc};
use netsift_wire::ethernet::EthernetAddress;

/// Where the vendor area starts in the fixed header.
const VEND: usize = 236;

impl Printer<'_> {
    /// `bootp_print`: `bp` is the UDP payload, `length` its length.
    pub(super) fn bootp(&mut self, bp: &[u8], length: u32) -> PResult {
        self.proto = "bootp";
        let op = g1(bp, 0)?;
        put!(self, "BOOTP/DHCP, ");
        match op {
            1 => put!(self, "Request"),
            2 => put!(self, "Reply"),
            o => put!(self, "unknown (0x{o:02x})"),
        }
        let htype = g1(bp, 1)?;
        let hlen = g1(bp, 2)?;
        let ether = htype == 1 && hlen == 6;
        if ether && op == 1 {
            put!(self, " from {}", self.chaddr(bp)?);
        }
        put!(self, ", length {length}");
        if self.opts.verbose == 0 {
            return Ok(());
        }
        super::need(bp, 8, 2)?;
        if htype != 1 {
            put!(self, ", htype {htype}");
        }
        if !ether {
            put!(self, ", hlen {hlen}");
        }
        let hops = g1(bp, 3)?;
        if hops != 0 {
            put!(self, ", hops {hops}");
        }
        let xid = g4(bp, 4)?;
        if xid != 0 {
            put!(self, ", xid 0x{xid:x}");
        }
        let secs = g2(bp, 8)?;
        if secs != 0 {
            put!(self, ", secs {secs}");
        }
        let flags = g2(bp, 10)?;
        let fname = if flags & 0x8000 != 0 {
            "Broadcast"
        } else {
            "none"
        };
        put!(self, ", Flags [{fname}]");
        if self.opts.verbose > 1 {
            put!(self, " (0x{flags:04x})");
        }
        for (at, name) in [
            (12, "Client-IP"),
            (16, "Your-IP"),
            (20, "Server-IP"),
            (24, "Gateway-IP"),
        ] {
            let a = g4(bp, at)?;
            if a != 0 {
                put!(self, "\n\t  {name} {}", self.host4(a.into()));
            }
        }
        if ether {
            put!(self, "\n\t  Client-Ethernet-Address {}", self.chaddr(bp)?);
        }
        for (at, n, name) in [(44, 64, "sname"), (108, 128, "file")] {
            if g1(bp, at)? != 0 {
                put!(self, "\n\t  {name} \"");
                if !self.printztn(bp, at, n)? {
                    put!(self, "\"");
                    self.trunc();
                    return Ok(());
                }
                put!(self, "\"");
            }
        }
        super::need(bp, VEND, 4)?;
        match g4(bp, VEND)? {
            0x6382_5363 => self.rfc1048(tail(bp, VEND))?,
            0x434d_5500 => self.cmu(tail(bp, VEND))?,
            0 => {}
            v => put!(self, "\n\t  Vendor-#0x{v:x}"),
        }
        Ok(())
    }

    fn chaddr(&self, bp: &[u8]) -> PResult<String> {
        super::need(bp, 28, 6)?;
        Ok(self.ether_str(EthernetAddress::from_bytes(&bp[28..34]).0))
    }

    /// `nd_printztn`: up to `n` bytes from `at` up to a NUL; false when the
    /// field ends (or the capture does) before a NUL.
    fn printztn(&mut self, b: &[u8], at: usize, n: usize) -> PResult<bool> {
        for i in 0..n {
            match b.get(at + i) {
                None => return Ok(false),
                Some(0) => return Ok(true),
                Some(&c) => print_char(&mut self.out, c),
            }
        }
        Ok(false)
    }

    /// `nd_printn`: `n` bytes from `at`; false when the capture ends first.
    pub(super) fn printn(&mut self, b: &[u8], at: usize, n: usize) -> bool {
        for i in 0..n {
            match b.get(at + i) {
                Some(&c) => print_char(&mut self.out, c),
                None => return false,
            }
        }
        true
    }

    /// A quoted string of `n` bytes; a truncation prints the closing quote
    /// first, as tcpdump does.
    pub(super) fn quoted(&mut self, b: &[u8], at: usize, n: usize) -> PResult {
        put!(self, "\"");
        let whole = self.printn(b, at, n);
        put!(self, "\"");
        if whole {
            Ok(())
        } else {
            Err(Trunc)
        }
    }

    /// `cmu_print`.
    fn cmu(&mut self, v: &[u8]) -> PResult {
        put!(self, " vend-cmu");
        super::need(v, 4, 4)?;
        let flags = g1(v, 4)?;
        if flags & !1 != 0 {
            put!(self, " F:0x{flags:x}");
        }
        let sm = if flags & 1 != 0 { "SM" } else { "SM*" };
        for (at, name) in [
            (12, "DG"),
            (8, sm),
            (16, "NS1"),
            (20, "NS2"),
            (24, "IEN1"),
            (28, "IEN2"),
            (32, "TS1"),
            (36, "TS2"),
        ] {
            let a = g4(v, at)?;
            if a != 0 {
                put!(self, " {name}:{}", self.host4(a.into()));
            }
        }
        Ok(())
    }

    /// `rfc1048_print`: `v` is the vendor area, from the magic cookie.
    fn rfc1048(&mut self, v: &[u8]) -> PResult {
        put!(self, "\n\t  Vendor-rfc1048 Extensions");
        put!(self, "\n\t    Magic Cookie 0x{:08x}", g4(v, 0)?);
        let mut at = 4;
        while at < v.len() {
            let tag = v[at];
            at += 1;
            if tag == 0 && self.opts.verbose < 3 {
                continue;
            }
            if tag == 255 && self.opts.verbose < 3 {
                return Ok(());
            }
            let (mut c, name) = tag_info(tag);
            let len = if tag == 0 || tag == 255 {
                0
            } else {
                at += 1;
                g1(v, at - 1)? as usize
            };
            let sep = if len > 0 { ": " } else { "" };
            put!(self, "\n\t    {name} ({tag}), length {len}{sep}");
            if tag == 0 && self.opts.verbose > 2 {
                let mut ntag = 1;
                while v.get(at) == Some(&0) {
                    at += 1;
                    ntag += 1;
                }
                if ntag > 1 {
                    put!(self, ", occurs {ntag}");
                }
            }
            super::need(v, at, len)?;
            if tag == 53 && len == 1 {
                let m = g1(v, at)?;
                match dhcp_msg_name(m) {
                    Some(n) => put!(self, "{n}"),
                    None => put!(self, "Unknown ({m})"),
                }
                at += 1;
                continue;
            }
            if tag == 55 {
                for idx in 0..len {
                    let inner = g1(v, at + idx)?;
                    put!(self, "{}", if idx % 4 == 0 { "\n\t      " } else { ", " });
                    put!(self, "{} ({inner})", tag_info(inner).1);
                }
                at += len;
                continue;
            }
            if c == '?' {
                c = if len & 1 != 0 {
                    'b'
                } else if len & 2 != 0 {
                    's'
                } else {
                    'l'
                };
            }
            let o = tail(v, at);
            let used = match c {
                'a' => {
                    self.quoted(o, 0, len)?;
                    len
                }
                'i' | 'l' | 'L' => {
                    let n = len / 4;
                    for k in 0..n {
                        if k > 0 {
                            put!(self, ",");
                        }
                        match c {
                            'i' => put!(self, "{}", self.host4(gv4(o, 4 * k)?)),
                            'L' => put!(self, "{}", g4(o, 4 * k)? as i32),
                            _ => put!(self, "{}", g4(o, 4 * k)?),
                        }
                    }
                    4 * n
                }
                'p' => {
                    let n = len / 8;
                    for k in 0..n {
                        if k > 0 {
                            put!(self, ",");
                        }
                        let (x, y) = (gv4(o, 8 * k)?, gv4(o, 8 * k + 4)?);
                        put!(self, "({}:{})", self.host4(x), self.host4(y));
                    }
                    8 * n
                }
                's' => {
                    let n = len / 2;
                    for k in 0..n {
                        if k > 0 {
                            put!(self, ",");
                        }
                        put!(self, "{}", g2(o, 2 * k)?);
                    }
                    2 * n
                }
                'B' => {
                    for k in 0..len {
                        if k > 0 {
                            put!(self, ",");
                        }
                        match g1(o, k)? {
                            0 => put!(self, "N"),
                            1 => put!(self, "Y"),
                            x => put!(self, "{x}?"),
                        }
                    }
                    len
                }
                '$' => self.dhcp_special(tag, o, len)?,
                _ => {
                    for k in 0..len {
                        let x = g1(o, k)?;
                        match (k > 0, c == 'x') {
                            (true, true) => put!(self, ":{x:02x}"),
                            (true, false) => put!(self, ".{x}"),
                            (false, true) => put!(self, "{x:02x}"),
                            (false, false) => put!(self, "{x}"),
                        }
                    }
                    len
                }
            };
            at += len;
            if len > used {
                put!(self, "\n\t  trailing data length {}", len - used);
            }
        }
        Ok(())
    }
}
