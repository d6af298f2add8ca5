//! The same generated program as a live socket filter: attached under a capture
//! ring on a veth pair, it reads frames from the MAC header as in a test run, and a
//! map write switches what reaches the ring with no reload.

use netsift_testkit::{require, Need};
mod progs;
mod rounds;

use netsift_kernel::asm::Width;
use netsift_kernel::sys::{Map, MapKind};

#[test]
fn a_map_write_switches_what_reaches_the_ring() {
    require!(Need::Netns);
    let map = Map::create(MapKind::Array, 4, 4, 1).unwrap();
    // numbered_udp: 14 + 20 + 8 bytes of headers, then the sequence number.
    let prog = progs::field_is_slot(&map, 42, Width::W);
    // Only the frame carrying sequence number 5 (as it lies in the frame).
    let want = |seq: u32| map.update(&0u32.to_ne_bytes(), &seq.to_be_bytes()).unwrap();
    want(5);
    // Then sequence number 8, with the same program still attached.
    let seen = rounds::two_rounds(move |fd| prog.attach(fd).expect("attached"), || want(8));
    assert_eq!(seen, vec![5, 8]);
}
