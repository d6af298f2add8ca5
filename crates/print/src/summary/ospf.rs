//! OSPF as `tcpdump -v` prints it. OSPFv3 (`ospf6_print`, `ospf6_decode_v3`):
//! router and area, then a Hello's or Database Description's fields, then an
//! LLS block and an authentication trailer after the packet; link-state lists
//! wait for `-vv`, so requests, updates and acknowledgments add nothing more.
//! OSPFv2 (`ospf_print`): router, area and authentication, a Hello's fields and
//! neighbors and its LLS block; the link-state advertisements the other OSPFv2
//! packets carry are not decoded, so those keep the one-line summary.

use super::{bit_names, bit_names_or, g1, g2, g4, gv4, need, out, tail, PResult, Printer, Trunc};
use std::net::Ipv4Addr;

const HEADER_LEN: usize = 16;
/// The L option: a link-local signaling block follows the packet.
const OPTION_LLS: u32 = 0x0200;

pub(super) const OPTIONS: [(u32, &str); 9] = [
    (0x01, "V6"),
    (0x02, "External"),
    (0x04, "Deprecated"),
    (0x08, "NSSA"),
    (0x10, "Router"),
    (0x20, "Demand Circuit"),
    (0x0100, "AFs Support"),
    (0x0200, "LLS"),
    (0x0400, "Authentication Trailer"),
];

