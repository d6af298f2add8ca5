//! Network namespaces joined by a veth pair, made for one test (or one benchmark
//! run) and removed when the guard is dropped, also on a panic.
//!
//! [`VethPair`] holds two namespaces, `a` and `b`, with `veth_a` in `a` and
//! `veth_b` in `b`. Both ends are up, IPv6 is off (so the kernel sends no
//! autoconfiguration traffic of its own) and neither end has an address or a
//! route until a test gives one ([`VethPair::add_address`], 10.x or fd00::/8
//! only): frames sent on the pair reach its other end and nowhere else.
//!
//! Namespace names carry the process id and a counter, so tests running in
//! parallel never share one, and a run killed outright leaves namespaces that the
//! next one recognises (their process is gone) and removes.

use std::os::fd::AsRawFd;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// The prefix of the namespaces [`VethPair::new`] makes.
const TEST_PREFIX: &str = "nstk";

/// One end of a [`VethPair`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Namespace `a`, interface `veth_a`.
    A,
    /// Namespace `b`, interface `veth_b`.
    B,
}

/// Two namespaces and the veth pair between them; dropping it removes both
/// (removing a namespace removes the veth end in it, and with it the pair).
#[derive(Debug)]
pub struct VethPair {
    /// The first namespace.
    pub a: String,
    /// The second namespace.
    pub b: String,
    /// The pair's end in `a`.
    pub veth_a: String,
    /// The pair's end in `b`.
    pub veth_b: String,
}

