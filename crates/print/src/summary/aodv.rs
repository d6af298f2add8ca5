//! AODV (UDP port 654), as tcpdump 4.99's `aodv_print` prints it: route
//! requests, replies and errors over IPv4 and IPv6 (RFC 3561 and the IPv6
//! draft's own message types), and the hello extension.

use super::{g1, g4, gv4, gv6, need, out, PResult, Printer};

/// How a message lays out its addresses: IPv4, IPv6 as RFC 3561 with
/// longer addresses, or the IPv6 draft (sequence numbers first).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    V4,
    V6,
    Draft,
}

impl Form {
    fn addr_len(self) -> usize {
        if self == Form::V4 {
            4
        } else {
            16
        }
    }
}

impl Printer<'_> {
    /// `aodv_print`: `len` bytes of UDP payload, `p` captured.
    pub(super) fn aodv(&mut self, p: &[u8], len: u32, v6: bool) -> PResult {
        self.proto = "aodv";
        let t = g1(p, 0)?;
        out!(self, " aodv");
        let form = if v6 { Form::V6 } else { Form::V4 };
        match t {
            1 => self.aodv_rreq(p, len, form),
            2 => self.aodv_rrep(p, len, form),
            3 => self.aodv_rerr(p, len, form.addr_len()),
            16 => self.aodv_rreq(p, len, Form::Draft),
            17 => self.aodv_rrep(p, len, Form::Draft),
            18 => self.aodv_rerr(p, len, 16),
            4 | 19 => {
                out!(self, " rrep-ack {len}");
                Ok(())
            }
            _ => {
                out!(self, " type {t} {len}");
                Ok(())
            }
        }
    }

    fn aodv_addr(&self, p: &[u8], at: usize, form: Form) -> PResult<String> {
        Ok(if form == Form::V4 {
            self.host4(gv4(p, at)?)
        } else {
            self.host6(gv6(p, at)?)
        })
    }

    /// The fixed part of `size` bytes is there (tcpdump's `ND_TCHECK_SIZE`
    /// and length test, both ending in the marker).
    fn aodv_fixed(&mut self, p: &[u8], len: u32, size: usize) -> PResult {
        need(p, 0, size).map_err(|_| self.caught())?;
        if (len as usize) < size {
            return Err(self.caught());
        }
        Ok(())
    }

    fn aodv_rreq(&mut self, p: &[u8], len: u32, form: Form) -> PResult {
        let a = form.addr_len();
        let size = 16 + 2 * a;
        self.aodv_fixed(p, len, size)?;
        // tcpdump tests the flags in the type byte.
        let t = g1(p, 0)?;
        let mut flags = String::new();
        for (bit, s) in [(0x80, "[J]"), (0x40, "[R]"), (0x20, "[G]"), (0x10, "[D]")] {
            if t & bit != 0 {
                flags.push_str(s);
            }
        }
        flags.push_str(if t & 0x08 != 0 { "[U] " } else { " " });
        let (da, ds, oa, os) = match form {
            Form::Draft => (16, 8, 32, 12),
            _ => (8, 8 + a, 12 + a, 12 + 2 * a),
        };
        let v6 = if form == Form::V6 { " v6" } else { "" };
        let (d, o) = (self.aodv_addr(p, da, form)?, self.aodv_addr(p, oa, form)?);
        out!(
            self,
            "{v6} rreq {len} {flags}hops {} id 0x{:08x}\n\tdst {d} seq {} src {o} seq {}",
            g1(p, 3)?,
            g4(p, 4)?,
            g4(p, ds)?,
            g4(p, os)?
        );
        self.aodv_extension(p, size, len as usize - size)
    }

    fn aodv_rrep(&mut self, p: &[u8], len: u32, form: Form) -> PResult {
        let a = form.addr_len();
        let size = 12 + 2 * a;
        self.aodv_fixed(p, len, size)?;
        let t = g1(p, 0)?;
        let (da, ds, oa, life) = match form {
            Form::Draft => (8, 4, 24, 40),
            _ => (4, 4 + a, 8 + a, 8 + 2 * a),
        };
        let (d, o) = (self.aodv_addr(p, da, form)?, self.aodv_addr(p, oa, form)?);
        out!(
            self,
            " rrep {len} {}{}prefix {} hops {}\n\tdst {d} dseq {} src {o} {} ms",
            if t & 0x80 != 0 { "[R]" } else { "" },
            if t & 0x40 != 0 { "[A] " } else { " " },
            g1(p, 2)? & 0x1f,
            g1(p, 3)?,
            g4(p, ds)?,
            g4(p, life)?
        );
        self.aodv_extension(p, size, len as usize - size)
    }

    fn aodv_rerr(&mut self, p: &[u8], len: u32, a: usize) -> PResult {
        self.aodv_fixed(p, len, 4)?;
        let dc = g1(p, 3)?;
        out!(
            self,
            " rerr {} [items {dc}] [{len}]:",
            if g1(p, 1)? & 0x80 != 0 { "[D]" } else { "" }
        );
        let mut left = len as usize - 4;
        let mut at = 4;
        for _ in 0..dc {
            need(p, at, a + 4).map_err(|_| self.caught())?;
            if left < a + 4 {
                return Err(self.caught());
            }
            let d = if a == 4 {
                self.host4(gv4(p, at)?)
            } else {
                self.host6(gv6(p, at)?)
            };
            out!(self, " {{{d}}}({})", g4(p, at + a)?);
            at += a + 4;
            left -= a + 4;
        }
        Ok(())
    }

    /// `aodv_extension`, when at least its header's two bytes are left.
    fn aodv_extension(&mut self, p: &[u8], at: usize, left: usize) -> PResult {
        if left < 2 {
            return Ok(());
        }
        need(p, at, 2).map_err(|_| self.caught())?;
        let (t, l) = (g1(p, at)?, g1(p, at + 1)?);
        if t != 1 {
            out!(self, "\n\text {t} {l}");
            return Ok(());
        }
        need(p, at, 6).map_err(|_| self.caught())?;
        if left < 6 {
            return Err(self.caught());
        }
        if l < 4 {
            out!(self, "\n\text HELLO - bad length {l}");
        } else {
            out!(self, "\n\text HELLO {} ms", g4(p, at + 2)?);
        }
        Ok(())
    }
}
