//! BGP against the installed tcpdump, with `-nn`, `-nn -v`, `-nn -vv` and
//! `-nn -vv -b` (AS numbers as `x.y`), text for text (continuation lines and
//! `-vv`'s hex dumps included): every packet
//! of the corpus's BGP captures, then the BGP segments of those captures cut
//! short at many points and with bytes of their messages changed, which drives
//! the printer through its truncation and malformed-input paths (` [|bgp]`,
//! `invalid len`, `[path attrs too short]`, unknown codes); and made-up
//! segments (`bgp/gen.rs`) with every message type, path attribute and
//! address family tcpdump decodes, well-formed or nearly. Left out:
//! `bgp-aigp.pcap`, whose link type (JUNIPER_ETHER) the summarizer does not
//! read. Skipped, with a message, when tcpdump or the corpus is absent.

mod common;
#[path = "bgp/gen.rs"]
mod gen;

use common::build::{eth, ipv4, tcp};
use common::capture::read_capture;
use common::tcpdump::have_tcpdump;
use common::write::write_pcap;
use common::{corpus_root, CaptureFile};
use netsift_print::{Dump, Packet, PrintOptions, Printer, Summarizer, SummaryOptions, TimeFormat};
use netsift_wire::LinkType;
use std::path::Path;
use std::process::Command;

/// tcpdump's flags, our verbosity and `-b` for each comparison.
const FLAG_SETS: [(&[&str], u8, bool); 4] = [
    (&["-nn"], 0, false),
    (&["-nn", "-v"], 1, false),
    (&["-nn", "-vv"], 2, false),
    (&["-nn", "-vv", "-b"], 2, true),
];

/// Captures of the corpus the summarizer cannot read (link type).
const LEFT_OUT: [&str; 1] = ["bgp-aigp.pcap"];

/// Whether `line` starts with tcpdump's `HH:MM:SS.frac ` timestamp; its length.
fn timestamp_len(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    if !(digit(0) && digit(1) && b.get(2) == Some(&b':') && b.get(8) == Some(&b'.')) {
        return None;
    }
    let end = 9 + b[9..].iter().take_while(|c| c.is_ascii_digit()).count();
    (end > 9 && b.get(end) == Some(&b' ')).then_some(end + 1)
}

/// `tcpdump [flags] -r file` in UTC, one string per packet: the text after the
/// timestamp with every continuation line, hex dumps too.
fn tcpdump_packets(file: &Path, flags: &[&str]) -> Vec<String> {
    let out = Command::new("tcpdump")
        .args(flags)
        .arg("-r")
        .arg(file)
        .env("TZ", "UTC")
        .output()
        .expect("run tcpdump");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut packets: Vec<String> = Vec::new();
    for line in text.lines() {
        // A record with no bytes is a line of its own, without timestamp.
        if line.starts_with("[Invalid header: ") {
            packets.push(line.to_string());
            continue;
        }
        match (timestamp_len(line), packets.last_mut()) {
            (Some(n), _) => packets.push(line[n..].to_string()),
            (None, Some(last)) => {
                last.push('\n');
                last.push_str(line);
            }
            (None, None) => {}
        }
    }
    packets
}

/// Compares our text with tcpdump's for every packet of `recs` in `path`;
/// returns the number compared, the differences and how many of tcpdump's
/// texts end a BGP message early (` [|bgp]`, `[|BGP `).
fn compare(path: &Path, lt: LinkType, recs: &[(Vec<u8>, u32)]) -> (usize, Vec<String>, usize) {
    let (mut compared, mut failures, mut cut) = (0, Vec::new(), 0);
    for (flags, verbose, asdot) in FLAG_SETS {
        let theirs = tcpdump_packets(path, flags);
        assert_eq!(
            theirs.len(),
            recs.len(),
            "{} {flags:?}: packet count",
            path.display()
        );
        let mut s = Summarizer::with_options(SummaryOptions {
            verbose,
            asdot,
            ..SummaryOptions::default()
        });
        for (i, ((data, wire), t)) in recs.iter().zip(&theirs).enumerate() {
            let ours = s.summarize(lt, data, *wire);
            compared += 1;
            cut += usize::from(t.contains("[|bgp]") || t.contains("[|BGP "));
            if &ours != t {
                failures.push(format!(
                    "{} #{i} {flags:?}\n--- ours:\n{ours}\n--- tcpdump:\n{t}",
                    path.display()
                ));
            }
        }
    }
    (compared, failures, cut)
}

