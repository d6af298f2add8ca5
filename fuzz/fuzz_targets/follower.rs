//! The follower on frames built from the input: control-port TCP and UDP payloads
//! (FTP 21, SIP 5060, RTSP 554 and two other ports, either direction, any TCP
//! flags) and raw frames, at times moving on by up to about 4 s a frame so that
//! lingering and idle endpoints expire. It never panics, and its bookkeeping stays
//! consistent: endpoints in the filter = installed - removed, installed <= announced.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netsift_follow::{Follower, Mode, Protocol, Timers};
use netsift_fuzz::{frames, Bytes};
use netsift_wire::LinkType;

/// An Ethernet/IPv4 frame from 10.0.0.1 to 10.0.0.2 carrying `payload` over TCP
/// (`proto` 6) or UDP.
fn frame(proto: u8, sport: u16, dport: u16, flags: u8, payload: &[u8]) -> Vec<u8> {
    let l4 = if proto == 6 {
        frames::tcp(sport, dport, flags, payload)
    } else {
        frames::udp(sport, dport, payload)
    };
    frames::ether(
        0x0800,
        &frames::ipv4(proto, [10, 0, 0, 1], [10, 0, 0, 2], &l4),
    )
}

fn follow(b: &mut Bytes) {
    let mode = if b.u8() & 1 == 0 {
        Mode::Passes
    } else {
        Mode::Set
    };
    let all = [Protocol::Ftp, Protocol::Sip, Protocol::Rtsp];
    let (mut f, _reader) = Follower::new(LinkType::EN10MB, &all, None, mode, Timers::default())
        .expect("the default base filter compiles");
    let mut ts: u64 = 0;
    for _ in 0..16 {
        if b.is_empty() {
            break;
        }
        let kind = b.u8();
        // Time moves on by up to about 4 s a packet, so lingering and idle endpoints
        // expire within a run.
        ts += u64::from(b.u16()) << 16;
        let payload = b.bytes(400);
        let port = [21, 5060, 554, 20, 40000][b.below(5)];
        let (sport, dport) = if kind & 4 == 0 {
            (40000, port)
        } else {
            (port, 40000)
        };
        let frame = match kind % 4 {
            0 | 1 => frame(6, sport, dport, b.u8() & 0x3f, payload),
            2 => frame(17, sport, dport, 0, payload),
            _ => payload.to_vec(),
        };
        let _ = f.judge(&frame, frame.len() as u32, ts);
        let s = f.stats();
        let t = s.tracker;
        assert!(t.installed <= t.announced, "{s:?}");
        assert_eq!(f.tracker().len() as u64, t.installed - t.removed, "{s:?}");
        // Every listener in the filter is held by an expectation or a flow.
        let [exps, flows, _, _] = f.state_sizes();
        assert!(f.tracker().len() <= exps + flows, "{s:?}");
        assert!(s.kept <= s.judged, "{s:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    follow(&mut Bytes::new(data));
});
