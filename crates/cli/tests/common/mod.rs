//! What the tests that compare netsift with tcpdump share: where the corpus is,
//! the time zone and how to run a program in it. (Whether tcpdump is installed:
//! `netsift_testkit::skip`.)

#![allow(dead_code)]

use netsift_testkit::Need;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The shared corpus beside the repository, or `NETSIFT_CORPUS`.
pub(crate) fn corpus() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("NETSIFT_CORPUS") {
        return Some(PathBuf::from(p));
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    p.is_dir().then_some(p)
}

/// [`corpus`] as what a test needs: without it the test is skipped (a failure
/// under `CI=true`).
pub(crate) fn corpus_found(corpus: &Option<PathBuf>) -> Need<'static> {
    Need::That(
        "the shared corpus beside the repository (or NETSIFT_CORPUS)",
        corpus.is_some(),
    )
}

/// The time zone the comparisons run in: local time, with daylight saving time.
pub(crate) const TZ: &str = "America/New_York";

/// Runs `prog args` in [`TZ`].
pub(crate) fn run(prog: &str, args: &[&str]) -> std::process::Output {
    Command::new(prog)
        .env("TZ", TZ)
        .args(args)
        .output()
        .expect("spawn")
}

/// The uid of user `name` (`id -u`), if there is one.
pub(crate) fn uid_of(name: &str) -> Option<u32> {
    let o = Command::new("id").args(["-u", name]).output().ok()?;
    String::from_utf8_lossy(&o.stdout).trim().parse().ok()
}