/// Runs `ip` with `args`; its stderr when it fails.
pub fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run `ip` (iproute2): {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

impl VethPair {
    /// A pair for a test, interfaces `va` and `vb`; panics if it cannot be made
    /// (check [`crate::Need::Netns`] first).
    pub fn new() -> VethPair {
        VethPair::with_names(TEST_PREFIX, "va", "vb").unwrap_or_else(|e| panic!("veth pair: {e}"))
    }

    /// A pair whose namespaces are named `{prefix}{pid}x{n}a` and `...b`, with
    /// interfaces `veth_a` and `veth_b`. Namespaces of `prefix` left by processes
    /// that no longer exist are removed first.
    pub fn with_names(prefix: &str, veth_a: &str, veth_b: &str) -> Result<VethPair, String> {
        static N: AtomicU32 = AtomicU32::new(0);
        remove_stale(prefix);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let id = format!("{prefix}{}x{n}", std::process::id());
        let p = VethPair {
            a: format!("{id}a"),
            b: format!("{id}b"),
            veth_a: veth_a.into(),
            veth_b: veth_b.into(),
        };
        // From here on, dropping `p` removes whatever was made.
        ip(&["netns", "add", &p.a])?;
        ip(&["netns", "add", &p.b])?;
        ip(&[
            "-n", &p.a, "link", "add", &p.veth_a, "type", "veth", "peer", "name", &p.veth_b,
            "netns", &p.b,
        ])?;
        for (ns, dev) in [(&p.a, &p.veth_a), (&p.b, &p.veth_b)] {
            // No IPv6 autoconfiguration: router and neighbour solicitations of the
            // kernel's own would be counted with the test's frames.
            set_ipv6(ns, false)?;
            ip(&["-n", ns, "link", "set", dev, "up"])?;
            ip(&["-n", ns, "link", "set", "lo", "up"])?;
        }
        Ok(p)
    }

    /// The namespace and interface of one end.
    pub fn end(&self, side: Side) -> (&str, &str) {
        match side {
            Side::A => (&self.a, &self.veth_a),
            Side::B => (&self.b, &self.veth_b),
        }
    }

    /// Gives `side`'s interface the address `cidr` (such as `10.77.0.1/24`);
    /// only private 10.x and fd00::/8 addresses, which route nowhere else.
    pub fn add_address(&self, side: Side, cidr: &str) {
        assert!(
            cidr.starts_with("10.") || cidr.starts_with("fd"),
            "{cidr}: test addresses are 10.x or fd00::/8"
        );
        let (ns, dev) = self.end(side);
        if cidr.contains(':') {
            set_ipv6(ns, true).unwrap();
            ip(&["-n", ns, "addr", "add", cidr, "dev", dev, "nodad"]).unwrap();
        } else {
            ip(&["-n", ns, "addr", "add", cidr, "dev", dev]).unwrap();
        }
    }

    /// The interface index of `side`'s end, in its namespace.
    pub fn ifindex(&self, side: Side) -> u32 {
        let (ns, dev) = self.end(side);
        let dev = dev.to_string();
        in_ns(ns, move || {
            let name = std::ffi::CString::new(dev).unwrap();
            // SAFETY: a NUL-terminated name that lives through the call.
            unsafe { libc::if_nametoindex(name.as_ptr()) }
        })
        .join()
        .unwrap()
    }

    /// Sends `frames` as they are from `side`'s interface, and returns when all
    /// are sent.
    pub fn send(&self, side: Side, frames: &[Vec<u8>]) {
        let (ns, dev) = self.end(side);
        let (dev, frames) = (dev.to_string(), frames.to_vec());
        in_ns(ns, move || send_frames(&dev, &frames))
            .join()
            .unwrap();
    }

    /// A command that runs `program` in `side`'s namespace.
    pub fn command(&self, side: Side, program: impl AsRef<std::ffi::OsStr>) -> Command {
        exec(self.end(side).0, program)
    }

    /// Adds an 802.1Q interface for VLAN `vid` on `side`'s end, up, and returns
    /// its name (`vl` and the number). A frame sent on it leaves the end tagged:
    /// the tag in the socket buffer's metadata while the end's tx-vlan offload
    /// is on ([`VethPair::set_tx_vlan_offload`]), else in its data.
    pub fn add_vlan(&self, side: Side, vid: u16) -> String {
        let (ns, dev) = self.end(side);
        let name = format!("vl{vid}");
        let id = vid.to_string();
        ip(&[
            "-n", ns, "link", "add", "link", dev, "name", &name, "type", "vlan", "id", &id,
        ])
        .unwrap();
        ip(&["-n", ns, "link", "set", &name, "up"]).unwrap();
        name
    }

    /// Turns `side`'s tx-vlan offload (`ethtool -K DEV txvlan on|off`, Linux's
    /// NETIF_F_HW_VLAN_CTAG_TX) on or off, through the legacy ETHTOOL_GFLAGS and
    /// ETHTOOL_SFLAGS requests, so that no ethtool need be installed.
    pub fn set_tx_vlan_offload(&self, side: Side, on: bool) {
        let (ns, dev) = self.end(side);
        let dev = dev.to_string();
        in_ns(ns, move || ethtool_flag(&dev, ETH_FLAG_TXVLAN, on))
            .join()
            .unwrap()
            .unwrap_or_else(|e| panic!("tx-vlan offload {on}: {e}"));
    }
}

/// linux/ethtool.h: get and set the device flags, and the tx-vlan offload flag.
const ETHTOOL_GFLAGS: u32 = 0x25;
const ETHTOOL_SFLAGS: u32 = 0x26;
const ETH_FLAG_TXVLAN: u32 = 1 << 7;

/// Sets or clears `flag` of interface `dev` (in the calling thread's namespace).
fn ethtool_flag(dev: &str, flag: u32, on: bool) -> std::io::Result<()> {
    /// `struct ethtool_value`.
    #[repr(C)]
    struct Value {
        cmd: u32,
        data: u32,
    }
    // SAFETY: socket(2) with constant arguments.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM, 0) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the descriptor was just opened and is owned by nothing else.
    let fd = unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) };
    let request = |v: &mut Value| {
        // SAFETY: ifreq is plain data, valid when zeroed.
        let mut ifr: libc::ifreq = unsafe { std::mem::zeroed() };
        for (d, s) in ifr
            .ifr_name
            .iter_mut()
            .zip(dev.bytes().take(libc::IFNAMSIZ - 1))
        {
            *d = s as libc::c_char;
        }
        ifr.ifr_ifru.ifru_data = (v as *mut Value).cast();
        // SAFETY: SIOCETHTOOL reads and writes the ethtool_value that ifr points
        // to, which lives through the call.
        let rc = unsafe { libc::ioctl(fd.as_raw_fd(), libc::SIOCETHTOOL, &mut ifr) };
        if rc < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    };
    let mut v = Value {
        cmd: ETHTOOL_GFLAGS,
        data: 0,
    };
    request(&mut v)?;
    v.cmd = ETHTOOL_SFLAGS;
    v.data = if on { v.data | flag } else { v.data & !flag };
    request(&mut v)
}

