//! LSP ping (RFC 8029) as tcpdump's `lspping_print` prints it: a line
//! without `-v`; with it the header, the timestamps and the TLVs (the
//! target FEC stack's sub-TLVs, downstream mappings, BFD discriminators,
//! vendor codes), each truncated or short one ending as tcpdump ends it.

use super::ldp::pw_type_name;
use super::ntp::ntp_time;
use super::ospf2::put;
use super::{g1, g2, g4, gv4, gv6, need, tail, PResult, Printer};

const COMMON_HDR: usize = 32;

fn return_code_name(c: u8) -> &'static str {
    match c {
        0 => "No return code or return code contained in the Error Code TLV",
        1 => "Malformed echo request received",
        2 => "One or more of the TLVs was not understood",
        3 => "Replying router is an egress for the FEC at stack depth",
        4 => "Replying router has no mapping for the FEC at stack depth",
        5..=7 => "Reserved",
        8 => "Label switched at stack-depth",
        9 => "Label switched but no MPLS forwarding at stack-depth",
        10 => "Mapping for this FEC is not the given label at stack depth",
        11 => "No label entry at stack-depth",
        12 => "Protocol not associated with interface at FEC stack depth",
        13 => "Premature termination of ping due to label stack shrinking to a single label",
        _ => "unknown",
    }
}

fn tlv_name(t: u16) -> &'static str {
    match t {
        1 => "Target FEC Stack",
        2 => "Downstream Mapping",
        3 => "Pad",
        9 => "Error Code",
        5 => "Vendor Enterprise Code",
        7 => "Interface Label Stack",
        10 => "Reply TOS Byte",
        15 => "BFD Discriminator",
        0xfc00 => "Vendor Private Code",
        _ => "Unknown",
    }
}

fn subtlv_name(t: u16) -> &'static str {
    match t {
        1 => "LDP IPv4 prefix",
        2 => "LDP IPv6 prefix",
        3 => "RSVP IPv4 Session Query",
        4 => "RSVP IPv6 Session Query",
        5 => "Reserved",
        6 => "VPN IPv4 prefix",
        7 => "VPN IPv6 prefix",
        8 => "L2 VPN endpoint",
        9 => "FEC 128 pseudowire (old)",
        10 => "FEC 128 pseudowire",
        12 => "BGP labeled IPv4 prefix",
        13 => "BGP labeled IPv6 prefix",
        _ => "Unknown",
    }
}

/// print-bgp.c's `bgp_vpn_rd_print`: a route distinguisher.
pub(super) fn vpn_rd(b: &[u8], at: usize) -> PResult<String> {
    Ok(match g2(b, at)? {
        0 => format!("{}:{}", g2(b, at + 2)?, g4(b, at + 4)?),
        1 => format!("{}:{}", gv4(b, at + 2)?, g2(b, at + 6)?),
        2 => format!("{}:{}", g4(b, at + 2)?, g2(b, at + 6)?),
        _ => "unknown RD format".to_string(),
    })
}

