//! IEEE 802.1AB LLDP (EtherType 0x88cc) as tcpdump 4.99's `lldp_print` prints
//! it: `LLDP, length N` and the system name without `-v`; every TLV with `-v`
//! (chassis and port IDs, TTL, descriptions, capabilities, management
//! addresses, and the organization-specific TLVs of `org.rs` and `dcbx.rs`);
//! and with `-vv` the hex of each TLV after its decoding.

mod dcbx;
mod org;
mod tia;

use super::{bit_names, g1, g2, g4, need, out, PResult, Printer, Trunc};
use std::net::{Ipv4Addr, Ipv6Addr};

/// `lldp_cap_values`.
const CAPS: [(u32, &str); 8] = [
    (1 << 0, "Other"),
    (1 << 1, "Repeater"),
    (1 << 2, "Bridge"),
    (1 << 3, "WLAN AP"),
    (1 << 4, "Router"),
    (1 << 5, "Telephone"),
    (1 << 6, "Docsis"),
    (1 << 7, "Station Only"),
];

fn tlv_name(t: u16) -> &'static str {
    match t {
        0 => "End",
        1 => "Chassis ID",
        2 => "Port ID",
        3 => "Time to Live",
        4 => "Port Description",
        5 => "System Name",
        6 => "System Description",
        7 => "System Capabilities",
        8 => "Management Address",
        127 => "Organization specific",
        _ => "Unknown",
    }
}

pub(in crate::summary) fn chassis_subtype(s: u8) -> &'static str {
    match s {
        1 => "Chassis component",
        2 => "Interface alias",
        3 => "Port component",
        4 => "MAC address",
        5 => "Network address",
        6 => "Interface name",
        7 => "Local",
        _ => "Unknown",
    }
}

fn port_subtype(s: u8) -> &'static str {
    match s {
        1 => "Interface alias",
        2 => "Port component",
        3 => "MAC address",
        4 => "Network Address",
        5 => "Interface Name",
        6 => "Agent circuit ID",
        7 => "Local",
        _ => "Unknown",
    }
}

/// tcpdump's `af_values` (address family numbers), LDP's table.
pub(crate) fn afnum_name(af: u8) -> &'static str {
    super::ldp::af_name(af.into()).unwrap_or("Unknown")
}