impl Printer<'_> {
    /// The lines after `OSPFv2, Hello, length 44` (`ospf_print` with `-v`):
    /// `bp` is the OSPF packet, `length` its length without an MD5 trailer.
    pub(super) fn ospf2_verbose(&mut self, bp: &[u8], length: u32) -> PResult {
        let length = length as usize;
        let plen = g2(bp, 2)? as usize;
        if length != plen {
            out!(self, " [len {plen}]");
        }
        let dataend = length.min(plen);
        self.ospf_router_area(bp)?;
        need(bp, 16, 8)?;
        let auth = g2(bp, 14)?;
        let aname = match auth {
            0 => "none",
            1 => "simple",
            2 => "MD5",
            _ => "unknown",
        };
        out!(self, ", Authentication Type: {aname} ({auth})");
        match auth {
            0 => {}
            1 => {
                out!(self, "\n\tSimple text password: ");
                self.jnp(bp, 16, 8)?;
            }
            2 => out!(
                self,
                "\n\tKey-ID: {}, Auth-Length: {}, Crypto Sequence Number: 0x{:08x}",
                g1(bp, 18)?,
                g1(bp, 19)?,
                g4(bp, 20)?
            ),
            _ => return Ok(()),
        }
        // tcpdump takes an MD5 digest off the captured bytes too.
        let bp = if auth == 2 {
            super::head(bp, bp.len().saturating_sub(16))
        } else {
            bp
        };
        match g1(bp, 0)? {
            2 => {
                self.ospf2_body(bp, dataend)?;
                let t = g1(bp, 1)?;
                let options = match t {
                    1 => g1(bp, 30)?,
                    2 => g1(bp, 26)?,
                    _ => 0,
                };
                if length > plen && options & 0x10 != 0 {
                    self.ospf2_lls(bp, length, plen, auth)?;
                }
            }
            v => out!(self, " ospf [version {v}]"),
        }
        Ok(())
    }

    /// `ospf_decode_lls`: the link-local signaling block after the packet (and
    /// after an MD5 digest).
    fn ospf2_lls(&mut self, bp: &[u8], length: usize, plen: usize, auth: u16) -> PResult {
        let mut at = plen;
        if auth == 2 {
            at += g1(bp, 19)? as usize;
        }
        if at >= length {
            out!(self, "\n\t[LLS truncated]");
            return Ok(());
        }
        out!(self, "\n\t  LLS: checksum: 0x{:04x}", g2(bp, at)?);
        out!(self, ", length: {}", g2(bp, at + 2)?);
        at += 4;
        while at < length {
            let t = g2(bp, at)?;
            let tname = match t {
                1 => "Extended Options",
                2 => "MD5 Authentication",
                _ => "Unknown TLV",
            };
            let mut tlen = g2(bp, at + 2)? as usize;
            out!(self, "\n\t    {tname} ({t}), length: {tlen}");
            at += 4;
            match t {
                1 => {
                    if tlen != 4 {
                        out!(self, " [should be 4]");
                        tlen = 4;
                    }
                    let f = g4(bp, at)?;
                    let names = [(0x01, "LSDB resync"), (0x02, "Restart")];
                    let set = bit_names_or(f, &names, "?");
                    out!(self, "\n\t      Options: 0x{f:08x} [{set}]");
                }
                2 => {
                    if tlen != 20 {
                        out!(self, " [should be 20]");
                        tlen = 20;
                    }
                    out!(self, "\n\t      Sequence number: 0x{:08x}", g4(bp, at)?);
                }
                _ => {}
            }
            at += tlen;
        }
        Ok(())
    }

    /// The router ID and area of the common OSPF header.
    fn ospf_router_area(&mut self, bp: &[u8]) -> PResult {
        out!(self, "\n\tRouter-ID {}", gv4(bp, 4)?);
        match g4(bp, 8)? {
            0 => out!(self, ", Backbone Area"),
            a => out!(self, ", Area {}", Ipv4Addr::from(a)),
        }
        Ok(())
    }

    /// A Hello's designated and backup designated routers, at `at`, when set.
    fn ospf_routers(&mut self, b: &[u8], at: usize) -> PResult {
        let dr = g4(b, at)?;
        if dr != 0 {
            out!(self, "\n\t  Designated Router {}", Ipv4Addr::from(dr));
        }
        let bdr = g4(b, at + 4)?;
        if bdr != 0 {
            out!(self, ", Backup Designated Router {}", Ipv4Addr::from(bdr));
        }
        Ok(())
    }

    /// The lines after `OSPFv3, Hello, length 36`: `bp` is the OSPF packet,
    /// `length` what the IP layer gives it.
    pub(super) fn ospf6_verbose(&mut self, bp: &[u8], length: u32) -> PResult {
        let length = length as usize;
        let datalen = g2(bp, 2)? as usize;
        if datalen > length {
            out!(self, " [len {datalen}]");
            return Ok(());
        }
        self.ospf_router_area(bp)?;
        let instance = g1(bp, 14)?;
        if instance != 0 {
            out!(self, ", Instance {instance}");
        }
        let r = self.ospf6_body(bp).and_then(|lls| {
            // What follows the packet, within the IP payload.
            self.ospf6_trailer(tail(bp, datalen), length - datalen, lls)
        });
        if r.is_err() {
            self.trunc();
        }
        Ok(())
    }

    /// `ospf6_decode_v3` at `-v`; returns whether an LLS block follows.
    fn ospf6_body(&mut self, bp: &[u8]) -> PResult<bool> {
        let b = tail(bp, HEADER_LEN);
        match g1(bp, 1)? {
            1 => {
                let options = g4(b, 4)?;
                out!(self, "\n\tOptions [{}]", bit_names(options, &OPTIONS));
                out!(
                    self,
                    "\n\t  Hello Timer {}s, Dead Timer {}s, Interface-ID {}, Priority {}",
                    g2(b, 8)?,
                    g2(b, 10)?,
                    gv4(b, 0)?,
                    g1(b, 4)?
                );
                self.ospf_routers(b, 12)?;
                if self.opts.verbose > 1 {
                    out!(self, "\n\t  Neighbor List:");
                    let mut at = HEADER_LEN + 20;
                    while at < g2(bp, 2)? as usize {
                        out!(self, "\n\t    {}", gv4(bp, at)?);
                        at += 4;
                    }
                }
                Ok(options & OPTION_LLS != 0)
            }
            2 => {
                let options = g4(b, 0)?;
                out!(self, "\n\tOptions [{}]", bit_names(options, &OPTIONS));
                let flags = [
                    (0x04, "Init"),
                    (0x02, "More"),
                    (0x01, "Master"),
                    (0x10, "IPv6 MTU"),
                ];
                out!(
                    self,
                    ", DD Flags [{}], MTU {}, DD-Sequence 0x{:08x}",
                    bit_names(g1(b, 7)? as u32, &flags),
                    g2(b, 4)?,
                    g4(b, 8)?
                );
                if self.opts.verbose > 1 {
                    self.ospf6_lists(bp, g2(bp, 2)? as usize)?;
                }
                Ok(options & OPTION_LLS != 0)
            }
            3..=5 => {
                if self.opts.verbose > 1 {
                    self.ospf6_lists(bp, g2(bp, 2)? as usize)?;
                }
                Ok(false)
            }
            _ => Ok(false),
        }
    }

    /// `ospf6_decode_v3_trailer`: an LLS block (when the options announce
    /// one) and an authentication trailer in the `len` bytes at `cp`.
    fn ospf6_trailer(&mut self, cp: &[u8], len: usize, lls: bool) -> PResult {
        let mut at = 0;
        if lls && len > 0 {
            if len < 4 {
                return Err(Trunc);
            }
            out!(self, "\n\tLLS Checksum 0x{:04x}", g2(cp, 0)?);
            let dlen = g2(cp, 2)? as usize;
            out!(self, ", Data Length {dlen}");
            if dlen < 4 || dlen > len {
                return Err(Trunc);
            }
            need(cp, 4, dlen - 4)?;
            at = dlen;
        }
        let len = len - at;
        if len == 0 {
            return Ok(());
        }
        let a = tail(cp, at);
        if len < 16 {
            return Err(Trunc);
        }
        match g2(a, 0)? {
            1 => out!(self, "\n\tAuthentication Type HMAC"),
            t => out!(self, "\n\tAuthentication Type unknown (0x{t:04x})"),
        }
        let alen = g2(a, 2)? as usize;
        out!(self, ", Length {alen}");
        if alen < 16 || alen > len {
            return Err(Trunc);
        }
        out!(
            self,
            ", SAID {}, CSN 0x{:08x}:{:08x}",
            g2(a, 6)?,
            g4(a, 8)?,
            g4(a, 12)?
        );
        need(a, 16, alen - 16)?;
        if self.opts.verbose > 1 {
            self.unknown_data(a, 16, alen - 16, "\n\tAuthentication Data ");
        }
        Ok(())
    }
}
