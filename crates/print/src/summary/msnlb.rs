//! Microsoft's network load balancing heartbeat (EtherType 0x886f), as
//! tcpdump 4.99's `msnlb_print` prints it: the undocumented protocol's host
//! priority and addresses.

use super::{gv4, out, PResult, Printer};

impl Printer<'_> {
    /// `msnlb_print`.
    pub(super) fn msnlb(&mut self, p: &[u8]) -> PResult {
        self.proto = "msnlb";
        out!(self, "MS NLB heartbeat");
        // Eight unknown bytes, then the priority, little-endian.
        let prio = p.get(8..12).ok_or(super::Trunc)?;
        let prio = u32::from_le_bytes([prio[0], prio[1], prio[2], prio[3]]);
        out!(self, ", host priority: {prio}");
        let c = self.host4(gv4(p, 12)?);
        out!(self, ", cluster IP: {c}");
        let h = self.host4(gv4(p, 16)?);
        out!(self, ", host IP: {h}");
        Ok(())
    }
}
