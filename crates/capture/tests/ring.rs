//! A known set of frames sent over a veth pair is captured exactly: every frame,
//! once, byte for byte, VLAN tags the kernel stripped put back, in order.

use netsift_capture::{Config, Direction, Ring};
use netsift_testkit::frames::{numbered_udp, Frame};
use netsift_testkit::netns::{self, in_ns, send_frames, Side, VethPair};
use netsift_testkit::{require, Need};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Captured frames (data, wire length) and the kernel's drop count.
type Captured = (Vec<(Vec<u8>, u32)>, u64);

/// Captures on `dev` in namespace `ns` until `want` frames from our sender arrived
/// or 10 s passed; returns them (data and wire length) and the ring's statistics.
fn capture(
    ns: &str,
    cfg: Config,
    want: usize,
    ready: mpsc::Sender<()>,
) -> std::thread::JoinHandle<Captured> {
    in_ns(ns, move || {
        let mut ring = Ring::open(&cfg).expect("ring opens");
        ready.send(()).unwrap();
        let mut got = Vec::new();
        let end = Instant::now() + Duration::from_secs(10);
        while got.len() < want && Instant::now() < end {
            if let Some(b) = ring.next_block(Duration::from_millis(50)).unwrap() {
                for f in walked_thrice(&b) {
                    // Our sender's source MAC; the kernel sends nothing else here,
                    // but a stray frame must not be counted as ours.
                    if f.0.get(6..12) == Some(&[2, 0, 0, 0, 0, 0x0b]) {
                        got.push(f);
                    }
                }
            }
        }
        let stats = ring.stats().unwrap();
        (got, stats.dropped)
    })
}

/// A block's frames (data, wire length), walked three times: two walks side by
/// side, then one more, which must all hand out the same frames (the first walk
/// to reach a frame puts its VLAN tag or SLL2 header in place, once).
fn walked_thrice(b: &netsift_capture::Block<'_>) -> Vec<(Vec<u8>, u32)> {
    let mut got = Vec::new();
    for (x, y) in b.frames().zip(b.frames()) {
        assert_eq!(
            (x.data, x.wire_len, x.sec, x.nsec),
            (y.data, y.wire_len, y.sec, y.nsec)
        );
        got.push((x.data.to_vec(), x.wire_len));
    }
    let again: Vec<_> = b.frames().map(|f| (f.data.to_vec(), f.wire_len)).collect();
    assert_eq!(again, got);
    got
}

#[test]
fn frames_over_a_veth_are_captured_exactly() {
    require!(Need::Netns);
    let pair = VethPair::new();
    let frames: Vec<Vec<u8>> = (0..3000u32)
        .map(|i| {
            numbered_udp(
                i,
                (i % 3 == 0).then_some(10 + (i % 7) as u16),
                (i % 200) as usize,
            )
        })
        .collect();
    let (tx, rx) = mpsc::channel();
    let mut cfg = Config::new(&pair.veth_a);
    cfg.block_timeout = Duration::from_millis(2);
    // Room for the whole unpaced burst even if this thread is descheduled: the test
    // is about exactness, not about keeping up.
    cfg.buffer_size = 64 << 20;
    let cap = capture(&pair.a, cfg, frames.len(), tx);
    rx.recv().unwrap();
    let to_send = frames.clone();
    pair.send(Side::B, &to_send);
    let (got, dropped) = cap.join().unwrap();
    assert_eq!(dropped, 0);
    assert_eq!(
        got.len(),
        frames.len(),
        "captured {} of {}",
        got.len(),
        frames.len()
    );
    for (i, ((data, wire), sent)) in got.iter().zip(&frames).enumerate() {
        assert_eq!(data, sent, "frame {i}");
        assert_eq!(*wire as usize, sent.len(), "frame {i}");
    }
}

#[test]
fn snaplen_cuts_and_direction_selects() {
    require!(Need::Netns);
    let pair = VethPair::new();
    let frames: Vec<Vec<u8>> = (0..200u32)
        .map(|i| numbered_udp(i, (i % 2 == 0).then_some(5), 100))
        .collect();
    // On the sending side, `-Q out` sees our frames and `-Q in` none of them.
    for (dir, want) in [(Direction::Out, frames.len()), (Direction::In, 0)] {
        let (tx, rx) = mpsc::channel();
        let mut cfg = Config::new(&pair.veth_b);
        cfg.snaplen = 40;
        cfg.direction = dir;
        cfg.block_timeout = Duration::from_millis(2);
        let cap = in_ns(&pair.b, move || {
            let mut ring = Ring::open(&cfg).expect("ring opens");
            tx.send(()).unwrap();
            let mut got = Vec::new();
            let end = Instant::now() + Duration::from_millis(if want == 0 { 1500 } else { 10_000 });
            while got.len() < want.max(1) && Instant::now() < end {
                if let Some(b) = ring.next_block(Duration::from_millis(50)).unwrap() {
                    got.extend(
                        b.frames()
                            .filter(|f| f.data.get(6..12) == Some(&[2, 0, 0, 0, 0, 0x0b]))
                            .map(|f| (f.data.to_vec(), f.wire_len)),
                    );
                }
            }
            got
        });
        rx.recv().unwrap();
        let to_send = frames.clone();
        pair.send(Side::B, &to_send);
        let got = cap.join().unwrap();
        assert_eq!(got.len(), want, "{dir:?}");
        for ((data, wire), sent) in got.iter().zip(&frames) {
            assert_eq!(&data[..], &sent[..40], "{dir:?}");
            assert_eq!(*wire as usize, sent.len());
        }
    }
}

