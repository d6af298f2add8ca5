//! Q.933 signalling (Frame Relay's LMI, NLPID 0x08), as tcpdump 4.99's
//! `q933_print` prints it: the call reference and message type, and the
//! information elements (report type, link verify, PVC status), with `-v`
//! each on a line of its own and the unknown ones in hex.

use super::{g1, out, PResult, Printer, Trunc};

fn msg_name(t: u8) -> Option<&'static str> {
    Some(match t {
        0x00 => "ESC to National",
        0x01 => "Alert",
        0x02 => "Call proceeding",
        0x07 => "Connect",
        0x0f => "Connect ACK",
        0x03 => "Progress",
        0x05 => "Setup",
        0x45 => "Disconnect",
        0x4d => "Release",
        0x5a => "Release Complete",
        0x46 => "Restart",
        0x4e => "Restart ACK",
        0x7d => "Status Reply",
        0x75 => "Status Enquiry",
        _ => return None,
    })
}

/// The names of codesets 0 and 5's IEs (the only ones tcpdump knows).
fn ie_name(codeset: u8, ie: u8) -> &'static str {
    if codeset != 0 && codeset != 5 {
        return "unknown";
    }
    match ie {
        0x01 => "ANSI Report Type",
        0x19 | 0x03 => "ANSI Link Verify",
        0x07 => "ANSI PVC Status",
        0x51 => "CCITT Report Type",
        0x53 => "CCITT Link Verify",
        0x57 => "CCITT PVC Status",
        _ => "unknown",
    }
}

fn is_shift(ie: u8) -> bool {
    ie & 0xf0 == 0x90
}

