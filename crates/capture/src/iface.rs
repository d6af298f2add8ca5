//! The interfaces a capture can open, as `tcpdump -D` lists them, and the link
//! type each is captured with.

use crate::error::{Error, ErrorKind};
use netsift_wire::LinkType;
use std::fs;

/// The link type a ring on an interface of ARPHRD hardware type `hatype` gives,
/// where netsift captures it: Ethernet, and loopback (which carries an Ethernet
/// header).
pub fn linktype(hatype: u16) -> Option<LinkType> {
    match hatype {
        1 | 772 => Some(LinkType::EN10MB),
        _ => None,
    }
}

/// The link type a ring on interface `name` gives (`any` gives LINUX_SLL2),
/// from its ARPHRD type as the calling thread's network namespace sees it.
pub fn linktype_of(name: &str) -> Result<LinkType, Error> {
    if name == crate::ANY {
        return Ok(LinkType::LINUX_SLL2);
    }
    let t = hardware_type(name)?;
    linktype(t).ok_or_else(|| unsupported(name, t))
}

/// Interface `name`'s ARPHRD hardware type, asked of the kernel with
/// `SIOCGIFHWADDR`: unlike sysfs, which shows the namespace it was mounted in,
/// the ioctl answers for the calling thread's network namespace, so a capture
/// opened by a thread that entered another namespace sees its interfaces.
fn hardware_type(name: &str) -> Result<u16, Error> {
    let gone = || {
        Error::new(
            ErrorKind::NoSuchInterface,
            format!("{name}: no such device exists"),
        )
    };
    let mut ifr: libc::ifreq = zeroed_ifreq();
    if name.is_empty() || name.len() >= ifr.ifr_name.len() || name.contains('\0') {
        return Err(gone());
    }
    for (d, s) in ifr.ifr_name.iter_mut().zip(name.bytes()) {
        *d = s as libc::c_char;
    }
    // SAFETY: socket(2) with constant arguments; the descriptor is owned below.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(Error::os(
            "a socket to ask for an interface's hardware type",
        ));
    }
    // SAFETY: `fd` is a fresh descriptor that nothing else owns.
    let fd = unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) };
    // SAFETY: SIOCGIFHWADDR reads a NUL-terminated name from `ifr` and writes
    // the hardware address into it; `ifr` lives through the call.
    let rc = unsafe {
        libc::ioctl(
            std::os::fd::AsRawFd::as_raw_fd(&fd),
            libc::SIOCGIFHWADDR,
            &mut ifr,
        )
    };
    if rc != 0 {
        return match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::ENODEV) | Some(libc::ENXIO) => Err(gone()),
            _ => Err(Error::os(format!("{name}: hardware type"))),
        };
    }
    // SAFETY: after SIOCGIFHWADDR the union holds `ifru_hwaddr`.
    Ok(unsafe { ifr.ifr_ifru.ifru_hwaddr.sa_family })
}

/// An `ifreq` of zeroes: no name, no payload.
fn zeroed_ifreq() -> libc::ifreq {
    // SAFETY: `ifreq` is plain data (bytes and a union of plain data), for
    // which all zeroes is a valid value.
    unsafe { std::mem::zeroed() }
}

/// The error for an interface whose hardware type netsift does not capture.
pub(crate) fn unsupported(name: &str, hatype: u16) -> Error {
    Error::new(
        ErrorKind::Unsupported,
        format!("{name}: hardware type {hatype} is not supported for live capture yet (Ethernet and loopback are)"),
    )
}

/// One network interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interface {
    /// Its name (`eth0`).
    pub name: String,
    /// Its index.
    pub index: u32,
    /// Administratively up.
    pub up: bool,
    /// Operationally running.
    pub running: bool,
    /// A loopback interface.
    pub loopback: bool,
    /// Carrier: `Some(true)` connected, `Some(false)` not, `None` unknown.
    pub connected: Option<bool>,
}

impl Interface {
    /// tcpdump's bracketed flags: `[Up, Running, Connected]`, or `[none]`.
    pub fn flags(&self) -> String {
        let mut f = Vec::new();
        if self.up {
            f.push("Up");
        }
        if self.running {
            f.push("Running");
        }
        if self.loopback {
            f.push("Loopback");
        } else {
            match self.connected {
                Some(true) => f.push("Connected"),
                Some(false) if self.up => f.push("Disconnected"),
                _ => {}
            }
        }
        if f.is_empty() {
            "[none]".into()
        } else {
            format!("[{}]", f.join(", "))
        }
    }
}

/// The interfaces of this network namespace (from `/sys/class/net`), in the order
/// libpcap lists them: running before not, up before down, loopback after the
/// others of its kind, then by index.
pub fn interfaces() -> std::io::Result<Vec<Interface>> {
    let mut out = Vec::new();
    for e in fs::read_dir("/sys/class/net")? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        let read = |f: &str| {
            fs::read_to_string(e.path().join(f))
                .ok()
                .map(|s| s.trim().to_string())
        };
        let Some(index) = read("ifindex").and_then(|s| s.parse().ok()) else {
            continue;
        };
        let flags = read("flags")
            .and_then(|s| u32::from_str_radix(s.trim_start_matches("0x"), 16).ok())
            .unwrap_or(0);
        let up = flags & libc::IFF_UP as u32 != 0;
        // sysfs holds the flags as set; the kernel adds IFF_RUNNING when reporting
        // them for an interface that is up and operationally up (or of unknown
        // state, as loopback is).
        let oper = read("operstate").unwrap_or_default();
        out.push(Interface {
            name,
            index,
            up,
            running: up && (oper == "up" || oper == "unknown"),
            loopback: flags & libc::IFF_LOOPBACK as u32 != 0,
            connected: read("carrier").and_then(|c| match c.as_str() {
                "1" => Some(true),
                "0" => Some(false),
                _ => None,
            }),
        });
    }
    out.sort_by_key(|i| (!i.running, !i.up, i.loopback, i.index));
    Ok(out)
}

impl crate::Ring {
    /// The link type of this ring's frames: LINUX_SLL2 on `any`, else its
    /// interface's hardware type's; `None` for a hardware type netsift does not
    /// capture ([`linktype_of`] says which).
    pub fn linktype(&self) -> Option<LinkType> {
        if self.cooked() {
            return Some(LinkType::LINUX_SLL2);
        }
        linktype(self.hardware_type())
    }
}
