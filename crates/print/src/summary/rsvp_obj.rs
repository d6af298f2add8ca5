//! RSVP with `-v` (tcpdump 4.99.3's `rsvp_print` and `rsvp_obj_print`):
//! the common header, then each object's header and the fields of the
//! objects decoded here (session, hop, time values, style, sender template,
//! confirm, notify request, labels, ERO/RRO, hello, restart capability,
//! capability, session attribute, generalized UNI, fast reroute, detour,
//! class type). Other objects, and with `-vv` every object, are dumped in
//! hex, as tcpdump's `print_unknown_data`. Not decoded yet (dumped instead
//! of tcpdump's fields): integrity, error spec, flowspec/TSpec/Adspec,
//! filter spec, label request, properties, message ids, admin status,
//! label set, S2L.

use super::rsvp_sub::{ctype_name, Stop};
use super::{g1, g2, g3, g4, gv4, gv6, host4_name, need, out, PResult, Printer};

/// `rsvp_obj_values`.
fn obj_name(c: u8) -> &'static str {
    match c {
        1 => "Session",
        3 => "RSVP Hop",
        4 => "Integrity",
        5 => "Time Values",
        6 => "Error Spec",
        7 => "Scope",
        8 => "Style",
        9 => "Flowspec",
        10 => "FilterSpec",
        11 => "Sender Template",
        12 => "Sender TSpec",
        13 => "Adspec",
        14 => "Policy Data",
        15 => "Confirm",
        16 => "Label",
        19 => "Label Request",
        20 => "ERO",
        21 => "RRO",
        22 => "Hello",
        23 => "Message ID",
        24 => "Message ID Ack",
        25 => "Message ID List",
        34 => "Recovery Label",
        35 => "Upstream Label",
        36 => "Label Set",
        37 => "Protection",
        50 => "Sub-LSP to LSP",
        63 => "Detour",
        66 => "Class Type",
        125 => "Class Type (old)",
        129 => "Suggested Label",
        130 => "Acceptable Label Set",
        131 => "Restart Capability",
        134 => "Capability",
        195 => "Notify Request",
        196 => "Administrative Status",
        204 => "Properties",
        205 => "Fast Re-Route",
        207 => "Session Attribute",
        229 => "Generalized UNI",
        230 => "Call-ID",
        236 => "Call Capability",
        _ => "Unknown",
    }
}

/// C's `%.10g`.
fn fmt_g10(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return if v.is_nan() {
            "nan".into()
        } else if v.is_infinite() {
            "inf".into()
        } else {
            "0".into()
        };
    }
    let e = v.abs().log10().floor() as i32;
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if !(-4..10).contains(&e) {
        let s = format!("{v:.9e}");
        let (m, x) = s.split_once('e').unwrap_or((&s, "0"));
        let x: i32 = x.parse().unwrap_or(0);
        format!(
            "{}e{}{:02}",
            trim(m.to_string()),
            if x < 0 { '-' } else { '+' },
            x.abs()
        )
    } else {
        trim(format!("{v:.*}", (9 - e) as usize))
    }
}

