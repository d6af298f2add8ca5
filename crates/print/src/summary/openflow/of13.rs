//! OpenFlow 1.3's message bodies as tcpdump 4.99.3's print-openflow-1.3.c
//! prints them with `-v` (tcpdump decodes only some of the types; the others
//! are checked to be captured).

use super::super::{g1, g2, g4, g8, gmac, need, out, PResult, Printer};
use super::of13_errors::{error_codes, error_type};

/// The body length each message type needs: (exact, length), as tcpdump's
/// `of13_msgtypeinfo` gives it (types it does not check need nothing).
pub(super) fn requirement(t: u8) -> Option<(bool, u32)> {
    Some(match t {
        0 | 2 | 3 | 10 | 11 | 13..=15 | 18 | 19 | 23 | 29 => (false, 0),
        1 => (false, 4),
        4 => (false, 8),
        5 | 7 | 20 | 21 | 26 => (true, 0),
        6 => (true, 24),
        8 | 9 => (true, 4),
        12 => (true, 72),
        16 => (true, 32),
        17 => (true, 8),
        22 => (true, 8),
        24 | 25 => (true, 16),
        27 | 28 => (true, 24),
        _ => return None,
    })
}

const CAPABILITIES: [(u32, &str); 7] = [
    (1 << 0, "FLOW_STATS"),
    (1 << 1, "TABLE_STATS"),
    (1 << 2, "PORT_STATS"),
    (1 << 3, "GROUP_STATS"),
    (1 << 5, "IP_REASM"),
    (1 << 6, "QUEUE_STATS"),
    (1 << 8, "PORT_BLOCKED"),
];

const CONFIG_BITS: [(u32, &str); 4] = [
    (1 << 0, "PORT_DOWN"),
    (1 << 2, "NO_RECV"),
    (1 << 5, "NO_FWD"),
    (1 << 6, "NO_PACKET_IN"),
];

const STATE_BITS: [(u32, &str); 3] = [(1, "LINK_DOWN"), (2, "BLOCKED"), (4, "LIVE")];

const FEATURE_BITS: [(u32, &str); 16] = [
    (1 << 0, "10MB_HD"),
    (1 << 1, "10MB_FD"),
    (1 << 2, "100MB_HD"),
    (1 << 3, "100MB_FD"),
    (1 << 4, "1GB_HD"),
    (1 << 5, "1GB_FD"),
    (1 << 6, "10GB_FD"),
    (1 << 7, "40GB_FD"),
    (1 << 8, "100GB_FD"),
    (1 << 9, "1TB_FD"),
    (1 << 10, "OTHER"),
    (1 << 11, "COPPER"),
    (1 << 12, "FIBER"),
    (1 << 13, "AUTONEG"),
    (1 << 14, "PAUSE"),
    (1 << 15, "PAUSE_ASYM"),
];

const VERSION_BITS: [(u32, &str); 6] = [
    (1 << 0, "1.0"),
    (1 << 1, "1.1"),
    (1 << 2, "1.2"),
    (1 << 3, "1.3"),
    (1 << 4, "1.4"),
    (1 << 5, "1.5"),
];

const PACKET_IN_BITS: [(u32, &str); 3] = [(1, "NO_MATCH"), (2, "ACTION"), (4, "INVALID_TTL")];
const PORT_REASON_BITS: [(u32, &str); 3] = [(1, "ADD"), (2, "DELETE"), (4, "MODIFY")];

/// `ofpp_str` of 1.3 with its `%u` fallback.
fn port(v: u32) -> String {
    let name = match v {
        0xffff_ff00 => "MAX",
        0xffff_fff8 => "IN_PORT",
        0xffff_fff9 => "TABLE",
        0xffff_fffa => "NORMAL",
        0xffff_fffb => "FLOOD",
        0xffff_fffc => "ALL",
        0xffff_fffd => "CONTROLLER",
        0xffff_fffe => "LOCAL",
        0xffff_ffff => "ANY",
        _ => return v.to_string(),
    };
    name.to_string()
}

