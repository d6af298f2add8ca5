//! RIPng (UDP port 521), as tcpdump 4.99's `ripng_print`: requests (with
//! the whole-table dump), responses and each route `prefix/len [tag]
//! (metric)`, one per line with `-vv`. tcpdump takes port 521 for RIPng
//! over IPv4 too.

use super::{g1, g2, gv6, out, v6s, PResult, Printer};

/// The header (command, version, two reserved bytes) and one route entry
/// (prefix, tag, prefix length, metric).
const HEADER_LEN: u32 = 4;
const ENTRY_LEN: u32 = 20;

impl Printer<'_> {
    /// `ripng_print` of `length` bytes at `p`.
    pub(super) fn ripng(&mut self, p: &[u8], length: u32) -> PResult {
        self.proto = "ripng";
        let vers = g1(p, 1)?;
        if vers != 1 {
            out!(self, " [vers {vers}] (invalid)");
            return Ok(());
        }
        let cmd = g1(p, 0)?;
        let (word, metric) = match cmd {
            1 => ("req", false),
            2 => ("resp", true),
            _ => {
                out!(self, " ripng-{cmd} ?? {length} (invalid)");
                return Ok(());
            }
        };
        let Some(mut left) = length.checked_sub(HEADER_LEN) else {
            out!(self, " (invalid)");
            return Ok(());
        };
        let n = left / ENTRY_LEN;
        // A request for the whole table: one entry, ::/0 at infinity (16).
        if cmd == 1 && n == 1 && g1(p, 23)? == 16 && gv6(p, 4)?.is_unspecified() {
            out!(self, " ripng-req dump");
            return Ok(());
        }
        if n * ENTRY_LEN != left {
            out!(self, " ripng-{word} {n}[{length}]:");
        } else {
            out!(self, " ripng-{word} {n}:");
        }
        let mut at = HEADER_LEN as usize;
        while left >= ENTRY_LEN {
            out!(self, "{}", if self.opts.verbose > 1 { "\n\t" } else { " " });
            out!(self, "{}/{}", v6s(gv6(p, at)?), g1(p, at + 18)?);
            let tag = g2(p, at + 16)?;
            if tag != 0 {
                out!(self, " [{tag}]");
            }
            let m = g1(p, at + 19)?;
            if m != 0 && metric {
                out!(self, " ({m})");
            }
            at += ENTRY_LEN as usize;
            left -= ENTRY_LEN;
        }
        if left != 0 {
            out!(self, " (invalid)");
        }
        Ok(())
    }
}
