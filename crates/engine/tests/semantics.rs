//! What each opcode means, on hand-made packets: the engine against expectations
//! written out here (the corpus-wide check against libpcap is in netsift-conformance).

use netsift_engine::{evaluate, matches, Scratch, Verdict};
use netsift_isa::insn::build;
use netsift_isa::{
    Anchor, AnchorRule, ArithOp, IndexMode, Instruction, PassKind, PassSet, RelOp, Size,
};

fn set(passes: Vec<(PassKind, Option<u16>, Vec<Instruction>)>, anchors: Vec<Anchor>) -> PassSet {
    PassSet::from_raw(passes, anchors).unwrap()
}

fn one(insns: Vec<Instruction>) -> PassSet {
    set(vec![(PassKind::Root, None, insns)], vec![])
}

/// Ethernet + IPv4 (IHL 6, i.e. with options) + TCP 40000 -> 80, flags SYN.
fn tcp_packet() -> Vec<u8> {
    let mut p = vec![0u8; 14 + 24 + 20];
    p[12..14].copy_from_slice(&[0x08, 0x00]);
    p[14] = 0x46;
    p[14 + 9] = 6;
    let t = 14 + 24;
    p[t..t + 2].copy_from_slice(&40000u16.to_be_bytes());
    p[t + 2..t + 4].copy_from_slice(&80u16.to_be_bytes());
    p[t + 12] = 0x50;
    p[t + 13] = 0x02;
    p
}

fn anchors() -> Vec<Anchor> {
    vec![
        Anchor::new(AnchorRule::Const, 0, 0),
        Anchor::new(AnchorRule::Ipv4Payload, 0, 14),
    ]
}

#[test]
fn simd_eq_and_l1_indirect_ports() {
    let p = tcp_packet();
    let s = |vals: &[u32]| {
        set(
            vec![(
                PassKind::Root,
                None,
                vec![build::eq2(1, 0, 2, false, Size::B2, 0xffff, vals).unwrap()],
            )],
            anchors(),
        )
    };
    let mut sc = Scratch::new();
    assert!(matches(&s(&[22, 80, 25]), &mut sc, &p, p.len() as u32));
    assert!(matches(&s(&[40000]), &mut sc, &p, p.len() as u32));
    assert!(!matches(&s(&[22, 25, 443]), &mut sc, &p, p.len() as u32));
}

#[test]
fn an_out_of_range_load_rejects_even_when_negated() {
    let p = tcp_packet();
    let far = build::eq(0, 2000, Size::B1, 0xff, &[0]).unwrap();
    let mut sc = Scratch::new();
    assert_eq!(evaluate(&one(vec![far]), &mut sc, &p, 100), Verdict::Reject);
    assert_eq!(
        evaluate(&one(vec![far.with_negate(true)]), &mut sc, &p, 100),
        Verdict::Reject
    );
    // ...and it ends the evaluation: a later pass that would accept is not reached.
    let s = set(
        vec![
            (PassKind::Root, None, vec![far]),
            (PassKind::Root, None, vec![]),
        ],
        vec![],
    );
    assert_eq!(evaluate(&s, &mut sc, &p, 100), Verdict::Reject);
    // Whereas a plain false test lets the next pass run.
    let miss = build::eq(0, 0, Size::B1, 0xff, &[0x99]).unwrap();
    let s = set(
        vec![
            (PassKind::Root, None, vec![miss]),
            (PassKind::Root, None, vec![]),
        ],
        vec![],
    );
    assert_eq!(evaluate(&s, &mut sc, &p, 100), Verdict::Accept);
}

#[test]
fn ranges_masks_and_length() {
    let p = tcp_packet();
    let mut sc = Scratch::new();
    let dport_range = build::range(1, 2, Size::B2, 0xffff, &[(1, 1023)]).unwrap();
    let syn = build::eq(1, 13, Size::B1, 0x02, &[0x02]).unwrap();
    assert!(matches(
        &set(
            vec![(PassKind::Root, None, vec![dport_range, syn])],
            anchors()
        ),
        &mut sc,
        &p,
        58
    ));
    assert!(matches(
        &one(vec![build::len(&[(50, 60)]).unwrap()]),
        &mut sc,
        &p,
        58
    ));
    assert!(!matches(
        &one(vec![build::len(&[(59, u32::MAX)]).unwrap()]),
        &mut sc,
        &p,
        58
    ));
}

