//! The follower end to end on hand-made frames: what each protocol announces becomes
//! traffic that is kept, and BYE, TEARDOWN, FIN, idleness and unused expectations
//! take it out.

mod common;
use common::*;
use netsift_follow::{Mode, Protocol, Timers};
use std::net::Ipv4Addr;

const A: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
const B: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);

fn invite(media: &str, call_id: &str, addr: Ipv4Addr) -> Vec<u8> {
    let sdp = format!("v=0\r\no=- 1 1 IN IP4 {addr}\r\ns=-\r\nc=IN IP4 {addr}\r\nt=0 0\r\n{media}");
    format!(
        "INVITE sip:bob@example.com SIP/2.0\r\nCall-ID: {call_id}\r\nContent-Type: application/sdp\r\nContent-Length: {}\r\n\r\n{sdp}",
        sdp.len()
    )
    .into_bytes()
}

#[test]
fn sip_media_is_followed_until_bye() {
    for mode in [Mode::Passes, Mode::Set] {
        let mut rig = Rig::new(&[Protocol::Sip], mode, Timers::default());
        let rtp = udp(B, 40000, A, 49170, b"rtp");
        let rtcp = udp(B, 40001, A, 49171, b"rtcp");
        assert!(!rig.feed(&rtp, 1));
        let inv = invite("m=audio 49170 RTP/AVP 0\r\n", "abc@host", A);
        assert!(rig.feed(&udp(A, 5060, B, 5060, &inv), 2));
        assert!(rig.feed(&rtp, 3), "RTP to the announced port ({mode:?})");
        assert!(rig.feed(&rtcp, 4), "RTCP on the next port ({mode:?})");
        assert!(
            rig.feed(&udp(A, 49170, B, 40000, b"back"), 5),
            "the flow's reply"
        );
        let bye =
            b"BYE sip:bob@example.com SIP/2.0\r\nCall-ID: abc@host\r\nContent-Length: 0\r\n\r\n";
        assert!(rig.feed(&udp(B, 5060, A, 5060, bye), 6));
        assert!(!rig.feed(&rtp, 7), "gone after BYE ({mode:?})");
        assert!(!rig.feed(&rtcp, 8));
        assert_eq!(rig.f.stats().ended, 1);
    }
}

#[test]
fn rtsp_transport_ports_are_followed_until_teardown() {
    for mode in [Mode::Passes, Mode::Set] {
        let mut rig = Rig::new(&[Protocol::Rtsp], mode, Timers::default());
        rig.all(&handshake(B, 50000, A, 554));
        let reply = b"RTSP/1.0 200 OK\r\nCSeq: 3\r\nSession: 12345678\r\nTransport: RTP/AVP;unicast;client_port=4588-4589;server_port=6256-6257\r\n\r\n";
        // Server A (port 554) answers client B.
        assert!(rig.next(&tcp(A, 554, B, 50000, PSH_ACK, reply)));
        assert!(
            rig.next(&udp(A, 6256, B, 4588, b"x")),
            "from the server's port to the client port"
        );
        assert!(
            rig.next(&udp(B, 4589, A, 6257, b"x")),
            "RTCP back to the server"
        );
        let teardown = b"TEARDOWN rtsp://a/x RTSP/1.0\r\nCSeq: 4\r\nSession: 12345678\r\n\r\n";
        assert!(rig.next(&tcp(B, 50000, A, 554, PSH_ACK, teardown)));
        assert!(!rig.next(&udp(A, 6256, B, 4588, b"x")));
    }
}

