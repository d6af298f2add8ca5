//! RTSP follower: SETUP requests and replies, TEARDOWN, and junk.

use netsift_follow::rtsp::{parse, PortRange, TransportSpec};
use std::net::IpAddr;

fn range(first: u16, last: u16) -> Option<PortRange> {
    Some(PortRange { first, last })
}

fn ip(s: &str) -> Option<IpAddr> {
    Some(s.parse().unwrap())
}

const UDP: TransportSpec<'static> = TransportSpec {
    protocol: "RTP/AVP",
    client_port: None,
    server_port: None,
    port: None,
    source: None,
    destination: None,
};

#[test]
fn setup_request() {
    let raw = b"SETUP rtsp://example.com/media.mp4/streamid=0 RTSP/1.0\r\n\
CSeq: 3\r\n\
User-Agent: LibVLC/3.0.18 (LIVE555 Streaming Media v2016.11.28)\r\n\
Transport: RTP/AVP;unicast;client_port=4588-4589\r\n\r\n";
    let m = parse(raw).unwrap();
    assert_eq!((m.method, m.status, m.session), (Some("SETUP"), None, None));
    assert!(!m.is_teardown);
    assert_eq!(
        m.transports,
        [TransportSpec {
            client_port: range(4588, 4589),
            ..UDP
        }]
    );
}

#[test]
fn setup_reply() {
    let raw = b"RTSP/1.0 200 OK\r\n\
CSeq: 3\r\n\
Server: GStreamer RTSP server\r\n\
session: 47112344;timeout=60\r\n\
transport: RTP/AVP;unicast;client_port=4588-4589;server_port=6256-6257;source=10.0.0.5;ssrc=1A2B3C4D;mode=\"PLAY\"\r\n\
Date: Thu, 01 Jan 2026 00:00:00 GMT\r\n\r\n";
    let m = parse(raw).unwrap();
    assert_eq!((m.method, m.status), (None, Some(200)));
    assert_eq!(m.session, Some("47112344"));
    assert_eq!(
        m.transports,
        [TransportSpec {
            client_port: range(4588, 4589),
            server_port: range(6256, 6257),
            source: ip("10.0.0.5"),
            ..UDP
        }]
    );
}

#[test]
fn several_specs_multicast_and_destination() {
    let raw = b"SETUP rtsp://example.com/foo/bar/baz.rm RTSP/1.0\r\n\
CSeq: 302\r\n\
Transport: RTP/AVP;multicast;ttl=127;mode=\"PLAY,RECORD\";port=3456-3457;destination=224.2.0.1,\r\n    \
RTP/AVP/UDP;unicast;client_port=3456;DESTINATION=[2001:db8::1],\r\n\
 RTP/AVP/TCP;unicast;interleaved=0-1\r\n\r\n";
    // The second and third specs sit on folded lines, which are deliberately not read.
    let m = parse(raw).unwrap();
    assert_eq!(
        m.transports,
        [
            TransportSpec {
                port: range(3456, 3457),
                destination: ip("224.2.0.1"),
                ..UDP
            },
            // The empty spec after the trailing comma is dropped.
        ]
    );
    let raw = b"SETUP rtsp://h/s RTSP/1.0\r\n\
Transport: RTP/AVP/UDP;unicast;client_port=3456;destination=\"[2001:db8::1]\", RTP/AVP/TCP;unicast;interleaved=0-1\r\n\r\n";
    let m = parse(raw).unwrap();
    assert_eq!(
        m.transports,
        [
            TransportSpec {
                protocol: "RTP/AVP/UDP",
                client_port: range(3456, 3456),
                destination: ip("2001:db8::1"),
                ..UDP
            },
            TransportSpec {
                protocol: "RTP/AVP/TCP",
                ..UDP
            },
        ]
    );
}

#[test]
fn teardown() {
    let raw =
        b"TEARDOWN rtsp://example.com/media.mp4 RTSP/1.0\r\nCSeq: 8\r\nSession: 47112344\r\n\r\n";
    let m = parse(raw).unwrap();
    assert!(m.is_teardown);
    assert_eq!(m.session, Some("47112344"));
    assert!(m.transports.is_empty());
    assert!(
        !parse(b"teardown rtsp://x RTSP/1.0\r\n\r\n")
            .unwrap()
            .is_teardown
    );
}

#[test]
fn bad_ports_are_left_out() {
    let raw = b"RTSP/1.0 200 OK\r\n\
Transport: RTP/AVP;client_port=0-1;server_port=6257-6256;port=70000;source=host.example\r\n\r\n";
    let m = parse(raw).unwrap();
    assert_eq!(m.transports, [UDP]);
    let raw = b"RTSP/1.0 200 OK\r\nTransport: RTP/AVP;client_port=4588-;server_port=-6257\r\n\r\n";
    assert_eq!(parse(raw).unwrap().transports, [UDP]);
}

#[test]
fn truncated_header_is_not_read() {
    let full = b"RTSP/1.0 200 OK\r\nTransport: RTP/AVP;unicast;client_port=4588-4589\r\n\r\n";
    // Cut inside "4589": the unterminated header could have said 45890.
    let cut = &full[..full.len() - 5];
    assert!(parse(cut).unwrap().transports.is_empty());
    // Without the empty line the terminated headers still count.
    let cut = &full[..full.len() - 2];
    assert_eq!(parse(cut).unwrap().transports.len(), 1);
}

#[test]
fn not_rtsp() {
    for payload in [
        &b""[..],
        b"$\x00\x00\x0c\x80\x60\x00\x01",
        b"GET / HTTP/1.1\r\n\r\n",
        b"RTSP/1.0 200 OK",
        b"RTSP/1.0 2000 OK\r\n\r\n",
        b"SETUP rtsp://x SIP/2.0\r\n\r\n",
    ] {
        assert!(
            parse(payload).is_none(),
            "{}",
            String::from_utf8_lossy(payload)
        );
    }
}

/// A repeated Session header does not change the session: the first counts, as a
/// prefix of the message would say (the `follow` fuzz target's prefix property).
#[test]
fn the_first_session_counts() {
    let whole = b"RTSP/1.0 200 OK\r\nCSeq: 3\r\nSession: 4711;timeout=60\r\nSession: 99\r\n\r\n";
    assert_eq!(parse(whole).unwrap().session, Some("4711"));
    let cut = &whole[..whole.len() - 15];
    assert_eq!(parse(cut).unwrap().session, Some("4711"));
}