#[test]
fn arith_computes_tcp_payload_offset() {
    // ip[2:2] - ((ip[0] & 0xf) << 2) = total length - header length; here 0 - 24.
    let mut p = tcp_packet();
    p[16..18].copy_from_slice(&64u16.to_be_bytes());
    let ip = Anchor::new(AnchorRule::Const, 0, 14);
    let ops = [
        build::micro(ArithOp::Push, true, 2),
        build::micro(ArithOp::Ld2, false, 1),
        build::micro(ArithOp::Push, true, 0),
        build::micro(ArithOp::Ld1, false, 1),
        build::micro(ArithOp::And, true, 0xf),
        build::micro(ArithOp::Shl, true, 2),
        build::micro(ArithOp::Sub, false, 0),
        build::micro(ArithOp::Push, true, 39),
    ];
    let gt = build::arith(RelOp::Gt, &ops, &[]).unwrap();
    let s = set(
        vec![(PassKind::Root, None, vec![gt])],
        vec![Anchor::new(AnchorRule::Const, 0, 0), ip],
    );
    let mut sc = Scratch::new();
    assert!(matches(&s, &mut sc, &p, 58), "64 - 24 = 40 > 39");
    p[17] = 63;
    assert!(!matches(&s, &mut sc, &p, 58), "63 - 24 = 39 is not > 39");
}

#[test]
fn copied_instructions_reuse_the_parent() {
    let p = tcp_packet();
    let is_ip = build::eq(0, 12, Size::B2, 0xffff, &[0x0800]).unwrap();
    let is_udp = build::eq(0, 23, Size::B1, 0xff, &[17]).unwrap();
    let is_tcp = build::eq(0, 23, Size::B1, 0xff, &[6]).unwrap();
    let s = set(
        vec![
            (PassKind::Root, None, vec![is_ip, is_udp]),
            (
                PassKind::Root,
                Some(0),
                vec![is_ip.with_copied(true), is_tcp],
            ),
        ],
        vec![],
    );
    let mut sc = Scratch::new();
    assert!(matches(&s, &mut sc, &p, 58));
    // Parent evaluates 2 instructions; the child only its own second one.
    assert_eq!(sc.steps(), 3);
    // If the parent failed on the shared instruction, the child fails without running.
    let mut q = p.clone();
    q[12] = 0x86;
    assert!(!matches(&s, &mut sc, &q, 58));
    assert_eq!(sc.steps(), 1);
}

#[test]
fn group_is_an_or_of_later_sub_passes() {
    let p = tcp_packet();
    let is_tcp = build::eq(0, 23, Size::B1, 0xff, &[6]).unwrap();
    let is_udp = build::eq(0, 23, Size::B1, 0xff, &[17]).unwrap();
    let s = set(
        vec![
            (PassKind::Root, None, vec![build::group(1, 2)]),
            (PassKind::Sub, None, vec![is_udp]),
            (PassKind::Sub, None, vec![is_tcp]),
        ],
        vec![],
    );
    assert!(matches(&s, &mut Scratch::new(), &p, 58));
    // A GROUP naming itself or an earlier pass is invalid: false, never a loop.
    let bad = set(
        vec![(PassKind::Root, None, vec![build::group(0, 1)])],
        vec![],
    );
    assert!(!matches(&bad, &mut Scratch::new(), &p, 58));
}

/// The byte an ARITH load of `@1 + i` reads in `mode`, `None` if it faults. The
/// packet's byte at offset `k` holds `k` (but for the IPv4 header's first byte).
fn indexed_byte(mode: IndexMode, i: i32) -> Option<u32> {
    let mut p: Vec<u8> = (0..64u8).collect();
    p[14] = 0x46; // IHL 6: the transport header starts at 14 + 24 = 38
    let probe = |rel: RelOp, v: u32| {
        let ops = [
            build::micro(ArithOp::Push, false, build::pool_ref(0)),
            build::micro(ArithOp::Ld1, false, mode.arg(1)),
            build::micro(ArithOp::Push, false, build::pool_ref(1)),
        ];
        let insn = build::arith(rel, &ops, &[i as u32, v]).unwrap();
        let s = set(vec![(PassKind::Root, None, vec![insn])], anchors());
        matches(&s, &mut Scratch::new(), &p, 64)
    };
    if !probe(RelOp::Ge, 0) {
        return None;
    }
    (0..=255).find(|&v| probe(RelOp::Eq, v))
}

