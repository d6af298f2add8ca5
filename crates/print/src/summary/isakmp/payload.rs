//! The payload walk shared by IKEv1 and IKEv2 (`ikev1_sub_print`,
//! `ikev2_sub_print`, `ike_sub0_print`) and the helpers every payload
//! printer uses: raw hex, `ike_show_somedata`, the attribute printer.
//!
//! Offsets are into the whole ISAKMP message `m` (its captured part):
//! `m.len()` is tcpdump's `ep`, the end of the captured datagram. A printer
//! returns `Ok(Some(next))` where tcpdump returns a pointer, `Ok(None)`
//! where it returns `NULL` having printed its own `[|name]`, and `Err`
//! where tcpdump's `GET_` macros give up on the whole packet.

use super::tables::{np_name, AttrMap};
use crate::summary::{g1, g2, need, out, PResult, Printer};

/// What a payload printer returns (see the module's doc).
pub(super) type Next = PResult<Option<usize>>;

/// Nesting deeper than this (an SA holding a proposal whose next payload
/// is another SA ...) is cut short: tcpdump recurses without a bound, a
/// hostile packet must not exhaust the stack here.
const MAX_DEPTH: usize = 32;

/// Where a payload walk is: the protocol of the enclosing proposal (which
/// names its transforms), the nesting depth, and whether `v2e` is IKEv2's
/// encrypted payload.
#[derive(Clone, Copy)]
pub(super) struct Walk {
    pub proto: u8,
    pub depth: usize,
    pub v2: bool,
}

impl Printer<'_> {
    /// `rawprint`: `len` bytes of `m` from `at` in hex; false when they
    /// are not all captured.
    pub(super) fn ike_raw(&mut self, m: &[u8], at: usize, len: usize) -> bool {
        if need(m, at, len).is_err() {
            return false;
        }
        for b in &m[at..at + len] {
            out!(self, "{b:02x}");
        }
        true
    }

    /// `ike_show_somedata`: ` data=(` the first ten and last twenty bytes
    /// from `cp` to the end of the capture `)`; false when cut short.
    pub(super) fn ike_somedata(&mut self, m: &[u8], cp: usize) -> bool {
        let ep = m.len() as i64;
        let cp = cp as i64;
        let len = (ep - cp).min(10);
        let (mut end, mut elen) = (ep - 20, 20);
        if end < cp + len {
            end = cp + len;
            elen = ep - end;
        }
        self.out.push_str(" data=(");
        if len < 0 || !self.ike_raw(m, cp as usize, len as usize) {
            return false;
        }
        self.out.push_str("...");
        if elen != 0 && (elen < 0 || !self.ike_raw(m, end as usize, elen as usize)) {
            return false;
        }
        self.out.push(')');
        true
    }

    /// `ikev1_attrmap_print` (with a map) and `ikev1_attr_print` (without):
    /// one data attribute at `p`, within the payload ending at `ep2`.
    pub(super) fn ike_attr(
        &mut self,
        m: &[u8],
        p: usize,
        ep2: usize,
        map: Option<&AttrMap>,
    ) -> Next {
        let b0 = g1(m, p)?;
        let short = b0 & 0x80 != 0;
        let totlen = if short {
            4
        } else {
            4 + usize::from(g2(m, p + 2)?)
        };
        if ep2 < p + totlen {
            self.out.push_str("[|attr]");
            // A marker of its own, as `ike_trunc`'s.
            let _ = self.caught();
            return Ok(Some(ep2 + 1));
        }
        self.out.push('(');
        let t = usize::from(g2(m, p)? & 0x7fff);
        let entry = map.and_then(|m| m.get(t));
        match entry {
            Some((name, _)) if !name.is_empty() => out!(self, "type={name} "),
            _ => out!(self, "type=#{t} "),
        }
        let ok = if short {
            self.out.push_str("value=");
            let v = usize::from(g2(m, p + 2)?);
            match entry.and_then(|(_, vals)| vals.get(v)) {
                Some(name) if !name.is_empty() => {
                    self.out.push_str(name);
                    true
                }
                _ => self.ike_raw(m, p + 2, 2),
            }
        } else {
            out!(self, "len={} value=", totlen - 4);
            self.ike_raw(m, p + 4, totlen - 4)
        };
        self.out.push(')');
        Ok(ok.then_some(p + totlen))
    }

    /// The `[|name]` of a payload printer that gives up: `NULL`. tcpdump
    /// prints this marker itself and goes on (no `longjmp`), so `-x` still
    /// leaves the link-level header out (`Printer::caught`).
    pub(super) fn ike_trunc(&mut self, np: u8) -> Next {
        out!(self, " [|{}]", np_name(np));
        let _ = self.caught();
        Ok(None)
    }

    /// `ikev1_sub_print`/`ikev2_sub_print`: the chain of payloads from
    /// `ext`, the first of type `np`, each on a line of its own.
    pub(super) fn ike_sub(&mut self, m: &[u8], mut np: u8, mut ext: usize, w: Walk) -> Next {
        let mut cp = ext;
        while np != 0 {
            if need(m, ext, 4).is_err() || need(m, ext, usize::from(g2(m, ext + 2)?)).is_err() {
                return self.ike_trunc(np);
            }
            let w = Walk {
                depth: w.depth + 1,
                ..w
            };
            if w.depth > MAX_DEPTH {
                return self.ike_trunc(np);
            }
            self.out.push('\n');
            for _ in 0..w.depth {
                self.out.push_str("    ");
            }
            self.out.push('(');
            let next = self.ike_sub0(m, np, ext, w)?;
            self.out.push(')');
            let Some(next) = next else {
                return Ok(None);
            };
            cp = next;
            np = g1(m, ext)?;
            ext = cp;
        }
        Ok(Some(cp))
    }

    /// `ike_sub0_print`/`ikev2_sub0_print`: one payload by its type.
    fn ike_sub0(&mut self, m: &[u8], np: u8, ext: usize, w: Walk) -> Next {
        let item_len = usize::from(g2(m, ext + 2)?);
        if item_len <= 4 {
            return Ok(None);
        }
        match np {
            1 => self.ikev1_sa(m, ext, w),
            2 => self.ikev1_p(m, ext, w),
            3 => self.ikev1_t(m, ext, item_len, w),
            4 => self.ikev1_ke(m, ext, item_len),
            5 => self.ikev1_id(m, ext, item_len),
            6 | 7 => self.ikev1_cert(m, np, ext, item_len),
            8 | 9 | 13 => self.ikev1_len_only(m, np, ext, item_len),
            10 => self.ikev1_nonce(m, ext, item_len),
            11 => self.ikev1_n(m, ext, item_len),
            12 => self.ikev1_d(m, ext),
            33 => self.ikev2_sa(m, np, ext, w),
            34 => self.ikev2_ke(m, np, ext, item_len),
            35 | 36 => self.ikev2_id(m, np, ext, item_len),
            39 => self.ikev2_auth(m, np, ext, item_len),
            40 => self.ikev2_nonce(m, np, ext, item_len),
            41 => self.ikev2_n(m, ext, item_len),
            43 => self.ikev2_vid(m, np, ext, item_len),
            46 if w.v2 => self.ikev2_e(m, np, ext, item_len),
            37 | 38 | 42 | 44 | 45 | 47 | 48 => self.ikev2_gen(m, np, ext, item_len),
            _ => {
                self.out.push_str(&np_name(np));
                Ok(Some(ext + item_len))
            }
        }
    }
}
