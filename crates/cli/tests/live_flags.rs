//! Live flags that shape a run rather than its lines, on a veth pair in
//! namespaces the test makes: the closing statistics, and how they count what
//! `-G`/`-W` wrote.

mod common;

use common::uid_of;
use netsift_testkit::frames::numbered_udp;
use netsift_testkit::live::Live;
use netsift_testkit::netns::{Side, VethPair};
use netsift_testkit::pcap;
use netsift_testkit::{require, Need};
use std::path::Path;
use std::time::Duration;

/// The packets in the files of `dir` whose names start with `prefix`.
fn packets_in(dir: &Path, prefix: &str) -> (usize, usize) {
    let mut files = 0;
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.file_name().unwrap().to_str().unwrap().starts_with(prefix) {
            files += 1;
            n += pcap::packets(&p).len();
        }
    }
    (files, n)
}

/// `-G 1 -W 3` ends the capture at the third rotation; "packets captured"
/// counts what went to the files and the packet that ended them, as tcpdump
/// counts (its 163 for 162 in the files), not what the ring still held then.
#[test]
fn rotation_limits_report_what_the_files_hold() {
    require!(Need::Netns, Need::Command("tcpdump"));
    let dir = tempfile::tempdir().unwrap();
    let pair = VethPair::new();
    let (ns, dev) = pair.end(Side::A);
    let args = ["-G", "1", "-W", "3", "--immediate-mode"];
    let ours = Live::new(env!("CARGO_BIN_EXE_netsift"))
        .in_ns(ns)
        .on(dev)
        .args(args)
        .write_to(&dir.path().join("ours-%H%M%S.pcap"))
        .filter("udp")
        .start();
    let theirs = Live::tcpdump()
        .in_ns(ns)
        .on(dev)
        .args(args)
        .write_to(&dir.path().join("theirs-%H%M%S.pcap"))
        .filter("udp")
        .start();
    // 50 frames every 100 ms for 5 s: the third rotation comes with traffic.
    for round in 0..50u32 {
        let frames: Vec<Vec<u8>> = (0..50)
            .map(|i| numbered_udp(round * 50 + i, None, 100))
            .collect();
        pair.send(Side::B, &frames);
        std::thread::sleep(Duration::from_millis(100));
    }
    for (run, prefix) in [(ours, "ours-"), (theirs, "theirs-")] {
        let done = run.wait(Duration::from_secs(5));
        assert!(done.status.success(), "{prefix}: {}", done.stderr);
        assert!(
            done.stderr.contains("Maximum file limit reached: 3"),
            "{prefix}: {}",
            done.stderr
        );
        let (files, written) = packets_in(dir.path(), prefix);
        assert_eq!(files, 3, "{prefix}");
        assert!(written > 0, "{prefix}");
        let captured = done.statistic("packets captured");
        assert_eq!(
            captured,
            Some(written as u64 + 1),
            "{prefix}: {}",
            done.stderr
        );
    }
}

