//! The authorisation policy through a real daemon, with real non-root users
//! (`TempUser`): each client is this test binary run again under `setpriv`
//! as that user, in the role an environment variable names, talking to the
//! test over its standard input and output.
//!
//! What is shown: a user no rule admits is refused, naming `default`; a
//! rule's filter is all its users see (exactly what libpcap keeps of the file
//! for it); a source not listed, a snap length or buffer too large, a flow
//! too many are refused naming the rule and change nothing in the daemon;
//! users of one rule share a group and users of two do not; and a user
//! cannot reach another group's buffers, neither through /proc (the
//! daemon's descriptors or the other client's) nor through the other flow's
//! number on its own connection. Graph flows: a rule's filter goes in front
//! of its users' graphs (they get exactly libpcap's packets for both, and
//! share the rule's element); each graph right accepts a graph that keeps it
//! and refuses one that does not, naming the rule and the element, and
//! counts what a called filter calls as its caller's; behind a rule's filter
//! elements and IBuf classes keep the client's numbers, a graph over two
//! interfaces is refused, and on an interface a device passes its own
//! packets and a counter runs in the kernel below the rule's filter; a
//! policy naming what the daemon does not know stops it at start, with the
//! line.

mod common;

use common::{activated, active_flow, afs, drain, kept, until, wait_stats, Connect, Daemon, Got};
use netsift_ffpf::proto::{self, ReplyBody, Request};
use netsift_ffpf::{Client, FlowSpec};
use netsift_testkit::user::TempUser;
use netsift_testkit::{require, Need};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

const ROLE: &str = "NETSIFTD_POLICY_ROLE";
const SOCK: &str = "NETSIFTD_POLICY_SOCKET";

// ---------------------------------------------------------------------------
// The client's side: runs only when the test set the role.

fn line() -> String {
    let mut s = String::new();
    std::io::stdin().read_line(&mut s).unwrap();
    s.trim().to_string()
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_default()
}

/// A line for the test, marked: the harness's own text shares the stream
/// (and the first line follows its `test client_side ... ` unbroken).
fn say(s: &str) {
    println!("@@ {s}");
    std::io::stdout().flush().unwrap();
}

/// A refusal's code and text, or that it was not refused.
fn outcome<T, E: std::fmt::Display>(r: Result<T, E>) -> String {
    match r {
        Ok(_) => "ok".into(),
        Err(e) => format!("err {e}"),
    }
}

