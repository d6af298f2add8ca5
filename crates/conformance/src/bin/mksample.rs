//! Writes the README's sample capture: `samples/sample.pcap` at the repository root,
//! or the path given as the only argument.
//!
//! ```text
//! cargo run -p netsift-conformance --bin mksample [-- OUT.pcap]
//! cargo run -p netsift-conformance --bin mksample -- --generated DIR
//! ```

#![forbid(unsafe_code)]

use std::process::ExitCode;

/// `--generated DIR`: writes every generated capture the differential tests use
/// (`gen-<LINKTYPE>-<kind>.pcap`), so that a mismatch the random test reports can be
/// replayed with `tcpdump -r` and `netsift -r`.
fn write_generated(dir: &std::path::Path) -> std::io::Result<usize> {
    use netsift_pcapio::{PcapWriter, TsPrecision};
    std::fs::create_dir_all(dir)?;
    let caps = netsift_conformance::generated_captures();
    for (name, lt, packets) in &caps {
        let f = std::fs::File::create(dir.join(format!("{name}.pcap")))?;
        let mut w = PcapWriter::new(std::io::BufWriter::new(f), *lt, 262144, TsPrecision::Micro)?;
        for p in packets {
            w.write_packet(p.ts_sec as u32, p.ts_usec as u32, &p.data, p.wire_len)?;
        }
        w.flush()?;
    }
    Ok(caps.len())
}

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    if args.first().is_some_and(|a| a == "--generated") {
        let Some(dir) = args.get(1) else {
            eprintln!("mksample: --generated needs a directory");
            return ExitCode::FAILURE;
        };
        let dir = std::path::Path::new(dir);
        return match write_generated(dir) {
            Ok(n) => {
                println!("wrote {n} generated captures to {}", dir.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("mksample: {}: {e}", dir.display());
                ExitCode::FAILURE
            }
        };
    }
    let out = std::env::args_os()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(netsift_conformance::sample::sample_path);
    let bytes = netsift_conformance::sample::sample_pcap();
    let n = netsift_conformance::sample::sample_packets().len();
    if let Some(dir) = out.parent() {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("mksample: {}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
    }
    match std::fs::write(&out, &bytes) {
        Ok(()) => {
            println!(
                "wrote {} ({n} packets, {} bytes)",
                out.display(),
                bytes.len()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mksample: {}: {e}", out.display());
            ExitCode::FAILURE
        }
    }
}