#[test]
fn any_gives_each_packet_a_linux_sll2_header() {
    require!(Need::Netns);
    let pair = VethPair::new();
    let frames: Vec<Vec<u8>> = (0..300u32)
        .map(|i| numbered_udp(i, None, (i % 40) as usize))
        .collect();
    let (tx, rx) = mpsc::channel();
    let mut cfg = Config::new(netsift_capture::ANY);
    cfg.block_timeout = Duration::from_millis(2);
    cfg.buffer_size = 64 << 20;
    let want = frames.len();
    let ns = pair.a.clone();
    let cap = in_ns(&ns, move || {
        let mut ring = Ring::open(&cfg).expect("ring opens on any");
        assert!(ring.cooked());
        // if_nametoindex asks this thread's namespace (sysfs would show the host's).
        let name = std::ffi::CString::new("va").unwrap();
        // SAFETY: a NUL-terminated name.
        let va = unsafe { libc::if_nametoindex(name.as_ptr()) };
        assert!(va > 0);
        tx.send(()).unwrap();
        let mut got = Vec::new();
        let end = Instant::now() + Duration::from_secs(10);
        while got.len() < want && Instant::now() < end {
            if let Some(b) = ring.next_block(Duration::from_millis(50)).unwrap() {
                // Ours: UDP from 10.0.0.2 (the loopback has nothing else here).
                got.extend(
                    walked_thrice(&b)
                        .into_iter()
                        .filter(|f| f.0.get(20 + 12..20 + 16) == Some(&[10, 0, 0, 2])),
                );
            }
        }
        (got, va)
    });
    rx.recv().unwrap();
    let to_send = frames.clone();
    pair.send(Side::B, &to_send);
    let (got, va) = cap.join().unwrap();
    assert_eq!(got.len(), frames.len());
    for ((data, wire), sent) in got.iter().zip(&frames) {
        // protocol, reserved, interface index, ARPHRD_ETHER, PACKET_OTHERHOST (the
        // frames are not for va's address), 6-byte source address, padding.
        assert_eq!(&data[0..4], &[0x08, 0x00, 0, 0]);
        assert_eq!(&data[4..8], &va.to_be_bytes());
        assert_eq!(&data[8..12], &[0, 1, 3, 6]);
        assert_eq!(&data[12..20], &[2, 0, 0, 0, 0, 0x0b, 0, 0]);
        assert_eq!(&data[20..], &sent[14..]);
        assert_eq!(*wire as usize, sent.len() - 14 + 20);
    }
}

