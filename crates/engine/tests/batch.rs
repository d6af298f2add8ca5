//! The batch engine against the per-packet interpreter on the shapes it rewrites:
//! runs of negated tests on one field (fused into one "in none of the sets" test),
//! with parents and children, anchors, and packets cut short in the middle of the
//! fields so that faults land on every possible instruction; runs of tests at fixed
//! offsets and field pairs after the IPv4 header (loaded in one walk), over batches
//! where the length guard holds and where a short packet breaks it.

use netsift_engine::{evaluate, BatchScratch, Compiled, Mask, Scratch, Simd, Verdict, LANES};
use netsift_isa::insn::{build, Size};
use netsift_isa::{Anchor, AnchorRule, Instruction, PassKind, PassSet};
use proptest::prelude::*;

/// A few fields, so consecutive instructions often share one.
fn field() -> impl Strategy<Value = (u8, u32, Size)> {
    prop_oneof![
        Just((0u8, 12u32, Size::B2)),
        Just((0, 26, Size::B4)),
        Just((1, 0, Size::B2)),
    ]
}

/// Values from a small domain, so packets often hold them.
fn values(size: Size) -> impl Strategy<Value = Vec<u32>> {
    let max = match size {
        Size::B1 => 5usize,
        Size::B2 => 12,
        Size::B4 => 5,
    };
    prop::collection::vec(0u32..4, 1..=max)
}

fn insn() -> impl Strategy<Value = Instruction> {
    // Mostly either-field pairs 4 bytes apart, so runs on one field are common.
    (
        field(),
        any::<bool>(),
        any::<bool>(),
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.2),
    )
        .prop_flat_map(|((a, off, size), neg, two, both, far)| {
            let delta = if far { 2 } else { 1 };
            values(size).prop_map(move |mut vals| {
                // Drop values until the instruction holds them (a mask takes a slot).
                let i = loop {
                    let i = if two {
                        build::eq2(a, off, 2 + 2 * delta as u16, both, size, 0x3, &vals)
                    } else {
                        build::eq(a, off, size, 0x3, &vals)
                    };
                    match i {
                        Some(i) => break i,
                        None if vals.len() > 1 => {
                            vals.pop();
                        }
                        None => panic!("one value always fits"),
                    }
                };
                i.with_negate(neg || a == 0)
            })
        })
}

fn pass_set() -> impl Strategy<Value = PassSet> {
    prop::collection::vec(
        (
            prop::collection::vec(insn(), 0..8),
            prop::option::of(0u16..6),
            any::<bool>(),
            any::<u32>(),
        ),
        1..6,
    )
    .prop_flat_map(|p| (Just(p), any::<bool>()))
    .prop_map(|(passes, catch_all)| {
        let mut raw: Vec<_> = passes
            .into_iter()
            .enumerate()
            .map(|(i, (insns, parent, sub, copies))| {
                // Children mark a prefix of instructions copied, as dup_pass does.
                let insns = insns
                    .into_iter()
                    .enumerate()
                    .map(|(k, x)| x.with_copied(parent.is_some() && copies >> k & 1 == 1))
                    .collect();
                let kind = if sub && i > 0 {
                    PassKind::Sub
                } else {
                    PassKind::Root
                };
                (kind, parent, insns)
            })
            .collect();
        // A last clause that accepts everything makes faults visible: only a fault
        // (which ends a packet's evaluation) keeps a packet from it.
        if catch_all {
            raw.push((PassKind::Root, None, Vec::new()));
        }
        let anchors = vec![
            Anchor::new(AnchorRule::Const, 0, 0),
            Anchor::new(AnchorRule::Ipv4Payload, 0, 14),
        ];
        PassSet::from_raw(raw, anchors).expect("valid")
    })
}

