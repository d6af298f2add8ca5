//! CLNP (ISO 8473) as tcpdump 4.99 prints it (`clnp_print`): addresses and PDU
//! type, and with `-v` the header, the segmentation part, the options and
//! the quoted packet of an error report.

use super::isonsap;
use crate::summary::{bit_names, g1, g2, name_or, need, out, tail, PResult, Printer};

const HEADER: usize = 9;
const ADDRS_SHORT: &str = "li < size of fixed part of CLNP header and addresses";

fn pdu_name(t: u8) -> String {
    name_or(
        match t {
            1 => Some("Error Report"),
            29 => Some("MD"),
            28 => Some("Data"),
            30 => Some("Echo Request"),
            31 => Some("Echo Response"),
            _ => None,
        },
        || format!("unknown ({t})"),
    )
}

fn option_name(op: u8) -> &'static str {
    match op {
        193 => "Discard Reason",
        205 => "Priority",
        195 => "QoS Maintenance",
        197 => "Security",
        200 => "Source Routing",
        203 => "Route Recording",
        204 => "Padding",
        _ => "Unknown",
    }
}

fn scope(b: u8) -> &'static str {
    match b & 0xc0 {
        0x40 => "Source Address Specific",
        0x80 => "Destination Address Specific",
        0xc0 => "Globally unique",
        _ => "Reserved",
    }
}

/// The discard reason's class and error names.
fn rfd(major: u8, minor: u8) -> (&'static str, &'static str) {
    let class = match major {
        0x0 => "General",
        0x8 => "Address",
        0x9 => "Source Routeing",
        0xa => "Lifetime",
        0xb => "PDU Discarded",
        0xc => "Reassembly",
        _ => "Unknown",
    };
    let err = match (major, minor) {
        (0, 0) => "Reason not specified",
        (0, 1) => "Protocol procedure error",
        (0, 2) => "Incorrect checksum",
        (0, 3) => "PDU discarded due to congestion",
        (0, 4) => "Header syntax error (cannot be parsed)",
        (0, 5) => "Segmentation needed but not permitted",
        (0, 6) => "Incomplete PDU received",
        (0, 7) => "Duplicate option",
        (8, 0) => "Destination address unreachable",
        (8, 1) => "Destination address unknown",
        (9, 0) => "Unspecified source routeing error",
        (9, 1) => "Syntax error in source routeing field",
        (9, 2) => "Unknown address in source routeing field",
        (9, 3) => "Path not acceptable",
        (0xa, 0) => "Lifetime expired while data unit in transit",
        (0xa, 1) => "Lifetime expired during reassembly",
        (0xb, 0) => "Unsupported option not specified",
        (0xb, 1) => "Unsupported protocol version",
        (0xb, 2) => "Unsupported security option",
        (0xb, 3) => "Unsupported source routeing option",
        (0xb, 4) => "Unsupported recording of route option",
        (0xc, 0) => "Reassembly interference",
        _ => "Unknown",
    };
    (class, err)
}

/// How one CLNP header ended.
enum Clnp {
    /// What `clnp_print` returns.
    Done(bool),
    /// An error report quotes a CLNP packet at this offset.
    Quoted(usize),
}

