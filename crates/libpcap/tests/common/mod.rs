//! What the shim's tests share: where the built shim is, and running a
//! program with and without it.
//!
//! The tests use the library cargo builds for them: the package's lib target
//! (an rlib and the cdylib) is built before its integration tests, and
//! `build.rs` links `target/<profile>/libpcap/libpcap.so.0.8` to it. The
//! directory is found from the test executable's own path
//! (`target/<profile>/deps/<test>`), so a custom target directory works too.

#![allow(dead_code, unreachable_pub)]

use netsift_testkit::daemon::Daemon;
use netsift_testkit::frames::{Frame, MAC_A, MAC_B};
use std::path::PathBuf;
use std::process::{Command, Output};

/// UDP frame `n` from side B to side A of a test's veth pair (port 4000 + n
/// to 7, `n` as its payload).
pub fn udp(n: u32) -> Vec<u8> {
    Frame::ethernet(MAC_B, MAC_A)
        .ipv4([10, 9, 0, 2], [10, 9, 0, 1])
        .udp(4000 + n as u16, 7)
        .payload(&n.to_be_bytes())
        .build()
}

/// TCP SYN `n` from side B to side A (port 5000 + n to 80).
pub fn tcp(n: u32) -> Vec<u8> {
    Frame::ethernet(MAC_B, MAC_A)
        .ipv4([10, 9, 0, 2], [10, 9, 0, 1])
        .tcp(5000 + n as u16, 80, 0x02)
        .build()
}

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
