//! OpenFlow 1.0's message bodies as tcpdump 4.99.3's print-openflow-1.0.c
//! prints them with `-v`; the structures they share are in `of10_parts.rs`,
//! statistics in `of10_stats.rs`.

use super::super::{g1, g2, g4, g8, gmac, need, out, PResult, Printer};
use super::of10_parts::{port, CONFIG_BITS, CONFIG_U, FEATURE_BITS, FEATURE_U};

/// The body length each message type needs: (exact, length) — exact or at
/// least — as tcpdump's `of10_msgtypeinfo` gives it.
pub(super) fn requirement(t: u8) -> Option<(bool, u32)> {
    Some(match t {
        0 | 2 | 3 => (false, 0),
        1 | 4 => (false, 4),
        5 | 7 | 18 | 19 => (true, 0),
        6 => (false, 24),
        8 | 9 => (true, 4),
        10 => (false, 10),
        11 => (true, 80),
        12 => (true, 56),
        13 => (false, 8),
        14 => (false, 64),
        15 => (true, 24),
        16 | 17 => (false, 4),
        20 => (true, 4),
        21 => (false, 8),
        _ => return None,
    })
}

const CAPABILITIES: [(u32, &str); 8] = [
    (1 << 0, "FLOW_STATS"),
    (1 << 1, "TABLE_STATS"),
    (1 << 2, "PORT_STATS"),
    (1 << 3, "STP"),
    (1 << 4, "RESERVED"),
    (1 << 5, "IP_REASM"),
    (1 << 6, "QUEUE_STATS"),
    (1 << 7, "ARP_MATCH_IP"),
];
/// The capability bits OpenFlow 1.0 assigns (RESERVED is not one).
const CAPABILITIES_U: u32 = !0xef;

const ACTION_BITS: [(u32, &str); 12] = [
    (1 << 0, "OUTPUT"),
    (1 << 1, "SET_VLAN_VID"),
    (1 << 2, "SET_VLAN_PCP"),
    (1 << 3, "STRIP_VLAN"),
    (1 << 4, "SET_DL_SRC"),
    (1 << 5, "SET_DL_DST"),
    (1 << 6, "SET_NW_SRC"),
    (1 << 7, "SET_NW_DST"),
    (1 << 8, "SET_NW_TOS"),
    (1 << 9, "SET_TP_SRC"),
    (1 << 10, "SET_TP_DST"),
    (1 << 11, "ENQUEUE"),
];
const ACTION_U: u32 = !0xfff;

const FLOW_MOD_FLAGS: [(u32, &str); 3] = [
    (1 << 0, "SEND_FLOW_REM"),
    (1 << 1, "CHECK_OVERLAP"),
    (1 << 2, "EMERG"),
];
const FLOW_MOD_U: u32 = !0x7;

/// `bufferid_str` with its `0x%08x` fallback.
pub(super) fn buffer_id(v: u32) -> String {
    if v == 0xffff_ffff {
        "NONE".to_string()
    } else {
        format!("0x{v:08x}")
    }
}

