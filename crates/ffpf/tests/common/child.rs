//! A flow's reader in another process, as a client of `netsiftd` is: this
//! test binary run again for one test (its "side"), handed the flow's
//! descriptors over `SCM_RIGHTS` on a socket pair.

use netsift_ffpf::fdpass;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::process::{Command, Stdio};

/// Runs this binary again as its test `side` with `env` naming the
/// descriptor of its end of a socket pair, sends it `fds` with one byte,
/// and returns what it printed once it has exited successfully.
pub(crate) fn run(side: &str, env: &str, fds: &[BorrowedFd<'_>]) -> String {
    let mut sv = [0; 2];
    // SAFETY: socketpair writes two descriptors into the array.
    let r = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
            sv.as_mut_ptr(),
        )
    };
    assert_eq!(r, 0, "socketpair: {}", std::io::Error::last_os_error());
    // SAFETY: fresh descriptors, owned here.
    let (ours, theirs) = unsafe { (OwnedFd::from_raw_fd(sv[0]), OwnedFd::from_raw_fd(sv[1])) };
    // The child's end survives exec: clear its close-on-exec flag.
    // SAFETY: fcntl on a descriptor we own; no memory is passed.
    let r = unsafe { libc::fcntl(theirs.as_raw_fd(), libc::F_SETFD, 0) };
    assert_eq!(r, 0);
    let child = Command::new(std::env::current_exe().unwrap())
        .args([side, "--exact", "--nocapture", "--test-threads=1"])
        .env(env, theirs.as_raw_fd().to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running the child");
    drop(theirs);
    fdpass::send(ours.as_fd(), &[0x42], fds).expect("sending the flow's descriptors");
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// In the child: the flow's four descriptors [`run`] sent (PBuf, IBuf,
/// control page, wake-up), from the socket `env` names, or `None` when it
/// is not set (a normal run of the side's test).
pub(crate) fn received(env: &str) -> Option<[OwnedFd; 4]> {
    let sock: RawFd = std::env::var(env).ok()?.parse().expect("a descriptor");
    let mut byte = [0u8];
    // SAFETY: the inherited descriptor stays open for the call.
    let got = fdpass::recv(unsafe { BorrowedFd::borrow_raw(sock) }, &mut byte).unwrap();
    assert_eq!(got.len, 1);
    let n = got.fds.len();
    Some(
        got.fds
            .try_into()
            .unwrap_or_else(|_| panic!("{n} descriptors, not a flow's four")),
    )
}