#[test]
fn arith_index_modes_split_the_offset_like_bpf() {
    use IndexMode::*;
    // Forward indexes read the same place in every mode.
    for mode in [Plain, InX, InK] {
        assert_eq!(indexed_byte(mode, 2), Some(40), "{mode:?}");
    }
    // Plain: a negative index is a huge one, past every packet.
    assert_eq!(indexed_byte(Plain, -4), None);
    // Index in X (a computed `udp[i]`): it may reach back to the IP header's start
    // (o = 14), where `hl + i` stops wrapping to a small number.
    assert_eq!(indexed_byte(InX, -4), Some(34));
    assert_eq!(indexed_byte(InX, -24), Some(0x46));
    assert_eq!(indexed_byte(InX, -25), None);
    // Index in k (a constant `udp[i]` folded into the load's offset): `o + i` must
    // not go below 0, and the header length is added after.
    assert_eq!(indexed_byte(InK, -4), Some(34));
    assert_eq!(indexed_byte(InK, -14), Some(24));
    assert_eq!(indexed_byte(InK, -15), None);
    assert_eq!(indexed_byte(InK, -24), None);
}

#[test]
fn arith_load_mode_3_and_reserved_bits_are_invalid() {
    let p = tcp_packet();
    for arg in [3 << 6 | 1, 1 << 8 | 1] {
        let ops = [
            build::micro(ArithOp::Push, true, 0),
            build::micro(ArithOp::Ld1, false, arg),
            build::micro(ArithOp::Push, true, 0),
        ];
        let ge = build::arith(RelOp::Ge, &ops, &[]).unwrap();
        let s = set(vec![(PassKind::Root, None, vec![ge])], anchors());
        assert!(!matches(&s, &mut Scratch::new(), &p, 58), "arg {arg:#x}");
    }
}

/// A micro-op for `build::arith_chain`.
fn m(op: ArithOp, imm: bool, arg: u32) -> build::Micro {
    build::Micro { op, imm, arg }
}

/// `ip[0] + ip[1] + ... + ip[n-1] rel k` as an ARITH head and CONT slots.
fn sum_chain(n: u32, rel: RelOp, k: u32) -> Vec<Instruction> {
    let mut ops = Vec::new();
    for i in 0..n {
        ops.push(m(ArithOp::Push, true, i));
        ops.push(m(ArithOp::Ld1, false, 1));
        if i > 0 {
            ops.push(m(ArithOp::Add, false, 0));
        }
    }
    // A large constant: it goes to the pool of the slot that uses it.
    ops.push(m(ArithOp::Push, true, k));
    build::arith_chain(rel, &ops).unwrap()
}

fn ip_set(insns: Vec<Instruction>) -> PassSet {
    set(
        vec![(PassKind::Root, None, insns)],
        vec![
            Anchor::new(AnchorRule::Const, 0, 0),
            Anchor::new(AnchorRule::Const, 0, 14),
        ],
    )
}

#[test]
fn arith_continues_in_cont_slots() {
    let p = tcp_packet();
    let sum: u32 = p[14..14 + 20].iter().map(|&b| b as u32).sum();
    let chain = sum_chain(20, RelOp::Eq, sum + 0x1_0000);
    assert_eq!(chain.len(), 5, "59 micro-ops take five slots");
    assert_eq!(chain[0].arith_ext(), 4);
    // 20 bytes plus 0x10000 is not the sum; the sum itself is.
    let mut sc = Scratch::new();
    assert!(!matches(&ip_set(chain.clone()), &mut sc, &p, 58));
    let mut q = p.clone();
    q[14 + 19] = q[14 + 19].wrapping_add(1);
    let want = sum_chain(20, RelOp::Ge, sum + 1);
    assert!(
        matches(&ip_set(want.clone()), &mut sc, &q, 58),
        "sum + 1 >= sum + 1"
    );
    assert!(
        !matches(&ip_set(want), &mut sc, &p, 58),
        "sum >= sum + 1 fails"
    );
    // A load in a CONT slot past the packet is a fault, like one in the head.
    let far = sum_chain(20, RelOp::Ge, 0);
    assert_eq!(
        evaluate(&ip_set(far.clone()), &mut sc, &p[..14 + 19], 58),
        Verdict::Reject
    );
    assert!(matches(&ip_set(far), &mut sc, &p, 58));
}

