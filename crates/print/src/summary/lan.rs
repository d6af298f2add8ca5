//! FDDI, Token Ring (IEEE 802.5), IP over Fibre Channel and Apple's IP over IEEE
//! 1394: tcpdump's `fddi_print`, `token_print`, `ipfc_print` and `ap1394_if_print`.
//! The first three
//! carry 802.2 LLC after their MAC header, which [`Printer::llc`] prints as it does
//! for 802.3; `-e` puts the frame control (FDDI) or access and frame control (Token
//! Ring) and the addresses first, and Token Ring's routing information field, when
//! the source address says the frame is source-routed, is printed before the LLC.
//! FDDI addresses are printed as captured (tcpdump does not bit-swap them on
//! Linux).

use super::link::{ethertype_str, linkaddr};
use super::{g1, g2, out, tail, PResult, Printer, Trunc};
use netsift_wire::ethernet::EthernetAddress;

const FDDI_HDRLEN: usize = 13;
const TOKEN_HDRLEN: usize = 14;
const IPFC_HDRLEN: usize = 16;
const AP1394_HDRLEN: usize = 18;
/// Frame-control classes (`fc & 0xf0`).
const FDDIFC_LLC_ASYNC: u8 = 0x50;
const FDDIFC_SMT: u8 = 0x40;
/// `largest_frame`: the routing control field's largest-frame code.
const LARGEST_FRAME: [&str; 8] = [
    "516", "1500", "2052", "4472", "8144", "11407", "17800", "??",
];

/// `print_fddi_fc`: the frame control's name.
fn fddi_fc(fc: u8) -> String {
    let named = match fc {
        0x40 => "void",
        0x80 => "nrt",
        0xc0 => "rt",
        0x41 => "info",
        0x4f => "nsa",
        0xc2 => "beacon",
        0xc3 => "claim",
        _ => "",
    };
    if !named.is_empty() {
        return format!("{named} ");
    }
    let class = match fc & 0xf0 {
        0xc0 => "mac",
        0x40 => "smt",
        0x50 => "async",
        0xd0 => "sync",
        0x60 => "imp_async",
        0xe0 => "imp_sync",
        _ => return format!("{fc:02x} "),
    };
    format!("{class}{:x} ", fc & 0x0f)
}

fn mac(b: &[u8]) -> EthernetAddress {
    EthernetAddress::from_bytes(b)
}

impl Printer<'_> {
    /// `fddi_print`.
    pub(super) fn fddi_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "fddi";
        if data.len() < FDDI_HDRLEN {
            return Err(Trunc);
        }
        let fc = g1(data, 0)?;
        let (dst, src) = (mac(&data[1..7]), mac(&data[7..13]));
        let hdr = |pr: &mut Self| {
            if !pr.opts.quiet {
                pr.out.push_str(&fddi_fc(fc));
            }
            out!(pr, "{src} > {dst}, length {length}: ");
        };
        if self.opts.link_header {
            hdr(self);
        }
        let p = tail(data, FDDI_HDRLEN);
        let rest = length.saturating_sub(FDDI_HDRLEN as u32);
        match fc & 0xf0 {
            FDDIFC_LLC_ASYNC => {
                self.llc(p, rest, Some((src, dst)))?;
            }
            FDDIFC_SMT => self.out.push_str("<SMT printer not yet implemented>"),
            _ if !self.opts.link_header => hdr(self),
            _ => {}
        }
        Ok(())
    }

    /// `ipfc_print`: RFC 2625 IP over Fibre Channel, the MAC addresses in the low
    /// 48 bits of the two network addresses, then LLC.
    pub(super) fn ipfc_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "ipfc";
        if data.len() < IPFC_HDRLEN {
            return Err(Trunc);
        }
        let (dst, src) = (mac(&data[2..8]), mac(&data[10..16]));
        if self.opts.link_header {
            out!(self, "{src} > {dst}, length {length}: ");
        }
        let rest = length.saturating_sub(IPFC_HDRLEN as u32);
        self.llc(tail(data, IPFC_HDRLEN), rest, Some((src, dst)))?;
        Ok(())
    }

    /// `ap1394_if_print`: Apple's IP over IEEE 1394, two EUI-64 addresses and an
    /// Ethertype.
    pub(super) fn ap1394_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "ap1394";
        if data.len() < AP1394_HDRLEN {
            return Err(Trunc);
        }
        let t = g2(data, 16)?;
        let hdr = |pr: &mut Self, length: u32| {
            let (d, s) = (linkaddr(&data[..8]), linkaddr(&data[8..16]));
            out!(
                pr,
                "{s} > {d}, {}, length {length}: ",
                ethertype_str(t, pr.opts.quiet)
            );
        };
        if self.opts.link_header {
            hdr(self, length);
        }
        let rest = length.saturating_sub(AP1394_HDRLEN as u32);
        if !self.ethertype(t, tail(data, AP1394_HDRLEN), rest, None)? && !self.opts.link_header {
            hdr(self, length);
        }
        Ok(())
    }

    /// `token_print`.
    pub(super) fn token_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "token-ring";
        if data.len() < TOKEN_HDRLEN {
            return Err(Trunc);
        }
        let (ac, fc) = (g1(data, 0)?, g1(data, 1)?);
        let dst = mac(&data[2..8]);
        let mut s = [0u8; 6];
        s.copy_from_slice(&data[8..14]);
        let routed = s[0] & 0x80 != 0;
        s[0] &= 0x7f;
        let src = mac(&s);
        let hdr = |pr: &mut Self, length: u32| {
            if !pr.opts.quiet {
                out!(pr, "{ac:02x} {fc:02x} ");
            }
            out!(pr, "{src} > {dst}, length {length}: ");
        };
        if self.opts.link_header {
            hdr(self, length);
        }
        let mut hdr_len = TOKEN_HDRLEN;
        if routed {
            let rcf = g2(data, 14)?;
            let rif = ((rcf & 0x1f00) >> 8) as usize;
            hdr_len += rif;
            if data.len() < hdr_len {
                return Err(Trunc);
            }
            let segs = (rif as i32 - 2) / 2;
            if self.opts.verbose > 0 {
                let bcast = if rcf >> 15 == 0 {
                    "Non-Broadcast"
                } else if rcf & 0x4000 == 0 {
                    "All-routes"
                } else {
                    "Single-route"
                };
                let dir = if rcf & 0x80 == 0 {
                    "Forward"
                } else {
                    "Backward"
                };
                out!(self, "{bcast} {dir}");
                for i in 0..segs.max(0) as usize {
                    let seg = g2(data, 16 + 2 * i)?;
                    out!(self, " [{}:{}]", seg >> 4, seg & 0x0f);
                }
            } else {
                out!(self, "rt = {rcf:x}");
                for i in 0..segs.max(0) as usize {
                    out!(self, ":{:x}", g2(data, 16 + 2 * i)?);
                }
            }
            out!(self, " ({}) ", LARGEST_FRAME[((rcf & 0x70) >> 4) as usize]);
        }
        let p = tail(data, hdr_len);
        let rest = length.saturating_sub(hdr_len as u32);
        if (fc & 0xc0) >> 6 == 1 {
            self.llc(p, rest, Some((src, dst)))?;
        } else if !self.opts.link_header {
            hdr(self, length);
        }
        Ok(())
    }
}
