//! Juniper's capture encapsulations (tcpdump's `print-juniper.c`) for the
//! link types the corpus has: Ethernet, ATM1, ES (IPsec) and the passive
//! monitor PIC. Each starts with `juniper_parse_header`: the "MGC" magic,
//! flags, optional extension TLVs, then a per-PIC cookie. `-e` prints the
//! direction, the PIC and cookie and `hlen N, proto 0x0000, `; `-vv` the
//! flags and extension TLVs (`juniper_ext.rs`).

use super::{g1, g2, g3, g4, gv4, out, tail, PResult, Printer};

const JUNIPER_ETHER: u32 = 178;
const JUNIPER_ATM1: u32 = 137;
const JUNIPER_ES: u32 = 132;
pub(super) const JUNIPER_MONITOR: u32 = 164;

const BPF_NO_L2: u8 = 0x02;
const BPF_EXT: u8 = 0x80;
const MAGIC: u32 = 0x4d4743;
const LS_COOKIE_ID: u8 = 0x54;
const AS_COOKIE_ID: u8 = 0x47;

/// What `juniper_parse_header` leaves for the printer of the PIC.
struct L2 {
    header_len: usize,
    length: u32,
    cookie: [u8; 8],
}

fn ipsec_type(t: u8) -> &'static str {
    match t {
        1 => "ESP ENCR-AUTH",
        2 => "ESP ENCR-AH AUTH",
        3 => "ESP AUTH",
        4 => "AH AUTH",
        5 => "ESP ENCR",
        _ => "Unknown",
    }
}

