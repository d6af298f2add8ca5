//! Prints the one-line summary of every packet of a pcap or pcapng file, like
//! `tcpdump -n -t -r FILE` (add `-S` for absolute TCP sequence numbers, `-e` for
//! the link-level header, `-v` or `-q` for tcpdump's verbose or quiet lines). With `--diff`, runs tcpdump on the file too and prints
//! the lines that differ.

#[path = "../tests/common/capture.rs"]
mod capture;
#[path = "../tests/common/tcpdump.rs"]
#[allow(dead_code)]
mod tcpdump;

use netsift_print::{Summarizer, SummaryOptions};
use std::io::Write;

fn main() {
    let mut opts = SummaryOptions::default();
    let mut diff = false;
    let mut files = Vec::new();
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "-S" => opts.absolute_tcp_seq = true,
            "-e" => opts.link_header = true,
            "-v" => opts.verbose = 1,
            "-q" => opts.quiet = true,
            "--diff" => diff = true,
            _ => files.push(a),
        }
    }
    for f in files {
        let bytes = match std::fs::read(&f) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{f}: {e}");
                continue;
            }
        };
        let Some(pkts) = capture::read_capture(&bytes) else {
            eprintln!("{f}: not a capture");
            continue;
        };
        let mut s = Summarizer::with_options(opts);
        let ours: Vec<String> = pkts
            .iter()
            .map(|p| {
                s.summarize(p.linktype, &p.data, p.wire_len)
                    .trim_end()
                    .to_string()
            })
            .collect();
        if !diff {
            let mut out = std::io::stdout().lock();
            for l in ours {
                if writeln!(out, "{l}").is_err() {
                    return;
                }
            }
            continue;
        }
        let mut extra = Vec::new();
        if opts.absolute_tcp_seq {
            extra.push("-S");
        }
        if opts.link_header {
            extra.push("-e");
        }
        if opts.verbose > 0 {
            extra.push("-v");
        }
        if opts.quiet {
            extra.push("-q");
        }
        let Some(theirs) = tcpdump::tcpdump_blocks(std::path::Path::new(&f), &extra) else {
            eprintln!("tcpdump failed");
            return;
        };
        if theirs.len() != ours.len() {
            println!("{f}: COUNT {} vs {}", ours.len(), theirs.len());
            continue;
        }
        let same = ours.iter().zip(&theirs).filter(|(a, b)| a == b).count();
        println!("{f}: {same}/{} same", ours.len());
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            if a != b {
                println!("  #{i}\n    ours: {a}\n    tcpd: {b}");
            }
        }
    }
}