#[test]
fn ftp_data_leaves_after_fins_and_linger_and_idle_flows_expire() {
    let timers = Timers {
        linger_ns: 300_000_000,
        idle_ns: 1_000_000_000,
    };
    let mut rig = Rig::new(&[Protocol::Ftp], Mode::Passes, timers);
    for (i, f) in handshake(B, 40000, A, 21).iter().enumerate() {
        assert!(rig.feed(f, 1 + i as u64));
    }
    let port = 195 * 256 + 80;
    assert!(rig.feed(&tcp(A, 21, B, 40000, PSH_ACK, pasv(A, port).as_bytes()), 10));
    assert!(rig.feed(&tcp(B, 40001, A, port, SYN, b""), 15));
    let data = |flags| tcp(A, port, B, 40001, flags, b"data");
    assert!(rig.feed(&data(ACK), 20));
    assert!(rig.feed(&tcp(A, port, B, 40001, FIN_ACK, b""), 30)); // FIN from the server
    assert!(rig.feed(&tcp(B, 40001, A, port, FIN_ACK, b""), 40)); // FIN from the client
                                                                  // The sweep runs at most every 100 ms of packet time; linger is 300 ms.
    assert!(
        rig.feed(&tcp(B, 40001, A, port, ACK, b""), 200_000_000),
        "last ACK within linger"
    );
    assert!(!rig.feed(&data(ACK), 400_000_000), "removed after linger");

    // A second flow that goes quiet is removed after the idle timeout.
    let reply = pasv(A, port + 1);
    assert!(rig.feed(
        &tcp(A, 21, B, 40000, PSH_ACK, reply.as_bytes()),
        500_000_000
    ));
    assert!(rig.feed(&tcp(B, 40002, A, port + 1, SYN, b""), 550_000_000));
    let other = tcp(A, port + 1, B, 40002, ACK, b"x");
    assert!(rig.feed(&other, 600_000_000));
    // Keep the sweep going with control packets.
    rig.feed(&tcp(A, 21, B, 40000, ACK, b""), 1_700_000_000);
    assert!(!rig.feed(&other, 1_800_000_000), "idle flow removed");
    assert_eq!(rig.f.stats().table.flows_removed, 2);
    assert_eq!(rig.f.tracker().len(), 0, "no listener left in the filter");
}

#[test]
fn an_unused_ftp_expectation_expires_after_conntracks_five_minutes() {
    let mut rig = Rig::new(&[Protocol::Ftp], Mode::Set, Timers::default());
    rig.all(&handshake(B, 40000, A, 21));
    assert!(rig.next(&tcp(A, 21, B, 40000, PSH_ACK, pasv(A, 50000).as_bytes())));
    assert_eq!(rig.f.tracker().len(), 1);
    let min = 60_000_000_000;
    // Control traffic keeps the connection (and the sweep) alive.
    for m in 1..=5 {
        rig.feed(&tcp(B, 40000, A, 21, ACK, b""), m * min + 1);
    }
    assert!(!rig.feed(&tcp(B, 40001, A, 50000, SYN, b""), 6 * min));
    assert_eq!(rig.f.stats().table.expired, 1);
    assert_eq!(rig.f.tracker().len(), 0);
}

#[test]
fn an_ftp_expectation_is_consumed_by_its_first_connection() {
    for mode in [Mode::Passes, Mode::Set] {
        let mut rig = Rig::new(&[Protocol::Ftp], mode, Timers::default());
        rig.all(&handshake(B, 40000, A, 21));
        assert!(rig.next(&tcp(A, 21, B, 40000, PSH_ACK, pasv(A, 50000).as_bytes())));
        assert!(
            !rig.next(&tcp(A, 50000, B, 40001, SYN, b"")),
            "not from the listener"
        );
        assert!(rig.next(&tcp(B, 40001, A, 50000, SYN, b"")));
        assert!(rig.next(&tcp(A, 50000, B, 40001, SYN_ACK, b"")));
        assert!(
            !rig.next(&tcp(B, 40002, A, 50000, SYN, b"")),
            "a second connection"
        );
    }
}

#[test]
fn active_mode_port_admits_the_server_connecting_back() {
    for mode in [Mode::Passes, Mode::Set] {
        let mut rig = Rig::new(&[Protocol::Ftp], mode, Timers::default());
        rig.all(&handshake(B, 40000, A, 21));
        let port = b"PORT 10,0,0,2,195,80\r\n";
        assert!(rig.next(&tcp(B, 40000, A, 21, PSH_ACK, port)));
        let p = 195 * 256 + 80;
        assert!(rig.next(&tcp(A, 20, B, p, SYN, b"")), "the server's SYN");
        assert!(rig.next(&tcp(B, p, A, 20, SYN_ACK, b"")));
        assert!(rig.next(&tcp(A, 20, B, p, ACK, b"data")));
    }
}

#[test]
fn many_servers_make_children_and_ports_fill_instructions() {
    let mut rig = Rig::new(&[Protocol::Ftp], Mode::Passes, Timers::default());
    let mut announced = Vec::new();
    let mut cport = 30000;
    for s in 0..12u8 {
        for k in 0..13u16 {
            let server = Ipv4Addr::new(10, 9, 0, s + 1);
            let port = 20000 + 16 * s as u16 + k;
            // One expectation per control connection (conntrack's max_expected).
            cport += 1;
            rig.all(&handshake(B, cport, server, 21));
            let msg = pasv(server, port);
            assert!(rig.next(&tcp(server, 21, B, cport, PSH_ACK, msg.as_bytes())));
            announced.push((server, port));
        }
    }
    for (i, (server, port)) in announced.iter().enumerate() {
        let p = 40000 + i as u16;
        assert!(
            rig.next(&tcp(B, p, *server, *port, SYN, b"")),
            "{server}:{port}"
        );
        assert!(!rig.next(&tcp(B, p, *server, port + 2000, SYN, b"")));
    }
    // 13 ports a server need two pairs of passes each (fewer fit an instruction).
    let listing = rig.f.tracker().listing();
    assert!(listing.matches("child of").count() >= 20, "{listing}");
}

