//! `netsift flow` stalled (stopped with SIGSTOP) in a group under slow-reader
//! preference with a stall bound: netsiftd detaches it, and once it runs
//! again it says so in a line of its own and in its closing lines.
//!
//! `netsiftd` is built first and found beside `netsift`, as in `flow.rs`.

use netsift_ffpf::{Client, FlowSpec};
use netsift_pcapio::{PcapWriter, TsPrecision};
use netsift_testkit::live::Stopped;
use netsift_testkit::{require, Need};
use netsift_wire::LinkType;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `netsiftd`, beside `netsift`, built first (a stale daemon would test
/// old code).
fn netsiftd() -> PathBuf {
    netsift_testkit::daemon::built(Path::new(env!("CARGO_BIN_EXE_netsift")))
}

fn signal(pid: u32, sig: &str) {
    let st = Command::new("kill")
        .args([&format!("-{sig}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(st.success(), "kill -{sig} {pid}");
}

#[test]
fn a_stalled_netsift_flow_is_detached_and_says_so() {
    require!(Need::Command("kill"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("numbered.pcap");
    {
        let f = std::fs::File::create(&file).unwrap();
        let mut w = PcapWriter::new(f, LinkType::EN10MB, 262_144, TsPrecision::Micro).unwrap();
        for i in 0..1500u32 {
            let fr = netsift_testkit::frames::numbered_udp(i, None, 150);
            w.write_packet(
                1_700_000_000 + i / 1000,
                (i % 1000) * 1000,
                &fr,
                fr.len() as u32,
            )
            .unwrap();
        }
        w.flush().unwrap();
    }
    let sock = dir.path().join("netsift.sock");
    let _daemon = Stopped(
        Command::new(netsiftd())
            .arg("--socket")
            .arg(&sock)
            .arg("--file")
            .arg(format!("numbered={}", file.display()))
            .args([
                "--wait-flows",
                "2",
                "--prefer",
                "slow",
                "--pbuf-size",
                "65536",
            ])
            .args(["--stall-bytes", "8192"])
            .stdin(Stdio::null())
            .spawn()
            .expect("starting netsiftd"),
    );
    let until = Instant::now() + Duration::from_secs(20);
    let client = loop {
        match Client::connect(&sock) {
            Ok(c) => break c,
            Err(e) => assert!(Instant::now() < until, "netsiftd did not listen: {e}"),
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = dir.path().join("out.pcap");
    let mut flow = Stopped(
        Command::new(env!("CARGO_BIN_EXE_netsift"))
            .arg("flow")
            .arg("--socket")
            .arg(&sock)
            .args(["-i", "numbered", "-w"])
            .arg(&out)
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("netsift flow"),
    );
    let mut err = BufReader::new(flow.0.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    assert!(first.starts_with("listening on numbered"), "{first}");
    // Stalled: it reads nothing while the file plays.
    signal(flow.0.id(), "STOP");
    let mut live = client
        .create(&FlowSpec {
            source: "numbered".into(),
            ..FlowSpec::default()
        })
        .unwrap();
    live.instantiate().unwrap();
    live.activate().unwrap();
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let finished = client.daemon_stats().unwrap().sources[0].finished;
        let r = live.reader().unwrap();
        r.wait_for(1, Duration::from_millis(20)).unwrap();
        while r.getnext().unwrap().is_some() {}
        if finished {
            break;
        }
        assert!(Instant::now() < until, "the file did not play");
    }
    signal(flow.0.id(), "CONT");
    std::thread::sleep(Duration::from_millis(500));
    netsift_testkit::live::interrupt(flow.0.id());
    let st = flow.0.wait().unwrap();
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    assert!(st.success(), "{rest}");
    assert!(
        rest.lines()
            .any(|l| l.starts_with("netsift: netsiftd detached this flow for stalling its group")),
        "{rest}"
    );
    assert!(rest.contains("(detached for stalling)"), "{rest}");
}
