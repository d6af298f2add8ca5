//! MPLS LSP ping (UDP port 3503), as tcpdump 4.99's `lspping_print` prints
//! it without `-v`: version, message type, sequence number and length. The
//! TLVs `-v` decodes are not decoded yet.

use super::{g1, g2, g4, need, out, PResult, Printer};

impl Printer<'_> {
    /// `lspping_print` without `-v`: `len` bytes of UDP payload, `p`
    /// captured.
    pub(super) fn lspping(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "lspping";
        if len < 32 {
            out!(self, "\n\t\t packet is too short");
            return Ok(());
        }
        need(p, 0, 32)?;
        let version = g2(p, 0)?;
        if version != 1 {
            out!(self, "LSP-PING version {version} packet not supported");
            return Ok(());
        }
        let ty = g1(p, 4)?;
        let name = match ty {
            1 => "MPLS Echo Request".to_string(),
            2 => "MPLS Echo Reply".to_string(),
            _ => format!("unknown ({ty})"),
        };
        out!(
            self,
            "LSP-PINGv{version}, {name}, seq {}, length: {len}",
            g4(p, 12)?
        );
        Ok(())
    }
}