/// The corpus's BGP captures the summarizer reads, with their packets.
fn bgp_captures() -> Vec<CaptureFile> {
    let dir = corpus_root().join("tcpdump");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = rd
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.contains("bgp") && !LEFT_OUT.contains(&n.as_str()))
        .collect();
    names.sort();
    names
        .into_iter()
        .filter_map(|n| {
            let packets = read_capture(&std::fs::read(dir.join(&n)).ok()?)?;
            let lt = packets.first()?.linktype;
            let recs = packets.into_iter().map(|p| (p.data, p.wire_len)).collect();
            Some((dir.join(n), lt, recs))
        })
        .collect()
}

fn report(what: &str, compared: usize, failures: &[String]) {
    println!(
        "{what}: {compared} packet texts compared, {} differ",
        failures.len()
    );
    for f in failures.iter().take(8) {
        println!("{f}\n");
    }
}

#[test]
fn corpus_bgp_matches_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let captures = bgp_captures();
    if captures.is_empty() {
        println!("no BGP captures in the corpus: skipped");
        return;
    }
    let (mut compared, mut failures) = (0, Vec::new());
    for (path, lt, recs) in &captures {
        let (c, f, _) = compare(path, *lt, recs);
        compared += c;
        failures.extend(f);
    }
    report("corpus BGP captures", compared, &failures);
    assert!(compared > 600, "too few packets compared: {compared}");
    assert!(failures.is_empty(), "{} packets differ", failures.len());
}

/// Where the TCP payload of an Ethernet frame starts, when it is a BGP
/// segment (port 179 on either side) over IPv4 or IPv6.
fn bgp_payload(frame: &[u8]) -> Option<usize> {
    let ty = u16::from_be_bytes([*frame.get(12)?, *frame.get(13)?]);
    let tcp = match ty {
        0x0800 if *frame.get(23)? == 6 => 14 + usize::from(frame.get(14)? & 0xf) * 4,
        0x86dd if *frame.get(20)? == 6 => 14 + 40,
        _ => return None,
    };
    let port = |at: usize| Some(u16::from_be_bytes([*frame.get(at)?, *frame.get(at + 1)?]));
    if port(tcp)? != 179 && port(tcp + 2)? != 179 {
        return None;
    }
    let payload = tcp + usize::from(frame.get(tcp + 12)? >> 4) * 4;
    (payload < frame.len()).then_some(payload)
}

/// The corpus's BGP segments (Ethernet) cut short at many points, and with
/// bytes of their messages changed.
fn cut_and_changed() -> Vec<(Vec<u8>, u32)> {
    let rng = gen::Rng::new(0x0b9b_2027);
    let mut recs: Vec<(Vec<u8>, u32)> = Vec::new();
    for (_, lt, packets) in bgp_captures() {
        if lt != LinkType::EN10MB {
            continue;
        }
        let with_payload = packets
            .iter()
            .filter_map(|(d, w)| Some((d, *w, bgp_payload(d)?)));
        for (data, wire, at) in with_payload.take(120) {
            let len = data.len() - at;
            // Cut short: in the marker, the header, the first fields, anywhere.
            for cut in [1, 17, 19, 21, 23, 26, 30, len / 3, len / 2, len - 1]
                .into_iter()
                .chain((0..4).map(|_| rng.below(len)))
            {
                if cut < len {
                    recs.push((data[..at + cut].to_vec(), wire));
                }
            }
            // Changed bytes: lengths, types, flags and values, past the marker.
            for _ in 0..30 {
                let mut d = data.clone();
                for _ in 0..1 + rng.below(3) {
                    let i = at + 16 + rng.below(len.saturating_sub(16));
                    if i < d.len() {
                        d[i] = [0, 1, 0xff, 0x80, 3, rng.below(256) as u8][rng.below(6)];
                    }
                }
                recs.push((d, wire));
            }
        }
    }
    recs
}

#[test]
fn cut_and_changed_bgp_matches_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let recs = cut_and_changed();
    if recs.is_empty() {
        println!("no BGP segments in the corpus: skipped");
        return;
    }
    let (compared, failures, cut) = compare_written("variants", &recs);
    report("cut and changed BGP segments", compared, &failures);
    println!("{cut} of tcpdump's texts end a BGP message early");
    assert!(compared > 10_000, "too few packets compared: {compared}");
    assert!(cut > 2_000, "too few truncated messages: {cut}");
    assert!(failures.is_empty(), "{} packets differ", failures.len());
}

