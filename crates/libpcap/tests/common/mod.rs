//! What the shim's tests share: where the built shim is, and running a
//! program with and without it; the frames the live tests send
//! ([`frames`]); the C reader of the API ([`reader`]).
//!
//! The tests use the library cargo builds for them: the package's lib target
//! (an rlib and the cdylib) is built before its integration tests, and
//! `build.rs` links `target/<profile>/libpcap/libpcap.so.0.8` to it. The
//! directory is found from the test executable's own path
//! (`target/<profile>/deps/<test>`), so a custom target directory works too.

#![allow(dead_code, unreachable_pub)]

pub mod frames;
pub mod reader;

use netsift_testkit::daemon::Daemon;

use std::path::PathBuf;
use std::process::{Command, Output};

/// `netsiftd` beside this test's binaries (target/<profile>/), built first.
pub fn netsiftd() -> PathBuf {
    netsift_testkit::daemon::built(&std::env::current_exe().unwrap())
}

/// Builds `tests/c/NAME.c` into `dir/NAME`, linked against the real
/// library (the shim replaces it through `LD_LIBRARY_PATH`).
pub fn build_c(dir: &std::path::Path, name: &str) -> PathBuf {
    let out = dir.join(name);
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/c/{name}.c"));
    let st = Command::new("cc")
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .arg("-lpcap")
        .status()
        .expect("cc");
    assert!(st.success(), "cc {}", src.display());
    out
}

/// A daemon owning `dev` in namespace `ns`, on a socket anyone may use.
pub fn daemon(ns: &str, dev: &str) -> Daemon {
    Daemon::start(&netsiftd(), Some(ns), &["--mode", "0666", "--iface", dev])
}

/// A veth pair in namespaces of its own and a [`daemon`] owning its end A:
/// the live tests' set-up (frames sent from end B arrive at the daemon).
pub fn daemon_on_veth() -> (netsift_testkit::netns::VethPair, Daemon) {
    let pair = netsift_testkit::netns::VethPair::new();
    let (ns, dev) = pair.end(netsift_testkit::netns::Side::A);
    let daemon = daemon(ns, dev);
    (pair, daemon)
}

/// Unmodified tcpdump (as root, `-Z root`) capturing `netsift:DEV` through
/// the shim and the daemon at `socket`; the caller adds its own arguments.
pub fn tcpdump_through(socket: &std::path::Path, dev: &str) -> netsift_testkit::live::Live {
    netsift_testkit::live::Live::new("env")
        .arg(format!("LD_LIBRARY_PATH={}", shim_dir().display()))
        .arg(format!("NETSIFT_SOCKET={}", socket.display()))
        .args(["tcpdump", "-Z", "root"])
        .on(&format!("netsift:{dev}"))
}

/// `target/<profile>/libpcap`, holding `libpcap.so.0.8`.
pub fn shim_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let profile = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target/<profile>/deps/<test>");
    let dir = profile.join("libpcap");
    let so = dir.join("libpcap.so.0.8");
    assert!(
        so.exists(),
        "{} is missing: `cargo build -p netsift-libpcap` makes it",
        so.display()
    );
    dir
}

/// The real library, as tcpdump loads it without the shim.
pub const REAL: &str = "/usr/lib/x86_64-linux-gnu/libpcap.so.0.8";

/// The shared corpus.
pub fn corpus() -> PathBuf {
    netsift_testkit::corpus(env!("CARGO_MANIFEST_DIR")).join("pcaps")
}

/// `program args` run as it is, with `LD_LIBRARY_PATH` cleared.
pub fn plain(program: &str, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("LD_DEBUG")
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"))
}

/// `program args` with the shim first on `LD_LIBRARY_PATH`.
pub fn shimmed(program: &str, args: &[&str]) -> Output {
    shimmed_cmd(program, args)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"))
}

/// The command [`shimmed`] runs.
pub fn shimmed_cmd(program: &str, args: &[&str]) -> Command {
    let mut c = Command::new(program);
    c.args(args)
        .env("LD_LIBRARY_PATH", shim_dir())
        .env_remove("LD_DEBUG");
    c
}

/// Asserts that tcpdump with `args` prints the same and exits alike with
/// the real library and with the shim.
#[track_caller]
pub fn same_as_tcpdump(args: &[&str]) {
    assert_same(
        &format!("tcpdump {}", args.join(" ")),
        &plain("tcpdump", args),
        &shimmed("tcpdump", args),
    );
}

/// Waits for a `-c n` capture to stop by itself and checks that it
/// succeeded and wrote and counted exactly the first `n` of `sent`.
#[track_caller]
pub fn assert_counted(run: netsift_testkit::live::Running, sent: &[Vec<u8>], n: usize) {
    let done = run.wait(std::time::Duration::from_secs(10));
    done.assert_success();
    assert_eq!(done.packets(), netsift_testkit::pcap::as_sent(&sent[..n]));
    assert_eq!(
        done.statistic("packets captured"),
        Some(n as u64),
        "{}",
        done.stderr
    );
}

/// Asserts that two runs printed the same bytes and exited alike.
#[track_caller]
pub fn assert_same(what: &str, real: &Output, shim: &Output) {
    assert_eq!(
        real.status.code(),
        shim.status.code(),
        "{what}: exit status\nreal stderr: {}\nshim stderr: {}",
        String::from_utf8_lossy(&real.stderr),
        String::from_utf8_lossy(&shim.stderr)
    );
    assert!(
        real.stderr == shim.stderr,
        "{what}: stderr differs\nreal: {}\nshim: {}",
        String::from_utf8_lossy(&real.stderr),
        String::from_utf8_lossy(&shim.stderr)
    );
    if real.stdout != shim.stdout {
        let r = String::from_utf8_lossy(&real.stdout);
        let s = String::from_utf8_lossy(&shim.stdout);
        let line = r
            .lines()
            .zip(s.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(r.lines().count().min(s.lines().count()));
        panic!(
            "{what}: stdout differs from line {}: real {:?}, shim {:?}",
            line + 1,
            r.lines().nth(line),
            s.lines().nth(line)
        );
    }
}
