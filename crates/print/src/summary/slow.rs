//! The IEEE 802.3 slow protocols (EtherType 0x8809) as tcpdump 4.99's
//! `slow_print` prints them: LACP and Marker TLVs, and Ethernet OAM
//! information, event notification and loopback PDUs; other subtypes (OSSP)
//! as a hex dump.

use super::{bit_names, g1, g2, g3, g4, need, out, PResult, Printer};

/// `lacp_tlv_actor_partner_info_state_values`.
const LACP_STATE: [(u32, &str); 8] = [
    (0x01, "Activity"),
    (0x02, "Timeout"),
    (0x04, "Aggregation"),
    (0x08, "Synchronization"),
    (0x10, "Collecting"),
    (0x20, "Distributing"),
    (0x40, "Default"),
    (0x80, "Expired"),
];

/// `slow_oam_flag_values`.
const OAM_FLAGS: [(u32, &str); 7] = [
    (0x01, "Link Fault"),
    (0x02, "Dying Gasp"),
    (0x04, "Critical Event"),
    (0x08, "Local Evaluating"),
    (0x10, "Local Stable"),
    (0x20, "Remote Evaluating"),
    (0x40, "Remote Stable"),
];

/// `slow_oam_info_type_oam_config_values`.
const OAM_CONFIG: [(u32, &str); 5] = [
    (0x01, "Active"),
    (0x02, "Unidirectional"),
    (0x04, "Remote-Loopback"),
    (0x08, "Link-Events"),
    (0x10, "Variable-Retrieval"),
];

const TOO_SHORT: &str = "\n\t\t packet is too short";

fn g8(b: &[u8], at: usize) -> PResult<u64> {
    Ok(((g4(b, at)? as u64) << 32) | g4(b, at + 4)? as u64)
}

