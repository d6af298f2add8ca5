//! The configuration options of PPP's control protocols as tcpdump prints
//! them (`print_lcp_config_options`, `print_ipcp_config_options`,
//! `print_ip6cp_config_options`, `print_ccp_config_options`,
//! `print_bacp_config_options`).

use super::ospf2::put;
use super::ppp_cp::{ppp_type_name, Advance};
use super::{g1, g2, g3, g4, gv4, need, tail, PResult, Printer};
use netsift_wire::ethernet::EthernetAddress;

/// tcpdump's `lcpconfopts`, indexed by option number.
const LCP_OPTS: [&str; 31] = [
    "Vend-Ext",
    "MRU",
    "ACCM",
    "Auth-Prot",
    "Qual-Prot",
    "Magic-Num",
    "deprecated(6)",
    "PFC",
    "ACFC",
    "FCS-Alt",
    "SDP",
    "Num-Mode",
    "deprecated(12)",
    "Call-Back",
    "deprecated(14)",
    "deprecated(15)",
    "deprecated(16)",
    "MRRU",
    "12-Bit seq #",
    "End-Disc",
    "Proprietary",
    "DCE-Id",
    "MP+",
    "Link-Disc",
    "LCP-Auth-Opt",
    "COBS",
    "Prefix-elision",
    "Multilink-header-Form",
    "I18N",
    "SDL-over-SONET/SDH",
    "PPP-Muxing",
];

fn ipcp_opt_name(opt: u8) -> &'static str {
    match opt {
        1 => "IP-Addrs",
        2 => "IP-Comp",
        3 => "IP-Addr",
        4 => "Home-Addr",
        129 => "Pri-DNS",
        130 => "Pri-NBNS",
        131 => "Sec-DNS",
        132 => "Sec-NBNS",
        _ => "unknown",
    }
}

fn ccp_opt_name(opt: u8) -> &'static str {
    match opt {
        0 => "OUI",
        1 => "Pred-1",
        2 => "Pred-2",
        3 => "Puddle",
        16 => "HP-PPC",
        17 => "Stac-LZS",
        18 => "MPPC",
        19 => "Gand-FZA",
        20 => "V.42bis",
        21 => "BSD-Comp",
        23 => "LZS-DCP",
        24 => "MVRCA",
        25 => "DEC",
        26 => "Deflate",
        255 => "Reserved",
        _ => "Unknown",
    }
}

