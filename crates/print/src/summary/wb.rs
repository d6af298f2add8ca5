//! The LBL whiteboard (UDP destination port 4567), as tcpdump 4.99's
//! `wb_print` prints it: announcements, repair requests and replies,
//! drawing operations (their list with `-v`), page requests and replies.

use super::{g1, g2, g4, gv4, need, out, PResult, Printer};

const DOPS: [&str; 14] = [
    "RECT", "LINE", "ML", "DEL", "XFORM", "ELL", "CHAR", "STR", "NOP", "PSCODE", "PSCOMP", "REF",
    "SKIP", "HOLE",
];

impl Printer<'_> {
    /// `wb_print`: `len` bytes of UDP payload, `p` captured.
    pub(super) fn wb(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "wb";
        let len = len as usize;
        if len < 12 {
            return self.wb_invalid();
        }
        need(p, 0, 12)?;
        let len = len - 12;
        if g1(p, 11)? != 0 {
            out!(self, "*");
        }
        let ok = match g1(p, 10)? {
            4 => {
                out!(self, " wb-kill");
                return Ok(());
            }
            1 => self.wb_id(p, 12, len)?,
            2 => self.wb_rreq(p, 12, len)?,
            3 => self.wb_rrep(p, 12, len)?,
            0 => self.wb_drawop(p, 12, len)?,
            5 => self.wb_preq(p, 12, len)?,
            7 => self.wb_prep(p, 12, len)?,
            t => {
                out!(self, " wb-{t}!");
                false
            }
        };
        if !ok {
            return self.wb_invalid();
        }
        Ok(())
    }

    fn wb_invalid(&mut self) -> PResult {
        out!(self, " (invalid)");
        Ok(())
    }

    /// `slot/site:page` of a page state or an announcement's maximum.
    fn wb_page(&mut self, p: &[u8], slot: usize, page: usize) -> PResult {
        let site = self.host4(gv4(p, page)?);
        out!(self, "{}/{site}:{}", g4(p, slot)?, g4(p, page + 4)?);
        Ok(())
    }

    /// `n` id/offset pairs from `at`, in `<...>`; where they end.
    fn wb_offsets(&mut self, p: &[u8], at: usize, n: usize) -> PResult<usize> {
        let mut c = '<';
        for i in 0..n {
            let a = at + 8 * i;
            let id = self.host4(gv4(p, a)?);
            out!(self, "{c}{id}:{}", g4(p, a + 4)?);
            c = ',';
        }
        Ok(at + 8 * n)
    }

    fn wb_id(&mut self, p: &[u8], at: usize, len: usize) -> PResult<bool> {
        out!(self, " wb-id:");
        if len < 28 {
            return Ok(false);
        }
        let len = len - 28;
        out!(self, " ");
        self.wb_page(p, at + 12, at + 16)?;
        out!(self, " (max ");
        self.wb_page(p, at, at + 4)?;
        out!(self, ") ");
        need(p, at, 28)?;
        let nid = g2(p, at + 24)? as usize;
        if len < 8 * nid {
            return Ok(false);
        }
        let len = len - 8 * nid;
        let site = self.wb_offsets(p, at + 28, nid)?;
        out!(self, "> \"");
        self.jnp(p, site, len)?;
        out!(self, "\"");
        Ok(true)
    }

    fn wb_rreq(&mut self, p: &[u8], at: usize, len: usize) -> PResult<bool> {
        out!(self, " wb-rreq:");
        if len < 20 {
            return Ok(false);
        }
        let (id, site) = (self.host4(gv4(p, at)?), self.host4(gv4(p, at + 4)?));
        out!(
            self,
            " please repair {id} {site}:{}<{}:{}>",
            g4(p, at + 8)?,
            g4(p, at + 12)?,
            g4(p, at + 16)?
        );
        Ok(true)
    }

    fn wb_preq(&mut self, p: &[u8], at: usize, len: usize) -> PResult<bool> {
        out!(self, " wb-preq:");
        if len < 16 {
            return Ok(false);
        }
        let site = self.host4(gv4(p, at)?);
        out!(self, " need {}/{site}:{}", g4(p, at + 8)?, g4(p, at + 4)?);
        need(p, at, 16)?;
        Ok(true)
    }

    fn wb_prep(&mut self, p: &[u8], at: usize, len: usize) -> PResult<bool> {
        out!(self, " wb-prep:");
        if len < 4 {
            return Ok(false);
        }
        // Every page state takes 16 bytes or more, so the count is bounded
        // by the captured bytes.
        let mut n = g4(p, at)?;
        let mut ps = at + 4;
        while n != 0 {
            out!(self, " ");
            self.wb_page(p, ps, ps + 4)?;
            need(p, ps, 16)?;
            // tcpdump reads one byte of the two-byte count.
            let nid = g1(p, ps + 12)? as usize;
            ps = self.wb_offsets(p, ps + 16, nid)?;
            out!(self, ">");
            n -= 1;
        }
        Ok(true)
    }

    /// The page, sequence range, and with `-v` the operations, of a drawing
    /// message or repair reply whose `pkt_dop` is at `dop`.
    fn wb_dop_range(&mut self, p: &[u8], dop: usize) -> PResult {
        let site = self.host4(gv4(p, dop)?);
        let (ss, es) = (g4(p, dop + 8)?, g4(p, dop + 12)?);
        out!(self, "{site}:{}<{ss}:{es}>", g4(p, dop + 4)?);
        if self.opts.verbose > 0 {
            self.wb_dops(p, dop + 16, ss, es)?;
        }
        Ok(())
    }

    fn wb_rrep(&mut self, p: &[u8], at: usize, len: usize) -> PResult<bool> {
        out!(self, " wb-rrep:");
        if len < 20 {
            return Ok(false);
        }
        let id = self.host4(gv4(p, at)?);
        out!(self, " for {id} ");
        self.wb_dop_range(p, at + 4)?;
        Ok(true)
    }

    fn wb_drawop(&mut self, p: &[u8], at: usize, len: usize) -> PResult<bool> {
        out!(self, " wb-dop:");
        if len < 16 {
            return Ok(false);
        }
        out!(self, " ");
        self.wb_dop_range(p, at)?;
        Ok(true)
    }

    /// `wb_dops`: each operation header from `at`; every one moves on 8
    /// bytes or more, so the loop ends with the captured bytes.
    fn wb_dops(&mut self, p: &[u8], mut at: usize, mut ss: u32, es: u32) -> PResult {
        out!(self, " <");
        while ss <= es {
            let t = g1(p, at + 7)?;
            match DOPS.get((t as usize).wrapping_sub(2)) {
                Some(n) => out!(self, " {n}"),
                None => out!(self, " dop-{t}!"),
            }
            if t == 14 || t == 15 {
                let ts = g4(p, at)?;
                out!(self, "{}", ts.wrapping_sub(ss).wrapping_add(1));
                if ss > ts || ts > es {
                    out!(self, "[|]");
                    if ts < ss {
                        return Ok(());
                    }
                }
                ss = ts;
            }
            let body = g2(p, at + 4)? as usize;
            at += (body + 8 + 3) & !3;
            ss = ss.wrapping_add(1);
        }
        out!(self, " >");
        Ok(())
    }
}
