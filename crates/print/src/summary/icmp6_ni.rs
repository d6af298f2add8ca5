//! ICMPv6 Node Information (RFC 4620) and Router Renumbering (RFC 2894)
//! messages, as tcpdump's `icmp6_nodeinfo_print` and `icmp6_rrenum_print`.
//! A subject or reply name in DNS wire format is not decoded.

use super::{g1, g2, g4, gv4, gv6, need, out, print_char, tail, v6s, PResult, Printer};

/// The node-address flags of a query (`q`) or reply: `[aGSLCA]`, `T` too in
/// a reply.
fn nodeaddr_flags(i: u16, reply: bool) -> String {
    let mut s = String::new();
    for (bit, c) in [
        (0x40, 'a'),
        (0x20, 'G'),
        (0x10, 'S'),
        (0x08, 'L'),
        (0x04, 'C'),
        (0x02, 'A'),
    ] {
        if i & bit != 0 {
            s.push(c);
        }
    }
    if reply && i & 0x01 != 0 {
        s.push('T');
    }
    s
}

impl Printer<'_> {
    /// `icmp6_nodeinfo_print` of a message of `length` bytes; `bp` is its
    /// captured part. A header cut short ends with the marker. The checks
    /// tcpdump makes itself (`ND_TCHECK_*`, a reply longer than what was
    /// captured) are its `goto trunc`, without a `longjmp` (`Printer::caught`:
    /// `-x` still leaves the link-level header out); a `GET_` is not.
    pub(super) fn icmp6_nodeinfo(&mut self, bp: &[u8], length: u32) {
        let r = self.icmp6_nodeinfo_inner(bp, length);
        self.catch(r);
    }

    fn icmp6_nodeinfo_inner(&mut self, bp: &[u8], length: u32) -> PResult {
        let siz = bp.len().min(length as usize);
        let bp = &bp[..siz];
        let v = self.opts.verbose > 0;
        let qtype = || g2(bp, 4);
        let flags = || g2(bp, 6);
        if g1(bp, 0)? == 139 {
            if siz == 12 {
                // KAME's who-are-you.
                out!(self, " who-are-you request");
                return Ok(());
            }
            out!(self, " node information query");
            need(bp, 0, 16).map_err(|_| self.caught())?;
            out!(self, " (");
            match qtype()? {
                0 => out!(self, "noop"),
                1 => {
                    out!(self, "supported qtypes");
                    let i = flags()?;
                    if i != 0 {
                        out!(self, " [{}]", if i & 1 != 0 { "C" } else { "" });
                    }
                }
                2 => out!(self, "DNS name"),
                3 => {
                    out!(self, "node addresses");
                    let i = flags()?;
                    if i != 0 {
                        out!(self, " [{}]", nodeaddr_flags(i, false));
                    }
                }
                _ => out!(self, "unknown"),
            }
            if qtype()? <= 1 {
                if siz != 16 && v {
                    out!(self, ", invalid len");
                }
                out!(self, ")");
                return Ok(());
            }
            if siz == 16 {
                out!(self, ", 03 draft)");
                return Ok(());
            }
            match g1(bp, 1)? {
                0 | 2 => {
                    let alen = if g1(bp, 1)? == 0 { 16 } else { 4 };
                    if bp.len() >= 16 + alen {
                        if siz != 16 + alen {
                            if v {
                                out!(self, ", invalid subject len");
                            }
                        } else if alen == 16 {
                            out!(self, ", subject={}", v6s(gv6(bp, 16)?));
                        } else {
                            out!(self, ", subject={}", gv4(bp, 16)?);
                        }
                    }
                }
                1 => {
                    out!(self, ", subject=DNS name");
                    self.ni_name(bp, 16)?;
                }
                _ => out!(self, ", unknown subject"),
            }
            out!(self, ")");
            return Ok(());
        }
        // A reply.
        if length as usize > siz {
            return Err(self.caught());
        }
        need(bp, 0, 16).map_err(|_| self.caught())?;
        out!(self, " node information reply (");
        let code = g1(bp, 1)?;
        let mut comma = false;
        match code {
            0 if v => {
                out!(self, "success");
                comma = true;
            }
            1 | 2 => {
                out!(self, "{}", if code == 1 { "refused" } else { "unknown" });
                comma = true;
                if siz != 16 && v {
                    out!(self, ", invalid length");
                }
            }
            _ => {}
        }
        if code != 0 {
            out!(self, ")");
            return Ok(());
        }
        if comma {
            out!(self, ", ");
        }
        match qtype()? {
            0 => {
                out!(self, "noop");
                if siz != 16 && v {
                    out!(self, ", invalid length");
                }
            }
            1 => {
                out!(self, "supported qtypes");
                let i = flags()?;
                if i != 0 {
                    out!(self, " [{}]", if i & 1 != 0 { "C" } else { "" });
                }
            }
            2 => {
                out!(self, "DNS name");
                self.ni_name(bp, 20)?;
                if flags()? & 1 != 0 {
                    out!(self, " [TTL={}]", g4(bp, 16)?);
                }
            }
            3 => {
                out!(self, "node addresses");
                let mut i = 16;
                while i + 20 <= siz {
                    out!(self, " {}({})", v6s(gv6(bp, i + 4)?), g4(bp, i)?);
                    i += 20;
                }
                let f = flags()?;
                if f != 0 {
                    out!(self, " [{}]", nodeaddr_flags(f, true));
                }
            }
            _ => out!(self, "unknown"),
        }
        out!(self, ")");
        Ok(())
    }

    /// A name in a query's subject or a reply: the draft's length-prefixed
    /// string is printed; DNS wire format is not decoded.
    fn ni_name(&mut self, bp: &[u8], at: usize) -> PResult {
        let n = g1(bp, at)? as usize;
        if n + at + 1 == bp.len() {
            if self.opts.verbose > 0 {
                out!(self, ", 03 draft");
            }
            out!(self, ", \"");
            for &c in tail(bp, at + 1) {
                print_char(&mut self.out, c);
            }
            out!(self, "\"");
        }
        Ok(())
    }

    /// `icmp6_rrenum_print`.
    pub(super) fn icmp6_rrenum(&mut self, bp: &[u8]) {
        let r = self.icmp6_rrenum_inner(bp);
        self.catch(r);
    }

    fn icmp6_rrenum_inner(&mut self, bp: &[u8]) -> PResult {
        need(bp, 0, 16).map_err(|_| self.caught())?;
        let code = g1(bp, 1)?;
        match code {
            0 => out!(self, ", command"),
            1 => out!(self, ", result"),
            255 => out!(self, ", sequence number reset"),
            c => out!(self, ", code-#{c}"),
        }
        out!(self, ", seq={}", g4(bp, 4)?);
        let v = self.opts.verbose > 0;
        if v {
            let f = g1(bp, 9)?;
            out!(self, "[");
            if f != 0 {
                for (bit, c) in [
                    (0x80, 'T'),
                    (0x40, 'R'),
                    (0x20, 'A'),
                    (0x10, 'S'),
                    (0x08, 'P'),
                ] {
                    if f & bit != 0 {
                        self.out.push(c);
                    }
                }
                out!(self, ",");
            }
            out!(self, "seg={},maxdelay={}", g1(bp, 8)?, g2(bp, 10)?);
            let rsvd = g4(bp, 12)?;
            if rsvd != 0 {
                out!(self, "rsvd=0x{rsvd:x}");
            }
            out!(self, "]");
        }
        if code != 0 {
            return Ok(());
        }
        let sep = if self.opts.verbose > 1 { "\n\t" } else { " " };
        let m = 16;
        need(bp, m + 8, 16)?;
        out!(self, "{sep}match(");
        match g1(bp, m)? {
            1 => out!(self, "add"),
            2 => out!(self, "change"),
            3 => out!(self, "setglobal"),
            c => out!(self, "#{c}"),
        }
        if v {
            out!(
                self,
                ",ord={},min={},max={}",
                g1(bp, m + 2)?,
                g1(bp, m + 4)?,
                g1(bp, m + 5)?
            );
        }
        out!(self, ",{}/{})", v6s(gv6(bp, m + 8)?), g1(bp, m + 3)?);
        let n = (g1(bp, m + 1)? as i32) - 3;
        if n % 4 != 0 {
            return Err(self.caught());
        }
        let mut u = m + 24;
        for _ in 0..n / 4 {
            need(bp, u + 16, 16).map_err(|_| self.caught())?;
            out!(self, "{sep}use(");
            let f = g1(bp, u + 12)?;
            if f != 0 {
                out!(
                    self,
                    "{}{},",
                    if f & 0x80 != 0 { "V" } else { "" },
                    if f & 0x40 != 0 { "P" } else { "" }
                );
            }
            if v {
                out!(
                    self,
                    "mask=0x{:x},raflags=0x{:x},",
                    g1(bp, u + 2)?,
                    g1(bp, u + 3)?
                );
                for (name, at) in [("vltime", u + 4), ("pltime", u + 8)] {
                    match g4(bp, at)? {
                        u32::MAX => out!(self, "{name}=infty,"),
                        t => out!(self, "{name}={t},"),
                    }
                }
            }
            out!(
                self,
                "{}/{}/{})",
                v6s(gv6(bp, u + 16)?),
                g1(bp, u)?,
                g1(bp, u + 1)?
            );
            u += 32;
        }
        Ok(())
    }
}
