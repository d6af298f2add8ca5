//! A client in another process: it receives a flow's four descriptors over
//! `SCM_RIGHTS`, as it will from `netsiftd`, reads the packets, cannot write
//! PBuf or IBuf in any way the tests know, and can write its control page.
//!
//! The child is this test binary run again with `NETSIFT_FFPF_CHILD_SOCK` set
//! to the descriptor of its end of a socket pair; `child_side` is the test it
//! runs (a no-op in a normal run).

mod common;

use common::{check, child, incoming, packet};
use netsift_ffpf::{FlowReader, Group, Policy};
use std::io::Error as IoError;
use std::os::fd::{AsFd, AsRawFd, RawFd};

const ENV: &str = "NETSIFT_FFPF_CHILD_SOCK";
const PACKETS: u64 = 50;

/// errno of a read-write shared mapping of `fd`, or 0 if it was allowed.
fn rw_map_errno(fd: RawFd, len: usize) -> i32 {
    // SAFETY: a fresh mapping the kernel places; unmapped at once if made.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fd,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return IoError::last_os_error().raw_os_error().unwrap_or(-1);
    }
    // SAFETY: unmaps the mapping just made.
    unsafe { libc::munmap(p, len) };
    0
}

/// errno of upgrading a read-only shared mapping of `fd` to writable.
fn mprotect_errno(fd: RawFd, len: usize) -> i32 {
    // SAFETY: a fresh read-only mapping; unmapped before returning.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            fd,
            0,
        )
    };
    assert_ne!(
        p,
        libc::MAP_FAILED,
        "read-only mapping: {}",
        IoError::last_os_error()
    );
    // SAFETY: changes the protection of the mapping just made.
    let r = unsafe { libc::mprotect(p, len, libc::PROT_READ | libc::PROT_WRITE) };
    let e = if r < 0 {
        IoError::last_os_error().raw_os_error().unwrap_or(-1)
    } else {
        0
    };
    // SAFETY: unmaps it.
    unsafe { libc::munmap(p, len) };
    e
}

/// errno of writing one byte to `fd` at offset 0, or 0 if it was allowed.
fn write_errno(fd: RawFd) -> i32 {
    let b = [0u8];
    // SAFETY: writes one byte from a live buffer.
    let n = unsafe { libc::pwrite(fd, b.as_ptr().cast(), 1, 0) };
    if n < 0 {
        IoError::last_os_error().raw_os_error().unwrap_or(-1)
    } else {
        0
    }
}

/// errno of truncating `fd` to zero.
fn truncate_errno(fd: RawFd) -> i32 {
    // SAFETY: ftruncate takes a descriptor and a length.
    if unsafe { libc::ftruncate(fd, 0) } < 0 {
        IoError::last_os_error().raw_os_error().unwrap_or(-1)
    } else {
        0
    }
}

/// The child's side: runs only when the parent set `NETSIFT_FFPF_CHILD_SOCK`.
#[test]
fn child_side() {
    let Some([pbuf, ibuf, control, wake]) = child::received(ENV) else {
        return;
    };
    for (name, fd) in [("pbuf", &pbuf), ("ibuf", &ibuf)] {
        let fd = fd.as_raw_fd();
        println!("CHILD {name} rw-mmap errno={}", rw_map_errno(fd, 4096));
        println!("CHILD {name} mprotect errno={}", mprotect_errno(fd, 4096));
        println!("CHILD {name} write errno={}", write_errno(fd));
        println!("CHILD {name} ftruncate errno={}", truncate_errno(fd));
        // Reopened through /proc: a new, read-write open file; the seals
        // are the file's, so they still hold.
        let reopened = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(format!("/proc/self/fd/{fd}"))
            .expect("reopening a memfd read-write");
        let rfd = reopened.as_raw_fd();
        println!(
            "CHILD {name} reopened-rw-mmap errno={}",
            rw_map_errno(rfd, 4096)
        );
        println!("CHILD {name} reopened-write errno={}", write_errno(rfd));
    }
    println!(
        "CHILD control rw-mmap errno={}",
        rw_map_errno(control.as_raw_fd(), 4096)
    );
    println!(
        "CHILD control ftruncate errno={}",
        truncate_errno(control.as_raw_fd())
    );
    let mut r = FlowReader::from_fds(pbuf, ibuf, control, wake).expect("from_fds in the child");
    let mut n = 0;
    while let Some(p) = r.getnext().expect("no corrupt entries") {
        assert_eq!(check(&p), n);
        assert_eq!(p.class, 7);
        n += 1;
    }
    r.release();
    println!("CHILD delivered={n}");
}

#[test]
fn a_client_process_reads_but_cannot_write_the_buffers() {
    let mut g = Group::new(Policy::SlowReader, 1 << 16).unwrap();
    let (id, fds) = g.add_flow(128).unwrap();
    let pkts: Vec<Vec<u8>> = (0..PACKETS).map(|s| packet(s, 40 + s as usize)).collect();
    let flows = [(id, 7)];
    let batch = incoming(&pkts, 0, &flows);
    g.write_batch(&batch);

    let all = [&fds.pbuf, &fds.ibuf, &fds.control, &fds.wake].map(|f| f.as_fd());
    let stdout = child::run("child_side", ENV, &all);
    drop(fds);
    let eperm = libc::EPERM;
    for buf in ["pbuf", "ibuf"] {
        for what in [
            "rw-mmap",
            "write",
            "ftruncate",
            "reopened-rw-mmap",
            "reopened-write",
        ] {
            let line = format!("CHILD {buf} {what} errno={eperm}");
            assert!(stdout.contains(&line), "expected `{line}` in:\n{stdout}");
        }
        let line = format!("CHILD {buf} mprotect errno={}", libc::EACCES);
        assert!(stdout.contains(&line), "expected `{line}` in:\n{stdout}");
    }
    assert!(stdout.contains("CHILD control rw-mmap errno=0"), "{stdout}");
    assert!(
        stdout.contains(&format!("CHILD control ftruncate errno={eperm}")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("CHILD delivered={PACKETS}")),
        "{stdout}"
    );
    // The child's control-page stores reached the writer.
    let rep = g.reported(id).unwrap();
    assert_eq!((rep.read, rep.delivered), (PACKETS, PACKETS));
    g.write_batch(&[]);
    assert_eq!(g.counters(id).unwrap().read, PACKETS);
}
