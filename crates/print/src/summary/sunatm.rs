//! SunATM (tcpdump's `sunatm_if_print` and `atm_print`): a 4-byte header of
//! direction and traffic type, VPI and VCI, then an ATM PDU. On VPI 0 the
//! well-known VCIs carry signalling (Q.2931's message type and call
//! reference), OAM F4 cells (their cell header and payload type; with `-v`
//! the OAM fields and the CRC-10 verdict), meta and
//! broadcast signalling and ILMI; other PDUs are LLC-encapsulated. LANE
//! traffic and ILMI's SNMP are not decoded.

use super::{g1, g2, g3, g4, need, out, tail, PResult, Printer};

const PKT_BEGIN_POS: usize = 4;
const PT_LANE: u8 = 0x01;
const VCI_METAC: u16 = 0x01;
const VCI_BCC: u16 = 0x02;
const VCI_OAMF4SC: u16 = 0x03;
const VCI_OAMF4EC: u16 = 0x04;
const VCI_PPC: u16 = 0x05;
const VCI_ILMIC: u16 = 0x10;
const Q2931: u8 = 0x09;

fn msg_type(t: u8) -> Option<&'static str> {
    Some(match t {
        0x02 => "Call_proceeding",
        0x07 => "Connect",
        0x0f => "Connect_ack",
        0x05 => "Setup",
        0x4d => "Release",
        0x5a => "Release_complete",
        0x46 => "Restart",
        0x4e => "Restart_ack",
        0x7d => "Status",
        0x75 => "Status_enquiry",
        0x80 => "Add_party",
        0x81 => "Add_party_ack",
        0x82 => "Add_party_reject",
        0x83 => "Drop_party",
        0x84 => "Drop_party_ack",
        _ => return None,
    })
}

fn payload_type(t: u32) -> &'static str {
    match t {
        0 => "user data, uncongested, SDU 0",
        1 => "user data, uncongested, SDU 1",
        2 => "user data, congested, SDU 0",
        3 => "user data, congested, SDU 1",
        4 => "VCC OAM F5 flow segment",
        5 => "VCC OAM F5 flow end-to-end",
        6 => "Traffic Control and resource Mgmt",
        _ => "Unknown",
    }
}

