//! What the tests that compare netsift with tcpdump share: where the corpus is,
//! and whether tcpdump is installed.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The shared corpus beside the repository, or `NETSIFT_CORPUS`.
pub fn corpus() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("NETSIFT_CORPUS") {
        return Some(PathBuf::from(p));
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    p.is_dir().then_some(p)
}

/// Whether tcpdump is installed.
pub fn have_tcpdump() -> bool {
    Command::new("tcpdump")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The time zone the comparisons run in: local time, with daylight saving time.
pub const TZ: &str = "America/New_York";

/// Runs `prog args` in [`TZ`].
pub fn run(prog: &str, args: &[&str]) -> std::process::Output {
    Command::new(prog)
        .env("TZ", TZ)
        .args(args)
        .output()
        .expect("spawn")
}