/// Runs `f` on a capture of `recs` (Ethernet frames) written to a temporary
/// directory.
fn with_written<T>(name: &str, recs: &[(Vec<u8>, u32)], f: impl FnOnce(&Path) -> T) -> T {
    let dir = std::env::temp_dir().join(format!("netsift-bgp-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("bgp.pcap");
    write_pcap(&path, LinkType::EN10MB, recs);
    let r = f(&path);
    let _ = std::fs::remove_dir_all(&dir);
    r
}

/// `compare` on a capture of `recs` written to a temporary directory.
fn compare_written(name: &str, recs: &[(Vec<u8>, u32)]) -> (usize, Vec<String>, usize) {
    with_written(name, recs, |path| compare(path, LinkType::EN10MB, recs))
}

/// `n` made-up BGP segments (`bgp/gen.rs`) in Ethernet frames, one in six
/// cut short.
fn made_up(n: u16) -> Vec<(Vec<u8>, u32)> {
    let r = gen::Rng::new(0xb6b_2027_0179);
    let mut recs = Vec::new();
    for i in 0..n {
        let payload = gen::segment(&r);
        let segment = tcp(179, 40000 + i % 7, 0x18, &payload);
        let frame = eth(0x0800, &ipv4(6, &segment, &[]));
        let wire = frame.len() as u32;
        let cut = if r.below(6) == 0 {
            frame.len() - r.below(payload.len())
        } else {
            frame.len()
        };
        recs.push((frame[..cut].to_vec(), wire));
    }
    recs
}

#[test]
fn made_up_bgp_matches_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let recs = made_up(8000);
    let (compared, failures, cut) = compare_written("made-up", &recs);
    report("made-up BGP segments", compared, &failures);
    println!("{cut} of tcpdump's texts end a BGP message early");
    assert_eq!(compared, FLAG_SETS.len() * recs.len());
    assert!(cut > 1000, "too few truncated messages: {cut}");
    assert!(failures.is_empty(), "{} packets differ", failures.len());
}

/// With `-x`, `-X` and `-A`, tcpdump leaves the link-level header out of the
/// dump unless its printer ended with a `longjmp`; BGP's printer ends both
/// ways (` [|bgp]` after a check of its own, or a read past the capture).
#[test]
fn dumps_of_cut_bgp_match_tcpdump() {
    if !have_tcpdump() {
        println!("tcpdump not installed: skipped");
        return;
    }
    let mut recs = cut_and_changed();
    recs.extend(made_up(1500));
    let dumps = [
        (["-x", "-v"], Dump::Hex { link: false }, 1),
        (["-X", "-vv"], Dump::HexAscii { link: false }, 2),
        (["-A", "-v"], Dump::Ascii { link: false }, 1),
    ];
    let mut failures = Vec::new();
    for (flags, dump, verbose) in dumps {
        let theirs = with_written("dumps", &recs, |path| {
            let out = Command::new("tcpdump")
                .args(["-t", "-nn"])
                .args(flags)
                .arg("-r")
                .arg(path)
                .output()
                .expect("run tcpdump");
            String::from_utf8_lossy(&out.stdout).into_owned()
        });
        let opts = PrintOptions {
            summary: SummaryOptions {
                verbose,
                ..SummaryOptions::default()
            },
            time: TimeFormat::None,
            dump: Some(dump),
            ..PrintOptions::default()
        };
        let mut printer = Printer::new(LinkType::EN10MB, opts);
        let mut ours = String::new();
        for (data, wire_len) in &recs {
            let packet = Packet {
                sec: 0,
                frac: 0,
                data,
                wire_len: *wire_len,
            };
            ours.push_str(printer.line(&packet));
        }
        let (t, o): (Vec<&str>, Vec<&str>) = (theirs.lines().collect(), ours.lines().collect());
        if let Some(i) = (0..t.len().max(o.len())).find(|&i| t.get(i) != o.get(i)) {
            failures.push(format!(
                "{flags:?} line {i}\n   ours: {:?}\n   tcpd: {:?}",
                o.get(i),
                t.get(i)
            ));
        }
        assert!(
            t.len() > 10 * recs.len(),
            "{flags:?}: too few lines: {}",
            t.len()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