/// Without `-i`, tcpdump captures on the first interface `-D` lists (a
/// running one that is no loopback); netsift takes the same, and says so in
/// the same `listening on` line.
#[test]
fn the_default_interface_is_tcpdumps() {
    require!(Need::Netns, Need::Command("tcpdump"));
    let pair = VethPair::new();
    let (ns, dev) = pair.end(Side::A);
    let ours = Live::new(env!("CARGO_BIN_EXE_netsift")).in_ns(ns).start();
    let theirs = Live::tcpdump().in_ns(ns).start();
    let listening = |said: &[String]| said.last().cloned().unwrap_or_default();
    assert!(
        listening(ours.said()).starts_with(&format!("listening on {dev},")),
        "{:?}",
        ours.said()
    );
    assert_eq!(listening(ours.said()), listening(theirs.said()));
    // The lines before it too (tcpdump's hint that -v prints more).
    let without = |said: &[String], who: &str| {
        said.iter()
            .map(|l| l.strip_prefix(who).unwrap_or(l).to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        without(ours.said(), "netsift: "),
        without(theirs.said(), "tcpdump: ")
    );
    ours.stop().assert_success();
    theirs.stop().assert_success();
}

/// `-y`, `-I`, `-j` and `-J` on a live interface: tcpdump's messages.
#[test]
fn live_only_flags_say_what_tcpdump_says() {
    require!(Need::Netns, Need::Command("tcpdump"));
    let pair = VethPair::new();
    let (ns, dev) = pair.end(Side::A);
    let both = |args: &[&str]| {
        let run = |prog: &str| {
            let o = netsift_testkit::netns::exec(ns, prog)
                .args(args)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr).into_owned();
            (
                o.status.code(),
                String::from_utf8_lossy(&o.stdout).into_owned(),
                err,
            )
        };
        (run(env!("CARGO_BIN_EXE_netsift")), run("tcpdump"))
    };
    for args in [
        &["-i", dev, "-y", "LINUX_SLL"][..],
        &["-i", dev, "-y", "NO_SUCH_TYPE"],
        &["-i", dev, "-I"],
        &["-i", dev, "-j", "no_such_type"],
    ] {
        let ((code, _, ours), (tcode, _, theirs)) = both(args);
        assert_eq!(code, Some(1), "{args:?}: {ours}");
        assert_eq!(code, tcode, "{args:?}: {theirs}");
        let ours = ours.lines().next().unwrap_or_default();
        let theirs = theirs.lines().next().unwrap_or_default();
        assert!(ours.starts_with("netsift: "), "{ours}");
        assert_eq!(ours["netsift: ".len()..], theirs["tcpdump: ".len()..]);
    }
    // Both lists go to stderr, as libpcap's tcpdump prints them.
    let ((code, _, err), (_, _, terr)) = both(&["-i", dev, "-J"]);
    assert_eq!(code, Some(0));
    assert_eq!(err, terr);
    // tcpdump also lists DOCSIS for an Ethernet device, which netsift cannot
    // capture: the lines up to Ethernet's agree.
    let ((code, _, err), (_, _, terr)) = both(&["-i", dev, "-L"]);
    assert_eq!(code, Some(0));
    let two = |s: &str| s.lines().take(2).collect::<Vec<_>>().join("\n");
    assert_eq!(two(&err), two(&terr));
    // A type the device has not: a warning, and the capture goes on.
    let warned = Live::new(env!("CARGO_BIN_EXE_netsift"))
        .in_ns(ns)
        .on(dev)
        .args(["-j", "adapter"])
        .start();
    assert!(
        warned
            .said()
            .iter()
            .any(|l| l.contains("WARNING: When trying to set timestamp type 'adapter' on")),
        "{:?}",
        warned.said()
    );
    warned.stop().assert_success();
}

/// Root becomes `tcpdump` (or -Z's user) once the interface is open: the file
/// is created by that user, even in a directory only root may write, as
/// tcpdump's is; `-Z root` keeps root.
#[test]
fn privileges_are_dropped_once_the_capture_is_open() {
    require!(Need::Netns, Need::Command("tcpdump"));
    use std::os::unix::fs::MetadataExt;
    let (Some(tcpdump_uid), Some(nobody_uid)) = (uid_of("tcpdump"), uid_of("nobody")) else {
        println!("no `tcpdump` or `nobody` user; skipping");
        return;
    };
    let dir = tempfile::tempdir().unwrap(); // mode 0700, root's
    let pair = VethPair::new();
    let (ns, dev) = pair.end(Side::A);
    let start = |prog: Live, name: &str| {
        let out = dir.path().join(name);
        (
            prog.in_ns(ns).on(dev).write_to(&out).filter("udp").start(),
            out,
        )
    };
    let netsift = || Live::new(env!("CARGO_BIN_EXE_netsift"));
    let runs = [
        (start(netsift(), "default.pcap"), tcpdump_uid),
        (
            start(netsift().args(["-Z", "nobody"]), "nobody.pcap"),
            nobody_uid,
        ),
        (start(netsift().args(["-Z", "root"]), "root.pcap"), 0),
        // Without --immediate-mode tcpdump would not see a ring block that
        // had not timed out when it was interrupted.
        (
            start(Live::new("tcpdump").arg("--immediate-mode"), "tcpdump.pcap"),
            tcpdump_uid,
        ),
    ];
    let frames: Vec<Vec<u8>> = (0..20u32).map(|i| numbered_udp(i, None, 64)).collect();
    pair.send(Side::B, &frames);
    std::thread::sleep(Duration::from_millis(300));
    for ((run, out), uid) in runs {
        let done = run.stop();
        done.assert_success();
        let meta = std::fs::metadata(&out).unwrap();
        assert_eq!(meta.uid(), uid, "{}", out.display());
        assert_eq!(pcap::packets(&out).len(), 20, "{}", out.display());
    }
    // An unknown user is refused before anything is captured.
    let o = netsift_testkit::netns::exec(ns, env!("CARGO_BIN_EXE_netsift"))
        .args(["-i", dev, "-Z", "no-such-user-x"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("Couldn't find user 'no-such-user-x'"));
}
