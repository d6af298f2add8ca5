//! The tcpdump flags other than the per-line display ones (tests/display.rs):
//! `-V` lists, `--count`, `--version`, unknown flags, and the manual page and
//! completions checked in under docs/, which must be what `--generate` makes.

mod common;

use common::{corpus, corpus_found, run};
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
