//! EAP messages inside RADIUS attributes, as tcpdump's `eap_print` prints
//! them: code, id and length, and a request's or response's type with its
//! identity, notification, NAK list or TLS/FAST/SIM/AKA flags.

use super::ospf2::put;
use super::{bit_names, g1, g2, g4, need, PResult, Printer};

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

impl Printer<'_> {
    /// `eap_print` of an EAP-Message attribute's `len` bytes.
    pub(super) fn eap(&mut self, d: &[u8], len: usize) -> PResult {
        let code = g1(d, 0)?;
        let elen = g2(d, 2)? as usize;
        if elen != len {
            put!(self, "EAP fragment?");
            return Ok(());
        }
        let cname = match code {
            1 => "Request",
            2 => "Response",
            3 => "Success",
            4 => "Failure",
            _ => "unknown",
        };
        put!(self, "{cname} ({code}), id {}, len {elen}", g1(d, 1)?);
        if elen < 4 {
            put!(self, " (too short for EAP header)");
            return Ok(());
        }
        if need(d, 0, elen).is_err() {
            self.trunc();
            return Ok(());
        }
        if code != 1 && code != 2 {
            return Ok(());
        }
        if elen < 5 {
            put!(self, " (too short for EAP request/response)");
            return Ok(());
        }
        let st = d[4];
        put!(self, "\n\t\t Type {} ({st})", eap_type_name(st));
        match st {
            1 if elen > 5 => {
                put!(self, ", Identity: ");
                self.jnp(d, 5, elen - 5)?;
            }
            2 => {
                if elen < 6 {
                    put!(self, " (too short for EAP Notification request/response)");
                    return Ok(());
                }
                put!(self, ", Notification: ");
                self.jnp(d, 5, elen - 5)?;
            }
            3 => {
                if elen < 6 {
                    put!(self, " (too short for EAP Legacy NAK request/response)");
                    return Ok(());
                }
                let mut sep = "";
                for &c in &d[5..elen] {
                    put!(self, "{sep} {} ({c})", eap_type_name(c));
                    sep = ",";
                }
            }
            13 | 21 | 43 => {
                let what = if st == 43 { "FAST" } else { "TLS/TTLS" };
                if elen < 6 {
                    put!(self, " (too short for EAP {what} request/response)");
                    return Ok(());
                }
                let f = d[5];
                match st {
                    21 => put!(self, " TTLSv{}", f & 7),
                    43 => put!(self, " FASTv{}", f & 7),
                    _ => {}
                }
                let names = [
                    (0x80, "L bit"),
                    (0x40, "More fragments bit"),
                    (0x20, "Start bit"),
                ];
                put!(self, " flags [{}] 0x{f:02x}", bit_names(f as u32, &names));
                if f & 0x80 != 0 {
                    if elen < 10 {
                        put!(
                            self,
                            " (too short for EAP {what} request/response with length)"
                        );
                        return Ok(());
                    }
                    put!(self, ", len {}", g4(d, 6)?);
                }
            }
            18 | 23 => {
                if elen < 6 {
                    put!(self, " (too short for EAP SIM/AKA request/response)");
                    return Ok(());
                }
                let s = d[5];
                let sn = match s {
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
                put!(self, " subtype [{sn}] 0x{s:02x}");
            }
            _ => {}
        }
        Ok(())
    }
}
