//! SIP (RFC 3261) messages and the SDP (RFC 4566) bodies that announce media flows.
//!
//! [`parse`] reads the first message of a payload and returns a [`Message`]: the
//! method or status, the `Call-ID` (so a tracker can drop a call's flows on `BYE`),
//! and one [`Media`] per SDP `m=` line with a non-zero port.
//!
//! Recognised:
//!
//! * Header names case-insensitively, with the compact forms `i` (Call-ID), `l`
//!   (Content-Length) and `c` (Content-Type).
//! * The body after the first empty line (CRLF CRLF or LF LF), cut to
//!   `Content-Length` when present. When fewer bytes arrived than it announces, no
//!   media are reported and [`Message::body_truncated`] is set: a half SDP could lack
//!   the `c=` or `a=rtcp` line that changes where the flow goes.
//! * SDP only if `Content-Type` is `application/sdp`, or, when it is absent, if the
//!   body starts with `v=`.
//! * `c=IN IP4|IP6 addr[/ttl[/n]]` at session level and media level (media level
//!   wins for its `m=` section); `m=<media> <port>[/<count>] <proto> ...`; and
//!   `a=rtcp:<port> [IN IP4|IP6 <addr>]` (RFC 3605).
//!
//! Deliberately ignored: header folding, several messages in one TCP segment (only
//! the first is read), multipart bodies, `a=rtcp-mux` (RFC 5761: RTCP then shares
//! the RTP port, which is announced anyway), and `m=` lines with port 0 (a refused
//! or disabled stream announces nothing). Method names are case-sensitive
//! (RFC 3261 §7.1), so `bye` is not `BYE`.

use crate::text::{self, StartLine};
use std::net::IpAddr;

/// What a tracker needs from one SIP message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message<'a> {
    /// The request method (`INVITE`, `BYE`, ...); `None` for a response.
    pub method: Option<&'a str>,
    /// The response status code; `None` for a request.
    pub status: Option<u16>,
    /// The `Call-ID` header value, which names the call the media belong to.
    pub call_id: Option<&'a str>,
    /// The message is a `BYE` request: the call's flows can go.
    pub is_bye: bool,
    /// `Content-Length` announces more body than the payload holds; `media` is empty.
    pub body_truncated: bool,
    /// The announced media streams, in `m=` order.
    pub media: Vec<Media<'a>>,
}

/// One SDP media description with a non-zero port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Media<'a> {
    /// `audio`, `video`, `application`, `image`, ...
    pub media: &'a str,
    /// The transport protocol: `RTP/AVP`, `RTP/SAVPF`, `udptl`, `TCP/MSRP`, ...
    pub proto: &'a str,
    /// The media-level `c=` address, else the session-level one; `None` when neither
    /// is an IP literal.
    pub addr: Option<IpAddr>,
    /// The first (RTP) port, never 0.
    pub port: u16,
    /// Streams from `<port>/<count>`, at least 1. For RTP, stream `k` uses ports
    /// `port + 2k` (RTP) and `port + 2k + 1` (RTCP); otherwise `port + k`.
    pub port_count: u16,
    /// The RTCP port for RTP protocols: from `a=rtcp:`, else `port + 1`. `None` for
    /// other protocols.
    pub rtcp_port: Option<u16>,
    /// The RTCP address: from `a=rtcp:` if it gives one, else `addr`.
    pub rtcp_addr: Option<IpAddr>,
}

impl Media<'_> {
    /// RTP-based profiles (`RTP/AVP`, `RTP/SAVP`, `UDP/TLS/RTP/SAVPF`, ...), the ones
    /// with an RTCP companion flow.
    pub fn is_rtp(&self) -> bool {
        self.proto.split('/').any(|p| p.eq_ignore_ascii_case("RTP"))
    }
}

/// Parses the first SIP message of a payload; `None` if it does not start with a
/// SIP request or status line.
pub fn parse(payload: &[u8]) -> Option<Message<'_>> {
    let (head, body) = text::split_head(payload);
    let mut lines = text::lines(head).filter(|l| l.terminated);
    let first = lines.next()?;
    let (method, status) = match text::start_line(first.text, b"SIP/2.0")? {
        StartLine::Request(m) => (Some(m), None),
        StartLine::Response(c) => (None, Some(c)),
    };
    let mut msg = Message {
        method,
        status,
        call_id: None,
        is_bye: method == Some("BYE"),
        body_truncated: false,
        media: Vec::new(),
    };
    let (mut length, mut sdp_type) = (None, None);
    for (name, value) in lines.filter_map(|l| text::header(l.text)) {
        if (text::eq_ci(name, b"Call-ID") || text::eq_ci(name, b"i")) && msg.call_id.is_none() {
            // A repeated header (malformed) does not rename the call: the first wins,
            // so a message cut by a segment boundary never names another call than
            // the whole message does.
            msg.call_id = text::utf8(value).filter(|v| !v.is_empty());
        } else if text::eq_ci(name, b"Content-Length") || text::eq_ci(name, b"l") {
            // An unreadable length is treated as absent: the body runs to the end.
            length = text::number(value).and_then(|(n, rest)| rest.is_empty().then_some(n));
        } else if text::eq_ci(name, b"Content-Type") || text::eq_ci(name, b"c") {
            sdp_type = Some(is_sdp_type(value));
        }
    }
    let Some(mut body) = body else {
        return Some(msg);
    };
    if let Some(n) = length {
        match body.get(..n as usize) {
            Some(b) => body = b,
            None => {
                msg.body_truncated = true;
                return Some(msg);
            }
        }
    }
    if sdp_type.unwrap_or_else(|| body.starts_with(b"v=")) {
        msg.media = sdp(body);
    }
    Some(msg)
}

