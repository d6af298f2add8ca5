//! The extcap program against a real `netsiftd` playing a corpus capture, asked
//! as Wireshark asks it, and through unmodified `tshark`: tshark lists
//! `netsift:SOURCE` and captures through it with a capture filter, writing the
//! packets `tcpdump -r FILE FILTER` keeps.
//!
//! tshark 4.0 looks for extcap programs in one system folder only (it ignores
//! `WIRESHARK_EXTCAP_DIR` there), so the test runs it in a mount namespace of
//! its own (`unshare -m`) with a temporary folder holding this program bound
//! over that one: nothing outside the test changes. Needs root, tshark,
//! tcpdump and the built `netsiftd` (a workspace build makes it): skipped with
//! a message without them, a failure under `CI=true`.

use netsift_testkit::daemon::Daemon;
use netsift_testkit::{require, Need};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const EXTCAP: &str = env!("CARGO_BIN_EXE_netsift-extcap");

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/pcaps/tcpdump")
        .join(name)
}

/// `netsiftd` beside this test's binaries (target/<profile>/), built first.
fn netsiftd() -> PathBuf {
    netsift_testkit::daemon::built(Path::new(EXTCAP))
}

/// A daemon playing `file` as source `demo` once `flows` flows are active.
fn daemon(file: &Path, flows: u32) -> Daemon {
    let source = format!("demo={}", file.display());
    let flows = flows.to_string();
    Daemon::start(
        &netsiftd(),
        None,
        &["--file", &source, "--fast", "--wait-flows", &flows],
    )
}

/// The extcap program run with `args` against `d`.
fn extcap(d: &Daemon, args: &[&str]) -> Output {
    Command::new(EXTCAP)
        .args(args)
        .env("NETSIFT_SOCKET", &d.socket)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Each packet of a capture file as tcpdump prints it with its bytes and no
/// time stamp (tcpdump reads whatever format tshark wrote).
fn packets(file: &Path) -> Vec<String> {
    let out = Command::new("tcpdump")
        .args(["-nn", "-x", "-t", "-r"])
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success(), "tcpdump -r: {}", text(&out.stderr));
    let mut each: Vec<String> = Vec::new();
    for line in text(&out.stdout).lines() {
        match each.last_mut() {
            Some(p) if line.starts_with('\t') => {
                p.push('\n');
                p.push_str(line);
            }
            _ => each.push(line.to_string()),
        }
    }
    each
}

/// Wireshark's extcap folder, as tshark says.
fn extcap_folder() -> PathBuf {
    let out = Command::new("tshark")
        .args(["-G", "folders"])
        .output()
        .unwrap();
    text(&out.stdout)
        .lines()
        .find_map(|l| {
            l.strip_prefix("Extcap path:")
                .map(|p| PathBuf::from(p.trim()))
        })
        .expect("tshark names its extcap folder")
}

#[test]
fn it_answers_wiresharks_questions() {
    require!(Need::File(&netsiftd()), Need::File(&corpus("afs.pcap")));
    let d = daemon(&corpus("afs.pcap"), 1);
    let out = extcap(&d, &["--extcap-interfaces", "--extcap-version=4.0"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listed = text(&out.stdout);
    assert!(
        listed.contains("interface {value=netsift:demo}"),
        "{listed}"
    );
    let out = extcap(&d, &["--extcap-dlts", "--extcap-interface", "netsift:demo"]);
    assert_eq!(
        text(&out.stdout),
        "dlt {number=1}{name=EN10MB}{display=EN10MB (Ethernet)}\n"
    );
    let valid = extcap(
        &d,
        &[
            "--extcap-interface",
            "netsift:demo",
            "--extcap-capture-filter",
            "udp port 7000",
        ],
    );
    assert!(
        valid.status.success() && valid.stdout.is_empty(),
        "{}",
        text(&valid.stdout)
    );
    let invalid = extcap(
        &d,
        &[
            "--extcap-interface",
            "netsift:demo",
            "--extcap-capture-filter",
            "udp port",
        ],
    );
    assert!(
        !invalid.stdout.is_empty(),
        "a bad filter is answered with its error"
    );
    let none = extcap(
        &d,
        &["--extcap-dlts", "--extcap-interface", "netsift:nothing"],
    );
    assert!(!none.status.success());
    assert!(
        text(&none.stderr).contains("no source nothing"),
        "{}",
        text(&none.stderr)
    );
    // No daemon: no interfaces, no error.
    let out = Command::new(EXTCAP)
        .args([
            "--extcap-interfaces",
            "--socket",
            "/nonexistent/netsift.sock",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        text(&out.stdout).lines().count(),
        1,
        "the program's line alone"
    );
}

#[test]
fn tshark_captures_through_the_daemon_with_a_capture_filter() {
    require!(
        Need::Root,
        Need::Command("tshark"),
        Need::Command("tcpdump"),
        Need::Command("unshare"),
        Need::File(&netsiftd()),
        Need::File(&corpus("afs.pcap")),
    );
    let file = corpus("afs.pcap");
    let filter = "udp and src port 7001";
    let dir = tempfile::tempdir().unwrap();
    let want_file = dir.path().join("want.pcap");
    let out = Command::new("tcpdump")
        .arg("-r")
        .arg(&file)
        .arg("-w")
        .arg(&want_file)
        .arg(filter)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let want = packets(&want_file);
    assert!(want.len() > 10, "the filter keeps {} packets", want.len());

    let folder = dir.path().join("extcap");
    std::fs::create_dir(&folder).unwrap();
    std::os::unix::fs::symlink(EXTCAP, folder.join("netsift-extcap")).unwrap();
    let got_file = dir.path().join("got.pcap");
    let d = daemon(&file, 1);
    // A private mount namespace: the bind mount goes with tshark.
    let script = format!(
        "mount --bind '{}' '{}' && tshark -D && exec tshark -i netsift:demo -f '{filter}' -c {} -a duration:60 -F pcap -w '{}'",
        folder.display(),
        extcap_folder().display(),
        want.len(),
        got_file.display()
    );
    let out = Command::new("unshare")
        .args(["-m", "--propagation", "private", "sh", "-c", &script])
        .env("NETSIFT_SOCKET", &d.socket)
        .output()
        .unwrap();
    let said = text(&out.stdout) + &text(&out.stderr);
    assert!(out.status.success(), "tshark: {said}");
    assert!(said.contains("netsift:demo"), "tshark -D lists it: {said}");
    let got = packets(&got_file);
    assert_eq!(got.len(), want.len(), "{said}");
    assert!(
        got == want,
        "tshark through netsift wrote other packets than tcpdump -r keeps"
    );
}
