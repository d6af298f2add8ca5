//! Application payloads: the first line of DNS (tcpdump's `domain_print`), and of
//! the text protocols HTTP, RTSP, FTP and SMTP; the SSH version banner.

use super::{g1, g2, g4, gv4, gv6, is_print, out, print_char, tail, v6s, PResult, Printer, Trunc};

pub(super) const HTTP_METHODS: &[&str] = &[
    "OPTIONS",
    "GET",
    "HEAD",
    "POST",
    "PUT",
    "DELETE",
    "TRACE",
    "CONNECT",
    "PROPFIND",
    "PROPPATCH",
    "MKCOL",
    "COPY",
    "MOVE",
    "LOCK",
    "UNLOCK",
    "ORDERPATCH",
    "PATCH",
];

/// tcpdump's `sipcmds`: the request methods `sip_print` recognises.
pub(super) const SIP_METHODS: &[&str] = &[
    "ACK",
    "BYE",
    "CANCEL",
    "DO",
    "INFO",
    "INVITE",
    "MESSAGE",
    "NOTIFY",
    "OPTIONS",
    "PRACK",
    "QAUTH",
    "REFER",
    "REGISTER",
    "SPRACK",
    "SUBSCRIBE",
    "UPDATE",
    "PUBLISH",
];

pub(super) const RTSP_METHODS: &[&str] = &[
    "DESCRIBE",
    "ANNOUNCE",
    "GET_PARAMETER",
    "OPTIONS",
    "PAUSE",
    "PLAY",
    "RECORD",
    "REDIRECT",
    "SETUP",
    "SET_PARAMETER",
    "TEARDOWN",
];

/// Labels and compression jumps one DNS name may take at least, however
/// short the message (`Printer::fqdn` allows as many as the message has bytes).
const MAX_LABELS: usize = 128;
/// tcpdump's MAXCDNAME.
const MAXCDNAME: usize = 255;

