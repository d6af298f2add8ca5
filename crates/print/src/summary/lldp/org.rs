//! LLDP's organization-specific TLVs as tcpdump 4.99 decodes them: IEEE 802.1
//! (VLANs, link aggregation, congestion notification, ETS, PFC, application
//! priority, EVB, CDCP), IEEE 802.3 (MAC/PHY, power, aggregation, MTU), IANA
//! (MUD URL) and ANSI/TIA LLDP-MED. Each returns whether tcpdump dumps the TLV
//! in hex after `-v` (a subtype it does not decode).

use super::super::{bit_names, bit_names_or, g1, g2, g4, out, PResult, Printer};

/// `lldp_aggregation_values`.
const AGGREGATION: [(u32, &str); 2] = [(1, "supported"), (2, "enabled")];

/// A row of eight small numbers as tcpdump's `%-3d %-3d ...` prints them.
fn row(vals: impl Iterator<Item = u32>) -> String {
    let cells: Vec<String> = vals.map(|v| format!("{v:<3}")).collect();
    cells.join(" ")
}

/// The eight bits of `v`, lowest first, each as tcpdump's `%-2d `.
fn bits_row(v: u8) -> String {
    (0..8).map(|i| format!("{:<2} ", (v >> i) & 1)).collect()
}

fn subtype_8021(s: u8) -> &'static str {
    match s {
        1 => "Port VLAN Id",
        2 => "Port and Protocol VLAN ID",
        3 => "VLAN name",
        4 => "Protocol Identity",
        7 => "Link aggregation",
        8 => "Congestion Notification",
        9 => "ETS Configuration",
        10 => "ETS Recommendation",
        11 => "Priority Flow Control Configuration",
        12 => "Application Priority",
        13 => "EVB",
        14 => "CDCP",
        _ => "unknown",
    }
}

fn mau_type(t: u16) -> &'static str {
    const NAMES: [&str; 41] = [
        "Unknown",
        "AUI",
        "10BASE_5",
        "FOIRL",
        "10BASE2",
        "10BASET duplex mode unknown",
        "10BASEFP",
        "10BASEFB",
        "10BASEFL duplex mode unknown",
        "10BROAD36",
        "10BASET hdx",
        "10BASET fdx",
        "10BASEFL hdx",
        "10BASEFL fdx",
        "100BASET4",
        "100BASETX hdx",
        "100BASETX fdx",
        "100BASEFX hdx",
        "100BASEFX fdx",
        "100BASET2 hdx",
        "100BASET2 fdx",
        "1000BASEX hdx",
        "1000BASEX fdx",
        "1000BASELX hdx",
        "1000BASELX fdx",
        "1000BASESX hdx",
        "1000BASESX fdx",
        "1000BASECX hdx",
        "1000BASECX fdx",
        "1000BASET hdx",
        "1000BASET fdx",
        "10GBASEX",
        "10GBASELX4",
        "10GBASER",
        "10GBASEER",
        "10GBASELR",
        "10GBASESR",
        "10GBASEW",
        "10GBASEEW",
        "10GBASELW",
        "10GBASESW",
    ];
    NAMES.get(t as usize).copied().unwrap_or("unknown")
}

/// `lldp_pmd_capability_values`.
const PMD: [(u32, &str); 15] = [
    (1 << 14, "10BASE-T hdx"),
    (1 << 13, "10BASE-T fdx"),
    (1 << 12, "100BASE-T4"),
    (1 << 11, "100BASE-TX hdx"),
    (1 << 10, "100BASE-TX fdx"),
    (1 << 9, "100BASE-T2 hdx"),
    (1 << 8, "100BASE-T2 fdx"),
    (1 << 7, "Pause for fdx links"),
    (1 << 6, "Asym PAUSE for fdx"),
    (1 << 5, "Sym PAUSE for fdx"),
    (1 << 4, "Asym and Sym PAUSE for fdx"),
    (1 << 3, "1000BASE-{X LX SX CX} hdx"),
    (1 << 2, "1000BASE-{X LX SX CX} fdx"),
    (1 << 1, "1000BASE-T hdx"),
    (1 << 0, "1000BASE-T fdx"),
];

