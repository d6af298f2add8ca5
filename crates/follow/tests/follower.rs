//! The follower end to end on hand-made frames: what each protocol announces becomes
//! traffic the live filter accepts, and BYE, TEARDOWN, FIN and idleness take it out.

use netsift_engine::Scratch;
use netsift_follow::{Follower, Mode, Protocol, Timers};
use netsift_wire::LinkType;
use std::net::Ipv4Addr;

fn frame(
    proto: u8,
    src: Ipv4Addr,
    sport: u16,
    dst: Ipv4Addr,
    dport: u16,
    flags: u8,
    payload: &[u8],
) -> Vec<u8> {
    let l4 = if proto == 6 { 20 } else { 8 };
    let total = 20 + l4 + payload.len();
    let mut f = vec![0u8; 14 + total];
    f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
    let ip = &mut f[14..];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    ip[8] = 64;
    ip[9] = proto;
    ip[12..16].copy_from_slice(&src.octets());
    ip[16..20].copy_from_slice(&dst.octets());
    let t = &mut ip[20..];
    t[0..2].copy_from_slice(&sport.to_be_bytes());
    t[2..4].copy_from_slice(&dport.to_be_bytes());
    if proto == 6 {
        t[12] = 5 << 4;
        t[13] = flags;
    } else {
        t[4..6].copy_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
    }
    t[l4..].copy_from_slice(payload);
    f
}

const A: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
const B: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);

struct Rig {
    f: Follower,
    r: netsift_engine::live::Reader,
    s: Scratch,
}

impl Rig {
    fn new(protocols: &[Protocol], mode: Mode, timers: Timers) -> Rig {
        let (f, r) = Follower::new(LinkType::EN10MB, protocols, None, mode, timers).unwrap();
        Rig {
            f,
            r,
            s: Scratch::new(),
        }
    }
    /// Filters a frame and, if captured, shows it to the follower (as the CLI does).
    fn feed(&mut self, frame: &[u8], ts: u64) -> bool {
        let ok = self.r.matches(&mut self.s, frame, frame.len() as u32);
        if ok {
            self.f.observe(frame, ts).unwrap();
        }
        ok
    }
}

#[test]
fn sip_media_is_followed_until_bye() {
    for mode in [Mode::Passes, Mode::Set] {
        let mut rig = Rig::new(&[Protocol::Sip], mode, Timers::default());
        let rtp = frame(17, B, 40000, A, 49170, 0, b"rtp");
        let rtcp = frame(17, B, 40001, A, 49171, 0, b"rtcp");
        assert!(!rig.feed(&rtp, 1));
        let sdp = "v=0\r\no=- 1 1 IN IP4 10.0.0.1\r\ns=-\r\nc=IN IP4 10.0.0.1\r\nt=0 0\r\nm=audio 49170 RTP/AVP 0\r\n";
        let invite = format!(
            "INVITE sip:bob@example.com SIP/2.0\r\nCall-ID: abc@host\r\nContent-Type: application/sdp\r\nContent-Length: {}\r\n\r\n{sdp}",
            sdp.len()
        );
        let invite = invite.as_bytes();
        assert!(rig.feed(&frame(17, A, 5060, B, 5060, 0, invite), 2));
        assert!(rig.feed(&rtp, 3), "RTP to the announced port ({mode:?})");
        assert!(rig.feed(&rtcp, 4), "RTCP on the next port ({mode:?})");
        let bye =
            b"BYE sip:bob@example.com SIP/2.0\r\nCall-ID: abc@host\r\nContent-Length: 0\r\n\r\n";
        assert!(rig.feed(&frame(17, B, 5060, A, 5060, 0, bye), 5));
        assert!(!rig.feed(&rtp, 6), "gone after BYE ({mode:?})");
        assert!(!rig.feed(&rtcp, 7));
    }
}

