//! PPP control protocols (LCP, IPCP, IPv6CP, CCP, BACP, OSICP, MPLSCP) as
//! tcpdump's `handle_ctrl_proto` prints them: the code, id and length, and with
//! `-v` the encoded length and each configuration option (`-vv` adds the hex
//! of the header and of every option).

use super::ospf2::put;
use super::{g1, g2, g3, g4, gv4, need, tail, PResult, Printer};
use netsift_wire::ethernet::EthernetAddress;

const LCP: u16 = 0xc021;
const IPCP: u16 = 0x8021;
const IPV6CP: u16 = 0x8057;
const CCP: u16 = 0x80fd;
const BACP: u16 = 0xc02b;

/// tcpdump's `ppptype2str`.
pub(super) fn ppp_type_name(proto: u16) -> Option<&'static str> {
    Some(match proto {
        0x0021 => "IP",
        0x0023 => "OSI",
        0x0025 => "NS",
        0x0027 => "DECNET",
        0x0029 => "APPLE",
        0x002b => "IPX",
        0x002d => "VJC IP",
        0x002f => "VJNC IP",
        0x0031 => "BRPDU",
        0x0033 => "STII",
        0x0035 => "VINES",
        0x0281 | 0x0283 => "MPLS",
        0x00fd => "Compressed",
        0x003d => "MLPPP",
        0x0057 => "IP6",
        0x0201 => "HELLO",
        0x0231 => "LUXCOM",
        0x0233 => "SNS",
        0x8021 => "IPCP",
        0x8023 => "OSICP",
        0x8025 => "NSCP",
        0x8027 => "DECNETCP",
        0x8029 => "APPLECP",
        0x802b => "IPXCP",
        0x8033 => "STIICP",
        0x8035 => "VINESCP",
        0x8057 => "IP6CP",
        0x8281 => "MPLSCP",
        0xc021 => "LCP",
        0xc023 => "PAP",
        0xc025 => "LQM",
        0xc223 => "CHAP",
        0xc227 => "EAP",
        0xc027 => "SPAP",
        0xc123 => "Old-SPAP",
        0xc02b => "BACP",
        0xc02d => "BAP",
        0x803d => "MLPPP-CP",
        0x80fd => "CCP",
        _ => return None,
    })
}

/// tcpdump's `cpcodes`.
fn cp_code_name(code: u8) -> &'static str {
    match code {
        0 => "Vendor-Extension",
        1 => "Conf-Request",
        2 => "Conf-Ack",
        3 => "Conf-Nack",
        4 => "Conf-Reject",
        5 => "Term-Request",
        6 => "Term-Ack",
        7 => "Code-Reject",
        8 => "Prot-Reject",
        9 => "Echo-Request",
        10 => "Echo-Reply",
        11 => "Disc-Req",
        12 => "Ident",
        13 => "Time-Rem",
        14 => "Reset-Req",
        15 => "Reset-Ack",
        _ => "Unknown Opcode",
    }
}

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

/// What an option printer tells the loop over the options: tcpdump's return
/// value, 0 to stop.
type Advance = PResult<usize>;

