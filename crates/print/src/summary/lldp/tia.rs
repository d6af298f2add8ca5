//! LLDP's ANSI/TIA-1057 (LLDP-MED) TLVs as tcpdump 4.99's
//! `lldp_private_tia_print` prints them.

use super::super::{bit_names, g1, g2, g4, out, PResult, Printer};

fn subtype_name(s: u8) -> &'static str {
    match s {
        1 => "LLDP-MED Capabilities",
        2 => "Network policy",
        3 => "Location identification",
        4 => "Extended power-via-MDI",
        5 => "Inventory - hardware revision",
        6 => "Inventory - firmware revision",
        7 => "Inventory - software revision",
        8 => "Inventory - serial number",
        9 => "Inventory - manufacturer name",
        10 => "Inventory - model name",
        11 => "Inventory - asset ID",
        _ => "unknown",
    }
}

/// `lldp_extract_latlon`: 34 bits from `at`.
fn latlon(t: &[u8], at: usize) -> PResult<u64> {
    Ok(((g1(t, at)? as u64 & 3) << 32) | g4(t, at + 1)? as u64)
}

impl Printer<'_> {
    /// `lldp_private_tia_print`; `t` is the TLV from its OUI on.
    pub(super) fn lldp_tia(&mut self, t: &[u8]) -> PResult<bool> {
        let l = t.len();
        if l < 4 {
            return Ok(false);
        }
        let sub = t[3];
        out!(self, "\n\t  {} Subtype ({sub})", subtype_name(sub));
        match sub {
            1 => {
                if l < 7 {
                    return Ok(false);
                }
                let caps = [
                    (1, "LLDP-MED capabilities"),
                    (2, "network policy"),
                    (4, "location identification"),
                    (8, "extended power via MDI-PSE"),
                    (16, "extended power via MDI-PD"),
                    (32, "Inventory"),
                ];
                let c = g2(t, 4)?;
                out!(
                    self,
                    "\n\t    Media capabilities [{}] (0x{c:04x})",
                    bit_names(c as u32, &caps)
                );
                let d = t[6];
                let dev = match d {
                    1 => "endpoint class 1",
                    2 => "endpoint class 2",
                    3 => "endpoint class 3",
                    4 => "network connectivity",
                    _ => "unknown",
                };
                out!(self, "\n\t    Device type [{dev}] (0x{d:02x})");
            }
            2 => {
                if l < 8 {
                    return Ok(false);
                }
                let a = t[4];
                let app = match a {
                    1 => "voice",
                    2 => "voice signaling",
                    3 => "guest voice",
                    4 => "guest voice signaling",
                    5 => "softphone voice",
                    6 => "video conferencing",
                    7 => "streaming video",
                    8 => "video signaling",
                    _ => "none",
                };
                out!(self, "\n\t    Application type [{app}] (0x{a:02x})");
                let bits = [(0x80, "Unknown"), (0x40, "Tagged"), (0x20, "reserved")];
                out!(self, ", Flags [{}]", bit_names(t[5] as u32, &bits));
                let (v, q) = (g2(t, 5)?, g2(t, 6)?);
                out!(self, "\n\t    Vlan id {}", (v & 0x1ffe) >> 1);
                out!(self, ", L2 priority {}", (q & 0x01ff) >> 6);
                out!(self, ", DSCP value {}", q & 0x3f);
            }
            3 => {
                if l < 5 {
                    return Ok(false);
                }
                return self.lldp_tia_location(t);
            }
            4 => {
                if l < 7 {
                    return Ok(false);
                }
                let b = t[4];
                // tcpdump masks with `0xC0 >> 6`, that is 3.
                let kind = if b & 3 != 0 {
                    "PD device"
                } else {
                    "PSE device"
                };
                let source = match (b & 0x30) >> 4 {
                    1 => "PSE - primary power source",
                    2 => "local - backup power source",
                    3 => "PSE+local - reserved",
                    _ => "none",
                };
                out!(self, "\n\t    Power type [{kind}], Power source [{source}]");
                let prio = match b & 0x0f {
                    1 => "critical",
                    2 => "high",
                    3 => "low",
                    _ => "none",
                };
                out!(self, "\n\t    Power priority [{prio}] (0x{:02x})", b & 0x0f);
                let pw = g2(t, 5)?;
                if pw < 1024 {
                    out!(self, ", Power {:.1} Watts", pw as f32 / 10.0);
                } else {
                    out!(self, ", Power {pw} (Reserved)");
                }
            }
            5..=11 => {
                let name = match sub {
                    5 => "Hardware revision",
                    6 => "Firmware revision",
                    7 => "Software revision",
                    8 => "Serial number",
                    9 => "Manufacturer name",
                    10 => "Model name",
                    _ => "Asset ID",
                };
                out!(self, "\n\t  {name} ");
                self.jnp(t, 4, l - 4)?;
            }
            _ => return Ok(true),
        }
        Ok(false)
    }

    /// The location identification subtype (`l` is at least 5).
    fn lldp_tia_location(&mut self, t: &[u8]) -> PResult<bool> {
        let l = t.len();
        let format = t[4];
        let fname = match format {
            1 => "coordinate-based LCI",
            2 => "civic address LCI",
            3 => "ECS ELIN",
            _ => "unknown",
        };
        out!(
            self,
            "\n\t    Location data format {fname} (0x{format:02x})"
        );
        match format {
            1 => {
                if l < 21 {
                    return Ok(false);
                }
                out!(
                    self,
                    "\n\t    Latitude resolution {}, latitude value {}",
                    t[5] >> 2,
                    latlon(t, 5)?
                );
                out!(
                    self,
                    "\n\t    Longitude resolution {}, longitude value {}",
                    t[10] >> 2,
                    latlon(t, 10)?
                );
                let at = t[15] >> 4;
                let aname = match at {
                    1 => "meters",
                    2 => "floors",
                    _ => "unknown",
                };
                out!(self, "\n\t    Altitude type {aname} ({at})");
                out!(
                    self,
                    "\n\t    Altitude resolution {}, altitude value 0x{:x}",
                    (g2(t, 15)? >> 6) & 0x3f,
                    g4(t, 16)? & 0x3fff_ffff
                );
                let d = t[20];
                let datum = match d {
                    1 => "World Geodesic System 1984",
                    2 => "North American Datum 1983 (NAVD88)",
                    3 => "North American Datum 1983 (MLLW)",
                    _ => "unknown",
                };
                out!(self, "\n\t    Datum {datum} (0x{d:02x})");
            }
            2 => {
                if l < 6 {
                    return Ok(false);
                }
                let lci = t[5] as usize;
                if lci < 3 || l < 7 + lci {
                    return Ok(false);
                }
                let what = match t[6] {
                    0 => "location of DHCP server",
                    1 => "location of the network element believed to be closest to the client",
                    2 => "location of the client",
                    _ => "unknown",
                };
                out!(
                    self,
                    "\n\t    LCI length {lci}, LCI what {what} (0x{:02x}), Country-code ",
                    t[6]
                );
                self.jnp(t, 7, 2)?;
                let mut left = lci - 3;
                let mut at = 9;
                while left > 0 {
                    if left < 2 {
                        return Ok(false);
                    }
                    let (ct, cl) = (g1(t, at)?, g1(t, at + 1)? as usize);
                    at += 2;
                    left -= 2;
                    let cname = match ct {
                        1 => "national subdivisions (state,canton,region,province,prefecture)",
                        2 => "county, parish, gun, district",
                        3 => "city, township, shi",
                        4 => "city division, borough, city district, ward chou",
                        5 => "neighborhood, block",
                        6 => "street",
                        _ => "unknown",
                    };
                    out!(self, "\n\t      CA type '{cname}' ({ct}), length {cl}: ");
                    if ct == 0 || cl == 0 || left < cl {
                        return Ok(false);
                    }
                    self.jnp(t, at, cl)?;
                    at += cl;
                    left -= cl;
                }
            }
            3 => {
                out!(self, "\n\t    ECS ELIN id ");
                self.jnp(t, 5, l - 5)?;
            }
            _ => {
                out!(self, "\n\t    Location ID ");
                self.hex_print(&t[5..], "\n\t      ");
            }
        }
        Ok(false)
    }
}