impl Printer<'_> {
    /// `txtproto_print`: `PROTO` and, when the payload looks like a request or
    /// response line, `: <line>`.
    pub(super) fn txtproto(
        &mut self,
        p: &[u8],
        len: u32,
        proto: &'static str,
        cmds: Option<&[&str]>,
    ) -> PResult {
        self.proto = proto;
        let len = len as usize;
        let mut print_this = false;
        match cmds {
            Some(cmds) => {
                let (idx, tok) = fetch_token(p, 0, len);
                if idx != 0 {
                    if cmds.iter().any(|c| c.eq_ignore_ascii_case(&tok)) {
                        print_this = true;
                    }
                    // The response code is the second token.
                    let (idx2, tok2) = fetch_token(p, idx, len);
                    if idx2 != 0 {
                        let t = tok2.as_bytes();
                        if t.len() == 3 && t.iter().all(|c| c.is_ascii_digit()) {
                            print_this = true;
                        }
                    }
                }
            }
            None => print_this = true,
        }
        self.out.push_str(&proto.to_ascii_uppercase());
        if print_this {
            if self.opts.verbose > 0 {
                // Every text line, each on a line of its own.
                out!(self, ", length: {len}");
                let mut idx = 0;
                while idx < len {
                    match self.txt_line("\n\t", p, idx, len)? {
                        0 => break,
                        eol => idx = eol,
                    }
                }
            } else {
                self.txt_line(": ", p, 0, len)?;
            }
        }
        Ok(())
    }

    /// `print_txt_line`: the text line at `start`, with `prefix`; returns where
    /// the next line starts, or 0 when the text ends (binary data, or a bare
    /// CR); a line cut off by the end of the payload is printed and reported
    /// truncated.
    fn txt_line(&mut self, prefix: &str, p: &[u8], start: usize, len: usize) -> PResult<usize> {
        let mut idx = start;
        while idx < len {
            let c = g1(p, idx)?;
            if c == b'\n' {
                self.txt_emit(prefix, &p[start..idx])?;
                return Ok(idx + 1);
            } else if c == b'\r' {
                if idx + 1 >= len {
                    return Ok(0);
                }
                if g1(p, idx + 1)? == b'\n' {
                    self.txt_emit(prefix, &p[start..idx])?;
                    return Ok(idx + 2);
                }
                return Ok(0);
            } else if !is_print(c) && c != b'\t' {
                return Ok(0);
            }
            idx += 1;
        }
        // tcpdump prints the line and its marker and returns (no `longjmp`:
        // `-x` still leaves the link-level header out); a byte past the
        // capture above is a `GET_U_1`, which does `longjmp`.
        self.txt_emit(prefix, p.get(start..idx).unwrap_or(&[]))?;
        Err(self.caught())
    }

    fn txt_emit(&mut self, prefix: &str, line: &[u8]) -> PResult {
        self.out.push_str(prefix);
        self.out.extend(line.iter().map(|&c| c as char));
        Ok(())
    }

    /// `ssh_print`: the version banner.
    pub(super) fn ssh(&mut self, p: &[u8], len: u32) -> PResult {
        self.proto = "ssh";
        let len = len as usize;
        if g1(p, 0)? != b'S' || g1(p, 1)? != b'S' || g1(p, 2)? != b'H' || g1(p, 3)? != b'-' {
            return Ok(());
        }
        let mut idx = 4usize;
        while idx < len {
            let c = g1(p, idx)?;
            if c == b'\n' {
                return self.txt_emit(": SSH: ", &p[..idx]);
            } else if c == b'\r' {
                if idx + 1 >= len {
                    return Ok(());
                }
                if g1(p, idx + 1)? == b'\n' {
                    return self.txt_emit(": SSH: ", &p[..idx]);
                }
                return Ok(());
            } else if !is_print(c) {
                return Ok(());
            }
            idx += 1;
        }
        Ok(())
    }

    /// `domain_print` without `-v`.
    pub(super) fn dns(&mut self, bp: &[u8], length: u32, over_tcp: bool, mdns: bool) -> PResult {
        self.proto = "domain";
        let mut bp = bp;
        let mut length = length;
        if over_tcp {
            if length < 2 {
                out!(self, " [DNS over TCP: length {length} < 2] (invalid)");
                return Ok(());
            }
            length -= 2;
            let prefix = g2(bp, 0)? as u32;
            if prefix != length {
                out!(
                    self,
                    " [prefix length({prefix}) != length({length})] (invalid)"
                );
                return Ok(());
            }
            bp = tail(bp, 2);
            out!(self, " ");
        }
        if length < 12 {
            out!(self, "domain [length {length} < 12] (invalid)");
            return Ok(());
        }
        super::need(bp, 0, 12)?;
        let id = g2(bp, 0)?;
        let flags = g2(bp, 2)?;
        let qd = g2(bp, 4)? as u32;
        let an = g2(bp, 6)? as u32;
        let ns = g2(bp, 8)? as u32;
        let ar = g2(bp, 10)? as u32;
        let opcode = ((flags >> 11) & 0xf) as usize;
        let mut rcode = (flags & 0xf) as u32;
        // Find an OPT record for the extended rcode.
        {
            let mut cp = Some(12usize);
            let snap = bp.len();
            'scan: {
                for _ in 0..qd {
                    let Some(c) = cp.and_then(|c| nskip(bp, c)) else {
                        break 'scan;
                    };
                    let c = c + 4;
                    if c >= snap {
                        break 'scan;
                    }
                    cp = Some(c);
                }
                for _ in 0..(an + ns) {
                    let Some(c) = cp.and_then(|c| nskip(bp, c)) else {
                        break 'scan;
                    };
                    let c = c + 8;
                    if c + 2 > snap {
                        break 'scan;
                    }
                    let rdlen = g2(bp, c)? as usize;
                    let c = c + 2 + rdlen;
                    if c >= snap {
                        break 'scan;
                    }
                    cp = Some(c);
                }
                for _ in 0..ar {
                    let Some(c) = cp.and_then(|c| nskip(bp, c)) else {
                        break 'scan;
                    };
                    if c + 2 > snap {
                        break 'scan;
                    }
                    let t = g2(bp, c)?;
                    let c = c + 4;
                    if c + 1 > snap {
                        break 'scan;
                    }
                    if t == 41 {
                        rcode |= (g1(bp, c)? as u32) << 4;
                        break 'scan;
                    }
                    let c = c + 4;
                    if c + 2 > snap {
                        break 'scan;
                    }
                    let rdlen = g2(bp, c)? as usize;
                    let c = c + 2 + rdlen;
                    if c >= snap {
                        break 'scan;
                    }
                    cp = Some(c);
                }
            }
        }
        const OPS: [&str; 16] = [
            "",
            " inv_q",
            " stat",
            " op3",
            " notify",
            " update",
            " op6",
            " op7",
            " op8",
            " updateA",
            " updateD",
            " updateDA",
            " updateM",
            " updateMA",
            " zoneInit",
            " zoneRef",
        ];
        if flags & 0x8000 != 0 {
            out!(
                self,
                "{}{}{}{}{}{}{}",
                id,
                OPS[opcode],
                rcode_str(rcode),
                if flags & 0x0400 != 0 { "*" } else { "" },
                if flags & 0x0080 != 0 { "" } else { "-" },
                if flags & 0x0200 != 0 { "|" } else { "" },
                if flags & 0x0020 != 0 { "$" } else { "" }
            );
            if qd != 1 {
                out!(self, " [{qd}q]");
            }
            let mut cp = 12usize;
            for i in 0..qd {
                if i != 0 {
                    out!(self, ",");
                }
                // -vv prints the questions a response repeats.
                cp = if self.opts.verbose > 1 {
                    out!(self, " q:");
                    self.question(bp, cp, mdns)?
                } else {
                    nskip(bp, cp).ok_or(Trunc)? + 4
                };
            }
            out!(self, " {an}/{ns}/{ar}");
            cp = self.rr_section(bp, cp, an, "", mdns)?;
            if self.opts.verbose > 1 {
                cp = self.rr_section(bp, cp, ns, " ns:", mdns)?;
                self.rr_section(bp, cp, ar, " ar:", mdns)?;
            }
        } else {
            out!(
                self,
                "{}{}{}{}{}",
                id,
                OPS[opcode],
                if flags & 0x0100 != 0 { "+" } else { "" },
                "",
                if flags & 0x0010 != 0 { "%" } else { "" }
            );
            if flags & 0x6cf != 0 {
                out!(self, " [b2&3=0x{flags:x}]");
            }
            if opcode == 1 {
                if qd != 0 {
                    out!(self, " [{qd}q]");
                }
                if an != 1 {
                    out!(self, " [{an}a]");
                }
            } else {
                if an != 0 {
                    out!(self, " [{an}a]");
                }
                if qd != 1 {
                    out!(self, " [{qd}q]");
                }
            }
            if ns != 0 {
                out!(self, " [{ns}n]");
            }
            if ar != 0 {
                out!(self, " [{ar}au]");
            }
            let mut cp = 12usize;
            let mut left = qd;
            if left > 0 {
                cp = self.question(bp, cp, mdns)?;
                left -= 1;
                while cp < bp.len() && left > 0 {
                    cp = self.question(bp, cp, mdns)?;
                    left -= 1;
                }
            }
            if left > 0 {
                return Err(Trunc);
            }
            // -vv prints a query's other sections too.
            if self.opts.verbose > 1 {
                cp = self.rr_section(bp, cp, an, "", mdns)?;
                cp = self.rr_section(bp, cp, ns, " ns:", mdns)?;
                self.rr_section(bp, cp, ar, " ar:", mdns)?;
            }
        }
        out!(self, " ({length})");
        Ok(())
    }

    /// `count` resource records from `cp`, comma-separated after `label`,
    /// as long as the capture lasts; records left over end the packet as
    /// truncated. Returns where the section ends.
    fn rr_section(
        &mut self,
        bp: &[u8],
        mut cp: usize,
        count: u32,
        label: &str,
        mdns: bool,
    ) -> PResult<usize> {
        let mut left = count;
        if left > 0 && (label.is_empty() || cp < bp.len()) {
            out!(self, "{label}");
            cp = self.rr(bp, cp, mdns)?;
            left -= 1;
            while cp < bp.len() && left > 0 {
                out!(self, ",");
                cp = self.rr(bp, cp, mdns)?;
                left -= 1;
            }
        }
        if left > 0 {
            return Err(Trunc);
        }
        Ok(cp)
    }

    /// `ns_qprint`.
    fn question(&mut self, bp: &[u8], cp: usize, mdns: bool) -> PResult<usize> {
        let after = nskip(bp, cp).ok_or(Trunc)?;
        super::need(bp, after, 4)?;
        let t = g2(bp, after)?;
        let c = g2(bp, after + 2)?;
        out!(self, " {}", type_name(t));
        let class = if mdns { c & !0x8000 } else { c };
        if class != 1 {
            out!(self, " {}", class_name(class));
        }
        if mdns {
            out!(self, "{}", if c & 0x8000 != 0 { " (QU)" } else { " (QM)" });
        }
        out!(self, "? ");
        let end = self.fqdn(bp, cp)?;
        Ok(end + 4)
    }

    /// `ns_rprint` without `-v`.
    fn rr(&mut self, bp: &[u8], cp: usize, mdns: bool) -> PResult<usize> {
        // With -v the owner name is printed; without, skipped.
        let c = if self.opts.verbose > 0 {
            out!(self, " ");
            Some(self.fqdn(bp, cp)?)
        } else {
            nskip(bp, cp)
        };
        let Some(c) = c else {
            return Ok(bp.len());
        };
        if super::need(bp, c, 10).is_err() {
            return Ok(bp.len());
        }
        let typ = g2(bp, c)?;
        let i = g2(bp, c + 2)?;
        let class = if mdns { i & !0x8000 } else { i };
        if class != 1 && typ != 41 {
            out!(self, " {}", class_name(class));
        }
        if mdns && i & 0x8000 != 0 {
            out!(self, " (Cache flush)");
        }
        let mut opt_flags = 0u16;
        if typ == 41 {
            opt_flags = g2(bp, c + 6)?;
        }
        let len = g2(bp, c + 8)? as usize;
        let data = c + 10;
        let rp = data + len;
        out!(self, " {}", type_name(typ));
        if rp > bp.len() {
            return Err(Trunc);
        }
        match typ {
            1 => out!(self, " {}", gv4(bp, data)?),
            2 | 5 | 12 | 39 => {
                out!(self, " ");
                self.fqdn(bp, data)?;
            }
            15 => {
                out!(self, " ");
                let pref = g2(bp, data)?;
                self.fqdn(bp, data + 2)?;
                out!(self, " {pref}");
            }
            16 => {
                let mut p = data;
                let mut n = 0;
                while p < rp && n < 256 {
                    out!(self, " \"");
                    let l = g1(bp, p)? as usize;
                    super::need(bp, p + 1, l)?;
                    for &ch in &bp[p + 1..p + 1 + l] {
                        print_char(&mut self.out, ch);
                    }
                    out!(self, "\"");
                    p += 1 + l;
                    n += 1;
                }
            }
            33 => {
                out!(self, " ");
                super::need(bp, data, 6)?;
                self.fqdn(bp, data + 6)?;
                out!(
                    self,
                    ":{} {} {}",
                    g2(bp, data + 4)?,
                    g2(bp, data)?,
                    g2(bp, data + 2)?
                );
            }
            6 if self.opts.verbose > 0 => {
                out!(self, " ");
                let mut p = self.fqdn(bp, data)?;
                out!(self, " ");
                p = self.fqdn(bp, p)?;
                super::need(bp, p, 20)?;
                for i in 0..5 {
                    out!(self, " {}", g4(bp, p + 4 * i)?);
                }
            }
            28 => out!(self, " {}", v6s(gv6(bp, data)?)),
            256 => {
                super::need(bp, data, len)?;
                if len < 4 {
                    return Err(Trunc);
                }
                out!(self, " {} {} ", g2(bp, data)?, g2(bp, data + 2)?);
                for &c in &bp[data + 4..rp] {
                    print_char(&mut self.out, c);
                }
            }
            41 => {
                out!(self, " UDPsize={class}");
                if opt_flags & 0x8000 != 0 {
                    out!(self, " DO");
                }
                if len > 0 {
                    out!(self, " [");
                    let mut p = data;
                    while p < rp {
                        p = self.edns_opt(bp, p)?;
                        if p < rp {
                            out!(self, ",");
                        }
                    }
                    out!(self, "]");
                }
            }
            _ => {}
        }
        let _ = g4;
        Ok(rp)
    }

    /// `fqdn_print`: a possibly compressed name at `cp`; returns the offset after
    /// the name as stored at `cp`.
    pub(super) fn fqdn(&mut self, bp: &[u8], cp: usize) -> PResult<usize> {
        let mut cp = cp;
        let mut max_offset = cp;
        let first = g1(bp, cp)?;
        let mut l = self.label_len(bp, cp)?;
        let mut i = first;
        cp += 1;
        let mut compress = false;
        let mut rp = if i & 0xc0 != 0xc0 { cp + l } else { 0 };
        if i == 0 {
            out!(self, ".");
            return Ok(rp);
        }
        let mut name_chars = 0usize;
        let mut steps = 0;
        while i != 0 && cp < bp.len() {
            // tcpdump's loop has no bound but the capture's end and its
            // pointers' moving back; with many pointers each followed by a
            // long run of labels that is quadratic in the packet, so a walk
            // may take as many steps as the message has bytes (a name without
            // pointers takes at most half that), and no more.
            steps += 1;
            if steps > bp.len().max(MAX_LABELS) {
                return Err(Trunc);
            }
            if i & 0xc0 == 0xc0 {
                if !compress {
                    rp = cp + 1;
                    compress = true;
                }
                let lo = g1(bp, cp)?;
                let offset = (((i as usize) << 8) | lo as usize) & 0x3fff;
                if offset >= max_offset {
                    out!(self, "<BAD PTR>");
                    return Err(Trunc);
                }
                max_offset = offset;
                cp = offset;
                i = g1(bp, cp)?;
                l = self.label_len(bp, cp)?;
                cp += 1;
                continue;
            }
            if i & 0xc0 == 0x40 {
                out!(self, "<ELT {}>", i & 0x3f);
                return Err(Trunc);
            }
            let shown = if name_chars + l <= MAXCDNAME {
                l
            } else {
                MAXCDNAME.saturating_sub(name_chars)
            };
            for k in 0..shown {
                match bp.get(cp + k) {
                    Some(&c) => print_char(&mut self.out, c),
                    None => return Err(Trunc),
                }
            }
            name_chars += l;
            cp += l;
            if name_chars <= MAXCDNAME {
                out!(self, ".");
            }
            name_chars += 1;
            i = g1(bp, cp)?;
            l = self.label_len(bp, cp)?;
            cp += 1;
            if !compress {
                rp += l + 1;
            }
        }
        if name_chars > MAXCDNAME {
            out!(self, "<DOMAIN NAME TOO LONG>");
        }
        Ok(rp)
    }
}

