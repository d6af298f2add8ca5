//! Frame Relay (tcpdump's `fr_if_print`/`fr_print`, and FRF.16's `mfr_print`): a Q.922 address of 2 to 4
//! bytes, then either a Cisco-style EtherType or the UI control byte, an
//! optional pad and an NLPID naming what follows (IPv4, IPv6, SNAP, PPP).
//! `-e` prints the address first (`Q.922, hdr-len 2, DLCI 100, Flags [none],
//! NLPID IPv4 (0xcc), length 104: `); FRF.15 fragments print their header.
//! The OSI protocols (CLNP, ES-IS, IS-IS) go to their printers by NLPID;
//! Q.933 signalling is not decoded: the line stops after the header.

use super::{bit_names, g1, g2, g4, need, out, tail, PResult, Printer, Trunc};

const FR_EA_BIT: u8 = 0x01;
const FLAG_NAMES: [(u32, &str); 5] = [
    (0x0200_0000, "C!"),
    (0x0002_0000, "DE"),
    (0x0004_0000, "BECN"),
    (0x0008_0000, "FECN"),
    (0x0000_0002, "sdlcore"),
];
const LLC_UI: u8 = 0x03;
const NLPID_SNAP: u16 = 0x80;
const NLPID_IP: u16 = 0xcc;
const NLPID_PPP: u16 = 0xcf;
const NLPID_IP6: u16 = 0x8e;
const NLPID_MFR: u16 = 0xb1;
const MFR_FLAGS: [(u32, &str); 3] = [(0x80, "Begin"), (0x40, "End"), (0x20, "Control")];

/// `nlpid_values`, the ISO printers' table.
fn nlpid_name(n: u16) -> &'static str {
    u8::try_from(n)
        .ok()
        .and_then(super::isis::nlpid_name)
        .unwrap_or("unknown")
}

/// A parsed Q.922 address.
struct Q922 {
    dlci: u32,
    len: usize,
    flags: u32,
}

/// `parse_q922_header`: `Ok(None)` for an invalid address, `Err` when cut
/// short (by the capture or by `length`).
fn q922(p: &[u8], length: u32) -> PResult<Option<Q922>> {
    let length = length as usize;
    let b = |i: usize| if i < length { g1(p, i) } else { Err(Trunc) };
    let b0 = b(0)?;
    if b0 & FR_EA_BIT != 0 {
        return Ok(None);
    }
    let b1 = b(1)?;
    let mut dlci = (u32::from(b0 & 0xfc) << 2) | u32::from((b1 & 0xf0) >> 4);
    let flags = (u32::from(b0 & 0x02) << 24) | (u32::from(b1 & 0x0e) << 16);
    if b1 & FR_EA_BIT != 0 {
        return Ok(Some(Q922 {
            dlci,
            len: 2,
            flags,
        }));
    }
    let mut at = 2;
    let mut len = 3;
    if b(at)? & FR_EA_BIT == 0 {
        dlci = (dlci << 7) | u32::from(b(at)? >> 1);
        len += 1;
        at += 1;
    }
    let last = b(at)?;
    if last & FR_EA_BIT == 0 {
        return Ok(None);
    }
    Ok(Some(Q922 {
        dlci: (dlci << 6) | u32::from(last >> 2),
        len,
        flags: flags | u32::from(last & 0x02),
    }))
}

