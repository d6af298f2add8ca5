//! The hostile captures (docs/follow.md), each with the packets a correct follower
//! keeps. Shared by the library's tests (both live forms, through the follower's
//! verdicts) and the command line's (both modes, through the files written).
//!
//! Every case is a list of frames, each marked with whether it is legitimate:
//! control traffic the base filter captures, or a data/media packet of a flow its
//! protocol entitles. A follower must keep exactly the legitimate ones.

use super::*;
use netsift_follow::Refused;
use std::net::Ipv6Addr;

pub(crate) struct Case {
    pub name: &'static str,
    /// `--follow` list.
    pub follow: &'static str,
    pub frames: Vec<(Vec<u8>, bool)>,
    /// What the follower's refusal counters must show.
    pub refused: fn(&Refused) -> bool,
}

/// Frames collected with their legitimacy.
#[derive(Default)]
struct Cap(Vec<(Vec<u8>, bool)>);

impl Cap {
    /// Packets that must be kept.
    fn ok(&mut self, f: Vec<u8>) -> &mut Self {
        self.0.push((f, true));
        self
    }
    /// Packets that must not be kept.
    fn no(&mut self, f: Vec<u8>) -> &mut Self {
        self.0.push((f, false));
        self
    }
    fn control(&mut self, fs: Vec<Vec<u8>>) -> &mut Self {
        for f in fs {
            self.ok(f);
        }
        self
    }
    /// An SSH-like TCP connection from `c` to `s:22`: SYN, SYN-ACK, data.
    fn ssh(&mut self, c: Ipv4Addr, cport: u16, s: Ipv4Addr, sport: u16, legit: bool) -> &mut Self {
        for f in [
            tcp(c, cport, s, sport, SYN, b""),
            tcp(s, sport, c, cport, SYN_ACK, b""),
            tcp(c, cport, s, sport, PSH_ACK, b"SSH-2.0-x\r\n"),
            tcp(s, sport, c, cport, PSH_ACK, b"SSH-2.0-y\r\n"),
        ] {
            self.0.push((f, legit));
        }
        self
    }
    /// A real passive transfer: control connection, 227, data connection.
    fn transfer(&mut self, c: Ipv4Addr, cport: u16, s: Ipv4Addr, port: u16) -> &mut Self {
        self.control(handshake(c, cport, s, 21));
        self.ok(tcp(s, 21, c, cport, PSH_ACK, pasv(s, port).as_bytes()));
        self.ssh(c, cport + 1, s, port, true)
    }
    fn take(&mut self) -> Vec<(Vec<u8>, bool)> {
        std::mem::take(&mut self.0)
    }
}

pub(crate) fn sip_invite(
    from: IpAddr,
    to: IpAddr,
    call_id: &str,
    media: &str,
    bye: bool,
) -> Vec<u8> {
    let fam = if from.is_ipv4() { "IP4" } else { "IP6" };
    let msg = if bye {
        format!("BYE sip:b@x SIP/2.0\r\nCall-ID: {call_id}\r\nContent-Length: 0\r\n\r\n")
    } else {
        let sdp = format!(
            "v=0\r\no=- 1 1 IN {fam} {from}\r\ns=-\r\nc=IN {fam} {from}\r\nt=0 0\r\n{media}"
        );
        format!(
            "INVITE sip:b@x SIP/2.0\r\nCall-ID: {call_id}\r\nContent-Type: application/sdp\r\nContent-Length: {}\r\n\r\n{sdp}",
            sdp.len()
        )
    };
    udp(from, 5060, to, 5060, msg.as_bytes())
}

