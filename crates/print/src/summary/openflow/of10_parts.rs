//! The structures OpenFlow 1.0's messages share, as tcpdump 4.99.3 prints
//! them: ports, matches, actions, queues.

use super::super::{g1, g2, g4, gmac, gv4, need, out, PResult, Printer};

pub(super) const CONFIG_BITS: [(u32, &str); 7] = [
    (1 << 0, "PORT_DOWN"),
    (1 << 1, "NO_STP"),
    (1 << 2, "NO_RECV"),
    (1 << 3, "NO_RECV_STP"),
    (1 << 4, "NO_FLOOD"),
    (1 << 5, "NO_FWD"),
    (1 << 6, "NO_PACKET_IN"),
];
pub(super) const CONFIG_U: u32 = !0x7f;

pub(super) const FEATURE_BITS: [(u32, &str); 12] = [
    (1 << 0, "10MB_HD"),
    (1 << 1, "10MB_FD"),
    (1 << 2, "100MB_HD"),
    (1 << 3, "100MB_FD"),
    (1 << 4, "1GB_HD"),
    (1 << 5, "1GB_FD"),
    (1 << 6, "10GB_FD"),
    (1 << 7, "COPPER"),
    (1 << 8, "FIBER"),
    (1 << 9, "AUTONEG"),
    (1 << 10, "PAUSE"),
    (1 << 11, "PAUSE_ASYM"),
];
pub(super) const FEATURE_U: u32 = !0xfff;

/// `ofpp_str` with its `%u` fallback.
pub(super) fn port(v: u16) -> String {
    let name = match v {
        0xff00 => "MAX",
        0xfff8 => "IN_PORT",
        0xfff9 => "TABLE",
        0xfffa => "NORMAL",
        0xfffb => "FLOOD",
        0xfffc => "ALL",
        0xfffd => "CONTROLLER",
        0xfffe => "LOCAL",
        0xffff => "NONE",
        _ => return v.to_string(),
    };
    name.to_string()
}

/// `ofpq_str` with its `%u` fallback.
pub(super) fn queue(v: u32) -> String {
    if v == 0xffff_ffff {
        "ALL".to_string()
    } else {
        v.to_string()
    }
}

fn vlan(vid: u16) -> String {
    if vid == 0xffff {
        return "NONE".to_string();
    }
    let bogus = if vid > 0 && vid < 0x0fff {
        ""
    } else {
        " (bogus)"
    };
    format!("{vid}{bogus}")
}

fn pcp(v: u8) -> String {
    let bogus = if v <= 7 { "" } else { " (bogus)" };
    format!("{v}{bogus}")
}

