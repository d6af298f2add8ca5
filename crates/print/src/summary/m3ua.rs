//! M3UA (RFC 4666) in SCTP DATA chunks, as tcpdump 4.99.3's `m3ua_print`
//! prints it, which SCTP calls only with `-vv`: the message's class and type,
//! then each parameter's name and value or length.

use super::{g1, g2, g4, need, out, PResult, Printer};

/// The common header: version, reserved, class, type, length.
const HEADER_LEN: u32 = 8;

fn class_name(class: u8) -> Option<&'static str> {
    Some(match class {
        0 => "Management",
        1 => "Transfer",
        2 => "SS7",
        3 | 4 => "ASP",
        9 => "Routing Key Management",
        _ => return None,
    })
}

/// The message types of a class, numbered from `first`.
fn types(class: u8) -> Option<(u8, &'static [&'static str])> {
    Some(match class {
        0 => (0, &["Error", "Notify"]),
        1 => (1, &["Data"]),
        2 => (
            1,
            &[
                "Destination Unavailable",
                "Destination Available",
                "Destination State Audit",
                "Signalling Congestion",
                "Destination User Part Unavailable",
                "Destination Restricted",
            ],
        ),
        3 => (
            1,
            &[
                "Up",
                "Down",
                "Heartbeat",
                "Up Acknowledgement",
                "Down Acknowledgement",
                "Heartbeat Acknowledgement",
            ],
        ),
        4 => (
            1,
            &[
                "Active",
                "Inactive",
                "Active Acknowledgement",
                "Inactive Acknowledgement",
            ],
        ),
        9 => (
            1,
            &[
                "Registration Request",
                "Registration Response",
                "Deregistration Request",
                "Deregistration Response",
            ],
        ),
        _ => return None,
    })
}

fn param_name(tag: u16) -> Option<&'static str> {
    Some(match tag {
        0x0004 => "INFO String",
        0x0006 => "Routing Context",
        0x0007 => "Diagnostic Info",
        0x0009 => "Heartbeat Data",
        0x000b => "Traffic Mode Type",
        0x000c => "Error Code",
        0x000d => "Status",
        0x0011 => "ASP Identifier",
        0x0012 => "Affected Point Code",
        0x0013 => "Correlation ID",
        0x0200 => "Network Appearance",
        0x0204 => "User/Cause",
        0x0205 => "Congestion Indications",
        0x0206 => "Concerned Destination",
        0x0207 => "Routing Key",
        0x0208 => "Registration Result",
        0x0209 => "Deregistration Result",
        0x020a => "Local Routing Key Identifier",
        0x020b => "Destination Point Code",
        0x020c => "Service Indicators",
        0x020e => "Originating Point Code List",
        0x0210 => "Protocol Data",
        0x0212 => "Registration Status",
        0x0213 => "Deregistration Status",
        _ => return None,
    })
}

impl Printer<'_> {
    /// `m3ua_print`: a message of `size` bytes.
    pub(super) fn m3ua(&mut self, p: &[u8], size: u32) -> PResult {
        self.proto = "m3ua";
        if size < HEADER_LEN {
            out!(self, " (invalid)");
            return need(p, 0, size as usize);
        }
        need(p, 0, HEADER_LEN as usize)?;
        if g1(p, 0)? != 1 {
            return Ok(());
        }
        let class = g1(p, 2)?;
        match class_name(class) {
            Some(n) => out!(self, "\n\t\t{n}"),
            None => out!(self, "\n\t\tUnknown message class {class}"),
        }
        if let Some((first, names)) = types(class) {
            let t = g1(p, 3)?;
            match names
                .get(usize::from(t.wrapping_sub(first)))
                .filter(|_| t >= first)
            {
                Some(n) => out!(self, " {n} Message"),
                None => out!(self, " Unknown (0x{t:02x}) Message"),
            }
        }
        let len = g4(p, 4)?;
        if len != size {
            out!(
                self,
                "\n\t\t\t@@@@@@ Corrupted length {len} of message @@@@@@"
            );
            return Ok(());
        }
        self.m3ua_params(p, HEADER_LEN as usize, len - HEADER_LEN)
    }

    /// `m3ua_tags_print`: the parameters in `size` bytes from `start`.
    fn m3ua_params(&mut self, p: &[u8], start: usize, size: u32) -> PResult {
        let end = start + size as usize;
        let mut at = start;
        while at < end {
            if at + 4 > end {
                out!(self, " (invalid)");
                return need(p, start, size as usize);
            }
            let tag = g2(p, at)?;
            match param_name(tag) {
                Some(n) => out!(self, "\n\t\t\t{n}: "),
                None => out!(self, "\n\t\t\tUnknown Parameter (0x{tag:04x}): "),
            }
            let hlen = usize::from(g2(p, at + 2)?);
            if hlen < 4 {
                out!(self, " (invalid)");
                return need(p, start, size as usize);
            }
            // The padding to 4 bytes, counted from the parameters' start.
            let align = (4 - (at + hlen - start) % 4) % 4;
            need(p, at, hlen + align)?;
            let value = hlen - 4;
            match tag {
                0x0200 | 0x0006 | 0x0013 => {
                    if value < 4 {
                        out!(self, " (invalid)");
                    } else {
                        out!(self, "0x{:08x}", g4(p, at + 4)?);
                    }
                }
                _ => out!(self, "(length {hlen})"),
            }
            at += hlen + align;
        }
        Ok(())
    }
}
