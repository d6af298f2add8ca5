//! RTSP (RFC 2326) messages: the `Transport:` headers of SETUP requests and replies,
//! which announce the RTP/RTCP ports, plus the `Session:` id and TEARDOWN so a
//! tracker can drop a session's flows.
//!
//! Recognised: a request (`METHOD URI RTSP/x.y`) or reply (`RTSP/x.y CODE ...`)
//! start line, header names case-insensitively, every `Transport:` header of any
//! message (a tracker pairs SETUP and reply by CSeq or Session if it cares), and in
//! it every comma-separated spec `proto/profile[/lower];param;...` with the
//! parameters `client_port`, `server_port`, `port` (multicast) as `a-b` or `a`,
//! `source` and `destination`. Parameter names are case-insensitive. Only header
//! lines that ended with a line end count, so a header cut by a segment boundary
//! is not misread.
//!
//! Deliberately ignored: header folding, bodies (a DESCRIBE reply's SDP announces no
//! flow by itself; [`crate::sip::sdp`] can read it), `interleaved=` (the data stays on
//! the RTSP connection), `ssrc`, `ttl`, `layers`, `mode`, and host names in
//! `source`/`destination` (only IP literals name a flow we can filter). Method names
//! are case-sensitive (RFC 2326 §6.1).

use crate::text::{self, StartLine};
use std::net::IpAddr;

/// What a tracker needs from one RTSP message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message<'a> {
    /// The request method (`SETUP`, `PLAY`, `TEARDOWN`, ...); `None` for a reply.
    pub method: Option<&'a str>,
    /// The reply status code; `None` for a request.
    pub status: Option<u16>,
    /// The `Session:` id, without `;timeout=`.
    pub session: Option<&'a str>,
    /// The message is a TEARDOWN request: the session's flows can go.
    pub is_teardown: bool,
    /// Every transport spec of every `Transport:` header, in order.
    pub transports: Vec<TransportSpec<'a>>,
}

/// One comma-separated alternative of a `Transport:` header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransportSpec<'a> {
    /// `RTP/AVP`, `RTP/AVP/UDP` or `RTP/AVP/TCP`, as written. UDP unless the lower
    /// transport says TCP.
    pub protocol: &'a str,
    /// The `client_port=` parameter: where the client receives the media.
    pub client_port: Option<PortRange>,
    /// The `server_port=` parameter: where the server sends the media from.
    pub server_port: Option<PortRange>,
    /// The multicast `port=` parameter.
    pub port: Option<PortRange>,
    /// The `source=` parameter: the address the server sends the media from.
    pub source: Option<IpAddr>,
    /// The `destination=` parameter: the address the media is sent to.
    pub destination: Option<IpAddr>,
}

/// An inclusive port range; `a` alone is `a-a`. Never contains 0, `first <= last`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PortRange {
    /// The lowest port of the range.
    pub first: u16,
    /// The highest port of the range.
    pub last: u16,
}

/// Parses the head of one RTSP message; `None` if the payload does not start with
/// an RTSP request or status line.
pub fn parse(payload: &[u8]) -> Option<Message<'_>> {
    let (head, _body) = text::split_head(payload);
    let mut lines = text::lines(head).filter(|l| l.terminated);
    let (method, status) = match text::start_line(lines.next()?.text, b"RTSP/")? {
        StartLine::Request(m) => (Some(m), None),
        StartLine::Response(c) => (None, Some(c)),
    };
    let mut msg = Message {
        method,
        status,
        session: None,
        is_teardown: method == Some("TEARDOWN"),
        transports: Vec::new(),
    };
    for (name, value) in lines.filter_map(|l| text::header(l.text)) {
        if text::eq_ci(name, b"Transport") {
            msg.transports.extend(specs(value).filter_map(spec));
        } else if text::eq_ci(name, b"Session") && msg.session.is_none() {
            // The first Session header wins, as the first Call-ID does in SIP: a
            // prefix of the message then never names another session.
            let id = value.split(|&b| b == b';').next().map(text::trim);
            msg.session = id.and_then(text::utf8).filter(|s| !s.is_empty());
        }
    }
    Some(msg)
}

/// Splits a header value on commas outside double quotes (`mode="PLAY"` may quote).
fn specs(v: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut quoted = false;
    v.split(move |&b| {
        if b == b'"' {
            quoted = !quoted;
        }
        b == b',' && !quoted
    })
}

fn spec(s: &[u8]) -> Option<TransportSpec<'_>> {
    let mut params = s.split(|&b| b == b';').map(text::trim);
    let protocol = params.next()?;
    if protocol.is_empty() || !protocol.iter().all(|&b| text::is_token(b) || b == b'/') {
        return None;
    }
    let mut t = TransportSpec {
        protocol: text::utf8(protocol)?,
        client_port: None,
        server_port: None,
        port: None,
        source: None,
        destination: None,
    };
    for p in params {
        let (name, value) = match p.iter().position(|&b| b == b'=') {
            Some(i) => (text::trim(&p[..i]), text::trim(&p[i + 1..])),
            None => continue,
        };
        let is = |n: &[u8]| text::eq_ci(name, n);
        if is(b"client_port") {
            t.client_port = range(value);
        } else if is(b"server_port") {
            t.server_port = range(value);
        } else if is(b"port") {
            t.port = range(value);
        } else if is(b"source") {
            t.source = address(value);
        } else if is(b"destination") {
            t.destination = address(value);
        }
    }
    Some(t)
}

fn range(v: &[u8]) -> Option<PortRange> {
    let (first, last) = match v.iter().position(|&b| b == b'-') {
        Some(i) => (text::port(&v[..i])?, text::port(&v[i + 1..])?),
        None => (text::port(v)?, text::port(v)?),
    };
    (first <= last).then_some(PortRange { first, last })
}

/// An IP literal, also quoted or in brackets as RTSP 2.0 peers write IPv6.
fn address(v: &[u8]) -> Option<IpAddr> {
    let v = v
        .strip_prefix(b"\"")
        .and_then(|v| v.strip_suffix(b"\""))
        .unwrap_or(v);
    let v = v
        .strip_prefix(b"[")
        .and_then(|v| v.strip_suffix(b"]"))
        .unwrap_or(v);
    text::ip(v)
}
