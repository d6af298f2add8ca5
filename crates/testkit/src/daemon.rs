//! A real `netsiftd` for a test: started on a socket in a directory of its
//! own (in a network namespace, when the test gives one), waited for until
//! it says it listens, looked into through /proc (its descriptors, memfds,
//! mappings and resident size: [`crate::held`]), and stopped with SIGINT
//! (SIGKILL if it does not go within 5 s) when dropped, so that no test
//! leaves a daemon behind.

use crate::held::{self, Held};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

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
        let mut child = cmd
            .arg("--socket")
            .arg(&socket)
            .args(args)
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", exe.display()));
        let said = ready(child.stderr.take().expect("a piped stderr"));
        let mut d = Daemon {
            child: crate::live::Stopped(child),
            socket,
            dir,
        };
        // It says `listening on` once its sources are open and its socket
        // has its mode: from then on any client the test runs may connect.
        match said.recv_timeout(Duration::from_secs(20)) {
            Ok(()) => d,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let status = d.child.0.wait().map(|s| s.to_string());
                panic!("netsiftd exited before it listened: {status:?} (its stderr is above)")
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                panic!("netsiftd did not listen within 20 s (its stderr is above)")
            }
        }
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.0.id()
    }

    /// Its open descriptors, each as `N: target`, sorted
    /// ([`held::fd_list`]).
    pub fn fd_list(&self) -> Vec<String> {
        held::fd_list(self.pid())
    }

    /// How many descriptors it has open.
    pub fn fds(&self) -> usize {
        self.fd_list().len()
    }

    /// What it holds, counted ([`Held`]).
    pub fn held(&self) -> Held {
        Held::of(self.pid())
    }

    /// Its resident set in KiB.
    pub fn rss_kib(&self) -> u64 {
        held::rss_kib(self.pid())
    }
}

/// Copies the daemon's stderr to the test's (where the harness keeps it
/// with the test's own output) on a thread of its own, so that it never
/// blocks on a full pipe; the receiver hears once it says `listening on`,
/// and is dropped unheard if it ends first.
fn ready(stderr: std::process::ChildStderr) -> mpsc::Receiver<()> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut tx = Some(tx);
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            eprintln!("{line}");
            if line.contains("listening on") {
                if let Some(tx) = tx.take() {
                    let _ = tx.send(());
                }
            }
        }
    });
    rx
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
