//! AHCP, the ad-hoc configuration protocol (UDP port 5359), as tcpdump
//! 4.99's `ahcp_print` prints it: the version, with `-v` the header and the
//! message type, with `-vv` every option.

use super::link::linkaddr;
use super::{g1, g2, g4, gv4, gv6, need, out, PResult, Printer};

const OPTS: [&str; 14] = [
    "Pad",
    "Mandatory",
    "Origin Time",
    "Expires",
    "My-IPv6-Address",
    "My-IPv4-Address",
    "IPv6 Prefix",
    "IPv4 Prefix",
    "IPv6 Address",
    "IPv4 Address",
    "IPv6 Prefix Delegation",
    "IPv4 Prefix Delegation",
    "Name Server",
    "NTP Server",
];

const MSGS: [&str; 6] = ["Discover", "Offer", "Request", "Ack", "Nack", "Release"];

impl Printer<'_> {
    /// `ahcp_print`: `len` bytes of UDP payload, `p` captured.
    pub(super) fn ahcp(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "ahcp";
        out!(self, "AHCP");
        let len = len as usize;
        if len < 2 || g1(p, 0)? != 43 {
            return self.ahcp_invalid(p, 0, len);
        }
        let version = g1(p, 1)?;
        if version != 1 {
            out!(self, " Version {version} (unknown)");
            return need(p, 2, len - 2);
        }
        out!(self, " Version 1");
        let (mut at, mut left) = (2, len - 2);
        if left < 22 {
            return self.ahcp_invalid(p, at, left);
        }
        if self.opts.verbose == 0 {
            need(p, at, 22)?;
        } else {
            out!(
                self,
                "\n\tHopcount {}, Original Hopcount {}, Nonce 0x{:08x}",
                g1(p, 2)?,
                g1(p, 3)?,
                g4(p, 4)?
            );
            need(p, 8, 8)?;
            out!(self, ", Source Id {}", linkaddr(&p[8..16]));
            need(p, 16, 8)?;
            out!(self, ", Destination Id {}", linkaddr(&p[16..24]));
        }
        at += 22;
        left -= 22;
        self.ahcp_body(p, at, left)
    }

    /// `nd_print_invalid` and tcpdump's check that the rest was captured.
    fn ahcp_invalid(&mut self, p: &[u8], at: usize, left: usize) -> PResult {
        out!(self, " (invalid)");
        need(p, at, left)
    }

    /// `ahcp1_body_print`.
    fn ahcp_body(&mut self, p: &[u8], at: usize, left: usize) -> PResult {
        if left < 4 {
            return self.ahcp_invalid(p, at, left);
        }
        let ty = g1(p, at)?;
        let mbz = g1(p, at + 1)?;
        let body = g2(p, at + 2)? as usize;
        if self.opts.verbose > 0 {
            match MSGS.get(ty as usize) {
                Some(n) => out!(self, "\n\t{n}"),
                None => out!(self, "\n\tUnknown-{ty}"),
            }
            if mbz != 0 {
                out!(self, ", MBZ {mbz}");
            }
            out!(self, ", Length {body}");
        }
        if body > left - 4 {
            return self.ahcp_invalid(p, at + 4, left - 4);
        }
        if self.opts.verbose >= 2 {
            self.ahcp_options(p, at + 4, body)
        } else {
            need(p, at + 4, body)
        }
    }

    /// `ahcp1_options_print`.
    fn ahcp_options(&mut self, p: &[u8], mut at: usize, mut left: usize) -> PResult {
        while left > 0 {
            let no = g1(p, at)?;
            at += 1;
            left -= 1;
            match OPTS.get(no as usize) {
                Some(n) => out!(self, "\n\t {n}"),
                None => out!(self, "\n\t Unknown-{no}"),
            }
            if no <= 1 {
                continue;
            }
            if left == 0 {
                return self.ahcp_invalid(p, at, left);
            }
            let olen = g1(p, at)? as usize;
            at += 1;
            left -= 1;
            if olen > left {
                return self.ahcp_invalid(p, at, left);
            }
            self.ahcp_option(p, at, no, olen)?;
            at += olen;
            left -= olen;
        }
        Ok(())
    }

    /// One option's value.
    fn ahcp_option(&mut self, p: &[u8], at: usize, no: u8, olen: usize) -> PResult {
        // Bytes per item and whether a prefix length follows, for the
        // address lists.
        let list = match no {
            2 | 3 => {
                if olen != 4 {
                    return self.ahcp_invalid(p, at, olen);
                }
                let v = g4(p, at)?;
                if no == 3 {
                    out!(self, ": {v}s");
                } else {
                    let (y, m, d, hh, mm, ss) = super::ntp::civil(i64::from(v));
                    out!(self, ": {y:04}-{m:02}-{d:02} {hh:02}:{mm:02}:{ss:02} UTC");
                }
                return Ok(());
            }
            4 | 8 | 12 | 13 => (16, false),
            5 | 9 => (4, false),
            6 | 10 => (16, true),
            11 => (4, true),
            _ => {
                out!(self, " (Length {olen})");
                return need(p, at, olen);
            }
        };
        let (size, prefix) = list;
        let item = size + usize::from(prefix);
        let mut sep = ": ";
        let mut off = 0;
        while off < olen {
            if olen - off < item {
                return self.ahcp_invalid(p, at + off, olen - off);
            }
            let a = if size == 16 {
                self.host6(gv6(p, at + off)?)
            } else {
                self.host4(gv4(p, at + off)?)
            };
            out!(self, "{sep}{a}");
            if prefix {
                out!(self, "/{}", g1(p, at + off + size)?);
            }
            off += item;
            sep = ", ";
        }
        Ok(())
    }
}
