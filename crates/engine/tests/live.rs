//! The live update API, one edit at a time (the concurrent stress test is
//! `live_stress.rs`).

use netsift_engine::live::{self, set_key, LiveErrorKind};
use netsift_engine::{evaluate, Scratch};
use netsift_isa::insn::build::{self, Field};
use netsift_isa::{Instruction, PassKind, PassSet, Size};

/// A 16-byte test packet: a 32-bit "server" at 0, a 16-bit "port" at 4, a 32-bit key
/// at 8.
fn pkt(server: u32, port: u16, key: u32) -> Vec<u8> {
    let mut p = vec![0u8; 16];
    p[0..4].copy_from_slice(&server.to_be_bytes());
    p[4..6].copy_from_slice(&port.to_be_bytes());
    p[8..12].copy_from_slice(&key.to_be_bytes());
    p
}

fn server(v: u32) -> Instruction {
    build::eq(0, 0, Size::B4, u32::MAX, &[v]).unwrap()
}

fn ports(v: &[u32]) -> Instruction {
    build::eq(0, 4, Size::B2, 0xffff, v).unwrap()
}

/// A published pass testing server `v` and port `port`.
fn server_pass(w: &mut live::Writer, v: u32, port: u32) -> live::PassId {
    let id = w.new_pass().unwrap();
    w.select_op(id, 0, server(v)).unwrap();
    w.select_op(id, 1, ports(&[port])).unwrap();
    w.publish(id).unwrap();
    id
}

#[test]
fn an_empty_live_set_rejects_and_drafts_are_invisible() {
    let (mut w, r) = live::new();
    let mut s = Scratch::new();
    let p = pkt(1, 21, 0);
    assert!(!r.matches(&mut s, &p, 16));
    let id = w.new_pass().unwrap();
    // An empty draft would accept everything if it were visible.
    assert!(!r.matches(&mut s, &p, 16));
    w.select_op(id, 0, server(1)).unwrap();
    assert!(!r.matches(&mut s, &p, 16));
    w.publish(id).unwrap();
    assert!(r.matches(&mut s, &p, 16));
    assert!(!r.matches(&mut s, &pkt(2, 21, 0), 16));
    assert_eq!(
        w.publish(id),
        Err(LiveErrorKind::AlreadyPublished(id).into())
    );
}

#[test]
fn add_and_del_param_change_one_instruction() {
    let (mut w, r) = live::new();
    let mut s = Scratch::new();
    let id = server_pass(&mut w, 7, 21);
    assert!(!r.matches(&mut s, &pkt(7, 2000, 0), 16));
    w.add_param(id, 1, 2000).unwrap();
    assert!(r.matches(&mut s, &pkt(7, 2000, 0), 16));
    assert!(r.matches(&mut s, &pkt(7, 21, 0), 16));
    // Up to 14 16-bit operands fit in one EQ; the 15th is refused, unchanged.
    for port in 3000..3012 {
        w.add_param(id, 1, port).unwrap();
    }
    assert!(matches!(
        w.add_param(id, 1, 4000).map_err(|e| e.kind().clone()),
        Err(LiveErrorKind::Full { capacity: 14, .. })
    ));
    w.del_param(id, 1, 21).unwrap();
    assert!(!r.matches(&mut s, &pkt(7, 21, 0), 16));
    assert!(r.matches(&mut s, &pkt(7, 2000, 0), 16));
    assert!(r.matches(&mut s, &pkt(7, 3011, 0), 16));
    assert!(matches!(
        w.del_param(id, 1, 21).map_err(|e| e.kind().clone()),
        Err(LiveErrorKind::NoSuchParam { value: 21, .. })
    ));
    assert!(matches!(
        w.add_param(id, 5, 1).map_err(|e| e.kind().clone()),
        Err(LiveErrorKind::NoSuchInstruction { index: 5, .. })
    ));
}

