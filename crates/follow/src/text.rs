//! Byte-level text helpers shared by the followers: line splitting, header fields,
//! trimming and checked number/address parsing.
//!
//! Everything works on `&[u8]` because control payloads are untrusted and need not
//! be UTF-8; only the slices handed out as `&str` are checked with
//! [`std::str::from_utf8`]. Nothing here indexes without a bound already checked.

use std::net::IpAddr;

/// One line of a payload, without its `\n` or `\r\n`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Line<'a> {
    pub text: &'a [u8],
    /// The line ended with `\n`. An unterminated last line may be cut off by the
    /// segment boundary, so a number running into its end cannot be trusted.
    pub terminated: bool,
}

/// Splits on `\n` and drops one `\r` before it (CRLF or bare LF, as real peers send).
pub(crate) fn lines(data: &[u8]) -> impl Iterator<Item = Line<'_>> {
    let mut rest = data;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (text, terminated) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => {
                let line = &rest[..i];
                rest = &rest[i + 1..];
                (line, true)
            }
            None => (std::mem::take(&mut rest), false),
        };
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        Some(Line { text, terminated })
    })
}

/// Splits a message into its header lines (after the start line) and its body: the
/// bytes after the first empty line, or `None` when no empty line has arrived yet.
pub(crate) fn split_head(data: &[u8]) -> (&[u8], Option<&[u8]>) {
    let mut at = 0;
    for line in data.split_inclusive(|&b| b == b'\n') {
        let next = at + line.len();
        if line == b"\n" || line == b"\r\n" {
            return (&data[..at], Some(&data[next..]));
        }
        at = next;
    }
    (data, None)
}

/// `name: value` of a header line, both trimmed. SIP allows blanks before the colon.
pub(crate) fn header(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = line.iter().position(|&b| b == b':')?;
    let name = trim(&line[..colon]);
    if name.is_empty() || name.iter().any(|b| !is_token(*b)) {
        return None;
    }
    Some((name, trim(&line[colon + 1..])))
}

/// RFC 3261/2616 token characters (method names, header names).
pub(crate) fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-.!%*_+`'~".contains(&b)
}

pub(crate) fn trim(s: &[u8]) -> &[u8] {
    s.trim_ascii()
}

pub(crate) fn eq_ci(a: &[u8], b: &[u8]) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// `s` without the case-insensitive prefix `p`.
pub(crate) fn strip_prefix_ci<'a>(s: &'a [u8], p: &[u8]) -> Option<&'a [u8]> {
    let head = s.get(..p.len())?;
    head.eq_ignore_ascii_case(p).then(|| &s[p.len()..])
}

/// The leading run of ASCII digits as a number (saturating, so huge runs cannot
/// overflow) and the rest. `None` when `s` does not start with a digit.
pub(crate) fn number(s: &[u8]) -> Option<(u32, &[u8])> {
    let n = s.iter().take_while(|b| b.is_ascii_digit()).count();
    if n == 0 {
        return None;
    }
    let v = s[..n].iter().fold(0u32, |v, &d| {
        v.saturating_mul(10).saturating_add(u32::from(d - b'0'))
    });
    Some((v, &s[n..]))
}

/// A whole field that is a non-zero port number and nothing else.
pub(crate) fn port(s: &[u8]) -> Option<u16> {
    match number(s)? {
        (v, []) => u16::try_from(v).ok().filter(|&p| p != 0),
        _ => None,
    }
}

/// A whole field that is an IPv4 or IPv6 literal (std's parser: no allocation, no
/// leading-zero octets).
pub(crate) fn ip(s: &[u8]) -> Option<IpAddr> {
    std::str::from_utf8(s).ok()?.parse().ok()
}

pub(crate) fn utf8(s: &[u8]) -> Option<&str> {
    std::str::from_utf8(s).ok()
}

/// Request or status line of an HTTP-like protocol (SIP, RTSP): `METHOD URI VERSION`
/// or `VERSION CODE REASON`, where VERSION starts with `proto` (e.g. `b"SIP/"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StartLine<'a> {
    Request(&'a str),
    Response(u16),
}

pub(crate) fn start_line<'a>(line: &'a [u8], proto: &[u8]) -> Option<StartLine<'a>> {
    let mut words = line.split(|&b| b == b' ').filter(|w| !w.is_empty());
    let first = words.next()?;
    if strip_prefix_ci(first, proto).is_some() {
        let code = match number(words.next()?)? {
            (c @ 100..=999, []) => c as u16,
            _ => return None,
        };
        return Some(StartLine::Response(code));
    }
    let (_uri, version) = (words.next()?, words.next()?);
    if words.next().is_some() || strip_prefix_ci(version, proto).is_none() {
        return None;
    }
    if !first.iter().all(|&b| is_token(b)) {
        return None;
    }
    Some(StartLine::Request(utf8(first)?))
}