#[test]
fn host_pair_fanout_keeps_every_flow_of_two_hosts_in_one_ring() {
    require!(Need::Netns);
    use netsift_capture::Fanout;
    let pair = VethPair::new();
    // 32 client addresses, each talking to the server over 8 source ports, in both
    // directions (sent from one side, so the MACs stay ours; the addresses are
    // what the hash reads).
    let mut frames = Vec::new();
    for i in 0..512u32 {
        let client = [10, 1, 0, 1 + (i % 32) as u8];
        let server = [10, 0, 0, 9];
        let (src, dst) = if i % 2 == 0 {
            (client, server)
        } else {
            (server, client)
        };
        let mut payload = i.to_be_bytes().to_vec();
        payload.extend(0..16u8);
        let f = Frame::default()
            .ipv4(src, dst)
            .udp(1024 + (i / 32 % 8) as u16, 1234)
            .payload(&payload)
            .build();
        frames.push(f);
    }
    let want = frames.len();
    let (tx, rx) = mpsc::channel();
    let dev = pair.veth_a.clone();
    let cap = in_ns(&pair.a, move || {
        let mut cfg = Config::new(&dev);
        cfg.block_timeout = Duration::from_millis(2);
        cfg.buffer_size = 8 << 20;
        cfg.fanout = Some((4242, Fanout::HostPair));
        let mut rings = [
            Ring::open(&cfg).expect("ring 0 opens"),
            Ring::open(&cfg).expect("ring 1 opens"),
        ];
        tx.send(()).unwrap();
        let mut got: [Vec<Vec<u8>>; 2] = Default::default();
        let end = Instant::now() + Duration::from_secs(10);
        while got[0].len() + got[1].len() < want && Instant::now() < end {
            for (r, g) in rings.iter_mut().zip(got.iter_mut()) {
                if let Some(b) = r.next_block(Duration::from_millis(5)).unwrap() {
                    g.extend(
                        b.frames()
                            .filter(|f| f.data.get(6..12) == Some(&[2, 0, 0, 0, 0, 0x0b]))
                            .map(|f| f.data.to_vec()),
                    );
                }
            }
        }
        got
    });
    rx.recv().unwrap();
    let to_send = frames.clone();
    pair.send(Side::B, &to_send);
    let got = cap.join().unwrap();
    assert_eq!(got[0].len() + got[1].len(), want, "every frame, once");
    assert!(
        !got[0].is_empty() && !got[1].is_empty(),
        "both rings get host pairs: {} and {}",
        got[0].len(),
        got[1].len()
    );
    // The client's address, whichever side it is on, names the host pair.
    let client = |f: &Vec<u8>| if f[29] == 9 { f[33] } else { f[29] };
    for c in got[0].iter().map(client) {
        assert!(
            !got[1].iter().any(|f| client(f) == c),
            "host pair 10.1.0.{c} <-> 10.0.0.9 split over both rings"
        );
    }
}

#[test]
fn a_ring_waits_while_its_interface_is_down_and_fails_once_it_is_gone() {
    require!(Need::Netns);
    let pair = VethPair::new();
    let ip = |args: &[&str]| netns::ip(args).unwrap();
    let (tx, rx) = mpsc::channel();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let dev = pair.veth_a.clone();
    let cap = in_ns(&pair.a, move || {
        let mut cfg = Config::new(&dev);
        cfg.block_timeout = Duration::from_millis(2);
        let mut ring = Ring::open(&cfg).expect("ring opens");
        tx.send(()).unwrap();
        // Down: the kernel sets the socket's error; once read, polls sleep again
        // rather than return at once (which would spin a capture loop).
        go_rx.recv().unwrap();
        let t0 = Instant::now();
        for _ in 0..5 {
            assert!(ring
                .next_block(Duration::from_millis(40))
                .unwrap()
                .is_none());
        }
        let slept = t0.elapsed();
        tx.send(()).unwrap();
        // Up again: frames come in as before.
        let end = Instant::now() + Duration::from_secs(10);
        let mut got = 0;
        while got == 0 && Instant::now() < end {
            if let Some(b) = ring.next_block(Duration::from_millis(20)).unwrap() {
                got += b.frames().count();
            }
        }
        tx.send(()).unwrap();
        // Gone: an error, not an endless wait.
        go_rx.recv().unwrap();
        let end = Instant::now() + Duration::from_secs(5);
        let err = loop {
            match ring.next_block(Duration::from_millis(20)) {
                Err(e) => break Some(e),
                Ok(_) if Instant::now() > end => break None,
                Ok(_) => {}
            }
        };
        (slept, got, err)
    });
    rx.recv().unwrap();
    ip(&["-n", &pair.a, "link", "set", &pair.veth_a, "down"]);
    go_tx.send(()).unwrap();
    rx.recv().unwrap();
    ip(&["-n", &pair.a, "link", "set", &pair.veth_a, "up"]);
    let frames: Vec<Vec<u8>> = (0..20u32).map(|i| numbered_udp(i, None, 10)).collect();
    let dev = pair.veth_b.clone();
    // The carrier comes back a moment after the link: send until the ring says
    // it has frames.
    let sender = in_ns(&pair.b, move || {
        let end = Instant::now() + Duration::from_secs(10);
        while rx.recv_timeout(Duration::from_millis(50)).is_err() && Instant::now() < end {
            send_frames(&dev, &frames);
        }
        rx
    });
    let rx = sender.join().unwrap();
    drop(rx);
    ip(&["-n", &pair.a, "link", "del", &pair.veth_a]);
    go_tx.send(()).unwrap();
    let (slept, got, err) = cap.join().unwrap();
    assert!(
        slept >= Duration::from_millis(150),
        "5 polls of 40 ms took {slept:?}"
    );
    assert!(got > 0, "no frame after the link came back up");
    let err = err.expect("no error once the interface was deleted");
    assert_eq!(
        err.kind(),
        netsift_capture::ErrorKind::NoSuchInterface,
        "{err}"
    );
    assert!(err.to_string().contains("disappeared"), "{err}");
}