impl Default for VethPair {
    fn default() -> VethPair {
        VethPair::new()
    }
}

impl Drop for VethPair {
    fn drop(&mut self) {
        let _ = ip(&["netns", "del", &self.a]);
        let _ = ip(&["netns", "del", &self.b]);
    }
}

/// Turns IPv6 on or off in namespace `ns`.
fn set_ipv6(ns: &str, on: bool) -> Result<(), String> {
    let setting = format!("net.ipv6.conf.all.disable_ipv6={}", u8::from(!on));
    ip(&["netns", "exec", ns, "sysctl", "-qw", &setting])
}

/// Removes the namespaces named `{prefix}{pid}...` whose process no longer exists.
pub fn remove_stale(prefix: &str) {
    let Ok(out) = Command::new("ip").args(["netns", "list"]).output() else {
        return;
    };
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let name = line.split_whitespace().next().unwrap_or("");
        let Some(rest) = name.strip_prefix(prefix) else {
            continue;
        };
        let pid: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if !pid.is_empty() && !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let _ = ip(&["netns", "del", name]);
        }
    }
}

/// A command that runs `program` inside namespace `ns` (`ip netns exec` execs the
/// program in place, so the child's pid is the program's own).
pub fn exec(ns: &str, program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut c = Command::new("ip");
    c.args(["netns", "exec", ns]).arg(program);
    c
}

/// Runs `f` on a new thread that has entered namespace `ns`: the sockets it opens
/// belong there. An error if the thread cannot enter it.
pub fn try_in_ns<T: Send + 'static>(
    ns: &str,
    f: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> std::thread::JoinHandle<Result<T, String>> {
    let path = format!("/var/run/netns/{ns}");
    std::thread::spawn(move || {
        let file = std::fs::File::open(&path).map_err(|e| format!("{path}: {e}"))?;
        // SAFETY: setns on a namespace file descriptor that lives through the
        // call; it changes only this thread's network namespace.
        let rc = unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) };
        if rc != 0 {
            return Err(format!("setns {path}: {}", std::io::Error::last_os_error()));
        }
        f()
    })
}

/// [`try_in_ns`] for tests: panics if the thread cannot enter `ns`.
pub fn in_ns<T: Send + 'static>(
    ns: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> std::thread::JoinHandle<T> {
    let h = try_in_ns(ns, move || Ok(f()));
    std::thread::spawn(move || h.join().unwrap().unwrap_or_else(|e| panic!("{e}")))
}

/// Sends each frame as it is on interface `dev` (of the calling thread's
/// namespace) through a raw AF_PACKET socket, waiting out a full queue.
pub fn try_send_frames(dev: &str, frames: &[Vec<u8>]) -> std::io::Result<()> {
    let name = std::ffi::CString::new(dev).map_err(std::io::Error::other)?;
    // SAFETY: a NUL-terminated name that lives through the call.
    let index = unsafe { libc::if_nametoindex(name.as_ptr()) };
    if index == 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: socket(2) with constant arguments.
    let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW, 0) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the descriptor was just opened and is owned by nothing else.
    let fd = unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) };
    // SAFETY: sockaddr_ll is plain data, valid when zeroed.
    let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
    sll.sll_family = libc::AF_PACKET as u16;
    sll.sll_ifindex = index as i32;
    sll.sll_halen = 6;
    for f in frames {
        let n = f.len().min(6);
        sll.sll_addr[..n].copy_from_slice(&f[..n]);
        loop {
            // SAFETY: the frame and the address live through the call, and the
            // lengths passed are theirs.
            let sent = unsafe {
                libc::sendto(
                    fd.as_raw_fd(),
                    f.as_ptr().cast(),
                    f.len(),
                    0,
                    (&sll as *const libc::sockaddr_ll).cast(),
                    std::mem::size_of::<libc::sockaddr_ll>() as u32,
                )
            };
            if sent == f.len() as isize {
                break;
            }
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::ENOBUFS) {
                return Err(e);
            }
            std::thread::yield_now();
        }
    }
    Ok(())
}

/// [`try_send_frames`] for tests: panics on an error.
pub fn send_frames(dev: &str, frames: &[Vec<u8>]) {
    try_send_frames(dev, frames).unwrap_or_else(|e| panic!("sending on {dev}: {e}"));
}
