//! IKEv2's payloads (RFC 5996) as tcpdump 4.99.3's `ikev2_*_print` print
//! them.

use super::payload::Next;
use super::tables::{
    np_name, protoid, str_or_id, v2_notify, DH_P, ENCR_T, ESN_P, ESP_P, INTEG_P, PRF_P, V2_T_TYPE,
};
use crate::summary::{g1, g2, is_print, need, out, Printer};

impl Printer<'_> {
    /// `ikev2_pay_print`: the payload's name and `[C]` when critical.
    fn ikev2_pay(&mut self, m: &[u8], name: &str, ext: usize) -> crate::summary::PResult {
        let c = if g1(m, ext + 1)? & 0x80 != 0 {
            "[C]"
        } else {
            ""
        };
        out!(self, "{name}{c}:");
        Ok(())
    }

    /// `ikev2_gen_print` (certificates, requests, deletes, selectors,
    /// configuration, EAP): the length, with `-vvv` the bytes.
    pub(super) fn ikev2_gen(&mut self, m: &[u8], np: u8, ext: usize, item_len: usize) -> Next {
        self.ikev2_pay(m, &np_name(np), ext)?;
        out!(self, " len={}", item_len - 4);
        self.ikev2_vvv_raw(m, np, ext + 4, item_len - 4)
    }

    /// With `-vvv` and more than nothing, ` ` and the bytes.
    fn ikev2_vvv_raw(&mut self, m: &[u8], np: u8, at: usize, len: usize) -> Next {
        if self.opts.verbose > 2 && len > 0 {
            self.out.push(' ');
            if !self.ike_raw(m, at, len) {
                return self.ike_trunc(np);
            }
        }
        Ok(Some(at + len))
    }

    /// `ikev2_sa_print`: the proposals, each on a line of its own.
    pub(super) fn ikev2_sa(
        &mut self,
        m: &[u8],
        tpay: u8,
        ext1: usize,
        w: super::payload::Walk,
    ) -> Next {
        self.ikev2_pay(m, "sa", ext1)?;
        let sa_length = usize::from(g2(m, ext1 + 2)?) - 4;
        out!(self, " len={sa_length}");
        self.ikev2_chain(m, ext1 + 4, sa_length, 2, tpay, w.depth + 1)
    }

    /// The proposals of an SA (`want` 2) or the transforms of a proposal
    /// (`want` 3): `left` bytes from `cp`, each on a line at `depth`;
    /// `owner` names the enclosing payload in a `[|name]`.
    fn ikev2_chain(
        &mut self,
        m: &[u8],
        mut cp: usize,
        mut left: usize,
        want: u8,
        owner: u8,
        depth: usize,
    ) -> Next {
        let mut count = 0u32;
        let mut np = want;
        while np != 0 {
            count += 1;
            let ext = cp;
            if left < 4 {
                return self.ikev2_toolong(owner, cp, left);
            }
            if need(m, ext, 4).is_err() {
                return self.ike_trunc(owner);
            }
            let item_len = usize::from(g2(m, ext + 2)?);
            if item_len <= 4 {
                return self.ike_trunc(owner);
            }
            if left < item_len {
                return self.ikev2_toolong(owner, cp, left);
            }
            if need(m, cp, item_len).is_err() {
                return self.ike_trunc(owner);
            }
            self.ike_indent(depth);
            if np == want {
                let next = if want == 2 {
                    self.ikev2_p(m, ext, item_len, depth)?
                } else {
                    self.ikev2_t(m, count, ext, item_len)?
                };
                match next {
                    Some(next) => cp = next,
                    None => return Ok(None),
                }
            } else {
                self.out.push_str(&np_name(np));
                cp += item_len;
            }
            self.out.push(')');
            left -= item_len;
            np = g1(m, ext)?;
        }
        Ok(Some(cp))
    }

    /// A chain longer than what holds it: `[|name]`, and the rest skipped.
    fn ikev2_toolong(&mut self, owner: u8, cp: usize, rest: usize) -> Next {
        out!(self, " [|{}]", np_name(owner));
        // A marker of its own, as `ike_trunc`'s.
        let _ = self.caught();
        Ok(Some(cp + rest))
    }

    /// A new line indented `depth` times, and `(`.
    fn ike_indent(&mut self, depth: usize) {
        self.out.push('\n');
        for _ in 0..depth {
            self.out.push_str("    ");
        }
        self.out.push('(');
    }

    /// `ikev2_p_print`: a proposal and its transforms.
    fn ikev2_p(&mut self, m: &[u8], ext: usize, oprop: usize, depth: usize) -> Next {
        if need(m, ext, 8).is_err() {
            return self.ike_trunc(2);
        }
        self.ikev2_pay(m, "p", ext)?;
        let mut prop_length = oprop - 4;
        out!(
            self,
            " #{} protoid={} transform={} len={oprop}",
            g1(m, ext + 4)?,
            protoid(g1(m, ext + 5)?),
            g1(m, ext + 7)?
        );
        let mut cp = ext + 8;
        let spi = usize::from(g1(m, ext + 6)?);
        if spi != 0 {
            if prop_length < spi {
                return self.ikev2_toolong(2, cp, prop_length);
            }
            self.out.push_str(" spi=");
            if !self.ike_raw(m, cp, spi) {
                return self.ike_trunc(2);
            }
            cp += spi;
            prop_length -= spi;
        }
        self.ikev2_chain(m, cp, prop_length, 3, 2, depth + 1)
    }

    /// `ikev2_t_print`: a transform, its type and id, and its attributes.
    fn ikev2_t(&mut self, m: &[u8], tcount: u32, ext: usize, item_len: usize) -> Next {
        if need(m, ext, 8).is_err() {
            return self.ike_trunc(3);
        }
        self.ikev2_pay(m, "t", ext)?;
        let t_id = g2(m, ext + 6)?;
        let t_type = g1(m, ext + 4)?;
        let (ids, map): (&[&str], _) = match t_type {
            1 => (&ESP_P, Some(ENCR_T)),
            2 => (&PRF_P, None),
            3 => (&INTEG_P, None),
            4 => (&DH_P, None),
            5 => (&ESN_P, None),
            _ => (&[], None),
        };
        let ty = str_or_id(u32::from(t_type), &V2_T_TYPE);
        if (1..=5).contains(&t_type) {
            let id = str_or_id(u32::from(t_id), ids);
            out!(self, " #{tcount} type={ty} id={id} ");
        } else {
            out!(self, " #{tcount} type={ty} id={t_id} ");
        }
        self.ike_attrs(m, ext + 8, ext + item_len, map, 3)
    }

    /// `ikev2_ke_print`.
    pub(super) fn ikev2_ke(&mut self, m: &[u8], np: u8, ext: usize, item_len: usize) -> Next {
        if need(m, ext, 8).is_err() {
            return self.ike_trunc(np);
        }
        self.ikev2_pay(m, &np_name(np), ext)?;
        if item_len < 8 {
            out!(self, " len={item_len} < 8");
            return Ok(Some(ext + item_len));
        }
        let group = str_or_id(u32::from(g2(m, ext + 4)?), &DH_P);
        out!(self, " len={} group={group}", item_len - 8);
        if self.ikev2_vvv_raw(m, np, ext + 8, item_len - 8)?.is_none() {
            return Ok(None);
        }
        Ok(Some(ext + item_len))
    }

    /// `ikev2_ID_print` (4.99.3's: text with `.` for what is not
    /// printable, and a payload shorter than its header cut short).
    pub(super) fn ikev2_id(&mut self, m: &[u8], np: u8, ext: usize, item_len: usize) -> Next {
        if need(m, ext, 8).is_err() {
            return self.ike_trunc(np);
        }
        self.ikev2_pay(m, &np_name(np), ext)?;
        out!(self, " len={}", item_len - 4);
        if self.ikev2_vvv_raw(m, np, ext + 4, item_len - 4)?.is_none() {
            return Ok(None);
        }
        let data = ext + 8;
        let (tag, ascii) = match g1(m, ext + 4)? {
            1 => (" ipv4:", false),
            2 => (" fqdn:", true),
            3 => (" rfc822:", true),
            5 => (" ipv6:", false),
            9 => (" dn:", false),
            10 => (" gn:", false),
            11 => (" keyid:", false),
            _ => return Ok(Some(ext + item_len)),
        };
        self.out.push_str(tag);
        // tcpdump's unsigned length wraps below the header: never captured.
        let Some(len) = item_len.checked_sub(8) else {
            return self.ike_trunc(np);
        };
        if ascii {
            if need(m, data, len).is_err() {
                return self.ike_trunc(np);
            }
            self.ike_dotted(&m[data..data + len]);
        } else if !self.ike_raw(m, data, len) {
            return self.ike_trunc(np);
        }
        Ok(Some(ext + item_len))
    }

    /// Printable bytes as they are, others as `.`.
    fn ike_dotted(&mut self, b: &[u8]) {
        self.out
            .extend(b.iter().map(|&c| if is_print(c) { c as char } else { '.' }));
    }

    /// `ikev2_auth_print`.
    pub(super) fn ikev2_auth(&mut self, m: &[u8], np: u8, ext: usize, item_len: usize) -> Next {
        if need(m, ext, 8).is_err() {
            return self.ike_trunc(np);
        }
        self.ikev2_pay(m, &np_name(np), ext)?;
        let method = str_or_id(
            u32::from(g1(m, ext + 4)?),
            &["invalid", "rsasig", "shared-secret", "dsssig"],
        );
        out!(self, " len={} method={method}", item_len - 4);
        if self.opts.verbose > 1 {
            self.out.push_str(" authdata=(");
            let ok = item_len
                .checked_sub(8)
                .is_some_and(|n| self.ike_raw(m, ext + 8, n));
            if !ok {
                return self.ike_trunc(np);
            }
            self.out.push_str(") ");
        } else if !self.ike_somedata(m, ext + 8) {
            return self.ike_trunc(np);
        }
        Ok(Some(ext + item_len))
    }

    /// `ikev2_nonce_print`.
    pub(super) fn ikev2_nonce(&mut self, m: &[u8], np: u8, ext: usize, item_len: usize) -> Next {
        self.ikev2_pay(m, "nonce", ext)?;
        out!(self, " len={}", item_len - 4);
        if self.opts.verbose > 1 {
            self.out.push_str(" nonce=(");
            if !self.ike_raw(m, ext + 4, item_len - 4) {
                return self.ike_trunc(np);
            }
            self.out.push_str(") ");
        } else if !self.ike_somedata(m, ext + 4) {
            return self.ike_trunc(np);
        }
        Ok(Some(ext + item_len))
    }

    /// `ikev2_n_print`.
    pub(super) fn ikev2_n(&mut self, m: &[u8], ext: usize, item_len: usize) -> Next {
        if need(m, ext, 8).is_err() {
            return self.ike_trunc(11);
        }
        self.ikev2_pay(m, "n", ext)?;
        out!(self, " prot_id={}", protoid(g1(m, ext + 4)?));
        let ty = g2(m, ext + 6)?;
        let (name, showspi) = v2_notify(ty);
        out!(self, " type={ty}({name})");
        let spi = usize::from(g1(m, ext + 5)?);
        if showspi && spi != 0 {
            self.out.push_str(" spi=");
            if !self.ike_raw(m, ext + 8, spi) {
                return self.ike_trunc(11);
            }
        }
        let cp = ext + 8 + spi;
        let ep = m.len();
        let somedata = ty == 16390;
        if cp < ep {
            if self.opts.verbose > 3 || (somedata && ep - cp < 30) {
                self.out.push_str(" data=(");
                self.ike_raw(m, cp, ep - cp);
                self.out.push(')');
            } else if somedata && !self.ike_somedata(m, cp) {
                return self.ike_trunc(11);
            }
        }
        Ok(Some(ext + item_len))
    }

    /// `ikev2_vid_print`.
    pub(super) fn ikev2_vid(&mut self, m: &[u8], np: u8, ext: usize, item_len: usize) -> Next {
        self.ikev2_pay(m, &np_name(np), ext)?;
        let len = item_len - 4;
        out!(self, " len={len} vid=");
        if need(m, ext + 4, len).is_err() {
            return self.ike_trunc(np);
        }
        self.ike_dotted(&m[ext + 4..ext + 4 + len]);
        if len > 4 && self.ikev2_vvv_raw(m, np, ext + 4, len)?.is_none() {
            return Ok(None);
        }
        Ok(Some(ext + item_len))
    }

    /// `ikev2_e_print`: an encrypted payload, its length; nothing follows
    /// it (its next payload type is that of what it holds).
    pub(super) fn ikev2_e(&mut self, m: &[u8], np: u8, ext: usize, item_len: usize) -> Next {
        self.ikev2_pay(m, &np_name(np), ext)?;
        let dlen = item_len - 4;
        out!(self, " len={dlen}");
        if dlen > 4 && self.ikev2_vvv_raw(m, np, ext + 4, dlen)?.is_none() {
            return Ok(None);
        }
        if need(m, ext + 4, dlen).is_err() {
            return self.ike_trunc(np);
        }
        Ok(None)
    }
}