impl Printer<'_> {
    /// `of10_phy_port_print`: a port description, 48 bytes at `at`.
    pub(super) fn of10_phy_port(&mut self, p: &[u8], at: usize) -> PResult {
        self.of_port_head(port(g2(p, at)?), p, at + 2, at + 8)?;
        let at = at + 24;
        if self.opts.verbose < 2 {
            return need(p, at, 24);
        }
        let config = g4(p, at)?;
        out!(self, "\n\t   config 0x{config:08x}");
        self.of_bitmap(&CONFIG_BITS, config, CONFIG_U);
        let state = g4(p, at + 4)?;
        let stp =
            ["STP_LISTEN", "STP_LEARN", "STP_FORWARD", "STP_BLOCK"][(state >> 8 & 3) as usize];
        let down = if state & 1 != 0 { ", LINK_DOWN" } else { "" };
        let bogus = if state & !0x301 != 0 { " (bogus)" } else { "" };
        out!(self, "\n\t   state 0x{state:08x} ({stp}{down}){bogus}");
        for (o, name) in [
            (8, "curr"),
            (12, "advertised"),
            (16, "supported"),
            (20, "peer"),
        ] {
            let v = g4(p, at + o)?;
            out!(self, "\n\t   {name} 0x{v:08x}");
            self.of_bitmap(&FEATURE_BITS, v, FEATURE_U);
        }
        Ok(())
    }

    /// `of10_match_print`: the fields of the 40-byte match at `at` its
    /// wildcards do not cover, each after `pfx`.
    pub(super) fn of10_match(&mut self, p: &[u8], at: usize, pfx: &str) -> PResult {
        let w = g4(p, at)?;
        if w & !((1 << 22) - 1) != 0 {
            out!(self, "{pfx}wildcards 0x{w:08x} (bogus)");
        }
        let on = |bit: u32| w & (1 << bit) == 0;
        if on(0) {
            out!(self, "{pfx}match in_port {}", port(g2(p, at + 4)?));
        }
        for (bit, o, name) in [(2, 6, "dl_src"), (3, 12, "dl_dst")] {
            if on(bit) {
                let mac = self.ether_str(gmac(p, at + o)?);
                out!(self, "{pfx}match {name} {mac}");
            }
        }
        if on(1) {
            out!(self, "{pfx}match dl_vlan {}", vlan(g2(p, at + 18)?));
        }
        if on(20) {
            out!(self, "{pfx}match dl_vlan_pcp {}", pcp(g1(p, at + 20)?));
        }
        let dl_type = g2(p, at + 22)?;
        if on(4) {
            out!(self, "{pfx}match dl_type 0x{dl_type:04x}");
        }
        if on(21) {
            out!(self, "{pfx}match nw_tos 0x{:02x}", g1(p, at + 24)?);
        }
        let nw_proto = g1(p, at + 25)?;
        if on(5) {
            let name = if on(4) && dl_type == 0x0806 {
                "arp_opcode"
            } else {
                "nw_proto"
            };
            out!(self, "{pfx}match {name} {nw_proto}");
        }
        for (shift, o, name) in [(8, 28, "nw_src"), (14, 32, "nw_dst")] {
            let bits = (w >> shift) & 0x3f;
            if bits < 32 {
                let a = self.host4(gv4(p, at + o)?);
                out!(self, "{pfx}match {name} {a}/{}", 32 - bits);
            }
        }
        let icmp = on(4) && dl_type == 0x0800 && on(5) && nw_proto == 1;
        if on(6) {
            let name = if icmp { "icmp_type" } else { "tp_src" };
            out!(self, "{pfx}match {name} {}", g2(p, at + 36)?);
        }
        if on(7) {
            let name = if icmp { "icmp_code" } else { "tp_dst" };
            out!(self, "{pfx}match {name} {}", g2(p, at + 38)?);
        } else {
            need(p, at + 38, 2)?;
        }
        Ok(())
    }

    /// `of10_actions_print`: the actions in `len` bytes from `at`.
    pub(super) fn of10_actions(
        &mut self,
        p: &[u8],
        mut at: usize,
        mut len: u32,
        pfx: &str,
    ) -> PResult {
        while len > 0 {
            if len < 8 {
                return self.of_invalid(p, at, len);
            }
            let t = g2(p, at)?;
            match action_name(t) {
                Some(n) => out!(self, "{pfx}action type {n}"),
                None => out!(self, "{pfx}action type invalid (0x{t:04x})"),
            }
            let alen = u32::from(g2(p, at + 2)?);
            out!(self, ", len {alen}");
            at += 4;
            len -= 4;
            if alen < 8 || alen > len + 4 {
                return self.of_invalid(p, at, len);
            }
            let fits = match t {
                0..=3 | 6..=10 => Some(alen == 8),
                4 | 5 | 11 => Some(alen == 16),
                0xffff => Some(alen % 8 == 0),
                _ => None,
            };
            if fits == Some(false) {
                out!(self, " (bogus)");
            }
            if fits != Some(true) {
                need(p, at, alen as usize - 4)?;
                at += alen as usize - 4;
                len -= alen - 4;
                continue;
            }
            self.of10_action(p, at, t, alen)?;
            at += alen as usize - 4;
            len -= alen - 4;
        }
        Ok(())
    }

    /// One action's body (after type and length) of a valid length.
    fn of10_action(&mut self, p: &[u8], at: usize, t: u16, alen: u32) -> PResult {
        match t {
            0 => {
                let out_port = g2(p, at)?;
                out!(self, ", port {}", port(out_port));
                if out_port == 0xfffd {
                    out!(self, ", max_len {}", g2(p, at + 2)?);
                }
            }
            1 => out!(self, ", vlan_vid {}", vlan(g2(p, at)?)),
            2 => out!(self, ", vlan_pcp {}", pcp(g1(p, at)?)),
            4 | 5 => {
                let mac = self.ether_str(gmac(p, at)?);
                out!(self, ", dl_addr {mac}");
            }
            6 | 7 => {
                let a = self.host4(gv4(p, at)?);
                out!(self, ", nw_addr {a}");
            }
            8 => out!(self, ", nw_tos 0x{:02x}", g1(p, at)?),
            9 | 10 => out!(self, ", tp_port {}", g2(p, at)?),
            11 => {
                out!(self, ", port {}", port(g2(p, at)?));
                out!(self, ", queue_id {}", queue(g4(p, at + 8)?));
            }
            0xffff => return self.of10_vendor_action(p, at, alen - 4),
            _ => {}
        }
        // The padding after the fields may be the message's last bytes.
        need(p, at, alen as usize - 4)
    }

    /// `of10_queues_print`: the queues in `len` bytes from `at`.
    pub(super) fn of10_queues(&mut self, p: &[u8], mut at: usize, mut len: u32) -> PResult {
        while len > 0 {
            if len < 8 {
                return self.of_invalid(p, at, len);
            }
            out!(self, "\n\t  queue_id {}", g4(p, at)?);
            let desclen = u32::from(g2(p, at + 4)?);
            out!(self, ", len {desclen}");
            at += 6;
            len -= 6;
            if desclen < 8 || desclen > len + 6 {
                return self.of_invalid(p, at, len);
            }
            need(p, at, 2)?;
            at += 2;
            len -= 2;
            let props = desclen - 8;
            if self.opts.verbose >= 2 {
                self.of10_queue_props(p, at, props)?;
            } else {
                need(p, at, props as usize)?;
            }
            at += props as usize;
            len -= props;
        }
        Ok(())
    }

    fn of10_queue_props(&mut self, p: &[u8], mut at: usize, mut len: u32) -> PResult {
        while len > 0 {
            if len < 8 {
                return self.of_invalid(p, at, len);
            }
            let prop = g2(p, at)?;
            match prop {
                0 => out!(self, "\n\t   property NONE"),
                1 => out!(self, "\n\t   property MIN_RATE"),
                _ => out!(self, "\n\t   property invalid (0x{prop:04x})"),
            }
            let plen = u32::from(g2(p, at + 2)?);
            out!(self, ", len {plen}");
            at += 4;
            len -= 4;
            if plen < 8 || plen > len + 4 {
                return self.of_invalid(p, at, len);
            }
            need(p, at, 4)?;
            at += 4;
            len -= 4;
            let fits = match prop {
                0 => Some(plen == 8),
                1 => Some(plen == 16),
                _ => None,
            };
            if fits == Some(false) {
                out!(self, " (bogus)");
            }
            if fits != Some(true) || prop == 0 {
                need(p, at, plen as usize - 8)?;
                at += plen as usize - 8;
                len -= plen - 8;
                continue;
            }
            let rate = g2(p, at)?;
            if rate > 1000 {
                out!(self, ", rate disabled");
            } else {
                out!(self, ", rate {}.{}%", rate / 10, rate % 10);
            }
            need(p, at + 2, 6)?;
            at += 8;
            len -= 8;
        }
        Ok(())
    }
}

fn action_name(t: u16) -> Option<&'static str> {
    const NAMES: [&str; 12] = [
        "OUTPUT",
        "SET_VLAN_VID",
        "SET_VLAN_PCP",
        "STRIP_VLAN",
        "SET_DL_SRC",
        "SET_DL_DST",
        "SET_NW_SRC",
        "SET_NW_DST",
        "SET_NW_TOS",
        "SET_TP_SRC",
        "SET_TP_DST",
        "ENQUEUE",
    ];
    if t == 0xffff {
        return Some("VENDOR");
    }
    NAMES.get(usize::from(t)).copied()
}
