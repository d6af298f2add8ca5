//! The LBL whiteboard (UDP destination port 4567), as tcpdump 4.99.3's
//! `wb_print` prints it: announcements, repair requests and replies,
//! drawing operations (with `-v` their list), page requests and replies.

use super::{g1, g2, g4, gv4, host4_name, need, out, PResult, Printer};

/// `dop_str`.
fn dop_name(t: u8) -> String {
    const NAMES: [&str; 14] = [
        "RECT", "LINE", "ML", "DEL", "XFORM", "ELL", "CHAR", "STR", "NOP", "PSCODE", "PSCOMP",
        "REF", "SKIP", "HOLE",
    ];
    match usize::from(t).checked_sub(2).and_then(|i| NAMES.get(i)) {
        Some(n) => (*n).to_string(),
        None => format!("dop-{t}!"),
    }
}

impl Printer<'_> {
    /// An IPv4 address as tcpdump's `ipaddr_string` prints it.
    fn wb_addr(&self, p: &[u8], at: usize) -> PResult<String> {
        Ok(host4_name(self.opts.names, gv4(p, at)?))
    }

    /// `wb_print`: `p` from the packet header on, `len` its length.
    pub(super) fn wb(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "wb";
        let len = len as usize;
        if len < 12 {
            self.out.push_str(" (invalid)");
            return Ok(());
        }
        need(p, 0, 12)?;
        let len = len - 12;
        if g1(p, 11)? != 0 {
            self.out.push('*');
        }
        let b = 12;
        let ok = match g1(p, 10)? {
            4 => {
                self.out.push_str(" wb-kill");
                return Ok(());
            }
            1 => self.wb_id(p, b, len)?,
            2 => {
                self.out.push_str(" wb-rreq:");
                len >= 20 && {
                    let (a, s) = (self.wb_addr(p, b)?, self.wb_addr(p, b + 4)?);
                    out!(
                        self,
                        " please repair {a} {s}:{}<{}:{}>",
                        g4(p, b + 8)?,
                        g4(p, b + 12)?,
                        g4(p, b + 16)?
                    );
                    true
                }
            }
            3 => {
                self.out.push_str(" wb-rrep:");
                len >= 20 && {
                    let a = self.wb_addr(p, b)?;
                    out!(self, " for {a}");
                    self.wb_dop(p, b + 4)?;
                    true
                }
            }
            0 => {
                self.out.push_str(" wb-dop:");
                len >= 16 && {
                    self.wb_dop(p, b)?;
                    true
                }
            }
            5 => {
                self.out.push_str(" wb-preq:");
                len >= 16 && {
                    let s = self.wb_addr(p, b)?;
                    out!(self, " need {}/{s}:{}", g4(p, b + 8)?, g4(p, b + 4)?);
                    need(p, b, 16)?;
                    true
                }
            }
            7 => {
                self.out.push_str(" wb-prep:");
                len >= 4 && {
                    self.wb_prep(p, b)?;
                    true
                }
            }
            t => {
                out!(self, " wb-{t}!");
                false
            }
        };
        if !ok {
            self.out.push_str(" (invalid)");
        }
        Ok(())
    }

    /// `wb_id`: false where tcpdump's returns -1.
    fn wb_id(&mut self, p: &[u8], b: usize, len: usize) -> PResult<bool> {
        self.out.push_str(" wb-id:");
        if len < 28 {
            return Ok(false);
        }
        let len = len - 28;
        let (ps, ms) = (self.wb_addr(p, b + 16)?, self.wb_addr(p, b + 4)?);
        out!(
            self,
            " {}/{ps}:{} (max {}/{ms}:{}) ",
            g4(p, b + 12)?,
            g4(p, b + 20)?,
            g4(p, b)?,
            g4(p, b + 8)?
        );
        need(p, b, 28)?;
        let nid = usize::from(g2(p, b + 24)?);
        if len < 8 * nid {
            return Ok(false);
        }
        let len = len - 8 * nid;
        let mut at = b + 28;
        let mut c = '<';
        for _ in 0..nid {
            let a = self.wb_addr(p, at)?;
            out!(self, "{c}{a}:{}", g4(p, at + 4)?);
            c = ',';
            at += 8;
        }
        self.out.push_str("> \"");
        self.jnp(p, at, len)?;
        self.out.push('"');
        Ok(true)
    }

    /// A `pkt_dop` at `d`: page, sequence range, with `-v` the operations.
    fn wb_dop(&mut self, p: &[u8], d: usize) -> PResult {
        let s = self.wb_addr(p, d)?;
        let (ss, es) = (g4(p, d + 8)?, g4(p, d + 12)?);
        out!(self, " {s}:{}<{ss}:{es}>", g4(p, d + 4)?);
        if self.opts.verbose == 0 {
            return Ok(());
        }
        // `wb_dops`: each operation header advances the walk by at least
        // 8 bytes, so the capture bounds it.
        self.out.push_str(" <");
        let mut dh = d + 16;
        let mut ss = ss;
        while ss <= es {
            let t = g1(p, dh + 7)?;
            out!(self, " {}", dop_name(t));
            if t == 14 || t == 15 {
                let ts = g4(p, dh)?;
                out!(self, "{}", ts.wrapping_sub(ss).wrapping_add(1));
                if ss > ts || ts > es {
                    self.out.push_str("[|]");
                    if ts < ss {
                        return Ok(());
                    }
                }
                ss = ts;
            }
            dh += (usize::from(g2(p, dh + 4)?) + 8).next_multiple_of(4);
            if ss == u32::MAX {
                break;
            }
            ss += 1;
        }
        self.out.push_str(" >");
        Ok(())
    }

    /// `wb_prep`: each page state and its id/offset pairs.
    fn wb_prep(&mut self, p: &[u8], b: usize) -> PResult {
        let mut n = g4(p, b)?;
        let mut ps = b + 4;
        while n != 0 {
            let s = self.wb_addr(p, ps + 4)?;
            out!(self, " {}/{s}:{}", g4(p, ps)?, g4(p, ps + 8)?);
            need(p, ps, 16)?;
            let mut io = ps + 16;
            let mut c = '<';
            for _ in 0..g1(p, ps + 12)? {
                let a = self.wb_addr(p, io)?;
                out!(self, "{c}{a}:{}", g4(p, io + 4)?);
                c = ',';
                io += 8;
            }
            self.out.push('>');
            ps = io;
            n -= 1;
        }
        Ok(())
    }
}
