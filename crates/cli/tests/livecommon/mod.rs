//! What the live CLI tests share: starting a capture program in a namespace and
//! waiting until it listens, stopping it, and reading what it wrote.

#![allow(dead_code)]

use netsift_pcapio::{PcapWriter, TsPrecision};
use netsift_wire::LinkType;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The packets of a capture file: data and wire length.
pub fn packets(path: &Path) -> Vec<(Vec<u8>, u32)> {
    let mut r = netsift_pcapio::open(path).expect("capture file opens");
    let mut out = Vec::new();
    while let Some(p) = r.next_packet().expect("capture file reads") {
        out.push((p.data.to_vec(), p.orig_len));
    }
    out
}

/// Starts netsift in namespace `ns` with `args`, and waits until it listens.
pub fn start(ns: &str, args: &[&str]) -> (Child, Vec<String>) {
    start_program(ns, env!("CARGO_BIN_EXE_netsift"), args)
}

/// Starts `program` (netsift or tcpdump) in namespace `ns` with `args`, and waits
/// until it says it is listening; returns what it said up to then.
pub fn start_program(ns: &str, program: &str, args: &[&str]) -> (Child, Vec<String>) {
    let mut child = Command::new("ip")
        .args(["netns", "exec", ns, program])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("netsift starts");
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut lines = Vec::new();
    let mut line = String::new();
    while err.read_line(&mut line).unwrap() > 0 {
        lines.push(line.trim_end().to_string());
        if line.contains("listening on") {
            break;
        }
        line.clear();
    }
    assert!(
        lines.last().is_some_and(|l| l.contains("listening on")),
        "{lines:?}"
    );
    // The rest of stderr is drained as the process writes it, so it never blocks.
    std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = std::io::Read::read_to_string(&mut err, &mut rest);
    });
    (child, lines)
}

/// Waits up to `limit` for `child`; SIGINT if it is still running then.
pub fn wait(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let end = Instant::now() + limit;
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if Instant::now() > end {
            // SAFETY: kill(2) on our own child's pid.
            unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
            return child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub fn write_pcap(path: &Path, frames: &[Vec<u8>]) {
    let f = std::fs::File::create(path).unwrap();
    let mut w = PcapWriter::new(f, LinkType::EN10MB, 262_144, TsPrecision::Micro).unwrap();
    for (i, fr) in frames.iter().enumerate() {
        w.write_packet(1_700_000_000, i as u32, fr, fr.len() as u32)
            .unwrap();
    }
    w.flush().unwrap();
}
