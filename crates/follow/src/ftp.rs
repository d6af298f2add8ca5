//! FTP control connection (RFC 959, RFC 2428): the lines that announce a data
//! connection.
//!
//! Recognised, one per line, anywhere in the payload:
//!
//! * `227 <text> h1,h2,h3,h4,p1,p2<non-digit>`: PASV reply. RFC 1123 §4.1.2.6 says the
//!   parentheses of RFC 959 may be absent, so the six numbers are searched for after
//!   the code, as clients and Linux's `nf_conntrack_ftp` do.
//! * `229 <text> (<d><d><d>port<d>)`: EPSV reply; `<d>` is any printable non-digit
//!   delimiter given by its first occurrence. The address is the control
//!   connection's server's, so [`Announce::addr`] is `None`.
//! * `PORT h1,h2,h3,h4,p1,p2` and `EPRT <d>1|2<d>addr<d>port<d>` from the client.
//!
//! Commands are case-insensitive. Each byte must be `0..=255` and a port non-zero;
//! anything else on the line means no announcement. A number that runs into the end
//! of an unterminated last line is not trusted (the rest of it may be in the next
//! segment), nor is a PORT or EPRT line without its line end (only blanks may follow
//! their argument, and the next segment may add more), so a line cut by a segment
//! boundary is never misread.
//!
//! Deliberately ignored: multi-line `227-` continuation lines (the final `227 ` line
//! is the reply), LPRT/LPSV (RFC 1639), `EPSV ALL`, and addresses given as
//! `0.0.0.0` are reported as given (the tracker decides what they mean).

use crate::text::{self, Line};
use std::net::{IpAddr, Ipv4Addr};

/// Who will listen for the announced data connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnnounceKind {
    /// A 227 or 229 reply: the server listens, the client connects.
    Passive,
    /// A PORT or EPRT command: the client listens, the server connects.
    Active,
}

/// A data connection announced on an FTP control connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Announce {
    /// Where the listener is; `None` (229 only) means the control connection's server.
    pub addr: Option<IpAddr>,
    /// The listening TCP port, never 0.
    pub port: u16,
    /// Which command or reply announced it, and so which side listens.
    pub kind: AnnounceKind,
}

/// Every announcement in a control payload, in order, without allocating.
pub fn announcements(payload: &[u8]) -> impl Iterator<Item = Announce> + '_ {
    text::lines(payload).filter_map(line)
}

/// The announcement of one complete line (with or without its CRLF), if any.
pub fn parse_line(line: &[u8]) -> Option<Announce> {
    let text = line.strip_suffix(b"\n").unwrap_or(line);
    let text = text.strip_suffix(b"\r").unwrap_or(text);
    self::line(Line {
        text,
        terminated: true,
    })
}

fn line(l: Line<'_>) -> Option<Announce> {
    let s = l.text;
    let (addr, port, kind) = if let Some(rest) = s.strip_prefix(b"227 ") {
        let (a, p) = pasv(rest, l.terminated)?;
        (Some(a), p, AnnounceKind::Passive)
    } else if let Some(rest) = s.strip_prefix(b"229 ") {
        (None, epsv(rest)?, AnnounceKind::Passive)
    } else if let Some(rest) = text::strip_prefix_ci(s, b"PORT ") {
        let (a, p, tail) = six(rest.trim_ascii_start())?;
        if !blank_tail(tail, l.terminated) {
            return None;
        }
        (Some(a), p, AnnounceKind::Active)
    } else if let Some(rest) = text::strip_prefix_ci(s, b"EPRT ") {
        let (a, p) = eprt(rest.trim_ascii_start(), l.terminated)?;
        (Some(a), p, AnnounceKind::Active)
    } else {
        return None;
    };
    Some(Announce { addr, port, kind })
}

/// Only blanks may follow a command's argument, up to the end of a complete line. An
/// unterminated line is never enough, even with blanks after the argument: the next
/// segment may continue it with something else (`PORT 10,0,0,1,195,80 x`), which
/// makes the whole line no announcement.
fn blank_tail(tail: &[u8], terminated: bool) -> bool {
    terminated && tail.iter().all(u8::is_ascii_whitespace)
}

/// The first run of six numbers in a 227 reply's text. Candidates start at a digit
/// not preceded by a digit or comma, so `(1,2,3,4,5,6,7)` is not re-read from `2`.
fn pasv(s: &[u8], terminated: bool) -> Option<(IpAddr, u16)> {
    (0..s.len())
        .filter(|&i| {
            s[i].is_ascii_digit()
                && !matches!(i.checked_sub(1).map(|j| s[j]), Some(b'0'..=b'9' | b','))
        })
        .find_map(|i| {
            let (a, p, tail) = six(&s[i..])?;
            // The numbers must be followed by something that is not part of them
            // (`)`, `.`, a blank), or by the end of a complete line.
            let ends = match tail.first() {
                None => terminated,
                Some(&c) => c != b',',
            };
            ends.then_some((a, p))
        })
}

/// `h1,h2,h3,h4,p1,p2` at the start of `s`: the address, the port and what follows.
fn six(s: &[u8]) -> Option<(IpAddr, u16, &[u8])> {
    let mut v = [0u8; 6];
    let mut rest = s;
    for (k, slot) in v.iter_mut().enumerate() {
        if k > 0 {
            rest = rest.strip_prefix(b",")?;
        }
        let (n, r) = text::number(rest)?;
        *slot = u8::try_from(n).ok()?;
        rest = r;
    }
    let port = u16::from_be_bytes([v[4], v[5]]);
    if port == 0 {
        return None;
    }
    let addr = Ipv4Addr::new(v[0], v[1], v[2], v[3]);
    Some((IpAddr::V4(addr), port, rest))
}

/// RFC 2428 delimiters: printable ASCII. Digits are refused because they would make
/// the port ambiguous.
fn delimiter(s: &[u8]) -> Option<u8> {
    s.first()
        .copied()
        .filter(|&d| (33..=126).contains(&d) && !d.is_ascii_digit())
}

/// The port of `(<d><d><d>port<d>)` in a 229 reply's text. The closing delimiter
/// must be there, which also protects against a cut line.
fn epsv(s: &[u8]) -> Option<u16> {
    // Every `(` is a candidate, in case the text before the port has its own.
    (0..s.len()).filter(|&i| s[i] == b'(').find_map(|i| {
        let inner = &s[i + 1..];
        let d = delimiter(inner)?;
        let rest = inner.strip_prefix(&[d, d, d])?;
        let end = rest.iter().position(|&b| b == d)?;
        text::port(&rest[..end])
    })
}

/// `<d>proto<d>addr<d>port<d>` of EPRT; the address family must match `proto`.
fn eprt(s: &[u8], terminated: bool) -> Option<(IpAddr, u16)> {
    let d = delimiter(s)?;
    let mut fields = s[1..].split(|&b| b == d);
    let (proto, addr, port) = (fields.next()?, fields.next()?, fields.next()?);
    // After the closing delimiter only blanks; `split` yields that tail last.
    let tail = fields.next()?;
    if fields.next().is_some() || !blank_tail(tail, terminated) {
        return None;
    }
    let addr = text::ip(addr)?;
    match (proto, addr) {
        (b"1", IpAddr::V4(_)) | (b"2", IpAddr::V6(_)) => Some((addr, text::port(port)?)),
        _ => None,
    }
}