impl Printer<'_> {
    /// `handle_ctrl_proto`: `p` is the packet after the PPP protocol field,
    /// `length` its length.
    pub(super) fn ppp_ctrl(&mut self, proto: u16, p: &[u8], length: u32) -> PResult {
        let typestr = match ppp_type_name(proto) {
            Some(n) => n.to_string(),
            None => format!("unknown ctrl-proto (0x{proto:04x})"),
        };
        put!(self, "{typestr}, ");
        if length < 4 || p.len() < 2 {
            put!(self, "[|{typestr}]");
            return Ok(());
        }
        let code = g1(p, 0)?;
        put!(
            self,
            "{} (0x{code:02x}), id {}, length {}",
            cp_code_name(code),
            g1(p, 1)?,
            length + 2
        );
        if self.opts.verbose == 0 {
            return Ok(());
        }
        let len = g2(p, 2)? as usize;
        let length = length as usize;
        if len < 4 {
            put!(self, "\n\tencoded length {len} (< 4))");
            return Ok(());
        }
        if len > length {
            put!(self, "\n\tencoded length {len} (> packet length {length}))");
            return Ok(());
        }
        put!(
            self,
            "\n\tencoded length {len} (=Option(s) length {})",
            len - 4
        );
        if len == 4 {
            return Ok(());
        }
        // tcpdump dumps from two bytes before the code: the protocol field.
        let with_proto = |n: usize| [&proto.to_be_bytes()[..], super::head(p, n)].concat();
        if self.opts.verbose > 1 {
            self.unknown_data(&with_proto(4), 0, "\n\t", 6);
        }
        let t = tail(p, 4);
        match code {
            0 if len >= 11 => {
                put!(self, "\n\t  Magic-Num 0x{:08x}", g4(t, 0)?);
                let oui = g3(t, 4)?;
                let vendor = crate::names::oui_vendor(oui).unwrap_or("Unknown");
                put!(self, " Vendor: {vendor} ({oui})");
            }
            1..=4 => self.ppp_options(proto, t, len)?,
            8 if len >= 6 => {
                let rp = g2(t, 0)?;
                let name = ppp_type_name(rp).unwrap_or("unknown");
                put!(self, "\n\t  Rejected {name} Protocol (0x{rp:04x})");
                if len > 6 {
                    put!(self, "\n\t  Rejected Packet");
                    self.unknown_data(t, 2, "\n\t    ", len - 2);
                }
            }
            9..=11 if len >= 8 => {
                put!(self, "\n\t  Magic-Num 0x{:08x}", g4(t, 0)?);
                if len > 8 {
                    put!(self, "\n\t  -----trailing data-----");
                    need(t, 4, len - 8)?;
                    self.unknown_data(t, 4, "\n\t  ", len - 8);
                }
            }
            12 if len >= 8 => {
                put!(self, "\n\t  Magic-Num 0x{:08x}", g4(t, 0)?);
                if len > 8 {
                    put!(self, "\n\t  Message\n\t    ");
                    // `nd_printn` of `len - 4` bytes: the count includes the
                    // magic number, so it reads past the message.
                    for i in 0..len - 4 {
                        match t.get(4 + i) {
                            Some(&c) => super::print_char(&mut self.out, c),
                            None => {
                                put!(self, "[|{typestr}]");
                                return Ok(());
                            }
                        }
                    }
                }
            }
            13 if len >= 12 => {
                put!(self, "\n\t  Magic-Num 0x{:08x}", g4(t, 0)?);
                put!(self, ", Seconds-Remaining {}s", g4(t, 4)?);
            }
            0 | 5..=13 => {}
            _ => {
                if self.opts.verbose <= 1 {
                    self.unknown_data(&with_proto(len), 0, "\n\t  ", len + 2);
                }
            }
        }
        Ok(())
    }

    /// The loop over a Configure message's options; `len` is the encoded
    /// length, which tcpdump passes to every option printer as the room left.
    fn ppp_options(&mut self, proto: u16, t: &[u8], len: usize) -> PResult {
        let mut tlen = len - 4;
        let mut at = 0;
        loop {
            let o = tail(t, at);
            let advance = match proto {
                LCP => self.lcp_option(o, len)?,
                IPCP => self.ipcp_option(o, len)?,
                IPV6CP => self.ip6cp_option(o, len)?,
                CCP => self.ccp_option(o, len)?,
                BACP => self.bacp_option(o, len)?,
                _ => 0,
            };
            if advance == 0 {
                break;
            }
            if tlen < advance {
                put!(
                    self,
                    " [remaining options length {tlen} < {advance}] (invalid)"
                );
                break;
            }
            tlen -= advance;
            at += advance;
            if tlen == 0 {
                break;
            }
        }
        Ok(())
    }

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
            self.unknown_data(p, 2, "\n\t    ", len - 2);
        }
        Ok(len)
    }

    /// `print_lcp_config_options`.
    fn lcp_option(&mut self, p: &[u8], length: usize) -> Advance {
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
                    _ => self.unknown_data(p, 0, "\n\t", len),
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
    fn ipcp_option(&mut self, p: &[u8], length: usize) -> Advance {
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
    fn ip6cp_option(&mut self, p: &[u8], length: usize) -> Advance {
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
    fn ccp_option(&mut self, p: &[u8], length: usize) -> Advance {
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
    fn bacp_option(&mut self, p: &[u8], length: usize) -> Advance {
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
