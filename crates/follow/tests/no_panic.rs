//! Property tests: every follower takes any bytes without panicking, keeps its
//! output invariants (non-zero ports, ordered ranges), and never reads a payload cut
//! short as something the whole payload does not say.

use netsift_follow::{ftp, rtsp, sip};
use proptest::prelude::*;

/// Valid messages of every protocol, mutated by the tests below.
const SAMPLES: &[&[u8]] = &[
    b"227 Entering Passive Mode (192,168,1,20,195,149).\r\n229 Entering Extended Passive Mode (|||50000|)\r\n",
    b"PORT 10,0,0,2,195,82\r\nEPRT |2|1080::8:800:200C:417A|5282|\r\nEPRT |1|132.235.1.2|6275|\r\n227 10,0,0,1,4,1\n",
    b"INVITE sip:bob@biloxi.example.com SIP/2.0\r\nVia: SIP/2.0/UDP pc33.atlanta.example.com\r\n\
Call-ID: a84b4c76e66710@pc33\r\nContent-Type: application/sdp\r\nContent-Length: 144\r\n\r\n\
v=0\r\nc=IN IP4 192.0.2.101\r\nt=0 0\r\nm=audio 49172 RTP/AVP 0 8\r\nm=video 51372/2 RTP/AVP 31\r\n\
c=IN IP6 2001:db8::1\r\na=rtcp:53020 IN IP4 192.0.2.103\r\n",
    b"SIP/2.0 200 OK\r\ni: x@y\r\nc: application/sdp\r\nl: 48\r\n\r\nv=0\r\nc=IN IP4 10.0.0.1\r\nm=audio 4000 RTP/AVP 0\r\n",
    b"RTSP/1.0 200 OK\r\nCSeq: 3\r\nSession: 4711;timeout=60\r\nTransport: RTP/AVP;unicast;client_port=4588-4589;\
server_port=6256-6257;source=10.0.0.5,RTP/AVP;multicast;port=3456-3457;destination=224.2.0.1\r\n\
Transport: RTP/AVP/TCP;interleaved=0-1\r\n\r\n",
    b"SETUP rtsp://example.com/s RTSP/1.0\r\nCSeq: 2\r\ntransport: RTP/AVP;unicast;client_port=4588\r\n\r\n",
];

/// Pieces that the parsers look for, so random sequences reach deep paths.
const PIECES: &[&str] = &[
    "227 ",
    "229 ",
    "PORT ",
    "eprt ",
    "(",
    ")",
    ",",
    "|",
    "!",
    "1",
    "25",
    "255",
    "256",
    "0",
    "65535",
    "\r\n",
    "\n",
    "\r",
    " ",
    "SIP/2.0",
    "INVITE sip:a@b ",
    "BYE x ",
    "RTSP/1.0",
    "SETUP r ",
    "200 ",
    "Call-ID: ",
    "l: ",
    "Content-Length: ",
    "Content-Type: application/sdp",
    "v=0",
    "c=IN IP4 ",
    "c=IN IP6 ",
    "10.0.0.1",
    "::1",
    "m=audio ",
    "/",
    "RTP/AVP",
    "a=rtcp:",
    "Transport: ",
    ";client_port=",
    ";server_port=",
    ";port=",
    ";source=",
    ";destination=",
    "-",
    "\"",
    "[",
    "]",
    ":",
    ";",
    "=",
    "\u{e9}",
    "\u{0}",
];

fn check_ftp(data: &[u8]) {
    for a in ftp::announcements(data) {
        assert_ne!(a.port, 0);
    }
    for line in data.split(|&b| b == b'\n') {
        if let Some(a) = ftp::parse_line(line) {
            assert_ne!(a.port, 0);
        }
    }
}

fn check_media(m: &sip::Media<'_>) {
    assert_ne!(m.port, 0);
    assert!(m.port_count >= 1);
    assert_eq!(m.rtcp_port.is_some(), m.is_rtp());
}