impl Printer<'_> {
    /// The decoder of a 1.0 message of type `t` whose body's length suits it.
    pub(super) fn of10_message(&mut self, p: &[u8], at: usize, len: u32, t: u8) -> PResult {
        match t {
            0 | 2 | 3 => self.of_data(p, at, len),
            1 => self.of10_error(p, at, len),
            4 => self.of10_vendor_message(p, at, len),
            6 => self.of10_features_reply(p, at, len),
            8 | 9 => {
                let flags = g2(p, at)?;
                let name = ["FRAG_NORMAL", "FRAG_DROP", "FRAG_REASM"].get(usize::from(flags));
                match name {
                    Some(n) => out!(self, "\n\t flags {n}"),
                    None => out!(self, "\n\t flags invalid (0x{flags:04x})"),
                }
                out!(self, ", miss_send_len {}", g2(p, at + 2)?);
                Ok(())
            }
            10 => self.of10_packet_in(p, at, len),
            11 => self.of10_flow_removed(p, at),
            12 => {
                let r = g1(p, at)?;
                match ["ADD", "DELETE", "MODIFY"].get(usize::from(r)) {
                    Some(n) => out!(self, "\n\t reason {n}"),
                    None => out!(self, "\n\t reason invalid (0x{r:02x})"),
                }
                self.of10_phy_port(p, at + 8)
            }
            13 => self.of10_packet_out(p, at, len),
            14 => self.of10_flow_mod(p, at, len),
            15 => self.of10_port_mod(p, at),
            16 => self.of10_stats_request(p, at, len),
            17 => self.of10_stats_reply(p, at, len),
            20 => {
                out!(self, "\n\t port {}", port(g2(p, at)?));
                need(p, at + 2, 2)
            }
            21 => {
                out!(self, "\n\t port {}", port(g2(p, at)?));
                // The pad may be the body's last bytes.
                need(p, at + 2, 6)?;
                self.of10_queues(p, at + 8, len - 8)
            }
            _ => need(p, at, len as usize),
        }
    }

    fn of10_features_reply(&mut self, p: &[u8], at: usize, len: u32) -> PResult {
        out!(self, "\n\t dpid 0x{:016x}", g8(p, at)?);
        out!(self, ", n_buffers {}", g4(p, at + 8)?);
        out!(self, ", n_tables {}", g1(p, at + 12)?);
        let caps = g4(p, at + 16)?;
        out!(self, "\n\t capabilities 0x{caps:08x}");
        self.of_bitmap(&CAPABILITIES, caps, CAPABILITIES_U);
        let actions = g4(p, at + 20)?;
        out!(self, "\n\t actions 0x{actions:08x}");
        self.of_bitmap(&ACTION_BITS, actions, ACTION_U);
        let (mut at, mut len) = (at + 24, len - 24);
        while len > 0 {
            if len < 48 {
                return self.of_invalid(p, at, len);
            }
            self.of10_phy_port(p, at)?;
            at += 48;
            len -= 48;
        }
        Ok(())
    }

    fn of10_flow_mod(&mut self, p: &[u8], at: usize, len: u32) -> PResult {
        self.of10_match(p, at, "\n\t ")?;
        let at = at + 40;
        out!(self, "\n\t cookie 0x{:016x}", g8(p, at)?);
        let command = g2(p, at + 8)?;
        let names = ["ADD", "MODIFY", "MODIFY_STRICT", "DELETE", "DELETE_STRICT"];
        match names.get(usize::from(command)) {
            Some(n) => out!(self, ", command {n}"),
            None => out!(self, ", command invalid (0x{command:04x})"),
        }
        for (o, name) in [(10, "idle_timeout"), (12, "hard_timeout"), (14, "priority")] {
            let v = g2(p, at + o)?;
            if v != 0 {
                out!(self, ", {name} {v}");
            }
        }
        if command <= 2 {
            out!(self, ", buffer_id {}", buffer_id(g4(p, at + 16)?));
        }
        if command == 3 || command == 4 {
            out!(self, ", out_port {}", port(g2(p, at + 20)?));
        }
        let flags = g2(p, at + 22)?;
        out!(self, ", flags 0x{flags:04x}");
        self.of_bitmap(&FLOW_MOD_FLAGS, flags.into(), FLOW_MOD_U);
        self.of10_actions(p, at + 24, len - 64, "\n\t ")
    }

    fn of10_port_mod(&mut self, p: &[u8], at: usize) -> PResult {
        out!(self, "\n\t port_no {}", port(g2(p, at)?));
        let mac = self.ether_str(gmac(p, at + 2)?);
        out!(self, ", hw_addr {mac}");
        for (o, name) in [(8, "config"), (12, "mask"), (16, "advertise")] {
            let v = g4(p, at + o)?;
            out!(self, "\n\t {name} 0x{v:08x}");
            if o == 16 {
                self.of_bitmap(&FEATURE_BITS, v, FEATURE_U);
            } else {
                self.of_bitmap(&CONFIG_BITS, v, CONFIG_U);
            }
        }
        need(p, at + 20, 4)
    }

    fn of10_packet_out(&mut self, p: &[u8], at: usize, len: u32) -> PResult {
        out!(self, "\n\t buffer_id 0x{:08x}", g4(p, at)?);
        out!(self, ", in_port {}", port(g2(p, at + 4)?));
        let actions = u32::from(g2(p, at + 6)?);
        let (at, len) = (at + 8, len - 8);
        if actions > len {
            return self.of_invalid(p, at, len);
        }
        self.of10_actions(p, at, actions, "\n\t ")?;
        self.of10_packet_data(p, at + actions as usize, len - actions)
    }

    fn of10_packet_in(&mut self, p: &[u8], at: usize, len: u32) -> PResult {
        out!(self, "\n\t buffer_id {}", buffer_id(g4(p, at)?));
        out!(self, ", total_len {}", g2(p, at + 4)?);
        out!(self, ", in_port {}", port(g2(p, at + 6)?));
        let r = g1(p, at + 8)?;
        match ["NO_MATCH", "ACTION"].get(usize::from(r)) {
            Some(n) => out!(self, ", reason {n}"),
            None => out!(self, ", reason invalid (0x{r:02x})"),
        }
        need(p, at + 9, 1)?;
        self.of10_packet_data(p, at + 10, len - 10)
    }

    /// `of10_packet_data_print` up to `-vv`: the frame's length (tcpdump
    /// decodes the frame itself only with `-vvv`).
    fn of10_packet_data(&mut self, p: &[u8], at: usize, len: u32) -> PResult {
        if len == 0 {
            return Ok(());
        }
        out!(self, "\n\t data ({len} octets)");
        need(p, at, len as usize)
    }

    fn of10_flow_removed(&mut self, p: &[u8], at: usize) -> PResult {
        self.of10_match(p, at, "\n\t ")?;
        let at = at + 40;
        out!(self, "\n\t cookie 0x{:016x}", g8(p, at)?);
        let prio = g2(p, at + 8)?;
        if prio != 0 {
            out!(self, ", priority {prio}");
        }
        let r = g1(p, at + 10)?;
        match ["IDLE_TIMEOUT", "HARD_TIMEOUT", "DELETE"].get(usize::from(r)) {
            Some(n) => out!(self, ", reason {n}"),
            None => out!(self, ", reason unknown (0x{r:02x})"),
        }
        out!(self, ", duration_sec {}", g4(p, at + 12)?);
        out!(self, ", duration_nsec {}", g4(p, at + 16)?);
        let idle = g2(p, at + 20)?;
        if idle != 0 {
            out!(self, ", idle_timeout {idle}");
        }
        out!(self, ", packet_count {}", g8(p, at + 24)?);
        out!(self, ", byte_count {}", g8(p, at + 32)?);
        Ok(())
    }

    fn of10_error(&mut self, p: &[u8], at: usize, len: u32) -> PResult {
        let t = g2(p, at)?;
        const TYPES: [&str; 6] = [
            "HELLO_FAILED",
            "BAD_REQUEST",
            "BAD_ACTION",
            "FLOW_MOD_FAILED",
            "PORT_MOD_FAILED",
            "QUEUE_OP_FAILED",
        ];
        match TYPES.get(usize::from(t)) {
            Some(n) => out!(self, "\n\t type {n}"),
            None => out!(self, "\n\t type invalid (0x{t:04x})"),
        }
        let code = g2(p, at + 2)?;
        let codes: &[&str] = match t {
            0 => &["INCOMPATIBLE", "EPERM"],
            1 => &[
                "BAD_VERSION",
                "BAD_TYPE",
                "BAD_STAT",
                "BAD_VENDOR",
                "BAD_SUBTYPE",
                "EPERM",
                "BAD_LEN",
                "BUFFER_EMPTY",
                "BUFFER_UNKNOWN",
            ],
            2 => &[
                "BAD_TYPE",
                "BAD_LEN",
                "BAD_VENDOR",
                "BAD_VENDOR_TYPE",
                "BAD_OUT_PORT",
                "BAD_ARGUMENT",
                "EPERM",
                "TOO_MANY",
                "BAD_QUEUE",
            ],
            3 => &[
                "ALL_TABLES_FULL",
                "OVERLAP",
                "EPERM",
                "BAD_EMERG_TIMEOUT",
                "BAD_COMMAND",
                "UNSUPPORTED",
            ],
            4 => &["BAD_PORT", "BAD_HW_ADDR"],
            5 => &["BAD_PORT", "BAD_QUEUE", "EPERM"],
            _ => &[],
        };
        match codes.get(usize::from(code)) {
            Some(n) => out!(self, ", code {n}"),
            None => out!(self, ", code invalid (0x{code:04x})"),
        }
        self.of_data(p, at + 4, len - 4)
    }
}
