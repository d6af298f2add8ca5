//! The one rule for a test that cannot run here: skip with a message, or fail
//! under CI.
//!
//! A test asks for what it needs ([`Need`]); when something is missing it is
//! skipped with a line on stderr naming the test (from the harness's thread name,
//! which libtest sets to the test's path) and the caller's location, unless the
//! environment says `CI=true`, where a skip would hide a lost check and panics
//! instead.

use std::panic::Location;
use std::path::Path;

/// Something a test needs from the machine it runs on.
#[derive(Debug, Clone)]
pub enum Need<'a> {
    /// The effective user is root (CAP_NET_ADMIN, CAP_BPF, setns).
    Root,
    /// A program on `PATH` (`tcpdump`, `tcpreplay`, `ip`, ...).
    Command(&'a str),
    /// Network namespaces and veth pairs can be made: root and iproute2's `ip`.
    Netns,
    /// A file (a corpus capture, a built binary).
    File(&'a Path),
    /// Any other condition, with what it stands for.
    That(&'a str, bool),
    /// A probe's result: met when `Ok`, else the error says what is missing (such
    /// as creating a BPF map for CAP_BPF).
    Check(Result<(), String>),
}

impl Need<'_> {
    /// What is missing, or `None` when the need is met.
    pub fn missing(&self) -> Option<String> {
        match self {
            Need::Root => (!is_root()).then(|| "not root (needs CAP_NET_ADMIN/CAP_BPF)".into()),
            Need::Command(c) => (!has_command(c)).then(|| format!("no `{c}` on PATH")),
            Need::Netns => Need::Root
                .missing()
                .or_else(|| Need::Command("ip").missing().map(|m| m + " (iproute2)")),
            Need::File(p) => (!p.exists()).then(|| format!("no {}", p.display())),
            Need::That(what, ok) => (!ok).then(|| (*what).to_string()),
            Need::Check(r) => r.clone().err(),
        }
    }
}

/// Whether the effective user is root.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Whether `name` is an executable file in a directory of `PATH`.
pub fn has_command(name: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/sbin".into()])
        .any(|d| {
            std::fs::metadata(d.join(name))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Whether this run is under CI (`CI=true`), where a skip is a failure.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// The running test's name: the harness names each test's thread after it.
pub fn test_name() -> String {
    match std::thread::current().name() {
        Some(n) if n != "main" => n.to_string(),
        _ => "test".to_string(),
    }
}

/// `true` when `ok`; otherwise says on stderr that the calling test is skipped
/// because it needs `what` and returns `false`, or panics under `CI=true`.
#[track_caller]
pub fn skip_unless(what: &str, ok: bool) -> bool {
    if ok {
        return true;
    }
    let at = Location::caller();
    let name = test_name();
    if in_ci() {
        panic!("{name} ({at}): cannot run under CI=true: {what}");
    }
    eprintln!("{name} ({at}): skipped: {what}");
    false
}

/// `true` when every need is met; otherwise [`skip_unless`] on the first one
/// missing.
#[track_caller]
pub fn all_met(needs: &[Need<'_>]) -> bool {
    match needs.iter().find_map(Need::missing) {
        None => true,
        Some(why) => skip_unless(&why, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_met_need_runs_and_a_missing_one_names_itself() {
        assert!(Need::That("anything", true).missing().is_none());
        assert_eq!(
            Need::That("a thing", false).missing().as_deref(),
            Some("a thing")
        );
        assert!(Need::Command("sh").missing().is_none());
        assert!(Need::Command("no-such-program-here").missing().is_some());
        assert!(Need::File(Path::new("/no/such/file")).missing().is_some());
    }

    #[test]
    fn the_test_name_comes_from_the_harness() {
        assert!(test_name().ends_with("the_test_name_comes_from_the_harness"));
    }

    #[test]
    fn skipping_returns_false_outside_ci() {
        if in_ci() {
            return;
        }
        assert!(skip_unless("nothing", true));
        assert!(!skip_unless("a thing this test pretends to lack", false));
    }
}
