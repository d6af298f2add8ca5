//! Frames and a rig for the follower's tests: Ethernet frames (built with
//! `netsift_testkit::frames`), a live set and follower driven as the command line
//! drives them (the live set first, then the follower's verdict).
#![allow(dead_code)]

pub(crate) mod hostile;

use netsift_engine::Scratch;
use netsift_follow::{Config, Follower, Mode, Protocol};
use netsift_testkit::frames::Frame;
use netsift_wire::LinkType;
use std::net::{IpAddr, Ipv4Addr};

pub(crate) const SYN: u8 = 0x02;
pub(crate) const ACK: u8 = 0x10;
pub(crate) const PSH_ACK: u8 = 0x18;
pub(crate) const FIN_ACK: u8 = 0x11;
pub(crate) const SYN_ACK: u8 = 0x12;

/// An Ethernet frame (zero MAC addresses) with an IPv4 or IPv6 header and a TCP
/// (6, window 0) or UDP (17) one.
pub(crate) fn frame(
    proto: u8,
    src: impl Into<IpAddr>,
    sport: u16,
    dst: impl Into<IpAddr>,
    dport: u16,
    flags: u8,
    payload: &[u8],
) -> Vec<u8> {
    let f = Frame::ethernet([0; 6], [0; 6]);
    let f = match (src.into(), dst.into()) {
        (IpAddr::V4(s), IpAddr::V4(d)) => f.ipv4(s, d),
        (IpAddr::V6(s), IpAddr::V6(d)) => f.ipv6(s, d),
        _ => panic!("mixed address families"),
    };
    let f = if proto == 6 {
        f.tcp(sport, dport, flags).with_tcp(|t| t.window = 0)
    } else {
        f.udp(sport, dport)
    };
    f.payload(payload).build()
}

pub(crate) fn tcp(
    src: impl Into<IpAddr>,
    sport: u16,
    dst: impl Into<IpAddr>,
    dport: u16,
    flags: u8,
    payload: &[u8],
) -> Vec<u8> {
    frame(6, src, sport, dst, dport, flags, payload)
}

pub(crate) fn udp(
    src: impl Into<IpAddr>,
    sport: u16,
    dst: impl Into<IpAddr>,
    dport: u16,
    payload: &[u8],
) -> Vec<u8> {
    frame(17, src, sport, dst, dport, 0, payload)
}

/// A TCP handshake from `c` to `s`: SYN, SYN-ACK, ACK.
pub(crate) fn handshake(c: Ipv4Addr, cport: u16, s: Ipv4Addr, sport: u16) -> Vec<Vec<u8>> {
    vec![
        tcp(c, cport, s, sport, SYN, b""),
        tcp(s, sport, c, cport, SYN_ACK, b""),
        tcp(c, cport, s, sport, ACK, b""),
    ]
}

/// A 227 reply announcing `a:port`.
pub(crate) fn pasv(a: Ipv4Addr, port: u16) -> String {
    let o = a.octets();
    format!(
        "227 Entering Passive Mode ({},{},{},{},{},{}).\r\n",
        o[0],
        o[1],
        o[2],
        o[3],
        port >> 8,
        port & 0xff
    )
}

pub(crate) const S: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
pub(crate) const C: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);
pub(crate) const X: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 99);
pub(crate) const Y: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 77);

pub(crate) struct Rig {
    pub f: Follower,
    pub r: netsift_engine::live::Reader,
    s: Scratch,
    pub ts: u64,
}

impl Rig {
    pub(crate) fn new(protocols: &[Protocol], mode: Mode, config: impl Into<Config>) -> Rig {
        let (f, r) = Follower::new(LinkType::EN10MB, protocols, None, mode, config).unwrap();
        Rig {
            f,
            r,
            s: Scratch::new(),
            ts: 0,
        }
    }

    /// Filters a frame at `ts` and, if the live set accepts it, asks the follower
    /// (as the CLI does). Whether the packet is kept.
    pub(crate) fn feed(&mut self, frame: &[u8], ts: u64) -> bool {
        self.ts = self.ts.max(ts);
        if !self.r.matches(&mut self.s, frame, frame.len() as u32) {
            return false;
        }
        let (keep, edits) = self.f.judge(frame, frame.len() as u32, ts);
        edits.unwrap();
        keep
    }

    /// [`Rig::feed`] one microsecond after the last packet.
    pub(crate) fn next(&mut self, frame: &[u8]) -> bool {
        let ts = self.ts + 1_000;
        self.feed(frame, ts)
    }

    pub(crate) fn all(&mut self, frames: &[Vec<u8>]) -> Vec<bool> {
        frames.iter().map(|f| self.next(f)).collect()
    }
}
