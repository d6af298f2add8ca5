//! The followers' dynamic ports through the library: the follower's own RTSP
//! and FTP test vectors (with the ports its tests expect, written out here),
//! a SIP offer, the seeds' Figure 7 with the real function, and the corpus
//! (which holds no control messages of these protocols: nothing is announced).

mod common;

use common::{call, corpus, slot, Filter};
use netsift_externs::standard;
use netsift_follow::{ftp, rtsp, segment::segment, sip};
use netsift_testkit::frames::Frame;
use netsift_wire::LinkType;
use std::collections::BTreeSet;

fn tcp(dport: u16, payload: &[u8]) -> Vec<u8> {
    Frame::default()
        .ipv4([10, 0, 0, 2], [10, 0, 0, 1])
        .tcp(40000, dport, 0x18)
        .payload(payload)
        .build()
}

fn udp(dport: u16, payload: &[u8]) -> Vec<u8> {
    Frame::default()
        .ipv4([10, 0, 0, 2], [10, 0, 0, 1])
        .udp(5060, dport)
        .payload(payload)
        .build()
}

/// The ports a `*_ports` function wrote: `n` and then `n` slots.
fn ports(name: &str, frame: &[u8]) -> (i64, Vec<i64>) {
    let mut m = [0x55u8; 64];
    let r = call(&standard(), name, frame, &mut m, 0, 0);
    let n = slot(&m, 0);
    assert_eq!(r, n, "{name} returns the count it writes");
    for i in n as usize + 1..8 {
        assert_eq!(slot(&m, i), 0, "{name}: slots past the count are cleared");
    }
    (n, (1..=n as usize).map(|i| slot(&m, i)).collect())
}

fn figure7_port(frame: &[u8]) -> i64 {
    call(&standard(), "GetDynTCPDPortFromRTSP", frame, &mut [], 0, 0)
}

// crates/follow/tests/rtsp.rs: setup_request, setup_reply,
// several_specs_multicast_and_destination, bad_ports_are_left_out,
// truncated_header_is_not_read, not_rtsp.
const SETUP: &[u8] = b"SETUP rtsp://example.com/media.mp4/streamid=0 RTSP/1.0\r\n\
CSeq: 3\r\n\
User-Agent: LibVLC/3.0.18 (LIVE555 Streaming Media v2016.11.28)\r\n\
Transport: RTP/AVP;unicast;client_port=4588-4589\r\n\r\n";
const REPLY: &[u8] = b"RTSP/1.0 200 OK\r\n\
CSeq: 3\r\n\
Server: GStreamer RTSP server\r\n\
session: 47112344;timeout=60\r\n\
transport: RTP/AVP;unicast;client_port=4588-4589;server_port=6256-6257;source=10.0.0.5;ssrc=1A2B3C4D;mode=\"PLAY\"\r\n\
Date: Thu, 01 Jan 2026 00:00:00 GMT\r\n\r\n";
const MULTI: &[u8] = b"SETUP rtsp://h/s RTSP/1.0\r\n\
Transport: RTP/AVP/UDP;unicast;client_port=3456;destination=\"[2001:db8::1]\", RTP/AVP/TCP;unicast;interleaved=0-1\r\n\r\n";
const BAD: &[u8] = b"RTSP/1.0 200 OK\r\n\
Transport: RTP/AVP;client_port=0-1;server_port=6257-6256;port=70000;source=host.example\r\n\r\n";
const CUT: &[u8] = b"RTSP/1.0 200 OK\r\nTransport: RTP/AVP;unicast;client_port=4588-45";

#[test]
fn rtsp_on_the_followers_vectors() {
    assert_eq!(figure7_port(&tcp(554, SETUP)), 4588);
    assert_eq!(ports("rtsp_ports", &tcp(554, SETUP)), (2, vec![4588, 4589]));
    assert_eq!(figure7_port(&tcp(554, REPLY)), 4588);
    assert_eq!(
        ports("rtsp_ports", &tcp(554, REPLY)),
        (4, vec![4588, 4589, 6256, 6257])
    );
    assert_eq!(figure7_port(&tcp(554, MULTI)), 3456);
    assert_eq!(ports("rtsp_ports", &tcp(554, MULTI)), (1, vec![3456]));
    for junk in [
        BAD,
        CUT,
        b"",
        b"GET / HTTP/1.1\r\n\r\n",
        b"RTSP/1.0 200 OK",
        b"TEARDOWN rtsp://example.com/media.mp4 RTSP/1.0\r\nCSeq: 8\r\nSession: 47112344\r\n\r\n",
    ] {
        assert_eq!(figure7_port(&tcp(554, junk)), 0);
        assert_eq!(ports("rtsp_ports", &tcp(554, junk)), (0, vec![]));
    }
    // Over UDP and behind a VLAN tag as well: the segment is found either way.
    assert_eq!(figure7_port(&udp(554, SETUP)), 4588);
    let tagged = Frame::default()
        .vlan(9)
        .ipv4([10, 0, 0, 2], [10, 0, 0, 1])
        .tcp(40000, 554, 0x18)
        .payload(REPLY)
        .build();
    assert_eq!(figure7_port(&tagged), 4588);
    // A hostile range gives at most seven ports; a server_port alone is the answer
    // of the Figure 7 function when no client_port is given.
    let wide = b"RTSP/1.0 200 OK\r\nTransport: RTP/AVP;server_port=1-65535\r\n\r\n";
    assert_eq!(figure7_port(&tcp(554, wide)), 1);
    assert_eq!(ports("rtsp_ports", &tcp(554, wide)), (7, (1..=7).collect()));
}