#[test]
fn broken_chains_are_invalid_and_cont_alone_tests_nothing() {
    let p = tcp_packet();
    let mut sc = Scratch::new();
    let chain = sum_chain(20, RelOp::Ge, 0);
    // The pass ends before the last CONT slot: the head is invalid, negated or not.
    let short = chain[..4].to_vec();
    assert!(!matches(&ip_set(short.clone()), &mut sc, &p, 58));
    let mut neg = short;
    neg[0] = neg[0].with_negate(true);
    assert!(!matches(&ip_set(neg), &mut sc, &p, 58));
    // A slot in the range that is not a CONT makes the head invalid.
    let mut other = chain.clone();
    other[2] = build::len(&[(0, u32::MAX)]).unwrap();
    assert!(!matches(&ip_set(other.clone()), &mut sc, &p, 58));
    other[0] = other[0].with_negate(true);
    assert!(!matches(&ip_set(other), &mut sc, &p, 58));
    // A broken chain is invalid before any of its loads runs: on a packet too short
    // for them it does not fault, so another pass still accepts.
    let mut broken = chain.clone();
    broken[4] = build::len(&[(0, u32::MAX)]).unwrap();
    let s = set(
        vec![
            (PassKind::Root, None, broken),
            (
                PassKind::Root,
                None,
                vec![build::len(&[(0, u32::MAX)]).unwrap()],
            ),
        ],
        vec![
            Anchor::new(AnchorRule::Const, 0, 0),
            Anchor::new(AnchorRule::Const, 0, 14),
        ],
    );
    assert!(matches(&s, &mut sc, &p[..16], 58));
    // On its own a CONT slot holds (its negation does not).
    assert!(matches(&ip_set(vec![chain[1]]), &mut sc, &p, 58));
    assert!(!matches(
        &ip_set(vec![chain[1].with_negate(true)]),
        &mut sc,
        &p,
        58
    ));
}

#[test]
fn arith_stack_holds_sixteen_values() {
    let p = tcp_packet();
    let mut sc = Scratch::new();
    // Push n ones, add them up, compare with n: n values on the stack at once.
    let deep = |n: u32| {
        let mut ops: Vec<_> = (0..n).map(|_| m(ArithOp::Push, true, 1)).collect();
        ops.extend((1..n).map(|_| m(ArithOp::Add, false, 0)));
        ops.push(m(ArithOp::Push, true, n));
        ip_set(build::arith_chain(RelOp::Eq, &ops).unwrap())
    };
    assert!(matches(&deep(16), &mut sc, &p, 58), "16 values at once");
    assert!(
        !matches(&deep(17), &mut sc, &p, 58),
        "17 values overflow: invalid"
    );
}

#[test]
fn a_child_with_its_own_continuation_does_not_reuse_the_parents_head() {
    let p = tcp_packet();
    let mut sc = Scratch::new();
    let sum: u32 = p[14..14 + 20].iter().map(|&b| b as u32).sum();
    let parent = sum_chain(20, RelOp::Eq, sum + 1);
    let child = sum_chain(20, RelOp::Eq, sum);
    // Same head, different last slot (the constant lives in the last slot's pool).
    assert_eq!(parent[..4], child[..4]);
    assert_ne!(parent[4], child[4]);
    let mut marked = child.clone();
    for i in marked.iter_mut().take(4) {
        *i = i.with_copied(true);
    }
    let s = set(
        vec![
            (PassKind::Root, None, parent),
            (PassKind::Root, Some(0), marked),
        ],
        vec![
            Anchor::new(AnchorRule::Const, 0, 0),
            Anchor::new(AnchorRule::Const, 0, 14),
        ],
    );
    assert!(!Instruction::reusable(s.passes()[1].instructions(), 0));
    assert!(
        matches(&s, &mut sc, &p, 58),
        "the child computes its own sum"
    );
    let c = netsift_engine::Compiled::new(s);
    assert!(c.matches(&mut sc, &p, 58), "the lean form agrees");
    let pkts = [&p[..], &p[..]];
    let got = c.filter_batch(&mut netsift_engine::BatchScratch::new(), &pkts, &[58, 58]);
    assert_eq!(got & 3, 3, "the batch engine agrees");
}
