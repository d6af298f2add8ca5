//! What the daemon's tests share: this package's `netsiftd` started with the
//! test kit's [`Daemon`] (which also counts what it holds through /proc),
//! clients of it, flows made and drained, and the files they play.

#![allow(dead_code, unreachable_pub)]

pub mod graph;
pub mod veth;

use netsift_ffpf::{Client, Flow, FlowSpec};
pub use netsift_testkit::daemon::Daemon;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A corpus capture.
pub fn corpus(name: &str) -> PathBuf {
    netsift_testkit::corpus(env!("CARGO_MANIFEST_DIR"))
        .join("pcaps/tcpdump")
        .join(name)
}

/// The corpus capture most tests play (601 packets, UDP and TCP between a
/// few hosts).
pub fn afs() -> PathBuf {
    corpus("afs.pcap")
}

/// A daemon playing [`afs`] as source `afs`, with `args` after.
pub fn afs_daemon(args: &[&str]) -> Daemon {
    let src = format!("afs={}", afs().display());
    daemon(None, &[&["--file", src.as_str()][..], args].concat())
}

/// What libpcap's `pcap_offline_filter` keeps of [`afs`] for `expr`.
pub fn kept(expr: &str) -> Vec<Got> {
    let mut cap = netsift_oracle::Capture::open(&afs()).unwrap();
    let f = netsift_oracle::Filter::compile(cap.linktype(), expr).unwrap();
    let mut out = Vec::new();
    while let Some(p) = cap.next() {
        let p = p.unwrap();
        if f.accepts(&p.data, p.wire_len) {
            // A microsecond file: its time stamps in nanoseconds are exact.
            let ts = p.ts_sec as u64 * 1_000_000_000 + p.ts_usec as u64 * 1000;
            out.push((p.data.clone(), p.wire_len, ts));
        }
    }
    out
}

/// This test binary run again for its test `side` alone, its stdout piped:
/// a side does its part only when the test sets the variable it reads.
pub fn side(name: &str) -> Command {
    let mut c = Command::new(std::env::current_exe().expect("the test's path"));
    c.args([name, "--exact", "--nocapture", "--test-threads=1"])
        .stdout(Stdio::piped());
    c
}

/// Reads a side's output until it says `ready`; panics naming `who` if it
/// ends first.
pub fn until_ready(out: &mut impl BufRead, who: &str) {
    let mut line = String::new();
    while !line.contains("ready") {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "{who} ended early");
    }
}

/// A `netsiftd` of this package on a fresh socket with `args` (sources
/// and options), in namespace `ns` if given: the test kit's daemon, stopped
/// when dropped.
pub fn daemon(ns: Option<&str>, args: &[&str]) -> Daemon {
    Daemon::start(Path::new(env!("CARGO_BIN_EXE_netsiftd")), ns, args)
}

/// Whether bpf(2) makes maps here, which placing graph elements in the
/// kernel needs.
pub fn bpf() -> Result<(), String> {
    netsift_kernel::shared::Region::create(8)
        .map(drop)
        .map_err(|e| format!("bpf(2) maps: {e}"))
}

/// A client of the daemon.
pub trait Connect {
    /// A new connection to its socket.
    fn client(&self) -> Client;
}

impl Connect for Daemon {
    fn client(&self) -> Client {
        Client::connect(&self.socket).expect("connecting to netsiftd")
    }
}

/// A flow of `spec`, instantiated and activated.
pub fn activated(client: &Client, spec: &FlowSpec) -> Flow {
    let mut f = client
        .create(spec)
        .unwrap_or_else(|e| panic!("{spec:?}: {e}"));
    f.instantiate().unwrap();
    f.activate().unwrap();
    f
}

/// A flow with `filter` on `source`, instantiated and activated.
pub fn active_flow(client: &Client, source: &str, filter: &str) -> Flow {
    let spec = FlowSpec {
        source: source.into(),
        filter: filter.into(),
        ..FlowSpec::default()
    };
    activated(client, &spec)
}

/// A flow of `graph` on `source`, instantiated and activated.
pub fn graph_flow(client: &Client, source: &str, graph: &str) -> Flow {
    let spec = FlowSpec {
        source: source.into(),
        graph: Some(graph.into()),
        ..FlowSpec::default()
    };
    activated(client, &spec)
}

/// Why the daemon refuses a graph flow of `graph` on `source`; panics if
/// it accepts it.
pub fn refusal(client: &Client, source: &str, graph: &str) -> netsift_ffpf::Error {
    let spec = FlowSpec {
        source: source.into(),
        graph: Some(graph.into()),
        ..FlowSpec::default()
    };
    match client.create(&spec) {
        Ok(_) => panic!("{graph}: accepted"),
        Err(e) => e,
    }
}

/// Waits until `f` holds, for at most 10 s.
pub fn until(what: &str, mut f: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(10);
    while !f() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A packet as a test compares it: bytes, length on the wire, time stamp.
pub type Got = (Vec<u8>, u32, u64);

/// Every packet waiting in `flow`.
pub fn drain(flow: &mut Flow) -> Vec<Got> {
    let r = flow.reader().unwrap();
    let mut out = Vec::new();
    while let Some(p) = r.getnext().unwrap() {
        out.push((p.data.to_vec(), p.wirelen, p.ts_ns));
    }
    out
}

/// Waits until `f` holds of the daemon's figures, or panics with the last.
pub fn wait_stats(
    client: &Client,
    what: &str,
    f: impl Fn(&netsift_ffpf::proto::DaemonStats) -> bool,
) -> netsift_ffpf::proto::DaemonStats {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let s = client.daemon_stats().unwrap();
        if f(&s) {
            return s;
        }
        assert!(Instant::now() < until, "{what}: not within 20 s: {s:#?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Writes `n` numbered frames of about 200 bytes to `path`, one a millisecond
/// (at the file's timing a reader that reads has plenty of time), and
/// returns them.
pub fn numbered_file(path: &Path, n: usize) -> Vec<Vec<u8>> {
    let frames: Vec<Vec<u8>> = (0..n as u32)
        .map(|i| netsift_testkit::frames::numbered_udp(i, None, 150))
        .collect();
    write_frames(path, &frames);
    frames
}

/// Writes `frames` to `path` as an Ethernet pcap file, one a millisecond,
/// each whole.
pub fn write_frames(path: &Path, frames: &[Vec<u8>]) {
    use netsift_pcapio::{PcapWriter, TsPrecision};
    let f = std::fs::File::create(path).unwrap();
    let mut w = PcapWriter::new(
        f,
        netsift_wire::LinkType::EN10MB,
        262_144,
        TsPrecision::Micro,
    )
    .unwrap();
    for (i, fr) in frames.iter().enumerate() {
        let (sec, usec) = (i / 1000, (i % 1000) * 1000);
        w.write_packet(1_700_000_000 + sec as u32, usec as u32, fr, fr.len() as u32)
            .unwrap();
    }
    w.flush().unwrap();
}
