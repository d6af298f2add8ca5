//! Unix `SOCK_SEQPACKET` sockets by path, which `std` does not offer (its
//! `UnixListener` is a stream): [`listen`] and [`accept`] for the daemon,
//! [`connect`] for clients, and the peer's credentials as the kernel gives
//! them (`SO_PEERCRED`), never as a request claims them.
//!
//! Sequenced packets, not a stream: one request is one message, so the daemon
//! never reassembles a request from pieces a client dribbles in, and an
//! oversized one is seen as such (`MSG_TRUNC`) rather than read as two.

use crate::error::Error;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Who is at the other end of a connection, from the kernel (`SO_PEERCRED`:
/// the credentials at the time it connected).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PeerCred {
    /// Its process id.
    pub pid: i32,
    /// Its user id.
    pub uid: u32,
    /// Its group id.
    pub gid: u32,
}

fn socket() -> Result<OwnedFd, Error> {
    // SAFETY: socket(2) with constant arguments; no memory is passed.
    let fd = unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(Error::os("socket(AF_UNIX, SOCK_SEQPACKET)"));
    }
    // SAFETY: a fresh descriptor owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn address(path: &Path) -> Result<(libc::sockaddr_un, libc::socklen_t), Error> {
    // SAFETY: an all-zero sockaddr_un is valid (an empty path).
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    let bytes = path.as_os_str().as_bytes();
    if bytes.is_empty() || bytes.len() >= addr.sun_path.len() || bytes.contains(&0) {
        return Err(Error::invalid(format!(
            "socket path {}: 1 to {} bytes without NUL",
            path.display(),
            addr.sun_path.len() - 1
        )));
    }
    for (d, s) in addr.sun_path.iter_mut().zip(bytes) {
        *d = *s as libc::c_char;
    }
    let len = std::mem::size_of::<libc::sa_family_t>() + bytes.len() + 1;
    Ok((addr, len as libc::socklen_t))
}

/// A listening socket at `path` (which must not exist), with room for
/// `backlog` connections waiting to be accepted.
pub fn listen(path: &Path, backlog: i32) -> Result<OwnedFd, Error> {
    let fd = socket()?;
    let (addr, len) = address(path)?;
    // SAFETY: bind reads `len` bytes of a live sockaddr_un.
    let r = unsafe {
        libc::bind(
            fd.as_raw_fd(),
            (&addr as *const libc::sockaddr_un).cast(),
            len,
        )
    };
    if r < 0 {
        return Err(Error::os(format!("bind {}", path.display())));
    }
    // SAFETY: listen on a socket we own.
    if unsafe { libc::listen(fd.as_raw_fd(), backlog) } < 0 {
        return Err(Error::os(format!("listen on {}", path.display())));
    }
    Ok(fd)
}

/// Accepts one connection on `listener` and reads its peer's credentials.
pub fn accept(listener: BorrowedFd<'_>) -> Result<(OwnedFd, PeerCred), Error> {
    // SAFETY: accept4 without an address buffer.
    let fd = unsafe {
        libc::accept4(
            listener.as_raw_fd(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            libc::SOCK_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(Error::os("accept on the control socket"));
    }
    // SAFETY: a fresh descriptor owned by nothing else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let cred = peer_cred(fd.as_fd())?;
    Ok((fd, cred))
}

/// The credentials of the process at the other end of `sock`.
pub fn peer_cred(sock: BorrowedFd<'_>) -> Result<PeerCred, Error> {
    let mut c = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into a live ucred.
    let r = unsafe {
        libc::getsockopt(
            sock.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut c as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if r < 0 {
        return Err(Error::os("SO_PEERCRED"));
    }
    Ok(PeerCred {
        pid: c.pid,
        uid: c.uid,
        gid: c.gid,
    })
}

/// A connection to the listening socket at `path`.
pub fn connect(path: &Path) -> Result<OwnedFd, Error> {
    let fd = socket()?;
    let (addr, len) = address(path)?;
    loop {
        // SAFETY: connect reads `len` bytes of a live sockaddr_un.
        let r = unsafe {
            libc::connect(
                fd.as_raw_fd(),
                (&addr as *const libc::sockaddr_un).cast(),
                len,
            )
        };
        if r == 0 {
            return Ok(fd);
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(Error::os_from(
                format!("connecting to {}", path.display()),
                e,
            ));
        }
    }
}