impl Printer<'_> {
    /// `q933_print`: `p` from the octet of the call reference's length,
    /// `length` bytes.
    pub(super) fn q933(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "q.933";
        let e = self.opts.link_header;
        let v = self.opts.verbose > 0;
        out!(self, "{}", if e { "" } else { "Q.933" });
        let olen = length;
        let sep = if e { "" } else { ", " };
        // Cut short before the header ends: the length, then the marker.
        let short = |pr: &mut Self| {
            out!(pr, "{sep}length {olen}");
            Trunc
        };
        let mut length = length as usize;
        if length == 0 || p.is_empty() {
            return Err(short(self));
        }
        let crl = (g1(p, 0)? & 0x0f) as usize;
        let mut at = 1;
        length -= 1;
        for _ in 0..crl {
            if length == 0 || at >= p.len() {
                return Err(short(self));
            }
            at += 1;
            length -= 1;
        }
        let call_ref = &p[1..at];
        if length == 0 || at >= p.len() {
            return Err(short(self));
        }
        let msg = p[at];
        at += 1;
        length -= 1;
        let (mut codeset, mut ansi) = (0u8, false);
        let mut non_locking = 0;
        let mut unshift = 0u8;
        if length != 0 {
            let ie = *p.get(at).ok_or_else(|| short(self))?;
            if is_shift(ie) {
                at += 1;
                length -= 1;
                codeset = ie & 7;
                if ie & 0x08 == 0 {
                    ansi = codeset == 5;
                } else {
                    non_locking = 1;
                    unshift = 0;
                }
            }
        }
        out!(
            self,
            "{sep}{}, codeset {codeset}",
            if ansi { "ANSI" } else { "CCITT" }
        );
        // tcpdump tests the byte after the header for a dummy reference.
        if crl != 0 && (crl > 1 || g1(p, at)? != 0) {
            out!(self, ", Call Ref: 0x");
            for b in call_ref {
                out!(self, "{b:02x}");
            }
        }
        if v {
            let n = msg_name(msg).unwrap_or("unknown message");
            out!(self, ", {n} (0x{msg:02x}), length {olen}");
        } else {
            let n = super::name_or(msg_name(msg), || format!("unknown message 0x{msg:02x}"));
            out!(self, ", {n}");
        }
        let tail_len = |pr: &mut Self| {
            if !v {
                out!(pr, ", length {olen}");
            }
            Trunc
        };
        while length != 0 {
            if non_locking == 1 {
                non_locking = 2;
            } else if non_locking == 2 {
                codeset = unshift;
                non_locking = 0;
            }
            let ie = *p.get(at).ok_or_else(|| tail_len(self))?;
            at += 1;
            length -= 1;
            if ie & 0x80 != 0 {
                if is_shift(ie) {
                    if ie & 0x08 == 0 {
                        non_locking = 0;
                    } else {
                        non_locking = 1;
                        unshift = codeset;
                    }
                    codeset = ie & 7;
                }
                continue;
            }
            if length == 0 || at >= p.len() {
                return Err(tail_len(self));
            }
            let ielen = p[at] as usize;
            at += 1;
            length -= 1;
            if v {
                out!(
                    self,
                    "\n\t{} IE (0x{ie:02x}), length {ielen}: ",
                    ie_name(codeset, ie)
                );
            }
            if ie == 0 || ielen == 0 {
                return Ok(());
            }
            if length < ielen || at + ielen > p.len() {
                return Err(tail_len(self));
            }
            let val = &p[at..at + ielen];
            let known = (codeset == 0 || codeset == 5) && self.q933_ie(ie, val)?;
            if known {
                if self.opts.verbose > 1 {
                    self.unknown_data(val, 0, ielen, "\n\t  ");
                }
            } else if v {
                self.unknown_data(val, 0, ielen, "\n\t");
            }
            length -= ielen;
            at += ielen;
        }
        if !v {
            out!(self, ", length {olen}");
        }
        Ok(())
    }

    /// `fr_q933_print_ie_codeset_0_5`: whether the IE is one it knows.
    fn q933_ie(&mut self, ie: u8, val: &[u8]) -> PResult<bool> {
        let v = self.opts.verbose > 0;
        let sep = if v { "" } else { ", " };
        let n = val.len();
        match ie {
            0x01 | 0x51 => {
                if v {
                    let t = g1(val, 0)?;
                    let s = match t {
                        0 => "Full Status",
                        1 => "Link verify",
                        2 => "Async PVC Status",
                        _ => "unknown",
                    };
                    out!(self, "{s} ({t})");
                }
            }
            0x03 | 0x53 | 0x19 => {
                out!(self, "{sep}");
                if n < 2 {
                    out!(self, "Invalid LINK VERIFY IE");
                } else {
                    out!(self, "TX Seq: {:3}, RX Seq: {:3}", val[0], val[1]);
                }
            }
            0x07 | 0x57 => {
                out!(self, "{sep}");
                let b = |i: usize| val.get(i).copied().unwrap_or(0);
                let ext = |i: usize| b(i) & 0x80 != 0;
                let invalid = !(3..=5).contains(&n)
                    || ext(0)
                    || (n == 3 && !ext(1))
                    || (n == 4 && (ext(1) || !ext(2)))
                    || (n == 5 && (ext(1) || ext(2) || !ext(3)))
                    || !ext(n - 1);
                if invalid {
                    out!(self, "Invalid DLCI in PVC STATUS IE");
                    return Ok(true);
                }
                let mut dlci = (u32::from(b(0) & 0x3f) << 4) | (u32::from(b(1) & 0x78) >> 3);
                if n == 4 {
                    dlci = (dlci << 6) | (u32::from(b(2) & 0x7e) >> 1);
                } else if n == 5 {
                    dlci = (dlci << 13) | u32::from(b(2) & 0x7f) | (u32::from(b(3) & 0x7e) >> 1);
                }
                let last = b(n - 1);
                out!(
                    self,
                    "DLCI {dlci}: status {}{}",
                    if last & 0x8 != 0 { "New, " } else { "" },
                    if last & 0x2 != 0 {
                        "Active"
                    } else {
                        "Inactive"
                    }
                );
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}