#[test]
fn rtsp_transport_ports_are_followed_until_teardown() {
    let mut rig = Rig::new(&[Protocol::Rtsp], Mode::Passes, Timers::default());
    let reply = b"RTSP/1.0 200 OK\r\nCSeq: 3\r\nSession: 12345678\r\nTransport: RTP/AVP;unicast;client_port=4588-4589;server_port=6256-6257\r\n\r\n";
    // Server A (port 554) answers client B.
    assert!(rig.feed(&frame(6, A, 554, B, 50000, 0x18, reply), 1));
    assert!(
        rig.feed(&frame(17, A, 6256, B, 4588, 0, b"x"), 2),
        "to the client port"
    );
    assert!(
        rig.feed(&frame(17, B, 4589, A, 6257, 0, b"x"), 3),
        "RTCP back to the server"
    );
    let teardown = b"TEARDOWN rtsp://a/x RTSP/1.0\r\nCSeq: 4\r\nSession: 12345678\r\n\r\n";
    assert!(rig.feed(&frame(6, B, 50000, A, 554, 0x18, teardown), 4));
    assert!(!rig.feed(&frame(17, A, 6256, B, 4588, 0, b"x"), 5));
}

#[test]
fn ftp_data_leaves_after_fins_and_linger_and_idle_flows_expire() {
    let timers = Timers {
        linger_ns: 1_000,
        idle_ns: 1_000_000_000,
    };
    let mut rig = Rig::new(&[Protocol::Ftp], Mode::Passes, timers);
    let reply = b"227 Entering Passive Mode (10,0,0,1,195,80).\r\n";
    assert!(rig.feed(&frame(6, A, 21, B, 40000, 0x18, reply), 10));
    let port = 195 * 256 + 80;
    let data = |flags| frame(6, A, port, B, 40001, flags, b"data");
    assert!(rig.feed(&data(0x10), 20));
    assert!(rig.feed(&frame(6, A, port, B, 40001, 0x11, b""), 30)); // FIN from the server
    assert!(rig.feed(&frame(6, B, 40001, A, port, 0x11, b""), 40)); // FIN from the client
                                                                    // The sweep runs at most every 100 ms of packet time.
    assert!(
        rig.feed(&frame(6, B, 40001, A, port, 0x10, b""), 200_000_000),
        "last ACK within linger"
    );
    assert!(!rig.feed(&data(0x10), 400_000_000), "removed after linger");

    // A second announcement that is never used expires after the idle timeout.
    let reply = b"227 Entering Passive Mode (10,0,0,1,195,81).\r\n";
    assert!(rig.feed(&frame(6, A, 21, B, 40000, 0x18, reply), 500_000_000));
    let other = frame(6, A, port + 1, B, 40002, 0x10, b"x");
    assert!(rig.feed(&other, 600_000_000));
    // Keep the sweep going with control packets.
    rig.feed(&frame(6, A, 21, B, 40000, 0x10, b""), 1_700_000_000);
    assert!(!rig.feed(&other, 1_800_000_000), "idle flow removed");
    assert_eq!(rig.f.stats().removed, 2);
}

#[test]
fn many_servers_make_children_and_ports_fill_instructions() {
    let mut rig = Rig::new(&[Protocol::Ftp], Mode::Passes, Timers::default());
    let mut announced = Vec::new();
    for s in 0..12u8 {
        for k in 0..13u16 {
            let server = Ipv4Addr::new(10, 9, 0, s + 1);
            let port = 20000 + 16 * s as u16 + k;
            let msg = format!(
                "227 Entering Passive Mode (10,9,0,{},{},{})\r\n",
                s + 1,
                port >> 8,
                port & 0xff
            );
            assert!(rig.feed(&frame(6, server, 21, B, 40000, 0x18, msg.as_bytes()), 1));
            announced.push((server, port));
        }
    }
    for (server, port) in &announced {
        assert!(
            rig.feed(&frame(6, B, 40001, *server, *port, 0x10, b""), 2),
            "{server}:{port}"
        );
        assert!(!rig.feed(&frame(6, B, 40001, *server, port + 2000, 0x10, b""), 2));
    }
    // 13 ports a server need two passes each (10 ports fit one instruction).
    let listing = rig.f.tracker().listing();
    assert!(listing.matches("child of").count() >= 20, "{listing}");
}
