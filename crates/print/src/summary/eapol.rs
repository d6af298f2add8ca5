//! 802.1X EAP over LAN (EtherType 0x888e), as tcpdump 4.99's `eapol_print`
//! prints it: the frame type, version and length, and with `-v` the EAP
//! packet (`eap_print`: code, id, type and what tcpdump decodes of it).

use super::{bit_names, g1, g2, g4, need, out, PResult, Printer, Trunc};

fn eap_type_name(t: u8) -> &'static str {
    match t {
        0 => "No proposed",
        1 => "Identity",
        2 => "Notification",
        3 => "Nak",
        4 => "MD5-challenge",
        5 => "OTP",
        6 => "GTC",
        13 => "TLS",
        18 => "SIM",
        21 => "TTLS",
        23 => "AKA",
        43 => "FAST",
        254 => "Expanded types",
        255 => "Experimental",
        _ => "unknown",
    }
}

/// `eap_tls_flags_values`.
const TLS_FLAGS: [(u32, &str); 3] = [
    (1 << 7, "L bit"),
    (1 << 6, "More fragments bit"),
    (1 << 5, "Start bit"),
];

impl Printer<'_> {
    /// `eapol_print`: `p` captured from the EAPOL header on.
    pub(super) fn eapol(&mut self, p: &[u8]) -> PResult {
        self.proto = "eap";
        need(p, 0, 4)?;
        let (version, kind, len) = (g1(p, 0)?, g1(p, 1)?, g2(p, 2)?);
        let name = match kind {
            0 => "EAP packet",
            1 => "EAPOL start",
            2 => "EAPOL logoff",
            3 => "EAPOL key",
            4 => "Encapsulated ASF alert",
            _ => "unknown",
        };
        out!(self, "{name} ({kind}) v{version}, len {len}");
        if self.opts.verbose < 1 || kind != 0 {
            return Ok(());
        }
        if len == 0 {
            return Err(Trunc);
        }
        out!(self, ", ");
        self.eap_packet(super::tail(p, 4), len as usize)
    }

    /// `eap_print`: an EAP packet of `length` bytes (as its carrier says).
    pub(crate) fn eap_packet(&mut self, p: &[u8], length: usize) -> PResult {
        let code = g1(p, 0)?;
        let len = g2(p, 2)? as usize;
        if len != length {
            out!(self, "EAP fragment?");
            return Ok(());
        }
        let cname = match code {
            1 => "Request",
            2 => "Response",
            3 => "Success",
            4 => "Failure",
            _ => "unknown",
        };
        out!(self, "{cname} ({code}), id {}, len {len}", g1(p, 1)?);
        if len < 4 {
            out!(self, " (too short for EAP header)");
            return Ok(());
        }
        need(p, 0, len)?;
        if code != 1 && code != 2 {
            return Ok(());
        }
        if len < 5 {
            out!(self, " (too short for EAP request/response)");
            return Ok(());
        }
        let sub = p[4];
        out!(self, "\n\t\t Type {} ({sub})", eap_type_name(sub));
        let short = |p: &mut Self, what: &str| out!(p, " (too short for EAP {what})");
        match sub {
            // The identity is optional (RFC 3748).
            1 if len > 5 => {
                out!(self, ", Identity: ");
                self.jnp(p, 5, len - 5)?;
            }
            2 => {
                if len < 6 {
                    short(self, "Notification request/response");
                    return Ok(());
                }
                out!(self, ", Notification: ");
                self.jnp(p, 5, len - 5)?;
            }
            3 => {
                if len < 6 {
                    short(self, "Legacy NAK request/response");
                    return Ok(());
                }
                let mut sep = "";
                for &t in &p[5..len] {
                    out!(self, "{sep} {} ({t})", eap_type_name(t));
                    sep = ",";
                }
            }
            13 | 21 | 43 => {
                let what = if sub == 43 { "FAST" } else { "TLS/TTLS" };
                if len < 6 {
                    short(self, &format!("{what} request/response"));
                    return Ok(());
                }
                let f = p[5];
                if sub == 21 {
                    out!(self, " TTLSv{}", f & 7);
                } else if sub == 43 {
                    out!(self, " FASTv{}", f & 7);
                }
                out!(
                    self,
                    " flags [{}] 0x{f:02x}",
                    bit_names(f as u32, &TLS_FLAGS)
                );
                if f & 0x80 != 0 {
                    if len < 10 {
                        short(self, &format!("{what} request/response with length"));
                        return Ok(());
                    }
                    out!(self, ", len {}", g4(p, 6)?);
                }
            }
            18 | 23 => {
                if len < 6 {
                    short(self, "SIM/AKA request/response");
                    return Ok(());
                }
                let s = p[5];
                let sname = match s {
                    1 | 11 => "Challenge",
                    2 => "Auth reject",
                    4 => "Sync failure",
                    5 => "Identity",
                    10 => "Start",
                    12 => "Notification",
                    13 => "Reauth",
                    14 => "Client error",
                    _ => "unknown",
                };
                out!(self, " subtype [{sname}] 0x{s:02x}");
            }
            _ => {}
        }
        Ok(())
    }
}
