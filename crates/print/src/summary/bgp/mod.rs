//! BGP (TCP port 179) as tcpdump 4.99.3's `bgp_print` prints it: `: BGP`
//! alone without `-v`; with `-v`, every message of the segment found by its
//! marker (OPEN with its optional parameters and capabilities, UPDATE with its
//! withdrawn routes, path attributes and NLRI, NOTIFICATION with its codes and
//! RFC 9003 text, ROUTE-REFRESH, KEEPALIVE), and with `-vv` the hex of what
//! tcpdump dumps then. `update.rs` prints the UPDATE message, `attr.rs` its
//! path attributes, `nlri.rs` the prefixes of every address family tcpdump
//! decodes, `names.rs` holds tcpdump's tables.
//!
//! tcpdump's bugs are kept where they change the text (a CLNP prefix read
//! three bytes late, an L2VPN TLV that is not skipped): the reference is what
//! it prints. Reads past the capture end the line with ` [|bgp]`, as
//! tcpdump's `GET_` macros do; every loop advances through the packet, so
//! nothing grows without bound.

mod attr;
mod names;
mod nlri;
mod update;

use super::{g1, g2, g4, gv4, need, out, PResult, Printer};
use names::{af_name, safi_name};

/// The 16 bytes of ones every BGP message starts with.
const MARKER: [u8; 16] = [0xff; 16];
/// The message header: marker, length, type.
const HEADER: usize = 19;

