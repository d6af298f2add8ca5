//! Network namespaces and veth pairs that a test makes and removes itself, and a
//! sender of hand-made frames.
//!
//! Tests need CAP_NET_ADMIN (root here and in CI). Without it they are skipped with
//! a message, unless `CI=true`, where a skip is a failure.

#![allow(dead_code)]

use std::os::fd::AsRawFd;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// Whether this process may make namespaces; prints why not, and fails under CI.
pub(crate) fn can_run(test: &str) -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let ip = Command::new("ip").arg("-V").output().is_ok();
    if root && ip {
        return true;
    }
    let why = if ip {
        "not root (needs CAP_NET_ADMIN)"
    } else {
        "no `ip` command (iproute2)"
    };
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{test}: cannot run live capture tests under CI: {why}");
    }
    eprintln!("{test}: skipped: {why}");
    false
}

fn run(args: &[&str]) {
    let out = Command::new("ip").args(args).output().expect("ip runs");
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Two namespaces joined by a veth pair: `a` holds `veth_a`, `b` holds `veth_b`.
/// Both are removed when this is dropped (removing a namespace removes its veth).
pub(crate) struct Pair {
    pub a: String,
    pub b: String,
    pub veth_a: String,
    pub veth_b: String,
}

impl Pair {
    pub(crate) fn new(tag: &str) -> Pair {
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let id = format!("{}{}{}", tag, std::process::id() % 100_000, n);
        let p = Pair {
            a: format!("nsa{id}"),
            b: format!("nsb{id}"),
            veth_a: "va".into(),
            veth_b: "vb".into(),
        };
        run(&["netns", "add", &p.a]);
        run(&["netns", "add", &p.b]);
        run(&[
            "-n", &p.a, "link", "add", &p.veth_a, "type", "veth", "peer", "name", &p.veth_b,
            "netns", &p.b,
        ]);
        for (ns, dev) in [(&p.a, &p.veth_a), (&p.b, &p.veth_b)] {
            // No IPv6 autoconfiguration traffic of the kernel's own on the link.
            let _ = Command::new("ip")
                .args([
                    "netns",
                    "exec",
                    ns,
                    "sysctl",
                    "-qw",
                    "net.ipv6.conf.all.disable_ipv6=1",
                ])
                .output();
            run(&["-n", ns, "link", "set", dev, "up"]);
            run(&["-n", ns, "link", "set", "lo", "up"]);
        }
        p
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["netns", "del", &self.a]).output();
        let _ = Command::new("ip").args(["netns", "del", &self.b]).output();
    }
}

/// Runs `f` on a new thread that has entered namespace `ns` (sockets it opens
/// belong there), and returns what `f` returns.
pub(crate) fn in_ns<T: Send + 'static>(
    ns: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> std::thread::JoinHandle<T> {
    let path = format!("/var/run/netns/{ns}");
    std::thread::spawn(move || {
        let file = std::fs::File::open(&path).expect("namespace file");
        // SAFETY: a namespace file descriptor and its type.
        let rc = unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) };
        assert_eq!(rc, 0, "setns {path}: {}", std::io::Error::last_os_error());
        f()
    })
}

/// Sends each frame as it is on interface `dev` (of the calling thread's
/// namespace) through a raw AF_PACKET socket.
pub(crate) fn send_frames(dev: &str, frames: &[Vec<u8>]) {
    let name = std::ffi::CString::new(dev).unwrap();
    // SAFETY: plain system calls on values that live through them.
    unsafe {
        let index = libc::if_nametoindex(name.as_ptr()) as i32;
        assert!(index > 0, "no {dev}");
        let fd = libc::socket(libc::AF_PACKET, libc::SOCK_RAW, 0);
        assert!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
        let mut sll: libc::sockaddr_ll = std::mem::zeroed();
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_ifindex = index;
        sll.sll_halen = 6;
        for f in frames {
            sll.sll_addr[..6].copy_from_slice(&f[..6]);
            loop {
                let n = libc::sendto(
                    fd,
                    f.as_ptr().cast(),
                    f.len(),
                    0,
                    (&sll as *const libc::sockaddr_ll).cast(),
                    std::mem::size_of::<libc::sockaddr_ll>() as u32,
                );
                if n == f.len() as isize {
                    break;
                }
                let e = std::io::Error::last_os_error();
                assert_eq!(e.raw_os_error(), Some(libc::ENOBUFS), "sendto: {e}");
                std::thread::yield_now();
            }
        }
        libc::close(fd);
    }
}

/// A UDP/IPv4 frame from 02:00:00:00:00:0b to 02:00:00:00:00:0a carrying `seq`,
/// tagged with VLAN `vid` if given; `pad` bytes of payload.
pub(crate) fn udp_frame(seq: u32, vid: Option<u16>, pad: usize) -> Vec<u8> {
    let mut f = vec![2, 0, 0, 0, 0, 0x0a, 2, 0, 0, 0, 0, 0x0b];
    if let Some(v) = vid {
        f.extend([0x81, 0x00]);
        f.extend(v.to_be_bytes());
    }
    f.extend([0x08, 0x00]);
    let payload_len = 4 + pad;
    let total = 20 + 8 + payload_len;
    f.extend([
        0x45,
        0,
        (total >> 8) as u8,
        total as u8,
        0,
        1,
        0x40,
        0,
        64,
        17,
        0,
        0,
    ]);
    f.extend([10, 0, 0, 2, 10, 0, 0, 1]);
    f.extend([
        0x30,
        0x39,
        0x04,
        0xd2,
        ((8 + payload_len) >> 8) as u8,
        (8 + payload_len) as u8,
        0,
        0,
    ]);
    f.extend(seq.to_be_bytes());
    f.extend((0..pad).map(|i| i as u8));
    f
}

/// [`udp_frame`] with UDP source port `sport`: frames of different ports are
/// different flows to a fanout hash.
pub(crate) fn udp_flow_frame(seq: u32, sport: u16) -> Vec<u8> {
    let mut f = udp_frame(seq, None, 16);
    f[34..36].copy_from_slice(&sport.to_be_bytes());
    f
}