impl Printer<'_> {
    /// `lldp_print`: `p` captured from the first TLV, `length` bytes on the wire.
    pub(crate) fn lldp(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "lldp";
        out!(self, "LLDP, length {length}");
        let v = self.opts.verbose;
        let mut off = 0usize;
        let mut left = length as usize;
        while left >= 2 {
            let h = g2(p, off)?;
            let (t, l) = (h >> 9, (h & 0x1ff) as usize);
            left -= 2;
            off += 2;
            if v > 0 {
                out!(self, "\n\t{} TLV ({t}), length {l}", tlv_name(t));
            }
            if t == 0 || l == 0 {
                break;
            }
            need(p, off, l)?;
            if left < l {
                return Err(Trunc);
            }
            let tlv = &p[off..off + l];
            let hexdump = self.lldp_tlv(t, tlv)?;
            if v > 1 || (v > 0 && hexdump) {
                self.hex_print(tlv, "\n\t  ");
            }
            left -= l;
            off += l;
        }
        Ok(())
    }

    /// One TLV's value; returns whether tcpdump dumps it in hex after `-v`.
    fn lldp_tlv(&mut self, t: u16, tlv: &[u8]) -> PResult<bool> {
        let v = self.opts.verbose > 0;
        let l = tlv.len();
        match t {
            1 | 2 if v => {
                if l < 2 {
                    return Err(Trunc);
                }
                let s = tlv[0];
                let (name, mac, net, text) = if t == 1 {
                    (chassis_subtype(s), 4, 5, matches!(s, 1 | 2 | 3 | 6 | 7))
                } else {
                    (port_subtype(s), 3, 4, matches!(s, 1 | 2 | 5 | 6 | 7))
                };
                out!(self, "\n\t  Subtype {name} ({s}): ");
                if s == mac {
                    if l < 7 {
                        return Err(Trunc);
                    }
                    let s = self.ether_str(mac6(tlv, 1));
                    self.out.push_str(&s);
                } else if text {
                    self.jnp(tlv, 1, l - 1)?;
                } else if s == net {
                    let a = self.lldp_network_addr(&tlv[1..]).ok_or(Trunc)?;
                    self.out.push_str(&a);
                } else {
                    return Ok(true);
                }
            }
            3 if v => {
                if l < 2 {
                    return Err(Trunc);
                }
                out!(self, ": TTL {}s", g2(tlv, 0)?);
            }
            4 if v => {
                out!(self, ": ");
                self.jnp(tlv, 0, l)?;
            }
            5 => {
                out!(self, ": ");
                self.jnp(tlv, 0, l)?;
            }
            6 if v => {
                out!(self, "\n\t  ");
                self.jnp(tlv, 0, l)?;
            }
            7 if v => {
                if l < 4 {
                    return Err(Trunc);
                }
                let (cap, ena) = (g2(tlv, 0)? as u32, g2(tlv, 2)? as u32);
                out!(
                    self,
                    "\n\t  System  Capabilities [{}] (0x{cap:04x})",
                    bit_names(cap, &CAPS)
                );
                out!(
                    self,
                    "\n\t  Enabled Capabilities [{}] (0x{ena:04x})",
                    bit_names(ena, &CAPS)
                );
            }
            8 if v => {
                if !self.lldp_mgmt_addr(tlv)? {
                    return Err(Trunc);
                }
            }
            127 if v => {
                if l < 3 {
                    return Err(Trunc);
                }
                let oui = u32::from_be_bytes([0, tlv[0], tlv[1], tlv[2]]);
                out!(
                    self,
                    ": OUI {} (0x{oui:06x})",
                    crate::names::oui_vendor(oui).unwrap_or("Unknown")
                );
                return match oui {
                    0x0080c2 => self.lldp_8021(tlv),
                    0x00120f => self.lldp_8023(tlv),
                    0x00005e => self.lldp_iana(tlv),
                    0x0012bb => self.lldp_tia(tlv),
                    0x001b21 => self.lldp_dcbx(tlv),
                    _ => Ok(true),
                };
            }
            1..=8 | 127 => {}
            _ => return Ok(true),
        }
        Ok(false)
    }

    /// `lldp_network_addr_print`: `AFI IPv4 (1): 10.0.0.1`, or `None` when the
    /// address is shorter than its family's.
    fn lldp_network_addr(&self, b: &[u8]) -> Option<String> {
        let (&af, a) = b.split_first()?;
        let text = match af {
            1 if a.len() >= 4 => Some(self.host4(Ipv4Addr::new(a[0], a[1], a[2], a[3]))),
            2 if a.len() >= 16 => {
                let mut o = [0u8; 16];
                o.copy_from_slice(&a[..16]);
                Some(self.host6(Ipv6Addr::from(o)))
            }
            6 if a.len() >= 6 => Some(self.ether_str(mac6(a, 0))),
            1 | 2 | 6 => return None,
            _ => None,
        };
        let name = afnum_name(af);
        Some(match text {
            Some(t) => format!("AFI {name} ({af}): {t}"),
            None => format!("AFI {name} ({af}), no AF printer !"),
        })
    }

    /// `lldp_mgmt_addr_tlv_print`: false where tcpdump gives up on the TLV.
    fn lldp_mgmt_addr(&mut self, tlv: &[u8]) -> PResult<bool> {
        let Some((&alen, rest)) = tlv.split_first() else {
            return Ok(false);
        };
        let alen = alen as usize;
        if rest.len() < alen {
            return Ok(false);
        }
        let Some(addr) = self.lldp_network_addr(&rest[..alen]) else {
            return Ok(false);
        };
        out!(self, "\n\t  Management Address length {alen}, {addr}");
        let rest = &rest[alen..];
        if rest.len() < 5 {
            return Ok(false);
        }
        let sub = g1(rest, 0)?;
        let name = match sub {
            2 => "Interface Index",
            3 => "System Port Number",
            _ => "Unknown",
        };
        out!(
            self,
            "\n\t  {name} Interface Numbering ({sub}): {}",
            g4(rest, 1)?
        );
        let rest = &rest[5..];
        if let Some(&oid_len) = rest.first() {
            if rest.len() < 1 + oid_len as usize {
                return Ok(false);
            }
            if oid_len > 0 {
                out!(self, "\n\t  OID length {oid_len}");
                self.jnp(rest, 1, oid_len as usize)?;
            }
        }
        Ok(true)
    }
}

/// Six bytes from `at` as a MAC address; the caller checked they are there.
fn mac6(b: &[u8], at: usize) -> [u8; 6] {
    let mut m = [0u8; 6];
    m.copy_from_slice(&b[at..at + 6]);
    m
}