impl Printer<'_> {
    /// `fr_if_print`.
    pub(super) fn fr_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "fr";
        if data.len() < 4 {
            return Err(Trunc);
        }
        self.fr(data, length)
    }

    /// `mfr_if_print`: FRF.16 multilink Frame Relay.
    pub(super) fn mfr_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "mfr";
        if data.len() < 2 {
            return Err(Trunc);
        }
        self.mfr(data, length)
    }

    /// `mfr_print` without `-v`: a control frame's message type, or a
    /// fragment's sequence number and flags (a first fragment goes on to
    /// the Frame Relay header inside it).
    fn mfr(&mut self, p: &[u8], length: u32) -> PResult {
        if length < 4 {
            out!(self, "[length {length} < 4] (invalid)");
            return Ok(());
        }
        g4(p, 0)?;
        let bec = u32::from(p[0] & 0xe0);
        let flags = bit_names(bec, &MFR_FLAGS);
        if bec == 0xe0 && p[1] == 0 {
            let msg = match p[2] {
                1 => "Add Link".to_string(),
                2 => "Add Link ACK".to_string(),
                3 => "Add Link Reject".to_string(),
                4 => "Hello".to_string(),
                5 => "Hello ACK".to_string(),
                6 => "Remove Link".to_string(),
                7 => "Remove Link ACK".to_string(),
                m => format!("Unknown Message (0x{m:02x})"),
            };
            out!(
                self,
                "FRF.16 Control, Flags [{flags}], {msg}, length {length}"
            );
            if self.opts.verbose > 0 {
                self.mfr_ies(p, length)?;
            }
            return Ok(());
        }
        let seq = (u16::from(p[0] & 0x1e) << 7) | u16::from(p[1]);
        out!(self, "FRF.16 Frag, seq {seq}, Flags [{flags}]");
        if bec == 0xc0 || bec == 0x80 {
            self.out.push_str(", ");
            return self.fr(tail(p, 2), length - 2);
        }
        // print_unknown_data: the captured part of the frame in hex.
        let n = p.len().min(length as usize);
        crate::dump::hex(&mut self.out, &p[..n]);
        Ok(())
    }

    /// `mfr_print`'s information elements of a control frame, with `-v`.
    fn mfr_ies(&mut self, p: &[u8], length: u32) -> PResult {
        // tcpdump's `tlen` is unsigned and may wrap; reads stay bounded by
        // the capture.
        let (mut at, mut tlen) = (3usize, length - 3);
        while tlen > 2 {
            let (ty, len) = (g1(p, at)?, g1(p, at + 1)?);
            let name = match ty {
                1 => "Bundle ID",
                2 => "Link ID",
                3 => "Magic Number",
                5 => "Timestamp",
                6 => "Vendor Extension",
                7 => "Cause",
                _ => "Unknown",
            };
            out!(self, "\n\tIE {name} ({ty}), length {len}: ");
            // The loop check: a length must cover more than its header.
            if ty == 0 || len <= 2 {
                return Ok(());
            }
            let len = usize::from(len);
            need(p, at, len)?;
            let (v, vlen) = (at + 2, len - 2);
            tlen = tlen.wrapping_sub(2);
            let verbose = self.opts.verbose;
            match ty {
                3 if vlen != 4 => out!(self, "[IE data length {vlen} != 4] (invalid)"),
                3 => out!(self, "0x{:08x}", g4(p, v)?),
                1 | 2 => self.jnp(p, v, vlen.min(50))?,
                5 if vlen > 14 => out!(self, "[Timestamp IE length {vlen} > 14] (invalid)"),
                _ if verbose <= 1 => {
                    self.unknown_data(p, v, vlen, "\n\t  ");
                }
                _ => {}
            }
            if verbose > 1 {
                self.unknown_data(p, v, vlen, "\n\t  ");
            }
            tlen = tlen.wrapping_sub(vlen as u32);
            at = v + vlen;
        }
        Ok(())
    }

    /// `fr_hdr_print`.
    fn fr_hdr(&mut self, length: u32, q: &Q922, nlpid: u16) {
        if self.opts.quiet {
            out!(self, "Q.922, DLCI {}, length {length}: ", q.dlci);
            return;
        }
        let flags = bit_names(q.flags, &FLAG_NAMES);
        out!(
            self,
            "Q.922, hdr-len {}, DLCI {}, Flags [{flags}], ",
            q.len,
            q.dlci
        );
        if nlpid <= 0xff {
            out!(
                self,
                "NLPID {} (0x{nlpid:02x}), length {length}: ",
                nlpid_name(nlpid)
            );
        } else {
            let name = netsift_wire::ethernet::EtherType(nlpid)
                .name()
                .unwrap_or("unknown");
            out!(
                self,
                "cisco-ethertype {name} (0x{nlpid:04x}), length {length}: "
            );
        }
    }

    /// `frf15_print`: an FRF.15 fragment's header.
    fn frf15(&mut self, p: &[u8], length: u32) -> PResult {
        if length < 2 {
            return Err(Trunc);
        }
        let (b0, b1) = (g1(p, 0)?, g1(p, 1)?);
        let seq = (u16::from(b0 & 0x1e) << 7) | u16::from(b1);
        let flags = bit_names(u32::from(b0 & 0xe0), &MFR_FLAGS);
        let kind = if b0 & 1 != 0 {
            "Interface"
        } else {
            "End-to-End"
        };
        out!(
            self,
            "FRF.15, seq 0x{seq:03x}, Flags [{flags}],{kind} Fragmentation, length {length}"
        );
        Ok(())
    }

    /// `fr_print`.
    fn fr(&mut self, p: &[u8], length: u32) -> PResult {
        let Some(q) = q922(p, length)? else {
            self.out.push_str("Q.922, invalid address");
            return Ok(());
        };
        let al = q.len;
        let ctl = g1(p, al)?;
        if (length as usize) < al + 1 {
            return Err(Trunc);
        }
        if ctl != LLC_UI && q.dlci != 0 {
            match g2(p, al) {
                Ok(et) if length as usize >= al + 2 => {
                    if self.opts.link_header {
                        self.fr_hdr(length, &q, et);
                    }
                    let rest = length - al as u32 - 2;
                    if self.ethertype(et, tail(p, al + 2), rest, None)? {
                        return Ok(());
                    }
                    out!(self, "UI {ctl:02x}! ");
                }
                _ => out!(self, "UI {ctl:02x}! "),
            }
        }
        let pad = g1(p, al + 1)?;
        if (length as usize) < al + 2 {
            return Err(Trunc);
        }
        let hdr_len = if pad == 0 {
            if al != 3 {
                self.out.push_str("Pad! ");
            }
            al + 3
        } else {
            if al == 3 {
                self.out.push_str("No pad! ");
            }
            al + 2
        };
        let nlpid = u16::from(g1(p, hdr_len - 1)?);
        if (length as usize) < hdr_len {
            return Err(Trunc);
        }
        if self.opts.link_header {
            self.fr_hdr(length, &q, nlpid);
        }
        let body = tail(p, hdr_len);
        let rest = length - hdr_len as u32;
        match nlpid {
            NLPID_IP => self.ipv4(body, rest),
            NLPID_IP6 => self.ipv6(body, rest),
            NLPID_PPP => self.ppp(body, rest)?,
            NLPID_SNAP => {
                if !self.snap(body, rest, None)? {
                    if !self.opts.link_header {
                        // tcpdump passes the header length as the address's.
                        let q = Q922 { len: hdr_len, ..q };
                        self.fr_hdr(length, &q, nlpid);
                    }
                    self.default_print(&p[..p.len().min(length as usize)], true);
                }
            }
            NLPID_MFR => self.frf15(body, rest)?,
            // The OSI printers need the NLPID byte.
            0x81..=0x83 => self.isoclns(tail(p, hdr_len - 1), rest + 1)?,
            0x08 => self.q933(body, rest)?,
            _ => {
                if !self.opts.link_header {
                    self.fr_hdr(length, &q, nlpid);
                }
                let before = self.out.len();
                self.default_print(body, true);
                // tcpdump's dump ends with the marker when bytes are missing.
                if self.out.len() != before && body.len() < rest as usize {
                    self.trunc();
                }
            }
        }
        Ok(())
    }
}
