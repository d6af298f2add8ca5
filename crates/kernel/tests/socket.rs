//! The same generated program as a live socket filter: attached under a capture
//! ring on a veth pair, it reads frames from the MAC header as in a test run, and a
//! map write switches what reaches the ring with no reload.

use netsift_capture::{Config, Ring};
use netsift_testkit::frames::numbered_udp;
use netsift_testkit::netns::{in_ns, send_frames, Side, VethPair};
use netsift_testkit::{require, Need};
mod progs;

use netsift_kernel::asm::Width;
use netsift_kernel::sys::{Map, MapKind};
use std::time::{Duration, Instant};

#[test]
fn a_map_write_switches_what_reaches_the_ring() {
    require!(Need::Netns);
    let pair = VethPair::new();
    let map = Map::create(MapKind::Array, 4, 4, 1).unwrap();
    // numbered_udp: 14 + 20 + 8 bytes of headers, then the sequence number.
    let prog = progs::field_is_slot(&map, 42, Width::W);
    // Only the frame carrying sequence number 5 (as it lies in the frame).
    let want = |seq: u32| map.update(&0u32.to_ne_bytes(), &seq.to_be_bytes()).unwrap();
    want(5);
    let dev = pair.veth_a.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let cap = in_ns(&pair.a, move || {
        let mut cfg = Config::new(&dev);
        cfg.block_timeout = Duration::from_millis(2);
        let mut ring = Ring::open(&cfg).expect("ring");
        prog.attach(ring.fd()).expect("attached");
        tx.send(()).unwrap();
        let mut seen = Vec::new();
        let end = Instant::now() + Duration::from_secs(10);
        while seen.len() < 2 && Instant::now() < end {
            if let Some(b) = ring.next_block(Duration::from_millis(20)).unwrap() {
                for f in b.frames() {
                    seen.push(u32::from_be_bytes(f.data[42..46].try_into().unwrap()));
                    if seen.len() == 1 {
                        go_tx.send(()).unwrap();
                    }
                }
            }
        }
        seen
    });
    rx.recv().unwrap();
    let frames: Vec<Vec<u8>> = (0..10u32).map(|i| numbered_udp(i, None, 16)).collect();
    let dev = pair.veth_b.clone();
    let f = frames.clone();
    in_ns(&pair.b, move || send_frames(&dev, &f))
        .join()
        .unwrap();
    go_rx
        .recv_timeout(Duration::from_secs(10))
        .expect("frame 5 arrived");
    // Now sequence number 8, with the same program still attached.
    want(8);
    pair.send(Side::B, &frames);
    assert_eq!(cap.join().unwrap(), vec![5, 8]);
}