#[test]
fn client_side() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let sock = env(SOCK);
    match role.as_str() {
        "connect" => say(&format!("connect {}", outcome(Client::connect(&sock)))),
        "drain" => {
            let c = Client::connect(&sock).unwrap();
            let mut f = match env("NETSIFTD_POLICY_GRAPH") {
                g if g.is_empty() => active_flow(&c, "afs", &env("NETSIFTD_POLICY_FILTER")),
                g => activated(&c, &graph(&g)),
            };
            say(&format!("flow {}", f.number()));
            say(&format!("pid {}", std::process::id()));
            // Its descriptors (the reader may have closed the memfds once
            // mapped), and its mappings of memfds, which /proc opens too
            // (map_files).
            for e in std::fs::read_dir("/proc/self/fd").unwrap().flatten() {
                say(&format!("fd {}", e.file_name().to_string_lossy()));
            }
            let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
            for l in maps.lines().filter(|l| l.contains("memfd:")) {
                say(&format!("map {}", l.split(' ').next().unwrap()));
            }
            say("ready");
            assert_eq!(line(), "go");
            wait_stats(&c, "playback", |s| s.sources[0].finished);
            let got = drain(&mut f);
            for p in &got {
                say(&format!("pkt {}", shown(p)));
            }
            // A counter's MBuf, by the element's number as the client wrote it.
            if let Ok(e) = env("NETSIFTD_POLICY_COUNT").parse::<u32>() {
                say(&format!("count {:?}", f.mbuf(e).map(|m| m.u64(0))));
            }
            say(&format!("got {}", got.len()));
            assert_eq!(line(), "end");
        }
        "limits" => {
            let c = Client::connect(&sock).unwrap();
            let spec = |source: &str, snaplen: Option<u32>, entries: Option<u64>| FlowSpec {
                source: source.into(),
                filter: String::new(),
                snaplen,
                ibuf_entries: entries,
                ..FlowSpec::default()
            };
            say("ready");
            assert_eq!(line(), "go");
            say(&format!(
                "source {}",
                outcome(c.create(&spec("other", None, Some(64))))
            ));
            say(&format!(
                "snaplen {}",
                outcome(c.create(&spec("afs", Some(1000), Some(64))))
            ));
            say(&format!(
                "buffer {}",
                outcome(c.create(&spec("afs", None, Some(1 << 16))))
            ));
            say("checked");
            assert_eq!(line(), "go");
            let mut one = c.create(&spec("afs", Some(100), Some(64))).unwrap();
            one.instantiate().unwrap();
            say(&format!("first {}", one.snaplen()));
            assert_eq!(line(), "go");
            say(&format!(
                "second {}",
                outcome(c.create(&spec("afs", None, Some(64))))
            ));
            {
                let other = Client::connect(&sock).unwrap();
                say(&format!(
                    "elsewhere {}",
                    outcome(other.create(&spec("afs", None, Some(64))))
                ));
            }
            say("checked");
            assert_eq!(line(), "end");
        }
        "graphs" => {
            // Each graph created in turn, and kept: the rule's per-user
            // limits count the ones made before.
            // (A `Flow` dropped is closed: they are held here.)
            let c = Client::connect(&sock).unwrap();
            let mut held = Vec::new();
            for (i, g) in env("NETSIFTD_POLICY_GRAPHS").lines().enumerate() {
                let r = c.create(&graph(g));
                say(&format!("graph{} {}", i + 1, outcome(r.as_ref())));
                held.extend(r.ok());
            }
            say("checked");
            assert_eq!(line(), "end");
        }
        "hold" => {
            let c = Client::connect(&sock).unwrap();
            let spec = FlowSpec {
                source: "afs".into(),
                ..FlowSpec::default()
            };
            let mut f = c.create(&spec).unwrap();
            f.instantiate().unwrap();
            say("ready");
            assert_eq!(line(), "go");
            say(&format!("again {}", outcome(c.create(&spec))));
            assert_eq!(line(), "end");
        }
        "attacker" => {
            let mut paths = Vec::new();
            for (pid, fds) in [
                (
                    env("NETSIFTD_POLICY_DAEMON"),
                    env("NETSIFTD_POLICY_DAEMON_FDS"),
                ),
                (
                    env("NETSIFTD_POLICY_VICTIM"),
                    env("NETSIFTD_POLICY_VICTIM_FDS"),
                ),
            ] {
                paths.push(format!("/proc/{pid}/fd"));
                for fd in fds.split(',').filter(|s| !s.is_empty()) {
                    paths.push(format!("/proc/{pid}/fd/{fd}"));
                }
            }
            let victim = env("NETSIFTD_POLICY_VICTIM");
            paths.push(format!("/proc/{victim}/map_files"));
            for range in env("NETSIFTD_POLICY_VICTIM_MAPS").split(',') {
                paths.push(format!("/proc/{victim}/map_files/{range}"));
            }
            for p in &paths {
                let r = std::fs::File::open(p);
                say(&format!(
                    "open {p} {}",
                    if r.is_ok() { "ok" } else { "err" }
                ));
                let r = std::fs::read_dir(p);
                say(&format!(
                    "list {p} {}",
                    if r.is_ok() { "ok" } else { "err" }
                ));
            }
            let flow: u64 = env("NETSIFTD_POLICY_VICTIM_FLOW").parse().unwrap();
            let c = Client::connect(&sock).unwrap();
            let reqs = [
                Request::Instantiate { flow },
                Request::FlowStats { flow },
                Request::Pause { flow },
                Request::Close { flow },
            ];
            for (id, r) in reqs.iter().enumerate() {
                let reply = c
                    .send_raw(&proto::encode_request(100 + id as u64, r))
                    .unwrap();
                match reply.body {
                    ReplyBody::Error { code, what } => {
                        say(&format!("req {} err {code} {what}", r.verb()))
                    }
                    other => say(&format!("req {} ok {other:?}", r.verb())),
                }
            }
            say("done");
        }
        "serve" => {
            // One flow as the variables describe it (a graph, the element
            // or instance it reads), active; then what the test asks.
            let c = Client::connect(&sock).unwrap();
            let mut spec = graph(&env("NETSIFTD_POLICY_GRAPH"));
            spec.graph = spec.graph.filter(|g| !g.is_empty());
            spec.element = env("NETSIFTD_POLICY_ELEMENT").parse().ok();
            spec.instance = env("NETSIFTD_POLICY_INSTANCE").parse().ok();
            let mut f = activated(&c, &spec);
            say(&format!("flow {}", f.number()));
            say("ready");
            loop {
                let ask = line();
                match ask.split_once(' ') {
                    None if ask == "end" => break,
                    // Each waiting packet with its IBuf entry's class.
                    None if ask == "drain" => {
                        let r = f.reader().unwrap();
                        let mut n = 0;
                        while let Some(p) = r.getnext().unwrap() {
                            let got = (p.data.to_vec(), p.wirelen, p.ts_ns);
                            say(&format!("pkt {} {}", p.class, shown(&got)));
                            n += 1;
                        }
                        say(&format!("drained {n}"));
                    }
                    // A counter's MBuf, by the element's number as written.
                    Some(("count", e)) => match f.mbuf(e.parse().unwrap()) {
                        Ok(m) => say(&format!("count {:?}", m.u64(0))),
                        Err(e) => say(&format!("count err {e}")),
                    },
                    _ => panic!("no request {ask:?}"),
                }
            }
        }
        other => panic!("no role {other}"),
    }
}

/// A graph flow on `afs`, or on the source `NETSIFTD_POLICY_SOURCE` names.
fn graph(text: &str) -> FlowSpec {
    let source = env("NETSIFTD_POLICY_SOURCE");
    FlowSpec {
        source: if source.is_empty() {
            "afs".into()
        } else {
            source
        },
        graph: Some(text.into()),
        ..FlowSpec::default()
    }
}

// ---------------------------------------------------------------------------
// The test's side.

/// A client process running as a user.
struct Peer {
    child: Child,
    out: BufReader<ChildStdout>,
    input: Option<ChildStdin>,
    seen: Vec<String>,
}

impl Peer {
    fn spawn(user: &TempUser, role: &str, sock: &Path, vars: &[(&str, String)]) -> Peer {
        let argv = user.setpriv();
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..])
            .arg(std::env::current_exe().unwrap())
            .args(["client_side", "--exact", "--nocapture", "--test-threads=1"])
            .env(ROLE, role)
            .env(SOCK, sock)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        for (k, v) in vars {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("setpriv");
        Peer {
            out: BufReader::new(child.stdout.take().unwrap()),
            input: child.stdin.take(),
            child,
            seen: Vec::new(),
        }
    }

    /// The rest of the next line starting with `key `, or `key` itself.
    fn expect(&mut self, key: &str) -> String {
        loop {
            let mut l = String::new();
            let n = self.out.read_line(&mut l).unwrap();
            assert!(n > 0, "the client ended before {key:?}: {:#?}", self.seen);
            let Some((_, l)) = l.trim_end().split_once("@@ ") else {
                continue;
            };
            let l = l.to_string();
            self.seen.push(l.clone());
            if l == key {
                return String::new();
            }
            if let Some(rest) = l.strip_prefix(&format!("{key} ")) {
                return rest.to_string();
            }
        }
    }

    fn tell(&mut self, s: &str) {
        writeln!(self.input.as_mut().unwrap(), "{s}").unwrap();
    }

    /// A `serve` client's waiting packets: each IBuf entry's class and the
    /// packet as [`shown`].
    fn drained(&mut self) -> Vec<(u32, String)> {
        self.tell("drain");
        let from = self.seen.len();
        let n: usize = self.expect("drained").parse().unwrap();
        let got: Vec<(u32, String)> = self.seen[from..]
            .iter()
            .filter_map(|l| l.strip_prefix("pkt "))
            .map(|l| {
                let (class, p) = l.split_once(' ').unwrap();
                (class.parse().unwrap(), p.to_string())
            })
            .collect();
        assert_eq!(got.len(), n);
        got
    }

    /// A `serve` client's count in the MBuf of its element `e` (client
    /// numbering), as `Some(n)`, or the refusal.
    fn count(&mut self, e: u32) -> String {
        self.tell(&format!("count {e}"));
        self.expect("count")
    }

    fn finish(mut self) {
        drop(self.input.take());
        let st = self.child.wait().unwrap();
        let mut rest = String::new();
        let _ = self.out.read_to_string(&mut rest);
        assert!(st.success(), "client failed: {:#?} {rest}", self.seen);
    }
}

