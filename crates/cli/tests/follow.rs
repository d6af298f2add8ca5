//! `netsift -r IN -w OUT --follow ftp`: the packets written are exactly the control
//! and data packets of a generated FTP trace, checked against the generator's ground
//! truth, with background traffic that must be left out.

use netsift_bench::{ftp_workload, Class, FtpConfig};
use std::process::{Command, Output};

fn netsift(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_netsift"))
        .args(args)
        .output()
        .expect("spawn netsift")
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
    let mut args = vec![
        "-r",
        input.to_str().unwrap(),
        "-w",
        output.to_str().unwrap(),
        "--follow",
        "ftp",
    ];
    args.extend_from_slice(extra);
    let o = netsift(&args);
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
    let mut r = netsift_pcapio::open(&output).expect("read output");
    let mut got = Vec::new();
    while let Some(rec) = r.next_record().expect("record") {
        got.push(rec.packet.data.to_vec());
    }
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