/// The bits no name covers in a table of (bit, name).
fn unassigned(names: &[(u32, &str)]) -> u32 {
    !names.iter().fold(0, |m, &(b, _)| m | b)
}

impl Printer<'_> {
    /// The decoder of a 1.3 message of type `t` whose body's length suits it.
    pub(super) fn of13_message(&mut self, p: &[u8], at: usize, len: u32, t: u8) -> PResult {
        match t {
            0 => self.of13_hello(p, at, len),
            1 => self.of13_error(p, at, len),
            2 | 3 => self.of_data(p, at, len),
            4 => {
                let e = g4(p, at)?;
                out!(
                    self,
                    "\n\t experimenter 0x{e:08x} ({})",
                    super::vendor_name(e)
                );
                out!(self, ", exp_type 0x{:08x}", g4(p, at + 4)?);
                self.of_data(p, at + 8, len - 8)
            }
            6 => {
                out!(self, "\n\t dpid 0x{:016x}", g8(p, at)?);
                out!(self, ", n_buffers {}", g4(p, at + 8)?);
                out!(self, ", n_tables {}", g1(p, at + 12)?);
                out!(self, ", auxiliary_id {}", g1(p, at + 13)?);
                let caps = g4(p, at + 16)?;
                out!(self, "\n\t capabilities 0x{caps:08x}");
                self.of_bitmap(&CAPABILITIES, caps, unassigned(&CAPABILITIES));
                need(p, at + 20, 4)
            }
            8 | 9 => {
                let flags = g2(p, at)?;
                match ["FRAG_NORMAL", "FRAG_DROP", "FRAG_REASM"].get(usize::from(flags)) {
                    Some(n) => out!(self, "\n\t flags {n}"),
                    None => out!(self, "\n\t flags invalid (0x{flags:04x})"),
                }
                let m = g2(p, at + 2)?;
                match m {
                    0xffe5 => out!(self, ", miss_send_len MAX"),
                    0xffff => out!(self, ", miss_send_len NO_BUFFER"),
                    _ => out!(self, ", miss_send_len {m}"),
                }
                Ok(())
            }
            12 => {
                let r = g1(p, at)?;
                match ["ADD", "DELETE", "MODIFY"].get(usize::from(r)) {
                    Some(n) => out!(self, "\n\t reason {n}"),
                    // tcpdump's format lacks its `%`.
                    None => out!(self, "\n\t reason invalid (0x02x)"),
                }
                self.of13_port(p, at + 8)
            }
            16 => self.of13_port_mod(p, at),
            17 => {
                let id = g1(p, at)?;
                match id {
                    0xfe => out!(self, "\n\t table_id MAX"),
                    0xff => out!(self, "\n\t table_id ALL"),
                    _ => out!(self, "\n\t table_id {id}"),
                }
                out!(self, ", config 0x{:08x}", g4(p, at + 4)?);
                Ok(())
            }
            22 => {
                out!(self, "\n\t port {}", port(g4(p, at)?));
                need(p, at + 4, 4)
            }
            24 | 25 => {
                let role = g4(p, at)?;
                match ["NOCHANGE", "EQUAL", "MASTER", "SLAVE"].get(role as usize) {
                    Some(n) => out!(self, "\n\t role {n}"),
                    None => out!(self, "\n\t role invalid (0x{role:08x})"),
                }
                out!(self, ", generation_id 0x{:016x}", g8(p, at + 8)?);
                Ok(())
            }
            27 | 28 => {
                let masks = [
                    ("packet_in_mask", &PACKET_IN_BITS),
                    ("port_status_mask", &PORT_REASON_BITS),
                    ("flow_removed_mask", &PORT_REASON_BITS),
                ];
                for (i, (name, bits)) in masks.iter().enumerate() {
                    for (j, which) in ["EM", "S"].iter().enumerate() {
                        let v = g4(p, at + 8 * i + 4 * j)?;
                        out!(self, "\n\t {name}[{which}] 0x{v:08x}");
                        self.of_bitmap(*bits, v, unassigned(*bits));
                    }
                }
                Ok(())
            }
            _ => need(p, at, len as usize),
        }
    }

    /// `of13_port_print`: a port description, 64 bytes at `at`.
    fn of13_port(&mut self, p: &[u8], at: usize) -> PResult {
        self.of_port_head(port(g4(p, at)?), p, at + 8, at + 16)?;
        let at = at + 32;
        if self.opts.verbose < 2 {
            return need(p, at, 32);
        }
        let fields: [(&str, &[(u32, &str)]); 6] = [
            ("config", &CONFIG_BITS),
            ("state", &STATE_BITS),
            ("curr", &FEATURE_BITS),
            ("advertised", &FEATURE_BITS),
            ("supported", &FEATURE_BITS),
            ("peer", &FEATURE_BITS),
        ];
        for (i, (name, bits)) in fields.iter().enumerate() {
            let v = g4(p, at + 4 * i)?;
            out!(self, "\n\t   {name} 0x{v:08x}");
            self.of_bitmap(bits, v, unassigned(bits));
        }
        out!(self, "\n\t   curr_speed {}kbps", g4(p, at + 24)?);
        out!(self, "\n\t   max_speed {}kbps", g4(p, at + 28)?);
        Ok(())
    }

    fn of13_port_mod(&mut self, p: &[u8], at: usize) -> PResult {
        out!(self, "\n\t port_no {}", port(g4(p, at)?));
        let mac = self.ether_str(gmac(p, at + 8)?);
        out!(self, ", hw_addr {mac}");
        let fields: [(&str, &[(u32, &str)]); 3] = [
            ("config", &CONFIG_BITS),
            ("mask", &CONFIG_BITS),
            ("advertise", &FEATURE_BITS),
        ];
        for (i, (name, bits)) in fields.iter().enumerate() {
            let v = g4(p, at + 16 + 4 * i)?;
            out!(self, "\n\t  {name} 0x{v:08x}");
            self.of_bitmap(bits, v, unassigned(bits));
        }
        need(p, at + 28, 4)
    }

    /// `of13_hello_elements_print`.
    fn of13_hello(&mut self, p: &[u8], mut at: usize, mut len: u32) -> PResult {
        while len > 0 {
            if len < 4 {
                return self.of_invalid(p, at, len);
            }
            let t = g2(p, at)?;
            if t == 1 {
                out!(self, "\n\t type VERSIONBITMAP");
            } else {
                out!(self, "\n\t type unknown (0x{t:04x})");
            }
            let bmlen = u32::from(g2(p, at + 2)?);
            out!(self, ", length {bmlen}");
            at += 4;
            len -= 4;
            if bmlen < 4 || bmlen > 4 + len {
                return self.of_invalid(p, at, len);
            }
            let body = bmlen - 4;
            if t == 1 && bmlen == 8 {
                let bitmap = g4(p, at)?;
                out!(self, ", bitmap 0x{bitmap:08x}");
                self.of_bitmap(&VERSION_BITS, bitmap, unassigned(&VERSION_BITS));
            } else {
                if t == 1 {
                    out!(self, " (bogus)");
                }
                need(p, at, body as usize)?;
            }
            at += body as usize;
            len -= body;
        }
        Ok(())
    }

    fn of13_error(&mut self, p: &[u8], at: usize, len: u32) -> PResult {
        let t = g2(p, at)?;
        match error_type(t) {
            Some(n) => out!(self, "\n\t type {n}"),
            None => out!(self, "\n\t type invalid (0x{t:04x})"),
        }
        let code = g2(p, at + 2)?;
        match error_codes(t).get(usize::from(code)) {
            Some(n) => out!(self, ", code {n}"),
            None => out!(self, ", code invalid (0x{code:04x})"),
        }
        self.of_data(p, at + 4, len - 4)
    }
}
