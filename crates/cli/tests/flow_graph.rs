//! `netsift flow --graph` on netsiftd playing a corpus capture: the flow
//! prints what its graph passes (here the same lines as `netsift -r` with the
//! graph's filters joined by `and`), `--graph-dot` and `--graph-svg` write
//! the instantiated graph, `-d` prints each instance and its placement, and
//! `--element N` prints what element N passes.
//!
//! `netsiftd` is built first and found beside `netsift`, as in `flow.rs`.

use netsift_testkit::daemon::Daemon;
use netsift_testkit::{require, Need};
use std::path::{Path, PathBuf};
use std::process::Command;

fn netsiftd() -> PathBuf {
    netsift_testkit::daemon::built(Path::new(env!("CARGO_BIN_EXE_netsift")))
}

fn afs() -> PathBuf {
    netsift_testkit::corpus(env!("CARGO_MANIFEST_DIR")).join("pcaps/tcpdump/afs.pcap")
}

fn netsift(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_netsift"))
        .args(args)
        .env("TZ", "UTC")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// netsiftd playing the corpus capture once, as fast as it reads.
fn afs_daemon() -> Daemon {
    Daemon::start(
        &netsiftd(),
        None,
        &["--file", &format!("afs={}", afs().display()), "--fast"],
    )
}

/// What `netsift -n -r` prints of the corpus capture for `expr`.
fn read_afs(expr: &str) -> String {
    let (ok, out, err) = netsift(&["-n", "-r", afs().to_str().unwrap(), expr]);
    assert!(ok, "{err}");
    out
}

const GRAPH: &str = r#"(device,afs) -> (pcap,"udp") -> ((pcap,"port 7001") | (packetcount))"#;

#[test]
fn a_graph_flow_prints_what_its_graph_passes_and_draws_it() {
    require!(Need::File(&afs()));
    let d = afs_daemon();
    let sock = d.socket.to_str().unwrap();
    let want = read_afs("udp and port 7001");
    let n = want.lines().count();
    assert!(n > 0);
    let dir = tempfile::tempdir().unwrap();
    let (dot, svg) = (dir.path().join("g.dot"), dir.path().join("g.svg"));
    // A flow on the file, its packets as lines.
    let on_afs = ["flow", "--socket", sock, "-i", "afs", "-n"];
    let mut args = on_afs.to_vec();
    args.extend(["--graph", GRAPH, "--graph-dot"]);
    let count = n.to_string();
    args.extend([dot.to_str().unwrap(), "-c", &count]);
    let with_svg = netsift_testkit::skip::all_met(&[Need::Command("dot")]);
    if with_svg {
        args.extend(["--graph-svg", svg.to_str().unwrap()]);
    }
    let (ok, got, err) = netsift(&args);
    assert!(ok, "{err}");
    assert_eq!(got, want, "{err}");
    let dot = std::fs::read_to_string(&dot).unwrap();
    for part in [
        "digraph ffpf",
        "cluster_flow",
        "pcap #2",
        "c_packetcount",
        "style=dashed",
    ] {
        assert!(dot.contains(part), "{part} missing from {dot}");
    }
    if with_svg {
        let svg = std::fs::read_to_string(&svg).unwrap();
        assert!(svg.contains("<svg") && svg.contains("packetcount"), "{svg}");
    }

    // -d: the instances and where each runs, then exit.
    let (ok, out, err) = netsift(&[
        "flow", "--socket", sock, "-i", "afs", "-d", "--graph", GRAPH,
    ]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("flow ") && lines[0].contains(GRAPH),
        "{out}"
    );
    // The flow, then each instance with why it runs where it does (a
    // capture file has no kernel below the daemon).
    assert_eq!(lines.len(), 9, "{out}");
    assert!(lines[3].contains("pcap \"udp\"") && lines[3].ends_with("could run in the kernel"));
    assert!(lines[7].contains("packetcount") && lines[7].ends_with("could run in the daemon"));
    assert!(lines[8].starts_with("    why: "), "{out}");

    // Bad text: the error with its position, exit status 1.
    let (ok, _, err) = netsift(&[
        "flow",
        "--socket",
        sock,
        "-i",
        "afs",
        "--graph",
        "(pcap,udp",
    ]);
    assert!(!ok && err.contains("column"), "{err}");
    let (ok, _, err) = netsift(&[
        "flow", "--socket", sock, "-i", "afs", "--graph", GRAPH, "tcp",
    ]);
    assert!(!ok && err.contains("takes no expression"), "{err}");

    // --element N: what element N passes (the graph's `udp` filter), not
    // its last elements; an element past the graph is refused, naming the
    // field.
    let want = read_afs("udp");
    let count = want.lines().count().to_string();
    let flow = |element: &str| {
        let mut args = on_afs.to_vec();
        args.extend(["-c", &count, "--element", element, "--graph", GRAPH]);
        netsift(&args)
    };
    let (ok, got, err) = flow("1");
    assert!(ok, "{err}");
    assert_eq!(got, want, "{err}");
    let (ok, _, err) = flow("4");
    assert!(!ok && err.contains("field `element`: 4"), "{err}");
}
