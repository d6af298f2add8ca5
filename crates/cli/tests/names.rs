//! Host names as tcpdump prints them without `-n` and with `-N` (no domains),
//! and `-f` refused on a file as tcpdump refuses it: netsift and tcpdump read the same hosts
//! file, bind-mounted over /etc/hosts in a mount and network namespace of their
//! own (`unshare -m -n`: no DNS for tcpdump to ask, and the machine's hosts file
//! untouched).

mod common;

use common::{corpus, corpus_found, TZ};
use netsift_testkit::{require, Need};
use std::path::Path;
use std::process::Command;

/// Runs `prog args` with `hosts` as /etc/hosts, in namespaces of its own.
fn with_hosts(hosts: &Path, prog: &str, args: &[&str]) -> String {
    let out = Command::new("unshare")
        .args([
            "-m",
            "-n",
            "sh",
            "-c",
            "mount --bind \"$0\" /etc/hosts && exec \"$@\"",
        ])
        .arg(hosts)
        .arg(prog)
        .args(args)
        .env("TZ", TZ)
        .output()
        .expect("spawn unshare");
    assert!(
        out.status.success(),
        "{prog} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn host_names_without_domains_and_foreign_addresses_as_tcpdump() {
    let corpus = corpus();
    let ns = Command::new("unshare")
        .args(["-m", "-n", "true"])
        .status()
        .is_ok_and(|s| s.success());
    require!(
        Need::Command("tcpdump"),
        corpus_found(&corpus),
        Need::That("unshare -m -n", ns)
    );
    let cap = corpus
        .unwrap()
        .join("pcaps/tcpdump/02-sunrise-sunset-esp.pcap");
    let cap = cap.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let hosts = dir.path().join("hosts");
    std::fs::write(
        &hosts,
        "127.0.0.1 localhost\n192.1.2.23 east.example.org east\n192.1.2.45 west.example.org\n",
    )
    .unwrap();
    let netsift = env!("CARGO_BIN_EXE_netsift");
    let mut named = 0;
    for flags in [&[][..], &["-N"], &["-N", "-n"]] {
        let args: Vec<&str> = flags.iter().copied().chain(["-r", cap]).collect();
        let theirs = with_hosts(&hosts, "tcpdump", &args);
        let ours = with_hosts(&hosts, netsift, &args);
        assert_eq!(ours, theirs, "netsift {flags:?} against tcpdump");
        named += usize::from(theirs.contains(" east ") || theirs.contains(" east."));
    }
    // The names must have been printed, with and without their domain.
    assert!(named >= 2, "no host names in tcpdump's lines");
    // A file has no local network to call an address foreign: both refuse -f.
    let refused = |prog: &str| {
        let o = Command::new(prog).args(["-f", "-r", cap]).output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (theirs, ours) = (refused("tcpdump"), refused(netsift));
    assert_eq!(ours.0, theirs.0, "exit status of -f -r: {ours:?}");
    assert_eq!(
        ours.1.replace("netsift:", "tcpdump:"),
        theirs.1,
        "message of -f -r"
    );
}