#[test]
fn ftp_on_the_followers_vectors() {
    // crates/follow/tests/ftp.rs: 195 * 256 + 149 = 50069, 156 * 256 + 64 = 40000.
    let f = |s: &[u8]| ports("ftp_ports", &tcp(21, s));
    assert_eq!(
        f(b"227 Entering Passive Mode (192,168,1,20,195,149).\r\n"),
        (1, vec![50069])
    );
    assert_eq!(
        f(b"227 Entering Passive Mode (10,1,2,3,156,64).\r\n"),
        (1, vec![40000])
    );
    assert_eq!(
        f(b"229 Entering Extended Passive Mode (|||50000|)\r\n"),
        (1, vec![50000])
    );
    assert_eq!(
        f(b"EPRT |2|1080::8:800:200C:417A|5282|\r\n"),
        (1, vec![5282])
    );
    assert_eq!(
        f(b"PORT 10,0,0,1,195,80\r\n229 Extended Passive Mode (EPSV) OK (|||6446|)\r\n"),
        (2, vec![50000, 6446])
    );
    for junk in [
        &b"227 Entering Passive Mode (10,0,0,256,195,80)\r\n"[..],
        b"227 Entering Passive Mode (10,0,0,1,0,0)\r\n",
        b"227-Entering Passive Mode (10,0,0,1,195,80)\r\n",
        b"227 Entering Passive Mode (10,0,0,1,195,8",
        b"PORT 10,0,0,1,195,80 x\r\n",
    ] {
        assert_eq!(f(junk), (0, vec![]), "{}", String::from_utf8_lossy(junk));
    }
}

