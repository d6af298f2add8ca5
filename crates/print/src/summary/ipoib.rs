//! IP over InfiniBand (tcpdump's `ipoib_if_print`): a 44-byte header whose
//! last 4 bytes hold an EtherType, then the packet it names. `-e` prints
//! `IPOIB, ethertype IPv4 (0x0800), length 128: `.

use super::{g2, out, tail, PResult, Printer, Trunc};

const IPOIB_HDRLEN: usize = 44;

impl Printer<'_> {
    /// `ipoib_print`.
    pub(super) fn ipoib_if(&mut self, data: &[u8], length: u32) -> PResult {
        self.proto = "ipoib";
        if data.len() < IPOIB_HDRLEN || (length as usize) < IPOIB_HDRLEN {
            return Err(Trunc);
        }
        let et = g2(data, 40)?;
        let hdr = |p: &mut Self| {
            let name = netsift_wire::ethernet::EtherType(et)
                .name()
                .unwrap_or("Unknown");
            if p.opts.quiet {
                out!(p, ", ethertype {name}");
            } else {
                out!(p, ", ethertype {name} (0x{et:04x})");
            }
            out!(p, ", length {length}: ");
        };
        if self.opts.link_header {
            self.out.push_str("IPOIB");
            hdr(self);
        }
        let body = tail(data, IPOIB_HDRLEN);
        let rest = length - IPOIB_HDRLEN as u32;
        if !self.ethertype(et, body, rest, None)? {
            if !self.opts.link_header {
                hdr(self);
            }
            self.default_print(body, true);
        }
        Ok(())
    }
}