#[test]
fn select_ops_replaces_several_instructions_in_one_version() {
    let (mut w, r) = live::new();
    let mut s = Scratch::new();
    let id = server_pass(&mut w, 7, 21);
    let before = w.stats();
    w.select_ops(id, &[(0, server(8)), (1, ports(&[2121]))])
        .unwrap();
    // One version, with both tests new: no packet saw server 8 with port 21.
    assert_eq!(w.stats().versions - before.versions, 1);
    assert_eq!(w.stats().decoded - before.decoded, 2);
    assert!(r.matches(&mut s, &pkt(8, 2121, 0), 16));
    assert!(!r.matches(&mut s, &pkt(8, 21, 0), 16));
    assert!(!r.matches(&mut s, &pkt(7, 2121, 0), 16));
    // An index past the pass refuses the whole edit, and nothing is published.
    let before = w.stats();
    assert!(matches!(
        w.select_ops(id, &[(0, server(9)), (2, ports(&[1]))])
            .map_err(|e| e.kind().clone()),
        Err(LiveErrorKind::NoSuchInstruction { index: 2, .. })
    ));
    assert_eq!(w.stats(), before);
    assert_eq!(w.instructions(id).unwrap()[0], server(8));
    assert!(r.matches(&mut s, &pkt(8, 2121, 0), 16));
    // No edit at all publishes nothing; a deleted pass is refused.
    w.select_ops(id, &[]).unwrap();
    assert_eq!(w.stats(), before);
    w.del_pass(id).unwrap();
    assert!(matches!(
        w.select_ops(id, &[]).map_err(|e| e.kind().clone()),
        Err(LiveErrorKind::NoSuchPass(_))
    ));
}

#[test]
fn a_child_reuses_the_parent_but_keeps_its_meaning_when_the_parent_changes() {
    let (mut w, r) = live::new();
    let mut s = Scratch::new();
    let parent = w.new_pass().unwrap();
    w.select_op(parent, 0, ports(&[7777])).unwrap();
    w.select_op(parent, 1, server(1)).unwrap();
    w.publish(parent).unwrap();
    let child = w.dup_pass(parent).unwrap();
    assert!(w.instructions(child).unwrap().iter().all(|i| i.copied()));
    w.select_op(child, 1, server(2)).unwrap();
    assert!(!w.instructions(child).unwrap()[1].copied());
    w.publish(child).unwrap();
    let p2 = pkt(2, 7777, 0);
    assert!(r.matches(&mut s, &p2, 16));
    // The parent's run decides instruction 0 for the child: one step fewer.
    assert_eq!(s.steps(), 3);
    // Rewriting the parent's port must not change the child's meaning.
    w.select_op(parent, 0, ports(&[8888])).unwrap();
    assert!(r.matches(&mut s, &p2, 16));
    assert!(!r.matches(&mut s, &pkt(2, 8888, 0), 16));
    assert!(r.matches(&mut s, &pkt(1, 8888, 0), 16));
    // Deleting the parent leaves the child whole.
    w.del_pass(parent).unwrap();
    assert!(r.matches(&mut s, &p2, 16));
    assert!(!r.matches(&mut s, &pkt(1, 8888, 0), 16));
    assert_eq!(
        w.select_op(parent, 0, server(3)),
        Err(LiveErrorKind::NoSuchPass(parent).into())
    );
    // A new pass in the freed slot is not mistaken for the old one. The slot comes
    // back only once no packet can see the dead pass, and at the latest when every
    // other slot is taken.
    let again = (0..netsift_isa::MAX_PASSES)
        .map(|_| w.new_pass().unwrap())
        .find(|id| id.index() == parent.index())
        .expect("the deleted pass's slot comes back");
    assert_ne!(again, parent);
    assert!(!w.exists(parent));
}

