//! A generated program loads, reads the frame from its MAC header in a test run,
//! and follows a map write on the very next run: the ground the code generator
//! stands on. Needs CAP_BPF (root); skipped with a message without it, a failure
//! under `CI=true`.

mod progs;

use netsift_kernel::asm::{Asm, Width, R0, R7};
use netsift_kernel::sys::{Map, MapKind, ProgKind, Program};
use netsift_testkit::frames::Frame;
use netsift_testkit::{require, Need};

/// A 60-byte frame of `ethertype` whose payload starts with 0x45.
fn frame(ethertype: [u8; 2]) -> Vec<u8> {
    Frame::ethernet([2, 0, 0, 0, 0, 2], [2, 0, 0, 0, 0, 1])
        .ethertype(u16::from_be_bytes(ethertype))
        .payload(&[0x45])
        .padded()
        .build()
}

#[test]
fn a_map_write_changes_the_verdict_of_the_next_run() {
    require!(Need::Root);
    let map = Map::create(MapKind::Array, 4, 4, 1).expect("map");
    let prog = progs::field_is_slot(&map, 12, Width::H);
    let ip = frame([0x08, 0x00]);
    let arp = frame([0x08, 0x06]);
    let set = |t: [u8; 2]| {
        map.update(
            &0u32.to_ne_bytes(),
            &(u16::from_ne_bytes(t) as u32).to_ne_bytes(),
        )
        .unwrap()
    };
    set([0x08, 0x00]);
    assert_eq!(prog.test_run(&ip, 1).unwrap().retval, 0x40000);
    assert_eq!(prog.test_run(&arp, 1).unwrap().retval, 0);
    set([0x08, 0x06]);
    assert_eq!(prog.test_run(&ip, 1).unwrap().retval, 0);
    assert_eq!(prog.test_run(&arp, 1).unwrap().retval, 0x40000);
    // A frame too short for the load is dropped, not misread.
    let r = prog.test_run(&arp[..13], 1);
    assert!(r.is_err() || r.unwrap().retval == 0);
}

#[test]
fn a_refused_program_says_why() {
    require!(Need::Root);
    // Reads r7 before writing it: the verifier refuses, and its log says so.
    let mut a = Asm::new();
    a.mov64_reg(R0, R7);
    a.exit();
    let e = Program::load(ProgKind::SocketFilter, "bad", &a.finish().unwrap()).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("R7 !read_ok"), "{text}");
}

#[test]
fn map_elements_are_written_read_and_deleted() {
    require!(Need::Root);
    let m = Map::create(MapKind::Hash, 8, 4, 16).unwrap();
    let k = 0x0a00_0001_0000_0015u64.to_ne_bytes();
    assert_eq!(m.lookup(&k).unwrap(), None);
    m.update(&k, &7u32.to_ne_bytes()).unwrap();
    assert_eq!(m.lookup(&k).unwrap(), Some(7u32.to_ne_bytes().to_vec()));
    assert!(m.delete(&k).unwrap());
    assert!(!m.delete(&k).unwrap());
}
