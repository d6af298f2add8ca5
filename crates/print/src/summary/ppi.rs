//! Per-Packet Information (DLT_PPI, tcpdump's `ppi_if_print`): a
//! little-endian header (version, flags, its own length with the TLVs after
//! it, the link type of the packet that follows), then that packet printed by
//! its link type's printer. `-e` prints `V.0 DLT IEEE802_11 (105) len 8,
//! length 68: ` first; a link type with no printer gets that header (`-q`:
//! the name alone) and a dump. MTP2 and MTP2_WITH_PHDR have no printer in
//! tcpdump 4.99.3: they print `UNSUPPORTED` and a dump, as every such type.

use super::{out, PResult, Printer, Trunc};
use crate::dump::ppi_header::{ppi_start, PpiHeader, PpiStart, PPI_HDRLEN, PPI_MAX_LEN};
use netsift_wire::LinkType;

impl Printer<'_> {
    /// `ppi_if_print`. A PPI packet inside a PPI packet is followed in a loop,
    /// not by recursion: each level takes at least 8 bytes, but a deep stack
    /// of them must not exhaust ours.
    pub(super) fn ppi_if(&mut self, mut data: &[u8], mut length: u32) -> PResult {
        loop {
            self.proto = "ppi";
            let h = match ppi_start(data) {
                PpiStart::Cut => return Err(Trunc),
                PpiStart::BadLen(len) => {
                    out!(
                        self,
                        " [length {len} < {PPI_HDRLEN} or > {PPI_MAX_LEN}] (invalid)"
                    );
                    return Ok(());
                }
                PpiStart::Header(h) => h,
            };
            if self.opts.link_header {
                self.ppi_hdr(&h, length);
            }
            let body = &data[h.len..];
            let rest = length.saturating_sub(h.len as u32);
            if h.dlt == LinkType::PPI.0 {
                (data, length) = (body, rest);
                continue;
            }
            return match self.link_layer(LinkType(h.dlt), body, rest) {
                Some(r) => r,
                None => {
                    if !self.opts.link_header {
                        self.ppi_hdr(&h, length);
                    }
                    self.default_print(body, true);
                    Ok(())
                }
            };
        }
    }

    /// `ppi_header_print`: `V.0 DLT NAME (105) len 8`, or with `-q` the name
    /// alone, then the packet's length.
    fn ppi_hdr(&mut self, h: &PpiHeader, length: u32) {
        if !self.opts.quiet {
            out!(self, "V.{} ", h.ver);
        }
        self.dlt_hdr(h.dlt, h.len, length);
    }
}
