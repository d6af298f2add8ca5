//! Cisco's IGRP (IP protocol 9), as tcpdump 4.99's `igrp_print`: the
//! opcode, version, edition, AS and the three route counts, then each
//! route (interior `*.a.b.c`, system `a.b.c.0`, exterior `Xa.b.c.0`) with
//! its metric.

use super::{g1, g2, g3, out, PResult, Printer};

/// The header: version and opcode, edition, AS, the three counts, checksum.
const HEADER_LEN: u32 = 12;
/// One route entry.
const RTE_LEN: u32 = 14;

impl Printer<'_> {
    /// `igrp_print` of `length` bytes at `bp`.
    pub(super) fn igrp(&mut self, bp: &[u8], length: u32) -> PResult {
        self.proto = "igrp";
        out!(self, "igrp:");
        let (mut nint, mut nsys, mut next) = (g2(bp, 4)?, g2(bp, 6)?, g2(bp, 8)?);
        let vop = g1(bp, 0)?;
        match vop & 0x0f {
            1 => out!(self, " update"),
            2 => out!(self, " request"),
            op => out!(self, " op-#{op}"),
        }
        out!(
            self,
            " V{} edit={} AS={} ({nint}/{nsys}/{next})",
            vop >> 4,
            g1(bp, 1)?,
            g2(bp, 2)?
        );
        let sum = g2(bp, 10)?;
        if self.opts.verbose > 0 {
            out!(self, " checksum=0x{sum:04x}");
        }
        // tcpdump's `u_int` arithmetic: a length below the header wraps, and
        // the loop then runs until a read fails.
        let mut length = length.wrapping_sub(HEADER_LEN);
        let mut at = HEADER_LEN as usize;
        while length >= RTE_LEN {
            let net = [g1(bp, at)?, g1(bp, at + 1)?, g1(bp, at + 2)?];
            let [a, b, c] = net;
            if nint > 0 {
                out!(self, " *.{a}.{b}.{c}");
                nint -= 1;
            } else if nsys > 0 {
                out!(self, " {a}.{b}.{c}.0");
                nsys -= 1;
            } else if next > 0 {
                out!(self, " X{a}.{b}.{c}.0");
                next -= 1;
            } else {
                out!(self, " [extra bytes {length}]");
                break;
            }
            self.igrp_entry(bp, at)?;
            at += RTE_LEN as usize;
            length -= RTE_LEN;
        }
        if nint != 0 || nsys != 0 || next != 0 || length != 0 {
            out!(self, " (invalid)");
        }
        Ok(())
    }

    /// `igrp_entry_print`: delay, bandwidth, reliability, load, composite
    /// metric, MTU and hop count of the route at `at`.
    fn igrp_entry(&mut self, bp: &[u8], at: usize) -> PResult {
        let delay = g3(bp, at + 3)?;
        let bw = g3(bp, at + 6)?;
        let metric = (bw + delay).min(0xff_ffff);
        let mtu = g2(bp, at + 9)?;
        out!(
            self,
            " d={} b={} r={} l={} M={metric} mtu={mtu} in {} hops",
            10 * delay,
            10_000_000u32.checked_div(bw).unwrap_or(0),
            g1(bp, at + 11)?,
            g1(bp, at + 12)?,
            g1(bp, at + 13)?
        );
        Ok(())
    }
}
