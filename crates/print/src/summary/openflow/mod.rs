//! OpenFlow over TCP (ports 6633 and 6653), as tcpdump 4.99's `openflow_print`
//! prints it: `: OpenFlow` and, for each message of the segment, a line with
//! its version, type, length and transaction id, ` (invalid)` when the length
//! does not suit the type; with `-v` the bodies of OpenFlow 1.0's messages
//! (`of10*.rs`, `bsn.rs`) and of the 1.3 messages tcpdump decodes (`of13.rs`).

mod bsn;
mod of10;
mod of10_parts;
mod of10_stats;
mod of13;
mod of13_errors;

use super::{bit_names_or, g1, g2, g4, gmac, head, need, out, tail, PResult, Printer};

/// OpenFlow's common header: version, type, length, xid.
const HEADER_LEN: u32 = 8;

impl Printer<'_> {
    /// `openflow_print`: the messages in `len` bytes of TCP payload, `p` captured.
    pub(super) fn openflow(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "openflow";
        out!(self, ": OpenFlow");
        let (mut at, mut len) = (0usize, len);
        while len > 0 {
            let version = g1(p, at)?;
            out!(self, "\n\tversion ");
            match version_name(version) {
                Some(v) => out!(self, "{v}"),
                None => out!(self, "unknown (0x{version:02x})"),
            }
            if len < 2 {
                return self.openflow_partial(p, at + 1, len - 1);
            }
            let t = g1(p, at + 1)?;
            match type_name(version, t) {
                Some(n) => out!(self, ", type {n}"),
                None => out!(self, ", type unknown (0x{t:02x})"),
            }
            if len < 4 {
                return self.openflow_partial(p, at + 2, len - 2);
            }
            let length = g2(p, at + 2)? as u32;
            let short = if length < HEADER_LEN {
                " (too short!)"
            } else {
                ""
            };
            out!(self, ", length {length}{short}");
            if len < HEADER_LEN {
                return self.openflow_partial(p, at + 4, len - 4);
            }
            out!(self, ", xid 0x{:08x}", g4(p, at + 4)?);
            at += HEADER_LEN as usize;
            len -= HEADER_LEN;
            if length < HEADER_LEN {
                out!(self, " (invalid)");
                return need(p, at, len as usize);
            }
            let body = length - HEADER_LEN;
            self.of_message(p, at, body, version, t)?;
            if body > len {
                break;
            }
            at += body as usize;
            len -= body;
        }
        Ok(())
    }

    /// `of_message_print`: a message's body of `len` bytes from `at`.
    fn of_message(&mut self, p: &[u8], at: usize, len: u32, version: u8, t: u8) -> PResult {
        let req = match version {
            1 => of10::requirement(t),
            4 => of13::requirement(t),
            _ => None,
        };
        let Some((fixed, value)) = req else {
            return need(p, at, len as usize);
        };
        if (fixed && len != value) || (!fixed && len < value) {
            return self.of_invalid(p, at, len);
        }
        if self.opts.verbose == 0 {
            return need(p, at, len as usize);
        }
        match version {
            1 => self.of10_message(p, at, len, t),
            _ => self.of13_message(p, at, len, t),
        }
    }

    /// tcpdump's `invalid:` labels: ` (invalid)`, then the check that the
    /// `len` bytes from `at` the decoder skips are captured.
    fn of_invalid(&mut self, p: &[u8], at: usize, len: u32) -> PResult {
        out!(self, " (invalid)");
        need(p, at, len as usize)
    }

    /// `of_data_print`: the length of trailing data, dumped with `-vv`.
    fn of_data(&mut self, p: &[u8], at: usize, len: u32) -> PResult {
        if len == 0 {
            return Ok(());
        }
        out!(self, "\n\t data ({len} octets)");
        if self.opts.verbose >= 2 {
            let d = head(tail(p, at), len as usize);
            crate::dump::hex_and_ascii_ident(&mut self.out, "\n\t  ", d);
        }
        need(p, at, len as usize)
    }

    /// `of_bitmap_print`: the names of the bits of `v` known to `names`, then
    /// ` (bogus)` if any of the unassigned bits `u` is set.
    fn of_bitmap(&mut self, names: &[(u32, &str)], v: u32, u: u32) {
        if v & !u != 0 {
            out!(self, " ({})", bit_names_or(v, names, ""));
        }
        if v & u != 0 {
            out!(self, " (bogus)");
        }
    }

    /// The start of a port description: its number (`port`, as the version
    /// names it), the MAC address at `mac` and the 16-byte name at `name`.
    fn of_port_head(&mut self, port: String, p: &[u8], mac: usize, name: usize) -> PResult {
        out!(self, "\n\t  port_no {port}");
        let mac = self.ether_str(gmac(p, mac)?);
        out!(self, ", hw_addr {mac}, name '");
        self.jnp(p, name, 16)?;
        out!(self, "'");
        Ok(())
    }

    /// A header cut by the end of the segment's payload.
    fn openflow_partial(&mut self, p: &[u8], at: usize, left: u32) -> PResult {
        out!(self, " (end of TCP payload)");
        need(p, at, left as usize)
    }
}