/// `fetch_token`: the first whitespace-delimited token from `idx` and the index
/// of the next token (0 when there is none).
fn fetch_token(p: &[u8], idx: usize, len: usize) -> (usize, String) {
    let mut idx = idx;
    let mut tok = String::new();
    while idx < len {
        let Some(&c) = p.get(idx) else {
            return (0, String::new());
        };
        if !c.is_ascii() {
            return (0, String::new());
        }
        if c == b' ' || c == b'\t' || c == b'\r' || c == b'\n' {
            break;
        }
        if !is_print(c) {
            return (0, String::new());
        }
        if tok.len() + 2 > 129 {
            return (0, String::new());
        }
        tok.push(c as char);
        idx += 1;
    }
    if tok.is_empty() {
        return (0, String::new());
    }
    while idx < len {
        let Some(&c) = p.get(idx) else { break };
        if c == b'\r' || c == b'\n' {
            break;
        }
        if !is_print(c) {
            break;
        }
        if c != b' ' && c != b'\t' {
            break;
        }
        idx += 1;
    }
    (idx, tok)
}

fn labellen(bp: &[u8], cp: usize) -> Option<usize> {
    let i = *bp.get(cp)?;
    match i & 0xc0 {
        0x40 => {
            if i & 0x3f != 1 {
                return None;
            }
            let bitlen = match *bp.get(cp + 1)? {
                0 => 256,
                b => b as usize,
            };
            Some(bitlen.div_ceil(8) + 1)
        }
        0xc0 => Some(0),
        // The reserved type: not a label.
        0x80 => None,
        _ => Some(i as usize),
    }
}

