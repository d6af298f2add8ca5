//! DCCP (RFC 4340), as tcpdump's `dccp_print`: the packet type and its
//! fields; with `-v` the CCVal, checksum coverage and checksum (over the
//! covered part only, RFC 4340 9.2); with `-vv` the sequence number and the
//! options.

use super::{g1, g2, g4, need, out, IpAddrs, IpCtx, PResult, Printer};
use netsift_wire::checksum::ones_sum;

const TYPES: [&str; 10] = [
    "DCCP-Request",
    "DCCP-Response",
    "DCCP-Data",
    "DCCP-Ack",
    "DCCP-DataAck",
    "DCCP-CloseReq",
    "DCCP-Close",
    "DCCP-Reset",
    "DCCP-Sync",
    "DCCP-SyncAck",
];

const RESET_CODES: [&str; 12] = [
    "unspecified",
    "closed",
    "aborted",
    "no_connection",
    "packet_error",
    "option_error",
    "mandatory_error",
    "connection_refused",
    "bad_service_code",
    "too_busy",
    "bad_init_cookie",
    "aggression_penalty",
];

const FEATURES: [&str; 10] = [
    "reserved",
    "ccid",
    "allow_short_seqno",
    "sequence_window",
    "ecn_incapable",
    "ack_ratio",
    "send_ack_vector",
    "send_ndp_count",
    "minimum checksum coverage",
    "check data checksum",
];

fn option_name(t: u8) -> String {
    let name = match t {
        0 => "nop",
        1 => "mandatory",
        2 => "slowreceiver",
        32 => "change_l",
        33 => "confirm_l",
        34 => "change_r",
        35 => "confirm_r",
        36 => "initcookie",
        37 => "ndp_count",
        38 => "ack_vector0",
        39 => "ack_vector1",
        40 => "data_dropped",
        41 => "timestamp",
        42 => "timestamp_echo",
        43 => "elapsed_time",
        44 => "data_checksum",
        _ => return format!("Option {t}"),
    };
    name.to_string()
}

/// A big-endian number of `n` bytes at `at` (the 24- and 48-bit sequence
/// and acknowledgment numbers).
fn gn(p: &[u8], at: usize, n: usize) -> PResult<u64> {
    need(p, at, n)?;
    Ok(p[at..at + n]
        .iter()
        .fold(0u64, |v, &b| (v << 8) | u64::from(b)))
}

/// The checksum over the first `covered` bytes of a `len`-byte packet with
/// the pseudo-header, whose length field is the whole packet's (tcpdump's
/// `nextproto4_cksum(..., len, covlen, ...)`): 0 when right.
fn cksum(ctx: &IpCtx, len: u32, covered: &[u8]) -> u16 {
    let mut s = match ctx.pseudo {
        IpAddrs::V4(a, b) => ones_sum(ones_sum(0, &a.octets()), &b.octets()),
        IpAddrs::V6(a, b) => ones_sum(ones_sum(0, &a.octets()), &b.octets()),
    };
    s = ones_sum(s, &[0, 33]);
    s = ones_sum(s, &len.to_be_bytes());
    !(ones_sum(s, covered) as u16)
}

