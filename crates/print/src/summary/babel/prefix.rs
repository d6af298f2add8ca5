//! Babel's address encodings and sub-TLVs as tcpdump 4.99.3's
//! `network_prefix`, `format_*` and `subtlvs_print` handle them.

use super::super::{g1, g4, out, tail, Printer};
use std::net::{Ipv4Addr, Ipv6Addr};

/// An IPv4 address in Babel's 16-byte prefix buffers: `::ffff:0:0/96`.
const V4PREFIX: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0];

/// The last prefixes with the prefix flag set in a list of messages, which
/// later updates' omitted bytes come from.
pub(super) struct Previous {
    pub v4: [u8; 16],
    pub v6: [u8; 16],
}

impl Default for Previous {
    fn default() -> Self {
        Previous {
            v4: V4PREFIX,
            v6: [0; 16],
        }
    }
}

/// `network_prefix`: the prefix of address encoding `ae` and length `plen`
/// (`None`: an address, a whole one) with `omitted` bytes taken from `dp`,
/// the rest read from `p[at..]` of which `len` bytes belong to the message.
/// Returns the prefix and the bytes read, or `None` for an encoding error.
pub(super) fn network_prefix(
    ae: u8,
    plen: Option<u8>,
    omitted: u8,
    p: &[u8],
    at: usize,
    dp: Option<&[u8; 16]>,
    len: u32,
) -> Option<([u8; 16], u32)> {
    let pb: u32 = match plen {
        Some(l) => u32::from(l).div_ceil(8),
        None if ae == 1 => 4,
        None => 16,
    };
    if pb > 16 {
        return None;
    }
    let omitted = u32::from(omitted);
    let mut prefix = [0u8; 16];
    // Where the read bytes go in `prefix`, and how many of them.
    let (start, take) = match ae {
        0 => return Some((prefix, 0)),
        1 => {
            if omitted > 4 || pb > 4 || (pb > omitted && len < pb - omitted) {
                return None;
            }
            prefix = V4PREFIX;
            if omitted > 0 {
                let dp = dp?;
                let n = 12 + omitted as usize;
                prefix[..n].copy_from_slice(&dp[..n]);
            }
            (12 + omitted, pb.saturating_sub(omitted))
        }
        2 => {
            if omitted > 16 || (pb > omitted && len < pb - omitted) {
                return None;
            }
            if omitted > 0 {
                let dp = dp?;
                let n = omitted as usize;
                prefix[..n].copy_from_slice(&dp[..n]);
            }
            (omitted, pb.saturating_sub(omitted))
        }
        3 => {
            if pb > 8 && len < pb - 8 {
                return None;
            }
            prefix[0] = 0xfe;
            prefix[1] = 0x80;
            (8, pb.saturating_sub(8))
        }
        _ => return None,
    };
    // The message was checked to be captured, and `take <= len`; a short
    // slice still fails safe as an encoding error.
    let src = tail(p, at).get(..take as usize)?;
    prefix[start as usize..(start + take) as usize].copy_from_slice(src);
    Some((prefix, take))
}

impl Printer<'_> {
    /// `format_address`.
    pub(super) fn babel_address(&self, a: &[u8; 16]) -> String {
        if a[..12] == V4PREFIX[..12] {
            self.host4(Ipv4Addr::new(a[12], a[13], a[14], a[15]))
        } else {
            self.host6(Ipv6Addr::from(*a))
        }
    }

    /// `format_prefix`.
    pub(super) fn babel_prefix(&self, a: &[u8; 16], plen: u8) -> String {
        if plen >= 96 && a[..12] == V4PREFIX[..12] {
            format!("{}/{}", self.babel_address(a), plen - 96)
        } else {
            format!("{}/{plen}", self.host6(Ipv6Addr::from(*a)))
        }
    }

    /// `subtlvs_print`: the sub-TLVs in `p[at..end]` of a message of `kind`
    /// (captured: the caller checked the message). An invalid one ends the
    /// list with ` (invalid)` but not the message.
    pub(super) fn babel_subtlvs(&mut self, p: &[u8], mut at: usize, end: usize, kind: u8) {
        while at < end {
            let Ok(sub) = g1(p, at) else { return };
            at += 1;
            if sub == 0 {
                out!(self, " sub-pad1");
                continue;
            }
            if sub & 0x80 != 0 {
                out!(self, " (M)");
            }
            if at == end {
                out!(self, " (invalid)");
                return;
            }
            let Ok(sublen) = g1(p, at) else { return };
            at += 1;
            let sublen = usize::from(sublen);
            if at + sublen > end {
                out!(self, " (invalid)");
                return;
            }
            let body = &tail(p, at)[..sublen.min(tail(p, at).len())];
            match sub {
                1 => out!(self, " sub-padn"),
                2 => {
                    out!(self, " sub-diversity");
                    if sublen == 0 {
                        out!(self, " empty");
                    } else {
                        for (i, &c) in body.iter().enumerate() {
                            let sep = if i == 0 { " " } else { "-" };
                            match c {
                                0 => out!(self, "{sep}reserved"),
                                255 => out!(self, "{sep}all"),
                                _ => out!(self, "{sep}{c}"),
                            }
                        }
                        if kind != 8 && kind != 13 {
                            out!(self, " (bogus)");
                        }
                    }
                }
                3 => {
                    out!(self, " sub-timestamp");
                    let stamps = match kind {
                        4 => 1,
                        5 => 2,
                        _ => 0,
                    };
                    if stamps == 0 {
                        out!(self, " (bogus)");
                    } else if sublen < 4 * stamps {
                        out!(self, " (invalid)");
                        return;
                    } else {
                        for i in 0..stamps {
                            let t = g4(p, at + 4 * i).unwrap_or(0);
                            let sep = if i == 0 { " " } else { "|" };
                            out!(self, "{sep}{}.{:06}s", t / 1_000_000, t % 1_000_000);
                        }
                    }
                }
                _ => out!(self, " sub-unknown-0x{sub:02x}"),
            }
            at += sublen;
        }
    }
}

/// `format_interval`: centiseconds as seconds.
pub(super) fn interval(i: u16) -> String {
    if i == 0 {
        return "0.0s (bogus)".to_string();
    }
    format!("{}.{:02}s", i / 100, i % 100)
}

/// `format_interval_update`.
pub(super) fn interval_update(i: u16) -> String {
    if i == 0xffff {
        "infinity".to_string()
    } else {
        interval(i)
    }
}

/// `format_id`: 8 bytes as colon-separated hex.
pub(super) fn id(p: &[u8], at: usize) -> Option<String> {
    let b = tail(p, at).get(..8)?;
    let parts: Vec<String> = b.iter().map(|x| format!("{x:02x}")).collect();
    Some(parts.join(":"))
}
