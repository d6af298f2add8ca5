//! Novell IPX (EtherType 0x8137, LLC SAP 0xe0 and raw 802.3), as tcpdump
//! 4.99's `ipx_print` prints it: the addresses and sockets, SAP and RIP
//! messages, EIGRP over IPX, and the length for the other sockets. SAP
//! server types print by name without `-n` (`ipx_sap.rs`), else in hex.

use super::{g1, g2, g4, need, out, tail, PResult, Printer};

/// The IPX header's size.
const HDR: u32 = 30;

impl Printer<'_> {
    /// IPX after an LLC header (`802.2`) or in a raw 802.3 frame (`802.3`),
    /// which `-e` names.
    pub(super) fn ipx_llc(&mut self, p: &[u8], length: u32, kind: &str) -> PResult {
        if self.opts.link_header {
            out!(self, "IPX {kind}: ");
        }
        self.ipx(p, length)
    }

    /// `ipx_print`: `p` is the IPX header and what follows.
    pub(super) fn ipx(&mut self, p: &[u8], _length: u32) -> PResult {
        self.proto = "ipx";
        if !self.opts.link_header {
            out!(self, "IPX ");
        }
        let src = ipx_addr(p, 18)?;
        out!(self, "{src}.{:04x} > ", g2(p, 28)?);
        let dst = ipx_addr(p, 6)?;
        let dskt = g2(p, 16)?;
        out!(self, "{dst}.{dskt:04x}: ");
        let length = u32::from(g2(p, 2)?);
        if length < HDR {
            out!(self, "[length {length} < {HDR}] (invalid)");
            return Ok(());
        }
        let d = tail(p, HDR as usize);
        let len = length - HDR;
        match dskt {
            0x0451 => out!(self, "ipx-ncp {len}"),
            0x0452 => self.ipx_sap(d, len)?,
            0x0453 => self.ipx_rip(d, len)?,
            0x0455 => out!(self, "ipx-netbios {len}"),
            0x0456 => out!(self, "ipx-diags {len}"),
            0x0553 => out!(self, "ipx-nwlink-dgm {len}"),
            0x85be => self.eigrp(d, len)?,
            _ => out!(self, "ipx-#{dskt:x} {len}"),
        }
        Ok(())
    }

    /// `ipxsap_string`: the server type's name without `-n`, else its hex.
    fn sap_type(&self, v: u16) -> String {
        match self.opts.names.and(super::ipx_sap::sap_name(v)) {
            Some(n) => n.to_string(),
            None => format!("{v:04x}"),
        }
    }

    /// The command word SAP and RIP start with and the length after it;
    /// `None` (printed invalid) when the length has no room for it.
    fn ipx_command(&mut self, d: &[u8], len: u32) -> PResult<Option<(u16, u32)>> {
        let command = g2(d, 0)?;
        if len < 2 {
            out!(self, " (invalid)");
            return Ok(None);
        }
        Ok(Some((command, len - 2)))
    }

    /// `ipx_sap_print`: a request names a server type, a response lists up
    /// to 8 servers.
    fn ipx_sap(&mut self, d: &[u8], len: u32) -> PResult {
        let Some((command, mut len)) = self.ipx_command(d, len)? else {
            return Ok(());
        };
        let mut at = 2;
        match command {
            1 | 3 => {
                let name = if command == 1 {
                    "ipx-sap-req"
                } else {
                    "ipx-sap-nearest-req"
                };
                let t = self.sap_type(g2(d, at)?);
                out!(self, "{name} {t}");
            }
            2 | 4 => {
                out!(
                    self,
                    "{}",
                    if command == 2 {
                        "ipx-sap-resp"
                    } else {
                        "ipx-sap-nearest-resp"
                    }
                );
                let mut i = 0;
                while i < 8 && len != 0 {
                    need(d, at, 2)?;
                    if len < 2 {
                        out!(self, " (invalid)");
                        return Ok(());
                    }
                    let t = self.sap_type(g2(d, at)?);
                    out!(self, " {t} '");
                    at += 2;
                    len -= 2;
                    if len < 48 {
                        out!(self, "' (invalid)");
                        return Ok(());
                    }
                    self.jnp(d, at, 48)?;
                    out!(self, "'");
                    at += 48;
                    len -= 48;
                    need(d, at, 10)?;
                    if len < 10 {
                        out!(self, " (invalid)");
                        return Ok(());
                    }
                    out!(self, " addr {}", ipx_addr(d, at)?);
                    at += 10;
                    len -= 10;
                    need(d, at, 4)?;
                    if len < 4 {
                        out!(self, " (invalid)");
                        return Ok(());
                    }
                    at += 4;
                    len -= 4;
                    i += 1;
                }
            }
            _ => out!(self, "ipx-sap-?{command:x}"),
        }
        Ok(())
    }

    /// `ipx_rip_print`: `net/hops.ticks` per route, up to 50.
    fn ipx_rip(&mut self, d: &[u8], len: u32) -> PResult {
        let Some((command, mut len)) = self.ipx_command(d, len)? else {
            return Ok(());
        };
        let mut at = 2;
        let (name, max) = match command {
            1 => ("ipx-rip-req", 1),
            2 => ("ipx-rip-resp", 50),
            _ => {
                out!(self, "ipx-rip-?{command:x}");
                return Ok(());
            }
        };
        out!(self, "{name}");
        let mut i = 0;
        while i < max && len != 0 {
            if len < 8 {
                out!(self, " (invalid)");
                return Ok(());
            }
            out!(
                self,
                " {:08x}/{}.{}",
                g4(d, at)?,
                g2(d, at + 4)?,
                g2(d, at + 6)?
            );
            at += 8;
            len -= 8;
            i += 1;
        }
        Ok(())
    }
}

/// `ipxaddr_string`: `net.node` of the 10 bytes at `at`.
fn ipx_addr(p: &[u8], at: usize) -> PResult<String> {
    let net = g4(p, at)?;
    let mut s = format!("{net:08x}.");
    for i in 0..6 {
        if i > 0 {
            s.push(':');
        }
        s.push_str(&format!("{:02x}", g1(p, at + 4 + i)?));
    }
    Ok(s)
}
