//! Hostile peers: a client scribbling on its control page changes nothing but
//! its own view; a reader handed garbage buffers or lying index entries gets
//! errors, never a panic.

mod common;

use common::{check, packet, reader};
use netsift_ffpf::control::{ControlPage, ControlWriterSide};
use netsift_ffpf::ibuf::IbufWriter;
use netsift_ffpf::pbuf::{PbufHeader, PbufWriter, PBUF_MAGIC, PBUF_VERSION};
use netsift_ffpf::shm::{Memfd, RwMapping};
use netsift_ffpf::wake::{poll_readable, Waker};
use netsift_ffpf::{ErrorKind, FlowFds, FlowId, FlowReader, Group, Incoming, Policy};
use std::mem::offset_of;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::sync::atomic::Ordering;

fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

fn offer(g: &mut Group, seq: u64, flows: &[(FlowId, u32)]) {
    let bytes = packet(seq, 64 + (seq % 50) as usize);
    g.write_batch(&[Incoming {
        bytes: &bytes,
        ts_ns: seq * 1000,
        wirelen: bytes.len() as u32 + 4,
        flows,
    }]);
}

/// The client's own read-write mapping of its control page.
fn scribbler(fds: &FlowFds) -> RwMapping {
    RwMapping::new(fds.control.as_fd(), 4096).unwrap()
}

#[test]
fn a_hostile_control_page_moves_only_its_own_view() {
    let mut g = Group::new(Policy::SlowReader, 1 << 16).unwrap();
    let (h, fh) = g.add_flow(16).unwrap();
    let (good, fg) = g.add_flow(1024).unwrap();
    let page = scribbler(&fh);
    let read = page.u64(offset_of!(ControlPage, read));
    let mut rg = reader(fg);
    let both = [(h, 1), (good, 2)];

    // R beyond W: all consumed, as far as the writer cares, and no further.
    read.store(u64::MAX, Ordering::Relaxed);
    for s in 0..10 {
        offer(&mut g, s, &both);
    }
    let c = g.counters(h).unwrap();
    assert_eq!(
        (c.read, c.written),
        (9, 10),
        "R clamped to W as it was at the batch"
    );
    // R backwards: ignored; the writer's R never decreases.
    read.store(0, Ordering::Relaxed);
    offer(&mut g, 10, &both);
    assert_eq!(g.counters(h).unwrap().read, 9, "R stays where it was");

    // A huge wake threshold means "when the IBuf is full".
    page.u64(offset_of!(ControlPage, wake_at))
        .store(u64::MAX, Ordering::Relaxed);
    read.store(11, Ordering::Relaxed);
    for s in 11..26 {
        offer(&mut g, s, &both);
        assert!(
            !poll_readable(fh.wake.as_fd(), 0).unwrap(),
            "no wake before full"
        );
    }
    offer(&mut g, 26, &both);
    assert!(
        poll_readable(fh.wake.as_fd(), 0).unwrap(),
        "woken when full"
    );

    // Garbage everywhere the client can write, between batches.
    let mut seed = 0x9e37_79b9_7f4a_7c15;
    let mut last_r = g.counters(h).unwrap().read;
    for s in 27..2000 {
        for off in (0..4096).step_by(8) {
            if xorshift(&mut seed).is_multiple_of(4) {
                page.u64(off).store(xorshift(&mut seed), Ordering::Relaxed);
            }
        }
        offer(&mut g, s, &both);
        let c = g.counters(h).unwrap();
        assert!(c.read >= last_r && c.read <= c.written, "{c:?}");
        assert!(c.written - c.read <= 16);
        last_r = c.read;
        assert!(c.writer.accepted == s + 1);
        while let Some(p) = rg.getnext().unwrap() {
            assert_eq!(p.class, 2);
            check(&p);
        }
    }
    rg.release();
    let sg = rg.stats();
    assert!(sg.balanced(), "{sg:?}");
    assert_eq!(sg.writer.accepted, 2000);
    // The good flow's losses, if any, are the slow-reader policy's (a
    // hostile reader is a slow reader, bounded by the stall bound), never
    // corruption.
    assert_eq!((sg.overwritten, sg.invalid, sg.writer.ibuf_full), (0, 0, 0));

    // The client broke its own page: a reader on it is refused or reads
    // what is there, and either way nothing panics.
    match FlowReader::from_fds(fh.pbuf, fh.ibuf, fh.control, fh.wake) {
        Err(e) => assert_eq!(e.kind(), ErrorKind::BadBuffer, "{e}"),
        Ok(mut rh) => {
            while let Ok(Some(p)) = rh.getnext() {
                check(&p);
            }
        }
    }
}

/// A sealed (size only) memfd holding `words` from offset 0, `len` bytes long.
fn sealed(words: &[(usize, u64)], len: usize) -> OwnedFd {
    let m = Memfd::create(c"test-garbage", len).unwrap();
    let map = m.map_rw().unwrap();
    for &(off, v) in words {
        map.u64(off).store(v, Ordering::Relaxed);
    }
    m.seal_size().unwrap();
    m.dup().unwrap()
}

fn fds_of(g: &mut Group) -> FlowFds {
    g.add_flow(16).unwrap().1
}

fn open_err(f: FlowFds) -> netsift_ffpf::Error {
    match FlowReader::from_fds(f.pbuf, f.ibuf, f.control, f.wake) {
        Ok(_) => panic!("a bad buffer was accepted"),
        Err(e) => e,
    }
}

