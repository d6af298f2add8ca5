//! `netsift -r IN -w OUT --follow ftp`: the packets written are exactly the control
//! and data packets of a generated FTP trace, checked against the generator's ground
//! truth, with background traffic that must be left out.

use netsift_gen::ftp::{ftp_workload, Class, FtpConfig};
use netsift_gen::{write_pcap, GenPacket};
use std::path::Path;
use std::process::{Command, Output};

// The hostile captures are shared with netsift-follow's own tests.
#[path = "../../follow/tests/common/mod.rs"]
mod common;

fn netsift(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_netsift"))
        .args(args)
        .output()
        .expect("spawn netsift")
}

/// `netsift -r INPUT -w OUTPUT --follow PROTOCOLS EXTRA...`.
fn follow_file(input: &Path, output: &Path, protocols: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "-r",
        input.to_str().unwrap(),
        "-w",
        output.to_str().unwrap(),
        "--follow",
        protocols,
    ];
    args.extend_from_slice(extra);
    netsift(&args)
}

/// Runs the follower over a generated trace and compares what it wrote with the
/// truth, packet by packet.
fn follows_exactly(extra: &[&str]) {
    let cfg = FtpConfig {
        servers: 4,
        transfers: 6,
        duration_ns: 3_000_000_000,
        background_pps: 5_000,
        seed: 7,
        ..FtpConfig::default()
    };
    let w = ftp_workload(&cfg).expect("workload");
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("ftp.pcap");
    let output = dir.path().join("out.pcap");
    w.write_pcap(std::fs::File::create(&input).unwrap())
        .unwrap();
    let o = follow_file(&input, &output, "ftp", extra);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("followed: 24 announcements, 24 flows added"),
        "{err}"
    );

    let want: Vec<&[u8]> = w
        .packets
        .iter()
        .zip(&w.truth)
        .filter(|(_, c)| !matches!(c, Class::Background))
        .map(|(p, _)| p.data.as_slice())
        .collect();
    let background = w
        .truth
        .iter()
        .filter(|c| matches!(c, Class::Background))
        .count();
    assert!(
        background > 1000,
        "the trace must have background traffic to leave out"
    );
    let got = packets_of(&output);
    assert_eq!(
        got.len(),
        want.len(),
        "packets written vs control + data packets"
    );
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.as_slice(), *w, "packet {i} of the output differs");
    }
}

#[test]
fn ftp_follower_writes_exactly_control_and_data() {
    follows_exactly(&[]);
}

#[test]
fn ftp_follower_with_the_set_instruction_writes_the_same() {
    follows_exactly(&["--follow-set"]);
}

#[test]
fn unknown_protocol_is_refused() {
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/sample.pcap");
    let o = netsift(&["-r", sample, "--follow", "ftp,smtp"]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("unknown protocol \"smtp\""), "{e}");
}

/// The packets of a pcap file, in order.
fn packets_of(path: &Path) -> Vec<Vec<u8>> {
    let mut r = netsift_pcapio::open(path).expect("read output");
    let mut got = Vec::new();
    while let Some(rec) = r.next_record().expect("record") {
        got.push(rec.packet.data.to_vec());
    }
    got
}

/// The hostile captures (docs/follow.md), written as files: in both modes netsift writes
/// exactly the legitimate packets (so the two modes agree), and the `followed:`
/// line counts the refusals.
#[test]
fn hostile_captures_write_only_legitimate_packets_in_both_modes() {
    let dir = tempfile::tempdir().expect("temp dir");
    for case in common::hostile::cases() {
        let input = hostile_file(dir.path(), case.name);
        let want: Vec<&[u8]> = case
            .frames
            .iter()
            .filter(|(_, legit)| *legit)
            .map(|(f, _)| f.as_slice())
            .collect();
        for extra in [&[][..], &["--follow-set"][..]] {
            let output = dir.path().join("out.pcap");
            let o = follow_file(&input, &output, case.follow, extra);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(o.status.success(), "{}: {err}", case.name);
            let got = packets_of(&output);
            let got: Vec<&[u8]> = got.iter().map(Vec::as_slice).collect();
            assert_eq!(got.len(), want.len(), "{} {extra:?}: {err}", case.name);
            assert!(
                got == want,
                "{} {extra:?}: other packets written",
                case.name
            );
            let refused = case.name != "227 naming the server's port 22"
                && case.name != "announced port on the other side";
            assert_eq!(err.contains(" refused ("), refused, "{}: {err}", case.name);
        }
    }
}

/// Writes one hostile case as a pcap file in `dir` and returns its path.
fn hostile_file(dir: &Path, name: &str) -> std::path::PathBuf {
    let case = common::hostile::cases()
        .into_iter()
        .find(|c| c.name == name)
        .expect("a case of that name");
    let packets: Vec<GenPacket> = case
        .frames
        .iter()
        .enumerate()
        .map(|(i, (f, _))| GenPacket {
            // One microsecond apart, as the library test feeds them.
            ts_ns: 1_000 * (i as u64 + 1),
            orig_len: f.len() as u32,
            data: f.clone(),
        })
        .collect();
    let input = dir.join("case.pcap");
    write_pcap(std::fs::File::create(&input).unwrap(), &packets, 262144).unwrap();
    input
}

/// `--follow-loose` accepts a third-host address (the peer is still only the
/// control connection's client), and the cap options take effect.
#[test]
fn loose_and_cap_options_take_effect() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("out.pcap");
    let third = hostile_file(dir.path(), "third-host 227");
    let o = follow_file(&third, &out, "ftp", &["--follow-loose"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // 3 handshake + 1 reply, then the client's SSH to the third host (4); the
    // other host's SSH to it stays out.
    assert_eq!(packets_of(&out).len(), 8, "{err}");
    assert!(err.contains("1 announcements, 1 flows added"), "{err}");

    let flood = hostile_file(dir.path(), "flood of 227s, then a real transfer");
    let o = follow_file(&flood, &out, "ftp", &["--follow-max-flows", "0"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("0 flows added") && err.contains(" flow cap"),
        "{err}"
    );
    let o = follow_file(&flood, &out, "ftp", &["--follow-max-sessions", "1"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("1 flows added"), "{err}");
    let o = follow_file(&flood, &out, "ftp", &["--follow-max-per-session", "0"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("0 flows added") && err.contains("per-session cap"),
        "{err}"
    );
}