#[test]
fn media_from_beyond_a_sip_proxy_needs_loose() {
    // A signals through the proxy P; the callee B sends the media directly.
    let p = Ipv4Addr::new(10, 0, 0, 9);
    for (loose, kept) in [(false, false), (true, true)] {
        for mode in [Mode::Passes, Mode::Set] {
            let config = netsift_follow::Config {
                loose,
                ..Default::default()
            };
            let mut rig = Rig::new(&[Protocol::Sip], mode, config);
            let inv = invite("m=audio 49170 RTP/AVP 0\r\n", "px@host", A);
            assert!(rig.next(&udp(A, 5060, p, 5060, &inv)));
            assert_eq!(
                rig.next(&udp(B, 40000, A, 49170, b"rtp")),
                kept,
                "{loose} {mode:?}"
            );
            assert_eq!(rig.next(&udp(A, 49170, B, 40000, b"rtp")), kept);
        }
    }
}

#[test]
fn every_kind_of_state_expires_when_idle() {
    let mut rig = Rig::new(
        &[Protocol::Ftp, Protocol::Sip],
        Mode::Set,
        Timers::default(),
    );
    // A tracked FTP connection with a flow and an unused expectation, a half-open
    // connection, and a SIP dialog with an unused expectation.
    rig.all(&handshake(B, 40000, A, 21));
    rig.next(&tcp(A, 21, B, 40000, PSH_ACK, pasv(A, 50000).as_bytes()));
    rig.next(&tcp(B, 40001, A, 50000, SYN, b""));
    rig.next(&tcp(A, 21, B, 40000, PSH_ACK, pasv(A, 50001).as_bytes()));
    rig.next(&tcp(B, 41000, A, 21, SYN, b""));
    let inv = invite("m=audio 49170 RTP/AVP 0\r\n", "idle@host", A);
    rig.next(&udp(A, 5060, B, 5060, &inv));
    assert_eq!(rig.f.state_sizes(), [3, 1, 2, 2]);
    // Ten minutes later, past every timer, any packet sweeps.
    rig.feed(&tcp(B, 42000, A, 21, SYN, b""), 600_000_000_000);
    let [exps, flows, owners, controls] = rig.f.state_sizes();
    assert_eq!((exps, flows, owners), (0, 0, 0));
    assert_eq!(controls, 1, "only the SYN just seen");
    assert_eq!(rig.f.tracker().len(), 0);
    // A connection picked up in the middle is tracked again by its next exchange.
    rig.next(&tcp(B, 40000, A, 21, PSH_ACK, b"PASV\r\n"));
    rig.next(&tcp(A, 21, B, 40000, PSH_ACK, pasv(A, 50002).as_bytes()));
    assert!(rig.next(&tcp(B, 40003, A, 50002, SYN, b"")));
}

#[test]
fn the_live_filter_accepts_a_listener_only_on_its_own_side() {
    let x = Ipv4Addr::new(10, 0, 0, 99);
    let y = Ipv4Addr::new(10, 0, 0, 77);
    for mode in [Mode::Passes, Mode::Set] {
        let mut rig = Rig::new(&[Protocol::Ftp], mode, Timers::default());
        rig.all(&handshake(B, 40000, x, 21));
        rig.next(&tcp(x, 21, B, 40000, PSH_ACK, pasv(x, 22).as_bytes()));
        let mut s = netsift_engine::Scratch::new();
        let mut live = |f: Vec<u8>| rig.r.matches(&mut s, &f, f.len() as u32);
        // Pass mode once tested `host X and port 22`, either side.
        assert!(!live(tcp(x, 5555, y, 22, SYN, b"")), "{mode:?}");
        assert!(!live(tcp(y, 22, x, 5555, SYN_ACK, b"")), "{mode:?}");
        assert!(live(tcp(y, 5555, x, 22, SYN, b"")), "{mode:?}");
        assert!(live(tcp(x, 22, y, 5555, SYN_ACK, b"")), "{mode:?}");
    }
}
