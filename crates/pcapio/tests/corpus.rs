//! Every capture of the shared corpus, read by us and by libpcap (through
//! `tcpdump -r FILE -w OUT`), must give the same packets; files tcpdump refuses
//! we refuse, and the reverse. Our own re-write of each file with `PcapWriter`
//! must equal tcpdump's OUT byte for byte.

mod common;

use std::process::Command;

use common::*;

#[test]
fn corpus_matches_libpcap() {
    let Some(corpus) = corpus() else { return };
    if !have_tcpdump() {
        // Without the oracle, at least every capture must read without error.
        let mut n = 0;
        for sub in ["tcpdump", "libpcap"] {
            for f in files(&corpus.join("pcaps").join(sub)) {
                let r = read_all(&std::fs::read(&f).unwrap());
                assert!(r.end.is_ok(), "{}: {:?}", f.display(), r.end);
                n += 1;
            }
        }
        assert!(n > 800, "corpus too small: {n}");
        return;
    }
    let tmp = scratch("corpus");
    let mut checked = 0;
    let mut mismatches = Vec::new();
    let mut refused = Vec::new();
    let mut partial = Vec::new();
    for sub in ["tcpdump", "libpcap"] {
        for f in files(&corpus.join("pcaps").join(sub)) {
            let name = format!("{sub}/{}", f.file_name().unwrap().to_string_lossy());
            let c = compare_with_tcpdump(&name, &f, &tmp);
            checked += 1;
            if let Err(e) = &c.ours.end {
                let line = format!("{name}: tcpdump: {}; ours: {e}", c.tcpdump_err);
                if c.ours.open_failed {
                    refused.push(line);
                } else {
                    partial.push(format!("{} packets, then {line}", c.ours.packets.len()));
                }
            }
            mismatches.extend(c.mismatches);
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    eprintln!("checked {checked} files against tcpdump -r FILE -w OUT");
    eprintln!("refused at open by both ({}):", refused.len());
    for l in &refused {
        eprintln!("  {l}");
    }
    eprintln!("read partly, then refused by both ({}):", partial.len());
    for l in &partial {
        eprintln!("  {l}");
    }
    eprintln!("mismatches ({}):", mismatches.len());
    for l in &mismatches {
        eprintln!("  {l}");
    }
    assert!(checked > 800, "corpus too small: {checked}");
    assert!(mismatches.is_empty(), "{} mismatches", mismatches.len());
}

#[test]
fn bad_corpus_refused() {
    let Some(corpus) = corpus() else { return };
    let tcpdump = have_tcpdump();
    let bad = files(&corpus.join("pcaps").join("libpcap-bad"));
    assert!(!bad.is_empty());
    for f in bad {
        let bytes = std::fs::read(&f).unwrap();
        let r = read_all(&bytes);
        let e = r
            .end
            .expect_err(&format!("{} must be refused", f.display()));
        let msg = e.to_string();
        eprintln!("{}: {msg}", f.display());
        assert!(
            msg.ends_with(&format!("(at byte offset {})", e.offset())),
            "{msg}"
        );
        if tcpdump {
            let out = Command::new("tcpdump").arg("-r").arg(&f).output().unwrap();
            assert!(!out.status.success(), "tcpdump accepts {}", f.display());
        }
    }
}
