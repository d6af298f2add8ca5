//! Every executor against the reference evaluator (`netsift_engine::naive`), on
//! random pass sets and random packets, truncated ones included.
//!
//! An executor is a name and a function from a pass set and a list of packets to
//! their verdicts. A new backend (the kernel one, for instance) joins by adding one
//! entry to [`executors`]; the property below then holds it to the reference.

use netsift_engine::{
    evaluate, live, naive, BatchScratch, Compiled, Scratch, Simd, Verdict, LANES,
};
use netsift_isa::PassSet;
use proptest::prelude::*;

mod common;
use common::{packet_strategy, set_strategy};

/// Packets as the executors take them: captured bytes and wire length.
type Packets = [(Vec<u8>, u32)];

/// Runs a pass set over packets, one verdict a packet; `None` if the executor cannot
/// load this set (a live set refuses some structures), which the test skips.
type Run = Box<dyn Fn(&PassSet, &Packets) -> Option<Vec<Verdict>>>;

/// Which semantics of the `copied` mark an executor implements.
#[derive(Clone, Copy, PartialEq)]
enum Copied {
    /// Static sets trust the mark (docs/isa.md §5a): the parent's result is reused
    /// whatever the child's image holds.
    Trusted,
    /// Live sets reuse the parent's result only where the child's image is the
    /// parent's (their write stamps agree), so an edit of either never makes a child
    /// take a result of a different instruction.
    Checked,
}

fn executors() -> Vec<(String, Copied, Run)> {
    let mut v: Vec<(String, Copied, Run)> = vec![
        (
            "interpreter".into(),
            Copied::Trusted,
            Box::new(|set, pkts| {
                let mut s = Scratch::new();
                Some(
                    pkts.iter()
                        .map(|(p, w)| evaluate(set, &mut s, p, *w))
                        .collect(),
                )
            }),
        ),
        (
            "decoded".into(),
            Copied::Trusted,
            Box::new(|set, pkts| {
                let c = Compiled::new(set.clone());
                let mut s = Scratch::new();
                Some(
                    pkts.iter()
                        .map(|(p, w)| c.evaluate(&mut s, p, *w))
                        .collect(),
                )
            }),
        ),
        (
            "live".into(),
            Copied::Checked,
            Box::new(|set, pkts| {
                let (mut w, r) = live::new();
                w.add_clause(set).ok()?;
                let mut s = Scratch::new();
                Some(
                    pkts.iter()
                        .map(|(p, wl)| r.evaluate(&mut s, p, *wl))
                        .collect(),
                )
            }),
        ),
    ];
    for simd in Simd::available() {
        v.push((
            format!("batch/{}", simd.name()),
            Copied::Trusted,
            Box::new(move |set, pkts| {
                let c = Compiled::new(set.clone()).with_simd(simd);
                let mut s = BatchScratch::new();
                let mut out = Vec::new();
                for chunk in pkts.chunks(LANES) {
                    let data: Vec<&[u8]> = chunk.iter().map(|(p, _)| p.as_slice()).collect();
                    let wire: Vec<u32> = chunk.iter().map(|(_, w)| *w).collect();
                    let m = c.filter_batch(&mut s, &data, &wire);
                    out.extend((0..chunk.len()).map(|i| {
                        if m >> i & 1 != 0 {
                            Verdict::Accept
                        } else {
                            Verdict::Reject
                        }
                    }));
                }
                Some(out)
            }),
        ));
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if cfg!(miri) { 4 } else { 10000 }, .. ProptestConfig::default() })]

    #[test]
    fn every_executor_agrees_with_the_reference(
        set in set_strategy(24, netsift_isa::MAX_ANCHORS),
        packets in prop::collection::vec(packet_strategy(), 1..48),
    ) {
        let reference = |set: &PassSet| -> Vec<Verdict> {
            packets.iter().map(|(p, w)| naive::evaluate(set, p, *w)).collect()
        };
        let trusted = reference(&set);
        let checked = reference(&netsift_engine::naive::live_meaning(&set));
        for (name, copied, run) in executors() {
            let Some(got) = run(&set, &packets) else { continue };
            let want = if copied == Copied::Trusted { &trusted } else { &checked };
            for (i, (g, w)) in got.iter().zip(want).enumerate() {
                prop_assert_eq!(g, w, "{} on packet {} ({:?})", name, i, packets[i]);
            }
        }
    }
}

/// The generators reach both verdicts often enough for the property to mean
/// something: a reference that rejected nearly everything would agree with a broken
/// executor that rejects everything.
#[test]
#[cfg_attr(
    miri,
    ignore = "a statistical check of the generators, not of the engine"
)]
fn random_sets_accept_and_reject() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut accepted, mut total) = (0, 0);
    for _ in 0..2000 {
        let set = set_strategy(24, 8).new_tree(&mut runner).unwrap().current();
        let (p, w) = packet_strategy().new_tree(&mut runner).unwrap().current();
        accepted += (naive::evaluate(&set, &p, w) == Verdict::Accept) as u32;
        total += 1;
    }
    eprintln!("{accepted} of {total} random (set, packet) pairs accepted");
    assert!(accepted > total / 10 && accepted < total * 9 / 10);
}
