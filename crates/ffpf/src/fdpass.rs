//! One message with descriptors over a Unix socket: `sendmsg`/`recvmsg` with
//! an `SCM_RIGHTS` control message. The daemon sends a flow's four buffer
//! descriptors this way; its clients receive them. On a `SOCK_SEQPACKET`
//! socket one call is one message, so a reply and its descriptors arrive
//! together or not at all.
//!
//! The receive side never trusts the peer: a message longer than the caller's
//! buffer is reported as truncated (the kernel cut it), control messages are
//! walked within the length the kernel wrote, and every descriptor received
//! becomes an [`OwnedFd`] at once (so none leaks, even when the caller then
//! refuses the message). `MSG_CMSG_CLOEXEC` keeps them from leaking into
//! children.

use crate::error::Error;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};

/// The most descriptors one message carries (a flow's four, with room).
pub const MAX_FDS: usize = 8;

/// What [`recv`] read.
#[derive(Debug)]
pub struct Received {
    /// Bytes of the message copied into the caller's buffer.
    pub len: usize,
    /// The message was longer than the buffer (the rest is lost).
    pub truncated: bool,
    /// The descriptors it carried, now owned by the caller.
    pub fds: Vec<OwnedFd>,
}

/// Sends `bytes` as one message on `sock`, with `fds` (at most [`MAX_FDS`])
/// attached. Never raises `SIGPIPE`; a peer that went away is an error.
pub fn send(sock: BorrowedFd<'_>, bytes: &[u8], fds: &[BorrowedFd<'_>]) -> Result<(), Error> {
    if fds.len() > MAX_FDS {
        return Err(Error::invalid(format!(
            "sending {} descriptors in one message: at most {MAX_FDS}",
            fds.len()
        )));
    }
    let raw: Vec<RawFd> = fds.iter().map(AsRawFd::as_raw_fd).collect();
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr() as *mut libc::c_void,
        iov_len: bytes.len(),
    };
    let payload = std::mem::size_of_val(raw.as_slice()) as u32;
    // SAFETY: CMSG_SPACE computes a size from an integer.
    let space = unsafe { libc::CMSG_SPACE(payload) } as usize;
    let mut cbuf = vec![0u64; space.div_ceil(8)];
    // SAFETY: an all-zero msghdr is a valid "no message"; the fields set below
    // point at live buffers of the lengths given.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    if !raw.is_empty() {
        msg.msg_control = cbuf.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        // SAFETY: the control buffer is CMSG_SPACE(payload) bytes (8-aligned),
        // so the first header and its data fit; the data is written through
        // CMSG_DATA, `raw.len()` descriptors from a live vector.
        unsafe {
            let c = libc::CMSG_FIRSTHDR(&msg);
            (*c).cmsg_level = libc::SOL_SOCKET;
            (*c).cmsg_type = libc::SCM_RIGHTS;
            (*c).cmsg_len = libc::CMSG_LEN(payload) as _;
            std::ptr::copy_nonoverlapping(
                raw.as_ptr(),
                libc::CMSG_DATA(c).cast::<RawFd>(),
                raw.len(),
            );
        }
    }
    loop {
        // SAFETY: msg describes live buffers (above) for the call's duration.
        let n = unsafe { libc::sendmsg(sock.as_raw_fd(), &msg, libc::MSG_NOSIGNAL) };
        if n >= 0 {
            if n as usize != bytes.len() {
                return Err(Error::invalid(format!(
                    "sendmsg sent {n} of {} bytes",
                    bytes.len()
                )));
            }
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(Error::os_from("sendmsg on the control connection", e));
        }
    }
}

/// Receives one message from `sock` into `buf`, with up to [`MAX_FDS`]
/// descriptors. A length of 0 without truncation is the peer's orderly
/// shutdown.
pub fn recv(sock: BorrowedFd<'_>, buf: &mut [u8]) -> Result<Received, Error> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    let payload = (MAX_FDS * std::mem::size_of::<RawFd>()) as u32;
    // SAFETY: as in `send`.
    let space = unsafe { libc::CMSG_SPACE(payload) } as usize;
    let mut cbuf = vec![0u64; space.div_ceil(8)];
    // SAFETY: as in `send`.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    let n = loop {
        // SAFETY: msg describes live buffers; the kernel writes at most their
        // lengths and updates msg_controllen and msg_flags.
        let n = unsafe { libc::recvmsg(sock.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n >= 0 {
            break n as usize;
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(Error::os_from("recvmsg on the control connection", e));
        }
    };
    let mut fds = Vec::new();
    // SAFETY: walks the control messages the kernel wrote, within
    // msg_controllen (CMSG_NXTHDR checks it); each SCM_RIGHTS entry's data
    // holds descriptors that are now this process's and owned by nothing
    // else, read unaligned as the data need not be aligned for RawFd.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_RIGHTS {
                let k = ((*c).cmsg_len as usize).saturating_sub(libc::CMSG_LEN(0) as usize)
                    / std::mem::size_of::<RawFd>();
                let p = libc::CMSG_DATA(c).cast::<RawFd>();
                for i in 0..k {
                    fds.push(OwnedFd::from_raw_fd(p.add(i).read_unaligned()));
                }
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    Ok(Received {
        len: n.min(buf.len()),
        truncated: msg.msg_flags & libc::MSG_TRUNC != 0,
        fds,
    })
}