impl Printer<'_> {
    /// `sunatm_if_print`.
    pub(super) fn sunatm_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "sunatm";
        let dir = g1(data, 0)?;
        if self.opts.link_header {
            self.out
                .push_str(if dir & 0x80 != 0 { "Tx: " } else { "Rx: " });
        }
        let (vpi, vci) = (g1(data, 1)?, g2(data, 2)?);
        let p = tail(data, PKT_BEGIN_POS);
        let length = length.saturating_sub(PKT_BEGIN_POS as u32);
        self.proto = "atm";
        if self.opts.link_header {
            out!(self, "VPI:{vpi} VCI:{vci} ");
        }
        if vpi == 0 {
            match vci {
                VCI_PPC => return self.atm_sig(p),
                VCI_BCC => {
                    self.out.push_str("broadcast sig: ");
                    return Ok(());
                }
                VCI_OAMF4SC | VCI_OAMF4EC => return self.oam(p, length, 1),
                VCI_METAC => {
                    self.out.push_str("meta: ");
                    return Ok(());
                }
                VCI_ILMIC => {
                    self.out.push_str("ilmi: ");
                    return Ok(());
                }
                _ => {}
            }
        }
        if dir & 0x0f == PT_LANE {
            return Ok(());
        }
        if !self.llc(p, length, None)? {
            self.default_print(p, true);
        }
        Ok(())
    }

    /// `sig_print`.
    fn atm_sig(&mut self, p: &[u8]) -> PResult {
        let proto = g1(p, 0)?;
        if proto == Q2931 {
            self.out.push_str("Q.2931");
            let t = g1(p, 5)?;
            match msg_type(t) {
                Some(n) => out!(self, ":{n} "),
                None => out!(self, ":msgtype#{t} "),
            }
            out!(self, "CALL_REF:0x{:06x}", g3(p, 2)?);
        } else {
            out!(self, "SSCOP, proto {proto} ");
        }
        Ok(())
    }

    /// `oam_print` without `-v`: the cell header, after a HEC byte when
    /// `hec` is 1.
    pub(super) fn oam(&mut self, p: &[u8], length: u32, hec: usize) -> PResult {
        self.proto = "oam";
        let cell = g4(p, hec)?;
        g1(p, 4 + hec)?;
        let (vpi, vci) = ((cell >> 20) & 0xff, (cell >> 4) & 0xffff);
        let f = match vci {
            3 => "OAM F4 (segment)",
            4 => "OAM F4 (end)",
            _ => "OAM F5",
        };
        out!(
            self,
            "{f}, vpi {vpi}, vci {vci}, payload [ {} ], clp {}, length {length}",
            payload_type((cell >> 1) & 7),
            cell & 1
        );
        if self.opts.verbose > 0 {
            self.oam_verbose(tail(p, 4 + hec))?;
        }
        Ok(())
    }

    /// `oam_print`'s `-v` part: `p` from the cell type on (the 48 bytes of
    /// payload): the cell and function types, a loopback's or an AIS/RDI's
    /// fields, and the CRC-10 verdict.
    fn oam_verbose(&mut self, p: &[u8]) -> PResult {
        let b = g1(p, 0)?;
        let (cell, func) = (b >> 4, b & 0x0f);
        let cname = match cell {
            1 => "Fault Management",
            2 => "Performance Management",
            8 => "activate/deactivate",
            15 => "System Management",
            _ => "unknown",
        };
        out!(self, "\n\tcell-type {cname} ({cell})");
        let funcs: Option<&[&str]> = match cell {
            1 => Some(&[
                "AIS",
                "RDI",
                "",
                "",
                "Continuity Check",
                "",
                "",
                "",
                "Loopback",
            ]),
            2 => Some(&[
                "Forward Monitoring",
                "Backward Reporting",
                "Monitoring and Reporting",
            ]),
            8 => Some(&["Performance Monitoring", "Continuity Check"]),
            _ => None,
        };
        match funcs {
            None => out!(self, ", func-type unknown ({func})"),
            Some(names) => {
                let n = names.get(usize::from(func)).filter(|n| !n.is_empty());
                out!(self, ", func-type {} ({func})", n.unwrap_or(&"none"));
            }
        }
        // Groups of two bytes at each odd offset of a field, as tcpdump
        // prints them (the last one reaching into the next field).
        let groups = |s: &mut Self, at: usize, n: usize| -> PResult {
            for i in (1..n).step_by(2) {
                out!(s, "{:04x} ", g2(p, at + i)?);
            }
            Ok(())
        };
        match (cell, func) {
            (1, 8) => {
                need(p, 1, 45)?;
                let ind = if g1(p, 1)? & 1 != 0 {
                    "Request"
                } else {
                    "Reply"
                };
                out!(
                    self,
                    "\n\tLoopback-Indicator {ind}, Correlation-Tag 0x{:08x}",
                    g4(p, 2)?
                );
                self.out.push_str("\n\tLocation-ID ");
                groups(self, 6, 12)?;
                self.out.push_str("\n\tSource-ID   ");
                groups(self, 18, 12)?;
            }
            (1, 0 | 1) => {
                need(p, 1, 45)?;
                out!(self, "\n\tFailure-type 0x{:02x}", g1(p, 1)?);
                self.out.push_str("\n\tLocation-ID ");
                groups(self, 2, 16)?;
            }
            _ => {}
        }
        let cksum = g2(p, 46)? & 0x3ff;
        let ok = crc10(&p[..48]) == 0;
        out!(
            self,
            "\n\tcksum 0x{cksum:03x} ({}correct)",
            if ok { "" } else { "in" }
        );
        Ok(())
    }
}

/// `verify_crc10_cksum` over an OAM cell's payload (polynomial 0x633):
/// 0 when the CRC-10 in its last bits is right.
fn crc10(p: &[u8]) -> u16 {
    p.iter().fold(0u16, |acc, &b| {
        ((acc << 8) & 0x3ff) ^ CRC10_TABLE[usize::from((acc >> 2) & 0xff)] ^ u16::from(b)
    })
}

const CRC10_TABLE: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut i = 0;
    while i < 256 {
        let mut acc = (i as u16) << 2;
        let mut j = 0;
        while j < 8 {
            acc <<= 1;
            if acc & 0x400 != 0 {
                acc ^= 0x633;
            }
            j += 1;
        }
        t[i] = acc;
        i += 1;
    }
    t
};
