//! Live flags that shape a run rather than its lines, on a veth pair in
//! namespaces the test makes: the closing statistics, and how they count what
//! `-G`/`-W` wrote.

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
