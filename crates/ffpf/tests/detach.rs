//! A reader that stops reading under the slow-reader preference holds its
//! group back no longer than the stall bound, then is detached: it falls back
//! to fast-reader rules and its IBuf header and control page say so.

mod common;

use common::{check, packet, reader};
use netsift_ffpf::control::{ControlPage, STATUS_DETACHED};
use netsift_ffpf::pbuf::record_len;
use netsift_ffpf::shm::RwMapping;
use netsift_ffpf::{FlowId, FlowReader, Group, Incoming, Policy, StallBound};
use std::mem::offset_of;
use std::os::fd::AsFd;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

const LEN: usize = 200;

fn offer_at(g: &mut Group, seq: u64, flows: &[(FlowId, u32)], now: Instant) -> u64 {
    let bytes = packet(seq, LEN);
    g.write_batch_at(
        &[Incoming {
            bytes: &bytes,
            ts_ns: seq * 1000,
            wirelen: LEN as u32 + 4,
            flows,
        }],
        now,
    )
    .detached
}

fn drain(r: &mut FlowReader) -> u64 {
    let mut n = 0;
    while let Some(p) = r.getnext().unwrap() {
        check(&p);
        n += 1;
    }
    n
}

#[test]
fn a_stalled_reader_is_detached_after_the_byte_bound() {
    let bound = 4096;
    let mut g = Group::new(Policy::SlowReader, 16 * 1024).unwrap();
    g.set_stall_bound(StallBound {
        time: None,
        bytes: Some(bound),
    });
    let (stalled, fs) = g.add_flow(1024).unwrap();
    let (live, fl) = g.add_flow(1024).unwrap();
    let status = RwMapping::new(fs.control.as_fd(), 4096).unwrap();
    let mut rs = reader(fs);
    let mut rl = reader(fl);
    let both = [(stalled, 1), (live, 2)];
    let now = Instant::now();
    let mut detached_at = None;
    for s in 0..400 {
        if offer_at(&mut g, s, &both, now) > 0 {
            detached_at = Some(s);
        }
        drain(&mut rl);
    }
    let at = detached_at.expect("the stalled reader was detached");
    let c = g.counters(stalled).unwrap();
    assert!(c.detached);
    assert!(rs.is_detached(), "the IBuf header says so");
    let st = status
        .u64(offset_of!(ControlPage, status))
        .load(Ordering::Relaxed);
    assert_eq!(
        st & STATUS_DETACHED,
        STATUS_DETACHED,
        "the control page says so"
    );
    // The live reader lost at most the bound's worth of records (plus the
    // one that crossed it), all before the detach, none after.
    rl.release();
    let sl = rl.stats();
    assert!(sl.balanced(), "{sl:?}");
    let lost = sl.writer.pbuf_full;
    assert!(lost > 0, "the group was held back");
    assert!(
        lost * record_len(LEN as u32) <= bound + record_len(LEN as u32),
        "{lost} records lost"
    );
    assert_eq!(sl.delivered + lost, 400);
    assert!(at < 100, "detached at packet {at}");
    // The detached reader now reads under fast-reader rules: what it lost
    // to overwriting it counts itself, and the books still balance.
    let got = drain(&mut rs);
    rs.release();
    let ss = rs.stats();
    assert_eq!(ss.delivered, got);
    assert!(ss.overwritten > 0, "{ss:?}");
    assert!(ss.balanced(), "{ss:?}");
}

#[test]
fn a_stalled_reader_is_detached_after_the_time_bound() {
    let mut g = Group::new(Policy::SlowReader, 4096).unwrap();
    g.set_stall_bound(StallBound {
        time: Some(Duration::from_millis(50)),
        bytes: None,
    });
    let (stalled, fs) = g.add_flow(64).unwrap();
    let (live, fl) = g.add_flow(64).unwrap();
    let _rs = reader(fs);
    let mut rl = reader(fl);
    let both = [(stalled, 1), (live, 2)];
    let t0 = Instant::now();
    // 216-byte records: 18 fill 4096 bytes.
    let mut s = 0;
    while s < 40 {
        assert_eq!(offer_at(&mut g, s, &both, t0), 0);
        drain(&mut rl);
        s += 1;
    }
    let blocked = rl.stats().writer.pbuf_full;
    assert!(blocked > 0);
    assert_eq!(
        offer_at(&mut g, s, &both, t0 + Duration::from_millis(49)),
        0
    );
    assert!(
        !g.counters(stalled).unwrap().detached,
        "not before the bound"
    );
    s += 1;
    assert_eq!(
        offer_at(&mut g, s, &both, t0 + Duration::from_millis(50)),
        1
    );
    assert!(g.counters(stalled).unwrap().detached);
    assert!(!g.counters(live).unwrap().detached);
    let before = rl.stats().writer.pbuf_full;
    for k in 1..100 {
        offer_at(&mut g, s + k, &both, t0 + Duration::from_millis(50));
        drain(&mut rl);
    }
    assert_eq!(
        rl.stats().writer.pbuf_full,
        before,
        "no drops once detached"
    );
}

#[test]
fn without_a_bound_a_stalled_reader_holds_the_group() {
    let mut g = Group::new(Policy::SlowReader, 4096).unwrap();
    let (stalled, _fs) = g.add_flow(64).unwrap();
    let (live, fl) = g.add_flow(64).unwrap();
    let mut rl = reader(fl);
    let t0 = Instant::now();
    for s in 0..100 {
        offer_at(
            &mut g,
            s,
            &[(stalled, 1), (live, 2)],
            t0 + Duration::from_secs(s),
        );
        drain(&mut rl);
    }
    assert!(!g.counters(stalled).unwrap().detached);
    assert_eq!(rl.stats().delivered, 18, "what fit before the stall");
}
