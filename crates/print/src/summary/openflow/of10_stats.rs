//! OpenFlow 1.0's statistics requests and replies as tcpdump 4.99.3 prints
//! them with `-v` (port counters with `-vv`).

use super::super::{g1, g2, g4, g8, need, out, PResult, Printer};
use super::of10_parts::{port, queue};

fn stats_name(t: u16) -> Option<&'static str> {
    Some(match t {
        0 => "DESC",
        1 => "FLOW",
        2 => "AGGREGATE",
        3 => "TABLE",
        4 => "PORT",
        5 => "QUEUE",
        0xffff => "VENDOR",
        _ => return None,
    })
}

/// `tableid_str` with its `%u` fallback.
fn table_id(v: u8) -> String {
    match v {
        0xfe => "EMERG".to_string(),
        0xff => "ALL".to_string(),
        _ => v.to_string(),
    }
}

const WILDCARD_BITS: [(u32, &str); 10] = [
    (1 << 0, "IN_PORT"),
    (1 << 1, "DL_VLAN"),
    (1 << 2, "DL_SRC"),
    (1 << 3, "DL_DST"),
    (1 << 4, "DL_TYPE"),
    (1 << 5, "NW_PROTO"),
    (1 << 6, "TP_SRC"),
    (1 << 7, "TP_DST"),
    (1 << 20, "DL_VLAN_PCP"),
    (1 << 21, "NW_TOS"),
];

const PORT_COUNTERS: [&str; 12] = [
    "rx_packets",
    "tx_packets",
    "rx_bytes",
    "tx_bytes",
    "rx_dropped",
    "tx_dropped",
    "rx_errors",
    "tx_errors",
    "rx_frame_err",
    "rx_over_err",
    "rx_crc_err",
    "collisions",
];