impl Printer<'_> {
    /// `clnp_print`: false where tcpdump's returns 0 (the caller dumps the
    /// PDU). An error report quoting a CLNP packet prints it in turn, as
    /// tcpdump's recursion does, here in a loop.
    pub(super) fn clnp(&mut self, mut p: &[u8], mut length: u32) -> PResult<bool> {
        let mut nested = false;
        loop {
            match self.clnp_one(p, length)? {
                Clnp::Done(r) => return Ok(r || nested),
                Clnp::Quoted(at) => {
                    // The banner is printed: on to the quoted packet.
                    length -= p[1] as u32;
                    p = tail(p, at);
                    nested = true;
                }
            }
        }
    }

    /// One CLNP header.
    fn clnp_one(&mut self, p: &[u8], length: u32) -> PResult<Clnp> {
        self.proto = "clnp";
        need(p, 0, HEADER)?;
        let li = p[1] as usize;
        let e = self.opts.link_header;
        if !e {
            out!(self, "CLNP");
        }
        if p[2] != 1 {
            out!(self, "version {} packet not supported", p[2]);
            return Ok(Clnp::Done(false));
        }
        if li > length as usize {
            out!(self, " length indicator({li}) > PDU size ({length})!");
            return Ok(Clnp::Done(false));
        }
        if li < HEADER {
            out!(self, " length indicator {li} < min PDU size:");
            for b in p {
                out!(self, "{b:02X}");
            }
            return Ok(Clnp::Done(false));
        }
        let pdu_type = p[4] & 0x1f;
        let flags = p[4] & 0xe0;
        let mut at = HEADER;
        let mut rem = li - HEADER;
        let addr = |at: &mut usize, rem: &mut usize| -> PResult<Option<(usize, usize)>> {
            if *rem < 1 {
                return Ok(None);
            }
            let l = g1(p, *at)? as usize;
            *at += 1;
            *rem -= 1;
            if *rem < l {
                return Ok(None);
            }
            need(p, *at, l)?;
            let a = *at;
            *at += l;
            *rem -= l;
            Ok(Some((a, l)))
        };
        let Some((dst, dstl)) = addr(&mut at, &mut rem)? else {
            out!(self, "{ADDRS_SHORT}");
            return Ok(Clnp::Done(false));
        };
        let Some((src, srcl)) = addr(&mut at, &mut rem)? else {
            out!(self, "{ADDRS_SHORT}");
            return Ok(Clnp::Done(false));
        };
        let sep = if e { "" } else { ", " };
        if self.opts.verbose < 1 {
            let (s, d) = (isonsap(p, src, srcl)?, isonsap(p, dst, dstl)?);
            out!(
                self,
                "{sep}{s} > {d}, {}, length {length}",
                pdu_name(pdu_type)
            );
            return Ok(Clnp::Done(true));
        }
        out!(self, "{sep}length {length}");
        let (lt, sum) = (p[3], g2(p, 7)?);
        out!(
            self,
            "\n\t{} PDU, hlen: {li}, v: {}, lifetime: {}.{}s, Segment PDU length: {}, checksum: 0x{sum:04x}",
            pdu_name(pdu_type),
            p[2],
            lt / 2,
            (lt % 2) * 5,
            g2(p, 5)?
        );
        self.osi_cksum_verdict(p, 0, sum, 7, li);
        let f = bit_names(
            flags as u32,
            &[
                (0x80, "Segmentation permitted"),
                (0x40, "more Segments"),
                (0x20, "request Error Report"),
            ],
        );
        out!(self, "\n\tFlags [{f}]");
        let (s, d) = (isonsap(p, src, srcl)?, isonsap(p, dst, dstl)?);
        out!(
            self,
            "\n\tsource address (length {srcl}): {s}\n\tdest   address (length {dstl}): {d}"
        );
        if flags & 0x80 != 0 {
            if rem < 6 {
                out!(
                    self,
                    "li < size of fixed part of CLNP header, addresses, and segment part"
                );
                return Ok(Clnp::Done(false));
            }
            need(p, at, 6)?;
            out!(
                self,
                "\n\tData Unit ID: 0x{:04x}, Segment Offset: {}, Total PDU Length: {}",
                g2(p, at)?,
                g2(p, at + 2)?,
                g2(p, at + 4)?
            );
            at += 6;
            rem -= 6;
        }
        while rem != 0 {
            if rem < 2 {
                out!(self, ", bad opts/li");
                return Ok(Clnp::Done(false));
            }
            let op = g1(p, at)?;
            let opli = g1(p, at + 1)? as usize;
            at += 2;
            rem -= 2;
            if opli > rem {
                out!(self, ", opt ({op}) too long");
                return Ok(Clnp::Done(false));
            }
            need(p, at, opli)?;
            rem -= opli;
            out!(
                self,
                "\n\t  {} Option #{op}, length {opli}, value: ",
                option_name(op)
            );
            if !self.clnp_option(p, at, op, opli)? {
                return Ok(Clnp::Done(false));
            }
            if self.opts.verbose > 1 {
                self.unknown_data(p, at, opli, "\n\t  ");
            }
            at += opli;
        }
        if (pdu_type == 1 || pdu_type == 31) && g1(p, at)? == 0x81 {
            out!(self, "\n\t-----original packet-----\n\t");
            return Ok(Clnp::Quoted(at));
        }
        if length as usize > at {
            out!(
                self,
                "\n\t  undecoded non-header data, length {}",
                length as usize - li
            );
            self.unknown_data(p, at, length as usize - at, "\n\t  ");
        }
        Ok(Clnp::Done(true))
    }

    /// One option's value (all of it captured); false where tcpdump's
    /// `clnp_print` returns 0.
    fn clnp_option(&mut self, p: &[u8], t: usize, op: u8, tlen: usize) -> PResult<bool> {
        let bad = |pr: &mut Self| {
            out!(pr, ", bad opt len");
            Ok(false)
        };
        match op {
            200 | 203 => {
                if tlen < 2 {
                    return bad(self);
                }
                let sr = match p[t] {
                    0 => "partial",
                    1 => "complete",
                    _ => "Unknown",
                };
                let what = if op == 200 {
                    "source routing"
                } else {
                    "recording of route in progress"
                };
                out!(self, "{sr} {what}");
                let off = p[t + 1] as usize;
                if off == 0 {
                    out!(self, " Bad NSAP offset (0)");
                } else if off - 1 > tlen {
                    out!(self, " Bad NSAP offset (past end of option)");
                } else {
                    // tcpdump reads the first address again each time round.
                    let (a, mut left) = (t + off - 1, tlen - (off - 1));
                    while left > 0 {
                        let l = g1(p, a)? as usize;
                        if left < l + 1 {
                            out!(self, "\n\t    NSAP address goes past end of option");
                            break;
                        }
                        if l > 0 {
                            out!(
                                self,
                                "\n\t    NSAP address (length {l}): {}",
                                isonsap(p, a + 1, l)?
                            );
                        }
                        left -= l + 1;
                    }
                }
            }
            205 => {
                if tlen < 1 {
                    return bad(self);
                }
                out!(self, "0x{:x}", p[t] & 0x0f);
            }
            195 => {
                if tlen < 1 {
                    return bad(self);
                }
                out!(self, "\n\t    Format Code: {}", scope(p[t]));
                if p[t] & 0xc0 == 0xc0 {
                    let f = bit_names(
                        (p[t] & 0x3f) as u32,
                        &[
                            (0x20, "reserved"),
                            (0x10, "sequencing vs. delay"),
                            (0x08, "congested"),
                            (0x04, "delay vs. cost"),
                            (0x02, "error vs. delay"),
                            (0x01, "error vs. cost"),
                        ],
                    );
                    out!(self, "\n\t    QoS Flags [{f}]");
                }
            }
            197 => {
                if tlen < 2 {
                    return bad(self);
                }
                out!(
                    self,
                    "\n\t    Format Code: {}, Security-Level {}",
                    scope(p[t]),
                    p[t + 1]
                );
            }
            193 => {
                if tlen < 1 {
                    return bad(self);
                }
                let (major, minor) = (p[t] >> 4, p[t] & 0x0f);
                let (c, e) = rfd(major, minor);
                out!(
                    self,
                    "\n\t    Class: {c} Error (0x{major:x}), {e} (0x{minor:x})"
                );
            }
            204 => out!(self, "padding data"),
            _ => {
                self.unknown_data(p, t, tlen, "\n\t  ");
            }
        }
        Ok(true)
    }
}