/// Packets whose bytes are mostly 0-3 (so they match operands), with any length
/// up to past every field.
fn packets() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(prop::collection::vec(0u8..4, 0..48), 1..=LANES).prop_map(|mut ps| {
        for p in &mut ps {
            // An IPv4 header length of 5..=7 words when the byte is there.
            if let Some(b) = p.get_mut(14) {
                *b = 0x45 + (*b & 1);
            }
        }
        ps
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if cfg!(miri) { 4 } else { 3000 }, .. ProptestConfig::default() })]

    #[test]
    fn fused_runs_agree_with_the_interpreter(set in pass_set(), pkts in packets()) {
        let data: Vec<&[u8]> = pkts.iter().map(|p| p.as_slice()).collect();
        let wire: Vec<u32> = pkts.iter().map(|p| p.len() as u32).collect();
        let mut want: Mask = 0;
        for (i, d) in data.iter().enumerate() {
            if evaluate(&set, &mut Scratch::new(), d, wire[i]) == Verdict::Accept {
                want |= 1 << i;
            }
        }
        let c = Compiled::new(set);
        for simd in Simd::available() {
            let c = c.clone().with_simd(simd);
            let got = c.filter_batch(&mut BatchScratch::new(), &data, &wire);
            prop_assert_eq!(got, want, "{}", simd.name());
        }
    }
}

/// The seeds' filter 6 shape: a run of negated two-field tests is fused, and a
/// packet cut between the two fields faults exactly where the unfused run does.
#[test]
fn fused_run_faults_like_the_unfused_one() {
    let s1 = [1u32, 2];
    let s2 = [3u32, 4];
    let mut set = PassSet::new();
    let p = set.push_pass(PassKind::Root, None).unwrap();
    for s in [&s1[..], &s2[..]] {
        let i = build::eq2(0, 0, 4, false, Size::B4, u32::MAX, s).unwrap();
        set.push_insn(p, i.with_negate(true)).unwrap();
    }
    // A second clause that accepts everything: only a fault (which ends the
    // packet's evaluation) can reject now.
    set.push_pass(PassKind::Root, None).unwrap();
    // First field in the second set, second field missing: the unfused run loads
    // the second field at instruction 1 (3 is not in {1, 2}) and faults.
    let cut: &[u8] = &[0, 0, 0, 3, 0];
    // First field in the first set: decided at instruction 1, no second load.
    let early: &[u8] = &[0, 0, 0, 1, 0];
    // Both fields present, in no set.
    let clean: &[u8] = &[0, 0, 0, 9, 0, 0, 0, 8];
    let pkts = [cut, early, clean];
    let wire = [8u32; 3];
    let c = Compiled::new(set.clone());
    let got = c.filter_batch(&mut BatchScratch::new(), &pkts, &wire);
    assert_eq!(got, 0b110);
    for (i, p) in pkts.iter().enumerate() {
        let mut s = Scratch::new();
        let v = evaluate(&set, &mut s, p, 8) == Verdict::Accept;
        assert_eq!(v, got >> i & 1 == 1, "packet {i}");
        assert_eq!(s.faulted(), i == 0, "packet {i} faults only if cut");
    }
}

/// A child run from inside its own parent's GROUP finds the parent unfinished: the
/// per-packet engine then evaluates the child's copied instructions itself, and so
/// must the batch engine (visible when a copied mark does not match the parent's
/// instruction, as a raw image may claim).
#[test]
fn child_inside_its_parents_group_does_not_reuse() {
    let eq = |v: u32| build::eq(0, 0, Size::B1, 0xff, &[v]).unwrap();
    let set = PassSet::from_raw(
        vec![
            (PassKind::Root, None, vec![eq(1), build::group(1, 1)]),
            (PassKind::Sub, Some(0), vec![eq(2).with_copied(true)]),
        ],
        vec![],
    )
    .unwrap();
    let pkts: [&[u8]; 2] = [&[1], &[2]];
    let mut want = 0;
    for (i, p) in pkts.iter().enumerate() {
        if evaluate(&set, &mut Scratch::new(), p, 1) == Verdict::Accept {
            want |= 1 << i;
        }
    }
    assert_eq!(want, 0, "the child's own test fails on both");
    let got = Compiled::new(set).filter_batch(&mut BatchScratch::new(), &pkts, &[1, 1]);
    assert_eq!(got, want);
}

/// Verdicts of the per-packet interpreter and of the batch engine (every kernel) on
/// `pkts`, which must agree; returns them.
fn agree(set: &PassSet, pkts: &[&[u8]]) -> Mask {
    let wire: Vec<u32> = pkts.iter().map(|p| p.len() as u32).collect();
    let mut want = 0;
    for (i, p) in pkts.iter().enumerate() {
        if evaluate(set, &mut Scratch::new(), p, wire[i]) == Verdict::Accept {
            want |= 1 << i;
        }
    }
    let c = Compiled::new(set.clone());
    for simd in Simd::available() {
        let got = c
            .clone()
            .with_simd(simd)
            .filter_batch(&mut BatchScratch::new(), pkts, &wire);
        assert_eq!(got, want, "{}", simd.name());
    }
    want
}

