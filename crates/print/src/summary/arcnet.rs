//! ARCNET, BSD and Linux framing: tcpdump's `arcnet_if_print` and
//! `arcnet_linux_if_print`. One-byte addresses and a protocol byte; RFC 1201's
//! fragmentation header (flag, sequence number, the exception form with flag 0xff)
//! follows except for the RFC 1051 types and diagnostics. IPv4, IPv6, ARP and
//! IPX are printed; AppleTalk (which netsift does not decode) prints nothing,
//! and another type's payload is dumped (tcpdump's unguarded `ND_DEFAULTPRINT`).
//!
//! With `-e`, the Linux form prints the header as if it were the BSD one (tcpdump
//! passes it to the same printer), so the "type" shown is the high byte of the
//! Linux offset field.

use super::{g1, g2, out, tail, PResult, Printer, Trunc};

const IP_OLD: u8 = 240;
const ARP_OLD: u8 = 241;
const IP: u8 = 212;
const ARP: u8 = 213;
const REVARP: u8 = 214;
const INET6: u8 = 0xc4;
const DIAGNOSE: u8 = 0x80;
const ATALK: u8 = 221;
const IPX: u8 = 250;

/// `arctypemap`.
fn type_name(t: u8) -> String {
    let s = match t {
        IP_OLD => "oldip",
        ARP_OLD => "oldarp",
        IP => "ip",
        ARP => "arp",
        REVARP => "rarp",
        ATALK => "atalk",
        247 => "banyan",
        IPX => "ipx",
        INET6 => "ipv6",
        DIAGNOSE => "diag",
        _ => return format!("{t:02x}"),
    };
    s.to_string()
}

/// Whether a protocol byte has no fragmentation header (RFC 1051, diagnostics).
fn short_header(t: u8) -> bool {
    matches!(t, IP_OLD | ARP_OLD | DIAGNOSE)
}

impl Printer<'_> {
    /// `arcnet_print`: the `-e` header, read as the BSD header from `p`.
    fn arcnet_hdr(&mut self, p: &[u8], length: u32, phds: Option<(u8, u16)>) -> PResult {
        let (s, d) = (g1(p, 0)?, g1(p, 1)?);
        if self.opts.quiet {
            out!(self, "{s:02x} {d:02x} {length}: ");
            return Ok(());
        }
        let name = type_name(g1(p, 2)?);
        match phds {
            None => out!(self, "{s:02x} {d:02x} {name} {length}: "),
            Some((0, seq)) => out!(self, "{s:02x} {d:02x} {name} seqid {seq:04x} {length}: "),
            Some((flag, seq)) if flag & 1 != 0 => out!(
                self,
                "{s:02x} {d:02x} {name} seqid {seq:04x} (first of {} fragments) {length}: ",
                (u32::from(flag) + 3) / 2
            ),
            Some((flag, seq)) => out!(
                self,
                "{s:02x} {d:02x} {name} seqid {seq:04x} (fragment {}) {length}: ",
                flag / 2 + 1
            ),
        }
        Ok(())
    }

    /// `arcnet_if_print`.
    pub(super) fn arcnet_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "arcnet";
        if data.len() < 3 {
            return Err(Trunc);
        }
        let t = g1(data, 2)?;
        let (hdr, phds) = if short_header(t) {
            (3, None)
        } else {
            if data.len() < 6 {
                self.arcnet_hdr(data, length, None)?;
                self.out.push_str(" phds");
                return Err(Trunc);
            }
            match g1(data, 3)? {
                0xff if data.len() < 10 => {
                    self.arcnet_hdr(data, length, None)?;
                    self.out.push_str(" phds extended");
                    return Err(Trunc);
                }
                0xff => (10, Some((g1(data, 7)?, g2(data, 8)?))),
                flag => (6, Some((flag, g2(data, 4)?))),
            }
        };
        if self.opts.link_header {
            self.arcnet_hdr(data, length, phds)?;
        }
        if let Some((flag, _)) = phds {
            if flag != 0 && flag & 1 == 0 {
                // A middle fragment: nothing after the header.
                self.printed_nothing = true;
                return Ok(());
            }
        }
        self.arcnet_encap(t, tail(data, hdr), length.saturating_sub(hdr as u32))
    }

    /// `arcnet_linux_if_print`.
    pub(super) fn arcnet_linux_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "arcnet_linux";
        if data.len() < 5 {
            return Err(Trunc);
        }
        let t = g1(data, 4)?;
        let hdr = if short_header(t) { 5 } else { 8 };
        if data.len() < hdr {
            return Err(Trunc);
        }
        if self.opts.link_header {
            self.arcnet_hdr(data, length, None)?;
        }
        self.arcnet_encap(t, tail(data, hdr), length.saturating_sub(hdr as u32))
    }

    /// `arcnet_encap_print`, and its callers' dump of a type it does not know.
    fn arcnet_encap(&mut self, t: u8, p: &[u8], length: u32) -> PResult {
        match t {
            IP_OLD | IP => self.ipv4(p, length),
            INET6 => self.ipv6(p, length),
            ARP_OLD | ARP | REVARP => self.arp(p, length)?,
            IPX => self.ipx(p, length)?,
            // AppleTalk's DDP: not decoded.
            ATALK => self.printed_nothing = true,
            _ => {
                self.printed_nothing = true;
                self.default_print(p, false);
            }
        }
        Ok(())
    }
}
