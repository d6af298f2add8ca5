//! Kerberos (UDP ports 88 and 750), as tcpdump 4.99's `krb_print` prints it:
//! the protocol version, and for version 4 the message type, byte order and
//! principal names. Version 5's ASN.1 is not decoded, by tcpdump either.

use super::{g1, out, print_char, PResult, Printer, Trunc};

impl Printer<'_> {
    /// `krb_print`: the payload `p` as captured.
    pub(super) fn krb(&mut self, p: &[u8]) -> PResult {
        self.proto = "krb";
        let Some(&pvno) = p.first() else {
            return Err(Trunc);
        };
        match pvno {
            1..=3 => out!(self, " v{pvno}"),
            4 => {
                out!(self, " v{pvno}");
                match self.krb4(p) {
                    // c_print ran off the capture: krb4_print's `goto trunc`.
                    Err(_) if self.caught_trunc => self.trunc(),
                    r => r?,
                }
            }
            106 | 107 => out!(self, " v5"),
            _ => {}
        }
        Ok(())
    }

    /// `krb4_print`.
    fn krb4(&mut self, p: &[u8]) -> PResult {
        let t = g1(p, 1)?;
        let le = t & 1 != 0;
        let ty = t & 0xfe;
        let name = match ty {
            2 => "KDC_REQUEST".to_string(),
            4 => "KDC_REPLY".to_string(),
            6 => "APPL_REQUEST".to_string(),
            8 => "APPL_REQUEST_MUTUAL".to_string(),
            10 => "ERR_REPLY".to_string(),
            12 => "PRIVATE".to_string(),
            14 => "SAFE".to_string(),
            16 => "APPL_ERR".to_string(),
            126 => "DIE".to_string(),
            _ => format!("#{ty}"),
        };
        out!(self, " {} {name}: ", if le { "le" } else { "be" });
        let short = |at: usize| -> PResult<u16> {
            let (a, b) = (g1(p, at)?, g1(p, at + 1)?);
            Ok(if le {
                u16::from_le_bytes([a, b])
            } else {
                u16::from_be_bytes([a, b])
            })
        };
        match ty {
            2 => {
                let mut at = self.krb4_hdr(p)?;
                at += 4;
                out!(self, " {}min ", u32::from(g1(p, at)?) * 5);
                at = self.krb_str(p, at + 1)?;
                out!(self, ".");
                self.krb_str(p, at)?;
            }
            6 => {
                out!(self, "v{} ", g1(p, 2)?);
                let at = self.krb_str(p, 3)?;
                out!(self, " ({})", g1(p, at)?);
                out!(self, " ({})", g1(p, at + 1)?);
            }
            4 => {
                let at = self.krb4_hdr(p)? + 10;
                out!(self, " ({})", short(at)?);
            }
            10 => {
                let at = self.krb4_hdr(p)? + 4;
                let code = short(at)?;
                let e = [
                    "OK",
                    "NAME_EXP",
                    "SERVICE_EXP",
                    "AUTH_EXP",
                    "PKT_VER",
                    "NAME_MAST_KEY_VER",
                    "SERV_MAST_KEY_VER",
                    "BYTE_ORDER",
                    "PRINCIPAL_UNKNOWN",
                    "PRINCIPAL_NOT_UNIQUE",
                    "NULL_KEY",
                ];
                match e.get(code as usize) {
                    Some(n) => out!(self, " {n} "),
                    None => out!(self, " #{code} "),
                }
                self.krb_str(p, at + 4)?;
            }
            _ => out!(self, "(unknown)"),
        }
        Ok(())
    }

    /// `krb4_print_hdr`: `name.instance@realm`; where the message goes on.
    fn krb4_hdr(&mut self, p: &[u8]) -> PResult<usize> {
        let mut at = self.krb_str(p, 2)?;
        out!(self, ".");
        at = self.krb_str(p, at)?;
        out!(self, "@");
        self.krb_str(p, at)
    }

    /// `c_print`: a NUL-terminated string from `at`; where it ended. The
    /// capture ending first is truncation.
    fn krb_str(&mut self, p: &[u8], mut at: usize) -> PResult<usize> {
        loop {
            let Some(&c) = p.get(at) else {
                return Err(self.caught());
            };
            at += 1;
            if c == 0 {
                return Ok(at);
            }
            print_char(&mut self.out, c);
        }
    }
}
