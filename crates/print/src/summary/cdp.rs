//! Cisco Discovery Protocol (SNAP OUI 00:00:0c, PID 0x2000) as tcpdump 4.99's
//! `cdp_print` prints it: the version, TTL and device ID, each other TLV in
//! hex without `-v`, and every TLV decoded with it.

use super::{g1, g2, g3, g4, gv4, gv6, need, out, print_char, PResult, Printer};

/// `cdp_capability_values`.
const CAPS: [(u32, &str); 7] = [
    (0x01, "Router"),
    (0x02, "Transparent Bridge"),
    (0x04, "Source Route Bridge"),
    (0x08, "L2 Switch"),
    (0x10, "L3 capable"),
    (0x20, "IGMP snooping"),
    (0x40, "L1 capable"),
];

/// How tcpdump prints a TLV's value.
#[derive(Clone, Copy)]
enum Val {
    Str,
    Addr,
    Cap,
    Version,
    Prefixes,
    U16,
    Duplex,
    Ata186,
    Power,
    Mtu,
    U8x,
    PhysLoc,
    /// Named, but printed as nothing.
    Nothing,
}

/// `cdptlvs`: name, printer, minimum and maximum length (0: none); `None`
/// past its end.
fn tlv_info(t: u16) -> Option<(&'static str, Val, usize, usize)> {
    Some(match t {
        0x01 => ("Device-ID", Val::Str, 0, 0),
        0x02 => ("Address", Val::Addr, 0, 0),
        0x03 => ("Port-ID", Val::Str, 0, 0),
        0x04 => ("Capability", Val::Cap, 4, 4),
        0x05 => ("Version String", Val::Version, 0, 0),
        0x06 => ("Platform", Val::Str, 0, 0),
        0x07 => ("Prefixes", Val::Prefixes, 0, 0),
        0x08 => ("Protocol-Hello option", Val::Nothing, 0, 0),
        0x09 => ("VTP Management Domain", Val::Str, 0, 0),
        0x0a => ("Native VLAN ID", Val::U16, 2, 2),
        0x0b => ("Duplex", Val::Duplex, 1, 1),
        0x0e => ("ATA-186 VoIP VLAN assignment", Val::Ata186, 3, 3),
        0x0f => ("ATA-186 VoIP VLAN request", Val::Ata186, 2, 3),
        0x10 => ("power consumption", Val::Power, 1, 3),
        0x11 => ("MTU", Val::Mtu, 4, 4),
        0x12 => ("AVVID trust bitmap", Val::U8x, 1, 1),
        0x13 => ("AVVID untrusted ports CoS", Val::U8x, 1, 1),
        0x14 => ("System Name", Val::Str, 0, 0),
        0x15 => ("System Object ID (not decoded)", Val::Nothing, 0, 0),
        0x16 => ("Management Addresses", Val::Addr, 4, 0),
        0x17 => ("Physical Location", Val::PhysLoc, 1, 0),
        // Empty entries of tcpdump's table: no name, no printer, and so no
        // hex dump with `-v`.
        0x00 | 0x0c | 0x0d => ("unknown field type", Val::Nothing, 0, 0),
        _ => return None,
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// An invalid TLV: tcpdump's ` (invalid)`, then a truncation check of the
/// bytes left.
fn invalid(p: &mut Printer<'_>, b: &[u8], at: usize, n: usize) -> PResult {
    out!(p, " (invalid)");
    need(b, at, n)
}

impl Printer<'_> {
    /// `cdp_print`: `p` captured from the CDP header, `length` on the wire.
    pub(crate) fn cdp(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "cdp";
        let v = self.opts.verbose > 0;
        let total = length as usize;
        if total < 4 {
            out!(self, " (packet length {total} < 4)");
            return invalid(self, p, 0, total);
        }
        out!(self, "CDPv{}, ttl: {}s", g1(p, 0)?, g1(p, 1)?);
        let ck = g2(p, 2)?;
        if v {
            out!(self, ", checksum: 0x{ck:04x} (unverified), length {total}");
        }
        let mut at = 4usize;
        let mut left = total - 4;
        while left > 0 {
            if left < 4 {
                out!(self, " (remaining packet length {left} < 4)");
                return invalid(self, p, at, left);
            }
            let t = g2(p, at)?;
            let l = g2(p, at + 2)? as usize;
            let info = tlv_info(t);
            let name = info.map_or("unknown field type", |i| i.0);
            if l < 4 {
                if v {
                    out!(
                        self,
                        "\n\t{name} (0x{t:02x}), TLV length: {l} byte{} (too short)",
                        plural(l)
                    );
                } else {
                    out!(self, ", {name} TLV length {l} too short");
                }
                return invalid(self, p, at, left);
            }
            if l > left {
                out!(self, " (TLV length {l} > {left})");
                return invalid(self, p, at, left);
            }
            at += 4;
            left -= 4;
            let l = l - 4;
            if !v && t == 1 {
                out!(self, ", Device-ID ");
            } else if v {
                out!(
                    self,
                    "\n\t{name} (0x{t:02x}), value length: {l} byte{}: ",
                    plural(l)
                );
            }
            let mut covered = false;
            if let Some((_, val, min, max)) = info {
                if (min > 0 && l < min) || (max > 0 && l > max) {
                    out!(self, " (malformed TLV)");
                } else if v || t == 1 {
                    self.cdp_value(val, p, at, l)?;
                    covered = true;
                }
            }
            if !covered {
                need(p, at, l)?;
                self.hex_print(&p[at..at + l], "\n\t  ");
            }
            at += l;
            left -= l;
        }
        if !v {
            out!(self, ", length {total}");
        }
        Ok(())
    }

    /// Text as tcpdump's `nd_printn`: every byte, unprintable ones escaped.
    fn cdp_text(&mut self, p: &[u8], at: usize, n: usize) -> PResult {
        for i in 0..n {
            print_char(&mut self.out, g1(p, at + i)?);
        }
        Ok(())
    }

    fn cdp_value(&mut self, val: Val, p: &[u8], at: usize, l: usize) -> PResult {
        match val {
            Val::Str => {
                out!(self, "'");
                self.cdp_text(p, at, l)?;
                out!(self, "'");
            }
            Val::Addr => self.cdp_addr(p, at, l)?,
            Val::Cap => {
                let c = g4(p, at)?;
                out!(self, "(0x{c:08x}): {}", super::bit_names(c, &CAPS));
            }
            Val::Version => {
                out!(self, "\n\t  ");
                for i in 0..l {
                    let c = g1(p, at + i)?;
                    if c == b'\n' {
                        out!(self, "\n\t  ");
                    } else {
                        print_char(&mut self.out, c);
                    }
                }
            }
            Val::Prefixes => {
                if !l.is_multiple_of(5) {
                    out!(self, " [length {l} is not a multiple of 5]");
                    return need(p, at, l);
                }
                out!(self, " IPv4 Prefixes ({}):", l / 5);
                for i in 0..l / 5 {
                    let a = gv4(p, at + 5 * i)?;
                    out!(self, " {a}/{}", g1(p, at + 5 * i + 4)?);
                }
            }
            Val::U16 => out!(self, "{}", g2(p, at)?),
            Val::Duplex => {
                let d = if g1(p, at)? != 0 { "full" } else { "half" };
                out!(self, "{d}");
            }
            Val::Ata186 => {
                if l == 2 {
                    out!(self, "unknown 0x{:04x}", g2(p, at)?);
                } else {
                    out!(self, "app {}, vlan {}", g1(p, at)?, g2(p, at + 1)?);
                }
            }
            Val::Power => {
                let w = match l {
                    1 => g1(p, at)? as u32,
                    2 => g2(p, at)? as u32,
                    _ => g3(p, at)?,
                };
                out!(self, "{:1.2}W", w as f64 / 1000.0);
            }
            Val::Mtu => out!(self, "{} bytes", g4(p, at)?),
            Val::U8x => out!(self, "0x{:02x}", g1(p, at)?),
            Val::PhysLoc => {
                out!(self, "0x{:02x}", g1(p, at)?);
                if l > 1 {
                    out!(self, "/");
                    self.cdp_text(p, at + 1, l - 1)?;
                }
            }
            Val::Nothing => need(p, at, l)?,
        }
        Ok(())
    }

    /// `cdp_print_addr`: a count, then (protocol type, protocol, address)
    /// triples. A malformed list ends the TLV, not the packet.
    fn cdp_addr(&mut self, p: &[u8], start: usize, len: usize) -> PResult {
        const PROT_IPV6: [u8; 8] = [0xaa, 0xaa, 0x03, 0, 0, 0, 0x86, 0xdd];
        let (mut at, mut l) = (start, len);
        if l < 4 {
            out!(self, " (not enough space for num)");
            return need(p, at, l);
        }
        let mut num = g4(p, at)?;
        at += 4;
        l -= 4;
        while num > 0 {
            if l < 2 {
                out!(self, " (not enough space for PT+PL)");
                return need(p, at, l);
            }
            let (pt, pl) = (g1(p, at)?, g1(p, at + 1)? as usize);
            at += 2;
            l -= 2;
            if l < pl + 2 {
                out!(self, " (not enough space for P+AL)");
                return need(p, at, l);
            }
            let al = g2(p, at + pl)? as usize;
            let ipv4 = pt == 1 && pl == 1 && g1(p, at)? == 0xcc && al == 4;
            let ipv6 = pt == 2 && pl == 8 && p.get(at..at + 8) == Some(&PROT_IPV6[..]) && al == 16;
            if ipv4 || ipv6 {
                at += pl + 2;
                l -= pl + 2;
                if l < al {
                    out!(self, " (not enough space for A)");
                    return need(p, at, l);
                }
                if ipv4 {
                    let a = self.host4(gv4(p, at)?);
                    out!(self, "IPv4 ({num}) {a}");
                } else {
                    let a = self.host6(gv6(p, at)?);
                    out!(self, "IPv6 ({num}) {a}");
                }
            } else {
                out!(self, "pt=0x{pt:02x}, pl={pl}, pb=");
                for i in 0..pl {
                    out!(self, " {:02x}", g1(p, at + i)?);
                }
                at += pl + 2;
                l -= pl + 2;
                out!(self, ", al={al}, a=");
                if l < al {
                    out!(self, " (not enough space for A)");
                    return need(p, at, l);
                }
                for i in 0..al {
                    out!(self, " {:02x}", g1(p, at + i)?);
                }
            }
            at += al;
            l -= al;
            num -= 1;
            if num > 0 {
                out!(self, " ");
            }
        }
        if l > 0 {
            out!(self, " ({l} bytes of stray data)");
        }
        Ok(())
    }
}