impl Printer<'_> {
    /// The four Juniper link types, by number.
    pub(super) fn juniper_if(&mut self, lt: u32, data: &[u8], length: u32) -> PResult {
        self.proto = match lt {
            JUNIPER_ETHER => "juniper_ether",
            JUNIPER_ATM1 => "juniper_atm1",
            JUNIPER_ES => "juniper_es",
            _ => "juniper_monitor",
        };
        let Some(l2) = self.juniper_header(lt, data, length)? else {
            return Ok(());
        };
        let p = tail(data, l2.header_len);
        match lt {
            JUNIPER_ETHER => self.ether(p, l2.length),
            JUNIPER_ATM1 => {
                if l2.cookie[0] == 0x80 {
                    return self.oam(p, l2.length, 0);
                }
                let h = g3(p, 0)?;
                if (h == 0xfefe03 || h == 0xaaaa03) && self.llc(p, l2.length, None)? {
                    return Ok(());
                }
                if g1(p, 0)? == 0x03 {
                    // Cisco-style NLPID: OSI, not decoded.
                    return Ok(());
                }
                self.ip_guess(p, l2.length)?;
                Ok(())
            }
            JUNIPER_ES => self.juniper_es(p, l2.length),
            _ => {
                g4(p, 4)?;
                if self.opts.link_header {
                    let (sid, iif, ty) = (g4(p, 4)?, g2(p, 2)?, g1(p, 0)?);
                    out!(self, "service-id {sid}, iif {iif}, pkt-type {ty}: ");
                }
                self.ip_guess(p, l2.length)?;
                Ok(())
            }
        }
    }

    /// `juniper_es_if_print` after the header: the IPsec SA header, then IPv4.
    fn juniper_es(&mut self, p: &[u8], length: u32) -> PResult {
        g4(p, 12)?;
        let ty = g1(p, 3)?;
        let (rewrite, bundle) = match ty {
            1 | 2 => (0, true),
            3..=5 => (16, false),
            _ => {
                out!(self, "ES Invalid type {ty}, length {length}");
                return Ok(());
            }
        };
        let length = length.saturating_sub(rewrite as u32);
        if self.opts.link_header {
            let (idx, ttl) = (g2(p, 0)?, g1(p, 2)?);
            out!(
                self,
                "ES SA, index {idx}, ttl {ttl} type {} ({ty}), ",
                ipsec_type(ty)
            );
            if !bundle {
                let (spi, s, d) = (g4(p, 4)?, gv4(p, 8)?, gv4(p, 12)?);
                let (s, d) = (self.host4(s), self.host4(d));
                out!(self, "spi {spi}, Tunnel {s} > {d}, ");
            }
            out!(self, "length {length}\n");
        }
        self.ipv4(tail(p, rewrite), length);
        Ok(())
    }

    /// `ip_heuristic_guess`: IPv4 or IPv6 by the first byte; whether it was.
    fn ip_guess(&mut self, p: &[u8], length: u32) -> PResult<bool> {
        match g1(p, 0)? {
            0x45..=0x4f => self.ipv4(p, length),
            0x60..=0x6f => self.ipv6(p, length),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `juniper_parse_header`: `None` when the printer stops after it.
    fn juniper_header(&mut self, lt: u32, p: &[u8], length: u32) -> PResult<Option<L2>> {
        let flags = g1(p, 3)?;
        if g3(p, 0)? != MAGIC {
            self.out.push_str("no magic-number found!");
            return Ok(None);
        }
        if self.opts.link_header {
            out!(self, "{:>3} ", if flags & 1 != 0 { "In" } else { "Out" });
        }
        let vv = self.opts.verbose > 1;
        if vv {
            self.juniper_flags(flags);
        }
        let mut hdr = 4usize;
        if flags & BPF_EXT != 0 {
            let mut ext = usize::from(g2(p, 4)?);
            hdr += 2 + ext;
            let mut at = 6;
            if vv {
                out!(self, ", PCAP Extension(s) total length {ext}");
            }
            // All of the extensions must be captured.
            if ext > 0 {
                g1(p, 6 + ext - 1)?;
            }
            while ext > 2 {
                let (ty, len) = (p[at], usize::from(p[at + 1]));
                if ty == 0 || len == 0 {
                    break;
                }
                if ext < len + 2 {
                    out!(self, " [extension_length {ext} < {}] (invalid)", len + 2);
                    return Ok(None);
                }
                if vv {
                    self.juniper_ext_tlv(p, at)?;
                }
                at += 2 + len;
                ext -= len + 2;
            }
            if vv {
                self.out.push_str("\n\t-----original packet-----\n\t");
            }
        }
        if flags & BPF_NO_L2 != 0 {
            if self.opts.link_header {
                self.out.push_str("no-L2-hdr, ");
            }
            g1(p, hdr + 4)?;
            let rest = length.saturating_sub(hdr as u32 + 4);
            if !self.ip_guess(tail(p, hdr + 4), rest)? {
                self.out.push_str("no IP-hdr found!");
            }
            return Ok(None);
        }
        let mut length = length.saturating_sub(hdr as u32);
        let pic = match lt {
            JUNIPER_ATM1 => Some(("ATM1", 4)),
            JUNIPER_MONITOR => Some(("MONITOR", 8)),
            JUNIPER_ES => Some(("ES", 0)),
            _ => None,
        };
        let mut cookie = [0u8; 8];
        let mut cookie_len = 0usize;
        let mut proto = 0u16;
        if let Some((name, len)) = pic {
            cookie_len = len;
            match g1(p, hdr)? {
                LS_COOKIE_ID => cookie_len += 2,
                AS_COOKIE_ID => cookie_len = 8,
                _ => {}
            }
            length = length.saturating_sub(cookie_len as u32);
            if self.opts.link_header {
                out!(self, "{name}-PIC, cookie-len {cookie_len}");
            }
            if cookie_len > 8 {
                self.out.push_str(" (invalid)");
                return Ok(None);
            }
            if cookie_len > 0 {
                g1(p, hdr + cookie_len - 1)?;
                cookie[..cookie_len].copy_from_slice(&p[hdr..hdr + cookie_len]);
                if self.opts.link_header {
                    self.out.push_str(", cookie 0x");
                    for b in &cookie[..cookie_len] {
                        out!(self, "{b:02x}");
                    }
                }
            }
            if self.opts.link_header {
                self.out.push_str(": ");
            }
            proto = g2(p, hdr + cookie_len)?;
        }
        let header_len = hdr + cookie_len;
        if self.opts.link_header {
            out!(self, "hlen {header_len}, proto 0x{proto:04x}, ");
        }
        Ok(Some(L2 {
            header_len,
            length,
            cookie,
        }))
    }
}
