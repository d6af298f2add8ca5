//! IKEv1's payloads (RFC 2407/2408) as print-isakmp.c's `ikev1_*_print`
//! print them.

use super::payload::{Next, Walk};
use super::tables::{
    np_name, protoid, str_or_id, AH_P, CERT, ESP_P, IKEV1_P, IPCOMP_P, IPSEC_ID, IPSEC_T,
    NOTIFY_ERROR, OAKLEY_T,
};
use crate::summary::{g1, g2, g4, gv4, gv6, need, out, print_char, Printer};

impl Printer<'_> {
    /// `ikev1_sa_print`.
    pub(super) fn ikev1_sa(&mut self, m: &[u8], ext: usize, w: Walk) -> Next {
        self.out.push_str("sa:");
        if need(m, ext, 12).is_err() {
            return self.ike_trunc(1);
        }
        let (doi, sit) = (g4(m, ext + 4)?, g4(m, ext + 8)?);
        if doi != 1 {
            out!(self, " doi={doi} situation={sit}");
            return Ok(Some(ext + 12));
        }
        self.out.push_str(" doi=ipsec situation=");
        let names = [(1, "identity"), (2, "secrecy"), (4, "integrity")];
        let set: Vec<&str> = names
            .iter()
            .filter(|&&(b, _)| sit & b != 0)
            .map(|&(_, n)| n)
            .collect();
        self.out.push_str(&set.join("+"));
        let mut np = ext + 12;
        if sit != 1 {
            // tcpdump reads the "ident" at the DOI's place.
            out!(self, " ident={}", g4(m, ext + 4)?);
            np += 4;
        }
        if need(m, np, 4).is_err() {
            return self.ike_trunc(1);
        }
        self.ike_sub(m, 2, np, w)
    }

    /// `ikev1_p_print`.
    pub(super) fn ikev1_p(&mut self, m: &[u8], ext: usize, w: Walk) -> Next {
        self.out.push_str("p:");
        if need(m, ext, 8).is_err() {
            return self.ike_trunc(2);
        }
        let prot = g1(m, ext + 5)?;
        out!(
            self,
            " #{} protoid={} transform={}",
            g1(m, ext + 4)?,
            protoid(prot),
            g1(m, ext + 7)?
        );
        let spi = usize::from(g1(m, ext + 6)?);
        if spi != 0 {
            self.out.push_str(" spi=");
            if !self.ike_raw(m, ext + 8, spi) {
                return self.ike_trunc(2);
            }
        }
        let t = ext + 8 + spi;
        if need(m, t, 4).is_err() {
            return self.ike_trunc(2);
        }
        self.ike_sub(m, 3, t, Walk { proto: prot, ..w })
    }

    /// `ikev1_t_print`: a transform and its attributes, named by the
    /// proposal's protocol.
    pub(super) fn ikev1_t(&mut self, m: &[u8], ext: usize, item_len: usize, w: Walk) -> Next {
        self.out.push_str("t:");
        if need(m, ext, 8).is_err() {
            return self.ike_trunc(3);
        }
        let (t_no, t_id) = (g1(m, ext + 4)?, g1(m, ext + 5)?);
        let (ids, map): (&[&str], _) = match w.proto {
            1 => (&IKEV1_P, Some(OAKLEY_T)),
            2 => (&AH_P, Some(IPSEC_T)),
            3 => (&ESP_P, Some(IPSEC_T)),
            4 => (&IPCOMP_P, Some(IPSEC_T)),
            _ => (&[], None),
        };
        if map.is_some() {
            out!(self, " #{t_no} id={} ", str_or_id(u32::from(t_id), ids));
        } else {
            out!(self, " #{t_no} id={t_id} ");
        }
        self.ike_attrs(m, ext + 8, ext + item_len, map, 3)
    }

    /// The attributes of a transform from `cp` to `ep2`, and `...` when
    /// the capture ends first.
    pub(super) fn ike_attrs(
        &mut self,
        m: &[u8],
        mut cp: usize,
        ep2: usize,
        map: Option<&super::tables::AttrMap>,
        np: u8,
    ) -> Next {
        let ep = m.len();
        while cp < ep && cp < ep2 {
            match self.ike_attr(m, cp, ep2, map)? {
                Some(next) => cp = next,
                None => return self.ike_trunc(np),
            }
        }
        if ep < ep2 {
            self.out.push_str("...");
        }
        Ok(Some(cp))
    }

    /// `ikev1_ke_print`.
    pub(super) fn ikev1_ke(&mut self, m: &[u8], ext: usize, item_len: usize) -> Next {
        out!(self, "ke: key len={}", item_len - 4);
        self.ike_vvv_raw(m, 4, ext, item_len)
    }

    /// `ikev1_hash_print`, `ikev1_sig_print`, `ikev1_vid_print`: the
    /// length, and with `-vvv` the bytes.
    pub(super) fn ikev1_len_only(&mut self, m: &[u8], np: u8, ext: usize, item_len: usize) -> Next {
        out!(self, "{}: len={}", np_name(np), item_len - 4);
        self.ike_vvv_raw(m, np, ext, item_len)
    }

    /// `ikev1_cert_print`, `ikev1_cr_print`.
    pub(super) fn ikev1_cert(&mut self, m: &[u8], np: u8, ext: usize, item_len: usize) -> Next {
        out!(self, "{}:", np_name(np));
        if need(m, ext, 5).is_err() {
            return self.ike_trunc(np);
        }
        out!(
            self,
            " len={} type={}",
            item_len - 4,
            str_or_id(u32::from(g1(m, ext + 4)?), &CERT)
        );
        self.ike_vvv_raw(m, np, ext, item_len)
    }

    /// With `-vvv`, the payload's bytes after its generic header.
    fn ike_vvv_raw(&mut self, m: &[u8], np: u8, ext: usize, item_len: usize) -> Next {
        if self.opts.verbose > 2 && item_len > 4 {
            self.out.push(' ');
            if !self.ike_raw(m, ext + 4, item_len - 4) {
                return self.ike_trunc(np);
            }
        }
        Ok(Some(ext + item_len))
    }

    /// `ikev1_nonce_print`.
    pub(super) fn ikev1_nonce(&mut self, m: &[u8], ext: usize, item_len: usize) -> Next {
        out!(self, "nonce: n len={}", item_len - 4);
        if self.opts.verbose > 2 {
            return self.ike_vvv_raw(m, 10, ext, item_len);
        }
        if self.opts.verbose > 1 {
            self.out.push(' ');
            if !self.ike_somedata(m, ext + 4) {
                return self.ike_trunc(10);
            }
        }
        Ok(Some(ext + item_len))
    }

    /// `ikev1_id_print` (the IPsec DOI's identification, in either phase).
    pub(super) fn ikev1_id(&mut self, m: &[u8], ext: usize, item_len: usize) -> Next {
        self.out.push_str("id:");
        if need(m, ext, 8).is_err() {
            return self.ike_trunc(5);
        }
        let (data, mut len) = if item_len > 8 {
            (ext + 8, item_len - 8)
        } else {
            (0, 0)
        };
        let ty = g1(m, ext + 4)?;
        out!(self, " idtype={}", str_or_id(u32::from(ty), &IPSEC_ID));
        let proto = g1(m, ext + 5)?;
        match self.opts.names.and_then(|n| n.protocol(proto)) {
            Some(name) if proto != 0 => out!(self, " protoid={name}"),
            _ => out!(self, " protoid={proto}"),
        }
        out!(self, " port={}", g2(m, ext + 6)?);
        if len != 0 {
            if need(m, data, len).is_err() {
                return self.ike_trunc(5);
            }
            let v4 = |i: usize| gv4(m, data + i).map(|a| self.host4(a));
            let v6 = |i: usize| gv6(m, data + i).map(|a| self.host6(a));
            let text = match ty {
                1 if len < 4 => Some(format!(" len={len} [bad: < 4]")),
                1 => Some(format!(" len={len} {}", v4(0)?)),
                2 | 3 => {
                    let mut s = format!(" len={len} ");
                    for &c in &m[data..data + len] {
                        print_char(&mut s, c);
                    }
                    Some(s)
                }
                4 if len < 8 => Some(format!(" len={len} [bad: < 8]")),
                4 => {
                    let k = &m[data + 4..data + 8];
                    Some(format!(
                        " len={len} {}/{}.{}.{}.{}",
                        v4(0)?,
                        k[0],
                        k[1],
                        k[2],
                        k[3]
                    ))
                }
                5 if len < 16 => Some(format!(" len={len} [bad: < 16]")),
                5 => Some(format!(" len={len} {}", v6(0)?)),
                6 if len < 32 => Some(format!(" len={len} [bad: < 32]")),
                6 => {
                    let mask: String = m[data + 16..data + 32]
                        .iter()
                        .map(|b| format!("{b:02x}"))
                        .collect();
                    Some(format!(" len={len} {}/0x{mask}", v6(0)?))
                }
                7 if len < 8 => Some(format!(" len={len} [bad: < 8]")),
                7 => Some(format!(" len={len} {}-{}", v4(0)?, v4(4)?)),
                8 if len < 32 => Some(format!(" len={len} [bad: < 32]")),
                8 => Some(format!(" len={len} {}-{}", v6(0)?, v6(16)?)),
                _ => None,
            };
            if let Some(t) = text {
                self.out.push_str(&t);
                len = 0;
            }
        }
        if len != 0 {
            out!(self, " len={len}");
            if self.opts.verbose > 2 {
                self.out.push(' ');
                if !self.ike_raw(m, data, len) {
                    return self.ike_trunc(5);
                }
            }
        }
        Ok(Some(ext + item_len))
    }

    /// `ikev1_n_print`.
    pub(super) fn ikev1_n(&mut self, m: &[u8], ext: usize, item_len: usize) -> Next {
        self.out.push_str("n:");
        if need(m, ext, 12).is_err() {
            return self.ike_trunc(11);
        }
        let doi = g4(m, ext + 4)?;
        let proto = g1(m, ext + 8)?;
        let ty = g2(m, ext + 10)?;
        let id = |t: u16| format!("#{t}");
        let name = |tab: &[&str], base: u16| str_or_id(u32::from(ty - base), tab);
        if doi != 1 {
            out!(self, " doi={doi} proto={proto}");
            let t = match ty {
                0..=8191 => name(&NOTIFY_ERROR, 0),
                16384..=24575 => name(&["CONNECTED"], 16384),
                _ => id(ty),
            };
            out!(self, " type={t}");
            let spi = usize::from(g1(m, ext + 9)?);
            if spi != 0 {
                self.out.push_str(" spi=");
                if !self.ike_raw(m, ext + 12, spi) {
                    return self.ike_trunc(11);
                }
            }
            return Ok(Some(ext + 12 + spi));
        }
        out!(self, " doi=ipsec proto={}", protoid(proto));
        let t = match ty {
            0..=8191 => name(&NOTIFY_ERROR, 0),
            8192..=16383 => name(&["RESERVED"], 8192),
            16384..=24575 => name(&["CONNECTED"], 16384),
            24576..=32767 => name(
                &["RESPONDER-LIFETIME", "REPLAY-STATUS", "INITIAL-CONTACT"],
                24576,
            ),
            _ => id(ty),
        };
        out!(self, " type={t}");
        let spi = usize::from(g1(m, ext + 9)?);
        if spi != 0 {
            self.out.push_str(" spi=");
            if !self.ike_raw(m, ext + 12, spi) {
                return self.ike_trunc(11);
            }
        }
        let mut cp = ext + 12 + spi;
        let ep2 = ext + item_len;
        if cp < m.len() {
            match ty {
                24576 => {
                    self.out.push_str(" attrs=(");
                    while cp < m.len() && cp < ep2 {
                        match self.ike_attr(m, cp, ep2, Some(OAKLEY_T))? {
                            Some(next) => cp = next,
                            None => {
                                self.out.push(')');
                                return self.ike_trunc(11);
                            }
                        }
                    }
                    self.out.push(')');
                }
                24577 => {
                    self.out.push_str(" status=(");
                    let on = if g4(m, cp)? != 0 { "en" } else { "dis" };
                    out!(self, "replay detection {on}abled)");
                }
                _ if self.opts.verbose > 3 => {
                    self.out.push_str(" data=(");
                    self.ike_raw(m, cp, m.len() - cp);
                    self.out.push(')');
                }
                _ => {
                    if !self.ike_somedata(m, cp) {
                        return self.ike_trunc(11);
                    }
                }
            }
        }
        Ok(Some(ext + item_len))
    }

    /// `ikev1_d_print` (4.99.3's: ` spi=` even without SPIs).
    pub(super) fn ikev1_d(&mut self, m: &[u8], ext: usize) -> Next {
        self.out.push_str("d:");
        if need(m, ext, 12).is_err() {
            return self.ike_trunc(12);
        }
        let doi = g4(m, ext + 4)?;
        let proto = g1(m, ext + 8)?;
        if doi != 1 {
            out!(self, " doi={doi} proto={proto}");
        } else {
            out!(self, " doi=ipsec proto={}", protoid(proto));
        }
        let spi = usize::from(g1(m, ext + 9)?);
        let n = g2(m, ext + 10)?;
        out!(self, " spilen={spi} nspi={n} spi=");
        let mut q = ext + 12;
        for i in 0..n {
            if i != 0 {
                self.out.push(',');
            }
            if !self.ike_raw(m, q, spi) {
                return self.ike_trunc(12);
            }
            q += spi;
        }
        Ok(Some(q))
    }
}
