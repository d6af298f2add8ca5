//! Serial-line and firewall-log link layers: PPP (`ppp_if_print`), Cisco HDLC
//! (`chdlc_print`, with SLARP) and OpenBSD pflog (`pflog_if_print`), as tcpdump 4.99
//! prints them, `-e` included.

use super::{g1, g2, g4, gv4, out, tail, PResult, Printer, Trunc};
use netsift_wire::ethernet::EtherType;

/// Cisco HDLC's SLARP: a request, a reply, or a keepalive with an optional uptime.
const SLARP_MIN_LEN: u32 = 14;
const SLARP_MAX_LEN: u32 = 18;

impl Printer<'_> {
    /// DLT_PPP: at least the 4-byte header, then `ppp_print`.
    pub(super) fn ppp_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "ppp";
        if data.len() < 4 {
            return Err(Trunc);
        }
        self.ppp(data, length)
    }

    /// `chdlc_print`: address (unicast 0x0f, broadcast 0x8f), control, Ethertype.
    pub(super) fn chdlc_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "chdlc";
        if length < 4 {
            return Err(Trunc);
        }
        let proto = g2(data, 2)?;
        if self.opts.link_header {
            let cast = match g1(data, 0)? {
                0x0f => "unicast".to_string(),
                0x8f => "bcast".to_string(),
                b => format!("0x{b:02x}"),
            };
            let name = EtherType(proto).name().unwrap_or("Unknown");
            out!(
                self,
                "{cast}, ethertype {name} (0x{proto:04x}), length {length}: "
            );
        }
        let (p, length) = (tail(data, 4), length - 4);
        match EtherType(proto) {
            EtherType::IPV4 => self.ipv4(p, length),
            EtherType::IPV6 => self.ipv6(p, length),
            EtherType::MPLS_UNICAST | EtherType::MPLS_MULTICAST => self.mpls(p, length)?,
            // Cisco's SLARP reuses Reverse ARP's number.
            EtherType::RARP => {
                self.proto = "chdlc_slarp";
                self.slarp(p, length)?
            }
            _ if !self.opts.link_header => {
                out!(self, "unknown CHDLC protocol (0x{proto:04x})")
            }
            _ => {}
        }
        Ok(())
    }

    fn slarp(&mut self, p: &[u8], length: u32) -> PResult {
        out!(self, "SLARP (length: {length}), ");
        if length < SLARP_MIN_LEN || p.len() < SLARP_MIN_LEN as usize {
            return Err(Trunc);
        }
        match g4(p, 0)? {
            0 => out!(self, "request"),
            1 => out!(self, "reply {}/{}", gv4(p, 4)?, gv4(p, 8)?),
            2 => {
                out!(
                    self,
                    "keepalive: mineseen=0x{:08x}, yourseen=0x{:08x}, reliability=0x{:04x}",
                    g4(p, 4)?,
                    g4(p, 8)?,
                    g2(p, 12)?
                );
                if length >= SLARP_MAX_LEN {
                    let mut sec = g4(p, 14)? / 1000;
                    let mut min = sec / 60;
                    sec -= min * 60;
                    let mut hrs = min / 60;
                    min -= hrs * 60;
                    let days = hrs / 24;
                    hrs -= days * 24;
                    out!(self, ", link uptime={days}d{hrs}h{min}m{sec}s");
                }
            }
            code => out!(self, "0x{code:02x} unknown"),
        }
        if SLARP_MAX_LEN < length && self.opts.verbose > 0 {
            out!(self, ", (trailing junk: {} bytes)", length - SLARP_MAX_LEN);
        }
        Ok(())
    }
}