impl Printer<'_> {
    fn of10_stats_type(&mut self, p: &[u8], at: usize) -> PResult<u16> {
        let t = g2(p, at)?;
        match stats_name(t) {
            Some(n) => out!(self, "\n\t type {n}"),
            None => out!(self, "\n\t type invalid (0x{t:04x})"),
        }
        Ok(t)
    }

    pub(super) fn of10_stats_request(&mut self, p: &[u8], at: usize, len: u32) -> PResult {
        let t = self.of10_stats_type(p, at)?;
        let flags = g2(p, at + 2)?;
        out!(self, ", flags 0x{flags:04x}");
        if flags != 0 {
            out!(self, " (bogus)");
        }
        let (at, len) = (at + 4, len - 4);
        let want = match t {
            0 | 3 => 0,
            1 | 2 => 44,
            4 | 5 => 8,
            0xffff => return self.of10_vendor_data(p, at, len),
            _ => return Ok(()),
        };
        if len != want {
            return self.of_invalid(p, at, len);
        }
        match t {
            1 | 2 => {
                self.of10_match(p, at, "\n\t ")?;
                out!(self, "\n\t table_id {}", table_id(g1(p, at + 40)?));
                out!(self, ", out_port {}", port(g2(p, at + 42)?));
            }
            4 => {
                out!(self, "\n\t port_no {}", port(g2(p, at)?));
                need(p, at + 2, 6)?;
            }
            5 => {
                out!(self, "\n\t port_no {}", port(g2(p, at)?));
                out!(self, ", queue_id {}", queue(g4(p, at + 4)?));
            }
            _ => {}
        }
        Ok(())
    }

    pub(super) fn of10_stats_reply(&mut self, p: &[u8], at: usize, len: u32) -> PResult {
        let t = self.of10_stats_type(p, at)?;
        let flags = g2(p, at + 2)?;
        out!(self, ", flags 0x{flags:04x}");
        self.of_bitmap(&[(1, "MORE")], flags.into(), !1);
        let (at, len) = (at + 4, len - 4);
        match t {
            0 => self.of10_desc_stats(p, at, len),
            1 => self.of10_flow_stats(p, at, len),
            2 => {
                if len != 24 {
                    return self.of_invalid(p, at, len);
                }
                out!(self, "\n\t packet_count {}", g8(p, at)?);
                out!(self, ", byte_count {}", g8(p, at + 8)?);
                out!(self, ", flow_count {}", g4(p, at + 16)?);
                need(p, at + 20, 4)
            }
            3 => self.of10_table_stats(p, at, len),
            4 | 5 => self.of10_port_queue_stats(p, at, len, t == 4),
            0xffff => self.of10_vendor_data(p, at, len),
            _ => need(p, at, len as usize),
        }
    }

    fn of10_desc_stats(&mut self, p: &[u8], at: usize, len: u32) -> PResult {
        if len != 1056 {
            return self.of_invalid(p, at, len);
        }
        let fields = [
            ("mfr_desc", 0, 256),
            ("hw_desc", 256, 256),
            ("sw_desc", 512, 256),
            ("serial_num", 768, 32),
            ("dp_desc", 800, 256),
        ];
        for (name, o, n) in fields {
            out!(self, "\n\t  {name} '");
            self.jnp(p, at + o, n)?;
            out!(self, "'");
        }
        Ok(())
    }

    fn of10_flow_stats(&mut self, p: &[u8], mut at: usize, mut len: u32) -> PResult {
        while len > 0 {
            if len < 88 {
                return self.of_invalid(p, at, len);
            }
            let entry = u32::from(g2(p, at)?);
            out!(self, "\n\t length {entry}");
            if entry < 88 || entry > len {
                return self.of_invalid(p, at, len);
            }
            out!(self, ", table_id {}", table_id(g1(p, at + 2)?));
            self.of10_match(p, at + 4, "\n\t  ")?;
            let f = at + 44;
            out!(self, "\n\t  duration_sec {}", g4(p, f)?);
            out!(self, ", duration_nsec {}", g4(p, f + 4)?);
            out!(self, ", priority {}", g2(p, f + 8)?);
            out!(self, ", idle_timeout {}", g2(p, f + 10)?);
            out!(self, ", hard_timeout {}", g2(p, f + 12)?);
            out!(self, ", cookie 0x{:016x}", g8(p, f + 20)?);
            out!(self, ", packet_count {}", g8(p, f + 28)?);
            out!(self, ", byte_count {}", g8(p, f + 36)?);
            self.of10_actions(p, at + 88, entry - 88, "\n\t  ")?;
            at += entry as usize;
            len -= entry;
        }
        Ok(())
    }

    fn of10_table_stats(&mut self, p: &[u8], mut at: usize, mut len: u32) -> PResult {
        while len > 0 {
            if len < 64 {
                return self.of_invalid(p, at, len);
            }
            out!(self, "\n\t table_id {}", table_id(g1(p, at)?));
            out!(self, ", name '");
            self.jnp(p, at + 4, 32)?;
            out!(self, "'");
            let w = g4(p, at + 36)?;
            out!(self, "\n\t  wildcards 0x{w:08x}");
            self.of_bitmap(&WILDCARD_BITS, w, !((1 << 22) - 1));
            out!(self, "\n\t  max_entries {}", g4(p, at + 40)?);
            out!(self, ", active_count {}", g4(p, at + 44)?);
            out!(self, ", lookup_count {}", g8(p, at + 48)?);
            out!(self, ", matched_count {}", g8(p, at + 56)?);
            at += 64;
            len -= 64;
        }
        Ok(())
    }

    /// Port (104-byte entries, counters with `-vv`) or queue (32-byte)
    /// statistics.
    fn of10_port_queue_stats(
        &mut self,
        p: &[u8],
        mut at: usize,
        mut len: u32,
        ports: bool,
    ) -> PResult {
        let size = if ports { 104 } else { 32 };
        while len > 0 {
            if len < size {
                return self.of_invalid(p, at, len);
            }
            out!(self, "\n\t  port_no {}", port(g2(p, at)?));
            if !ports {
                out!(self, ", queue_id {}", g4(p, at + 4)?);
                out!(self, ", tx_bytes {}", g8(p, at + 8)?);
                out!(self, ", tx_packets {}", g8(p, at + 16)?);
                out!(self, ", tx_errors {}", g8(p, at + 24)?);
            } else if self.opts.verbose < 2 {
                need(p, at + 2, size as usize - 2)?;
            } else {
                for (i, name) in PORT_COUNTERS.iter().enumerate() {
                    out!(self, ", {name} {}", g8(p, at + 8 + 8 * i)?);
                }
            }
            at += size as usize;
            len -= size;
        }
        Ok(())
    }
}
