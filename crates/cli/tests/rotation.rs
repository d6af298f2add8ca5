//! `-w` with `-C`, `-G` and `-W` against tcpdump 4.99 on the same input: the same
//! file names, the same bytes in each (so the same packets in the same files), and
//! every file readable by `tcpdump -r`. Also `-U` and a filter with rotation.
//! Without tcpdump, only netsift's own names and split are checked.

mod common;

use common::run;
use netsift_testkit::skip::has_command;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A pcap file of `n` Ethernet/IPv4/UDP frames of 60 to 1514 bytes (about
/// n * 800 bytes), every third one TCP, time stamps 1 ms apart.
fn trace(path: &Path, n: u32) {
    let mut b = Vec::new();
    b.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&4u16.to_le_bytes());
    b.extend_from_slice(&[0; 8]);
    b.extend_from_slice(&65535u32.to_le_bytes());
    b.extend_from_slice(&1u32.to_le_bytes());
    let mut x = 12345u32;
    for i in 0..n {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        let len = 60 + (x >> 8) as usize % 1455;
        let mut f = vec![0u8; len];
        f[..6].copy_from_slice(&[0, 1, 2, 3, 4, 5]);
        f[6..12].copy_from_slice(&[6, 7, 8, 9, 10, 11]);
        f[12..14].copy_from_slice(&[0x08, 0x00]);
        let ip_len = (len - 14) as u16;
        f[14] = 0x45;
        f[16..18].copy_from_slice(&ip_len.to_be_bytes());
        f[22] = 64;
        f[23] = if i % 3 == 0 { 6 } else { 17 };
        f[26..30].copy_from_slice(&[10, 0, 0, 1]);
        f[30..34].copy_from_slice(&[10, 0, 0, 2]);
        let ts = 1_700_000_000_000u64 + u64::from(i);
        b.extend_from_slice(&((ts / 1000) as u32).to_le_bytes());
        b.extend_from_slice(&((ts % 1000 * 1000) as u32).to_le_bytes());
        b.extend_from_slice(&(len as u32).to_le_bytes());
        b.extend_from_slice(&(len as u32).to_le_bytes());
        b.extend_from_slice(&f);
    }
    std::fs::write(path, b).unwrap();
}

/// The files in `dir`, by name, with their bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// Runs netsift and (if installed) tcpdump with `-r input -w DIR/template args`,
/// each in a directory of its own; returns netsift's files, after checking that
/// tcpdump wrote the same names with the same bytes, and that tcpdump reads each.
fn compare(input: &Path, template: &str, args: &[&str]) -> BTreeMap<String, Vec<u8>> {
    let base = tempfile::tempdir().unwrap();
    let mut out = Vec::new();
    let progs: &[&str] = if has_command("tcpdump") {
        &[env!("CARGO_BIN_EXE_netsift"), "tcpdump"]
    } else {
        &[env!("CARGO_BIN_EXE_netsift")]
    };
    for (i, prog) in progs.iter().enumerate() {
        let dir = base.path().join(i.to_string());
        std::fs::create_dir(&dir).unwrap();
        let w = dir.join(template);
        let mut a = vec!["-r", input.to_str().unwrap(), "-w", w.to_str().unwrap()];
        if *prog == "tcpdump" {
            // As root, tcpdump would write as user tcpdump, into our directory.
            a.extend_from_slice(&["-Z", "root"]);
        }
        a.extend_from_slice(args);
        let o = run(prog, &a);
        assert!(
            o.status.success(),
            "{prog} {a:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        out.push(files(&dir));
    }
    if let [ours, theirs] = &out[..] {
        let names = |m: &BTreeMap<String, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
        assert_eq!(names(ours), names(theirs), "{args:?}: file names");
        for (name, bytes) in ours {
            assert!(
                *bytes == theirs[name],
                "{args:?}: {name} differs from tcpdump's"
            );
            let path = base.path().join("0").join(name);
            let o = run("tcpdump", &["-r", path.to_str().unwrap()]);
            assert!(o.status.success(), "tcpdump cannot read {name}");
        }
    }
    out.swap_remove(0)
}

/// Packets in a pcap file written by netsift (little-endian, microseconds).
fn packets(bytes: &[u8]) -> usize {
    let (mut at, mut n) = (24, 0);
    while at + 16 <= bytes.len() {
        let caplen = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap());
        at += 16 + caplen as usize;
        n += 1;
    }
    assert_eq!(at, bytes.len(), "a whole number of records");
    n
}

fn input(dir: &Path) -> PathBuf {
    let p = dir.join("in.pcap");
    trace(&p, 4000);
    p
}

