//! Bad input from the command line: a clear error, a non-zero exit, and no lost data.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn netsift(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_netsift"))
        .args(args)
        .output()
        .expect("spawn netsift")
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/sample.pcap")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn bad_expression_names_the_column() {
    let s = sample();
    let o = netsift(&["-r", s.to_str().unwrap(), "tcp", "port", "70000"]);
    assert!(!o.status.success());
    let e = stderr(&o);
    let line = e
        .lines()
        .find(|l| l.starts_with("netsift: "))
        .expect("an error line");
    assert!(line.contains("70000") && line.contains("column 10"), "{e}");
    assert!(e.contains("^^^^^"), "caret under the number: {e}");

    let o = netsift(&["-d", "host", "and", "or"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("syntax error"), "{}", stderr(&o));
}

#[test]
fn bad_files_are_refused_with_an_offset() {
    let dir = std::env::temp_dir().join(format!("netsift-err-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.pcap");
    std::fs::write(&empty, b"").unwrap();
    let o = netsift(&["-r", empty.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("empty"), "{}", stderr(&o));

    let junk = dir.join("junk.pcap");
    std::fs::write(&junk, b"GIF89a this is not a capture").unwrap();
    let o = netsift(&["-r", junk.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("byte offset"), "{}", stderr(&o));

    let o = netsift(&["-r", dir.join("missing.pcap").to_str().unwrap()]);
    assert!(!o.status.success());
    // One line, the OS's reason once, no byte offset for a file never opened.
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.starts_with("netsift: ") && e.contains("missing.pcap: No such file or directory"),
        "{e}"
    );
    assert!(!e.contains("os error"), "{e}");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(e.matches("No such file").count(), 1, "{e}");
    assert!(!e.contains("byte offset"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn packet_counts_are_positive_as_in_tcpdump() {
    let s = sample();
    for bad in ["0", "-1", "ten"] {
        let o = netsift(&["-r", s.to_str().unwrap(), "-c", bad]);
        assert!(!o.status.success(), "-c {bad}");
        assert!(
            stderr(&o).contains(&format!("invalid packet count {bad}")),
            "{}",
            stderr(&o)
        );
    }
    let o = netsift(&["-r", s.to_str().unwrap(), "-c", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 1);
}

/// A file cut in the middle of a record: the packets before the cut are written, the
/// exit status is non-zero, and the output equals tcpdump's.
#[test]
fn truncated_file_keeps_earlier_packets() {
    let dir = std::env::temp_dir().join(format!("netsift-trunc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bytes = std::fs::read(sample()).unwrap();
    let cut = dir.join("cut.pcap");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let ours = dir.join("ours.pcap");
    let o = netsift(&[
        "-r",
        cut.to_str().unwrap(),
        "-w",
        ours.to_str().unwrap(),
        "ip",
    ]);
    assert!(!o.status.success(), "a truncated file is an error");
    assert!(stderr(&o).contains("byte offset"), "{}", stderr(&o));
    let written = std::fs::read(&ours).unwrap();
    assert!(written.len() > 24, "packets before the fault are kept");
    let has_tcpdump = Command::new("tcpdump")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if has_tcpdump {
        let theirs = dir.join("theirs.pcap");
        let t = Command::new("tcpdump")
            .args([
                "-r",
                cut.to_str().unwrap(),
                "-w",
                theirs.to_str().unwrap(),
                "ip",
            ])
            .output()
            .unwrap();
        assert!(!t.status.success());
        assert_eq!(
            written,
            std::fs::read(&theirs).unwrap(),
            "same packets as tcpdump"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_option_after_the_expression_is_not_a_filter_word() {
    let s = sample();
    let o = netsift(&["-r", s.to_str().unwrap(), "tcp", "-k"]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.starts_with("netsift: invalid option -- 'k'\n"), "{e}");
    assert!(!e.contains("syntax error"), "{e}");
    // Options after the expression, and clusters, are read as GNU getopt reads them.
    let o = netsift(&["-nnr", s.to_str().unwrap(), "arp", "-c1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 1);
    let o = netsift(&[
        &format!("-r{}", s.to_str().unwrap()),
        "-c",
        "2",
        "--",
        "arp",
    ]);
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 2);
    // Arithmetic with a minus sign is still an expression.
    let o = netsift(&[
        "-r",
        s.to_str().unwrap(),
        "-c",
        "1",
        "ip[0]",
        "-",
        "69",
        "=",
        "0",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn n_may_be_given_twice_as_in_tcpdump() {
    let s = sample();
    let o = netsift(&["-nn", "-r", s.to_str().unwrap(), "-c", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 1);
}

/// `--place xdp` names what it cannot do, before it touches an interface.
#[test]
fn the_xdp_level_refuses_what_it_cannot_do() {
    for (args, why) in [
        (&["-i", "any", "--place", "xdp"][..], "not `any`"),
        (
            &["-i", "lo", "--place", "xdp", "--follow", "ftp"][..],
            "--follow",
        ),
        (
            &["-i", "lo", "--place", "xdp", "--workers", "2"][..],
            "--workers",
        ),
        (
            &["-i", "lo", "--place", "xdp", "-Q", "out"][..],
            "received frames only",
        ),
    ] {
        let o = netsift(args);
        assert!(!o.status.success(), "{args:?}");
        let e = stderr(&o);
        assert!(
            e.contains("--place xdp") && e.contains(why),
            "{args:?}: {e}"
        );
    }
}

/// After `--` every word is expression text, even one that starts with `-` and a
/// letter: `-len < 0xc1` is arithmetic on `len`, as tcpdump reads it.
#[test]
fn after_a_double_dash_every_word_is_expression_text() {
    let s = sample();
    let all = netsift(&["-r", s.to_str().unwrap()]);
    assert!(all.status.success(), "{}", stderr(&all));
    let o = netsift(&["-r", s.to_str().unwrap(), "--", "-len < 0xc1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Every packet is shorter than 2^32 - 0xc1 bytes: `-len` (unsigned) is large,
    // so nothing is accepted but a zero-length packet.
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = netsift(&["-r", s.to_str().unwrap(), "--", "-len", "!=", "0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, all.stdout, "every packet has a length");
}

/// What getopt says for tcpdump, said for netsift: the flag named, status 1.
#[test]
fn bad_flags_are_named_as_getopt_names_them() {
    let s = sample();
    let s = s.to_str().unwrap();
    for (args, first) in [
        (&["-r", s, "-k"][..], "invalid option -- 'k'"),
        (
            &["-r", s, "--frobnicate"][..],
            "unrecognized option '--frobnicate'",
        ),
        (&["-r", s, "-c"][..], "option requires an argument -- 'c'"),
        (
            &["-r", s, "-Q", "sideways"][..],
            "-Q: invalid value 'sideways'",
        ),
    ] {
        let o = netsift(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let e = stderr(&o);
        assert!(e.starts_with(&format!("netsift: {first}")), "{args:?}: {e}");
        assert!(!e.contains("tip:"), "{args:?}: {e}");
    }
    let o = netsift(&["--help"]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("-r <FILE>"));
}

/// Standard output closed early (`netsift -r F | head -1`) or full: tcpdump's
/// message and its status 14, whichever comes first; a pcap file on a closed
/// pipe (`-w - | head`) ends quietly with 0, as tcpdump's does.
#[test]
fn unwritable_output_ends_as_tcpdump_ends() {
    use std::io::Read;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    // Enough lines that the pipe fills long before the end: the sample 200 times.
    let list = dir.path().join("list");
    let line = format!("{}\n", sample().display());
    std::fs::write(&list, line.repeat(200)).unwrap();
    let piped = |prog: &str, args: &[&str]| {
        let mut child = Command::new(prog)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // The read end is closed here, as head closes it.
        let o = child.wait_with_output().unwrap();
        (o.status.code(), stderr(&o))
    };
    let l = list.to_str().unwrap();
    let (code, e) = piped(env!("CARGO_BIN_EXE_netsift"), &["-nn", "-V", l]);
    assert_eq!(code, Some(14), "{e}");
    assert!(
        e.ends_with("netsift: Unable to write output: Broken pipe\n"),
        "{e}"
    );
    let (code, e) = piped(env!("CARGO_BIN_EXE_netsift"), &["-V", l, "-w", "-"]);
    assert_eq!(code, Some(0), "{e}");
    if netsift_testkit::skip::has_command("tcpdump") {
        let (code, e) = piped("tcpdump", &["-nn", "-V", l]);
        assert_eq!(code, Some(14), "tcpdump: {e}");
        assert!(e.ends_with("tcpdump: Unable to write output: Broken pipe\n"));
    }
    let full = std::fs::File::create("/dev/full");
    if let Ok(full) = full {
        let o = Command::new(env!("CARGO_BIN_EXE_netsift"))
            .args(["-nn", "-V", l])
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(14));
        assert!(stderr(&o).contains("Unable to write output: No space left on device"));
    }
}

#[test]
fn unknown_link_type_lists_every_accepted_name() {
    let o = netsift(&["-d", "-y", "NOSUCHLINK", "ip"]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("unknown link type 'NOSUCHLINK'"), "{e}");
    // Every name the compiler accepts is listed, not only the first eight.
    let all = netsift_wire::LinkType::SUPPORTED
        .into_iter()
        .chain(netsift_wire::LinkType::filtered_more());
    for lt in all {
        let name = lt.name().expect("a filtered link type has a name");
        assert!(
            e.contains(&format!(" {name},")) || e.contains(&format!(" {name})")),
            "{name}: {e}"
        );
        // And each of them is accepted.
        assert!(netsift(&["-d", "-y", name, ""]).status.success(), "{name}");
    }
}
