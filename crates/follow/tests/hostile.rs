//! The hostile captures (docs/follow.md) through the follower, in both live forms: exactly
//! the legitimate packets are kept, and the refusals are counted by reason.

mod common;
use common::hostile::cases;
use common::Rig;
use netsift_follow::{Mode, Protocol, Timers};

#[test]
fn hostile_captures_keep_only_legitimate_packets_in_both_modes() {
    for case in cases() {
        let protocols = Protocol::parse_list(case.follow).unwrap();
        for mode in [Mode::Passes, Mode::Set] {
            let mut rig = Rig::new(&protocols, mode, Timers::default());
            for (i, (f, legit)) in case.frames.iter().enumerate() {
                let kept = rig.next(f);
                assert_eq!(kept, *legit, "{}, {mode:?}: packet {i}", case.name);
            }
            let s = rig.f.stats();
            assert!(
                (case.refused)(&s.refused),
                "{}, {mode:?}: {:?}",
                case.name,
                s.refused
            );
        }
    }
}

use common::{frame, Rig as R};
use netsift_follow::Config;
use proptest::prelude::*;
use std::net::Ipv4Addr;

/// One random packet among four hosts, on a control port or a random one.
fn packet() -> impl Strategy<Value = Vec<u8>> {
    let port = prop_oneof![Just(21u16), Just(5060), Just(554), 1u16..70, any::<u16>()];
    let piece = prop::sample::select(vec![
        &b"227 Entering Passive Mode (10,0,0,1,0,22).\r\n"[..],
        b"229 Entering Extended Passive Mode (|||6446|)\r\n",
        b"PORT 10,0,0,2,4,1\r\n",
        b"INVITE sip:a SIP/2.0\r\nCall-ID: 1\r\nContent-Type: application/sdp\r\nContent-Length: 40\r\n\r\nc=IN IP4 10.0.0.1\r\nm=audio 40 RTP/AVP 0\r\n",
        b"BYE sip:a SIP/2.0\r\nCall-ID: 1\r\n\r\n",
        b"RTSP/1.0 200 OK\r\nSession: 1\r\nTransport: RTP/AVP;client_port=40-41;server_port=1-9\r\n\r\n",
        b"TEARDOWN r RTSP/1.0\r\nSession: 1\r\n\r\n",
        b"\r\n",
        b"\xff\x00",
    ]);
    (
        (0u8..4, port.clone(), 0u8..4, port),
        prop_oneof![Just(6u8), Just(17)],
        any::<u8>(),
        prop::collection::vec(piece, 0..4),
    )
        .prop_map(|((s, sp, d, dp), proto, flags, pieces)| {
            let h = |k: u8| Ipv4Addr::new(10, 0, 0, 1 + k);
            frame(proto, h(s), sp, h(d), dp, flags, &pieces.concat())
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// Any sequence of packets: no panic, no failed edit, state within tiny
    /// caps, and both live forms keep the same packets.
    #[test]
    fn random_traffic_is_judged_the_same_in_both_modes(
        frames in prop::collection::vec(packet(), 0..200)
    ) {
        let mut config = Config::default();
        config.limits.max_flows = 4;
        config.limits.max_per_owner = 2;
        config.limits.max_sessions = 3;
        let all = [Protocol::Ftp, Protocol::Sip, Protocol::Rtsp];
        let mut a = R::new(&all, Mode::Passes, config);
        let mut b = R::new(&all, Mode::Set, config);
        for f in &frames {
            prop_assert_eq!(a.next(f), b.next(f));
            let [e, fl, o, c] = a.f.state_sizes();
            prop_assert!(e + fl <= 4 && o <= 3 && c <= 3);
        }
    }
}
