//! SIP/SDP follower: full INVITE and 200 OK messages, compact forms, and junk.

use netsift_follow::sip::{parse, sdp, Media};
use std::net::IpAddr;

fn ip(s: &str) -> Option<IpAddr> {
    Some(s.parse().unwrap())
}

/// CRLF line ends and a correct Content-Length, as a phone sends them.
fn message(head: &str, body: &str) -> Vec<u8> {
    let body = body.replace('\n', "\r\n");
    let head = head.replace('\n', "\r\n");
    format!("{head}Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

const INVITE_HEAD: &str = "INVITE sip:bob@biloxi.example.com SIP/2.0
Via: SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bKnashds8
Max-Forwards: 70
To: Bob <sip:bob@biloxi.example.com>
From: Alice <sip:alice@atlanta.example.com>;tag=1928301774
Call-ID: a84b4c76e66710@pc33.atlanta.example.com
CSeq: 314159 INVITE
Contact: <sip:alice@pc33.atlanta.example.com>
Content-Type: application/sdp
";

const INVITE_SDP: &str = "v=0
o=alice 2890844526 2890844526 IN IP4 pc33.atlanta.example.com
s=Session SDP
c=IN IP4 192.0.2.101
t=0 0
m=audio 49172 RTP/AVP 0 8 97
a=rtpmap:0 PCMU/8000
a=rtpmap:8 PCMA/8000
a=rtpmap:97 iLBC/8000
m=video 51372 RTP/AVP 31 32
c=IN IP4 192.0.2.102
a=rtcp:53020 IN IP4 192.0.2.103
a=rtpmap:31 H261/90000
";

#[test]
fn invite_with_audio_and_video() {
    let raw = message(INVITE_HEAD, INVITE_SDP);
    let m = parse(&raw).unwrap();
    assert_eq!(m.method, Some("INVITE"));
    assert_eq!(m.status, None);
    assert_eq!(m.call_id, Some("a84b4c76e66710@pc33.atlanta.example.com"));
    assert!(!m.is_bye && !m.body_truncated);
    assert_eq!(
        m.media,
        [
            Media {
                media: "audio",
                proto: "RTP/AVP",
                addr: ip("192.0.2.101"),
                port: 49172,
                port_count: 1,
                rtcp_port: Some(49173),
                rtcp_addr: ip("192.0.2.101"),
            },
            Media {
                media: "video",
                proto: "RTP/AVP",
                addr: ip("192.0.2.102"),
                port: 51372,
                port_count: 1,
                rtcp_port: Some(53020),
                rtcp_addr: ip("192.0.2.103"),
            },
        ]
    );
}

#[test]
fn ok_with_ipv6_sdp_and_a_refused_stream() {
    let head = "SIP/2.0 200 OK
Via: SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bKnashds8;received=192.0.2.1
To: Bob <sip:bob@biloxi.example.com>;tag=a6c85cf
From: Alice <sip:alice@atlanta.example.com>;tag=1928301774
Call-ID: a84b4c76e66710@pc33.atlanta.example.com
CSeq: 314159 INVITE
Contact: <sip:bob@192.0.2.4>
Content-Type: application/sdp; charset=utf-8
";
    let body = "v=0
o=bob 2808844564 2808844564 IN IP6 2001:db8::4
s=-
c=IN IP6 2001:db8::4
t=0 0
m=audio 3456 RTP/AVP 0
a=rtcp:3460
m=video 0 RTP/AVP 31
m=application 5060 udp sip
";
    let raw = message(head, body);
    let m = parse(&raw).unwrap();
    assert_eq!((m.method, m.status), (None, Some(200)));
    let a = ip("2001:db8::4");
    assert_eq!(
        m.media,
        [
            Media {
                media: "audio",
                proto: "RTP/AVP",
                addr: a,
                port: 3456,
                port_count: 1,
                rtcp_port: Some(3460),
                rtcp_addr: a,
            },
            Media {
                media: "application",
                proto: "udp",
                addr: a,
                port: 5060,
                port_count: 1,
                rtcp_port: None,
                rtcp_addr: None,
            },
        ]
    );
}

#[test]
fn compact_headers_lf_only_and_port_count() {
    let raw = b"INVITE sip:x@example.com SIP/2.0\n\
i: 12345@host\n\
c: Application/SDP\n\
l: 79\n\
\n\
v=0\n\
c=IN IP4 224.2.36.42/127\n\
m=video 49170/2 RTP/AVP 31\n\
m=image 6000 udptl t38\n";
    // l: counts the body's bytes; check the test data is what it says.
    assert_eq!(
        raw.len() - raw.windows(2).position(|w| w == b"\n\n").unwrap() - 2,
        79
    );
    let m = parse(raw).unwrap();
    assert_eq!(m.call_id, Some("12345@host"));
    assert_eq!(m.media.len(), 2);
    assert_eq!(m.media[0].addr, ip("224.2.36.42"));
    assert_eq!((m.media[0].port, m.media[0].port_count), (49170, 2));
    assert_eq!(m.media[0].rtcp_port, Some(49171));
    assert_eq!((m.media[1].media, m.media[1].proto), ("image", "udptl"));
    assert!(!m.media[1].is_rtp() && m.media[0].is_rtp());
}

#[test]
fn bye_reports_the_call() {
    let raw = b"BYE sip:alice@pc33.atlanta.example.com SIP/2.0\r\n\
Via: SIP/2.0/UDP 192.0.2.4;branch=z9hG4bKnashds10\r\n\
Call-ID:   a84b4c76e66710@pc33.atlanta.example.com  \r\n\
CSeq: 231 BYE\r\n\
Content-Length: 0\r\n\r\n";
    let m = parse(raw).unwrap();
    assert!(m.is_bye);
    assert_eq!(m.call_id, Some("a84b4c76e66710@pc33.atlanta.example.com"));
    assert!(m.media.is_empty());
    // Methods are case-sensitive (RFC 3261 §7.1).
    let lower = parse(b"bye sip:a@b SIP/2.0\r\n\r\n").unwrap();
    assert!(!lower.is_bye);
}

#[test]
fn body_shorter_than_content_length_reports_no_media() {
    let raw = message(INVITE_HEAD, INVITE_SDP);
    let cut = &raw[..raw.len() - 10];
    let m = parse(cut).unwrap();
    assert!(m.body_truncated && m.media.is_empty());
    assert_eq!(m.call_id, Some("a84b4c76e66710@pc33.atlanta.example.com"));
}

#[test]
fn content_length_bounds_the_body() {
    let mut raw = message(
        INVITE_HEAD,
        "v=0\nc=IN IP4 10.0.0.1\nm=audio 4000 RTP/AVP 0\n",
    );
    raw.extend_from_slice(b"m=audio 5000 RTP/AVP 0\r\n");
    let m = parse(&raw).unwrap();
    assert_eq!(m.media.len(), 1);
    assert_eq!(m.media[0].port, 4000);
}

#[test]
fn other_content_types_are_not_read() {
    let head = INVITE_HEAD.replace("application/sdp", "application/isup");
    let raw = message(&head, INVITE_SDP);
    assert!(parse(&raw).unwrap().media.is_empty());
    // No Content-Type: read only what looks like SDP.
    let head = INVITE_HEAD.replace("Content-Type: application/sdp\n", "");
    assert_eq!(parse(&message(&head, INVITE_SDP)).unwrap().media.len(), 2);
    assert!(parse(&message(&head, "hello\nm=audio 1 RTP/AVP 0\n"))
        .unwrap()
        .media
        .is_empty());
}

#[test]
fn sdp_edge_cases() {
    // Unparseable media-level c= overrides the session's address with "unknown".
    let m = sdp(b"v=0\r\nc=IN IP4 10.0.0.1\r\nm=audio 4000 RTP/AVP 0\r\nc=IN IP4 host.example\r\n");
    assert_eq!((m[0].addr, m[0].rtcp_addr), (None, None));
    // Family mismatch, missing c=, last line without CRLF, port 65535 has no RTCP port.
    let m = sdp(b"v=0\r\nc=IN IP6 10.0.0.1\r\nm=audio 65535 RTP/AVP 0");
    assert!(m.is_empty(), "65535 leaves no room for RTCP");
    let m = sdp(b"v=0\r\nc=IN IP6 10.0.0.1\r\nm=audio 65534 TCP/MSRP *");
    assert_eq!((m[0].addr, m[0].port, m[0].rtcp_port), (None, 65534, None));
    // Bad ports, counts and lines.
    for body in [
        &b"m=audio 0 RTP/AVP 0\r\n"[..],
        b"m=audio 65536 RTP/AVP 0\r\n",
        b"m=audio 4000/0 RTP/AVP 0\r\n",
        b"m=audio 65530/4 RTP/AVP 0\r\n",
        b"m=audio -1 RTP/AVP 0\r\n",
        b"m=audio 4000\r\n",
        b"m=\r\n",
        b"m audio 4000 RTP/AVP 0\r\n",
    ] {
        assert_eq!(sdp(body), [], "{}", String::from_utf8_lossy(body));
    }
    // A malformed a=rtcp is ignored as a whole.
    let m =
        sdp(b"c=IN IP4 10.0.0.1\r\nm=audio 4000 RTP/AVP 0\r\na=rtcp:0\r\na=rtcp:5000 IN IP4 x\r\n");
    assert_eq!(m[0].rtcp_port, Some(4001));
}

#[test]
fn not_sip() {
    for payload in [
        &b""[..],
        b"\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
        b"INVITE sip:bob@example.com SIP/2.0",
        b"SIP/2.0 20 OK\r\n\r\n",
        b"SIP/2.0 OK\r\n\r\n",
        b"INV ITE sip:bob@example.com SIP/2.0\r\n\r\n",
        b"\x00\x01\x02\x03",
    ] {
        assert!(
            parse(payload).is_none(),
            "{}",
            String::from_utf8_lossy(payload)
        );
    }
}

/// A repeated Call-ID does not rename the call: the first counts, so the message cut
/// before its second Call-ID names the same call as the whole (found by the `follow`
/// fuzz target, where the last one counted and the two differed).
#[test]
fn the_first_call_id_counts() {
    let whole = b"INVITE sip:bob@b.example SIP/2.0\r\nCall-ID: first@pc33\r\n\
i: second@pc33\r\nCall-ID: third@pc33\r\n\r\n";
    assert_eq!(parse(whole).unwrap().call_id, Some("first@pc33"));
    let cut = &whole[..whole.len() - 30];
    assert_eq!(parse(cut).unwrap().call_id, Some("first@pc33"));
    // An empty first value names no call; a later one then does.
    let empty = b"BYE sip:x SIP/2.0\r\nCall-ID: \r\nCall-ID: later@h\r\n\r\n";
    assert_eq!(parse(empty).unwrap().call_id, Some("later@h"));
}