impl Printer<'_> {
    /// `slow_print`: `p` captured from the subtype, `length` on the wire.
    pub(crate) fn slow(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "slow";
        let v = self.opts.verbose;
        let len = length as usize;
        let too_short = if v > 0 {
            TOO_SHORT
        } else {
            " (packet is too short)"
        };
        if len < 1 {
            out!(self, "{too_short}");
            return Ok(());
        }
        let sub = g1(p, 0)?;
        let name = match sub {
            1 => "LACP".to_string(),
            2 => "MARKER".to_string(),
            3 => "OAM".to_string(),
            _ => format!("unknown ({sub})"),
        };
        match sub {
            1 | 2 => {
                if len < 2 {
                    out!(self, "{too_short}");
                    return Ok(());
                }
                let ver = g1(p, 1)?;
                if ver != 1 {
                    out!(self, "{name} version {ver} packet not supported");
                    return Ok(());
                }
                out!(self, "{name}v{ver}, length {len}");
            }
            _ => out!(self, "{name}, length {len}"),
        }
        if !matches!(sub, 1..=3) {
            self.hex_print(super::head(p, len), "\n\t");
            return Ok(());
        }
        if v == 0 {
            return Ok(());
        }
        if sub == 3 {
            self.slow_oam(super::tail(p, 1), len - 1)
        } else {
            self.slow_lacp(super::tail(p, 2), len - 2, sub)
        }
    }

    /// Whether the TLV of type `t` and length `l` (its header included) at
    /// `at` is one to decode: not the end marker, not shorter than its
    /// header, within the `left` bytes of the PDU and captured. Prints why
    /// not as tcpdump does.
    fn slow_tlv_fits(
        &mut self,
        p: &[u8],
        at: usize,
        t: u8,
        l: usize,
        left: usize,
    ) -> PResult<bool> {
        if t == 0 {
            return Ok(false);
        }
        if l < 2 {
            out!(self, "\n\t    ERROR: illegal length - should be >= 2");
            return Ok(false);
        }
        if left < l {
            out!(self, "{TOO_SHORT}");
            return Ok(false);
        }
        need(p, at, l)?;
        Ok(true)
    }

    /// `slow_marker_lacp_print`.
    fn slow_lacp(&mut self, p: &[u8], len: usize, sub: u8) -> PResult {
        let (mut at, mut left) = (0usize, len);
        while left > 0 {
            if left < 2 {
                out!(self, "{TOO_SHORT}");
                return Ok(());
            }
            let (t, l) = (g1(p, at)?, g1(p, at + 1)? as usize);
            let name = match (sub, t) {
                (_, 0) => "Terminator",
                (1, 1) => "Actor Information",
                (1, 2) => "Partner Information",
                (1, 3) => "Collector Information",
                (2, 1) => "Marker Information",
                _ => "Unknown",
            };
            out!(self, "\n\t{name} TLV (0x{t:02x}), length {l}");
            if !self.slow_tlv_fits(p, at, t, l, left)? {
                return Ok(());
            }
            let b = &p[at + 2..at + l];
            // The value's size for each TLV tcpdump decodes.
            let want = match (sub, t) {
                (1, 1 | 2) => 18,
                (1, 3) | (2, 1) => 14,
                _ => 0,
            };
            if want == 0 {
                if self.opts.verbose <= 1 {
                    self.hex_print(b, "\n\t  ");
                }
            } else if b.len() != want {
                out!(
                    self,
                    "\n\t    ERROR: illegal length - should be {}",
                    want + 2
                );
            } else if sub == 1 && t != 3 {
                let sys = self.ether_str(mac(b, 2));
                out!(
                    self,
                    "\n\t  System {sys}, System Priority {}, Key {}, Port {}, Port Priority {}\n\t  State Flags [{}]",
                    g2(b, 0)?,
                    g2(b, 8)?,
                    g2(b, 12)?,
                    g2(b, 10)?,
                    bit_names(b[14] as u32, &LACP_STATE)
                );
            } else if sub == 1 {
                out!(self, "\n\t  Max Delay {}", g2(b, 0)?);
            } else {
                let sys = self.ether_str(mac(b, 2));
                out!(
                    self,
                    "\n\t  Request System {sys}, Request Port {}, Request Transaction ID 0x{:08x}",
                    g2(b, 0)?,
                    g4(b, 8)?
                );
            }
            if self.opts.verbose > 1 {
                self.hex_print(b, "\n\t  ");
            }
            at += l;
            left -= l;
        }
        Ok(())
    }

    /// `slow_oam_print`: `p` from the OAM flags on.
    fn slow_oam(&mut self, p: &[u8], len: usize) -> PResult {
        if len < 3 {
            out!(self, "{TOO_SHORT}");
            return Ok(());
        }
        let (flags, code) = (g2(p, 0)?, g1(p, 2)?);
        let cname = match code {
            0 => "Information".to_string(),
            1 => "Event Notification".to_string(),
            2 => "Variable Request".to_string(),
            3 => "Variable Response".to_string(),
            4 => "Loopback Control".to_string(),
            0xfe => "Vendor Private".to_string(),
            c => format!("Unknown ({c})"),
        };
        out!(
            self,
            "\n\tCode {cname} OAM PDU, Flags [{}]",
            bit_names(flags as u32, &OAM_FLAGS)
        );
        let (mut at, mut left) = (3usize, len - 3);
        match code {
            0 | 1 => {
                if code == 1 {
                    if left < 2 {
                        out!(self, "{TOO_SHORT}");
                        return Ok(());
                    }
                    out!(self, "\n\t  Sequence Number {}", g2(p, at)?);
                    at += 2;
                    left -= 2;
                }
                while left > 0 {
                    if left < 2 {
                        out!(self, "{TOO_SHORT}");
                        return Ok(());
                    }
                    let (t, l) = (g1(p, at)?, g1(p, at + 1)? as usize);
                    let tname = match (code, t) {
                        (_, 0) => "End of TLV marker",
                        (0, 1) => "Local",
                        (0, 2) => "Remote",
                        (1, 1) => "Errored Symbol Period Event",
                        (1, 2) => "Errored Frame Event",
                        (1, 3) => "Errored Frame Period Event",
                        (1, 4) => "Errored Frame Seconds Summary Event",
                        (_, 0xfe) => "Organization specific",
                        _ => "Reserved",
                    };
                    let kind = if code == 0 {
                        "Information"
                    } else {
                        "Link Event"
                    };
                    out!(self, "\n\t  {tname} {kind} Type ({t}), length {l}");
                    if !self.slow_tlv_fits(p, at, t, l, left)? {
                        return Ok(());
                    }
                    let b = &p[at..at + l];
                    let hexdump = if code == 0 {
                        self.oam_info_tlv(t, b)?
                    } else {
                        self.oam_event_tlv(t, b)?
                    };
                    if self.opts.verbose > 1 || hexdump {
                        self.hex_print(b, "\n\t  ");
                    }
                    at += l;
                    left -= l;
                }
            }
            4 => {
                if left < 1 {
                    out!(self, "{TOO_SHORT}");
                    return Ok(());
                }
                let c = g1(p, at)?;
                let cn = match c {
                    1 => "Enable OAM Remote Loopback",
                    2 => "Disable OAM Remote Loopback",
                    _ => "Unknown",
                };
                out!(self, "\n\t  Command {cn} ({c})");
            }
            _ => {
                if self.opts.verbose <= 1 {
                    need(p, at, 0)?;
                    let b = super::head(super::tail(p, at), left);
                    self.hex_print(b, "\n\t  ");
                }
            }
        }
        Ok(())
    }

    /// A local or remote information TLV (`b` from its type on); returns
    /// whether tcpdump dumps it.
    fn oam_info_tlv(&mut self, t: u8, b: &[u8]) -> PResult<bool> {
        if t != 1 && t != 2 {
            return Ok(true);
        }
        if g1(b, 1)? != 16 {
            out!(self, "\n\t    ERROR: illegal length - should be 16");
            return Ok(true);
        }
        out!(
            self,
            "\n\t    OAM-Version {}, Revision {}",
            g1(b, 2)?,
            g2(b, 3)?
        );
        let state = g1(b, 5)?;
        let parser = ["forwarding", "looping back", "discarding", "reserved"][(state & 3) as usize];
        let mux = if state & 4 != 0 {
            "discarding"
        } else {
            "forwarding"
        };
        out!(
            self,
            "\n\t    State-Parser-Action {parser}, State-MUX-Action {mux}"
        );
        out!(
            self,
            "\n\t    OAM-Config Flags [{}], OAM-PDU-Config max-PDU size {}",
            bit_names(g1(b, 6)? as u32, &OAM_CONFIG),
            g2(b, 7)? & 0x7ff
        );
        let oui = g3(b, 9)?;
        out!(
            self,
            "\n\t    OUI {} (0x{oui:06x}), Vendor-Private 0x{:08x}",
            crate::names::oui_vendor(oui).unwrap_or("Unknown"),
            g4(b, 12)?
        );
        Ok(false)
    }

    /// A link event TLV; returns whether tcpdump dumps it.
    fn oam_event_tlv(&mut self, t: u8, b: &[u8]) -> PResult<bool> {
        if !(1..=4).contains(&t) {
            return Ok(true);
        }
        if g1(b, 1)? != 40 {
            out!(self, "\n\t    ERROR: illegal length - should be 40");
            return Ok(true);
        }
        out!(
            self,
            "\n\t    Timestamp {} ms, Errored Window {}\n\t    Errored Threshold {}\n\t    Errors {}\n\t    Error Running Total {}\n\t    Event Running Total {}",
            g2(b, 2)? as u32 * 100,
            g8(b, 4)?,
            g8(b, 12)?,
            g8(b, 20)?,
            g8(b, 28)?,
            g4(b, 36)?
        );
        Ok(false)
    }
}

fn mac(b: &[u8], at: usize) -> [u8; 6] {
    let mut m = [0u8; 6];
    m.copy_from_slice(&b[at..at + 6]);
    m
}