impl Printer<'_> {
    /// tcpdump's `labellen`, which prints an extended label type it does not
    /// know (`<ELT 7>`) or the reserved type (`<BAD LABEL TYPE>`) as it gives
    /// up on the name.
    fn label_len(&mut self, bp: &[u8], cp: usize) -> PResult<usize> {
        if let Some(l) = labellen(bp, cp) {
            return Ok(l);
        }
        if let Some(&i) = bp.get(cp) {
            if i & 0xc0 == 0x40 && i & 0x3f != 1 {
                out!(self, "<ELT {}>", i & 0x3f);
            } else if i & 0xc0 == 0x80 {
                out!(self, "<BAD LABEL TYPE>");
            }
        }
        Err(Trunc)
    }
}

/// `ns_nskip`: the offset after the name at `cp`, or `None` when it runs off the
/// capture. No bound on the labels, as tcpdump has none here: a skip never
/// follows a compression pointer, so every label moves forward and the
/// capture's end stops it.
fn nskip(bp: &[u8], cp: usize) -> Option<usize> {
    let mut cp = cp;
    let mut i = *bp.get(cp)?;
    cp += 1;
    while i != 0 {
        match i & 0xc0 {
            0xc0 => return Some(cp + 1),
            0x40 => {
                if i & 0x3f != 1 {
                    return None;
                }
                let bitlen = match *bp.get(cp)? {
                    0 => 256,
                    b => b as usize,
                };
                cp += 1 + bitlen.div_ceil(8);
            }
            // The reserved label type ends the skip, as tcpdump's.
            0x80 => return None,
            _ => cp += i as usize,
        }
        i = *bp.get(cp)?;
        cp += 1;
    }
    Some(cp)
}