#[test]
fn set_instruction_tracks_many_keys() {
    let (mut w, r) = live::new();
    let mut s = Scratch::new();
    let t = w.create_table(4).unwrap();
    let id = w.new_pass().unwrap();
    let a = Field {
        anchor: 0,
        offset: 0,
        size: Size::B4,
    };
    let b = Field {
        anchor: 0,
        offset: 4,
        size: Size::B2,
    };
    w.select_op(
        id,
        0,
        build::set(t, a, u32::MAX, Some(b), 0xffff, None).unwrap(),
    )
    .unwrap();
    w.publish(id).unwrap();
    // Well past the initial capacity, so the table is rebuilt several times.
    for i in 0..100_000u32 {
        assert!(w
            .table_insert(t, set_key(0x0a00_0000 + i, (i % 60000) + 1))
            .unwrap());
    }
    assert_eq!(w.table_len(t).unwrap(), 100_000);
    assert!(r.matches(&mut s, &pkt(0x0a00_0000 + 77, 78, 0), 16));
    assert!(!r.matches(&mut s, &pkt(0x0a00_0000 + 77, 79, 0), 16));
    assert!(w.table_remove(t, set_key(0x0a00_0000 + 77, 78)).unwrap());
    assert!(!r.matches(&mut s, &pkt(0x0a00_0000 + 77, 78, 0), 16));
    assert!(r.matches(&mut s, &pkt(0x0a00_0000 + 99_999, 40000, 0), 16));
    assert_eq!(
        w.table_insert(9, 1),
        Err(LiveErrorKind::NoSuchTable(9).into())
    );
}

#[test]
fn set_with_a_second_pair_matches_either_direction() {
    let (mut w, r) = live::new();
    let mut s = Scratch::new();
    let t = w.create_table(0).unwrap();
    let id = w.new_pass().unwrap();
    // Pairs (server at 0, port at 4) and (key word at 8, port at 6).
    let a = Field {
        anchor: 0,
        offset: 0,
        size: Size::B4,
    };
    let b = Field {
        anchor: 0,
        offset: 4,
        size: Size::B2,
    };
    let insn = build::set(t, a, u32::MAX, Some(b), 0xffff, Some((8, 2))).unwrap();
    w.select_op(id, 0, insn).unwrap();
    w.publish(id).unwrap();
    w.table_insert(t, set_key(5, 0)).unwrap();
    let mut p = pkt(9, 1, 5);
    assert!(r.matches(&mut s, &p, 16));
    p[8..12].copy_from_slice(&6u32.to_be_bytes());
    assert!(!r.matches(&mut s, &p, 16));
    // Faults still reject: a 6-byte packet cannot hold the second pair.
    assert!(!r.matches(&mut s, &p[..6], 6));
}

#[test]
fn clauses_keep_their_fault_to_themselves() {
    let (mut w, r) = live::new();
    let mut s = Scratch::new();
    // Clause 1 reads byte 100 (past a 16-byte packet); clause 2 accepts server 1.
    let far = w.new_pass().unwrap();
    w.select_op(
        far,
        0,
        build::eq(0, 100, Size::B1, 0xff, &[0])
            .unwrap()
            .with_negate(true),
    )
    .unwrap();
    w.publish(far).unwrap();
    let near = w.new_pass().unwrap();
    w.select_op(near, 0, server(1)).unwrap();
    w.publish(near).unwrap();
    assert!(r.matches(&mut s, &pkt(1, 0, 0), 16));
    assert!(!r.matches(&mut s, &pkt(2, 0, 0), 16));
    assert!(s.faulted());
}

#[test]
fn a_clause_keeps_its_structure_and_agrees_with_the_static_engine() {
    // (port 21 or port 22) as a GROUP over two sub-passes, plus a child pass.
    let mut set = PassSet::new();
    let root = set.push_pass(PassKind::Root, None).unwrap();
    set.push_insn(root, server(1)).unwrap();
    set.push_insn(root, build::group(2, 2)).unwrap();
    let child = set.push_pass(PassKind::Root, Some(root)).unwrap();
    set.push_insn(child, server(1).with_copied(true)).unwrap();
    set.push_insn(child, ports(&[99])).unwrap();
    for port in [21, 22] {
        let sub = set.push_pass(PassKind::Sub, None).unwrap();
        set.push_insn(sub, ports(&[port])).unwrap();
    }
    let (mut w, r) = live::new();
    // Occupy slot 0 so that the clause lands at an offset and must be relocated.
    let first = w.new_pass().unwrap();
    w.select_op(first, 0, server(50)).unwrap();
    w.publish(first).unwrap();
    let c = w.add_clause(&set).unwrap();
    assert_eq!(w.clause_passes(&c).unwrap().len(), 4);
    let mut s1 = Scratch::new();
    let mut s2 = Scratch::new();
    for srv in [1, 2, 50] {
        for port in [21, 22, 23, 99] {
            let p = pkt(srv, port, 0);
            let want =
                evaluate(&set, &mut s1, &p, 16) == netsift_engine::Verdict::Accept || srv == 50;
            assert_eq!(r.matches(&mut s2, &p, 16), want, "server {srv} port {port}");
        }
    }
    w.del_clause(&c).unwrap();
    assert!(!r.matches(&mut s2, &pkt(1, 21, 0), 16));
    assert!(r.matches(&mut s2, &pkt(50, 21, 0), 16));
    assert_eq!(w.published(), 1);
    assert!(w.listing().contains("pass 0"));
}

