//! Zero copy through the real daemon (`--copy zero`): the interface's frames
//! land in an AF_XDP UMEM that is the flow group's PBuf, on a veth pair in
//! namespaces this test makes (nothing leaves them). The daemon runs in
//! namespace `a` on `va`; the test sends a capture's frames from `vb`.
//!
//! - Clients of a zero-copy group receive exactly what libpcap keeps for
//!   their filters, and the accounting is exact: per flow, delivered +
//!   dropped by reason = accepted; per source, frames seen + frames the
//!   kernel dropped = frames sent.
//! - A reader that does not read, under slow-reader preference, holds the
//!   frames back: the kernel drops new frames (counted), and the frames the
//!   reader has are never overwritten.
//! - A group whose rights do not grant zero copy is refused, by its rule.
//! - An interface with an address is refused, unless it is named a monitor
//!   port.

mod common;

use common::corpus;
use common::veth::{balanced, drain, flow, send, trace};
use netsift_ffpf::{Client, Flow, FlowSpec};
use netsift_testkit::daemon::{built, Daemon};
use netsift_testkit::netns::{exec, Side, VethPair};
use netsift_testkit::{require, Need};
use netsift_wire::LinkType;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn netsiftd() -> PathBuf {
    built(Path::new(env!("CARGO_BIN_EXE_netsiftd")))
}

