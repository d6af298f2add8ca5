//! The control socket: listening, accepting, and one thread per connection.
//!
//! A thread per connection rather than a poll loop: clients are few (tens),
//! their requests are short and rare (a handful per flow's life, none per
//! packet), and each connection's state is then plain code: read a message,
//! decode it, handle it, reply. The one thing that must not happen, a slow or
//! hostile client holding others up, cannot: a connection's thread blocks only
//! on its own socket, and the daemon's lock is held per request, never across
//! a read. [`Config::max_connections`](crate::config::Config) bounds the
//! threads.
//!
//! A connection that ends, in any way (closed, the process killed), ends its
//! thread's read with 0 or an error, and [`Daemon::disconnect`] closes its
//! flows.

use crate::flows::Daemon;
use crate::{Error, Log};
use netsift_ffpf::proto::{self, ErrorCode, Refusal, Reply};
use netsift_ffpf::{fdpass, seqpacket};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The listening socket at `path`, made with `mode`. A socket left there by
/// an earlier run is removed first; any other file is an error.
pub fn bind(path: &Path, mode: u32) -> Result<OwnedFd, Error> {
    if let Ok(m) = std::fs::symlink_metadata(path) {
        if !m.file_type().is_socket() {
            return Err(Error::new(format!(
                "{} exists and is not a socket: not removing it",
                path.display()
            )));
        }
        std::fs::remove_file(path)
            .map_err(|e| Error::new(format!("removing the old {}: {e}", path.display())))?;
    }
    let fd = seqpacket::listen(path, 64).map_err(|e| Error::new(e.to_string()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| Error::new(format!("chmod {:o} {}: {e}", mode, path.display())))?;
    Ok(fd)
}

/// Accepts connections on `listener` until `stop`, each served on a thread
/// of its own.
pub fn serve(daemon: &Arc<Daemon>, listener: &OwnedFd, stop: &AtomicBool, log: &Log) {
    while !stop.load(Ordering::Relaxed) {
        match netsift_ffpf::wake::poll_readable(listener.as_fd(), 200) {
            Ok(true) => {}
            Ok(false) => continue,
            Err(e) => {
                log(&format!("poll on the control socket: {e}"));
                continue;
            }
        }
        let (sock, peer) = match seqpacket::accept(listener.as_fd()) {
            Ok(x) => x,
            Err(e) => {
                log(&format!("{e}"));
                continue;
            }
        };
        let d = Arc::clone(daemon);
        let spawned = std::thread::Builder::new()
            .name(format!("conn {}", peer.pid))
            .spawn(move || connection(&d, sock, peer));
        if let Err(e) = spawned {
            log(&format!("a connection's thread: {e}"));
        }
    }
}

fn send(sock: &OwnedFd, reply: &Reply, fds: &[std::os::fd::BorrowedFd<'_>]) -> bool {
    fdpass::send(sock.as_fd(), &proto::encode_reply(reply), fds).is_ok()
}

/// Serves one connection until it ends, then closes its flows.
fn connection(daemon: &Daemon, sock: OwnedFd, peer: seqpacket::PeerCred) {
    let mut conn = match daemon.connect(peer) {
        Ok(c) => c,
        Err(r) => {
            send(&sock, &r.reply(), &[]);
            return;
        }
    };
    let mut buf = vec![0u8; proto::MAX_MESSAGE + 1];
    loop {
        let got = match fdpass::recv(sock.as_fd(), &mut buf) {
            Ok(g) => g,
            Err(_) => break,
        };
        // Descriptors a client sends are not wanted: closed here.
        drop(got.fds);
        if got.len == 0 && !got.truncated {
            break;
        }
        let decoded = if got.truncated {
            Err(Refusal::new(
                ErrorCode::TooLarge,
                format!(
                    "a message longer than {} bytes: at most {}",
                    buf.len(),
                    proto::MAX_MESSAGE
                ),
            ))
        } else {
            proto::decode_request(&buf[..got.len])
        };
        let (reply, fds) = match decoded {
            Err(r) => (r.reply(), Vec::new()),
            Ok((id, req)) => match daemon.handle(&mut conn, req) {
                Ok((body, fds)) => (Reply { id: Some(id), body }, fds),
                Err(mut r) => {
                    r.id = Some(id);
                    (r.reply(), Vec::new())
                }
            },
        };
        let borrowed: Vec<_> = fds.iter().map(|f| f.as_fd()).collect();
        let sent = send(&sock, &reply, &borrowed);
        if !sent {
            break;
        }
    }
    // The socket first, so that a connection no longer counted holds no
    // descriptor.
    drop(sock);
    daemon.disconnect(conn);
}