/// `application/sdp`, with or without parameters.
fn is_sdp_type(value: &[u8]) -> bool {
    let mime = value.split(|&b| b == b';').next().unwrap_or(value);
    text::eq_ci(text::trim(mime), b"application/sdp")
}

/// The media streams of an SDP body. The body is complete here, so its last line
/// counts even without a line end.
pub fn sdp(body: &[u8]) -> Vec<Media<'_>> {
    let mut out = Vec::new();
    let mut session_addr = None;
    // The `m=` section being read, and the `c=` seen in it (`Some(None)`: a `c=`
    // that is not an IP literal, which still overrides the session's).
    let mut cur: Option<(Option<Media<'_>>, Option<Option<IpAddr>>)> = None;
    for l in text::lines(body) {
        let (kind, value) = match l.text {
            [k, b'=', v @ ..] => (*k, v),
            _ => continue,
        };
        match (kind, &mut cur) {
            (b'c', None) => session_addr = connection(value),
            (b'c', Some((_, c))) => *c = Some(connection(value)),
            (b'm', _) => {
                out.extend(cur.take().and_then(|(m, c)| finish(m?, c, session_addr)));
                cur = Some((media_line(value), None));
            }
            (b'a', Some((Some(m), _))) => {
                if let Some((port, addr)) = value.strip_prefix(b"rtcp:").and_then(rtcp) {
                    m.rtcp_port = Some(port);
                    m.rtcp_addr = addr;
                }
            }
            _ => {}
        }
    }
    out.extend(cur.and_then(|(m, c)| finish(m?, c, session_addr)));
    out
}

/// Fills in the addresses once the whole `m=` section has been read.
fn finish<'a>(
    mut m: Media<'a>,
    media_addr: Option<Option<IpAddr>>,
    session_addr: Option<IpAddr>,
) -> Option<Media<'a>> {
    m.addr = media_addr.unwrap_or(session_addr);
    if m.is_rtp() {
        // `rtcp_port` holds an `a=rtcp` value here; without one RTCP is the next port.
        m.rtcp_port = m.rtcp_port.or_else(|| m.port.checked_add(1));
        m.rtcp_addr = m.rtcp_addr.or(m.addr);
    } else {
        m.rtcp_port = None;
        m.rtcp_addr = None;
    }
    Some(m)
}

/// `<media> <port>[/<count>] <proto> <fmt>...` with a non-zero port whose streams
/// all fit below 65536; addresses are filled in by [`finish`].
fn media_line(v: &[u8]) -> Option<Media<'_>> {
    let mut words = v.split(|&b| b == b' ').filter(|w| !w.is_empty());
    let (media, ports, proto) = (words.next()?, words.next()?, words.next()?);
    let (port, count) = match ports.iter().position(|&b| b == b'/') {
        Some(i) => (text::port(&ports[..i])?, text::port(&ports[i + 1..])?),
        None => (text::port(ports)?, 1),
    };
    let m = Media {
        media: text::utf8(media)?,
        proto: text::utf8(proto)?,
        addr: None,
        port,
        port_count: count,
        rtcp_port: None,
        rtcp_addr: None,
    };
    let per_stream = if m.is_rtp() { 2 } else { 1 };
    // The last port used (RTCP of the last RTP stream) must exist.
    let last = u32::from(port) + per_stream * (u32::from(count) - 1) + per_stream - 1;
    (last <= 0xffff).then_some(m)
}

/// The address of `IN IP4|IP6 <addr>[/ttl[/n]]`, if it is an IP literal of the
/// stated family (FQDNs are legal SDP but name no flow we can filter).
fn connection(v: &[u8]) -> Option<IpAddr> {
    let mut words = v.split(|&b| b == b' ').filter(|w| !w.is_empty());
    let (net, family, addr) = (words.next()?, words.next()?, words.next()?);
    if !text::eq_ci(net, b"IN") {
        return None;
    }
    let addr = addr.split(|&b| b == b'/').next()?;
    match (text::ip(addr)?, family) {
        (a @ IpAddr::V4(_), f) if text::eq_ci(f, b"IP4") => Some(a),
        (a @ IpAddr::V6(_), f) if text::eq_ci(f, b"IP6") => Some(a),
        _ => None,
    }
}

/// `<port> [IN IP4|IP6 <addr>]` of `a=rtcp:`. A malformed attribute is ignored as a
/// whole, so the default `port + 1` stands.
fn rtcp(v: &[u8]) -> Option<(u16, Option<IpAddr>)> {
    let v = text::trim(v);
    let (port, rest) = match v.iter().position(|&b| b == b' ') {
        Some(i) => (&v[..i], Some(&v[i + 1..])),
        None => (v, None),
    };
    let port = text::port(port)?;
    match rest {
        None => Some((port, None)),
        Some(r) => Some((port, Some(connection(r)?))),
    }
}
