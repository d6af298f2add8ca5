//! OpenFlow over TCP (ports 6633 and 6653), as tcpdump 4.99's `openflow_print`
//! prints it without `-v`: `: OpenFlow` and, for each message of the segment, a
//! line with its version, type, length and transaction id. The message bodies
//! (`-v`) are not decoded yet, nor is the minimum length of each type checked
//! (tcpdump's ` (invalid)` after a message too short for its type).

use super::{g1, g2, g4, need, out, PResult, Printer};

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
            need(p, at, body as usize)?;
            if body > len {
                break;
            }
            at += body as usize;
            len -= body;
        }
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