impl Printer<'_> {
    /// `rsvp_print` with `-v`: `bp` the RSVP message.
    pub(super) fn rsvp_verbose(&mut self, bp: &[u8]) -> PResult {
        let vf = g1(bp, 0)?;
        let t = g1(bp, 1)?;
        let tlen = usize::from(g2(bp, 6)?);
        self.rsvp_header("\n\t", bp, 0)?;
        if tlen < 8 {
            out!(self, "ERROR: common header too short {tlen} < 8");
            return Ok(());
        }
        let _ = vf;
        match t {
            12 => {
                let (mut at, mut left) = (8usize, tlen - 8);
                while left > 0 {
                    need(bp, at, 8)?;
                    let v = g1(bp, at)? >> 4;
                    if v != 1 {
                        out!(self, "ERROR: RSVP version {v} packet not supported");
                        return Ok(());
                    }
                    let sub = usize::from(g2(bp, at + 6)?);
                    self.rsvp_header("\n\t  ", bp, at)?;
                    if sub < 8 {
                        out!(self, "ERROR: common header too short {sub} < 8");
                        return Ok(());
                    }
                    if left < sub {
                        out!(self, "ERROR: common header too large {sub} > {left}");
                        return Ok(());
                    }
                    if !self.rsvp_objs(bp, at + 8, "\n\t    ", sub - 8)? {
                        return Ok(());
                    }
                    at += sub;
                    left -= sub;
                }
            }
            1..=7 | 13..=15 | 20 => {
                self.rsvp_objs(bp, 8, "\n\t  ", tlen - 8)?;
            }
            _ => {
                self.unknown_data(bp, 8, tlen - 8, "\n\t    ");
            }
        }
        Ok(())
    }

    /// A common header at `at`, after `lead`.
    fn rsvp_header(&mut self, lead: &str, bp: &[u8], at: usize) -> PResult {
        need(bp, at, 8)?;
        let vf = g1(bp, at)?;
        let t = g1(bp, at + 1)?;
        let name = super::rsvp::msg_type_name(t)
            .map_or_else(|| format!("unknown, type: {t}"), str::to_string);
        let flags = if vf & 1 != 0 {
            "Refresh reduction capable"
        } else {
            "none"
        };
        out!(
            self,
            "{lead}RSVPv{} {name} Message ({t}), Flags: [{flags}], length: {}, ttl: {}, checksum: 0x{:04x}",
            vf >> 4,
            g2(bp, at + 6)?,
            g1(bp, at + 4)?,
            g2(bp, at + 2)?
        );
        Ok(())
    }

    /// `rsvp_obj_print`: the objects of `tlen` bytes from `at`; false
    /// where tcpdump's returns -1 (the message ends there).
    fn rsvp_objs(&mut self, bp: &[u8], mut at: usize, ind: &str, mut tlen: usize) -> PResult<bool> {
        while tlen >= 4 {
            // Both checks on what was captured are `goto trunc` in tcpdump:
            // the marker, no `longjmp` (`Printer::caught`).
            if need(bp, at, 4).is_err() {
                let _ = self.caught();
                self.trunc();
                return Ok(false);
            }
            let olen = usize::from(g2(bp, at)?);
            let class = g1(bp, at + 2)?;
            let ct = g1(bp, at + 3)?;
            if olen % 4 != 0 {
                out!(
                    self,
                    "{ind}ERROR: object header size {olen} not a multiple of 4"
                );
                return Ok(false);
            }
            if olen < 4 {
                out!(self, "{ind}ERROR: object header too short {olen} < 4");
                return Ok(false);
            }
            let flag = if class & 0x80 == 0 {
                "reject"
            } else if class & 0x40 != 0 {
                "ignore and forward"
            } else {
                "ignore silently"
            };
            out!(
                self,
                "{ind}{} Object ({class}) Flags: [{flag} if unknown], Class-Type: {} ({ct}), length: {olen}",
                obj_name(class),
                ctype_name(class, ct)
            );
            if tlen < olen {
                out!(self, "{ind}ERROR: object goes past end of objects TLV");
                return Ok(false);
            }
            if need(bp, at, olen).is_err() {
                let _ = self.caught();
                self.trunc();
                return Ok(false);
            }
            let body = &bp[at + 4..at + olen];
            let hexdump = match self.rsvp_obj(body, class, ct, ind)? {
                Ok(h) => h,
                Err(Stop::TooShort) => {
                    out!(self, "{ind}ERROR: object is too short");
                    return Ok(false);
                }
                Err(Stop::SubTooShort) => {
                    out!(self, "{ind}ERROR: sub-object is too short");
                    return Ok(false);
                }
                Err(Stop::Invalid) => {
                    self.out.push_str(" (invalid)");
                    return Ok(false);
                }
            };
            if self.opts.verbose > 1 || hexdump {
                self.unknown_data(body, 0, body.len(), "\n\t    ");
            }
            at += olen;
            tlen -= olen;
        }
        Ok(true)
    }

    /// One object's fields: `Ok(true)` to dump it in hex after them.
    fn rsvp_obj(&mut self, o: &[u8], class: u8, ct: u8, ind: &str) -> PResult<Result<bool, Stop>> {
        let names = self.opts.names;
        let a4 = |at: usize| gv4(o, at).map(|x| host4_name(names, x));
        let n = o.len();
        let short = |min: usize| if n < min { Err(Stop::TooShort) } else { Ok(()) };
        macro_rules! need_len {
            ($min:expr) => {
                if let Err(e) = short($min) {
                    return Ok(Err(e));
                }
            };
        }
        match (class, ct) {
            (1, 1) => {
                need_len!(8);
                out!(
                    self,
                    "{ind}  IPv4 DestAddress: {}, Protocol ID: 0x{:02x}",
                    a4(0)?,
                    g1(o, 4)?
                );
                out!(
                    self,
                    "{ind}  Flags: [0x{:02x}], DestPort {}",
                    g1(o, 5)?,
                    g2(o, 6)?
                );
            }
            (1, 2) => {
                need_len!(20);
                let a = self.host6(gv6(o, 0)?);
                out!(
                    self,
                    "{ind}  IPv6 DestAddress: {a}, Protocol ID: 0x{:02x}",
                    g1(o, 16)?
                );
                out!(
                    self,
                    "{ind}  Flags: [0x{:02x}], DestPort {}",
                    g1(o, 17)?,
                    g2(o, 18)?
                );
            }
            (1, 8) => {
                need_len!(36);
                let (x, y) = (self.host6(gv6(o, 0)?), self.host6(gv6(o, 20)?));
                out!(self, "{ind}  IPv6 Tunnel EndPoint: {x}, Tunnel ID: 0x{:04x}, Extended Tunnel ID: {y}", g2(o, 18)?);
            }
            (1, 14) => {
                need_len!(26);
                let y = self.host6(gv6(o, 8)?);
                out!(self, "{ind}  IPv6 P2MP LSP ID: 0x{:08x}, Tunnel ID: 0x{:04x}, Extended Tunnel ID: {y}", g4(o, 0)?, g2(o, 6)?);
            }
            (1, 13) => {
                need_len!(12);
                out!(
                    self,
                    "{ind}  IPv4 P2MP LSP ID: {}, Tunnel ID: 0x{:04x}, Extended Tunnel ID: {}",
                    a4(0)?,
                    g2(o, 6)?,
                    a4(8)?
                );
            }
            (1, 7 | 11) => {
                need_len!(12);
                out!(
                    self,
                    "{ind}  IPv4 Tunnel EndPoint: {}, Tunnel ID: 0x{:04x}, Extended Tunnel ID: {}",
                    a4(0)?,
                    g2(o, 6)?,
                    a4(8)?
                );
            }
            (15 | 195, 1) => {
                need_len!(4);
                let what = if class == 15 {
                    "Receiver"
                } else {
                    "Notify Node"
                };
                out!(self, "{ind}  IPv4 {what} Address: {}", a4(0)?);
            }
            (15 | 195, 2) => {
                need_len!(16);
                let what = if class == 15 {
                    "Receiver"
                } else {
                    "Notify Node"
                };
                let a = self.host6(gv6(o, 0)?);
                out!(self, "{ind}  IPv6 {what} Address: {a}");
            }
            (16 | 34 | 35 | 129, 1) => {
                for i in 0..n / 4 {
                    out!(self, "{ind}  Label: {}", g4(o, 4 * i)?);
                }
            }
            (16 | 34 | 35 | 129, 2) => {
                need_len!(4);
                out!(self, "{ind}  Generalized Label: {}", g4(o, 0)?);
            }
            (16 | 34 | 35 | 129, 3) => {
                need_len!(12);
                out!(
                    self,
                    "{ind}  Waveband ID: {}{ind}  Start Label: {}, Stop Label: {}",
                    g4(o, 0)?,
                    g4(o, 4)?,
                    g4(o, 8)?
                );
            }
            (8, 1) => {
                need_len!(4);
                let style = match g3(o, 1)? {
                    17 => "Wildcard Filter",
                    10 => "Fixed Filter",
                    18 => "Shared Explicit",
                    _ => "Unknown",
                };
                out!(
                    self,
                    "{ind}  Reservation Style: {style}, Flags: [0x{:02x}]",
                    g1(o, 0)?
                );
            }
            (11, 1) => {
                need_len!(8);
                out!(
                    self,
                    "{ind}  Source Address: {}, Source Port: {}",
                    a4(0)?,
                    g2(o, 6)?
                );
            }
            (11, 2) => {
                need_len!(20);
                let a = self.host6(gv6(o, 0)?);
                out!(
                    self,
                    "{ind}  Source Address: {a}, Source Port: {}",
                    g2(o, 18)?
                );
            }
            (11, 7) => {
                need_len!(8);
                out!(
                    self,
                    "{ind}  IPv4 Tunnel Sender Address: {}, LSP-ID: 0x{:04x}",
                    a4(0)?,
                    g2(o, 6)?
                );
            }
            (20 | 21, 1) => return self.rsvp_xro(o, ind),
            (22, 1 | 2) => {
                need_len!(8);
                out!(
                    self,
                    "{ind}  Source Instance: 0x{:08x}, Destination Instance: 0x{:08x}",
                    g4(o, 0)?,
                    g4(o, 4)?
                );
            }
            (131, 1) => {
                need_len!(8);
                out!(
                    self,
                    "{ind}  Restart  Time: {}ms, Recovery Time: {}ms",
                    g4(o, 0)?,
                    g4(o, 4)?
                );
            }
            (134, 1) => {
                need_len!(4);
                let v = g4(o, 0)?;
                if v & !7 != 0 {
                    out!(self, "{ind}  [reserved=0x{:08x} must be zero]", v & !7);
                }
                let names = [
                    (4, "RecoveryPath Transmit Enabled"),
                    (2, "RecoveryPath Desired"),
                    (1, "RecoveryPath Srefresh Capable"),
                ];
                out!(self, "{ind}  Flags: [{}]", super::bit_names(v & 7, &names));
            }
            (207, 7) => {
                need_len!(4);
                let nl = usize::from(g1(o, 3)?);
                need_len!(4 + nl);
                self.out.push_str(ind);
                self.out.push_str("  Session Name: ");
                for i in 0..nl {
                    super::print_char(&mut self.out, g1(o, 4 + i)?);
                }
                let f = g1(o, 2)?;
                let names = [
                    (0x01, "Local Protection"),
                    (0x02, "Label Recording"),
                    (0x04, "SE Style"),
                    (0x08, "Bandwidth protection"),
                    (0x10, "Node protection"),
                ];
                let fl = super::bit_names(u32::from(f), &names);
                out!(
                    self,
                    "{ind}  Setup Priority: {}, Holding Priority: {}, Flags: [{fl}] (0x{f:x})",
                    g1(o, 0)?,
                    g1(o, 1)?
                );
            }
            (229, 1) => return self.rsvp_uni(o, ind),
            (205, 1 | 7) => {
                need_len!(if ct == 1 { 20 } else { 16 });
                let bw = f64::from(f32::from_bits(g4(o, 4)?)) * 8.0 / 1_000_000.0;
                out!(
                    self,
                    "{ind}  Setup Priority: {}, Holding Priority: {}, Hop-limit: {}, Bandwidth: {} Mbps",
                    g1(o, 0)?,
                    g1(o, 1)?,
                    g1(o, 2)?,
                    fmt_g10(bw)
                );
                if ct == 1 {
                    out!(self, "{ind}  Include-any: 0x{:08x}, Exclude-any: 0x{:08x}, Include-all: 0x{:08x}", g4(o, 8)?, g4(o, 12)?, g4(o, 16)?);
                } else {
                    out!(
                        self,
                        "{ind}  Include Colors: 0x{:08x}, Exclude Colors: 0x{:08x}",
                        g4(o, 8)?,
                        g4(o, 12)?
                    );
                }
            }
            (63, 7) => {
                for i in 0..n / 8 {
                    out!(
                        self,
                        "{ind}  PLR-ID: {}, Avoid-Node-ID: {}",
                        a4(8 * i)?,
                        a4(8 * i + 4)?
                    );
                }
            }
            (66 | 125, 1) => {
                need_len!(4);
                out!(self, "{ind}  CT: {}", g4(o, 0)? & 7);
            }
            (3, 1 | 3) => {
                need_len!(8);
                out!(
                    self,
                    "{ind}  Previous/Next Interface: {}, Logical Interface Handle: 0x{:08x}",
                    a4(0)?,
                    g4(o, 4)?
                );
                return Ok(Ok(n > 8));
            }
            (3, 2 | 4) => {
                need_len!(20);
                let a = self.host6(gv6(o, 0)?);
                out!(
                    self,
                    "{ind}  Previous/Next Interface: {a}, Logical Interface Handle: 0x{:08x}",
                    g4(o, 16)?
                );
                return Ok(Ok(true));
            }
            (5, 1) => {
                need_len!(4);
                out!(self, "{ind}  Refresh Period: {}ms", g4(o, 0)?);
            }
            // Classes tcpdump decodes that are not decoded here, and the
            // ones it does not: a dump, unless -vv dumps it anyway.
            (
                1 | 15 | 195 | 16 | 34 | 35 | 129 | 8 | 11 | 20 | 21 | 22 | 131 | 134 | 207 | 229
                | 205 | 63 | 66 | 125 | 3 | 5,
                _,
            ) => {
                return Ok(Ok(true));
            }
            _ => {
                if self.opts.verbose <= 1 {
                    self.unknown_data(o, 0, n, "\n\t    ");
                }
            }
        }
        Ok(Ok(false))
    }
}