/// A fused run shortens the op list, so the ops after it sit at new positions; a
/// copied instruction after the run must still take its parent's result for its
/// own index (found by a proptest: it took the result of the instruction before).
#[test]
fn copied_instruction_after_a_fused_run_reuses_its_own_index() {
    let eq = |off: u32, v: u32| build::eq(0, off, Size::B1, 0xff, &[v]).unwrap();
    let set = PassSet::from_raw(
        vec![
            (PassKind::Root, None, vec![eq(0, 1), eq(1, 1), eq(2, 1)]),
            (
                PassKind::Root,
                Some(0),
                vec![
                    eq(3, 5).with_negate(true),
                    eq(3, 6).with_negate(true),
                    eq(2, 1).with_copied(true),
                ],
            ),
        ],
        vec![],
    )
    .unwrap();
    // The parent passes its instructions 0 and 1 and fails at 2, so the child's
    // copied instruction 2 fails too; index 1 would say it passed.
    let pkts: [&[u8]; 2] = [&[1, 1, 0, 0], &[1, 1, 1, 0]];
    assert_eq!(agree(&set, &pkts), 0b10);
}

/// The same shift for an instruction the batch engine runs from its image: it must
/// run its own image, not the one of the op now at its position.
#[test]
fn image_instruction_after_a_fused_run_runs_its_own_image() {
    let eq = |v: u32| build::eq(0, 0, Size::B1, 0xff, &[v]).unwrap();
    // RANGE2 has no lane form: it runs from its image.
    let range2 = build::range2(0, 1, 1, false, Size::B1, 0xff, &[(7, 7)]).unwrap();
    let set = PassSet::from_raw(
        vec![(
            PassKind::Root,
            None,
            vec![eq(5).with_negate(true), eq(6).with_negate(true), range2],
        )],
        vec![],
    )
    .unwrap();
    let pkts: [&[u8]; 3] = [&[0, 7, 0], &[0, 0, 7], &[0, 0, 0]];
    assert_eq!(agree(&set, &pkts), 0b011);
}

/// Tests on fields at fixed offsets (fused into one-pass loads under the length
/// guard), mixed with anchored ones that break the runs.
fn direct_insn() -> impl Strategy<Value = Instruction> {
    (
        0u32..44,
        prop_oneof![Just(Size::B1), Just(Size::B2), Just(Size::B4)],
        prop_oneof![Just(u32::MAX), Just(0x3u32), Just(0x0300)],
        any::<bool>(),
        prop::bool::weighted(0.15),
        prop::collection::vec(any::<u32>(), 1..=3),
    )
        .prop_map(|(off, size, mask, neg, anchored, vals)| {
            let anchor = u8::from(anchored);
            // Bytes of 0 or 1, so fields often match packets of bytes 0-3.
            let vals: Vec<u32> = vals
                .iter()
                .map(|v| (v & 0x0101_0101 & (u32::MAX >> (32 - 8 * size.bytes()))) & mask)
                .collect();
            build::eq(anchor, off, size, mask, &vals)
                .expect("three values fit")
                .with_negate(neg)
        })
}

/// Two-field tests on a word after the IPv4 header (a port pair and its kin: the
/// anchor and both fields load in one walk), at offsets that put the word past
/// some packets.
fn pair_insn() -> impl Strategy<Value = Instruction> {
    (
        prop_oneof![
            Just((Size::B2, 2u16)),
            Just((Size::B1, 1)),
            Just((Size::B1, 3)),
            Just((Size::B2, 1)),
        ],
        0u32..8,
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(0u32..2, 1..=3),
    )
        .prop_map(|((size, delta), off, both, neg, vals)| {
            let vals: Vec<u32> = vals.iter().map(|v| (v * 0x0101) & 0xffff).collect();
            let mask = if size == Size::B1 { 0xff } else { 0xffff };
            build::eq2(1, off, delta, both, size, mask, &vals)
                .expect("three values fit")
                .with_negate(neg)
        })
}