impl Printer<'_> {
    /// `bgp_print`: `d` is the TCP payload as captured.
    pub(super) fn bgp(&mut self, d: &[u8]) -> PResult {
        self.proto = "bgp";
        out!(self, ": BGP");
        if self.opts.verbose < 1 {
            return Ok(());
        }
        let (mut p, mut start) = (0usize, 0usize);
        while p < d.len() {
            if d[p] != 0xff {
                p += 1;
                continue;
            }
            match d.get(p..p + MARKER.len()) {
                None => break,
                Some(m) if m != MARKER => {
                    p += 1;
                    continue;
                }
                Some(_) => {}
            }
            if need(d, p, HEADER).is_err() {
                self.bgp_trunc();
                return Ok(());
            }
            if start != p {
                self.bgp_trunc();
            }
            let hlen = usize::from(g2(d, p + 16)?);
            if hlen < HEADER {
                out!(self, "\nmessage length {hlen} < {HEADER} (invalid)");
                break;
            }
            if need(d, p, hlen).is_ok() {
                if !self.bgp_pdu(&d[p..], hlen)? {
                    return Ok(());
                }
                p += hlen;
                start = p;
            } else {
                let ty = g1(d, p + 18)?;
                let name = names::MESSAGES.get(ty).unwrap_or("Unknown Message Type");
                out!(self, "\n[|BGP {name}]");
                // Text that looks like a marker, but no longjmp.
                self.caught_trunc = true;
                break;
            }
        }
        Ok(())
    }

    /// `as_printf`: an AS number, as `x.y` with `-b` when above 65535.
    fn asn(&self, asn: u32) -> String {
        if self.opts.asdot && asn > 0xffff {
            format!("{}.{}", asn >> 16, asn & 0xffff)
        } else {
            asn.to_string()
        }
    }

    /// `nd_print_trunc`: the marker, printed where tcpdump's BGP printer
    /// returns rather than `longjmp`s (which `-x` tells apart).
    fn bgp_trunc(&mut self) {
        self.trunc();
        self.caught_trunc = true;
    }

    /// `bgp_pdu_print`: one message of `length` bytes at the start of `m`;
    /// false when it ended the packet with the truncation marker.
    fn bgp_pdu(&mut self, m: &[u8], length: usize) -> PResult<bool> {
        let ty = g1(m, 18)?;
        out!(
            self,
            "\n\t{} Message ({ty}), length: {length}",
            names::MESSAGES.get(ty).unwrap_or("Unknown")
        );
        match ty {
            1 => self.bgp_open(m, length)?,
            2 => self.bgp_update(m, length)?,
            3 => self.bgp_notification(m, length)?,
            4 => {}
            5 => self.bgp_route_refresh(m, length)?,
            _ => {
                if need(m, 0, length).is_err() {
                    self.bgp_trunc();
                    return Ok(false);
                }
                out!(self, "\n\t  no Message {ty} decoder");
                self.unknown_data(m, 0, length, "\n\t  ");
            }
        }
        Ok(true)
    }

    /// `bgp_open_print`.
    fn bgp_open(&mut self, m: &[u8], length: usize) -> PResult {
        const OPEN: usize = 29;
        if need(m, 0, OPEN).is_err() || length < OPEN {
            self.bgp_trunc();
            return Ok(());
        }
        let id = self.host4(gv4(m, 24)?);
        out!(
            self,
            "\n\t  Version {}, my AS {}, Holdtime {}s, ID {id}",
            g1(m, 19)?,
            g2(m, 20)?,
            g2(m, 22)?
        );
        let optslen = usize::from(g1(m, 28)?);
        out!(self, "\n\t  Optional parameters, length: {optslen}");
        let length = length - OPEN;
        let mut i = 0;
        while i < optslen {
            if need(m, OPEN + i, 2).is_err() || length < 2 + i {
                self.bgp_trunc();
                return Ok(());
            }
            let ty = g1(m, OPEN + i)?;
            let len = usize::from(g1(m, OPEN + i + 1)?);
            if 2 + i + len > optslen {
                out!(
                    self,
                    "\n\t     Option {ty}, length: {len}, goes past the end of the options"
                );
                break;
            }
            let name = match ty {
                1 => "Authentication Information",
                2 => "Capabilities Advertisement",
                _ => "Unknown",
            };
            out!(self, "\n\t    Option {name} ({ty}), length: {len}");
            if ty == 2 {
                self.bgp_capabilities(m, OPEN + 2 + i, len)?;
            } else {
                out!(self, "\n\t      no decoder for option {ty}");
            }
            i += 2 + len;
        }
        Ok(())
    }

    /// `bgp_capabilities_print`: `caps_len` bytes of capabilities at `at`.
    fn bgp_capabilities(&mut self, m: &[u8], at: usize, caps_len: usize) -> PResult {
        let mut i = 0;
        while i < caps_len {
            let c = at + i;
            if need(m, c, 2).is_err() {
                self.bgp_trunc();
                return Ok(());
            }
            let (ty, len) = (g1(m, c)?, usize::from(g1(m, c + 1)?));
            out!(
                self,
                "\n\t      {} ({ty}), length: {len}",
                names::CAPABILITIES.get(ty).unwrap_or("Unknown")
            );
            if need(m, c + 2, len).is_err() {
                self.bgp_trunc();
                return Ok(());
            }
            match ty {
                1 => {
                    if len < 4 {
                        out!(self, " (too short, < 4)");
                        return Ok(());
                    }
                    out!(self, "\n\t\t");
                    self.afi_safi(m, c + 2, c + 5)?;
                }
                8 => {
                    let mut off = 2;
                    while off + 4 <= len + 2 {
                        out!(self, "\n\t\t");
                        self.afi_safi(m, c + off, c + off + 2)?;
                        out!(self, ", Count: {}", g1(m, c + off + 3)?);
                        off += 4;
                    }
                }
                64 => {
                    if len < 2 {
                        out!(self, " (too short, < 2)");
                        return Ok(());
                    }
                    out!(
                        self,
                        "\n\t\tRestart Flags: [{}], Restart Time {}s",
                        if g1(m, c + 2)? & 0x80 != 0 {
                            "R"
                        } else {
                            "none"
                        },
                        g2(m, c + 2)? & 0xfff
                    );
                    let mut off = 4;
                    while off + 4 <= len + 2 {
                        out!(self, "\n\t\t  ");
                        self.afi_safi(m, c + off, c + off + 2)?;
                        out!(
                            self,
                            ", Forwarding state preserved: {}",
                            if g1(m, c + off + 3)? & 0x80 != 0 {
                                "yes"
                            } else {
                                "no"
                            }
                        );
                        off += 4;
                    }
                }
                2 | 71 | 128 => {}
                65 => {
                    if len < 4 {
                        out!(self, " (too short, < 4)");
                        return Ok(());
                    }
                    let asn = self.asn(g4(m, c + 2)?);
                    out!(self, "\n\t\t 4 Byte AS {asn}");
                }
                69 => {
                    if len == 0 {
                        out!(self, " (bogus)");
                    }
                    let mut off = 2;
                    while off < len + 2 {
                        if len + 2 - off < 4 {
                            out!(self, " (invalid)");
                            break;
                        }
                        out!(self, "\n\t\t");
                        self.afi_safi(m, c + off, c + off + 2)?;
                        let sr = g1(m, c + off + 3)?;
                        match sr {
                            1 => out!(self, ", Send/Receive: Receive"),
                            2 => out!(self, ", Send/Receive: Send"),
                            3 => out!(self, ", Send/Receive: Both"),
                            _ => out!(self, ", Send/Receive: Bogus (0x{sr:02x})"),
                        }
                        off += 4;
                    }
                }
                _ => {
                    out!(self, "\n\t\tno decoder for Capability {ty}");
                    if self.opts.verbose <= 1 {
                        self.unknown_data(m, c + 2, len, "\n\t\t");
                    }
                }
            }
            if self.opts.verbose > 1 && len != 0 {
                self.unknown_data(m, c + 2, len, "\n\t\t");
            }
            i += 2 + len;
        }
        Ok(())
    }

    /// `AFI name (n), SAFI name (n)` from the AFI at `afi` and the SAFI at `safi`.
    fn afi_safi(&mut self, m: &[u8], afi: usize, safi: usize) -> PResult {
        let (a, s) = (g2(m, afi)?, g1(m, safi)?);
        out!(
            self,
            "AFI {} ({a}), SAFI {} ({s})",
            af_name(a).unwrap_or("Unknown"),
            safi_name(s).unwrap_or("Unknown")
        );
        Ok(())
    }

    /// Whether the first `size` bytes of a message of `length` are there to
    /// print: not when the capture ends first (the marker is printed) or the
    /// message is shorter (nothing is).
    fn fixed_part(&mut self, m: &[u8], length: usize, size: usize) -> bool {
        if need(m, 0, size).is_err() {
            self.bgp_trunc();
            return false;
        }
        length >= size
    }

    /// `bgp_notification_print`.
    fn bgp_notification(&mut self, m: &[u8], length: usize) -> PResult {
        const NOTIFICATION: usize = 21;
        if !self.fixed_part(m, length, NOTIFICATION) {
            return Ok(());
        }
        let (major, minor) = (g1(m, 19)?, g1(m, 20)?);
        out!(
            self,
            ", {} ({major})",
            names::NOTIFY_MAJOR.get(major).unwrap_or("Unknown Error")
        );
        let (sep, minors) = match major {
            1 => (",", names::NOTIFY_MSG),
            2 => (",", names::NOTIFY_OPEN),
            3 => (",", names::NOTIFY_UPDATE),
            5 => ("", names::NOTIFY_FSM),
            6 => (",", names::NOTIFY_CEASE),
            7 => ("", names::NOTIFY_CAP),
            _ => return Ok(()),
        };
        out!(
            self,
            "{sep} subcode {} ({minor})",
            minors.get(minor).unwrap_or("Unknown")
        );
        if major != 6 {
            return Ok(());
        }
        let t = NOTIFICATION;
        if minor == 1 && length >= NOTIFICATION + 7 {
            out!(self, ", ");
            self.afi_safi(m, t, t + 2)?;
            out!(self, ", Max Prefixes: {}", g4(m, t + 3)?);
        }
        if (minor == 2 || minor == 4) && length > NOTIFICATION {
            let comm = usize::from(g1(m, t)?);
            // tcpdump keeps the offset in a byte: 255 + 1 wraps to 0.
            let mut rest: u8 = 0;
            if comm > length - (NOTIFICATION + 1) {
                out!(self, ", invalid Shutdown Communication length");
            } else if comm == 0 {
                out!(self, ", empty Shutdown Communication");
                rest = 1;
            } else {
                out!(self, ", Shutdown Communication (length: {comm}): \"");
                for i in 0..comm {
                    super::print_char(&mut self.out, g1(m, t + 1 + i)?);
                }
                out!(self, "\"");
                rest = (comm as u8).wrapping_add(1);
            }
            let data = (length as u32).wrapping_sub(u32::from(rest) + NOTIFICATION as u32);
            if data > 0 {
                out!(self, ", Data: (length: {data})");
                let from = super::tail(m, t + usize::from(rest));
                crate::dump::unknown_data(&mut self.out, "\n\t\t", from, data as usize);
                if from.len() < data as usize {
                    return Err(super::Trunc);
                }
            }
        }
        Ok(())
    }

    /// `bgp_route_refresh_print`.
    fn bgp_route_refresh(&mut self, m: &[u8], length: usize) -> PResult {
        const ROUTE_REFRESH: usize = 23;
        if !self.fixed_part(m, length, ROUTE_REFRESH) {
            return Ok(());
        }
        out!(self, "\n\t  ");
        self.afi_safi(m, 19, 22)?;
        if self.opts.verbose > 1 {
            if need(m, 0, length).is_err() {
                self.bgp_trunc();
                return Ok(());
            }
            self.unknown_data(m, 0, length, "\n\t  ");
        }
        Ok(())
    }
}
