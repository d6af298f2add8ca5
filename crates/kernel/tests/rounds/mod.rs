//! A live run the socket-filter tests share: a program attached under a capture
//! ring on a veth pair's side A, ten numbered UDP frames sent from side B twice,
//! and an edit between the rounds, after the first accepted frame has arrived.

use netsift_capture::{Config, Ring};
use netsift_testkit::frames::numbered_udp;
use netsift_testkit::netns::{in_ns, send_frames, Side, VethPair};
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

/// Attaches a filter with `attach` (given the ring's socket), sends frames 0
/// to 9 (`numbered_udp`, the sequence number at byte 42), calls `between` once
/// the first accepted frame has reached the ring, sends them again, and returns
/// the sequence numbers of the first two frames the ring saw (fewer after ten
/// seconds).
pub(crate) fn two_rounds(
    attach: impl FnOnce(RawFd) + Send + 'static,
    between: impl FnOnce(),
) -> Vec<u32> {
    let pair = VethPair::new();
    let dev = pair.veth_a.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let cap = in_ns(&pair.a, move || {
        let mut cfg = Config::new(&dev);
        cfg.block_timeout = Duration::from_millis(2);
        let mut ring = Ring::open(&cfg).expect("ring");
        attach(ring.fd());
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
        .expect("the first accepted frame arrived");
    between();
    pair.send(Side::B, &frames);
    cap.join().unwrap()
}