impl Printer<'_> {
    /// `lspping_print`: `bp` is the UDP payload, `len` its length.
    pub(super) fn lspping(&mut self, bp: &[u8], len: u32) -> PResult {
        self.proto = "lspping";
        let len = len as usize;
        if len < COMMON_HDR {
            put!(self, "\n\t\t packet is too short");
            return Ok(());
        }
        need(bp, 0, COMMON_HDR)?;
        let version = g2(bp, 0)?;
        if version != 1 {
            put!(self, "LSP-PING version {version} packet not supported");
            return Ok(());
        }
        let mt = g1(bp, 4)?;
        let mname = match mt {
            1 => Some("MPLS Echo Request"),
            2 => Some("MPLS Echo Reply"),
            _ => None,
        };
        if self.opts.verbose < 1 {
            let m = mname.map_or_else(|| format!("unknown ({mt})"), str::to_string);
            put!(
                self,
                "LSP-PINGv{version}, {m}, seq {}, length: {len}",
                g4(bp, 12)?
            );
            return Ok(());
        }
        let rm = g1(bp, 5)?;
        let rmname = match rm {
            1 => "Do not reply",
            2 => "Reply via an IPv4/IPv6 UDP packet",
            3 => "Reply via an IPv4/IPv6 UDP packet with Router Alert",
            4 => "Reply via application level control channel",
            _ => "unknown",
        };
        put!(
            self,
            "\n\tLSP-PINGv{version}, msg-type: {} ({mt}), length: {len}\n\t  reply-mode: {rmname} ({rm})",
            mname.unwrap_or("unknown")
        );
        let (rc, rsc) = (g1(bp, 6)?, g1(bp, 7)?);
        let rcn = return_code_name(rc);
        if matches!(rc, 3 | 4 | 8 | 10 | 11 | 12) {
            put!(
                self,
                "\n\t  Return Code: {rcn} {rsc} ({rc})\n\t  Return Subcode: ({rsc})"
            );
        } else {
            put!(
                self,
                "\n\t  Return Code: {rcn} ({rc})\n\t  Return Subcode: ({rsc})"
            );
        }
        put!(
            self,
            "\n\t  Sender Handle: 0x{:08x}, Sequence: {}",
            g4(bp, 8)?,
            g4(bp, 12)?
        );
        put!(self, "\n\t  Sender Timestamp: {} ", ntp_time(bp, 16)?);
        put!(self, "Receiver Timestamp: ");
        if g4(bp, 24)? == 0 && g4(bp, 28)? == 0 {
            put!(self, "no timestamp");
        } else {
            put!(self, "{}", ntp_time(bp, 24)?);
        }
        let mut at = COMMON_HDR;
        let mut tlen = len - COMMON_HDR;
        while tlen != 0 {
            if tlen < 4 {
                put!(self, "\n\t\t packet is too short");
                return Ok(());
            }
            let t = g2(bp, at)?;
            let mut tl = g2(bp, at + 2)? as usize;
            put!(self, "\n\t  {} TLV ({t}), length: {tl}", tlv_name(t));
            if tl == 0 {
                at += 4;
                tlen -= 4;
                continue;
            }
            if tlen < tl + 4 {
                put!(self, "\n\t\t packet is too short");
                return Ok(());
            }
            need(bp, at + 4, tl)?;
            let v = tail(bp, at + 4);
            let hexdump = match t {
                1 => match self.lspping_fec_stack(v, tl)? {
                    Some(h) => h,
                    None => return Ok(()),
                },
                2 => self.lspping_downstream(v, tl)?,
                15 | 5 if tl < 4 => {
                    put!(self, "\n\t      TLV is too short");
                    true
                }
                15 => {
                    put!(self, "\n\t    BFD Discriminator 0x{:08x}", g4(v, 0)?);
                    false
                }
                5 => {
                    let id = g4(v, 0)?;
                    let name = super::smi::smi_name(id).unwrap_or("Unknown");
                    put!(self, "\n\t    Vendor: {name} (0x{id:04x})");
                    false
                }
                _ => {
                    if self.opts.verbose <= 1 {
                        self.unknown_data(v, 0, tl, "\n\t    ");
                    }
                    false
                }
            };
            if self.opts.verbose > 1 || hexdump {
                self.unknown_data(v, 0, tl, "\n\t    ");
            }
            if !tl.is_multiple_of(4) {
                tl += 4 - tl % 4;
                if tlen < tl + 4 {
                    put!(self, "\n\t\t packet is too short");
                    return Ok(());
                }
            }
            at += tl + 4;
            tlen -= tl + 4;
        }
        Ok(())
    }

    /// The Target FEC Stack's sub-TLVs: whether the TLV is dumped in hex
    /// after (it is too short), or `None` when tcpdump stops the packet.
    fn lspping_fec_stack(&mut self, v: &[u8], tl: usize) -> PResult<Option<bool>> {
        let mut at = 0;
        let mut left = tl;
        while left != 0 {
            if left < 4 {
                put!(self, "\n\t      TLV is too short");
                return Ok(Some(true));
            }
            let st = g2(v, at)?;
            let mut sl = g2(v, at + 2)? as usize;
            if left < sl + 4 {
                put!(self, "\n\t      TLV is too short");
                return Ok(Some(true));
            }
            need(v, at + 4, sl)?;
            put!(
                self,
                "\n\t    {} subTLV ({st}), length: {sl}",
                subtlv_name(st)
            );
            let dump = self.lspping_fec(st, tail(v, at + 4), sl)?;
            if self.opts.verbose > 1 || dump {
                self.unknown_data(v, at + 4, sl, "\n\t      ");
            }
            if !sl.is_multiple_of(4) {
                sl += 4 - sl % 4;
                if left < sl + 4 {
                    put!(self, "\n\t\t TLV is too short");
                    return Ok(None);
                }
            }
            at += sl + 4;
            left -= sl + 4;
        }
        Ok(Some(false))
    }

    /// One FEC sub-TLV's value; true when it is to be dumped in hex.
    fn lspping_fec(&mut self, st: u16, s: &[u8], sl: usize) -> PResult<bool> {
        let want = match st {
            1 | 12 => 5,
            2 | 13 => 17,
            3 => 20,
            4 => 56,
            6 => 13,
            7 => 25,
            8 | 10 => 14,
            9 => 10,
            _ => return Ok(true),
        };
        if sl != want {
            put!(self, "\n\t      invalid subTLV length, should be {want}");
            return Ok(true);
        }
        match st {
            1 | 12 => put!(self, "\n\t      {}/{}", self.host4(gv4(s, 0)?), g1(s, 4)?),
            2 | 13 => put!(self, "\n\t      {}/{}", self.host6(gv6(s, 0)?), g1(s, 16)?),
            3 => put!(
                self,
                "\n\t      tunnel end-point {}, tunnel sender {}, lsp-id 0x{:04x}\n\t      tunnel-id 0x{:04x}, extended tunnel-id {}",
                self.host4(gv4(s, 0)?),
                self.host4(gv4(s, 12)?),
                g2(s, 18)?,
                g2(s, 6)?,
                self.host4(gv4(s, 8)?)
            ),
            4 => put!(
                self,
                "\n\t      tunnel end-point {}, tunnel sender {}, lsp-id 0x{:04x}\n\t      tunnel-id 0x{:04x}, extended tunnel-id {}",
                self.host6(gv6(s, 0)?),
                self.host6(gv6(s, 36)?),
                g2(s, 54)?,
                g2(s, 18)?,
                self.host6(gv6(s, 20)?)
            ),
            6 => put!(
                self,
                "\n\t      RD: {}, {}/{}",
                vpn_rd(s, 0)?,
                self.host4(gv4(s, 8)?),
                g1(s, 12)?
            ),
            7 => put!(
                self,
                "\n\t      RD: {}, {}/{}",
                vpn_rd(s, 0)?,
                self.host6(gv6(s, 8)?),
                g1(s, 24)?
            ),
            8 => {
                let enc = g2(s, 12)?;
                put!(
                    self,
                    "\n\t      RD: {}, Sender VE ID: {}, Receiver VE ID: {}\n\t      Encapsulation Type: {} ({enc})",
                    vpn_rd(s, 0)?,
                    g2(s, 8)?,
                    g2(s, 10)?,
                    pw_name(enc)
                );
            }
            9 => {
                let pt = g2(s, 8)?;
                put!(
                    self,
                    "\n\t      Remote PE: {}\n\t      PW ID: 0x{:08x}, PW Type: {} ({pt})",
                    self.host4(gv4(s, 0)?),
                    g4(s, 4)?,
                    pw_name(pt)
                );
            }
            _ => {
                let pt = g2(s, 12)?;
                put!(
                    self,
                    "\n\t      Sender PE: {}, Remote PE: {}\n\t      PW ID: 0x{:08x}, PW Type: {} ({pt})",
                    self.host4(gv4(s, 0)?),
                    self.host4(gv4(s, 4)?),
                    g4(s, 8)?,
                    pw_name(pt)
                );
            }
        }
        Ok(false)
    }

    /// A Downstream Mapping TLV: its addresses, then (always) its hex.
    fn lspping_downstream(&mut self, v: &[u8], tl: usize) -> PResult<bool> {
        if tl < 4 {
            put!(self, "\n\t      TLV is too short");
            return Ok(true);
        }
        need(v, 0, 4)?;
        let af = g1(v, 2)?;
        let afn = match af {
            1 => "IPv4",
            2 => "Unnumbered IPv4",
            3 | 4 => "IPv6",
            _ => "unknown",
        };
        put!(
            self,
            "\n\t    MTU: {}, Address-Type: {afn} ({af})",
            g2(v, 0)?
        );
        let size = match af {
            1 | 2 => 12,
            3 => 36,
            4 => 24,
            _ => 0,
        };
        if size > 0 {
            if tl < size {
                put!(self, "\n\t      TLV is too short");
                return Ok(true);
            }
            need(v, 0, size)?;
            match af {
                1 => put!(
                    self,
                    "\n\t    Downstream IP: {}\n\t    Downstream Interface IP: {}",
                    self.host4(gv4(v, 4)?),
                    self.host4(gv4(v, 8)?)
                ),
                2 => put!(
                    self,
                    "\n\t    Downstream IP: {}\n\t    Downstream Interface Index: 0x{:08x}",
                    self.host4(gv4(v, 4)?),
                    g4(v, 8)?
                ),
                3 => put!(
                    self,
                    "\n\t    Downstream IP: {}\n\t    Downstream Interface IP: {}",
                    self.host6(gv6(v, 4)?),
                    self.host6(gv6(v, 20)?)
                ),
                _ => put!(
                    self,
                    "\n\t    Downstream IP: {}\n\t    Downstream Interface Index: 0x{:08x}",
                    self.host6(gv6(v, 4)?),
                    g4(v, 20)?
                ),
            }
        }
        if tl - size < 4 {
            put!(self, "\n\t      TLV is too short");
            return Ok(true);
        }
        need(v, size, 4)?;
        Ok(true)
    }
}

/// `mpls_pw_types_values` with LSP ping's fallback text.
fn pw_name(t: u16) -> &'static str {
    match pw_type_name(t) {
        "Unknown" => "unknown",
        n => n,
    }
}
