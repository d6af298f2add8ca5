//! PPP control protocols (LCP, IPCP, IPv6CP, CCP, BACP, OSICP, MPLSCP) as
//! tcpdump's `handle_ctrl_proto` prints them: the code, id and length, and with
//! `-v` the encoded length and each configuration option (`-vv` adds the hex
//! of the header and of every option).

use super::ospf2::put;
use super::{g1, g2, g3, g4, need, tail, PResult, Printer};

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

/// What an option printer tells the loop over the options: tcpdump's return
/// value, 0 to stop.
pub(super) type Advance = PResult<usize>;

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
            self.unknown_data(&with_proto(4), 0, 6, "\n\t");
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
                    self.unknown_data(t, 2, len - 2, "\n\t    ");
                }
            }
            9..=11 if len >= 8 => {
                put!(self, "\n\t  Magic-Num 0x{:08x}", g4(t, 0)?);
                if len > 8 {
                    put!(self, "\n\t  -----trailing data-----");
                    need(t, 4, len - 8)?;
                    self.unknown_data(t, 4, len - 8, "\n\t  ");
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
                    self.unknown_data(&with_proto(len), 0, len + 2, "\n\t  ");
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
}
