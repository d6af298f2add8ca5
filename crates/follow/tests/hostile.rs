//! Issue 15's hostile captures through the follower, in both live forms: exactly
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