impl Printer<'_> {
    /// The type and length every option printer starts with; `None` when the
    /// printer returns 0 before printing (or after printing a bogus length).
    fn cp_opt_head(
        &mut self,
        p: &[u8],
        length: usize,
        name: &str,
        proto: &str,
    ) -> PResult<Option<(u8, usize)>> {
        if length < 2 {
            return Ok(None);
        }
        if p.len() < 2 {
            put!(self, "[|{proto}]");
            return Ok(None);
        }
        let opt = g1(p, 0)?;
        let len = g1(p, 1)? as usize;
        if length < len {
            return Ok(None);
        }
        if len < 2 {
            put!(
                self,
                "\n\t  {name} Option (0x{opt:02x}), length {len} (length bogus, should be >= 2)"
            );
            return Ok(None);
        }
        put!(self, "\n\t  {name} Option (0x{opt:02x}), length {len}");
        Ok(Some((opt, len)))
    }

    /// The hex of an option's value: at `-v` for the options not decoded
    /// (`known` false), at `-vv` for all.
    fn cp_opt_tail(&mut self, p: &[u8], len: usize, known: bool) -> Advance {
        if !known || self.opts.verbose > 1 {
            self.unknown_data(p, 2, len - 2, "\n\t    ");
        }
        Ok(len)
    }

    /// `print_lcp_config_options`.
    pub(super) fn lcp_option(&mut self, p: &[u8], length: usize) -> Advance {
        if length < 2 {
            return Ok(0);
        }
        if p.len() < 2 {
            put!(self, "[|lcp]");
            return Ok(0);
        }
        let opt = g1(p, 0)?;
        let len = g1(p, 1)? as usize;
        if length < len {
            return Ok(0);
        }
        let Some(&name) = LCP_OPTS.get(opt as usize) else {
            put!(self, "\n\tunknown LCP option 0x{opt:02x}");
            return Ok(if len < 2 { 0 } else { len });
        };
        if len < 2 {
            put!(
                self,
                "\n\t  {name} Option (0x{opt:02x}), length {len} (length bogus, should be >= 2)"
            );
            return Ok(0);
        }
        put!(self, "\n\t  {name} Option (0x{opt:02x}), length {len}");
        // A bogus length: tcpdump returns `len` for some options and 0 for others.
        macro_rules! bogus {
            ($cond:expr, $text:literal, $ret:expr) => {
                if $cond {
                    put!(self, concat!(" (length bogus, should be ", $text, ")"));
                    return Ok($ret);
                }
            };
        }
        let mut known = true;
        match opt {
            0 => {
                bogus!(len < 6, ">= 6", len);
                let oui = g3(p, 2)?;
                let vendor = crate::names::oui_vendor(oui).unwrap_or("Unknown");
                put!(self, ": Vendor: {vendor} ({oui})");
            }
            1 | 17 => {
                bogus!(len != 4, "= 4", if opt == 1 { len } else { 0 });
                put!(self, ": {}", g2(p, 2)?);
            }
            2 => {
                bogus!(len != 6, "= 6", len);
                put!(self, ": 0x{:08x}", g4(p, 2)?);
            }
            3 => {
                bogus!(len < 4, ">= 4", len);
                let ap = g2(p, 2)?;
                match ppp_type_name(ap) {
                    Some(n) => put!(self, ": {n}"),
                    None => put!(self, ": Unknown Auth Proto (0x04x)"),
                }
                match ap {
                    0xc223 => {
                        let alg = g1(p, 4)?;
                        match alg {
                            5 => put!(self, ", MD5"),
                            128 => put!(self, ", MS-CHAPv1"),
                            129 => put!(self, ", MS-CHAPv2"),
                            a => put!(self, ", Unknown Auth Alg {a}"),
                        }
                    }
                    0xc023 | 0xc227 | 0xc027 | 0xc123 => {}
                    _ => {
                        self.unknown_data(p, 0, len, "\n\t");
                    }
                }
            }
            4 => {
                bogus!(len < 4, ">= 4", 0);
                let lqr = g2(p, 2)? == 0xc025;
                put!(self, ": {}", if lqr { "LQR" } else { "unknown" });
            }
            5 => {
                bogus!(len != 6, "= 6", 0);
                put!(self, ": 0x{:08x}", g4(p, 2)?);
            }
            7 | 8 => {}
            23 => {
                bogus!(len != 4, "= 4", 0);
                put!(self, ": 0x{:04x}", g2(p, 2)?);
            }
            13 => {
                bogus!(len < 3, ">= 3", 0);
                let op = g1(p, 2)?;
                let name = match op {
                    0 => "UserAuth",
                    1 => "DialString",
                    2 => "LocalID",
                    3 => "E.164",
                    4 => "X.500",
                    6 => "CBCP",
                    _ => "Unknown",
                };
                put!(self, ": : Callback Operation {name} ({op})");
            }
            19 => {
                bogus!(len < 3, ">= 3", 0);
                match g1(p, 2)? {
                    0 => put!(self, ": Null"),
                    1 => put!(self, ": Local"),
                    2 => {
                        bogus!(len != 7, "= 7", 0);
                        put!(self, ": IPv4 {}", self.host4(gv4(p, 3)?));
                    }
                    3 => {
                        bogus!(len != 9, "= 9", 0);
                        need(p, 3, 6)?;
                        let mac = EthernetAddress::from_bytes(&p[3..9]);
                        put!(self, ": MAC {mac}");
                    }
                    4 => put!(self, ": Magic-Num-Block"),
                    5 => put!(self, ": PSNDN"),
                    c => put!(self, ": Unknown class {c}"),
                }
            }
            _ => known = false,
        }
        self.cp_opt_tail(p, len, known)
    }

    /// `print_ipcp_config_options`.
    pub(super) fn ipcp_option(&mut self, p: &[u8], length: usize) -> Advance {
        let name = p.first().map_or("unknown", |&o| ipcp_opt_name(o));
        let Some((opt, len)) = self.cp_opt_head(p, length, name, "ipcp")? else {
            return Ok(0);
        };
        let mut known = true;
        match opt {
            1 => {
                if len != 10 {
                    put!(self, " (length bogus, should be = 10)");
                    return Ok(len);
                }
                let (s, d) = (gv4(p, 2)?, gv4(p, 6)?);
                put!(self, ": src {}, dst {}", self.host4(s), self.host4(d));
            }
            2 => {
                if len < 4 {
                    put!(self, " (length bogus, should be >= 4)");
                    return Ok(0);
                }
                let cp = g2(p, 2)?;
                let cname = match cp {
                    0x002d => "VJ-Comp",
                    0x61 => "IP Header Compression",
                    _ => "Unknown",
                };
                put!(self, ": {cname} (0x{cp:02x}):");
                if cp == 0x61 {
                    // tcpdump moves its option pointer over the suboptions,
                    // and the `-vv` dump starts from where it ends.
                    let Some(moved) = self.ipcp_hdrcomp(p, len)? else {
                        return Ok(0);
                    };
                    return self.cp_opt_tail(tail(p, moved), len, true);
                }
            }
            3 | 4 | 129..=132 => {
                if len != 6 {
                    put!(self, " (length bogus, should be = 6)");
                    return Ok(0);
                }
                put!(self, ": {}", self.host4(gv4(p, 2)?));
            }
            _ => known = false,
        }
        self.cp_opt_tail(p, len, known)
    }

    /// IP Header Compression's parameters and suboptions (RFC 3544); how far
    /// tcpdump moved its pointer into the option, `None` when it gives up.
    fn ipcp_hdrcomp(&mut self, p: &[u8], len: usize) -> PResult<Option<usize>> {
        const MINLEN: usize = 14;
        if len < MINLEN {
            put!(self, " (length bogus, should be >= {MINLEN})");
            return Ok(None);
        }
        if need(p, 2, MINLEN).is_err() {
            put!(self, "[|ipcp]");
            return Ok(None);
        }
        put!(
            self,
            "\n\t    TCP Space {}, non-TCP Space {}, maxPeriod {}, maxTime {}, maxHdr {}",
            g2(p, 4)?,
            g2(p, 6)?,
            g2(p, 8)?,
            g2(p, 10)?,
            g2(p, 12)?
        );
        if len <= MINLEN {
            return Ok(Some(0));
        }
        let mut total = len - MINLEN;
        let mut at = MINLEN;
        put!(self, "\n\t      Suboptions, length {total}");
        while total >= 2 {
            if need(p, at, 2).is_err() {
                put!(self, "[|ipcp]");
                return Ok(None);
            }
            let sub = g1(p, at)?;
            let slen = g1(p, at + 1)? as usize;
            if sub == 0 || slen == 0 {
                break;
            }
            let sname = match sub {
                1 => "RTP-Compression",
                2 => "Enhanced RTP-Compression",
                _ => "Unknown",
            };
            put!(self, "\n\t\t{sname} Suboption #{sub}, length {slen}");
            if total < slen {
                put!(
                    self,
                    " [remaining suboptions length {total} < {slen}] (invalid)"
                );
                break;
            }
            total -= slen;
            at += slen;
        }
        Ok(Some(at))
    }

    /// `print_ip6cp_config_options`.
    pub(super) fn ip6cp_option(&mut self, p: &[u8], length: usize) -> Advance {
        let name = if p.first() == Some(&1) {
            "Interface-ID"
        } else {
            "unknown"
        };
        let Some((opt, len)) = self.cp_opt_head(p, length, name, "ip6cp")? else {
            return Ok(0);
        };
        if opt != 1 {
            return self.cp_opt_tail(p, len, false);
        }
        if len != 10 {
            put!(self, " (length bogus, should be = 10)");
            return Ok(len);
        }
        if need(p, 2, 8).is_err() {
            put!(self, "[|ip6cp]");
            return Ok(0);
        }
        put!(
            self,
            ": {:04x}:{:04x}:{:04x}:{:04x}",
            g2(p, 2)?,
            g2(p, 4)?,
            g2(p, 6)?,
            g2(p, 8)?
        );
        self.cp_opt_tail(p, len, true)
    }

    /// `print_ccp_config_options`.
    pub(super) fn ccp_option(&mut self, p: &[u8], length: usize) -> Advance {
        let name = p.first().map_or("Unknown", |&o| ccp_opt_name(o));
        let Some((opt, len)) = self.cp_opt_head(p, length, name, "ccp")? else {
            return Ok(0);
        };
        let (min, text) = match opt {
            21 => (3, ">= 3"),
            24 | 26 => (4, ">= 4"),
            _ => return self.cp_opt_tail(p, len, false),
        };
        if len < min {
            put!(self, " (length bogus, should be {text})");
            return Ok(len);
        }
        let b = g1(p, 2)?;
        match opt {
            21 => put!(self, ": Version: {}, Dictionary Bits: {}", b >> 5, b & 0x1f),
            24 => put!(
                self,
                ": Features: {}, PxP: {}, History: {}, #CTX-ID: {}",
                (b & 0xc0) >> 6,
                if b & 0x20 != 0 { "Enabled" } else { "Disabled" },
                b & 0x1f,
                g1(p, 3)?
            ),
            _ => {
                let c = g1(p, 3)?;
                let method = if b & 0x0f == 8 { "zlib" } else { "unknown" };
                put!(
                    self,
                    ": Window: {}K, Method: {method} (0x{:x}), MBZ: {}, CHK: {}",
                    (b & 0xf0) >> 4,
                    b & 0x0f,
                    (c & 0xfc) >> 2,
                    c & 0x03
                );
            }
        }
        self.cp_opt_tail(p, len, true)
    }

    /// `print_bacp_config_options`.
    pub(super) fn bacp_option(&mut self, p: &[u8], length: usize) -> Advance {
        let name = if p.first() == Some(&1) {
            "Favored-Peer"
        } else {
            "Unknown"
        };
        let Some((opt, len)) = self.cp_opt_head(p, length, name, "bacp")? else {
            return Ok(0);
        };
        if opt != 1 {
            return self.cp_opt_tail(p, len, false);
        }
        if len != 6 {
            put!(self, " (length bogus, should be = 6)");
            return Ok(len);
        }
        put!(self, ": Magic-Num 0x{:08x}", g4(p, 2)?);
        self.cp_opt_tail(p, len, true)
    }
}
