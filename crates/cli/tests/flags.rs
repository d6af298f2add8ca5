//! The tcpdump flags other than the per-line display ones (tests/display.rs):
//! `-V` lists, `--count`, `--version`, unknown flags, and the manual page and
//! completions checked in under docs/, which must be what `--generate` makes.

mod common;

use common::{corpus, corpus_found, run, uid_of};
use netsift_testkit::skip::has_command;
use netsift_testkit::{require, Need};
use std::path::{Path, PathBuf};
use std::process::Output;

fn netsift(args: &[&str]) -> Output {
    run(env!("CARGO_BIN_EXE_netsift"), args)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/sample.pcap")
}

/// Captures for `-V`: two Ethernet ones and one of another link type.
fn captures() -> Option<(PathBuf, PathBuf, PathBuf)> {
    let c = corpus()?.join("pcaps/tcpdump");
    Some((
        c.join("dns_udp.pcap"),
        c.join("print-flags.pcap"),
        c.join("tcp-handshake-nano.pcap"),
    ))
}

#[test]
fn file_lists_read_every_file_in_turn() {
    let Some((a, b, sll)) = captures() else {
        println!("corpus not found; skipping -V");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("list");
    let names = format!("{}\n{}\n{}\n", a.display(), b.display(), sll.display());
    std::fs::write(&list, names).unwrap();
    let l = list.to_str().unwrap();
    let ours = netsift(&["-n", "-#", "-V", l]);
    assert!(ours.status.success(), "{}", stderr(&ours));
    let single = |f: &Path| {
        stdout(&netsift(&["-n", "-r", f.to_str().unwrap()]))
            .lines()
            .count()
    };
    assert_eq!(
        stdout(&ours).lines().count(),
        single(&a) + single(&b) + single(&sll)
    );
    let counted = netsift(&["--count", "-V", l, "udp"]);
    assert!(counted.status.success(), "{}", stderr(&counted));
    // A pcap file has one link type: a list that changes it is refused with -w.
    let w = dir.path().join("out.pcap");
    let refused = netsift(&["-V", l, "-w", w.to_str().unwrap()]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("new dlt does not match original"),
        "{}",
        stderr(&refused)
    );
    // An empty list.
    let empty = dir.path().join("empty");
    std::fs::write(&empty, "").unwrap();
    let o = netsift(&["-V", empty.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("Nothing in"), "{}", stderr(&o));
    if !has_command("tcpdump") {
        println!("tcpdump not found; -V checked on its own");
        return;
    }
    let theirs = run("tcpdump", &["-n", "-#", "-V", l]);
    assert_eq!(stdout(&ours), stdout(&theirs), "-n -# -V");
    let theirs = run("tcpdump", &["--count", "-V", l, "udp"]);
    assert_eq!(stdout(&counted), stdout(&theirs), "--count -V");
    // Two files of one link type into one pcap file.
    std::fs::write(&list, format!("{}\n{}", a.display(), b.display())).unwrap();
    let t = dir.path().join("theirs.pcap");
    let o = netsift(&["-V", l, "-w", w.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run("tcpdump", &["-V", l, "-w", t.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read(&w).unwrap() == std::fs::read(&t).unwrap());
}

#[test]
fn count_prints_only_the_number_of_packets() {
    let s = sample();
    let s = s.to_str().unwrap();
    for expr in ["", "tcp", "host 192.0.2.99"] {
        let o = netsift(&["--count", "-r", s, expr]);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = stdout(&o);
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(
            text.ends_with(" packets\n") || text == "1 packet\n",
            "{text}"
        );
        if has_command("tcpdump") {
            assert_eq!(text, stdout(&run("tcpdump", &["--count", "-r", s, expr])));
        }
    }
}

#[test]
fn version_is_a_long_option_only_and_unknown_flags_are_refused() {
    let o = netsift(&["--version"]);
    assert!(o.status.success());
    assert!(stdout(&o).starts_with("netsift "), "{}", stdout(&o));
    // -V takes a file, as in tcpdump.
    let o = netsift(&["-V"]);
    assert!(!o.status.success());
    let s = sample();
    for bad in ["-k", "--frobnicate", "-tttttt"] {
        let o = netsift(&["-r", s.to_str().unwrap(), bad]);
        assert!(!o.status.success(), "{bad} was accepted");
        assert!(
            stderr(&o).contains("invalid option -- 'k'")
                || stderr(&o).contains("unrecognized option '--frobnicate'")
                || stderr(&o).contains("only -t"),
            "{bad}: {}",
            stderr(&o)
        );
    }
}

/// docs/netsift.1 and docs/completions/netsift.{bash,zsh,fish} are the output of
/// `netsift --generate man|bash|zsh|fish`: regenerate them when a flag changes.
#[test]
fn manual_and_completions_are_up_to_date() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    for (what, file) in [
        ("man", "netsift.1"),
        ("bash", "completions/netsift.bash"),
        ("zsh", "completions/netsift.zsh"),
        ("fish", "completions/netsift.fish"),
    ] {
        let o = netsift(&["--generate", what]);
        assert!(o.status.success(), "{}", stderr(&o));
        let checked_in = std::fs::read(docs.join(file)).unwrap_or_default();
        assert!(
            o.stdout == checked_in,
            "docs/{file} is stale: run `cargo run --release -p netsift -- --generate {what} > docs/{file}`"
        );
    }
}

/// The "reading from file" line names the link type as tcpdump does, with
/// libpcap's description (`EN10MB (Ethernet)`), for one capture of each link type
/// the corpus has; an SLL2 file adds tcpdump's warning about interface names.
#[test]
fn the_reading_line_is_tcpdumps() {
    let corpus = corpus();
    require!(corpus_found(&corpus), Need::Command("tcpdump"));
    let dir = corpus.unwrap().join("pcaps/tcpdump");
    let mut seen = std::collections::BTreeSet::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pcap"))
        .collect();
    names.sort();
    for cap in names {
        let Ok(r) = netsift_pcapio::open(&cap) else {
            continue;
        };
        if !r.linktype().is_supported() || !seen.insert(r.linktype()) {
            continue;
        }
        let c = cap.to_str().unwrap();
        let first = |o: Output| stderr(&o).lines().next().unwrap_or_default().to_string();
        let ours = first(netsift(&["-r", c, "-c", "1"]));
        let theirs = first(run("tcpdump", &["-r", c, "-c", "1"]));
        assert_eq!(ours, theirs, "{c}");
    }
    assert!(seen.len() >= 3, "link types compared: {seen:?}");
    println!("reading lines equal tcpdump's for {seen:?}");
    // The corpus has no SLL2 capture: one packet of one, made here.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("sll2.pcap");
    let mut w = netsift_pcapio::PcapWriter::new(
        std::fs::File::create(&f).unwrap(),
        netsift_wire::LinkType::LINUX_SLL2,
        262_144,
        netsift_pcapio::TsPrecision::Micro,
    )
    .unwrap();
    let mut pkt = vec![
        0x08, 0x00, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0,
    ];
    pkt.extend([
        0x45, 0, 0, 20, 0, 0, 0, 0, 64, 59, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
    ]);
    w.write_packet(1_700_000_000, 0, &pkt, pkt.len() as u32)
        .unwrap();
    w.flush().unwrap();
    drop(w);
    let two = |o: Output| stderr(&o).lines().take(2).collect::<Vec<_>>().join("\n");
    let c = f.to_str().unwrap();
    assert_eq!(two(netsift(&["-r", c])), two(run("tcpdump", &["-r", c])));
}

/// `-dd` and `-ddd` print what tcpdump prints: libpcap's classic program for
/// the filter, the link type and snapshot length of the file (or `-y`/`-s`),
/// optimised or not (`-O`).
#[test]
fn classic_programs_are_tcpdumps() {
    require!(Need::Command("tcpdump"));
    let s = sample();
    let s = s.to_str().unwrap();
    let cases: &[&[&str]] = &[
        &["-dd", "-r", s, "tcp port 80"],
        &["-ddd", "-r", s, "udp or arp"],
        &["-dd", "-y", "EN10MB", "-s", "100", "vlan and ip"],
        &["-ddd", "-y", "RAW", "-O", "host 10.0.0.1 and udp"],
        &["-dd", "-y", "LINUX_SLL", ""],
    ];
    for args in cases {
        let ours = netsift(args);
        let theirs = run("tcpdump", args);
        assert!(ours.status.success(), "{args:?}: {}", stderr(&ours));
        assert!(!ours.stdout.is_empty(), "{args:?}");
        assert_eq!(stdout(&ours), stdout(&theirs), "{args:?}");
    }
    // -ddd starts with the program's length.
    let o = netsift(&["-ddd", "-y", "EN10MB", "ip"]);
    let text = stdout(&o);
    let n: usize = text.lines().next().unwrap().parse().unwrap();
    assert_eq!(text.lines().count(), n + 1, "{text}");
    // Without -y, as tcpdump, Ethernet is assumed out loud.
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    let o = netsift(&["-dd", "ip"]);
    assert_eq!(stderr(&o), "Warning: assuming Ethernet\n");
}

/// `--print` with `-w`: the file tcpdump writes and the lines it prints.
#[test]
fn print_prints_while_writing() {
    let s = sample();
    let s = s.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("out.pcap");
    let o = netsift(&["-nn", "-r", s, "-w", w.to_str().unwrap(), "--print", "tcp"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines = netsift(&["-nn", "-r", s, "tcp"]);
    assert!(!lines.stdout.is_empty());
    assert_eq!(stdout(&o), stdout(&lines));
    let plain = dir.path().join("plain.pcap");
    let p = netsift(&["-r", s, "-w", plain.to_str().unwrap(), "tcp"]);
    assert!(p.stdout.is_empty());
    assert!(std::fs::read(&w).unwrap() == std::fs::read(&plain).unwrap());
    if has_command("tcpdump") {
        let t = dir.path().join("theirs.pcap");
        let theirs = run(
            "tcpdump",
            &["-nn", "-r", s, "-w", t.to_str().unwrap(), "--print", "tcp"],
        );
        assert_eq!(stdout(&o), stdout(&theirs));
        assert!(std::fs::read(&w).unwrap() == std::fs::read(&t).unwrap());
    }
}

/// `-z CMD`: each file a rotation closes is handed to CMD (here gzip), the
/// last one not, as tcpdump does.
#[test]
fn postrotate_commands_get_each_closed_file() {
    require!(Need::Command("gzip"));
    let Some((_, _, _)) = captures() else {
        println!("corpus not found; skipping -z");
        return;
    };
    let big = corpus().unwrap().join("pcaps/tcpdump/afs.pcap");
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("list");
    std::fs::write(&list, format!("{}\n", big.display()).repeat(5)).unwrap();
    // The files are made by the user netsift drops to: a directory it may use.
    let out = dir.path().join("rot");
    std::fs::create_dir(&out).unwrap();
    std::process::Command::new("chmod")
        .args(["777", out.to_str().unwrap()])
        .status()
        .unwrap();
    let o = netsift(&[
        "-V",
        list.to_str().unwrap(),
        "-w",
        out.join("f").to_str().unwrap(),
        "-C",
        "1",
        "-z",
        "gzip",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // gzip runs in the background: wait for it.
    let names = || {
        let mut v: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        v.sort();
        v
    };
    let want = ["f.gz", "f1.gz", "f2"];
    for _ in 0..100 {
        if names() == want {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(names(), want);
    let o = netsift(&[
        "-r",
        sample().to_str().unwrap(),
        "-w",
        "-",
        "-C",
        "1",
        "-z",
        "no-such-command-here",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Every flag of `tcpdump --help` either works (exit 0) or is refused with a
/// message that names it and says why. The table must cover the help's every
/// flag: a flag tcpdump adds fails this test until it is decided here.
#[test]
fn every_tcpdump_flag_works_or_is_refused_by_name() {
    require!(Need::Command("tcpdump"));
    let help = stderr(&run("tcpdump", &["--help"])) + &stdout(&run("tcpdump", &["--help"]));
    let usage = &help[help.find("Usage:").expect("tcpdump's usage")..];
    // [-AbdD...] letters, [ -B size ] and [ --long ] options.
    let mut flags: Vec<String> = Vec::new();
    for group in usage.split('[').skip(1) {
        let g = group.split(']').next().unwrap().trim();
        if let Some(letters) = g
            .strip_prefix('-')
            .filter(|l| !l.starts_with('-') && !l.contains(' ') && l.len() > 2)
        {
            flags.extend(letters.chars().map(|c| format!("-{c}")));
        } else if let Some(first) = g.split_whitespace().next().filter(|f| f.starts_with('-')) {
            flags.push(first.to_string());
        }
    }
    assert!(flags.len() > 40, "{flags:?}");
    let s = sample();
    let s = s.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("w.pcap");
    let w = w.to_str().unwrap();
    let list = dir.path().join("list");
    std::fs::write(&list, format!("{s}\n")).unwrap();
    let filter = dir.path().join("filter");
    std::fs::write(&filter, "tcp\n").unwrap();
    // Each flag: the command line that tries it, and None if it works, or
    // what the refusal must say besides the flag.
    let file = |extra: &[&str]| {
        let mut v = vec!["-r", s];
        v.extend_from_slice(extra);
        v.iter().map(|a| a.to_string()).collect::<Vec<_>>()
    };
    let listed = |extra: &[&str]| extra.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let table: Vec<(&str, Vec<String>, Option<&str>)> = vec![
        ("-A", file(&["-A"]), None),
        ("-b", file(&["-b"]), None),
        ("-d", file(&["-d"]), None),
        ("-D", listed(&["-D"]), None),
        ("-e", file(&["-e"]), None),
        // tcpdump refuses -f with a file, which has no local network.
        ("-f", file(&["-f"]), Some("can not be used with -V or -r")),
        ("-h", listed(&["-h"]), None),
        ("-H", file(&["-H"]), None),
        (
            "-I",
            listed(&["-I", "-i", "lo"]),
            Some("doesn't support monitor mode"),
        ),
        ("-J", listed(&["-J", "-i", "lo"]), None),
        ("-K", file(&["-K"]), None),
        ("-l", file(&["-l"]), None),
        ("-L", listed(&["-L", "-i", "lo"]), None),
        ("-n", file(&["-n"]), None),
        ("-N", file(&["-N"]), None),
        ("-O", file(&["-O"]), None),
        ("-p", file(&["-p"]), None),
        ("-q", file(&["-q"]), None),
        ("-S", file(&["-S"]), None),
        ("-t", file(&["-t"]), None),
        ("-u", file(&["-u"]), None),
        ("-U", file(&["-U", "-w", w]), None),
        ("-v", file(&["-v"]), None),
        ("-x", file(&["-x"]), None),
        ("-X", file(&["-X"]), None),
        ("-#", file(&["-#"]), None),
        ("-B", file(&["-B", "1024"]), None),
        ("-c", file(&["-c", "2"]), None),
        ("--count", file(&["--count"]), None),
        ("-C", file(&["-C", "1", "-w", w]), None),
        (
            "-E",
            file(&["-E", "0x1@10.0.0.1 aes128:secret"]),
            Some("does not decrypt"),
        ),
        ("-F", file(&["-F", filter.to_str().unwrap()]), None),
        ("-G", file(&["-G", "60", "-w", w]), None),
        ("-i", listed(&["-i", "no-such-if0"]), Some("no-such-if0")),
        ("--immediate-mode", file(&["--immediate-mode"]), None),
        ("-j", file(&["-j", "host"]), None),
        ("-M", file(&["-M", "secret"]), Some("TCP-MD5")),
        ("--number", file(&["--number"]), None),
        ("--print", file(&["--print", "-w", w]), None),
        ("-Q", file(&["-Q", "in"]), None),
        ("-r", file(&[]), None),
        ("-s", file(&["-s", "100"]), None),
        ("-T", file(&["-T", "rtp"]), None),
        ("--version", listed(&["--version"]), None),
        ("-V", listed(&["-V", list.to_str().unwrap()]), None),
        ("-w", file(&["-w", w]), None),
        ("-W", file(&["-W", "2", "-C", "1", "-w", w]), None),
        ("-y", file(&["-y", "EN10MB"]), None),
        (
            "--time-stamp-precision",
            file(&["--time-stamp-precision", "nano"]),
            None,
        ),
        ("--micro", file(&["--micro"]), None),
        ("--nano", file(&["--nano"]), None),
        ("-z", file(&["-z", "true", "-C", "1", "-w", w]), None),
        ("-Z", file(&["-Z", "root", "-w", w]), None),
    ];
    for f in &flags {
        assert!(
            table.iter().any(|(name, _, _)| name == f),
            "tcpdump's {f} is not decided here"
        );
    }
    for (name, args, refusal) in &table {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = netsift(&args);
        let e = stderr(&o);
        match refusal {
            None => assert!(o.status.success(), "{name}: {args:?}: {e}"),
            Some(why) => {
                assert_eq!(o.status.code(), Some(1), "{name}: {args:?}");
                let first = e.lines().next().unwrap_or_default();
                assert!(
                    first.starts_with("netsift: ") && first.contains(why),
                    "{name}: {e}"
                );
                // -I and -i are refused in tcpdump's words, which name the
                // interface instead.
                let named = first.contains(name) || matches!(*name, "-I" | "-i");
                assert!(named, "{name} is not named: {e}");
            }
        }
    }
}

/// `-T vxlan`: UDP on any port printed as VXLAN, as tcpdump prints it.
#[test]
fn packet_type_vxlan_forces_the_vxlan_printer() {
    let Some((dns, _, _)) = captures() else {
        println!("corpus not found; skipping -T");
        return;
    };
    let d = dns.to_str().unwrap();
    let first = |o: Output| stdout(&o).lines().next().unwrap_or_default().to_string();
    let plain = first(netsift(&["-nn", "-r", d, "-c", "1"]));
    let forced = first(netsift(&["-nn", "-T", "vxlan", "-r", d, "-c", "1"]));
    assert!(!plain.contains("VXLAN"), "{plain}");
    assert!(
        forced.contains(": VXLAN, flags [I] (0x59), vni 256"),
        "{forced}"
    );
    if has_command("tcpdump") {
        let theirs = first(run("tcpdump", &["-nn", "-T", "vxlan", "-r", d, "-c", "1"]));
        assert!(forced.starts_with(&theirs), "{forced}\n{theirs}");
    }
}

/// Reading a file as root, the output is created by user `tcpdump` (once the
/// input is open), even in a directory only root may write, as tcpdump's;
/// `-Z USER` names another user, `-Z root` keeps root.
#[test]
fn files_read_as_root_are_written_as_tcpdump_writes_them() {
    use std::os::unix::fs::MetadataExt;
    require!(Need::Root, Need::Command("tcpdump"));
    let (Some(tcpdump_uid), Some(nobody_uid)) = (uid_of("tcpdump"), uid_of("nobody")) else {
        println!("no `tcpdump` or `nobody` user; skipping");
        return;
    };
    let s = sample();
    let s = s.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap(); // 0700, root's
    let owner = |prog: &str, name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        let mut args = vec!["-r", s, "-w", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = run(prog, &args);
        assert!(o.status.success(), "{prog} {extra:?}: {}", stderr(&o));
        std::fs::metadata(&out).unwrap().uid()
    };
    let netsift = env!("CARGO_BIN_EXE_netsift");
    assert_eq!(owner("tcpdump", "theirs", &[]), tcpdump_uid);
    assert_eq!(owner(netsift, "ours", &[]), tcpdump_uid);
    assert_eq!(owner(netsift, "nobody", &["-Z", "nobody"]), nobody_uid);
    assert_eq!(owner(netsift, "root", &["-Z", "root"]), 0);
    assert!(
        std::fs::read(dir.path().join("ours")).unwrap()
            == std::fs::read(dir.path().join("theirs")).unwrap()
    );
}
