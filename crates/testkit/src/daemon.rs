//! A real `netsiftd` for a test: started on a socket in a directory of its
//! own (in a network namespace, when the test gives one), waited for until
//! it listens, and stopped with SIGINT (SIGKILL if it does not go within
//! 5 s) when dropped, so that no test leaves a daemon behind.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A running daemon.
#[derive(Debug)]
pub struct Daemon {
    child: crate::live::Stopped,
    /// Its control socket.
    pub socket: PathBuf,
    /// The directory the socket is in (removed with the daemon).
    dir: PathBuf,
}

/// Daemons started by this process so far (for unique directories).
static STARTED: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

impl Daemon {
    /// Starts `exe` (the built `netsiftd`) with `--socket` in a fresh
    /// directory anyone may enter, then `args`, in namespace `ns` if given;
    /// panics if it does not listen within 20 s.
    pub fn start(exe: &Path, ns: Option<&str>, args: &[&str]) -> Daemon {
        let n = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("netsiftd-test-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a directory for the socket");
        // Clients the test runs as other users reach the socket through it.
        let _ = Command::new("chmod").arg("0755").arg(&dir).status();
        let socket = dir.join("netsift.sock");
        let mut cmd = match ns {
            Some(ns) => crate::netns::exec(ns, exe),
            None => Command::new(exe),
        };
        let child = cmd
            .arg("--socket")
            .arg(&socket)
            .args(args)
            .stdin(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", exe.display()));
        let mut d = Daemon {
            child: crate::live::Stopped(child),
            socket,
            dir,
        };
        let until = Instant::now() + Duration::from_secs(20);
        while !d.socket.exists() {
            if let Ok(Some(status)) = d.child.0.try_wait() {
                panic!("netsiftd exited before it listened: {status}");
            }
            assert!(
                Instant::now() < until,
                "netsiftd did not listen within 20 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        d
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.0.id()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        // The child is stopped by its own guard, after this.
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The `netsiftd` of this build: in the profile directory that holds
/// `beside` (a binary of the test's own crate, such as
/// `env!("CARGO_BIN_EXE_netsift")`, or the test executable's `deps/`
/// parent), built first with cargo, a no-op when it is up to date, so that
/// a test never runs a stale daemon against new code.
pub fn built(beside: &Path) -> PathBuf {
    let mut dir = beside.parent().expect("a binary's directory").to_path_buf();
    if dir.file_name().is_some_and(|d| d == "deps") {
        dir.pop();
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut c = Command::new(cargo);
    c.args(["build", "--quiet", "-p", "netsiftd", "--bin", "netsiftd"]);
    if dir.file_name().is_some_and(|p| p == "release") {
        c.arg("--release");
    }
    let st = c.status().expect("cargo build -p netsiftd");
    assert!(st.success(), "cargo build -p netsiftd failed");
    let exe = dir.join("netsiftd");
    assert!(
        exe.exists(),
        "no {} (cargo build -p netsiftd)",
        exe.display()
    );
    exe
}
