//! Cisco's VLAN Query Protocol (UDP port 1589), as tcpdump 4.99.3's
//! `vqp_print` prints it: the message type and error code, with `-v` the
//! sequence number and each object.

use super::{g1, g2, g4, gmac, gv4, host4_name, need, out, PResult, Printer};

fn msg_name(t: u8) -> String {
    match t {
        1 => "Request, Join Port".to_string(),
        2 => "Response, VLAN".to_string(),
        3 => "Request, Reconfirm".to_string(),
        4 => "Response, Reconfirm".to_string(),
        _ => format!("unknown ({t})"),
    }
}

fn error_name(e: u8) -> &'static str {
    match e {
        0 => "No error",
        3 => "Access denied",
        4 => "Shutdown port",
        5 => "Wrong VTP domain",
        _ => "unknown",
    }
}

fn obj_name(t: u32) -> &'static str {
    match t {
        0x0c01 => "Client IP Address",
        0x0c02 => "Port Name",
        0x0c03 => "VLAN Name",
        0x0c04 => "VTP Domain",
        0x0c05 => "Ethernet Packet",
        0x0c06 => "MAC Null",
        0x0c08 => "MAC Address",
        _ => "Unknown",
    }
}

impl Printer<'_> {
    /// `vqp_print`.
    pub(super) fn vqp(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "vqp";
        need(p, 0, 8)?;
        let invalid = |s: &mut Self| {
            s.out.push_str(" (invalid)");
            Ok(())
        };
        if len < 8 {
            return invalid(self);
        }
        let version = g1(p, 0)?;
        if version != 1 {
            out!(self, "VQP version {version} packet not supported");
            return Ok(());
        }
        let (t, e) = (g1(p, 1)?, g1(p, 2)?);
        if self.opts.verbose == 0 {
            out!(
                self,
                "VQPv{version} {} Message, error-code {} ({e}), length {len}",
                msg_name(t),
                error_name(e)
            );
            return Ok(());
        }
        let mut nitems = g1(p, 3)?;
        out!(
            self,
            "\n\tVQPv{version}, {} Message, error-code {} ({e}), seq 0x{:08x}, items {nitems}, length {len}",
            msg_name(t),
            error_name(e),
            g4(p, 4)?
        );
        let (mut at, mut tlen) = (8usize, len as usize - 8);
        while nitems != 0 && tlen != 0 {
            need(p, at, 6)?;
            if tlen < 6 {
                return invalid(self);
            }
            let ty = g4(p, at)?;
            let olen = usize::from(g2(p, at + 4)?);
            at += 6;
            tlen -= 6;
            out!(
                self,
                "\n\t  {} Object (0x{ty:08x}), length {olen}, value: ",
                obj_name(ty)
            );
            if ty == 0 || olen == 0 {
                return Ok(());
            }
            need(p, at, olen)?;
            if olen > tlen {
                return invalid(self);
            }
            match ty {
                0x0c01 if olen != 4 => return invalid(self),
                0x0c01 => {
                    let a = host4_name(self.opts.names, gv4(p, at)?);
                    out!(self, "{a} (0x{:08x})", g4(p, at)?);
                }
                0x0c02..=0x0c05 => self.jnp(p, at, olen)?,
                0x0c06 | 0x0c08 if olen != 6 => return invalid(self),
                0x0c06 | 0x0c08 => {
                    let m = self.ether_str(gmac(p, at)?);
                    self.out.push_str(&m);
                }
                _ if self.opts.verbose <= 1 => {
                    self.unknown_data(p, at, olen, "\n\t    ");
                }
                _ => {}
            }
            at += olen;
            tlen -= olen;
            nitems -= 1;
        }
        Ok(())
    }
}
