//! Cisco's VLAN query protocol (UDP port 1589), as tcpdump 4.99's
//! `vqp_print` prints it: the message type and error code, with `-v` the
//! sequence and every object.

use super::{g1, g4, gmac, gv4, need, out, PResult, Printer};

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

fn object_name(t: u32) -> &'static str {
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
    /// `vqp_print`: `len` bytes of UDP payload, `p` captured.
    pub(super) fn vqp(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "vqp";
        need(p, 0, 8)?;
        let mut tlen = len as usize;
        if tlen < 8 {
            return self.vqp_invalid();
        }
        let version = g1(p, 0)?;
        if version != 1 {
            out!(self, "VQP version {version} packet not supported");
            return Ok(());
        }
        let (t, e) = (g1(p, 1)?, g1(p, 2)?);
        if self.opts.verbose < 1 {
            let (m, en) = (msg_name(t), error_name(e));
            out!(
                self,
                "VQPv{version} {m} Message, error-code {en} ({e}), length {len}"
            );
            return Ok(());
        }
        let mut items = g1(p, 3)?;
        out!(
            self,
            "\n\tVQPv{version}, {} Message, error-code {} ({e}), seq 0x{:08x}, items {items}, length {len}",
            msg_name(t),
            error_name(e),
            g4(p, 4)?
        );
        let mut at = 8;
        tlen -= 8;
        while items != 0 && tlen != 0 {
            need(p, at, 6)?;
            if tlen < 6 {
                return self.vqp_invalid();
            }
            let ot = g4(p, at)?;
            let ol = super::g2(p, at + 4)? as usize;
            at += 6;
            tlen -= 6;
            out!(
                self,
                "\n\t  {} Object (0x{ot:08x}), length {ol}, value: ",
                object_name(ot)
            );
            if ot == 0 || ol == 0 {
                return Ok(());
            }
            need(p, at, ol)?;
            if ol > tlen {
                return self.vqp_invalid();
            }
            match ot {
                0x0c01 if ol != 4 => return self.vqp_invalid(),
                0x0c01 => {
                    let a = gv4(p, at)?;
                    let s = self.host4(a);
                    out!(self, "{s} (0x{:08x})", u32::from(a));
                }
                0x0c02..=0x0c05 => self.jnp(p, at, ol)?,
                0x0c06 | 0x0c08 if ol != 6 => return self.vqp_invalid(),
                0x0c06 | 0x0c08 => {
                    let m = self.ether_str(gmac(p, at)?);
                    out!(self, "{m}");
                }
                _ => {
                    if self.opts.verbose <= 1 {
                        self.unknown_data(p, at, ol, "\n\t    ");
                    }
                }
            }
            at += ol;
            tlen -= ol;
            items -= 1;
        }
        Ok(())
    }

    fn vqp_invalid(&mut self) -> PResult {
        out!(self, " (invalid)");
        Ok(())
    }
}
