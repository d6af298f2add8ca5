//! Reading and writing files larger than the reader's and writer's buffers: the
//! output of `-w` (with and without `-c`), from a file or from standard input, and
//! a fault in the middle of the file, compared with the input itself and, where
//! installed, with tcpdump.

use netsift_gen::trace::{trace, TraceConfig};
use netsift_gen::write_pcap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn netsift(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_netsift"))
        .args(args)
        .output()
        .expect("spawn netsift")
}

fn have_tcpdump() -> bool {
    Command::new("tcpdump")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `tcpdump -r input -w out [args] expr`: (success, output bytes).
fn tcpdump(input: &Path, out: &Path, args: &[&str], expr: &str) -> (bool, Vec<u8>) {
    let _ = std::fs::remove_file(out);
    let o = Command::new("tcpdump")
        .arg("-r")
        .arg(input)
        .arg("-w")
        .arg(out)
        .args(args)
        .arg(expr)
        .output()
        .expect("spawn tcpdump");
    (o.status.success(), std::fs::read(out).unwrap_or_default())
}

/// A trace of full frames (up to 1514 bytes), several MiB: many records straddle
/// the 1 MiB buffers.
fn big_trace(dir: &Path) -> (PathBuf, Vec<u8>) {
    let cfg = TraceConfig {
        packets: 12_000,
        snaplen: 65535,
        ..TraceConfig::default()
    };
    let bytes = write_pcap(Vec::new(), &trace(&cfg), 65535).unwrap();
    assert!(bytes.len() > 4 << 20, "{} bytes", bytes.len());
    let path = dir.join("big.pcap");
    std::fs::write(&path, &bytes).unwrap();
    (path, bytes)
}

/// Offsets of the records of a pcap file (after the 24-byte header).
fn record_offsets(bytes: &[u8]) -> Vec<usize> {
    let mut v = Vec::new();
    let mut at = 24;
    while at + 16 <= bytes.len() {
        v.push(at);
        let caplen = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap());
        at += 16 + caplen as usize;
    }
    v
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn large_file_written_as_tcpdump_writes_it() {
    let dir = tempfile::tempdir().unwrap();
    let (input, bytes) = big_trace(dir.path());
    let out = dir.path().join("out.pcap");
    let (inp, o) = (input.to_str().unwrap(), out.to_str().unwrap());

    // No filter: a little-endian 2.4 µs file comes back byte for byte.
    let r = netsift(&["-r", inp, "-w", o]);
    assert!(r.status.success(), "{}", stderr(&r));
    assert!(std::fs::read(&out).unwrap() == bytes, "copy of the input");

    // -c: the first N packets, and reading stops there.
    let offs = record_offsets(&bytes);
    let r = netsift(&["-r", inp, "-w", o, "-c", "5000"]);
    assert!(r.status.success(), "{}", stderr(&r));
    assert!(std::fs::read(&out).unwrap() == bytes[..offs[5000]]);
    // A file gets no closing statistics, as in tcpdump.
    assert!(!stderr(&r).contains("packets captured"), "{}", stderr(&r));

    if !have_tcpdump() {
        println!("tcpdump not found; compared with the input only");
        return;
    }
    let theirs = dir.path().join("theirs.pcap");
    for expr in ["ip", "tcp port 80 or udp", "not ip", "ip6 and len > 1000"] {
        let r = netsift(&["-r", inp, "-w", o, expr]);
        assert!(r.status.success(), "{expr}: {}", stderr(&r));
        let (ok, t) = tcpdump(&input, &theirs, &[], expr);
        assert!(ok);
        assert!(
            std::fs::read(&out).unwrap() == t,
            "{expr}: differs from tcpdump"
        );
    }
    for (c, expr) in [("1", "ip"), ("777", "tcp"), ("3000", "udp or arp")] {
        let r = netsift(&["-r", inp, "-w", o, "-c", c, expr]);
        assert!(r.status.success(), "{expr}: {}", stderr(&r));
        let (ok, t) = tcpdump(&input, &theirs, &["-c", c], expr);
        assert!(ok);
        assert!(
            std::fs::read(&out).unwrap() == t,
            "-c {c} {expr}: differs from tcpdump"
        );
    }
}

/// A bad record deep in the file (in the middle of a buffer): every packet before
/// it is written, the error names its offset, the exit status is 1.
#[test]
fn fault_in_the_middle_keeps_earlier_packets() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut bytes) = big_trace(dir.path());
    let offs = record_offsets(&bytes);
    let k = offs.iter().position(|&o| o > (2 << 20) + 1000).unwrap();
    let at = offs[k];
    bytes[at + 8..at + 12].copy_from_slice(&400_000u32.to_le_bytes());
    let bad = dir.path().join("bad.pcap");
    std::fs::write(&bad, &bytes).unwrap();
    let out = dir.path().join("out.pcap");
    let r = netsift(&["-r", bad.to_str().unwrap(), "-w", out.to_str().unwrap()]);
    assert!(!r.status.success());
    assert!(
        stderr(&r).contains(&format!("(at byte offset {at})")),
        "{}",
        stderr(&r)
    );
    assert!(
        std::fs::read(&out).unwrap() == bytes[..at],
        "every packet before the fault"
    );

    // Cut in the middle of a record's data, with a filter.
    let cut = dir.path().join("cut.pcap");
    std::fs::write(&cut, &bytes[..offs[k / 2] + 30]).unwrap();
    let r = netsift(&[
        "-r",
        cut.to_str().unwrap(),
        "-w",
        out.to_str().unwrap(),
        "ip",
    ]);
    assert!(!r.status.success());
    let msg = format!("(at byte offset {})", offs[k / 2]);
    assert!(stderr(&r).contains(&msg), "{}", stderr(&r));
    if have_tcpdump() {
        for (f, expr) in [(&bad, ""), (&cut, "ip")] {
            let r = netsift(&["-r", f.to_str().unwrap(), "-w", out.to_str().unwrap(), expr]);
            assert!(!r.status.success());
            let (ok, t) = tcpdump(f, &dir.path().join("t.pcap"), &[], expr);
            assert!(!ok);
            assert!(
                std::fs::read(&out).unwrap() == t,
                "{expr}: differs from tcpdump"
            );
        }
    }
}

