//! Cisco's VLAN Trunking Protocol (SNAP PID 0x2003) as tcpdump 4.99's
//! `vtp_print` prints it: the message line, and with `-v` the domain, the
//! summary fields, a subset's VLANs and their TLVs, a request's start value.

use super::{g1, g2, g4, gv4, need, out, PResult, Printer};

impl Printer<'_> {
    /// `vtp_print`: `p` captured from the VTP header, `length` on the wire.
    pub(super) fn vtp(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "vtp";
        let len = length as usize;
        match self.vtp_body(p, len)? {
            true => Ok(()),
            false => {
                out!(self, " (invalid)");
                need(p, 0, len)
            }
        }
    }

    /// Returns false where tcpdump jumps to `invalid`.
    fn vtp_body(&mut self, p: &[u8], len: usize) -> PResult<bool> {
        if len < 36 {
            return Ok(false);
        }
        need(p, 0, 36)?;
        let ty = p[1];
        let tname = match ty {
            1 => "Summary advertisement",
            2 => "Subset advertisement",
            3 => "Advertisement request",
            4 => "Join message",
            _ => "Unknown message type",
        };
        out!(
            self,
            "VTPv{}, Message {tname} (0x{ty:02x}), length {len}",
            p[0]
        );
        if self.opts.verbose < 1 {
            need(p, 0, len)?;
            return Ok(true);
        }
        out!(self, "\n\tDomain name: ");
        let mlen = p[3] as usize;
        if !(1..=32).contains(&mlen) {
            out!(self, " [invalid MgmtD Len {mlen}]");
            return Ok(false);
        }
        self.jnp(p, 4, mlen)?;
        let hname = match ty {
            1 => "Followers",
            2 => "Seq number",
            3 | 4 => "Rsvd",
            _ => "Unknown",
        };
        out!(self, ", {hname}: {}", p[2]);
        let mut at = 36;
        match ty {
            1 => {
                let upd = self.host4(gv4(p, at + 4)?);
                out!(self, "\n\t  Config Rev {:x}, Updater {upd}", g4(p, at)?);
                at += 8;
                out!(
                    self,
                    ", Timestamp 0x{:08x} 0x{:08x} 0x{:08x}",
                    g4(p, at)?,
                    g4(p, at + 4)?,
                    g4(p, at + 8)?
                );
                at += 12;
                out!(
                    self,
                    ", MD5 digest: {:08x}{:08x}{:08x}{:08x}",
                    g4(p, at)?,
                    g4(p, at + 4)?,
                    g4(p, at + 8)?,
                    g4(p, at + 12)?
                );
            }
            2 => {
                out!(self, ", Config Rev {:x}", g4(p, at)?);
                at += 4;
                while at < len {
                    let l = g1(p, at)? as usize;
                    if l == 0 {
                        break;
                    }
                    need(p, at, l)?;
                    if l < 12 || !self.vtp_vlan(&p[at..at + l])? {
                        return Ok(false);
                    }
                    at += l;
                }
            }
            3 => out!(self, "\n\tStart value: {}", g4(p, at)?),
            _ => {}
        }
        Ok(true)
    }

    /// One VLAN info field (all of it captured, at least 12 bytes); false
    /// where tcpdump finds it invalid.
    fn vtp_vlan(&mut self, v: &[u8]) -> PResult<bool> {
        let status = match v[1] {
            0 => "Operational",
            1 => "Suspended",
            _ => "Unknown",
        };
        let kind = match v[2] {
            1 => "Ethernet",
            2 => "FDDI",
            3 => "TrCRF",
            4 => "FDDI-net",
            5 => "TrBRF",
            _ => "Unknown",
        };
        out!(
            self,
            "\n\tVLAN info status {status}, type {kind}, VLAN-id {}, MTU {}, SAID 0x{:08x}, Name ",
            g2(v, 4)?,
            g2(v, 6)?,
            g4(v, 8)?
        );
        let padded = 4 * ((v[3] as usize).div_ceil(4));
        let mut left = v.len() - 12;
        if left < padded {
            return Ok(false);
        }
        self.jnp(v, 12, v[3] as usize)?;
        left -= padded;
        let mut at = 12 + padded;
        while left > 0 {
            if left < 2 {
                return Ok(false);
            }
            let (t, tl) = (v[at], v[at + 1] as usize);
            let name = match t {
                1 => "Source-Routing Ring Number TLV",
                2 => "Source-Routing Bridge Number TLV",
                3 => "STP type TLV",
                4 => "Parent VLAN TLV",
                5 => "Translationally bridged VLANs TLV",
                6 => "Pruning TLV",
                7 => "Bridge Type TLV",
                8 => "Max ARP Hop Count TLV",
                9 => "Max STE Hop Count TLV",
                10 => "Backup CRF Mode TLV",
                _ => "Unknown",
            };
            out!(self, "\n\t\t{name} (0x{t:04x}) TLV");
            if left < tl * 2 + 2 {
                out!(self, " (TLV goes past the end of the packet)");
                return Ok(false);
            }
            if tl != 1 {
                out!(self, " (invalid TLV length {tl} != 1)");
                return Ok(false);
            }
            let val = g2(v, at + 2)?;
            match t {
                9 => out!(self, ", {val}"),
                6 => {
                    let s = if val == 1 { "Enabled" } else { "Disabled" };
                    out!(self, ", {s} ({val})");
                }
                3 => {
                    let s = match val {
                        1 => "SRT",
                        2 => "SRB",
                        3 => "Auto",
                        _ => "Unknown",
                    };
                    out!(self, ", {s} ({val})");
                }
                7 => {
                    let s = if val == 1 { "SRB" } else { "SRT" };
                    out!(self, ", {s} ({val})");
                }
                10 => {
                    let s = if val == 1 { "Backup" } else { "Not backup" };
                    out!(self, ", {s} ({val})");
                }
                _ => self.hex_print(&v[at..at + 4], "\n\t\t  "),
            }
            left -= 4;
            at += 4;
        }
        Ok(true)
    }
}
