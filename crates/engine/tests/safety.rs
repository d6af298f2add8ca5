//! The seeds' safety argument, tested: any 32-byte image in any slot, any anchor table
//! and any pass structure evaluates without panicking, reads only inside the packet
//! (every load goes through a checked slice access), and in bounded time: each pass
//! runs at most once per packet, so the instructions evaluated never exceed the
//! instructions the pass set holds.

use netsift_engine::{evaluate, Scratch};
use netsift_isa::{PassKind, PassSet};
use proptest::prelude::*;

mod common;
use common::{anchor_strategy, pass_strategy};

proptest! {
    #![proptest_config(ProptestConfig { cases: if cfg!(miri) { 4 } else { 3000 }, .. ProptestConfig::default() })]

    #[test]
    fn any_images_are_safe(
        passes in prop::collection::vec(pass_strategy(), 0..24),
        anchors in prop::collection::vec(anchor_strategy(), 0..netsift_isa::MAX_ANCHORS),
        packet in prop::collection::vec(any::<u8>(), 0..200),
        wire_extra in 0u32..100,
    ) {
        let set = PassSet::from_raw(passes, anchors).unwrap();
        let mut s = Scratch::new();
        let total = set.instruction_count() as u64;
        let wire = packet.len() as u32 + wire_extra;
        let first = evaluate(&set, &mut s, &packet, wire);
        prop_assert!(s.steps() <= total, "{} steps for {} instructions", s.steps(), total);
        // Deterministic: the scratch space carries nothing from one packet to the next.
        let again = evaluate(&set, &mut s, &packet, wire);
        prop_assert_eq!(first, again);
        let fresh = evaluate(&set, &mut Scratch::new(), &packet, wire);
        prop_assert_eq!(first, fresh);
        // The decoded form must say the same, in no more steps.
        let faulted = s.faulted();
        let compiled = netsift_engine::Compiled::new(set);
        let mut c = Scratch::new();
        prop_assert_eq!(compiled.evaluate(&mut c, &packet, wire), first);
        prop_assert_eq!(c.faulted(), faulted);
        prop_assert!(c.steps() <= total);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if cfg!(miri) { 4 } else { 1000 }, .. ProptestConfig::default() })]

    /// The same through a live set, whose SET instructions reach real tables.
    #[test]
    fn any_images_are_safe_in_a_live_set(
        passes in prop::collection::vec(pass_strategy(), 1..24),
        anchors in prop::collection::vec(anchor_strategy(), 0..16),
        keys in prop::collection::vec(any::<u64>(), 0..8),
        packet in prop::collection::vec(any::<u8>(), 0..200),
    ) {
        let set = PassSet::from_raw(passes, anchors).unwrap();
        let (mut w, r) = netsift_engine::live::new();
        for t in 0..2 {
            w.create_table(4).unwrap();
            for &k in &keys {
                w.table_insert(t, k).unwrap();
            }
        }
        if w.add_clause(&set).is_err() {
            return Ok(());
        }
        let mut s = Scratch::new();
        let wire = packet.len() as u32;
        let first = r.evaluate(&mut s, &packet, wire);
        prop_assert!(s.steps() <= set.instruction_count() as u64);
        prop_assert_eq!(first, r.evaluate(&mut Scratch::new(), &packet, wire));
    }
}

/// The largest pass set there can be, full of GROUP instructions that name every later
/// pass: still each instruction runs at most once.
#[test]
fn worst_case_groups_are_bounded() {
    use netsift_isa::insn::build;
    let n = netsift_isa::MAX_PASSES;
    let passes = (0..n)
        .map(|i| {
            let kind = if i == 0 {
                PassKind::Root
            } else {
                PassKind::Sub
            };
            let insns = (0..netsift_isa::MAX_INSNS)
                .map(|_| build::group(i as u32 + 1, (n - i - 1) as u32))
                .collect();
            (kind, None, insns)
        })
        .collect();
    let set = PassSet::from_raw(passes, vec![]).unwrap();
    // GROUPs nest MAX_GROUP_DEPTH deep here; the engines recurse once a level, so run
    // them on a thread with a quarter of the 2 MiB a spawned thread gets by default.
    std::thread::Builder::new()
        .stack_size(512 << 10)
        .spawn(move || {
            let mut s = Scratch::new();
            evaluate(&set, &mut s, &[0u8; 64], 64);
            assert!(s.steps() <= set.instruction_count() as u64);
            let c = netsift_engine::Compiled::new(set);
            let pkts = [&[0u8; 64][..]; 4];
            c.filter_batch(&mut netsift_engine::BatchScratch::new(), &pkts, &[64; 4]);
        })
        .unwrap()
        .join()
        .unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if cfg!(miri) { 4 } else { 2000 }, .. ProptestConfig::default() })]

    /// The batch engine gives every packet of a batch the per-packet interpreter's
    /// verdict, whatever the images, with every compare kernel this CPU has.
    #[test]
    fn batches_agree_with_the_interpreter(
        passes in prop::collection::vec(pass_strategy(), 0..24),
        anchors in prop::collection::vec(anchor_strategy(), 0..netsift_isa::MAX_ANCHORS),
        packets in prop::collection::vec(
            (prop::collection::vec(any::<u8>(), 0..120), 0u32..100),
            1..=netsift_engine::LANES,
        ),
    ) {
        let set = PassSet::from_raw(passes, anchors).unwrap();
        let data: Vec<&[u8]> = packets.iter().map(|(d, _)| d.as_slice()).collect();
        let wire: Vec<u32> = packets.iter().map(|(d, x)| d.len() as u32 + x).collect();
        let mut want: netsift_engine::Mask = 0;
        for (i, (d, w)) in data.iter().zip(&wire).enumerate() {
            if evaluate(&set, &mut Scratch::new(), d, *w) == netsift_engine::Verdict::Accept {
                want |= 1 << i;
            }
        }
        let compiled = netsift_engine::Compiled::new(set);
        let mut bs = netsift_engine::BatchScratch::new();
        for simd in netsift_engine::Simd::available() {
            let c = compiled.clone().with_simd(simd);
            // Twice with one scratch space: nothing may leak from one batch to the next.
            for _ in 0..2 {
                prop_assert_eq!(c.filter_batch(&mut bs, &data, &wire), want, "{}", simd.name());
            }
        }
    }
}
