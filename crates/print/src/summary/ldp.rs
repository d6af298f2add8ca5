//! LDP (RFC 5036) as tcpdump's `ldp_print` prints it: each PDU's header,
//! and with `-v` its messages and their TLVs (FECs, addresses, labels,
//! status, session parameters, pseudowire interface parameters).

use super::ospf2::put;
use super::{bit_names, g1, g2, g4, gv4, gv6, need, tail, v6s, PResult, Printer};

const MSG_HDR: usize = 8;
const COMMON_HDR: usize = 10;

fn msg_name(t: u16) -> &'static str {
    match t {
        0x0001 => "Notification",
        0x0100 => "Hello",
        0x0200 => "Initialization",
        0x0201 => "Keepalive",
        0x0300 => "Address",
        0x0301 => "Address Withdraw",
        0x0400 => "Label Mapping",
        0x0401 => "Label Request",
        0x0402 => "Label Withdraw",
        0x0403 => "Label Release",
        0x0404 => "Label Abort Request",
        _ => "Unknown",
    }
}

fn tlv_name(t: u16) -> &'static str {
    match t {
        0x0100 => "FEC",
        0x0101 => "Address List",
        0x0103 => "Hop Count",
        0x0104 => "Path Vector",
        0x0200 => "Generic Label",
        0x0201 => "ATM Label",
        0x0202 => "Frame-Relay Label",
        0x0300 => "Status",
        0x0301 => "Extended Status",
        0x0302 => "Returned PDU",
        0x0303 => "Returned Message",
        0x0400 => "Common Hello Parameters",
        0x0401 => "IPv4 Transport Address",
        0x0402 => "Configuration Sequence Number",
        0x0403 => "IPv6 Transport Address",
        0x0500 => "Common Session Parameters",
        0x0501 => "ATM Session Parameters",
        0x0502 => "Frame-Relay Session Parameters",
        0x0503 => "Fault-Tolerant Session Parameters",
        0x0600 => "Label Request Message ID",
        0x0601 => "MTU",
        _ => "Unknown",
    }
}

/// tcpdump's `af_values`.
pub(super) fn af_name(af: u16) -> Option<&'static str> {
    Some(match af {
        0 => "Reserved",
        1 => "IPv4",
        2 => "IPv6",
        3 => "NSAP",
        4 => "HDLC",
        5 => "BBN 1822",
        6 => "802",
        7 => "E.163",
        8 => "E.164",
        9 => "F.69",
        10 => "X.121",
        11 => "Novell IPX",
        12 => "Appletalk",
        13 => "Decnet IV",
        14 => "Banyan Vines",
        15 => "E.164 with NSAP subaddress",
        196 => "Layer-2 VPN",
        25 => "VPLS",
        _ => return None,
    })
}

/// l2vpn.c's `mpls_pw_types_values`.
pub(super) fn pw_type_name(t: u16) -> &'static str {
    match t {
        0x00 => "Reserved",
        0x01 => "Frame Relay DLCI (Martini Mode)",
        0x02 => "ATM AAL5 SDU VCC transport",
        0x03 => "ATM transparent cell transport",
        0x04 => "Ethernet VLAN",
        0x05 => "Ethernet",
        0x06 => "Cisco-HDLC",
        0x07 => "PPP",
        0x08 => "SONET/SDH Circuit Emulation Service over MPLS",
        0x09 => "ATM n-to-one VCC cell transport",
        0x0a => "ATM n-to-one VPC cell transport",
        0x0b => "IP Layer2 Transport",
        0x0c => "ATM one-to-one VCC Cell Mode",
        0x0d => "ATM one-to-one VPC Cell Mode",
        0x0e => "ATM AAL5 PDU VCC transport",
        0x0f => "Frame-Relay Port mode",
        0x10 => "SONET/SDH Circuit Emulation over Packet",
        0x11 => "Structure-agnostic E1 over Packet",
        0x12 => "Structure-agnostic T1 (DS1) over Packet",
        0x13 => "Structure-agnostic E3 over Packet",
        0x14 => "Structure-agnostic T3 (DS3) over Packet",
        0x15 => "CESoPSN basic mode",
        0x16 => "TDMoIP basic mode",
        0x17 => "CESoPSN TDM with CAS",
        0x18 => "TDMoIP TDM with CAS",
        0x19 => "Frame Relay DLCI",
        0x40 => "IP-interworking",
        _ => "Unknown",
    }
}

