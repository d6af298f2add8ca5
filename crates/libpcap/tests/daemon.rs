//! Unmodified tcpdump, run by an ordinary user (no capability), capturing
//! through `netsiftd` with the drop-in library: the daemon owns the veth
//! interface inside a namespace and the user's tcpdump writes the same
//! packets as root's own tcpdump on that interface at the same time. Two
//! users' tcpdumps with different filters run at once, each getting its own.
//! Frames go only to the pair's other end.
//!
//! Needs root (namespaces, users), tcpdump, setpriv and the built `netsiftd`
//! (a workspace build makes it): skipped with a message without them, a
//! failure under `CI=true`.

mod common;

use common::frames::{tcp, udp};
use common::{assert_counted, netsiftd, reader, shim_dir};
use netsift_testkit::daemon::Daemon;
use netsift_testkit::live::Live;
use netsift_testkit::netns::{Side, VethPair};
use netsift_testkit::pcap::as_sent;
use netsift_testkit::user::TempUser;
use netsift_testkit::Need;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// tcpdump run as `user` through the shim and the daemon at `socket`.
fn users_tcpdump(user: &TempUser, socket: &Path) -> Live {
    Live::new("setpriv")
        .args(user.setpriv().into_iter().skip(1))
        .arg("env")
        .arg(format!("LD_LIBRARY_PATH={}", shim_dir().display()))
        .arg(format!("NETSIFT_SOCKET={}", socket.display()))
        .arg("tcpdump")
}

/// A veth pair whose side A a daemon owns, on a socket anyone may use, and
/// a directory the test's users may write their captures into. (Fields
/// drop in order: the daemon stops before its interface goes.)
struct Setup {
    daemon: Daemon,
    dir: tempfile::TempDir,
    pair: VethPair,
}

impl Setup {
    /// The setup, once namespaces, the built daemon and the test's `needs`
    /// are there; `None` (the test skipped, or failed under `CI=true`)
    /// without them.
    #[track_caller]
    fn new(needs: &[Need<'_>]) -> Option<Setup> {
        let exe = netsiftd();
        let all = [Need::Netns, Need::File(&exe)];
        if !netsift_testkit::skip::all_met(&[&all[..], needs].concat()) {
            return None;
        }
        let pair = VethPair::new();
        let (ns, dev) = pair.end(Side::A);
        let daemon = Daemon::start(&exe, Some(ns), &["--mode", "0666", "--iface", dev]);
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        Some(Setup { daemon, dir, pair })
    }

    /// The interface the daemon owns.
    fn dev(&self) -> &str {
        self.pair.end(Side::A).1
    }
}

/// What a user's tcpdump needs beyond the setup's.
const USERS: [Need<'static>; 3] = [
    Need::Command("tcpdump"),
    Need::Command("setpriv"),
    Need::Command("useradd"),
];

#[test]
fn an_ordinary_users_tcpdump_captures_through_the_daemon() {
    let Some(Setup { daemon, dir, pair }) = Setup::new(&USERS) else {
        return;
    };
    let (ns, dev) = pair.end(Side::A);
    let (alice, bob) = (TempUser::new(), TempUser::new());
    let files = ["alice.pcap", "bob.pcap", "root.pcap"].map(|f| dir.path().join(f));
    let a = users_tcpdump(&alice, &daemon.socket)
        .on(&format!("netsift:{dev}"))
        .write_to(&files[0])
        .filter("udp")
        .start();
    // Bob names the interface plainly: NETSIFT_SOCKET routes every name.
    let b = users_tcpdump(&bob, &daemon.socket)
        .on(dev)
        .write_to(&files[1])
        .filter("tcp")
        .start();
    let real = Live::tcpdump()
        .in_ns(ns)
        .on(dev)
        .write_to(&files[2])
        .filter("udp")
        .start();
    let (mut all, mut udps, mut tcps) = (Vec::new(), Vec::new(), Vec::new());
    for n in 0..40 {
        all.push(udp(n));
        udps.push(udp(n));
        if n % 4 == 0 {
            all.push(tcp(n));
            tcps.push(tcp(n));
        }
    }
    pair.send(Side::B, &all);
    // libpcap's ring hands a block to root's tcpdump when its 1 s timeout
    // expires; the daemon's flows are woken per batch.
    std::thread::sleep(Duration::from_millis(2500));
    let (a, b, real) = (a.stop(), b.stop(), real.stop());
    a.assert_success();
    b.assert_success();
    real.assert_success();
    assert_eq!(real.packets(), as_sent(&udps), "root's own tcpdump");
    assert_eq!(a.packets(), as_sent(&udps), "alice's, through the daemon");
    assert_eq!(b.packets(), as_sent(&tcps), "bob's, through the daemon");
    assert_eq!(a.statistic("packets captured"), Some(40), "{}", a.stderr);
    // Neither ran with a privilege: their processes were the users'.
    for (user, run) in [(&alice, &a), (&bob, &b)] {
        assert!(
            run.stderr.contains("packets captured"),
            "{} said: {}",
            user.name,
            run.stderr
        );
    }
}

/// `-c N` through the daemon stops at exactly N packets, and SIGINT
/// (tcpdump's handler calls `pcap_breakloop`) ends a capture that waits in
/// the daemon's wake-up descriptor with nothing arriving, at once.
#[test]
fn count_stops_exactly_and_breakloop_interrupts_a_wait() {
    let Some(Setup { daemon, dir, pair }) = Setup::new(&USERS) else {
        return;
    };
    let dev = pair.end(Side::A).1;
    let user = TempUser::new();
    let files = ["count.pcap", "idle.pcap"].map(|f| dir.path().join(f));
    let counted = users_tcpdump(&user, &daemon.socket)
        .args(["-c", "5"])
        .on(&format!("netsift:{dev}"))
        .write_to(&files[0])
        .filter("udp")
        .start();
    let idle = users_tcpdump(&user, &daemon.socket)
        .on(&format!("netsift:{dev}"))
        .write_to(&files[1])
        .filter("icmp")
        .start();
    let udps: Vec<Vec<u8>> = (0..40).map(udp).collect();
    pair.send(Side::B, &udps);
    assert_counted(counted, &udps, 5);
    let asked = Instant::now();
    let idle = idle.stop();
    idle.assert_success();
    assert!(
        asked.elapsed() < Duration::from_millis(900),
        "SIGINT took {:?} to end a waiting read",
        asked.elapsed()
    );
    assert_eq!(
        idle.statistic("packets captured"),
        Some(0),
        "{}",
        idle.stderr
    );
}

/// The C reader of `tests/api.rs` through the daemon: `pcap_get_selectable_fd`,
/// `pcap_next_ex` in immediate mode, `pcap_stats` and a non-blocking
/// `pcap_dispatch`, with a compiled filter (the daemon runs it) and a
/// hand-built one (the shim runs it on packets read in place).
#[test]
fn the_pcap_api_reads_through_the_daemon() {
    let needs = [Need::Command("cc"), Need::File(Path::new(reader::HEADERS))];
    let Some(s) = Setup::new(&needs) else {
        return;
    };
    let built = reader::build(s.dir.path());
    for filter in ["udp", "hand"] {
        let mut cmd = Command::new(&built);
        cmd.env("LD_LIBRARY_PATH", shim_dir())
            .env("NETSIFT_SOCKET", &s.daemon.socket);
        let lines = reader::run(cmd, &format!("netsift:{}", s.dev()), filter, &s.pair);
        assert_eq!(lines, reader::want(), "{filter}");
    }
}
