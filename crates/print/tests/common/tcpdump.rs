//! Runs the installed tcpdump and splits its output into one record per packet.

use std::path::Path;
use std::process::Command;

/// Whether `s` starts with tcpdump's default timestamp (`HH:MM:SS.frac `).
fn timestamp_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if b.len() < 10 {
        return None;
    }
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(|c| c.is_ascii_digit());
    if !(digits(0..2)
        && b[2] == b':'
        && digits(3..5)
        && b[5] == b':'
        && digits(6..8)
        && b[8] == b'.')
    {
        return None;
    }
    let mut i = 9;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i == 9 || i >= b.len() || b[i] != b' ' {
        return None;
    }
    Some(i + 1)
}

/// `tcpdump -n [extra] -r file`, one string per packet: the text after the
/// timestamp, continuation lines joined with a space, hex dump lines dropped,
/// trailing blanks removed. `None` when tcpdump cannot be run.
pub(crate) fn tcpdump_records(file: &Path, extra: &[&str]) -> Option<Vec<String>> {
    let text = tcpdump_text(file, extra)?;
    let mut records: Vec<String> = Vec::new();
    for line in text.lines() {
        if let Some(n) = timestamp_len(line) {
            records.push(line[n..].trim_end().to_string());
        } else if let Some(last) = records.last_mut() {
            let t = line.trim();
            if t.starts_with("0x") && line.starts_with('\t') {
                continue;
            }
            if !t.is_empty() {
                last.push(' ');
                last.push_str(t);
                *last = last.trim_end().to_string();
            }
        }
    }
    Some(records)
}

/// `tcpdump -n [extra] -r file`, one string per packet with its continuation
/// lines kept as they are (joined with `\n`, as `-v` prints them), hex dump lines
/// dropped (with any text a printer wrote after the dump on the same line, as
/// `tcpdump_records` drops it), trailing blanks of the record removed. `None` when tcpdump cannot be
/// run.
pub(crate) fn tcpdump_blocks(file: &Path, extra: &[&str]) -> Option<Vec<String>> {
    let text = tcpdump_text(file, extra)?;
    let mut records: Vec<String> = Vec::new();
    for line in text.lines() {
        if let Some(n) = timestamp_len(line) {
            records.push(line[n..].to_string());
        } else if let Some(last) = records.last_mut() {
            if line.starts_with('\t') && line.trim_start().starts_with("0x") {
                continue;
            }
            last.push('\n');
            last.push_str(line);
        }
    }
    for r in &mut records {
        r.truncate(r.trim_end().len());
    }
    Some(records)
}

/// `tcpdump -n [extra] -r file`, one string per packet with every line after
/// its timestamp as printed, hex dumps included (`-vv` prints many), trailing
/// blanks of the record removed. `None` when tcpdump cannot be run.
pub(crate) fn tcpdump_blocks_with_dumps(file: &Path, extra: &[&str]) -> Option<Vec<String>> {
    let text = tcpdump_text(file, extra)?;
    let mut records: Vec<String> = Vec::new();
    for line in text.lines() {
        match (timestamp_len(line), records.last_mut()) {
            (Some(n), _) => records.push(line[n..].to_string()),
            (None, Some(last)) => {
                last.push('\n');
                last.push_str(line);
            }
            (None, None) => {}
        }
    }
    for r in &mut records {
        r.truncate(r.trim_end().len());
    }
    Some(records)
}

/// What `tcpdump -n [extra] -r file` prints, in UTC.
fn tcpdump_text(file: &Path, extra: &[&str]) -> Option<String> {
    let out = Command::new("tcpdump")
        .arg("-n")
        .args(extra)
        .arg("-r")
        .arg(file)
        .env("TZ", "UTC")
        .output()
        .ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Whether tcpdump is installed.
pub(crate) fn have_tcpdump() -> bool {
    Command::new("tcpdump")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}