#[test]
fn garbage_buffers_are_errors_not_panics() {
    let mut g = Group::new(Policy::FastReader, 1 << 16).unwrap();
    let hdr = |cap: u64, version: u32| {
        vec![
            (offset_of!(PbufHeader, magic), PBUF_MAGIC),
            (8, u64::from(version) | (4096u64 << 32)),
            (offset_of!(PbufHeader, capacity), cap),
        ]
    };
    let unsealed = Memfd::create(c"test-unsealed", 1 << 17).unwrap();
    let null = std::fs::File::open("/dev/null").unwrap();
    let cases: Vec<(&str, OwnedFd, ErrorKind)> = vec![
        ("unsealed", unsealed.dup().unwrap(), ErrorKind::BadBuffer),
        ("/dev/null", OwnedFd::from(null), ErrorKind::BadBuffer),
        ("short", sealed(&[], 100), ErrorKind::BadBuffer),
        ("zero magic", sealed(&[], 8192), ErrorKind::BadBuffer),
        (
            "capacity not 2^k",
            sealed(&hdr(3000, PBUF_VERSION), 8192),
            ErrorKind::BadBuffer,
        ),
        (
            "truncated",
            sealed(&hdr(1 << 16, PBUF_VERSION), 8192),
            ErrorKind::BadBuffer,
        ),
        (
            "version 2",
            sealed(&hdr(4096, 2), 8192),
            ErrorKind::BadBuffer,
        ),
        (
            "capacity 2^63",
            sealed(&hdr(1 << 63, PBUF_VERSION), 8192),
            ErrorKind::BadBuffer,
        ),
    ];
    for (what, fd, kind) in cases {
        let mut f = fds_of(&mut g);
        f.pbuf = fd;
        let e = open_err(f);
        assert_eq!(e.kind(), kind, "{what}: {e}");
        assert!(
            e.to_string().contains("fd"),
            "{what}: the message names the fd: {e}"
        );
    }
    // Buffers in the wrong places.
    let f = fds_of(&mut g);
    let e = open_err(FlowFds {
        pbuf: f.ibuf,
        ibuf: f.pbuf,
        ..f
    });
    assert_eq!(e.kind(), ErrorKind::BadBuffer, "{e}");
    let f = fds_of(&mut g);
    let other = fds_of(&mut g);
    let e = open_err(FlowFds {
        control: other.ibuf,
        ..f
    });
    assert_eq!(e.kind(), ErrorKind::BadBuffer, "{e}");
    // IBuf headers.
    let ibuf_hdr = |entries: u64, entry_size: u64| {
        vec![
            (0, u64::from_le_bytes(*b"nsfIBUF\0")),
            (8, 1 | (entry_size << 32)),
            (16, entries),
        ]
    };
    for (what, fd) in [
        ("3 entries", sealed(&ibuf_hdr(3, 24), 8192)),
        ("32-byte entries", sealed(&ibuf_hdr(16, 32), 8192)),
        (
            "more entries than bytes",
            sealed(&ibuf_hdr(1 << 20, 24), 8192),
        ),
        (
            "control page",
            sealed(&[(0, u64::from_le_bytes(*b"nsfCTRL\0"))], 4096),
        ),
    ] {
        let mut f = fds_of(&mut g);
        f.ibuf = fd;
        let e = open_err(f);
        assert_eq!(e.kind(), ErrorKind::BadBuffer, "{what}: {e}");
    }
    // Random headers of random sizes, magic right or wrong: no panic.
    let mut seed = 42;
    for i in 0..300 {
        let len = 1 + (xorshift(&mut seed) % (3 << 13)) as usize;
        let mut words = Vec::new();
        for k in 0..len.min(4096) / 8 {
            if xorshift(&mut seed).is_multiple_of(3) {
                let bits = xorshift(&mut seed) % 64;
                words.push((k * 8, xorshift(&mut seed) % (1 << bits)));
            }
        }
        if i % 2 == 0 && len >= 8 {
            words.push((
                0,
                if i % 4 == 0 {
                    PBUF_MAGIC
                } else {
                    u64::from_le_bytes(*b"nsfIBUF\0")
                },
            ));
        }
        let fd = sealed(&words, len);
        let mut f = fds_of(&mut g);
        if i % 4 < 2 {
            f.pbuf = fd;
        } else {
            f.ibuf = fd;
        }
        let _ = FlowReader::from_fds(f.pbuf, f.ibuf, f.control, f.wake);
    }
}

#[test]
fn lying_index_entries_are_corrupt_errors() {
    let mut pbuf = PbufWriter::create(4096).unwrap();
    let mut ibuf = IbufWriter::create(16).unwrap();
    let control = ControlWriterSide::create().unwrap();
    let (_waker, wake) = Waker::pair().unwrap();
    let good = packet(0, 100);
    let p = pbuf.append(&good, 0, 104);
    let lies = [
        (3, 10, "not 8-aligned"),
        (0, 100_000, "longer than the data area"),
        (4088, 100, "straddling"),
        (2048, 8, "beyond the write position"),
        (0, 50, "disagrees"),
        (u64::MAX - 4095, 8, "beyond the write position"),
    ];
    for &(pos, len, _) in &lies {
        ibuf.push(pos, len, 9);
    }
    ibuf.push(p, good.len() as u32, 9);
    ibuf.publish();
    let mut r = FlowReader::from_fds(
        pbuf.dup().unwrap(),
        ibuf.dup().unwrap(),
        control.dup().unwrap(),
        wake,
    )
    .unwrap();
    for &(_, _, why) in &lies {
        let e = r.getnext().unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Corrupt);
        assert!(e.to_string().contains(why), "`{e}` should say {why}");
    }
    let p = r.getnext().unwrap().unwrap();
    assert_eq!(check(&p), 0);
    assert!(r.getnext().unwrap().is_none());
    let s = r.stats();
    assert_eq!((s.delivered, s.invalid), (1, lies.len() as u64));
    let _ = pbuf.fd().as_raw_fd();
}