pub(crate) fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let mut c = Cap::default();

    // 227 naming a third host: SSH between it and another host stays out.
    c.control(handshake(C, 40000, S, 21));
    c.ok(tcp(S, 21, C, 40000, PSH_ACK, pasv(X, 22).as_bytes()));
    c.ssh(Y, 5555, X, 22, false).ssh(C, 40001, X, 22, false);
    out.push(Case {
        name: "third-host 227",
        follow: "ftp",
        frames: c.take(),
        refused: |r| r.address == 1,
    });

    // One unsolicited packet to port 21, and one spoofed reply from it.
    c.ok(tcp(Y, 1234, S, 21, PSH_ACK, pasv(X, 22).as_bytes()));
    c.ok(tcp(S, 21, C, 40000, PSH_ACK, pasv(S, 22).as_bytes()));
    c.ssh(Y, 5555, X, 22, false).ssh(C, 40001, S, 22, false);
    out.push(Case {
        name: "unsolicited packets on port 21",
        follow: "ftp",
        frames: c.take(),
        refused: |r| r.untracked == 2,
    });

    // A 227 from the client, a PORT from the server, and a 227 after NOOP in
    // one client packet.
    c.control(handshake(C, 40000, S, 21));
    c.ok(tcp(C, 40000, S, 21, PSH_ACK, pasv(C, 22).as_bytes()));
    c.ok(tcp(S, 21, C, 40000, PSH_ACK, b"PORT 10,0,0,1,0,22\r\n"));
    let noop = format!("NOOP\r\n{}", pasv(S, 2222));
    c.ok(tcp(C, 40000, S, 21, PSH_ACK, noop.as_bytes()));
    c.ssh(S, 5000, C, 22, false).ssh(C, 5001, S, 22, false);
    c.ssh(C, 5002, S, 2222, false);
    out.push(Case {
        name: "announcements against their direction",
        follow: "ftp",
        frames: c.take(),
        refused: |r| r.direction == 3,
    });

    // A 227 naming the server's own port 22: only the control connection's
    // client may connect, once.
    c.control(handshake(C, 40000, S, 21));
    c.ok(tcp(S, 21, C, 40000, PSH_ACK, pasv(S, 22).as_bytes()));
    c.ssh(Y, 6000, S, 22, false);
    c.ssh(C, 40001, S, 22, true);
    c.ssh(C, 40002, S, 22, false);
    out.push(Case {
        name: "227 naming the server's port 22",
        follow: "ftp",
        frames: c.take(),
        refused: |r| r.total() == 0,
    });

    // Pass mode used to accept the announced port on either side.
    c.control(handshake(C, 40000, X, 21));
    c.ok(tcp(X, 21, C, 40000, PSH_ACK, pasv(X, 22).as_bytes()));
    c.ssh(X, 5555, Y, 22, false);
    c.ssh(C, 40001, X, 22, true);
    c.ssh(X, 5556, Y, 22, false);
    out.push(Case {
        name: "announced port on the other side",
        follow: "ftp",
        frames: c.take(),
        refused: |r| r.total() == 0,
    });

    // 4,091 bogus 227s (untracked, on one tracked connection, and on 1,100
    // tracked connections), then a real transfer.
    for k in 0..4091u32 {
        let src = Ipv4Addr::from(0x0a01_0000 + k);
        c.ok(tcp(src, 21, C, 40000, PSH_ACK, pasv(src, 30000).as_bytes()));
    }
    c.control(handshake(Y, 40000, X, 21));
    for k in 0..4091u16 {
        c.ok(tcp(X, 21, Y, 40000, PSH_ACK, pasv(X, 1024 + k).as_bytes()));
    }
    for k in 0..1100u32 {
        let srv = Ipv4Addr::from(0x0a02_0000 + k);
        c.control(handshake(Y, 41000, srv, 21));
        c.ok(tcp(srv, 21, Y, 41000, PSH_ACK, pasv(srv, 30000).as_bytes()));
    }
    c.transfer(C, 45000, S, 50000);
    out.push(Case {
        name: "flood of 227s, then a real transfer",
        follow: "ftp",
        frames: c.take(),
        refused: |r| r.untracked == 4091,
    });

    // RTSP: port ranges of the whole port space are refused, not expanded.
    c.control(handshake(C, 50000, S, 554));
    for _ in 0..5 {
        let reply = b"RTSP/1.0 200 OK\r\nCSeq: 3\r\nSession: 1\r\nTransport: RTP/AVP;unicast;client_port=1-65535;server_port=1-65535\r\n\r\n";
        c.ok(tcp(S, 554, C, 50000, PSH_ACK, reply));
    }
    c.no(udp(S, 6256, C, 4588, b"x"))
        .no(udp(C, 4588, S, 6256, b"x"));
    out.push(Case {
        name: "RTSP ranges over the whole port space",
        follow: "rtsp",
        frames: c.take(),
        refused: |r| r.range == 5 * 2 * 65535,
    });

    // SIP: `m=audio 2/32767` is refused, not expanded.
    let (a, b) = (IpAddr::V4(S), IpAddr::V4(C));
    c.ok(sip_invite(
        a,
        b,
        "x@y",
        "m=audio 2/32767 RTP/AVP 0\r\n",
        false,
    ));
    c.no(udp(C, 4000, S, 2, b"rtp"))
        .no(udp(C, 4000, S, 4, b"rtp"));
    out.push(Case {
        name: "SIP port count 32767",
        follow: "sip",
        frames: c.take(),
        refused: |r| r.range == 2,
    });

    // SIP over IPv6 with 500 media lines: bounded, and FTP still followed.
    let (a6, b6): (IpAddr, IpAddr) = (
        Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 1).into(),
        Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 2).into(),
    );
    let media: String = (0..500)
        .map(|k| format!("m=audio {} RTP/AVP 0\r\n", 10000 + 2 * k))
        .collect();
    c.ok(sip_invite(a6, b6, "v6@y", &media, false));
    // The first media lines' expectations stand (4 lines, RTP and RTCP).
    c.ok(udp(b6, 4000, a6, 10000, b"rtp"));
    c.no(udp(b6, 4000, a6, 10998, b"rtp"));
    c.transfer(C, 45000, S, 50000);
    out.push(Case {
        name: "SIP over IPv6 with 500 media lines",
        follow: "ftp,sip",
        frames: c.take(),
        refused: |r| r.owner_cap == 1000 - 8,
    });

    // A BYE from other hosts with the call's Call-ID ends nothing.
    c.ok(sip_invite(
        a,
        b,
        "call@1",
        "m=audio 49170 RTP/AVP 0\r\n",
        false,
    ));
    c.ok(udp(C, 40000, S, 49170, b"rtp"));
    c.ok(sip_invite(X.into(), Y.into(), "call@1", "", true));
    c.ok(udp(C, 40000, S, 49170, b"rtp"));
    c.ok(udp(S, 49170, C, 40000, b"rtp"));
    c.ok(sip_invite(b, a, "call@1", "", true));
    c.no(udp(C, 40000, S, 49170, b"rtp"));
    out.push(Case {
        name: "BYE from outside the dialog",
        follow: "sip",
        frames: c.take(),
        refused: |r| r.foreign_end == 1,
    });

    // RTSP TEARDOWN from another connection, and from the server, end nothing.
    c.control(handshake(C, 50000, S, 554));
    let reply = b"RTSP/1.0 200 OK\r\nCSeq: 3\r\nSession: 77\r\nTransport: RTP/AVP;unicast;client_port=4588-4589;server_port=6256-6257\r\n\r\n";
    c.ok(tcp(S, 554, C, 50000, PSH_ACK, reply));
    c.ok(udp(S, 6256, C, 4588, b"x"));
    let teardown = b"TEARDOWN rtsp://a/x RTSP/1.0\r\nCSeq: 4\r\nSession: 77\r\n\r\n";
    c.control(handshake(X, 50001, S, 554));
    c.ok(tcp(X, 50001, S, 554, PSH_ACK, teardown));
    c.ok(tcp(S, 554, C, 50000, PSH_ACK, teardown));
    c.ok(udp(S, 6256, C, 4588, b"x"));
    c.ok(tcp(C, 50000, S, 554, PSH_ACK, teardown));
    c.no(udp(S, 6256, C, 4588, b"x"));
    out.push(Case {
        name: "TEARDOWN from outside the session",
        follow: "rtsp",
        frames: c.take(),
        refused: |r| r.foreign_end == 1 && r.direction == 1,
    });
    out
}