/// Waits until the source has seen or lost `n` frames.
fn wait_frames(c: &Client, n: u64) -> netsift_ffpf::proto::SourceStats {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let s = c.daemon_stats().unwrap().sources.remove(0);
        if s.packets + s.kernel_dropped >= n {
            return s;
        }
        assert!(Instant::now() < until, "{n} frames not within 20 s: {s:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn pair() -> VethPair {
    VethPair::with_names("nszc", "va", "vb").unwrap_or_else(|e| panic!("veth pair: {e}"))
}

/// `netsiftd --iface va --copy zero` and `more`, in namespace `a`, and a
/// client of it.
fn zero_daemon(pair: &VethPair, more: &[&str]) -> (Daemon, Client) {
    let mut args = vec!["--iface", "va", "--copy", "zero"];
    args.extend(more);
    let d = Daemon::start(&netsiftd(), Some(&pair.a), &args);
    let c = Client::connect(&d.socket).unwrap();
    (d, c)
}

#[test]
fn clients_of_a_zero_copy_group_get_what_libpcap_keeps() {
    let path = corpus("afs.pcap");
    require!(Need::Netns, Need::File(&path));
    let frames = trace();
    let pair = pair();
    // Root without a policy file is trusted with the raw ring.
    let (_d, c) = zero_daemon(&pair, &["--pbuf-size", "4194304", "--ibuf-entries", "1024"]);
    let filters = ["udp port 7001", "len > 200", "udp port 7001", ""];
    let mut flows: Vec<Flow> = filters.iter().map(|f| flow(&c, f)).collect();
    let s = c.daemon_stats().unwrap().sources.remove(0);
    assert_eq!(
        (s.kind.as_str(), s.groups, s.distinct_filters),
        ("xdp", 1, 3)
    );
    // The socket is bound once the group exists: give it a moment.
    std::thread::sleep(Duration::from_millis(300));
    send(&pair, &frames);
    let s = wait_frames(&c, frames.len() as u64);
    assert_eq!(
        (s.packets, s.kernel_dropped),
        (frames.len() as u64, 0),
        "{s:?}"
    );
    // Zero copy: no packet byte was stored by the daemon.
    assert_eq!(s.stored, 0, "{s:?}");
    assert_eq!(s.filter_runs, 3 * s.batches, "{s:?}");
    for (f, expr) in flows.iter_mut().zip(filters) {
        let want: Vec<Vec<u8>> = match expr {
            "" => frames.clone(),
            e => {
                let o = netsift_oracle::Filter::compile(LinkType::EN10MB, e).unwrap();
                frames
                    .iter()
                    .filter(|p| o.accepts(p, p.len() as u32))
                    .cloned()
                    .collect()
            }
        };
        assert!(!want.is_empty() && want.len() <= frames.len());
        let got = drain(f);
        assert_eq!(got.len(), want.len(), "{expr:?}");
        assert!(got == want, "{expr:?}: bytes differ from libpcap's");
        let st = balanced(f);
        assert_eq!(
            (st.accepted, st.delivered),
            (want.len() as u64, want.len() as u64)
        );
    }
    // A filter that keeps some frames and not others (138 of 601), or this
    // tests little.
    let udp = flows[0].stats().unwrap().accepted;
    assert!(udp > 0 && udp < frames.len() as u64, "{udp}");
}

#[test]
fn the_kernel_redirects_only_what_some_flow_wants() {
    let path = corpus("afs.pcap");
    require!(Need::Netns, Need::File(&path));
    let frames = trace();
    let pair = pair();
    let (_d, c) = zero_daemon(&pair, &["--pbuf-size", "4194304", "--ibuf-entries", "1024"]);
    let filters = ["udp port 7001", "udp port 7000"];
    let mut flows: Vec<Flow> = filters.iter().map(|f| flow(&c, f)).collect();
    let s = c.daemon_stats().unwrap().sources.remove(0);
    assert_eq!(s.kernel_clauses, 2, "{s:?}");
    std::thread::sleep(Duration::from_millis(300));
    send(&pair, &frames);
    // What the union keeps, and nothing else, reaches the daemon: the rest
    // stays with the host stack.
    let ors = netsift_oracle::Filter::compile(LinkType::EN10MB, "udp port 7001 or udp port 7000")
        .unwrap();
    let union = frames
        .iter()
        .filter(|p| ors.accepts(p, p.len() as u32))
        .count() as u64;
    assert!(union > 0 && union < frames.len() as u64, "{union}");
    let s = wait_frames(&c, union);
    std::thread::sleep(Duration::from_millis(200));
    let s2 = c.daemon_stats().unwrap().sources.remove(0);
    assert_eq!((s2.packets, s2.kernel_dropped), (union, 0), "{s:?} {s2:?}");
    for (f, expr) in flows.iter_mut().zip(filters) {
        let o = netsift_oracle::Filter::compile(LinkType::EN10MB, expr).unwrap();
        let want: Vec<Vec<u8>> = frames
            .iter()
            .filter(|p| o.accepts(p, p.len() as u32))
            .cloned()
            .collect();
        assert!(drain(f) == want, "{expr:?}: not what libpcap keeps");
        balanced(f);
    }
}

/// What a run with a reader that does not read leaves: a daemon on a
/// 32-frame UMEM under `prefer`, one flow with no filter, and 200 frames
/// sent, seen or dropped by the kernel.
struct Unread {
    pair: VethPair,
    _d: Daemon,
    c: Client,
    f: Flow,
    frames: Vec<Vec<u8>>,
    s: netsift_ffpf::proto::SourceStats,
}

fn unread(prefer: &str, ibuf_entries: &str) -> Unread {
    let frames = trace();
    let pair = pair();
    let args = [
        "--prefer",
        prefer,
        "--pbuf-size",
        "65536",
        "--ibuf-entries",
        ibuf_entries,
    ];
    let (d, c) = zero_daemon(&pair, &args);
    let f = flow(&c, "");
    std::thread::sleep(Duration::from_millis(300));
    send(&pair, &frames[..200]);
    let s = wait_frames(&c, 200);
    Unread {
        pair,
        _d: d,
        c,
        f,
        frames,
        s,
    }
}

#[test]
fn a_slow_reader_holds_the_frames_back_and_the_kernel_drops_count() {
    let path = corpus("afs.pcap");
    require!(Need::Netns, Need::File(&path));
    let Unread {
        pair,
        _d,
        c,
        mut f,
        frames,
        s,
    } = unread("slow", "64");
    let first = &frames[..200];
    // The reader read nothing: the kernel got no frame back, and dropped
    // what found none free.
    assert_eq!(s.packets, 32, "{s:?}");
    assert_eq!(s.kernel_dropped, 200 - 32, "{s:?}");
    // What it holds is the first 32 frames, whole: none was overwritten.
    let got = drain(&mut f);
    assert!(got[..] == first[..32], "the held frames changed");
    let st = balanced(&mut f);
    assert_eq!((st.accepted, st.delivered, st.overwritten), (32, 32, 0));
    // Read, the frames go back to the kernel, and new ones arrive.
    std::thread::sleep(Duration::from_millis(100));
    let more = &frames[200..220];
    send(&pair, more);
    let s = wait_frames(&c, 220);
    assert_eq!((s.packets, s.kernel_dropped), (52, 168), "{s:?}");
    let got = drain(&mut f);
    assert!(got[..] == more[..], "the frames after the reader caught up");
    let st = balanced(&mut f);
    assert_eq!((st.accepted, st.delivered), (52, 52));
}

#[test]
fn a_slow_reader_under_fast_reader_preference_is_lapped_and_counts_it() {
    let path = corpus("afs.pcap");
    require!(Need::Netns, Need::File(&path));
    // Fast-reader preference: frames go back to the kernel once half a
    // ring behind the newest, read or not.
    // (Every field bound: the pair and the daemon live to the end.)
    let Unread {
        pair: _pair,
        _d,
        c: _c,
        mut f,
        frames,
        s,
    } = unread("fast", "256");
    let sent = &frames[..200];
    assert_eq!(s.packets + s.kernel_dropped, 200, "{s:?}");
    assert!(s.packets > 32, "the kernel got frames back: {s:?}");
    // The kernel holds half the ring at all times; the newest half stays
    // the reader's. So the reader, which read nothing until now, finds all
    // but the last 16 frames overwritten, and those 16 whole and in order.
    let got = drain(&mut f);
    let st = balanced(&mut f);
    assert_eq!(st.accepted, s.packets, "{st:?}");
    assert_eq!(
        (st.delivered, st.overwritten),
        (16, s.packets - 16),
        "{st:?}"
    );
    assert_eq!(got.len(), 16);
    let mut at = 0;
    for p in &got {
        at += sent[at..]
            .iter()
            .position(|q| q == p)
            .expect("a delivered frame that was sent, after the one before it");
    }
}

/// A policy file in a temporary directory.
fn policy(text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("policy.toml");
    std::fs::write(&p, text).unwrap();
    let s = p.display().to_string();
    (dir, s)
}

#[test]
fn zero_copy_is_refused_without_the_policys_grant() {
    require!(Need::Netns);
    let pair = pair();
    let (_dir, plain) = policy("[[rule]]\nname = \"ops\"\nusers = [0]\n");
    let (d, c) = zero_daemon(&pair, &["--policy", &plain]);
    let mut f = c
        .create(&FlowSpec {
            source: "va".into(),
            ..FlowSpec::default()
        })
        .unwrap();
    let e = f.instantiate().unwrap_err().to_string();
    assert!(
        e.contains("zero copy refused by rule ops") && e.contains("copy = \"zero\""),
        "{e}"
    );
    assert_eq!(c.daemon_stats().unwrap().sources[0].groups, 0);
    drop((f, c, d));
    // The same rule with the grant: a zero-copy group.
    let (_dir2, granted) = policy("[[rule]]\nname = \"ops\"\nusers = [0]\ncopy = \"zero\"\n");
    let (_d, c) = zero_daemon(&pair, &["--policy", &granted, "--pbuf-size", "65536"]);
    let _f = flow(&c, "");
    let s = c.daemon_stats().unwrap().sources.remove(0);
    assert_eq!((s.kind.as_str(), s.groups, s.flows), ("xdp", 1, 1));
}

#[test]
fn an_interface_with_an_address_is_refused_unless_a_monitor_port() {
    let path = corpus("afs.pcap");
    require!(Need::Netns, Need::File(&path));
    let pair = pair();
    pair.add_address(Side::A, "10.77.0.1/24");
    let dir = tempfile::tempdir().unwrap();
    let out = exec(&pair.a, netsiftd())
        .arg("--socket")
        .arg(dir.path().join("s"))
        .args(["--iface", "va", "--copy", "zero"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "started: {err}");
    assert!(
        err.contains("--copy zero on va: it has address 10.77.0.1")
            && err.contains("host stack")
            && err.contains("--monitor-port va"),
        "{err}"
    );
    // Named a monitor port, it is the administrator's call.
    // (With a snap length: records keep 64 bytes and the wire length.)
    let (_d, c) = zero_daemon(&pair, &["--monitor-port", "va", "--snaplen", "64"]);
    let mut f = flow(&c, "");
    std::thread::sleep(Duration::from_millis(300));
    let frames = trace();
    send(&pair, &frames[..10]);
    wait_frames(&c, 10);
    let r = f.reader().unwrap();
    for sent in &frames[..10] {
        let p = r.getnext().unwrap().expect("a frame sent");
        assert_eq!(p.data, &sent[..sent.len().min(64)]);
        assert_eq!(p.wirelen as usize, sent.len());
    }
    assert!(r.getnext().unwrap().is_none());
}