impl Printer<'_> {
    /// The three ETS tables from `at` (priority assignment, TC bandwidth, TSA).
    fn ets_tables(&mut self, t: &[u8], at: usize) -> PResult {
        let mut prio = Vec::with_capacity(8);
        for i in 0..4 {
            let b = g1(t, at + i)? as u32;
            prio.extend([b >> 4, b & 0x0f]);
        }
        out!(self, "\n\t    Priority Assignment Table");
        out!(self, "\n\t     Priority : 0   1   2   3   4   5   6   7");
        out!(self, "\n\t     Value    : {}", row(prio.into_iter()));
        let bw = (0..8)
            .map(|i| g1(t, at + 4 + i).map(u32::from))
            .collect::<PResult<Vec<_>>>()?;
        out!(self, "\n\t    TC Bandwidth Table");
        out!(self, "\n\t     TC%   : 0   1   2   3   4   5   6   7");
        out!(self, "\n\t     Value : {}", row(bw.into_iter()));
        let tsa = (0..8)
            .map(|i| g1(t, at + 12 + i).map(u32::from))
            .collect::<PResult<Vec<_>>>()?;
        out!(self, "\n\t    TSA Assignment Table");
        out!(
            self,
            "\n\t     Traffic Class: 0   1   2   3   4   5   6   7"
        );
        out!(self, "\n\t     Value        : {}", row(tsa.into_iter()));
        Ok(())
    }

    /// A length byte at `at` and that many bytes of text after it, under
    /// `label`; nothing when the TLV is too short for them.
    fn counted_text(&mut self, t: &[u8], at: usize, label: &str) -> PResult {
        let Some(&n) = t.get(at) else {
            return Ok(());
        };
        if t.len() < at + 1 + n as usize {
            return Ok(());
        }
        out!(self, "\n\t    {label}: ");
        self.jnp(t, at + 1, n as usize)
    }

    /// The link aggregation subtype, alike in 802.1 and 802.3.
    fn lldp_linkagg(&mut self, t: &[u8]) -> PResult {
        if t.len() >= 9 {
            out!(
                self,
                "\n\t    aggregation status [{}], aggregation port ID {}",
                bit_names(t[4] as u32, &AGGREGATION),
                g4(t, 5)?
            );
        }
        Ok(())
    }

    /// `lldp_private_8021_print`; `t` is the TLV from its OUI on.
    pub(super) fn lldp_8021(&mut self, t: &[u8]) -> PResult<bool> {
        let l = t.len();
        if l < 4 {
            return Ok(false);
        }
        let sub = t[3];
        out!(self, "\n\t  {} Subtype ({sub})", subtype_8021(sub));
        match sub {
            1 => {
                if l < 6 {
                    return Ok(false);
                }
                out!(self, "\n\t    port vlan id (PVID): {}", g2(t, 4)?);
            }
            2 => {
                if l < 7 {
                    return Ok(false);
                }
                let f = t[4];
                out!(
                    self,
                    "\n\t    port and protocol vlan id (PPVID): {}, flags [{}] (0x{f:02x})",
                    g2(t, 5)?,
                    bit_names(f as u32, &[(2, "supported"), (4, "enabled")])
                );
            }
            3 => {
                if l < 6 {
                    return Ok(false);
                }
                out!(self, "\n\t    vlan id (VID): {}", g2(t, 4)?);
                self.counted_text(t, 6, "vlan name")?;
            }
            4 => self.counted_text(t, 4, "protocol identity")?,
            7 => self.lldp_linkagg(t)?,
            8 => {
                if l < 6 {
                    return Ok(false);
                }
                for (name, b) in [("CNPV", t[4]), ("Ready", t[5])] {
                    out!(self, "\n\t    Pre-Priority {name} Indicator");
                    out!(self, "\n\t     Priority : 0  1  2  3  4  5  6  7");
                    out!(self, "\n\t     Value    : {}", bits_row(b));
                }
            }
            9 | 10 => {
                if l < 25 {
                    return Ok(false);
                }
                let v = t[4];
                if sub == 9 {
                    out!(
                        self,
                        "\n\t    Willing:{}, CBS:{}, RES:{}, Max TCs:{}",
                        v >> 7,
                        (v >> 6) & 0x02,
                        (v >> 3) & 0x07,
                        v & 0x07
                    );
                } else {
                    out!(self, "\n\t    RES: {v}");
                }
                self.ets_tables(t, 5)?;
            }
            11 => {
                if l < 6 {
                    return Ok(false);
                }
                let v = t[4];
                out!(
                    self,
                    "\n\t    Willing: {}, MBC: {}, RES: {}, PFC cap:{} ",
                    v >> 7,
                    (v >> 6) & 1,
                    (v >> 4) & 3,
                    v & 0x0f
                );
                out!(self, "\n\t    PFC Enable");
                out!(self, "\n\t     Priority : 0  1  2  3  4  5  6  7");
                out!(self, "\n\t     Value    : {}", bits_row(t[5]));
            }
            12 => {
                if l < 5 {
                    return Ok(false);
                }
                out!(self, "\n\t    RES: {}", t[4]);
                if l == 5 || !(l - 5).is_multiple_of(3) {
                    return Ok(false);
                }
                out!(self, "\n\t    Application Priority Table");
                for e in t[5..].chunks_exact(3) {
                    let v = e[0];
                    out!(
                        self,
                        "\n\t      Priority: {}, RES: {}, Sel: {}, Protocol ID: {}",
                        v >> 5,
                        (v >> 3) & 3,
                        v & 7,
                        u16::from_be_bytes([e[1], e[2]])
                    );
                }
            }
            13 => {
                if l < 9 {
                    return Ok(false);
                }
                let (b, s, r, m, k) = (t[4], t[5], t[6], t[7], t[8]);
                out!(self, "\n\t    EVB Bridge Status");
                out!(
                    self,
                    "\n\t      RES: {}, BGID: {}, RRCAP: {}, RRCTR: {}",
                    b >> 3,
                    (b >> 2) & 1,
                    (b >> 1) & 1,
                    b & 1
                );
                out!(self, "\n\t    EVB Station Status");
                out!(
                    self,
                    "\n\t      RES: {}, SGID: {}, RRREQ: {},RRSTAT: {}",
                    s >> 4,
                    (s >> 3) & 1,
                    (s >> 2) & 1,
                    s & 3
                );
                let mode = match m >> 6 {
                    0 => "Not Supported",
                    1 => "EVB Bridge",
                    2 => "EVB Station",
                    _ => "Reserved for future Standardization",
                };
                out!(self, "\n\t    R: {}, RTE: {}, ", r >> 5, r & 0x1f);
                out!(self, "EVB Mode: {mode} [{}]", m >> 6);
                out!(self, "\n\t    ROL: {}, RWD: {}, ", (m >> 5) & 1, m & 0x1f);
                out!(
                    self,
                    "RES: {}, ROL: {}, RKA: {}",
                    k >> 6,
                    (k >> 5) & 1,
                    k & 0x1f
                );
            }
            14 => {
                if l < 8 {
                    return Ok(false);
                }
                let v = t[4];
                out!(
                    self,
                    "\n\t    Role: {}, RES: {}, Scomp: {} ",
                    v >> 7,
                    (v >> 4) & 7,
                    (v >> 3) & 1
                );
                out!(self, "ChnCap: {}", g2(t, 6)? & 0x0fff);
                if !(l - 8).is_multiple_of(3) {
                    return Ok(false);
                }
                for e in t[8..].chunks_exact(3) {
                    let v = u32::from_be_bytes([0, e[0], e[1], e[2]]);
                    out!(self, "\n\t    SCID: {}, SVID: {}", v >> 12, v & 0xfff);
                }
            }
            _ => return Ok(true),
        }
        Ok(false)
    }

    /// `lldp_private_8023_print`.
    pub(super) fn lldp_8023(&mut self, t: &[u8]) -> PResult<bool> {
        let l = t.len();
        if l < 4 {
            return Ok(false);
        }
        let sub = t[3];
        let name = match sub {
            1 => "MAC/PHY configuration/status",
            2 => "Power via MDI",
            3 => "Link aggregation",
            4 => "Max frame size",
            _ => "unknown",
        };
        out!(self, "\n\t  {name} Subtype ({sub})");
        match sub {
            1 => {
                if l < 9 {
                    return Ok(false);
                }
                let an = t[4];
                out!(
                    self,
                    "\n\t    autonegotiation [{}] (0x{an:02x})",
                    bit_names(an as u32, &AGGREGATION)
                );
                let pmd = g2(t, 5)?;
                out!(
                    self,
                    "\n\t    PMD autoneg capability [{}] (0x{pmd:04x})",
                    bit_names_or(pmd as u32, &PMD, "unknown")
                );
                let mau = g2(t, 7)?;
                out!(self, "\n\t    MAU type {} (0x{mau:04x})", mau_type(mau));
            }
            2 => {
                if l < 7 {
                    return Ok(false);
                }
                let pairs = match t[5] {
                    1 => "signal",
                    2 => "spare",
                    _ => "unknown",
                };
                let class = match t[6] {
                    c @ 1..=5 => ["class0", "class1", "class2", "class3", "class4"][c as usize - 1],
                    _ => "unknown",
                };
                let mdi = [
                    (1, "PSE"),
                    (2, "supported"),
                    (4, "enabled"),
                    (8, "can be controlled"),
                ];
                out!(
                    self,
                    "\n\t    MDI power support [{}], power pair {pairs}, power class {class}",
                    bit_names(t[4] as u32, &mdi)
                );
            }
            3 => self.lldp_linkagg(t)?,
            4 => {
                if l < 6 {
                    return Ok(false);
                }
                out!(self, "\n\t    MTU size {}", g2(t, 4)?);
            }
            _ => return Ok(true),
        }
        Ok(false)
    }

    /// `lldp_private_iana_print`: the MUD URL.
    pub(super) fn lldp_iana(&mut self, t: &[u8]) -> PResult<bool> {
        if t.len() < 8 {
            return Ok(false);
        }
        let sub = t[3];
        let name = if sub == 1 { "MUD-URL" } else { "unknown" };
        out!(self, "\n\t  {name} Subtype ({sub})");
        if sub != 1 {
            return Ok(true);
        }
        out!(self, "\n\t  MUD-URL=");
        for &c in &t[4..] {
            super::super::print_char(&mut self.out, c);
        }
        Ok(false)
    }
}