/// `-r -` reads standard input, as tcpdump does; printing works from it too.
#[test]
fn reads_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let (input, _) = big_trace(dir.path());
    let (a, b) = (dir.path().join("a.pcap"), dir.path().join("b.pcap"));
    let r = netsift(&[
        "-r",
        input.to_str().unwrap(),
        "-w",
        a.to_str().unwrap(),
        "tcp",
    ]);
    assert!(r.status.success(), "{}", stderr(&r));

    let run_stdin = |args: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_netsift"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let data = std::fs::read(&input).unwrap();
        // Feed from a thread: the child may fill its stdout pipe meanwhile.
        let feeder = std::thread::spawn(move || {
            let _ = stdin.write_all(&data);
        });
        let o = child.wait_with_output().unwrap();
        feeder.join().unwrap();
        o
    };
    let r = run_stdin(&["-r", "-", "-w", b.to_str().unwrap(), "tcp"]);
    assert!(r.status.success(), "{}", stderr(&r));
    assert!(std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap());

    let r = run_stdin(&["-r", "-", "-c", "25", "udp"]);
    assert!(r.status.success(), "{}", stderr(&r));
    let out = String::from_utf8_lossy(&r.stdout);
    assert_eq!(out.lines().count(), 25, "{out}");
}

/// `-F FILE` reads the expression from a file with `#` comments, as tcpdump does, and
/// writes what the same expression on the command line writes; a missing file is an
/// error that names it.
#[test]
fn expression_from_a_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (input, _) = big_trace(dir.path());
    let file = dir.path().join("filter.txt");
    std::fs::write(
        &file,
        "# web and dns\ntcp port 80 # the web\n  or udp port 53\n",
    )
    .expect("write filter");
    let (a, b) = (dir.path().join("a.pcap"), dir.path().join("b.pcap"));
    let (i, f) = (input.to_str().unwrap(), file.to_str().unwrap());
    let o = netsift(&["-r", i, "-w", a.to_str().unwrap(), "-F", f]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = netsift(&[
        "-r",
        i,
        "-w",
        b.to_str().unwrap(),
        "tcp port 80 or udp port 53",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (a, b) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_eq!(a, b);
    assert!(
        record_offsets(&a).len() > 1,
        "the filter keeps some packets"
    );
    if have_tcpdump() {
        let out = dir.path().join("t.pcap");
        let (ok, t) = tcpdump(&input, &out, &["-F", f], "");
        assert!(ok);
        assert_eq!(t, a, "tcpdump -F writes the same");
    }
    let missing = dir.path().join("none.txt");
    let o = netsift(&["-r", i, "-F", missing.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("none.txt"), "{}", stderr(&o));
}
