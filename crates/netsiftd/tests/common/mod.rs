//! What the daemon's tests share: a real `netsiftd` process started on a
//! socket in a temporary directory and stopped (SIGTERM) on drop, its
//! descriptors counted through /proc, and flows drained.

#![allow(dead_code, unreachable_pub)]

use netsift_ffpf::{Client, Flow, FlowSpec};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A corpus capture.
pub fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/pcaps/tcpdump")
        .join(name)
}

/// A running daemon.
pub struct Daemon {
    child: Option<Child>,
    pub socket: PathBuf,
    _dir: tempfile::TempDir,
}

impl Daemon {
    /// `netsiftd` with `args` (sources and options), on a fresh socket.
    pub fn start(args: &[&str]) -> Daemon {
        Daemon::start_with(args, |exe| Command::new(exe))
    }

    /// As [`Daemon::start`], with the command made by `command` (to run it in
    /// a namespace).
    pub fn start_with(args: &[&str], command: impl FnOnce(&str) -> Command) -> Daemon {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("netsift.sock");
        let child = command(env!("CARGO_BIN_EXE_netsiftd"))
            .arg("--socket")
            .arg(&socket)
            .args(args)
            .stdin(Stdio::null())
            .spawn()
            .expect("starting netsiftd");
        let d = Daemon {
            child: Some(child),
            socket,
            _dir: dir,
        };
        let until = Instant::now() + Duration::from_secs(20);
        while Client::connect(&d.socket).is_err() {
            assert!(
                Instant::now() < until,
                "netsiftd did not listen within 20 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        d
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    /// Its open descriptors.
    pub fn fds(&self) -> usize {
        self.fd_list().len()
    }

    /// Its open descriptors and what they are.
    pub fn fd_list(&self) -> Vec<String> {
        let dir = format!("/proc/{}/fd", self.pid());
        let mut v: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| {
                let l = std::fs::read_link(e.path()).unwrap_or_default();
                format!("{}: {}", e.file_name().to_string_lossy(), l.display())
            })
            .collect();
        v.sort();
        v
    }

    pub fn client(&self) -> Client {
        Client::connect(&self.socket).expect("connecting to netsiftd")
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            // SAFETY: kill(2) on our own child's pid.
            unsafe { libc::kill(c.id() as i32, libc::SIGTERM) };
            let until = Instant::now() + Duration::from_secs(5);
            while Instant::now() < until {
                if let Ok(Some(_)) = c.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A flow made, instantiated and activated.
pub fn active_flow(client: &Client, source: &str, filter: &str) -> Flow {
    let mut f = client
        .create(&FlowSpec {
            source: source.into(),
            filter: filter.into(),
            ..FlowSpec::default()
        })
        .unwrap();
    f.instantiate().unwrap();
    f.activate().unwrap();
    f
}

/// A packet as a test compares it: bytes, length on the wire, time stamp.
pub type Got = (Vec<u8>, u32, u64);

/// Every packet waiting in `flow`.
pub fn drain(flow: &mut Flow) -> Vec<Got> {
    let r = flow.reader().unwrap();
    let mut out = Vec::new();
    while let Some(p) = r.getnext().unwrap() {
        out.push((p.data.to_vec(), p.wirelen, p.ts_ns));
    }
    out
}

/// Waits until `f` holds of the daemon's figures, or panics with the last.
pub fn wait_stats(
    client: &Client,
    what: &str,
    f: impl Fn(&netsift_ffpf::proto::DaemonStats) -> bool,
) -> netsift_ffpf::proto::DaemonStats {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let s = client.daemon_stats().unwrap();
        if f(&s) {
            return s;
        }
        assert!(Instant::now() < until, "{what}: not within 20 s: {s:#?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Writes `n` numbered frames of about 200 bytes to `path`, one a millisecond
/// (at the file's timing a reader that reads has plenty of time), and
/// returns them.
pub fn numbered_file(path: &Path, n: usize) -> Vec<Vec<u8>> {
    use netsift_pcapio::{PcapWriter, TsPrecision};
    let frames: Vec<Vec<u8>> = (0..n as u32)
        .map(|i| netsift_testkit::frames::numbered_udp(i, None, 150))
        .collect();
    let f = std::fs::File::create(path).unwrap();
    let mut w = PcapWriter::new(
        f,
        netsift_wire::LinkType::EN10MB,
        262_144,
        TsPrecision::Micro,
    )
    .unwrap();
    for (i, fr) in frames.iter().enumerate() {
        let (sec, usec) = (i / 1000, (i % 1000) * 1000);
        w.write_packet(1_700_000_000 + sec as u32, usec as u32, fr, fr.len() as u32)
            .unwrap();
    }
    w.flush().unwrap();
    frames
}