fn check_sip(data: &[u8]) {
    if let Some(msg) = sip::parse(data) {
        assert!(msg.method.is_some() != msg.status.is_some());
        assert!(!msg.body_truncated || msg.media.is_empty());
        msg.media.iter().for_each(check_media);
    }
    sip::sdp(data).iter().for_each(check_media);
}

fn check_rtsp(data: &[u8]) {
    if let Some(msg) = rtsp::parse(data) {
        assert!(msg.method.is_some() != msg.status.is_some());
        for t in &msg.transports {
            for r in [t.client_port, t.server_port, t.port].into_iter().flatten() {
                assert!(r.first != 0 && r.first <= r.last);
            }
        }
    }
}

fn check_all(data: &[u8]) {
    check_ftp(data);
    check_sip(data);
    check_rtsp(data);
}

/// One edit of a sample: overwrite, insert, delete a range, or cut the tail.
#[derive(Clone, Debug)]
enum Edit {
    Set(usize, u8),
    Insert(usize, u8),
    Delete(usize, usize),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Set(i, b)),
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Insert(i, b)),
        (any::<usize>(), 0usize..8).prop_map(|(i, n)| Edit::Delete(i, n)),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply(sample: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut v = sample.to_vec();
    for e in edits {
        let at = |i: usize, len: usize| if len == 0 { 0 } else { i % len };
        match *e {
            Edit::Set(i, b) if !v.is_empty() => {
                let i = at(i, v.len());
                v[i] = b;
            }
            Edit::Insert(i, b) => v.insert(at(i, v.len() + 1), b),
            Edit::Delete(i, n) if !v.is_empty() => {
                let i = at(i, v.len());
                let end = (i + n).min(v.len());
                v.drain(i..end);
            }
            Edit::Truncate(i) => v.truncate(at(i, v.len() + 1)),
            _ => {}
        }
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes(data in prop::collection::vec(any::<u8>(), 0..600)) {
        check_all(&data);
    }

    #[test]
    fn random_pieces(pieces in prop::collection::vec(prop::sample::select(PIECES), 0..60)) {
        check_all(pieces.concat().as_bytes());
    }

    #[test]
    fn mutated_samples(
        k in 0..SAMPLES.len(),
        edits in prop::collection::vec(edit(), 1..6),
    ) {
        check_all(&apply(SAMPLES[k], &edits));
    }

    /// A segment boundary anywhere only ever loses announcements, never changes one.
    #[test]
    fn prefixes_say_no_more_than_the_whole(k in 0..SAMPLES.len(), cut in any::<usize>()) {
        let full = SAMPLES[k];
        let part = &full[..cut % (full.len() + 1)];

        let whole: Vec<_> = ftp::announcements(full).collect();
        let some: Vec<_> = ftp::announcements(part).collect();
        prop_assert!(whole.starts_with(&some), "{:?} vs {:?}", some, whole);

        if let Some(m) = sip::parse(part) {
            let w = sip::parse(full).unwrap();
            prop_assert!(m.media.is_empty() || m.media == w.media);
            prop_assert!(m.call_id.is_none() || m.call_id == w.call_id);
        }
        if let Some(m) = rtsp::parse(part) {
            let w = rtsp::parse(full).unwrap();
            prop_assert!(w.transports.starts_with(&m.transports));
            prop_assert!(m.session.is_none() || m.session == w.session);
        }
    }
}

/// The samples are what the tests above assume: each one parses to something.
#[test]
fn samples_are_valid() {
    assert_eq!(ftp::announcements(SAMPLES[0]).count(), 2);
    assert_eq!(ftp::announcements(SAMPLES[1]).count(), 4);
    assert_eq!(sip::parse(SAMPLES[2]).unwrap().media.len(), 2);
    assert_eq!(sip::parse(SAMPLES[3]).unwrap().media.len(), 1);
    assert_eq!(rtsp::parse(SAMPLES[4]).unwrap().transports.len(), 3);
    assert_eq!(rtsp::parse(SAMPLES[5]).unwrap().transports.len(), 1);
}