fn version_name(v: u8) -> Option<&'static str> {
    Some(match v {
        1 => "1.0",
        2 => "1.1",
        3 => "1.2",
        4 => "1.3",
        5 => "1.4",
        6 => "1.5",
        _ => return None,
    })
}

/// The message types of OpenFlow 1.0 and 1.3, the versions tcpdump decodes:
/// the same up to FLOW_MOD but for 4 (VENDOR, EXPERIMENTER).
fn type_name(version: u8, t: u8) -> Option<&'static str> {
    const FIRST: [&str; 15] = [
        "HELLO",
        "ERROR",
        "ECHO_REQUEST",
        "ECHO_REPLY",
        "",
        "FEATURES_REQUEST",
        "FEATURES_REPLY",
        "GET_CONFIG_REQUEST",
        "GET_CONFIG_REPLY",
        "SET_CONFIG",
        "PACKET_IN",
        "FLOW_REMOVED",
        "PORT_STATUS",
        "PACKET_OUT",
        "FLOW_MOD",
    ];
    const V10: [&str; 7] = [
        "PORT_MOD",
        "STATS_REQUEST",
        "STATS_REPLY",
        "BARRIER_REQUEST",
        "BARRIER_REPLY",
        "QUEUE_GET_CONFIG_REQUEST",
        "QUEUE_GET_CONFIG_REPLY",
    ];
    const V13: [&str; 15] = [
        "GROUP_MOD",
        "PORT_MOD",
        "TABLE_MOD",
        "MULTIPART_REQUEST",
        "MULTIPART_REPLY",
        "BARRIER_REQUEST",
        "BARRIER_REPLY",
        "QUEUE_GET_CONFIG_REQUEST",
        "QUEUE_GET_CONFIG_REPLY",
        "ROLE_REQUEST",
        "ROLE_REPLY",
        "GET_ASYNC_REQUEST",
        "GET_ASYNC_REPLY",
        "SET_ASYNC",
        "METER_MOD",
    ];
    let (vendor, rest): (&str, &[&str]) = match version {
        1 => ("VENDOR", &V10),
        4 => ("EXPERIMENTER", &V13),
        _ => return None,
    };
    let t = usize::from(t);
    match t {
        4 => Some(vendor),
        _ if t < FIRST.len() => Some(FIRST[t]),
        _ => rest.get(t - FIRST.len()).copied(),
    }
}

/// `of_vendor_name`: an OUI's organisation, or an ONF experimenter.
fn vendor_name(vendor: u32) -> &'static str {
    if vendor & 0xff00_0000 == 0 {
        return crate::names::oui_vendor(vendor).unwrap_or("unknown");
    }
    match vendor {
        0x4f4e_4600 => "ONF Extensions",
        0xff00_0001 => "Budapest University of Technology and Economics",
        0xff00_0002 => "NoviFlow",
        0xff00_0003 => "L3+ Extensions, Vendor Neutral",
        0xff00_0004 => "L4-L7 Extensions",
        0xff00_0005 => "Wireless and Mobility Extensions",
        0xff00_0006 => "Forwarding Abstractions Extensions",
        0xff00_0007 => "Optical Transport Extensions",
        0xff00_0008 => "Network Benchmarking Lab, NCTU",
        0xff00_0009 => "Mobile Packet Core Extensions",
        0xff00_000a => "MPLS-TP OpenFlow Extensions for SPTN",
        _ => "unknown",
    }
}
