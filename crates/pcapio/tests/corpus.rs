//! Every capture of the shared corpus, read by us and by libpcap (through
//! `tcpdump -r FILE -w OUT`), must give the same packets; files tcpdump refuses
//! we refuse, and the reverse. Our own re-write of each file with `PcapWriter`
//! must equal tcpdump's OUT byte for byte.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;
use netsift_pcapio::{Format, PcapWriter, Reader, TsPrecision};

struct Outcome {
    mismatches: Vec<String>,
    refused_by_both: Vec<String>,
    truncated: Vec<String>,
    checked: usize,
}

fn check_file(path: &Path, tmp: &Path, out: &mut Outcome) {
    let name = path
        .strip_prefix(path.parent().and_then(|p| p.parent()).unwrap_or(path))
        .unwrap_or(path)
        .display()
        .to_string();
    let bytes = std::fs::read(path).expect("read corpus file");
    let ours = read_all(&bytes);

    let dump = tmp.join("out.pcap");
    let _ = std::fs::remove_file(&dump);
    let res = Command::new("tcpdump")
        .arg("-r")
        .arg(path)
        .arg("-w")
        .arg(&dump)
        .output()
        .expect("run tcpdump");
    let tcpdump_ok = res.status.success();
    let stderr = String::from_utf8_lossy(&res.stderr);
    let err_line = stderr
        .lines()
        .filter(|l| !l.starts_with("reading from file"))
        .collect::<Vec<_>>()
        .join(" | ");

    out.checked += 1;
    match (&ours.end, tcpdump_ok) {
        (Ok(()), true) => {}
        (Err(e), false) => {
            let msg = e.to_string();
            assert!(msg.contains("at byte offset"), "{name}: {msg}");
            if ours.open_failed {
                out.refused_by_both
                    .push(format!("{name}: tcpdump: {err_line}; ours: {msg}"));
            } else {
                out.truncated.push(format!(
                    "{name}: {} packets then: tcpdump: {err_line}; ours: {msg}",
                    ours.packets.len()
                ));
            }
        }
        (Ok(()), false) => out.mismatches.push(format!(
            "{name}: tcpdump refuses ({err_line}) but we read it"
        )),
        (Err(e), true) => out
            .mismatches
            .push(format!("{name}: tcpdump reads it but we refuse: {e}")),
    }

    // Compare the packets with what libpcap wrote.
    let Ok(tcpdump_bytes) = std::fs::read(&dump) else {
        if !ours.packets.is_empty() && ours.open_failed {
            out.mismatches.push(format!("{name}: no tcpdump output"));
        }
        return;
    };
    let theirs = read_all(&tcpdump_bytes);
    if let Err(e) = &theirs.end {
        out.mismatches
            .push(format!("{name}: cannot read tcpdump's output: {e}"));
        return;
    }
    if theirs.packets.len() != ours.packets.len() {
        out.mismatches.push(format!(
            "{name}: {} packets, libpcap read {}",
            ours.packets.len(),
            theirs.packets.len()
        ));
    }
    for (i, (a, b)) in ours.packets.iter().zip(&theirs.packets).enumerate() {
        let (sec, usec) = a.raw.libpcap_timeval(TsPrecision::Micro);
        let ok = a.data == b.data
            && a.caplen == b.caplen
            && a.orig_len == b.orig_len
            && match b.raw {
                netsift_pcapio::RawTs::Pcap { sec: s2, frac, .. } => {
                    s2 == sec as u32 && frac == usec as u32
                }
                _ => false,
            };
        // For well-formed time stamps the plain packet time, truncated to µs, agrees.
        let plain_ok = a.ts_nsec / 1000 == b.ts_nsec / 1000 && a.ts_sec == b.ts_sec;
        let well_formed = matches!(a.raw, netsift_pcapio::RawTs::Pcap { frac, nano, .. }
            if frac < if nano { 1_000_000_000 } else { 1_000_000 })
            || matches!(a.raw, netsift_pcapio::RawTs::PcapNg { .. });
        if !ok || (well_formed && !plain_ok && a.ts_sec < (1 << 31)) {
            out.mismatches.push(format!(
                "{name}: packet {i} differs: ours caplen {} len {} ts {}.{:09} raw {:?}; libpcap caplen {} len {} ts {}.{:09}",
                a.caplen, a.orig_len, a.ts_sec, a.ts_nsec, a.raw, b.caplen, b.orig_len, b.ts_sec, b.ts_nsec
            ));
            break;
        }
    }

    // Reproduce tcpdump's output byte for byte.
    let rd = match Reader::new(&bytes[..]) {
        Ok(rd) => rd,
        Err(_) => return,
    };
    let Some(h) = rd.tcpdump_dump_header(false) else {
        out.mismatches
            .push(format!("{name}: tcpdump wrote output but we say it can't"));
        return;
    };
    let mut rd = rd;
    let mut w = PcapWriter::new(Vec::new(), h.linktype, h.snaplen, h.precision).unwrap();
    while let Ok(Some(r)) = rd.next_record() {
        w.write_record(&r).unwrap();
    }
    let mine = w.into_inner().unwrap();
    if mine != tcpdump_bytes {
        let at = mine
            .iter()
            .zip(&tcpdump_bytes)
            .position(|(a, b)| a != b)
            .unwrap_or(mine.len().min(tcpdump_bytes.len()));
        out.mismatches.push(format!(
            "{name}: our rewrite differs from tcpdump -w at byte {at} (ours {} bytes, tcpdump {}) format {:?}",
            mine.len(),
            tcpdump_bytes.len(),
            rd.format()
        ));
    }
    let _ = Format::Pcap;
}

#[test]
fn corpus_matches_libpcap() {
    let Some(corpus) = corpus() else { return };
    if !have_tcpdump() {
        return;
    }
    let tmp = std::env::temp_dir().join(format!("pcapio-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut out = Outcome {
        mismatches: vec![],
        refused_by_both: vec![],
        truncated: vec![],
        checked: 0,
    };
    for sub in ["tcpdump", "libpcap"] {
        for f in files(&corpus.join("pcaps").join(sub)) {
            check_file(&f, &tmp, &mut out);
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    eprintln!("checked {} files", out.checked);
    eprintln!(
        "refused at open by tcpdump and by us ({}):",
        out.refused_by_both.len()
    );
    for l in &out.refused_by_both {
        eprintln!("  {l}");
    }
    eprintln!(
        "read partly, then refused by both ({}):",
        out.truncated.len()
    );
    for l in &out.truncated {
        eprintln!("  {l}");
    }
    eprintln!("mismatches ({}):", out.mismatches.len());
    for l in &out.mismatches {
        eprintln!("  {l}");
    }
    assert!(out.checked > 800, "corpus too small");
    assert!(
        out.mismatches.is_empty(),
        "{} mismatches",
        out.mismatches.len()
    );
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
            msg.contains(&format!("at byte offset {}", e.offset())),
            "{msg}"
        );
        if tcpdump {
            let st = Command::new("tcpdump").arg("-r").arg(&f).output().unwrap();
            assert!(!st.status.success(), "tcpdump accepts {}", f.display());
        }
    }
}
