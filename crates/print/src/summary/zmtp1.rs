//! ZMTP/1.0, ZeroMQ's message transport, as tcpdump's print-zeromq.c
//! prints it: over TCP with `-T zmtp1`, and in the data of PGM's ODATA and
//! RDATA packets with `-T pgm_zmtp1`.

use super::{g1, g2, g8, out, tail, PResult, Printer, Trunc};

/// The most body bytes dumped under a single `-v`.
const VBYTES: u64 = 128;

impl Printer<'_> {
    /// `zmtp1_print`: the frames of `len` bytes of TCP payload.
    pub(super) fn zmtp1(&mut self, cp: &[u8], len: u32) -> PResult {
        self.proto = "zmtp1";
        out!(self, ": ZMTP/1.0");
        self.zmtp1_frames(cp, 0, len as usize)
    }

    /// `zmtp1_datagram_print`: a PGM datagram's frame offset, the end of
    /// the message it continues, then its frames; `len` is PGM's TSDU length.
    pub(super) fn zmtp1_datagram(&mut self, cp: &[u8], len: u32) -> PResult {
        self.proto = "zmtp1";
        let frame_offset = u32::from(g2(cp, 0)?);
        out!(self, "\n\t frame offset 0x{frame_offset:04x}");
        let remaining = cp.len().saturating_sub(2) as u64;
        let frame_offset = if frame_offset == 0xffff {
            // tcpdump's unsigned arithmetic, wrapping below 2.
            len.wrapping_sub(2)
        } else if 2 + frame_offset > len {
            out!(self, " (exceeds datagram declared length)");
            return Err(Trunc);
        } else {
            frame_offset
        };
        if frame_offset != 0 {
            let fo = u64::from(frame_offset);
            out!(self, "\n\t frame intermediate part, {frame_offset} bytes");
            if fo > remaining {
                out!(self, " ({remaining} captured)");
            }
            if self.opts.verbose > 0 {
                let mut n = fo.min(remaining);
                if self.opts.verbose == 1 {
                    n = n.min(VBYTES);
                }
                if n > 1 {
                    out!(self, ", first {n} byte(s):");
                    self.zmtp1_dump(tail(cp, 2), n)?;
                }
            }
        }
        self.zmtp1_frames(cp, 2 + frame_offset as usize, len as usize)
    }

    /// The frames from `at` up to `len` bytes of `cp` or its capture's end.
    fn zmtp1_frames(&mut self, cp: &[u8], mut at: usize, len: usize) -> PResult {
        let ep = cp.len().min(len);
        while at < ep {
            at = self.zmtp1_frame(cp, at, ep)?;
        }
        Ok(())
    }

    /// `zmtp1_print_frame`: the frame at `at`; where the next one starts.
    fn zmtp1_frame(&mut self, cp: &[u8], at: usize, ep: usize) -> PResult<usize> {
        out!(self, "\n\t");
        let (header_len, declared) = if g1(cp, at)? != 0xff {
            let l = u64::from(g1(cp, at)?);
            out!(self, " frame flags+body  (8-bit) length {l}");
            (1usize, l)
        } else {
            out!(self, " frame flags+body (64-bit) length");
            let l = g8(cp, at + 1)?;
            out!(self, " {l}");
            (9, l)
        };
        if declared == 0 {
            return Ok(at + header_len);
        }
        let flags = g1(cp, at + header_len)?;
        // tcpdump's unsigned difference, which wraps when the header passes
        // the datagram's declared end.
        let captured = (ep as u64).wrapping_sub((at + header_len) as u64);
        if declared > captured {
            out!(self, " ({captured} captured)");
        }
        out!(self, ", flags 0x{flags:02x}");
        if self.opts.verbose > 0 {
            let mut printed = captured.min(declared);
            out!(self, " (");
            for bit in (1..8).rev() {
                out!(
                    self,
                    "{}|",
                    if flags & (1 << bit) != 0 { "MBZ" } else { "-" }
                );
            }
            out!(self, "{})", if flags & 1 != 0 { "MORE" } else { "-" });
            if self.opts.verbose == 1 {
                printed = printed.min(VBYTES + 1);
            }
            if printed > 1 {
                out!(self, ", first {} byte(s) of body:", printed - 1);
                self.zmtp1_dump(tail(cp, at + header_len + 1), printed - 1)?;
            }
        }
        let body = at + header_len;
        // The whole declared body must be captured before the next frame.
        match usize::try_from(declared)
            .ok()
            .and_then(|d| body.checked_add(d))
        {
            Some(next) if next <= cp.len() => Ok(next),
            _ => Err(Trunc),
        }
    }

    /// `hex_and_ascii_print` of `n` bytes of `p`: what is captured, then the
    /// marker when that is less.
    fn zmtp1_dump(&mut self, p: &[u8], n: u64) -> PResult {
        let have = (p.len() as u64).min(n) as usize;
        crate::dump::hex_and_ascii_ident(&mut self.out, "\n\t ", &p[..have]);
        if (have as u64) < n {
            return Err(Trunc);
        }
        Ok(())
    }
}
