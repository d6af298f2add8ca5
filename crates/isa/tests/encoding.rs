//! Encoding round trips and builder limits.

use netsift_isa::insn::{build, Opcode, MAX_OFFSET};
use netsift_isa::{
    Anchor, AnchorRule, Instruction, PassKind, PassSet, RelOp, Size, UpdateError, MAX_INSNS,
};

#[test]
fn command_word_fields_round_trip() {
    let i = build::eq(5, 1234, Size::B2, 0xffff, &[22, 80, 443])
        .unwrap()
        .with_negate(true)
        .with_copied(true);
    let d = i.decode();
    assert_eq!(d.opcode, Some(Opcode::Eq));
    assert_eq!(d.size, Some(Size::B2));
    assert_eq!((d.count, d.anchor, d.offset), (3, 5, 1234));
    assert!(d.negate && d.copied);
    assert_eq!(
        (0..3)
            .map(|k| i.operand(1, Size::B2, k))
            .collect::<Vec<_>>(),
        vec![22, 80, 443]
    );
    assert_eq!(Instruction::from_bytes(&i.to_bytes()), i);
    assert_eq!(std::mem::size_of::<Instruction>(), 32);
}

#[test]
fn simd_capacities_follow_the_field_width() {
    // 7 words of 32-bit operands, 14 of 16-bit, 28 of 8-bit (EQ); one word fewer for MEQ.
    assert!(build::eq(0, 0, Size::B4, u32::MAX, &[1; 7]).is_some());
    assert!(build::eq(0, 0, Size::B4, u32::MAX, &[1; 8]).is_none());
    assert!(build::eq(0, 0, Size::B2, 0xffff, &[1; 14]).is_some());
    assert!(build::eq(0, 0, Size::B1, 0xff, &[1; 28]).is_some());
    assert!(build::eq(0, 0, Size::B2, 0x0fff, &[1; 12]).is_some());
    assert!(build::eq(0, 0, Size::B2, 0x0fff, &[1; 13]).is_none());
    assert_eq!(
        build::eq(0, 0, Size::B2, 0x0fff, &[1])
            .unwrap()
            .decode()
            .opcode,
        Some(Opcode::MEq)
    );
    assert!(build::eq(0, MAX_OFFSET + 1, Size::B1, 0xff, &[1]).is_none());
}

#[test]
fn arith_pool_lives_at_the_end() {
    let ops = [
        build::micro(netsift_isa::ArithOp::Push, true, build::pool_ref(0)),
        build::micro(netsift_isa::ArithOp::Push, true, 7),
    ];
    let i = build::arith(RelOp::Gt, &ops, &[0xdead_beef]).unwrap();
    assert_eq!(i.p(7), 0xdead_beef);
    assert_eq!(i.decode().count, 2);
    // 14 micro-ops fill all seven words: no room for a pool constant.
    assert!(build::arith(RelOp::Eq, &[0; 14], &[1]).is_none());
}

#[test]
fn pass_set_limits_and_parents() {
    let mut s = PassSet::new();
    let p = s.push_pass(PassKind::Root, None).unwrap();
    for _ in 0..MAX_INSNS {
        s.push_insn(p, build::len(&[(0, 10)]).unwrap()).unwrap();
    }
    assert_eq!(
        s.push_insn(p, build::len(&[(0, 10)]).unwrap()),
        Err(UpdateError::TooManyInstructions { pass: 0 })
    );
    assert_eq!(
        s.push_pass(PassKind::Root, Some(5)),
        Err(UpdateError::BadParent { pass: 1, parent: 5 })
    );
    let c = s.dup_pass(p).unwrap();
    assert_eq!(s.passes()[c].parent, Some(0));
    assert!(s.passes()[c].instructions().iter().all(|i| i.copied()));
    let a = s
        .anchor(Anchor::new(AnchorRule::Ipv4Payload, 0, 14))
        .unwrap();
    assert_eq!(
        s.anchor(Anchor::new(AnchorRule::Ipv4Payload, 0, 14))
            .unwrap(),
        a,
        "anchors are interned"
    );
    assert!(
        s.anchor(Anchor::new(AnchorRule::Const, 9, 0)).is_err(),
        "a parent must come first"
    );
}