/// A prefix as BGP's `decode_prefix4`/`decode_prefix6` reads it: a length
/// in bits, then the bytes it needs. `Err(-1)` for a length over the
/// family's, `Err(-3)` for bytes past `room`.
pub(super) fn decode_prefix(b: &[u8], room: usize, v6: bool) -> PResult<Result<String, i8>> {
    let plen = g1(b, 0)? as usize;
    let max = if v6 { 128 } else { 32 };
    if plen > max {
        return Ok(Err(-1));
    }
    let nbytes = plen.div_ceil(8);
    // tcpdump's unsigned count wraps when the TLV has no room at all.
    if room.wrapping_sub(1) < nbytes {
        return Ok(Err(-3));
    }
    need(b, 1, nbytes)?;
    let mut a = [0u8; 16];
    a[..nbytes].copy_from_slice(&b[1..1 + nbytes]);
    if !plen.is_multiple_of(8) {
        a[nbytes - 1] &= ((0xff00u16 >> (plen % 8)) & 0xff) as u8;
    }
    let s = if v6 {
        v6s(a.into())
    } else {
        std::net::Ipv4Addr::new(a[0], a[1], a[2], a[3]).to_string()
    };
    Ok(Ok(format!("{s}/{plen}")))
}

impl Printer<'_> {
    /// `ldp_print`: the PDUs in `bp`, `len` bytes of TCP or UDP payload.
    pub(super) fn ldp(&mut self, bp: &[u8], len: u32) -> PResult {
        self.proto = "ldp";
        let mut len = len as usize;
        let mut at = 0;
        while len > COMMON_HDR + MSG_HDR {
            let processed = self.ldp_pdu(tail(bp, at))?;
            if processed == 0 {
                return Ok(());
            }
            if len < processed {
                put!(self, " [remaining length {len} < {processed}] (invalid)");
                break;
            }
            len -= processed;
            at += processed;
        }
        Ok(())
    }

    fn ldp_pdu(&mut self, p: &[u8]) -> PResult<usize> {
        need(p, 0, COMMON_HDR)?;
        let sep = if self.opts.verbose < 1 { "" } else { "\n\t" };
        let version = g2(p, 0)?;
        if version != 1 {
            put!(self, "{sep}LDP version {version} packet not supported");
            return Ok(0);
        }
        let pdu_len = g2(p, 2)? as usize;
        if pdu_len < COMMON_HDR - 4 {
            put!(
                self,
                "{sep}LDP, pdu-length: {pdu_len} (too short, < {})",
                COMMON_HDR - 4
            );
            return Ok(0);
        }
        put!(
            self,
            "{sep}LDP, Label-Space-ID: {}:{}, pdu-length: {pdu_len}",
            self.host4(gv4(p, 4)?),
            g2(p, 8)?
        );
        if self.opts.verbose < 1 {
            return Ok(0);
        }
        let mut at = COMMON_HDR;
        // tcpdump's `u_short` count, which a long message wraps.
        let mut tlen = (pdu_len - (COMMON_HDR - 4)) as u16;
        while tlen > 0 {
            need(p, at, MSG_HDR)?;
            let msg_len = g2(p, at + 2)? as usize;
            let raw_type = g2(p, at)?;
            let mtype = raw_type & 0x7fff;
            let name = msg_name(mtype);
            if msg_len < MSG_HDR - 4 {
                put!(
                    self,
                    "\n\t  {name} Message (0x{mtype:04x}), length: {msg_len} (too short, < {})",
                    MSG_HDR - 4
                );
                return Ok(0);
            }
            let u = if raw_type & 0x8000 != 0 {
                "continue processing"
            } else {
                "ignore"
            };
            put!(
                self,
                "\n\t  {name} Message (0x{mtype:04x}), length: {msg_len}, Message ID: 0x{:08x}, Flags: [{u} if unknown]",
                g4(p, at + 4)?
            );
            need(p, at, msg_len)?;
            let mut mt = at + MSG_HDR;
            let mut mlen = msg_len - (MSG_HDR - 4);
            match mtype {
                0x0001 | 0x0100 | 0x0200 | 0x0201 | 0x0300 | 0x0400 | 0x0301 | 0x0402 => {
                    while mlen >= 4 {
                        let n = self.ldp_tlv(tail(p, mt), mlen)?;
                        if n == 0 {
                            break;
                        }
                        mlen = mlen.wrapping_sub(n);
                        mt += n;
                    }
                }
                _ => {
                    if self.opts.verbose <= 1 {
                        self.unknown_data(p, mt, mlen, "\n\t  ");
                    }
                }
            }
            if self.opts.verbose > 1 {
                self.unknown_data(p, at + MSG_HDR, msg_len, "\n\t  ");
            }
            at += msg_len + 4;
            tlen = tlen.wrapping_sub((msg_len + 4) as u16);
        }
        Ok(pdu_len + 4)
    }

    /// `ldp_tlv_print`: the TLV at the start of `t`; the bytes it takes, 0 to
    /// stop the message.
    fn ldp_tlv(&mut self, t: &[u8], msg_tlen: usize) -> PResult<usize> {
        need(t, 0, 4)?;
        let tlv_len = g2(t, 2)? as usize;
        if tlv_len + 4 > msg_tlen {
            put!(self, "\n\t\t TLV contents go past end of message");
            return Ok(0);
        }
        let raw = g2(t, 0)?;
        let tt = raw & 0x3fff;
        let u = if raw & 0x8000 != 0 {
            "continue processing"
        } else {
            "ignore"
        };
        let f = if raw & 0x4000 != 0 { "do" } else { "don't" };
        put!(
            self,
            "\n\t    {} TLV (0x{tt:04x}), length: {tlv_len}, Flags: [{u} and {f} forward if unknown]",
            tlv_name(tt)
        );
        let v = tail(t, 4);
        let done = tlv_len + 4;
        // TLV_TCHECK: a value shorter than the TLV's minimum.
        macro_rules! tcheck {
            ($have:expr, $min:expr) => {
                if $have < $min {
                    put!(self, " [tlv length {} < {}] (invalid)", $have, $min);
                    return Ok(done);
                }
            };
        }
        match tt {
            0x0400 => {
                tcheck!(tlv_len, 4);
                let fl = g2(v, 2)?;
                put!(
                    self,
                    "\n\t      Hold Time: {}s, Flags: [{} Hello{}]",
                    g2(v, 0)?,
                    if fl & 0x8000 != 0 { "Targeted" } else { "Link" },
                    if fl & 0x4000 != 0 {
                        ", Request for targeted Hellos"
                    } else {
                        ""
                    }
                );
            }
            0x0401 => {
                tcheck!(tlv_len, 4);
                put!(
                    self,
                    "\n\t      IPv4 Transport Address: {}",
                    self.host4(gv4(v, 0)?)
                );
            }
            0x0403 => {
                tcheck!(tlv_len, 16);
                put!(
                    self,
                    "\n\t      IPv6 Transport Address: {}",
                    self.host6(gv6(v, 0)?)
                );
            }
            0x0402 => {
                tcheck!(tlv_len, 4);
                put!(self, "\n\t      Sequence Number: {}", g4(v, 0)?);
            }
            0x0101 => {
                tcheck!(tlv_len, 2);
                let af = g2(v, 0)?;
                let afn = af_name(af).map_or_else(|| format!("Unknown ({af})"), str::to_string);
                put!(self, "\n\t      Address Family: {afn}, addresses");
                let left = tlv_len - 2;
                match af {
                    1 => {
                        for k in 0..left / 4 {
                            put!(self, " {}", self.host4(gv4(v, 2 + 4 * k)?));
                        }
                    }
                    2 => {
                        for k in 0..left / 16 {
                            put!(self, " {}", self.host6(gv6(v, 2 + 16 * k)?));
                        }
                    }
                    _ => {}
                }
            }
            0x0500 => {
                tcheck!(tlv_len, 8);
                let fl = g2(v, 6)?;
                put!(
                    self,
                    "\n\t      Version: {}, Keepalive: {}s, Flags: [Downstream {}, Loop Detection {}]",
                    g2(v, 0)?,
                    g2(v, 2)?,
                    if fl & 0x8000 != 0 { "On Demand" } else { "Unsolicited" },
                    if fl & 0x4000 != 0 { "Enabled" } else { "Disabled" }
                );
            }
            0x0100 => self.ldp_fec(v, tlv_len)?,
            0x0200 => {
                tcheck!(tlv_len, 4);
                put!(self, "\n\t      Label: {}", g4(v, 0)? & 0xfffff);
            }
            0x0300 => {
                tcheck!(tlv_len, 8);
                let ui = g4(v, 0)?;
                put!(
                    self,
                    "\n\t      Status: 0x{:02x}, Flags: [{} and {} forward]",
                    ui & 0x3fff_ffff,
                    if ui & 0x8000_0000 != 0 {
                        "Fatal error"
                    } else {
                        "Advisory Notification"
                    },
                    if ui & 0x4000_0000 != 0 { "do" } else { "don't" }
                );
                let id = g4(v, 4)?;
                if id != 0 {
                    put!(self, ", causing Message ID: 0x{id:08x}");
                }
            }
            0x0503 => {
                tcheck!(tlv_len, 12);
                let fl = g2(v, 0)?;
                let pick = |bit: u16, yes: &'static str, no: &'static str| {
                    if fl & bit != 0 {
                        yes
                    } else {
                        no
                    }
                };
                put!(
                    self,
                    "\n\t      Flags: [{}Reconnect, {}Save State, {}All-Label Protection, {} Checkpoint, {}Re-Learn State]",
                    pick(0x8000, "", "No "),
                    pick(0x8, "", "Don't "),
                    pick(0x4, "", "No "),
                    pick(0x2, "Sequence Numbered Label", "All Labels"),
                    pick(0x1, "", "Don't ")
                );
                let rt = g4(v, 4)?;
                if rt != 0 {
                    put!(self, ", Reconnect Timeout: {rt}ms");
                }
                let rc = g4(v, 8)?;
                if rc != 0 {
                    put!(self, ", Recovery Time: {rc}ms");
                }
            }
            0x0601 => {
                tcheck!(tlv_len, 2);
                put!(self, "\n\t      MTU: {}", g2(v, 0)?);
            }
            _ => {
                if self.opts.verbose <= 1 {
                    self.unknown_data(v, 0, tlv_len, "\n\t      ");
                }
            }
        }
        Ok(done)
    }

    /// A FEC TLV's first element (tcpdump decodes only one).
    fn ldp_fec(&mut self, v: &[u8], tlv_len: usize) -> PResult {
        if tlv_len < 1 {
            put!(self, " [tlv length {tlv_len} < 1] (invalid)");
            return Ok(());
        }
        let ft = g1(v, 0)?;
        let name = match ft {
            1 => "Wildcard",
            2 => "Prefix",
            3 => "Host address",
            0x80 => "Martini VC",
            _ => "Unknown",
        };
        put!(self, "\n\t      {name} FEC (0x{ft:02x})");
        let left = tlv_len - 1;
        match ft {
            2 => {
                if left < 2 {
                    put!(self, " [tlv length {left} < 2] (invalid)");
                    return Ok(());
                }
                let af = g2(v, 1)?;
                let left = left - 2;
                if af == 1 || af == 2 {
                    let v6 = af == 2;
                    let fam = if v6 { "IPv6" } else { "IPv4" };
                    match decode_prefix(tail(v, 3), left, v6)? {
                        Ok(s) => put!(self, ": {fam} prefix {s}"),
                        // tcpdump says IPv4 for both families here.
                        Err(-3) => put!(self, ": IPv4 prefix (goes past end of TLV)"),
                        Err(_) => put!(self, ": {fam} prefix (invalid length)"),
                    }
                } else {
                    put!(self, ": Address family {af} prefix");
                }
            }
            0x80 => self.ldp_martini(tail(v, 1), left)?,
            _ => {}
        }
        Ok(())
    }

    /// A Martini VC FEC element: pseudowire type, group and VC IDs, then the
    /// interface parameters.
    fn ldp_martini(&mut self, t: &[u8], left: usize) -> PResult {
        if left < 7 {
            put!(self, " [tlv length {left} < 7] (invalid)");
            return Ok(());
        }
        let info_len = g1(t, 2)? as usize;
        let pw = g2(t, 0)?;
        let cw = if pw & 0x8000 != 0 { "" } else { "no " };
        let pwn = pw_type_name(pw & 0x7fff);
        if info_len == 0 {
            put!(
                self,
                ": {pwn}, {cw}control word, group-ID {}, VC-info-length: {info_len}",
                g4(t, 3)?
            );
            return Ok(());
        }
        if left < 11 {
            put!(self, " [tlv length {left} < 11] (invalid)");
            return Ok(());
        }
        put!(
            self,
            ": {pwn}, {cw}control word, group-ID {}, VC-ID {}, VC-info-length: {info_len}",
            g4(t, 3)?,
            g4(t, 7)?
        );
        if info_len < 4 {
            put!(self, " (invalid, < 4");
            return Ok(());
        }
        let mut info = info_len - 4;
        let left = left - 11;
        if left < info {
            put!(self, " [tlv length {left} < {info}] (invalid)");
            return Ok(());
        }
        let mut at = 11;
        while info > 2 {
            let pt = g1(t, at)?;
            let plen = g1(t, at + 1)? as usize;
            if plen < 2 || info < plen {
                break;
            }
            let pname = match pt {
                1 => "MTU",
                3 => "Description",
                0x0c => "VCCV",
                _ => "Unknown",
            };
            put!(
                self,
                "\n\t\tInterface Parameter: {pname} (0x{pt:02x}), len {plen}"
            );
            match pt {
                1 => put!(self, ": {}", g2(t, at + 2)?),
                3 => {
                    put!(self, ": ");
                    for i in 2..plen {
                        super::print_char(&mut self.out, g1(t, at + i)?);
                    }
                }
                0x0c => {
                    let cc = g1(t, at + 2)?;
                    let cv = g1(t, at + 3)?;
                    let ccs = [
                        (1, "PWE3 control word"),
                        (2, "MPLS Router Alert Label"),
                        (4, "MPLS inner label TTL = 1"),
                    ];
                    let cvs = [(1, "ICMP Ping"), (2, "LSP Ping"), (4, "BFD")];
                    put!(
                        self,
                        "\n\t\t  Control Channels (0x{cc:02x}) = [{}]",
                        bit_names(cc as u32, &ccs)
                    );
                    put!(
                        self,
                        "\n\t\t  CV Types (0x{cv:02x}) = [{}]",
                        bit_names(cv as u32, &cvs)
                    );
                }
                _ => {
                    self.unknown_data(t, at + 2, plen - 2, "\n\t\t  ");
                }
            }
            info -= plen;
            at += plen;
        }
        Ok(())
    }
}
