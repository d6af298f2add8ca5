//! Writing what tcpdump reads: a pcap file of records, and our summary in the form
//! `tcpdump_records` gives tcpdump's.

use netsift_pcapio::{file_header, record_header, TsPrecision};
use netsift_wire::LinkType;

/// A pcap file of `recs`, link type `lt`.
pub(crate) fn write_pcap(path: &std::path::Path, lt: LinkType, recs: &[(Vec<u8>, u32)]) {
    let mut b = file_header(lt, 65535, TsPrecision::Micro).to_vec();
    for (i, (data, wire)) in recs.iter().enumerate() {
        b.extend_from_slice(&record_header(i as u32, 0, data.len() as u32, *wire));
        b.extend_from_slice(data);
    }
    std::fs::write(path, b).expect("write the capture");
}

/// Writes `frames` (each whole, as on the wire) as a pcap capture of `lt`,
/// named `name`, in a temporary directory of its own; runs `f` on it, then
/// removes the directory.
pub(crate) fn with_written<T>(
    name: &str,
    lt: LinkType,
    frames: Vec<Vec<u8>>,
    f: impl FnOnce(&super::CaptureFile) -> T,
) -> T {
    let recs: Vec<(Vec<u8>, u32)> = frames
        .into_iter()
        .map(|d| {
            let n = d.len() as u32;
            (d, n)
        })
        .collect();
    let dir = std::env::temp_dir().join(format!("netsift-print-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join(format!("{name}.pcap"));
    write_pcap(&path, lt, &recs);
    let out = f(&(path, lt, recs));
    let _ = std::fs::remove_dir_all(&dir);
    out
}

/// tcpdump's record form of a (possibly multi-line, `-v`) summary.
pub(crate) fn flatten(s: &str) -> String {
    let mut lines = s.lines();
    let mut out = lines.next().unwrap_or("").trim_end().to_string();
    for l in lines {
        let t = l.trim();
        if !t.is_empty() {
            out.push(' ');
            out.push_str(t);
        }
    }
    out
}

/// tcpdump's flags and netsift's options for one comparison.
pub(crate) type FlagSet = (&'static [&'static str], netsift_print::SummaryOptions);

/// Lines compared, lines counted apart (`apart` says so of a packet and our line),
/// and the differing lines, for the packets `recs` of `lt` in `path` under each of
/// `sets`; a flag set tcpdump cannot run, or whose record count differs, is skipped.
pub(crate) fn compare_lines(
    path: &std::path::Path,
    lt: LinkType,
    recs: &[(Vec<u8>, u32)],
    sets: &[FlagSet],
    apart: impl Fn(&[u8], &str) -> bool,
) -> (usize, usize, Vec<String>) {
    let (mut compared, mut other, mut failures) = (0, 0, Vec::new());
    for (flags, opts) in sets {
        let Some(theirs) = super::tcpdump::tcpdump_records(path, flags) else {
            continue;
        };
        if theirs.len() != recs.len() {
            continue;
        }
        let mut s = netsift_print::Summarizer::with_options(*opts);
        for (i, ((data, wire), t)) in recs.iter().zip(&theirs).enumerate() {
            let ours = flatten(&s.summarize(lt, data, *wire));
            compared += 1;
            if &ours == t {
                continue;
            }
            if apart(data, &ours) {
                other += 1;
                continue;
            }
            failures.push(format!(
                "{} #{i} {flags:?}\n   ours: {ours}\n   tcpd: {t}",
                path.display()
            ));
        }
    }
    (compared, other, failures)
}

/// tcpdump's `flags` (among `-e`, `-q`, `-v`) with the options that mean the same.
pub(crate) fn flag_set(flags: &'static [&'static str]) -> FlagSet {
    let opts = netsift_print::SummaryOptions {
        link_header: flags.contains(&"-e"),
        quiet: flags.contains(&"-q"),
        verbose: u8::from(flags.contains(&"-v")),
        ..netsift_print::SummaryOptions::default()
    };
    (flags, opts)
}
