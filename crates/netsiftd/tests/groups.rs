//! Flows of two different users never share a group: each user's flows get
//! a group (and a PBuf) of their own, and each group stores its own copy.
//! The second user is this test binary run again, which drops to `nobody`
//! before it connects.

mod common;

use common::{active_flow, afs, afs_daemon, drain, side, until_ready, wait_stats, Connect};
use netsift_testkit::{require, Need};
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

const ENV: &str = "NETSIFTD_TEST_OTHER_USER_SOCKET";
const NOBODY: u32 = 65534;

/// The other user's side: runs only when the parent set the variable.
#[test]
fn other_user_side() {
    let Ok(sock) = std::env::var(ENV) else { return };
    // SAFETY: setgid/setuid with constant ids, before any other thread of
    // this test process touches credentials.
    unsafe {
        assert_eq!(libc::setgroups(0, std::ptr::null()), 0);
        assert_eq!(libc::setgid(NOBODY), 0);
        assert_eq!(libc::setuid(NOBODY), 0);
    }
    let c = netsift_ffpf::Client::connect(&sock).unwrap();
    let mut f = active_flow(&c, "afs", "");
    println!("ready");
    // Alive until the parent has looked at the groups.
    let mut go = String::new();
    std::io::stdin().read_line(&mut go).unwrap();
    wait_stats(&c, "playback", |s| s.sources[0].finished);
    println!("got {}", drain(&mut f).len());
}

#[test]
fn two_users_get_two_groups() {
    require!(Need::Root, Need::File(&afs()));
    let d = afs_daemon(&[
        "--fast",
        "--wait-flows",
        "2",
        "--mode",
        "0666",
        "--ibuf-entries",
        "1024",
    ]);
    let c = d.client();
    let mut mine = active_flow(&c, "afs", "");
    let mut child = side("other_user_side")
        .env(ENV, &d.socket)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    until_ready(&mut out, "the other user's side");
    let s = wait_stats(&c, "playback", |s| s.sources[0].finished);
    let src = &s.sources[0];
    // Two groups, one copy of each packet in each, though the filter is one.
    assert_eq!(
        (src.groups, src.flows, src.distinct_filters),
        (2, 2, 1),
        "{src:?}"
    );
    assert_eq!(src.stored, 2 * 601, "{src:?}");
    assert_eq!(src.filter_runs, src.batches, "{src:?}");
    writeln!(child.stdin.take().unwrap(), "go").unwrap();
    let lines: Vec<String> = out.lines().map_while(Result::ok).collect();
    assert!(child.wait().unwrap().success(), "{lines:?}");
    assert!(lines.iter().any(|l| l == "got 601"), "{lines:?}");
    assert_eq!(drain(&mut mine).len(), 601);
    // The other user's flow went with its process, and its group with it.
    let s = c.daemon_stats().unwrap();
    assert_eq!((s.sources[0].groups, s.sources[0].flows), (1, 1), "{s:?}");
}