#[test]
fn sip_offer() {
    let body = "v=0\r\no=- 1 1 IN IP4 10.0.0.2\r\ns=-\r\nc=IN IP4 10.0.0.2\r\nt=0 0\r\n\
m=audio 49170 RTP/AVP 0\r\nm=video 51372/2 RTP/AVP 31\r\na=rtcp:53020\r\nm=application 5000 udptl t38\r\n";
    let msg = format!(
        "INVITE sip:bob@10.0.0.1 SIP/2.0\r\nCall-ID: a84b4c76e66710\r\n\
Content-Type: application/sdp\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    // Audio: RTP 49170, RTCP 49171. Video, two streams: 51372 with RTCP 53020
    // (a=rtcp), then 51374 and 51375. Then the T.38 port: an eighth port, left out.
    assert_eq!(
        ports("sip_ports", &udp(5060, msg.as_bytes())),
        (
            7,
            vec![49170, 49171, 51372, 53020, 51374, 51375, 5000][..7].to_vec()
        )
    );
    let first = |f: &[u8]| call(&standard(), "GetDynUDPPortFromSIP", f, &mut [], 0, 0);
    assert_eq!(first(&udp(5060, msg.as_bytes())), 49170);
    // A body cut short announces nothing.
    let cut = &msg.as_bytes()[..msg.len() - 10];
    assert_eq!(ports("sip_ports", &udp(5060, cut)), (0, vec![]));
    assert_eq!(first(&udp(5060, cut)), 0);
}

/// Figure 7 (crates/fpl/examples/fig7_rtsp_ports.fpl, the seeds' text) with the
/// real `GetDynTCPDPortFromRTSP`: only the data packets of announced ports pass.
#[test]
fn figure7_with_the_real_function() {
    let text = include_str!("../../fpl/examples/fig7_rtsp_ports.fpl");
    let mut f = Filter::new(text, &standard());
    let mut announced = BTreeSet::new();
    let mut passed = 0;
    for step in 0u16..60 {
        if step % 10 == 3 {
            let port = 5000 + step * 2;
            let msg = format!(
                "SETUP rtsp://10.0.0.1/movie/track{step} RTSP/1.0\r\nCSeq: {step}\r\n\
Transport: RTP/AVP/TCP;unicast;client_port={port}-{}\r\n\r\n",
                port + 1
            );
            assert_eq!(f.run(&tcp(554, msg.as_bytes())), 0, "control packets stay");
            announced.insert(port);
            continue;
        }
        // A reply from the server (source port 554) announces nothing to this filter.
        assert_eq!(f.run(&tcp(40000, REPLY)), 0);
        for dport in [5000 + step * 2, 5000 + (step % 10) * 20 + 6, 6000, 4588] {
            let data = Frame::default()
                .ipv4([10, 0, 0, 1], [10, 0, 0, 2])
                .tcp(3000, dport, 0x10)
                .build();
            let want = announced.contains(&dport);
            assert_eq!(f.run(&data) != 0, want, "step {step}, port {dport}");
            passed += usize::from(want);
        }
    }
    assert_eq!(f.regs[0], 6, "six SETUPs counted in R[0]");
    assert!(passed > 10);
}

/// Figure 7's idea for FTP: the server's `227` replies on port 21 announce
/// where the client will connect; only those data connections pass.
#[test]
fn figure7_for_ftp_passive_mode() {
    let text = "
        IF (PKT.IP_PROTO == PROTO_TCP) THEN
          IF (PKT.TCP_SPORT == 21) THEN
            R[2] = EXTERN(GetDynTCPDPortFromFTP, 0, 0);
            IF (R[2] != 0 && R[0] < 64) THEN
              MEM[R[0]] = R[2];
              R[0]++;
            FI
          ELSE
            FOR (R[1] = 0; R[1] < R[0] && R[1] < 64; R[1]++)
              IF (PKT.TCP_DPORT == MEM[R[1]]) THEN RETURN TRUE; FI
            ROF
          FI
        FI
        RETURN FALSE;";
    let mut f = Filter::new(text, &standard());
    let mut announced = BTreeSet::new();
    for i in 0u16..40 {
        let port = 30000 + i * 7;
        let reply = format!(
            "227 Entering Passive Mode (10,0,0,1,{},{}).\r\n",
            port >> 8,
            port & 0xff
        );
        let from_server = Frame::default()
            .ipv4([10, 0, 0, 1], [10, 0, 0, 2])
            .tcp(21, 40000, 0x18)
            .payload(if i % 4 == 0 {
                b"226 Transfer complete.\r\n"
            } else {
                reply.as_bytes()
            })
            .build();
        assert_eq!(f.run(&from_server), 0);
        if i % 4 != 0 {
            announced.insert(port);
        }
        for dport in [port, port + 1, 21] {
            let data = Frame::default()
                .ipv4([10, 0, 0, 2], [10, 0, 0, 1])
                .tcp(50000, dport, 0x02)
                .build();
            assert_eq!(
                f.run(&data) != 0,
                announced.contains(&dport),
                "port {dport}"
            );
        }
    }
    assert_eq!(f.regs[0] as usize, announced.len());
}

#[test]
fn the_corpus_announces_nothing_the_parsers_do_not() {
    let Some(packets) = corpus() else { return };
    let reg = standard();
    let mut seen = 0;
    for (n, p) in packets.iter().enumerate() {
        let payload = segment(LinkType::EN10MB, p).map_or(&[][..], |s| s.payload);
        let want_rtsp: usize = rtsp::parse(payload).map_or(0, |m| m.transports.len());
        let want_ftp = ftp::announcements(payload).count();
        let want_sip = sip::parse(payload).map_or(0, |m| m.media.len());
        let mut m = [0u8; 64];
        let got_rtsp = call(&reg, "rtsp_ports", p, &mut m, 0, 0);
        let got_ftp = call(&reg, "ftp_ports", p, &mut m, 0, 0);
        let got_sip = call(&reg, "sip_ports", p, &mut m, 0, 0);
        // Each spec, announcement or medium gives at least one port (or fills the seven).
        for (got, want) in [
            (got_rtsp, want_rtsp),
            (got_ftp, want_ftp),
            (got_sip, want_sip),
        ] {
            assert_eq!(got == 0, want == 0, "packet {n}");
        }
        seen += want_rtsp + want_ftp + want_sip;
        assert!(figure7_port(p) == 0 || got_rtsp != 0, "packet {n}");
        let ftp_first = call(&reg, "GetDynTCPDPortFromFTP", p, &mut m, 0, 0);
        let sip_first = call(&reg, "GetDynUDPPortFromSIP", p, &mut m, 0, 0);
        assert_eq!(
            (ftp_first != 0, sip_first != 0),
            (got_ftp != 0, got_sip != 0),
            "packet {n}"
        );
    }
    eprintln!("{} corpus packets, {seen} announcements", packets.len());
}