#[test]
fn size_rotation_names_and_splits_as_tcpdump() {
    let dir = tempfile::tempdir().unwrap();
    let input = input(dir.path());
    let total = std::fs::metadata(&input).unwrap().len();
    // -C 1: out, out1, out2, ...; each file passes 1,000,000 bytes by one packet.
    let f = compare(&input, "out", &["-C", "1"]);
    let expect = total.div_ceil(1_000_000) as usize;
    assert!(
        f.len() >= expect - 1 && f.len() <= expect + 1,
        "{:?}",
        f.keys()
    );
    assert!(f.contains_key("out") && f.contains_key("out1") && !f.contains_key("out0"));
    assert_eq!(f.values().map(|b| packets(b)).sum::<usize>(), 4000);
    for (name, b) in &f {
        let last_start = b.len() - 16 - 1514;
        assert!(
            b.len() <= 1_000_000 + 16 + 1514 && (last_start <= 1_000_000 || name == "out"),
            "{name}: {} bytes",
            b.len()
        );
    }
    // -W 2: a ring of out0 and out1, the last files written over.
    let f = compare(&input, "out", &["-C", "1", "-W", "2"]);
    assert_eq!(f.keys().collect::<Vec<_>>(), ["out0", "out1"]);
    // -W 11: two digits.
    let f = compare(&input, "out", &["-C", "1", "-W", "11"]);
    assert!(
        f.contains_key("out00") && f.contains_key("out01"),
        "{:?}",
        f.keys()
    );
    // With a filter and -U (packet-buffered: same bytes, flushed as it goes).
    compare(&input, "out", &["-C", "1", "-U", "udp"]);
}

#[test]
fn time_rotation_names_files_by_strftime() {
    let dir = tempfile::tempdir().unwrap();
    let input = input(dir.path());
    // -G: the name is strftime(3) of the local time the file was opened; the
    // input is read in well under an hour, so one file.
    let f = compare(&input, "out-%Y-%m-%d_%H", &["-G", "3600"]);
    assert_eq!(f.len(), 1, "{:?}", f.keys());
    let name = f.keys().next().unwrap();
    assert!(name.starts_with("out-20") && !name.contains('%'), "{name}");
    assert_eq!(packets(&f[name]), 4000);
    // -G with -C: numbered within the time slot.
    let f = compare(&input, "out-%Y", &["-G", "3600", "-C", "1"]);
    assert!(f.len() > 2, "{:?}", f.keys());
    // -G with -W: at most W files (one here).
    let f = compare(&input, "out-%Y", &["-G", "3600", "-W", "3"]);
    assert_eq!(f.len(), 1);
    // Without -G, % is no format.
    let f = compare(&input, "out-%Y", &["-C", "1"]);
    assert!(f.contains_key("out-%Y"), "{:?}", f.keys());
}

#[test]
fn bad_rotation_values_are_refused_as_tcpdump_refuses_them() {
    let dir = tempfile::tempdir().unwrap();
    let input = input(dir.path());
    let w = dir.path().join("o");
    for (flag, value, msg) in [
        ("-C", "0", "invalid file size 0"),
        ("-C", "1k", "invalid file size 1k"),
        ("-W", "0", "invalid number of output files 0"),
        ("-G", "-1", "invalid number of seconds -1"),
    ] {
        let o = run(
            env!("CARGO_BIN_EXE_netsift"),
            &[
                "-r",
                input.to_str().unwrap(),
                "-w",
                w.to_str().unwrap(),
                flag,
                value,
            ],
        );
        assert!(!o.status.success(), "{flag} {value}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(msg), "{flag} {value}: {err}");
    }
}

/// `-G 1` over real time: packets read from a pipe with a pause of more than a
/// second in the middle go to two files, split at the pause, each a whole pcap
/// (names by strftime of the second each file was opened).
#[test]
fn time_rotation_splits_at_a_pause() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("in.pcap");
    trace(&whole, 20);
    let bytes = std::fs::read(&whole).unwrap();
    // The header and the first ten records, then the rest after the pause.
    let mut at = 24;
    for _ in 0..10 {
        let len = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        at += 16 + len;
    }
    let out = dir.path().join("g-%H%M%S.pcap");
    let mut child = Command::new(env!("CARGO_BIN_EXE_netsift"))
        .args(["-r", "-", "-G", "1", "-w"])
        .arg(&out)
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&bytes[..at]).unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2300));
    stdin.write_all(&bytes[at..]).unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let f = files(dir.path());
    let made: Vec<(&String, usize)> = f
        .iter()
        .filter(|(n, _)| n.starts_with("g-"))
        .map(|(n, b)| (n, packets(b)))
        .collect();
    assert_eq!(made.len(), 2, "{made:?}");
    assert_eq!(
        made.iter().map(|(_, p)| *p).collect::<Vec<_>>(),
        [10, 10],
        "{made:?}"
    );
}