fn rcode_str(r: u32) -> String {
    const NAMES: [&str; 24] = [
        "",
        " FormErr",
        " ServFail",
        " NXDomain",
        " NotImp",
        " Refused",
        " YXDomain",
        " YXRRSet",
        " NXRRSet",
        " NotAuth",
        " NotZone",
        " Resp11",
        " Resp12",
        " Resp13",
        " Resp14",
        " NoChange",
        " BadVers",
        " BadKey",
        " BadTime",
        " BadMode",
        " BadName",
        " BadAlg",
        " BadTrunc",
        " BadCookie",
    ];
    match NAMES.get(r as usize) {
        Some(s) => s.to_string(),
        None => format!(" Resp{}", r & 0xfff),
    }
}

fn class_name(c: u16) -> String {
    known_class(c).map_or_else(|| format!("(Class {c})"), str::to_string)
}

/// The DNS classes tcpdump names; the printers differ in how they show others.
pub(super) fn known_class(c: u16) -> Option<&'static str> {
    match c {
        1 => Some("IN"),
        3 => Some("CHAOS"),
        4 => Some("HS"),
        255 => Some("ANY"),
        _ => None,
    }
}

pub(super) fn type_name(t: u16) -> String {
    let n = match t {
        1 => "A",
        2 => "NS",
        3 => "MD",
        4 => "MF",
        5 => "CNAME",
        6 => "SOA",
        7 => "MB",
        8 => "MG",
        9 => "MR",
        10 => "NULL",
        11 => "WKS",
        12 => "PTR",
        13 => "HINFO",
        14 => "MINFO",
        15 => "MX",
        16 => "TXT",
        17 => "RP",
        18 => "AFSDB",
        19 => "X25",
        20 => "ISDN",
        21 => "RT",
        22 => "NSAP",
        23 => "NSAP_PTR",
        24 => "SIG",
        25 => "KEY",
        26 => "PX",
        27 => "GPOS",
        28 => "AAAA",
        29 => "LOC",
        30 => "NXT",
        31 => "EID",
        32 => "NIMLOC",
        33 => "SRV",
        34 => "ATMA",
        35 => "NAPTR",
        36 => "KX",
        37 => "CERT",
        38 => "A6",
        39 => "DNAME",
        40 => "SINK",
        41 => "OPT",
        42 => "APL",
        43 => "DS",
        44 => "SSHFP",
        45 => "IPSECKEY",
        46 => "RRSIG",
        47 => "NSEC",
        48 => "DNSKEY",
        50 => "NSEC3",
        51 => "NSEC3PARAM",
        99 => "SPF",
        100 => "UINFO",
        101 => "UID",
        102 => "GID",
        103 => "UNSPEC",
        104 => "UNSPECA",
        249 => "TKEY",
        250 => "TSIG",
        251 => "IXFR",
        252 => "AXFR",
        253 => "MAILB",
        254 => "MAILA",
        255 => "ANY",
        256 => "URI",
        32769 => "DLV",
        _ => return format!("Type{t}"),
    };
    n.to_string()
}
