//! The FTP, SIP/SDP and RTSP parsers on arbitrary bytes: they never panic; every
//! announced port is non-zero, ranges are ordered, a message is a request or a reply
//! and never both; a payload cut anywhere says no more than the whole (FTP
//! announcements of a prefix are a prefix of the whole's; an RTSP prefix's transports
//! start the whole's; a SIP or RTSP prefix names the same call or session, if any;
//! SIP media are not compared, see `check_sip`);
//! and a rendering of what was parsed parses back to the same thing (FTP
//! announcements, RTSP transport specs). The follower has its own target, `follower`
//! (building one costs a filter compilation, which would slow these down 50 times).
#![no_main]

use libfuzzer_sys::fuzz_target;
use netsift_follow::ftp::{self, Announce, AnnounceKind};
use netsift_follow::rtsp::{self, TransportSpec};
use netsift_follow::sip;
use std::net::IpAddr;

fn render_ftp(a: &Announce) -> String {
    let p = (a.port >> 8, a.port & 0xff);
    match (a.kind, a.addr) {
        (AnnounceKind::Passive, None) => {
            format!("229 Entering Extended Passive Mode (|||{}|)", a.port)
        }
        (AnnounceKind::Passive, Some(IpAddr::V4(v))) => {
            let o = v.octets();
            format!(
                "227 Entering Passive Mode ({},{},{},{},{},{})",
                o[0], o[1], o[2], o[3], p.0, p.1
            )
        }
        (AnnounceKind::Active, Some(IpAddr::V4(v))) => {
            let o = v.octets();
            format!("PORT {},{},{},{},{},{}", o[0], o[1], o[2], o[3], p.0, p.1)
        }
        (AnnounceKind::Active, Some(IpAddr::V6(v))) => format!("EPRT |2|{v}|{}|", a.port),
        (k, addr) => panic!("no FTP line announces {k:?} at {addr:?}"),
    }
}

fn check_ftp(data: &[u8], cut: usize) {
    let whole: Vec<Announce> = ftp::announcements(data).collect();
    for a in &whole {
        assert_ne!(a.port, 0);
        let line = render_ftp(a);
        assert_eq!(ftp::parse_line(line.as_bytes()), Some(*a), "{line:?}");
    }
    for line in data.split(|&b| b == b'\n') {
        if let Some(a) = ftp::parse_line(line) {
            assert_ne!(a.port, 0);
        }
    }
    let part: Vec<Announce> = ftp::announcements(&data[..cut]).collect();
    assert!(whole.starts_with(&part), "prefix {part:?} of {whole:?}");
}

fn check_media(m: &sip::Media<'_>) {
    assert_ne!(m.port, 0);
    assert!(m.port_count >= 1);
    assert_eq!(m.rtcp_port.is_some(), m.is_rtp());
}

fn check_sip(data: &[u8], cut: usize) {
    if let Some(msg) = sip::parse(data) {
        assert!(msg.method.is_some() != msg.status.is_some());
        assert!(!msg.body_truncated || msg.media.is_empty());
        msg.media.iter().for_each(check_media);
        // Only the head is compared: a body without a (readable) Content-Length runs
        // to the end of the payload, as a UDP datagram is one message, so a cut body
        // may legitimately describe other media (the parser's contract; SIP over TCP
        // must send Content-Length).
        if let Some(m) = sip::parse(&data[..cut]) {
            assert!(
                m.call_id.is_none() || m.call_id == msg.call_id,
                "prefix call-id"
            );
        }
    }
    sip::sdp(data).iter().for_each(check_media);
}

fn render_range(name: &str, r: Option<rtsp::PortRange>) -> String {
    match r {
        Some(r) if r.first == r.last => format!(";{name}={}", r.first),
        Some(r) => format!(";{name}={}-{}", r.first, r.last),
        None => String::new(),
    }
}

fn render_transport(t: &TransportSpec<'_>) -> String {
    let mut s = format!("RTSP/1.0 200 OK\r\nTransport: {}", t.protocol);
    s += &render_range("client_port", t.client_port);
    s += &render_range("server_port", t.server_port);
    s += &render_range("port", t.port);
    if let Some(a) = t.source {
        s += &format!(";source={a}");
    }
    if let Some(a) = t.destination {
        s += &format!(";destination={a}");
    }
    s + "\r\n\r\n"
}

fn check_rtsp(data: &[u8], cut: usize) {
    let Some(msg) = rtsp::parse(data) else {
        return;
    };
    assert!(msg.method.is_some() != msg.status.is_some());
    for t in &msg.transports {
        for r in [t.client_port, t.server_port, t.port].into_iter().flatten() {
            assert!(r.first != 0 && r.first <= r.last);
        }
        let text = render_transport(t);
        let back = rtsp::parse(text.as_bytes()).expect("a rendered reply parses");
        assert_eq!(back.transports, vec![*t], "{text:?}");
    }
    if let Some(m) = rtsp::parse(&data[..cut]) {
        assert!(
            msg.transports.starts_with(&m.transports),
            "prefix transports"
        );
        assert!(
            m.session.is_none() || m.session == msg.session,
            "prefix session"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, payload)) = data.split_first() else {
        return;
    };
    // Where the payload is cut for the prefix properties: at sel/255 of it.
    let cut = sel as usize * payload.len() / 255;
    check_ftp(payload, cut);
    check_sip(payload, cut);
    check_rtsp(payload, cut);
});