fn direct_set() -> impl Strategy<Value = PassSet> {
    let insn = prop_oneof![4 => direct_insn(), 1 => pair_insn()];
    prop::collection::vec((prop::collection::vec(insn, 0..10), any::<bool>()), 1..4).prop_map(
        |passes| {
            let mut raw: Vec<_> = passes
                .into_iter()
                .map(|(insns, _)| (PassKind::Root, None, insns))
                .collect();
            // Faults visible, as in `pass_set`.
            raw.push((PassKind::Root, None, Vec::new()));
            let anchors = vec![
                Anchor::new(AnchorRule::Const, 0, 0),
                Anchor::new(AnchorRule::Ipv4Payload, 0, 14),
            ];
            PassSet::from_raw(raw, anchors).expect("valid")
        },
    )
}

/// Mostly packets long enough for every field (so the guard holds), now and then
/// a short one (so it does not, and the tests run one by one with their faults).
fn direct_packets() -> impl Strategy<Value = Vec<Vec<u8>>> {
    let len = prop_oneof![9 => 44usize..=52, 1 => 0usize..44];
    // Bytes 0-1, so tests often pass and runs reach their later tests.
    prop::collection::vec(
        len.prop_flat_map(|n| prop::collection::vec(0u8..2, n)),
        1..=LANES,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: if cfg!(miri) { 4 } else { 2000 }, .. ProptestConfig::default() })]

    #[test]
    fn direct_runs_agree_with_the_interpreter(set in direct_set(), pkts in direct_packets()) {
        let data: Vec<&[u8]> = pkts.iter().map(|p| p.as_slice()).collect();
        agree(&set, &data);
    }
}

#[test]
#[should_panic(expected = "filter_batch: 2 packets but 1 wire lengths")]
fn mismatched_batch_slices_panic() {
    let c = Compiled::new(PassSet::accept_all());
    c.filter_batch(&mut BatchScratch::new(), &[&[0u8][..], &[0u8][..]], &[1]);
}

#[test]
#[should_panic(expected = "at most 32 a batch")]
fn oversized_batches_panic() {
    let c = Compiled::new(PassSet::accept_all());
    let pkts = vec![&[0u8][..]; LANES + 1];
    c.filter_batch(&mut BatchScratch::new(), &pkts, &[1; LANES + 1]);
}

#[test]
#[should_panic(expected = "filter_many: 3 packets but 2 wire lengths")]
fn mismatched_slices_panic_in_filter_many() {
    let c = Compiled::new(PassSet::accept_all());
    c.filter_many(
        &mut BatchScratch::new(),
        &[&[0u8][..]; 3],
        &[1, 1],
        &mut Vec::new(),
    );
}

/// Found by the `images` fuzz target: in a run of fixed-offset tests loaded in one
/// walk, the operands were masked with the test's mask, so an operand with bits
/// outside the mask (which never matches `field & mask`) matched. A negated MEQ with
/// mask 0 and operand 0x83 is true on every packet; the batch engine said false.
#[test]
fn operands_outside_the_mask_never_match_in_a_direct_run() {
    let mut set = PassSet::new();
    let p = set.push_pass(PassKind::Root, None).unwrap();
    set.push_insn(
        p,
        build::eq(0, 0, Size::B1, u32::MAX, &[0x00, 0x74]).unwrap(),
    )
    .unwrap();
    set.push_insn(
        p,
        build::eq(0, 0, Size::B1, 0, &[0x83, 0x82])
            .unwrap()
            .with_negate(true),
    )
    .unwrap();
    let pkt = [0x00u8, 0x7a, 0x0a, 0x0a];
    assert_eq!(
        evaluate(&set, &mut Scratch::new(), &pkt, 4),
        Verdict::Accept
    );
    assert_eq!(
        netsift_engine::naive::evaluate(&set, &pkt, 4),
        Verdict::Accept
    );
    let c = Compiled::new(set);
    for simd in Simd::available() {
        let c = c.clone().with_simd(simd);
        assert_eq!(
            c.filter_batch(&mut BatchScratch::new(), &[&pkt[..]], &[4]),
            1,
            "{}",
            simd.name()
        );
    }
}