#[test]
fn the_pass_limit_is_reached_cleanly_and_slots_are_reused() {
    let (mut w, r) = live::new();
    let mut ids = Vec::new();
    for i in 0..netsift_isa::MAX_PASSES as u32 {
        let id = w.new_pass().unwrap();
        w.select_op(id, 0, server(i + 1)).unwrap();
        w.publish(id).unwrap();
        ids.push(id);
    }
    assert_eq!(w.new_pass(), Err(LiveErrorKind::TooManyPasses.into()));
    assert_eq!(w.dup_pass(ids[5]), Err(LiveErrorKind::TooManyPasses.into()));
    w.del_pass(ids[4000]).unwrap();
    // The only free slot is found, after the parent or by wrapping around.
    let child = w.dup_pass(ids[4090]).unwrap();
    assert_eq!(child.index(), 4000);
    w.select_op(child, 0, server(999_999)).unwrap();
    w.publish(child).unwrap();
    let mut s = Scratch::new();
    assert!(r.matches(&mut s, &pkt(999_999, 0, 0), 16));
    assert!(r.matches(&mut s, &pkt(4096, 0, 0), 16));
    assert!(!r.matches(&mut s, &pkt(4001, 0, 0), 16));
}

/// Replacing a clause (add the new, then delete the old) while a reader filters a
/// packet both accept never rejects it, even when the new clause lands in a slot
/// below the old one: a reader scanning upwards can pass the new clause's slot
/// before it is published and reach the old one's after it is deleted, so it
/// must notice that the set changed under it and look again.
#[test]
fn a_packet_both_clauses_accept_survives_every_replace() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    // Clauses of a few passes each, so a scan takes long enough to be overtaken.
    let clause = |s: u32| {
        let mut set = PassSet::new();
        for k in 0..4 {
            let p = set.push_pass(PassKind::Root, None).unwrap();
            set.push_insn(p, server(if k == 3 { 1 } else { 100 + s + k }))
                .unwrap();
            set.push_insn(p, ports(&[21])).unwrap();
        }
        set
    };
    let (mut w, r) = live::new();
    // The first clause is in before the reader starts: a packet filtered before
    // any clause exists is rightly rejected.
    let mut old = w.add_clause(&clause(0)).unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let d = done.clone();
    let reader = std::thread::spawn(move || {
        let mut s = Scratch::new();
        let p = pkt(1, 21, 0);
        let (mut seen, mut lost) = (0u64, 0u64);
        while !d.load(Ordering::Relaxed) {
            seen += 1;
            if !r.matches(&mut s, &p, 16) {
                lost += 1;
            }
        }
        (seen, lost)
    });
    let rounds = if cfg!(miri) { 50 } else { 200_000 };
    for i in 0..rounds {
        let new = w.add_clause(&clause(i % 7)).unwrap();
        w.del_clause(&old).unwrap();
        old = new;
    }
    done.store(true, Ordering::Relaxed);
    let (seen, lost) = reader.join().unwrap();
    eprintln!("{rounds} replaces, {seen} packets filtered meanwhile, {lost} rejected");
    assert_eq!(
        lost, 0,
        "a packet both clauses accept was rejected around a replace"
    );
}
