//! Linux NFLOG (tcpdump's `nflog_if_print`): a 4-byte header (family,
//! version, resource ID), then TLVs until the payload TLV, whose data is an
//! IPv4 or IPv6 packet. TLV lengths are in host byte order (little-endian
//! here, as on the machines tcpdump's test captures come from).

use super::{g1, g2, out, PResult, Printer, Trunc};

const NFLOG_HDR_LEN: usize = 4;
const NFLOG_TLV_LEN: usize = 4;
const NFULA_PAYLOAD: u16 = 9;
const AF_INET: u8 = 2;
const AF_INET6: u8 = 10;

fn family_name(f: u8) -> Option<&'static str> {
    match f {
        AF_INET => Some("IPv4"),
        AF_INET6 => Some("IPv6"),
        _ => None,
    }
}

impl Printer<'_> {
    /// `nflog_hdr_print`.
    fn nflog_hdr(&mut self, h: &[u8], length: u32) -> PResult {
        let (family, version, rid) = (g1(h, 0)?, g1(h, 1)?, g2(h, 2)?);
        out!(self, "version {version}, resource ID {rid}");
        match (self.opts.quiet, family_name(family)) {
            (false, name) => out!(self, ", family {} ({family})", name.unwrap_or("Unknown")),
            (true, Some(name)) => out!(self, ", {name}"),
            (true, None) => out!(self, ", Unknown NFLOG (0x{family:02x})"),
        }
        out!(self, ", length {length}: ");
        Ok(())
    }

    /// `nflog_if_print`.
    pub(super) fn nflog_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "nflog";
        if data.len() < NFLOG_HDR_LEN {
            return Err(Trunc);
        }
        let version = data[1];
        if version != 0 {
            out!(self, "version {version} (unknown)");
            return Ok(());
        }
        if self.opts.link_header {
            self.nflog_hdr(data, length)?;
        }
        let mut at = NFLOG_HDR_LEN;
        let mut left = length as usize - NFLOG_HDR_LEN;
        while left > 0 {
            let cap = data.len() - at;
            if cap < NFLOG_TLV_LEN {
                return Err(Trunc);
            }
            let size = usize::from(u16::from_le_bytes([data[at], data[at + 1]]));
            let size = size.div_ceil(4) * 4;
            if size < NFLOG_TLV_LEN || cap < size {
                return Err(Trunc);
            }
            if u16::from_le_bytes([data[at + 2], data[at + 3]]) == NFULA_PAYLOAD {
                at += NFLOG_TLV_LEN;
                left -= NFLOG_TLV_LEN;
                break;
            }
            at += size;
            left = left.saturating_sub(size);
        }
        let body = &data[at..];
        match data[0] {
            AF_INET => self.ipv4(body, left as u32),
            AF_INET6 => self.ipv6(body, left as u32),
            _ => {
                if !self.opts.link_header {
                    self.nflog_hdr(data, (left + NFLOG_HDR_LEN) as u32)?;
                }
                self.default_print(body, true);
            }
        }
        Ok(())
    }
}
