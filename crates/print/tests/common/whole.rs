//! Whole-output comparison: what `tcpdump -t -nn [flags] -r file` prints for
//! each packet (its line, continuation lines and dump) against netsift's
//! `Printer` with the same flags, packet by packet.

use super::CaptureFile;
use netsift_print::{
    DefaultPrint, Dump, Packet, PrintOptions, Printer, SummaryOptions, TimeFormat,
};
use std::process::Command;

/// The print options of tcpdump's `-e`, `-q`, `-u`, `-v`..., `-x`, `-X` in `flags`.
pub(crate) fn options(flags: &[&str]) -> PrintOptions {
    let has = |f: &str| flags.contains(&f);
    let dump = if has("-x") {
        Some(Dump::Hex { link: false })
    } else if has("-X") {
        Some(Dump::HexAscii { link: false })
    } else {
        None
    };
    let verbose = flags
        .iter()
        .filter(|f| f.starts_with("-v"))
        .map(|f| f.len() as u8 - 1)
        .sum();
    PrintOptions {
        summary: SummaryOptions {
            absolute_tcp_seq: false,
            link_header: has("-e"),
            nfs_handles: has("-u"),
            hex_ascii: has("-X"),
            quiet: has("-q"),
            verbose,
            default_print: if dump.is_some() || has("-q") {
                DefaultPrint::Suppressed
            } else {
                DefaultPrint::On
            },
            ..SummaryOptions::default()
        },
        time: TimeFormat::None,
        dump,
        ..PrintOptions::default()
    }
}

/// tcpdump's output for `-t` and `flags`, one block per packet (a line starting
/// with a tab or four spaces continues the one before). `None` when tcpdump cannot be run.
fn tcpdump_blocks(file: &std::path::Path, flags: &[&str]) -> Option<Vec<String>> {
    let out = Command::new("tcpdump")
        .arg("-t")
        .args(flags)
        .arg("-r")
        .arg(file)
        .env("TZ", "UTC")
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut blocks: Vec<String> = Vec::new();
    for line in text.lines() {
        match blocks.last_mut() {
            Some(b) if line.starts_with('\t') || line.starts_with("    ") => {
                b.push('\n');
                b.push_str(line);
            }
            _ => blocks.push(line.to_string()),
        }
    }
    Some(blocks)
}

/// Compares every packet of `cap` under `flags`: the number of packets
/// compared and a description of each that differs.
pub(crate) fn compare(cap: &CaptureFile, flags: &[&str]) -> (usize, Vec<String>) {
    let all: Vec<&str> = ["-nn"].iter().chain(flags).copied().collect();
    compare_as(cap, &all, options(flags))
}

/// [`compare`] with tcpdump's `flags` as given (`-nn` not added) and
/// netsift's options `opts`.
pub(crate) fn compare_as(
    cap: &CaptureFile,
    flags: &[&str],
    opts: PrintOptions,
) -> (usize, Vec<String>) {
    let (path, lt, recs) = cap;
    let Some(theirs) = tcpdump_blocks(path, flags) else {
        return (0, Vec::new());
    };
    let mut printer = Printer::new(*lt, opts);
    let mut diffs = Vec::new();
    let mut n = 0;
    for (i, (data, wire)) in recs.iter().enumerate() {
        let ours = printer
            .line(&Packet {
                sec: 0,
                frac: 0,
                data,
                wire_len: *wire,
            })
            .trim_end()
            .to_string();
        let Some(t) = theirs.get(i) else { break };
        n += 1;
        if ours != t.trim_end() {
            diffs.push(format!(
                "{} #{i} {flags:?}\n   ours: {ours}\n   tcpd: {t}",
                path.display()
            ));
        }
    }
    (n, diffs)
}
