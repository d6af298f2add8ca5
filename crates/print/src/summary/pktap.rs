//! Apple's PKTAP (tcpdump's `pktap_if_print`): a little-endian header giving
//! its own length, a record type and the link type of the packet after it,
//! which is printed by that link type's printer. `-e` prints `DLT EN10MB (1)
//! len 108, length 150: ` first.

use super::{out, PResult, Printer, Trunc};
use netsift_wire::LinkType;

/// `sizeof(pktap_header_t)`.
const PKTAP_HDR_LEN: usize = 108;
const PKT_REC_NONE: u32 = 0;
const PKT_REC_PACKET: u32 = 1;

fn le32(p: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([p[at], p[at + 1], p[at + 2], p[at + 3]])
}

impl Printer<'_> {
    /// `pktap_header_print` (and `ppi_header_print` after its version):
    /// `DLT EN10MB (1) len 108`, or with `-q` the link type's name alone,
    /// then the packet's length.
    pub(super) fn dlt_hdr(&mut self, dlt: u32, hdrlen: usize, length: u32) {
        let name = LinkType(dlt).name();
        if self.opts.quiet {
            out!(self, "{}", name.unwrap_or("UNKNOWN"));
        } else {
            out!(
                self,
                "DLT {} ({dlt}) len {hdrlen}",
                name.unwrap_or("UNKNOWN")
            );
        }
        out!(self, ", length {length}: ");
    }

    /// A packet of a link type with no printer: the header and a dump.
    fn pktap_raw(&mut self, dlt: u32, hdrlen: u32, length: u32, body: &[u8]) {
        if !self.opts.link_header {
            self.dlt_hdr(dlt, hdrlen as usize, length);
        }
        self.default_print(body, true);
    }

    /// `pktap_if_print`.
    pub(super) fn pktap_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "pktap";
        if (length as usize) < PKTAP_HDR_LEN {
            out!(
                self,
                " (packet too short, {length} < {PKTAP_HDR_LEN}) (invalid)"
            );
            return Ok(());
        }
        if data.len() < 12 {
            return Err(Trunc);
        }
        let hdrlen = le32(data, 0);
        let dlt = le32(data, 8);
        if (hdrlen as usize) < PKTAP_HDR_LEN {
            out!(
                self,
                " (pkt_len too small, {hdrlen} < {PKTAP_HDR_LEN}) (invalid)"
            );
            return Ok(());
        }
        if hdrlen > length {
            out!(self, " (pkt_len too big, {hdrlen} > {length}) (invalid)");
            return Ok(());
        }
        if data.len() < hdrlen as usize {
            return Err(Trunc);
        }
        if self.opts.link_header {
            self.dlt_hdr(dlt, hdrlen as usize, length);
        }
        let body = &data[hdrlen as usize..];
        let rest = length - hdrlen;
        match le32(data, 4) {
            PKT_REC_NONE => self.out.push_str("no data"),
            // A PKTAP inside a PKTAP would nest without bound: not followed.
            PKT_REC_PACKET if !matches!(dlt, 149 | 258) => {
                match self.link_layer(LinkType(dlt), body, rest) {
                    Some(r) => r?,
                    None => self.pktap_raw(dlt, hdrlen, length, body),
                }
            }
            PKT_REC_PACKET => self.pktap_raw(dlt, hdrlen, length, body),
            _ => {}
        }
        Ok(())
    }
}
