//! Writes the README's sample capture: `samples/sample.pcap` at the repository root,
//! or the path given as the only argument.
//!
//! ```text
//! cargo run -p netsift-conformance --bin mksample [-- OUT.pcap]
//! ```

use std::process::ExitCode;

fn main() -> ExitCode {
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