impl Drop for Peer {
    /// A test that fails leaves no client running: `userdel` refuses a
    /// user with a process, and the user would outlive the test.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A daemon on the corpus file (as `afs`, and again as `other`) under the
/// policy `text`, its socket open to every user.
fn daemon(policy: &str, wait_flows: u32) -> (Daemon, tempfile::TempDir) {
    let (dir, file) = policy_file(policy);
    let path = afs();
    let afs = format!("afs={}", path.display());
    let other = format!("other={}", path.display());
    let wait = wait_flows.to_string();
    let d = common::daemon(
        None,
        &[
            "--file",
            &afs,
            "--file",
            &other,
            "--fast",
            "--wait-flows",
            &wait,
            "--mode",
            "0666",
            "--ibuf-entries",
            "1024",
            "--policy",
            file.to_str().unwrap(),
        ],
    );
    (d, dir)
}

/// The policy `text` in a file of a new directory.
fn policy_file(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("policy.toml");
    std::fs::write(&file, text).unwrap();
    (dir, file)
}

/// A daemon reading `va` and `vc` (`common::veth::two_interfaces`) in
/// namespace `ns` under the policy `text`, its socket open to every user.
fn iface_daemon(ns: &str, policy: &str) -> (Daemon, tempfile::TempDir) {
    let (dir, file) = policy_file(policy);
    let p = file.to_str().unwrap();
    let args = [
        "--iface", "va", "--iface", "vc", "--mode", "0666", "--policy", p,
    ];
    (common::daemon(Some(ns), &args), dir)
}

fn needs() -> bool {
    let path: PathBuf = afs();
    netsift_testkit::skip::all_met(&[
        Need::Root,
        Need::File(&path),
        Need::Command("setpriv"),
        Need::Command("useradd"),
    ])
}

/// A packet as a client prints it: wire length, time stamp, bytes in hex.
fn shown((data, wire, ts): &Got) -> String {
    let hex: String = data.iter().map(|b| format!("{b:02x}")).collect();
    format!("{wire} {ts} {hex}")
}

/// What libpcap keeps of the file for `expr`, as the client prints it.
fn expected(expr: &str) -> Vec<String> {
    kept(expr).iter().map(shown).collect()
}

/// Reads a drain client's packets after `go`.
fn packets(p: &mut Peer) -> Vec<String> {
    p.tell("go");
    let n: usize = p.expect("got").parse().unwrap();
    let got: Vec<String> = p
        .seen
        .iter()
        .filter_map(|l| l.strip_prefix("pkt ").map(str::to_string))
        .collect();
    assert_eq!(got.len(), n);
    got
}

/// The daemon's descriptors and figures once they hold still: a reply that
/// carried descriptors reaches the client before the daemon's thread closes
/// its own copies of them, so a look right after one sees them for a moment.
fn settled(d: &Daemon, root: &Client) -> (Vec<String>, proto::DaemonStats) {
    let until = Instant::now() + Duration::from_secs(10);
    let mut last = (d.fd_list(), root.daemon_stats().unwrap());
    loop {
        std::thread::sleep(Duration::from_millis(50));
        let now = (d.fd_list(), root.daemon_stats().unwrap());
        if now == last || Instant::now() >= until {
            return now;
        }
        last = now;
    }
}

/// Waits until the daemon's descriptors and figures are `fds` and `stats`
/// again (a connection's end is seen by its thread a moment later).
fn unchanged(d: &Daemon, root: &Client, fds: &[String], stats: &proto::DaemonStats) {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let (now, st) = (d.fd_list(), root.daemon_stats().unwrap());
        if now == fds && st == *stats {
            return;
        }
        assert!(
            Instant::now() < until,
            "the daemon changed: {fds:#?} {stats:#?} -> {now:#?} {st:#?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Asserts that `got` (classes and packets) is `want`, naming `what` and
/// the first entry that differs rather than printing every packet.
fn same(got: &[(u32, String)], want: &[(u32, String)], what: &str) {
    let first = got.iter().zip(want).position(|(g, w)| g != w);
    assert!(
        got == want,
        "{what}: {} entries, {} expected; the first to differ: {first:?}, classes {:?}",
        got.len(),
        want.len(),
        first.map(|i| (got[i].0, want[i].0))
    );
}

#[test]
fn a_user_no_rule_admits_is_refused_naming_default() {
    require!(Need::That("root, setpriv, useradd and the corpus", needs()));
    let ok = TempUser::new();
    let stranger = TempUser::new();
    let (d, _dir) = daemon(
        &format!(
            "default = \"deny\"\n[[rule]]\nname = \"ok\"\nusers = [{}]\n",
            ok.uid
        ),
        1,
    );
    let mut p = Peer::spawn(&stranger, "connect", &d.socket, &[]);
    let got = p.expect("connect");
    assert!(
        got.starts_with("err `hello`: refused by rule default:") && got.ends_with("(denied)"),
        "{got}"
    );
    assert!(got.contains(&format!("uid {}", stranger.uid)), "{got}");
    p.finish();
    let mut p = Peer::spawn(&ok, "connect", &d.socket, &[]);
    assert_eq!(p.expect("connect"), "ok");
    p.finish();
}

#[test]
fn a_rules_filter_is_all_its_user_sees() {
    require!(Need::That("root, setpriv, useradd and the corpus", needs()));
    let user = TempUser::new();
    let rule = "udp port 7001";
    let (d, _dir) = daemon(
        &format!(
            "[[rule]]\nname = \"afsonly\"\nusers = [\"{}\"]\nfilter = \"{rule}\"\n",
            user.name
        ),
        1,
    );
    let mut p = Peer::spawn(&user, "drain", &d.socket, &[]);
    p.expect("ready");
    let got = packets(&mut p);
    let want = expected(rule);
    assert!(!want.is_empty() && want.len() < 601);
    assert_eq!(got.len(), want.len());
    assert!(got == want, "the packets differ from libpcap's for {rule}");
    // Narrowed further by the user's own filter: both apply.
    p.tell("end");
    p.finish();
}

#[test]
fn limits_refuse_naming_the_rule_and_change_nothing() {
    require!(Need::That("root, setpriv, useradd and the corpus", needs()));
    let user = TempUser::new();
    let (d, _dir) = daemon(
        &format!(
            "[[rule]]\nname = \"lim\"\nusers = [{}]\nsources = [\"af*\"]\nsnaplen = 128\n\
             buffer = 65536\nflows = 1\n",
            user.uid
        ),
        1,
    );
    let root = d.client();
    let mut p = Peer::spawn(&user, "limits", &d.socket, &[]);
    p.expect("ready");
    let (fds, stats) = settled(&d, &root);
    p.tell("go");
    let source = p.expect("source");
    let snaplen = p.expect("snaplen");
    let buffer = p.expect("buffer");
    p.expect("checked");
    for (what, got) in [
        ("source other is not in [\"af*\"]", &source),
        ("snap length 1000 is above 128", &snaplen),
        ("a buffer of", &buffer),
    ] {
        assert!(
            got.starts_with("err `create`: refused by rule lim: ")
                && got.contains(what)
                && got.ends_with("(denied)"),
            "{got}"
        );
    }
    unchanged(&d, &root, &fds, &stats);

    p.tell("go");
    // Asked for 100 of the rule's 128: given.
    assert_eq!(p.expect("first"), "100");
    let (fds, stats) = settled(&d, &root);
    p.tell("go");
    for key in ["second", "elsewhere"] {
        let got = p.expect(key);
        assert!(
            got.starts_with("err `create`: refused by rule lim: 1 flows open already, at most 1"),
            "{key}: {got}"
        );
    }
    p.expect("checked");
    unchanged(&d, &root, &fds, &stats);
    p.tell("end");
    p.finish();
}

#[test]
fn one_rule_one_group_two_rules_two() {
    require!(Need::That("root, setpriv, useradd and the corpus", needs()));
    let (a, b, c) = (TempUser::new(), TempUser::new(), TempUser::new());
    let (d, _dir) = daemon(
        &format!(
            "[[rule]]\nname = \"noc\"\nusers = [{}, {}]\nsnaplen = 64\n\
             [[rule]]\nname = \"ops\"\nusers = [{}]\n",
            a.uid, b.uid, c.uid
        ),
        3,
    );
    let mut peers: Vec<Peer> = [&a, &b, &c]
        .iter()
        .map(|u| Peer::spawn(u, "drain", &d.socket, &[]))
        .collect();
    for p in &mut peers {
        p.expect("ready");
    }
    let root = d.client();
    let s = wait_stats(&root, "playback", |s| s.sources[0].finished);
    let src = &s.sources[0];
    // noc's two flows share a group, ops' one has its own: one stored copy
    // per packet per group.
    assert_eq!((src.groups, src.flows), (2, 3), "{src:?}");
    assert_eq!(src.stored, 2 * 601, "{src:?}");
    let groups: Vec<u64> = peers.iter_mut().map(|p| packets(p).len() as u64).collect();
    assert_eq!(groups, [601, 601, 601]);
    // noc's rule cuts its packets to 64 bytes; ops' are whole.
    let cut = |p: &Peer| {
        p.seen
            .iter()
            .filter_map(|l| l.strip_prefix("pkt "))
            .all(|l| l.split(' ').nth(2).unwrap().len() <= 128)
    };
    assert!(cut(&peers[0]) && cut(&peers[1]));
    assert!(!cut(&peers[2]));
    for p in peers {
        let mut p = p;
        p.tell("end");
        p.finish();
    }
}

#[test]
fn a_user_cannot_reach_another_groups_buffers() {
    require!(Need::That("root, setpriv, useradd and the corpus", needs()));
    let (a, b) = (TempUser::new(), TempUser::new());
    let (d, _dir) = daemon(
        &format!(
            "[[rule]]\nname = \"a\"\nusers = [{}]\n[[rule]]\nname = \"b\"\nusers = [{}]\n",
            a.uid, b.uid
        ),
        // The file plays once root's flow is active too, after the attack:
        // until then the daemon's figures stand still.
        2,
    );
    let mut victim = Peer::spawn(&a, "drain", &d.socket, &[]);
    let flow = victim.expect("flow");
    let pid = victim.expect("pid");
    victim.expect("ready");
    let of = |key: &str| -> Vec<String> {
        victim
            .seen
            .iter()
            .filter_map(|l| l.strip_prefix(key).map(str::to_string))
            .collect()
    };
    let (victim_fds, victim_maps) = (of("fd "), of("map "));
    // PBuf, IBuf and the control page at least.
    assert!(victim_maps.len() >= 3, "{:#?}", victim.seen);
    let daemon_fds: Vec<String> = d
        .fd_list()
        .iter()
        .filter(|l| l.contains("memfd:"))
        .map(|l| l.split(':').next().unwrap().to_string())
        .collect();
    assert!(daemon_fds.len() >= 3, "{:#?}", d.fd_list());
    let root = d.client();
    let (fds, stats) = settled(&d, &root);

    let mut attacker = Peer::spawn(
        &b,
        "attacker",
        &d.socket,
        &[
            ("NETSIFTD_POLICY_DAEMON", d.pid().to_string()),
            ("NETSIFTD_POLICY_DAEMON_FDS", daemon_fds.join(",")),
            ("NETSIFTD_POLICY_VICTIM", pid),
            ("NETSIFTD_POLICY_VICTIM_FDS", victim_fds.join(",")),
            ("NETSIFTD_POLICY_VICTIM_MAPS", victim_maps.join(",")),
            ("NETSIFTD_POLICY_VICTIM_FLOW", flow.clone()),
        ],
    );
    attacker.expect("done");
    let lines = attacker.seen.clone();
    attacker.finish();
    let opens: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("open ") || l.starts_with("list "))
        .collect();
    let paths = 3 + daemon_fds.len() + victim_fds.len() + victim_maps.len();
    assert_eq!(opens.len(), 2 * paths);
    for l in &opens {
        assert!(l.ends_with(" err"), "{l}");
    }
    let reqs: Vec<&String> = lines.iter().filter(|l| l.starts_with("req ")).collect();
    assert_eq!(reqs.len(), 4, "{lines:#?}");
    for l in reqs {
        assert!(
            l.contains(" err no_such_flow ") && l.contains(&format!("no flow {flow}")),
            "{l}"
        );
    }
    unchanged(&d, &root, &fds, &stats);
    // The victim's flow is untouched: it reads the whole file.
    let _root_flow = active_flow(&root, "afs", "");
    assert_eq!(packets(&mut victim).len(), 601);
    victim.tell("end");
    victim.finish();
}

/// A group made for a test, removed on drop.
struct TempGroup(String);

impl Drop for TempGroup {
    fn drop(&mut self) {
        let _ = Command::new("groupdel").arg(&self.0).output();
    }
}

#[test]
fn a_rule_admits_by_the_databases_groups() {
    require!(Need::That("root, setpriv, useradd and the corpus", needs()));
    require!(Need::Command("groupadd"), Need::Command("gpasswd"));
    let user = TempUser::new();
    let group = TempGroup(format!("{}g", user.name));
    let run = |c: &mut Command| assert!(c.output().unwrap().status.success(), "{c:?}");
    run(Command::new("groupadd").args(["--system", &group.0]));
    run(Command::new("gpasswd").args(["-a", &user.name, &group.0]));
    let (d, _dir) = daemon(
        &format!("[[rule]]\nname = \"members\"\ngroups = [\"{}\"]\n", group.0),
        1,
    );
    // setpriv clears the process's supplementary groups: the database, not
    // the process, says the user is a member.
    let mut p = Peer::spawn(&user, "connect", &d.socket, &[]);
    assert_eq!(p.expect("connect"), "ok");
    p.finish();
}

#[test]
fn sighup_reads_the_policy_again_for_new_connections() {
    require!(Need::That("root, setpriv, useradd and the corpus", needs()));
    require!(Need::Command("kill"));
    let (a, b) = (TempUser::new(), TempUser::new());
    let (d, dir) = daemon(
        &format!("[[rule]]\nname = \"first\"\nusers = [{}]\n", a.uid),
        1,
    );
    let connects = |u: &TempUser| {
        let mut p = Peer::spawn(u, "connect", &d.socket, &[]);
        let got = p.expect("connect");
        p.finish();
        got
    };
    let hup = || {
        let st = Command::new("kill")
            .args(["-HUP", &d.pid().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
    };
    let mut held = Peer::spawn(&a, "hold", &d.socket, &[]);
    held.expect("ready");
    assert!(connects(&b).contains("refused by rule default"));

    // A's rule goes, B gets one.
    let file = dir.path().join("policy.toml");
    std::fs::write(
        &file,
        format!("[[rule]]\nname = \"second\"\nusers = [{}]\n", b.uid),
    )
    .unwrap();
    hup();
    let until = Instant::now() + Duration::from_secs(10);
    while connects(&b) != "ok" {
        assert!(Instant::now() < until, "SIGHUP did not admit B");
        std::thread::sleep(Duration::from_millis(50));
    }
    // A's connection keeps the rights it was given; a new one has none.
    held.tell("go");
    assert_eq!(held.expect("again"), "ok");
    let got = connects(&a);
    assert!(got.contains("refused by rule default"), "{got}");

    // A file that does not read leaves the policy in force.
    std::fs::write(&file, "[[rule]\n").unwrap();
    hup();
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(connects(&b), "ok");
    held.tell("end");
    held.finish();
}

#[test]
fn graph_flows_run_behind_their_rules_filter_and_share_it() {
    require!(Need::That("root, setpriv, useradd and the corpus", needs()));
    let (a, b) = (TempUser::new(), TempUser::new());
    let rule = "udp";
    let (d, _dir) = daemon(
        &format!(
            "[[rule]]\nname = \"udponly\"\nusers = [{}, {}]\nfilter = \"{rule}\"\n",
            a.uid, b.uid
        ),
        2,
    );
    // The graph alone would pass ICMP too; the rule's filter takes it away.
    // Its counter (element 4, passing nothing on) counts what reaches it.
    let g = r#"(device,afs) -> (pcap,"host 131.151.1.59") -> (pcap,"port 7021") | (pcap,"icmp") | (packetcount,,8)"#;
    let vars = [
        ("NETSIFTD_POLICY_GRAPH", g.to_string()),
        ("NETSIFTD_POLICY_COUNT", "4".to_string()),
    ];
    let mut peers = [
        Peer::spawn(&a, "drain", &d.socket, &vars),
        Peer::spawn(&b, "drain", &d.socket, &vars),
    ];
    for p in &mut peers {
        p.expect("ready");
    }
    let want = expected("(udp) and (host 131.151.1.59 and (port 7021 or icmp))");
    let graph_alone = expected("host 131.151.1.59 and (port 7021 or icmp)");
    assert!(!want.is_empty() && want.len() < graph_alone.len());
    let counted = kept("udp and host 131.151.1.59").len();
    assert!(counted < kept("host 131.151.1.59").len());
    for p in &mut peers {
        let got = packets(p);
        assert_eq!(got.len(), want.len());
        assert!(got == want, "the packets differ from libpcap's");
        let count = p.seen.iter().find_map(|l| l.strip_prefix("count "));
        assert_eq!(count, Some(format!("Ok(Some({counted}))").as_str()));
    }
    // One instance of the rule's filter, used by both users' flows.
    let view = d.client().graph("afs").unwrap();
    let ours: Vec<_> = view
        .instances
        .iter()
        .filter(|i| i.class == "pcap" && i.args == ["\"udp\""])
        .collect();
    assert_eq!(ours.len(), 1, "{:#?}", view.instances);
    assert_eq!(
        (ours[0].refs, ours[0].flows.len()),
        (2, 2),
        "{:#?}",
        ours[0]
    );
    assert!(
        ours[0].upstream.is_empty(),
        "it reads the source: {:#?}",
        ours[0]
    );
    assert_eq!(view.flows.len(), 2);
    assert!(view.flows.iter().all(|f| f.text == g), "{:#?}", view.flows);
    for mut p in peers {
        p.tell("end");
        p.finish();
    }
}

#[test]
fn each_graph_right_accepts_what_keeps_it_and_refuses_the_rest() {
    require!(Need::That("root, setpriv, useradd and the corpus", needs()));
    let user = TempUser::new();
    let (d, _dir) = daemon(
        &format!(
            "[[rule]]\nname = \"research\"\nusers = [{}]\n\
             classes = [\"pcap\", \"fpl\", \"sampler\", \"packetcount\", \"bytecount\"]\n\
             externs = [\"hash\"]\nelements = 4\nmbuf = 64\nfpl_cost = 100000\ninstances = 13\n\
             [[rule.require]]\nname = \"inside\"\nuses = [\"hash\", \"sampler\"]\n\
             after = \"udp\"\n\
             [[rule.require]]\nname = \"sampled\"\nuses = [\"bytecount\"]\n\
             after_class = \"sampler\"\n",
            user.uid
        ),
        1,
    );
    let hash = r#"(fpl,"R[0] = EXTERN(hash, 0, 24); RETURN 1;",32)"#;
    // Each graph, and what becomes of it: `ok`, or the refusal's start
    // after `err `create`: graph: refused by rule research: ` and its code.
    let cases: [(String, &str, &str); 13] = [
        (r#"(device,afs) -> (pcap,"udp and port 7001") -> (sampler,2,4)"#.into(), "ok", ""),
        (
            r#"(device,afs) -> (pcap,"udp") | (pcap,"port 7001") -> (sampler,2,4)"#.into(),
            "requirement inside: element 4 (sampler) at byte 53 is of class sampler, which may \
             stand only downstream of a pcap filter that restricts to \"udp\"; the path 1 -> 3 \
             -> 4 has none",
            "denied",
        ),
        (
            r#"(device,afs) -> (bpf,"1,6 0 0 65535")"#.into(),
            "element 2 (bpf) at byte 16: class bpf is not in its classes",
            "denied",
        ),
        (
            r#"(device,afs) -> (pcap,"udp") -> (fpl,"RETURN EXTERN(checksums_ok, 0, 0);")"#.into(),
            "element 3 (fpl) at byte 32: the external function checksums_ok is not in its externs",
            "denied",
        ),
        (format!(r#"(device,afs) -> (pcap,"udp") -> {hash}"#), "ok", ""),
        (
            format!(r#"(device,afs) -> {hash}"#),
            "requirement inside: element 2 (fpl) at byte 16 calls the external function hash",
            "denied",
        ),
        (
            r#"(device,afs) -> (pcap,"udp") -> (pcap,"port 1") -> (pcap,"port 2") -> (packetcount)"#
                .into(),
            "5 elements, at most 4",
            "limit",
        ),
        (
            r#"(device,afs) -> (fpl,"RETURN 1;",72)"#.into(),
            "72 bytes of MBuf, at most 64",
            "limit",
        ),
        (
            r#"(device,afs) -> (fpl,"FOR (R[0] = 0; R[0] < 60000; R[0]++) R[1]++; ROF RETURN 1;")"#
                .into(),
            "element 2 (fpl) at byte 16: a worst case of",
            "limit",
        ),
        (
            r#"(device,afs) -> (pcap,"udp") -> (bytecount)"#.into(),
            "requirement sampled: element 3 (bytecount) at byte 32 is of class bytecount, which \
             may stand only downstream of an element of class sampler; the path 1 -> 2 -> 3 has \
             none",
            "denied",
        ),
        (
            r#"(device,afs) -> (pcap,"udp") -> (sampler,2,4) -> (bytecount)"#.into(),
            "ok",
            "",
        ),
        // Ten elements held by the three flows made: three more make 13.
        (r#"(device,afs) -> (pcap,"udp") -> (packetcount)"#.into(), "ok", ""),
        (
            r#"(device,afs) -> (packetcount)"#.into(),
            "2 elements with the user's other graph flows' 13, at most 13",
            "limit",
        ),
    ];
    let texts: Vec<&str> = cases.iter().map(|c| c.0.as_str()).collect();
    let vars = [("NETSIFTD_POLICY_GRAPHS", texts.join("\n"))];
    let mut p = Peer::spawn(&user, "graphs", &d.socket, &vars);
    for (i, (text, want, code)) in cases.iter().enumerate() {
        let got = p.expect(&format!("graph{}", i + 1));
        if *want == "ok" {
            assert_eq!(got, "ok", "{text}");
            continue;
        }
        let head = "err `create`: graph: refused by rule research: ";
        assert!(
            got.starts_with(&format!("{head}{want}")) && got.ends_with(&format!("({code})")),
            "{text}: {got}"
        );
    }
    p.expect("checked");
    p.tell("end");
    p.finish();
}

#[test]
fn a_policy_naming_what_the_daemon_does_not_know_stops_it_at_start() {
    require!(Need::That("root, setpriv, useradd and the corpus", needs()));
    let dir = tempfile::tempdir().unwrap();
    let afs = format!("afs={}", afs().display());
    let cases = [
        (
            "classes = [\"pcap\", \"sampler\", \"smapler\"]\n",
            "policy.toml:4:31: no class \"smapler\"",
        ),
        (
            "externs = [\"aho_corasic\"]\n",
            "policy.toml:4:12: no external function of kind",
        ),
        (
            "[[rule.require]]\nuses = [\"aho_corasick\"]\nafter = \"net 10.1.0.0/16 and\"\n",
            "policy.toml:6:9: after: filter \"net 10.1.0.0/16 and\"",
        ),
    ];
    for (tail, want) in cases {
        let file = dir.path().join("policy.toml");
        std::fs::write(
            &file,
            format!("[[rule]]\nname = \"r\"\nusers = [1]\n{tail}"),
        )
        .unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_netsiftd"))
            .arg("--socket")
            .arg(dir.path().join("s.sock"))
            .args(["--file", &afs, "--policy"])
            .arg(&file)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let until = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(st) = child.try_wait().unwrap() {
                break st;
            }
            if Instant::now() > until {
                let _ = child.kill();
                panic!("netsiftd started with a bad policy ({tail:?})");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert!(!status.success());
        assert!(err.contains(want), "{tail:?}: {err}");
    }
}

/// Behind a rule's filter a client's elements keep the numbers it wrote:
/// `element` 1 reads its own first filter (not the device the rule's filter
/// shifted there), IBuf entries carry the client's element numbers, and an
/// instance read by its id (found through the `graph` verb, which numbers
/// instances, not elements) delivers what the element that runs it does,
/// under the client's number too.
#[test]
fn behind_a_rules_filter_elements_and_classes_are_the_clients() {
    require!(Need::That("root, setpriv, useradd and the corpus", needs()));
    let user = TempUser::new();
    let (d, _dir) = daemon(
        &format!(
            "[[rule]]\nname = \"udponly\"\nusers = [{}]\nfilter = \"udp\"\n",
            user.uid
        ),
        3,
    );
    let host = "host 131.151.1.59";
    let g =
        format!(r#"(device,afs) -> (pcap,"{host}") -> (pcap,"port 7021") | (pcap,"port 1799")"#);
    let serve = |element: Option<u32>, instance: Option<u64>| {
        let vars = [
            // By id, the daemon takes the graph of the flow that runs it.
            (
                "NETSIFTD_POLICY_GRAPH",
                if instance.is_some() {
                    String::new()
                } else {
                    g.clone()
                },
            ),
            (
                "NETSIFTD_POLICY_ELEMENT",
                element.map(|e| e.to_string()).unwrap_or_default(),
            ),
            (
                "NETSIFTD_POLICY_INSTANCE",
                instance.map(|i| i.to_string()).unwrap_or_default(),
            ),
        ];
        let mut p = Peer::spawn(&user, "serve", &d.socket, &vars);
        p.expect("ready");
        p
    };
    let mut inner = serve(Some(1), None);
    let mut last = serve(None, None);
    // The host filter's instance, as root sees the running graph.
    let view = d.client().graph("afs").unwrap();
    let id = view
        .instances
        .iter()
        .find(|i| i.args == [format!("{host:?}")])
        .unwrap_or_else(|| panic!("{:#?}", view.instances))
        .id;
    let mut by_id = serve(None, Some(id));
    wait_stats(&d.client(), "playback", |s| s.sources[0].finished);

    // libpcap's packets, each with the element that passes it.
    let classed = |expr: &str, class: &dyn Fn(&Got) -> u32| -> Vec<(u32, String)> {
        kept(expr).iter().map(|p| (class(p), shown(p))).collect()
    };
    let one = classed(&format!("udp and {host}"), &|_| 1);
    assert!(one.len() < kept("udp").len() && one.len() < kept(host).len());
    same(&inner.drained(), &one, "element 1");
    same(&by_id.drained(), &one, &format!("instance {id}"));
    // The first last element that passes it: 2 (port 7021), else 3.
    let lt = netsift_oracle::Capture::open(&afs()).unwrap().linktype();
    let p7021 = netsift_oracle::Filter::compile(lt, "port 7021").unwrap();
    let want = classed(
        &format!("udp and {host} and (port 7021 or port 1799)"),
        &|(data, wire, _)| if p7021.accepts(data, *wire) { 2 } else { 3 },
    );
    let classes: Vec<u32> = want.iter().map(|w| w.0).collect();
    assert!(classes.contains(&2) && classes.contains(&3), "{classes:?}");
    same(&last.drained(), &want, "the last elements");
    for mut p in [inner, last, by_id] {
        p.tell("end");
        p.finish();
    }
}

/// On interfaces (`va` and `vc`, root and bpf(2) needed): a graph over
/// several devices behind a rule's filter is refused (the rule's filter
/// reads the home interface only) and leaves nothing. Then, while root's
/// graph on `va` also reads `vc` (so `vc`'s packets run through the same
/// running graph): a user's device behind the rule's filter delivers
/// exactly the UDP frames sent to `va`, none of `vc`'s; a user's counter
/// behind it runs in the kernel below the rule's filter and counts only
/// those frames; and root's device naming `vc` is not put in `va`'s kernel
/// program: its counter, in the daemon, counts every frame sent to `vc`
/// and none of `va`'s.
#[test]
fn behind_a_rules_filter_a_graph_on_an_interface_reads_it_alone() {
    require!(
        Need::That("root, setpriv, useradd and the corpus", needs()),
        Need::Netns,
        Need::Check(common::bpf())
    );
    let (one, two) = common::veth::two_interfaces();
    let user = TempUser::new();
    let (d, _dir) = iface_daemon(
        &one.a,
        &format!(
            "[[rule]]\nname = \"udponly\"\nusers = [{}]\nfilter = \"udp\"\n",
            user.uid
        ),
    );
    let root = d.client();
    let source = ("NETSIFTD_POLICY_SOURCE", "va".to_string());
    let both = "(device,va) | (device,vc) -> (packetcount,,8)";
    let vars = [source.clone(), ("NETSIFTD_POLICY_GRAPHS", both.to_string())];
    let mut p = Peer::spawn(&user, "graphs", &d.socket, &vars);
    let got = p.expect("graph1");
    assert!(
        got.contains("your rule puts the filter \"udp\" in front")
            && got.contains("several devices")
            && got.ends_with("(denied)"),
        "{got}"
    );
    p.expect("checked");
    let s = root.daemon_stats().unwrap();
    assert_eq!(s.flows, 0, "{s:#?}");
    assert!(s.sources.iter().all(|s| !s.running), "{s:#?}");
    p.tell("end");
    p.finish();

    let serve = |g: &str| {
        let vars = [source.clone(), ("NETSIFTD_POLICY_GRAPH", g.to_string())];
        let mut p = Peer::spawn(&user, "serve", &d.socket, &vars);
        let flow: u64 = p.expect("flow").parse().unwrap();
        p.expect("ready");
        (p, flow)
    };
    let (mut reader, _) = serve("(device,va)");
    let (mut counter, theirs) = serve("(device,va) -> (packetcount,,8)");
    let mut mine = root
        .create(&FlowSpec {
            source: "va".into(),
            graph: Some("(device,vc) -> (packetcount,,8)".into()),
            ..FlowSpec::default()
        })
        .unwrap();
    mine.instantiate().unwrap();
    mine.activate().unwrap();
    let v = root.graph("va").unwrap();
    let of = |flow: u64| -> Vec<(&str, &str)> {
        v.instances
            .iter()
            .filter(|i| i.flows.contains(&flow))
            .map(|i| (i.class.as_str(), i.runs.as_str()))
            .collect()
    };
    // The rule's filter and the device run in the daemon too (the reader's
    // flow takes what they pass), and again in the kernel for the counter.
    let below = [
        ("pcap", "daemon"),
        ("device", "daemon"),
        ("packetcount", "kernel"),
    ];
    assert_eq!(of(theirs), below, "{v:#?}");
    assert_eq!(
        of(mine.number()),
        [("device", "daemon"), ("packetcount", "daemon")]
    );
    let vc = v.instances.iter().find(|i| i.args == [r#""vc""#]).unwrap();
    assert!(vc.why.contains("another interface"), "{vc:#?}");

    // Frames of their own numbers to each interface.
    let frames = common::veth::mixed(320);
    let (to_va, to_vc) = frames.split_at(200);
    common::veth::send(&one, to_va);
    common::veth::send(&two, to_vc);
    // The UDP frames sent to `va` (`mixed`: all but every fourth), each as
    // the reader's flow delivers it, by element 0.
    let hex = |f: &Vec<u8>| f.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let want: Vec<(u32, String)> = to_va
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 4 != 3)
        .map(|(_, f)| (0, hex(f)))
        .collect();
    let counted = format!("Some({})", want.len());
    until("the user's count", || counter.count(1) == counted);
    let m = mine.mbuf(1).unwrap();
    until("root's count", || m.u64(0) == Some(to_vc.len() as u64));
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(counter.count(1), counted, "only the UDP frames sent to va");
    assert_eq!(
        m.u64(0),
        Some(to_vc.len() as u64),
        "only the frames sent to vc"
    );
    let got: Vec<(u32, String)> = reader
        .drained()
        .into_iter()
        .map(|(class, p)| (class, p.rsplit(' ').next().unwrap().to_string()))
        .collect();
    same(&got, &want, "the UDP frames sent to va, in order");
    for mut p in [reader, counter] {
        p.tell("end");
        p.finish();
    }
    mine.close().unwrap();
}

/// A graph right judges an `fpl` element with the filters it calls: an
/// external function a callee calls is the element's call (refused when
/// the rule does not list it, bound by a requirement on where it may
/// stand), and a callee's name is not an external function the rule must
/// list.
#[test]
fn a_graph_right_counts_what_a_called_filter_calls() {
    require!(Need::That("root, setpriv, useradd and the corpus", needs()));
    let user = TempUser::new();
    let (d, _dir) = daemon(
        &format!(
            "[[rule]]\nname = \"research\"\nusers = [{}]\n\
             classes = [\"pcap\", \"fpl\"]\nexterns = [\"hash\"]\n\
             [[rule.require]]\nname = \"inside\"\nuses = [\"hash\"]\nafter = \"udp\"\n",
            user.uid
        ),
        1,
    );
    let hash = r#"h = (fpl,"R[0] = EXTERN(hash, 0, 24); RETURN 1;",32);"#;
    let caller = r#"(fpl,"RETURN EXTERN(h, 0, 32);",40)"#;
    let sum = r#"h = (fpl,"RETURN EXTERN(checksums_ok, 0, 0);",8);"#;
    let cases = [
        (
            format!(r#"{sum} (device,afs) -> (pcap,"udp") -> {caller}"#),
            "element 3 (fpl) at byte B: the external function checksums_ok is not in its externs",
        ),
        (
            format!("{hash} (device,afs) -> {caller}"),
            "requirement inside: element 2 (fpl) at byte B calls the external function hash",
        ),
        (
            format!(r#"{hash} (device,afs) -> (pcap,"udp") -> {caller}"#),
            "ok",
        ),
    ];
    let texts: Vec<&str> = cases.iter().map(|c| c.0.as_str()).collect();
    let vars = [("NETSIFTD_POLICY_GRAPHS", texts.join("\n"))];
    let mut p = Peer::spawn(&user, "graphs", &d.socket, &vars);
    for (i, (text, want)) in cases.iter().enumerate() {
        let got = p.expect(&format!("graph{}", i + 1));
        if *want == "ok" {
            assert_eq!(got, "ok", "{text}");
            continue;
        }
        let at = text.find(caller).unwrap().to_string();
        let want = format!(
            "err `create`: graph: refused by rule research: {}",
            want.replace('B', &at)
        );
        assert!(
            got.starts_with(&want) && got.ends_with("(denied)"),
            "{text}: {got}"
        );
    }
    p.expect("checked");
    p.tell("end");
    p.finish();
}