impl Printer<'_> {
    /// `dccp_print`.
    pub(super) fn dccp(&mut self, bp: &[u8], length: u32, ctx: &IpCtx) -> PResult {
        self.proto = "dccp";
        need(bp, 0, 12)?;
        if length < 12 {
            out!(self, "truncated-dccp - {} bytes missing!", 12 - length);
            return Ok(());
        }
        // The X bit makes the sequence number 48 bits wide.
        let ext = g1(bp, 8)? & 1 != 0;
        let mut fixed = if ext { 16 } else { 12 };
        if length < fixed {
            out!(self, "truncated-dccp - {} bytes missing!", fixed - length);
            return Ok(());
        }
        need(bp, 0, fixed as usize)?;
        let (src, dst) = self.addr_str(&ctx.addrs);
        let (sport, dport) = (g2(bp, 0)?, g2(bp, 2)?);
        let mut hlen = g1(bp, 4)? as u32 * 4;
        out!(self, "{src}.{sport} > {dst}.{dport}: DCCP");
        if self.opts.quiet {
            out!(self, " {}", length.wrapping_sub(hlen));
            if hlen > length {
                out!(self, " [bad hdr length {hlen} - too long, > {length}]");
            }
            return Ok(());
        }
        let cscov = g1(bp, 5)? & 0x0f;
        if self.opts.verbose > 0 {
            out!(self, " (CCVal {}, CsCov {cscov}", g1(bp, 5)? >> 4);
            if let Some(pkt) = bp.get(..length as usize) {
                let field = g2(bp, 6)?;
                let cov = if cscov == 0 {
                    length
                } else {
                    ((g1(bp, 4)? as u32 + cscov as u32 - 1) * 4).min(length)
                };
                out!(self, ", cksum 0x{field:04x} ");
                match cksum(ctx, length, &pkt[..cov as usize]) {
                    0 => out!(self, "(correct)"),
                    sum => out!(
                        self,
                        "(incorrect -> 0x{:04x})",
                        super::cksum_shouldbe(field, sum)
                    ),
                }
            }
            out!(self, ")");
        }
        out!(self, " ");
        let t = (g1(bp, 8)? >> 1) & 0x0f;
        let name = TYPES.get(t as usize).copied().unwrap_or("");
        // The bytes each type adds to the generic header.
        let extra = match t {
            0 => 4,
            2 => 0,
            1 | 7 => 12,
            3..=6 | 8 | 9 => 8,
            _ => 0,
        };
        fixed += extra;
        if length < fixed {
            out!(self, "truncated-{name} - {} bytes missing!", fixed - length);
            return Ok(());
        }
        let at = fixed as usize - extra as usize;
        match t {
            0 => out!(self, "{name} (service={}) ", g4(bp, at)?),
            1 => out!(self, "{name} (service={}) ", g4(bp, at + 8)?),
            7 => {
                let code = g1(bp, at + 8)?;
                let code = RESET_CODES.get(code as usize).copied().unwrap_or("invalid");
                out!(self, "{name} (code={code}) ");
            }
            2..=6 | 8 | 9 => out!(self, "{name} "),
            _ => out!(self, "unknown-type-{t} "),
        }
        if t != 0 && t != 2 {
            // The acknowledgment subheader follows the generic header.
            let a = if ext { 16 } else { 12 };
            let ack = if ext {
                gn(bp, a + 2, 6)?
            } else {
                gn(bp, a + 1, 3)?
            };
            out!(self, "(ack={ack}) ");
        }
        if self.opts.verbose < 2 {
            return Ok(());
        }
        let seq = if ext { gn(bp, 10, 6)? } else { gn(bp, 9, 3)? };
        out!(self, "seq {seq}");
        if hlen > fixed {
            out!(self, " <");
            let mut cp = fixed as usize;
            hlen -= fixed;
            loop {
                let optlen = self.dccp_option(bp, cp, hlen)?;
                if optlen == 0 {
                    break;
                }
                if hlen <= optlen {
                    break;
                }
                hlen -= optlen;
                cp += optlen as usize;
                out!(self, ", ");
            }
            out!(self, ">");
        }
        Ok(())
    }

    /// `dccp_print_option`: one option at `at` with `hlen` header bytes
    /// left; returns its length, 0 where tcpdump stops.
    fn dccp_option(&mut self, bp: &[u8], at: usize, hlen: u32) -> PResult<u32> {
        let t = g1(bp, at)?;
        let what = || {
            if t >= 128 {
                format!("CCID option {t}")
            } else {
                option_name(t)
            }
        };
        let optlen = if t >= 32 {
            let l = g1(bp, at + 1)?;
            if l < 2 {
                out!(self, "{} optlen too short", what());
                return Ok(0);
            }
            l as usize
        } else {
            1
        };
        if (hlen as usize) < optlen {
            out!(self, "{} optlen goes past header length", what());
            return Ok(0);
        }
        // A cut-short option is marked and ends the list, which is closed.
        let Some(o) = bp.get(at..at + optlen) else {
            self.trunc();
            return Ok(0);
        };
        out!(self, "{}", what());
        let hex = |p: &mut Self, sep: &str| {
            if optlen > 2 {
                out!(p, "{sep}");
                for b in &o[2..] {
                    out!(p, "{b:02x}");
                }
            }
        };
        if t >= 128 {
            match optlen {
                4 => out!(self, " {}", g2(o, 2)?),
                6 => out!(self, " {}", g4(o, 2)?),
                _ => {}
            }
            return Ok(optlen as u32);
        }
        match t {
            32..=35 => {
                if optlen < 3 {
                    out!(self, " optlen too short");
                    return Ok(optlen as u32);
                }
                if let Some(f) = FEATURES.get(o[2] as usize) {
                    out!(self, " {f}");
                    for b in &o[3..] {
                        out!(self, " {b}");
                    }
                }
            }
            36 | 38 | 39 | 40 => hex(self, " 0x"),
            37 => {
                for b in &o[2..] {
                    out!(self, " {b}");
                }
            }
            41 => match optlen {
                6 => out!(self, " {}", g4(o, 2)?),
                _ => out!(self, " [optlen != 6]"),
            },
            42 => match optlen {
                6 => out!(self, " {}", g4(o, 2)?),
                8 => out!(self, " {} (elapsed time {})", g4(o, 2)?, g2(o, 6)?),
                10 => out!(self, " {} (elapsed time {})", g4(o, 2)?, g4(o, 6)?),
                _ => out!(self, " [optlen != 6 or 8 or 10]"),
            },
            43 => match optlen {
                6 => out!(self, " {}", g4(o, 2)?),
                4 => out!(self, " {}", g2(o, 2)?),
                _ => out!(self, " [optlen != 4 or 6]"),
            },
            44 => hex(self, " "),
            _ => {}
        }
        Ok(optlen as u32)
    }
}
