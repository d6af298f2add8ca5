//! OpenBSD's CARP, as tcpdump's `carp_print` prints it: IP protocol 112 is
//! read as CARP rather than VRRP only under `-T carp`.

use super::{g1, g2, g8, out, PResult, Printer};

impl Printer<'_> {
    /// `carp_print`: `len` bytes of IP payload, `ttl` the IP header's.
    pub(super) fn carp(&mut self, bp: &[u8], len: u32, ttl: u8) -> PResult {
        self.proto = "carp";
        let vt = g1(bp, 0)?;
        let (version, t) = (vt >> 4, vt & 0x0f);
        let name = if t == 1 { "advertise" } else { "unknown" };
        out!(self, "CARPv{version}-{name} {len}: ");
        if ttl != 255 {
            out!(self, "[ttl={ttl}!] ");
        }
        if version != 2 || t != 1 {
            return Ok(());
        }
        out!(
            self,
            "vhid={} advbase={} advskew={} authlen={} ",
            g1(bp, 1)?,
            g1(bp, 5)?,
            g1(bp, 2)?,
            g1(bp, 3)?
        );
        if self.opts.verbose > 0 {
            if let Some(msg) = bp.get(..len as usize) {
                if netsift_wire::checksum::internet(msg) != 0 {
                    out!(self, " (bad carp cksum {:x}!)", g2(bp, 6)?);
                }
            }
        }
        out!(self, "counter={}", g8(bp, 8)?);
        Ok(())
    }
}
