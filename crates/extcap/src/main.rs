//! `netsift-extcap`: Wireshark's extcap interface to `netsiftd`. Installed in
//! Wireshark's extcap folder (`tshark -G folders` names it), it lets tshark and
//! Wireshark list the daemon's sources as `netsift:SOURCE` interfaces and
//! capture from them with a capture filter, sharing the daemon's capture with
//! every other client instead of opening a socket of their own. (tshark and
//! Wireshark capture through dumpcap, which has file capabilities, so the
//! drop-in libpcap cannot reach them; extcap can.)

#![forbid(unsafe_code)]

mod args;
mod capture;
mod listing;

use args::Step;
use netsift_ffpf::Client;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

fn socket(given: Option<PathBuf>) -> PathBuf {
    netsift_ffpf::client::socket_path(given.as_deref())
}

/// The daemon's description of `source`.
fn source_info(
    socket: &std::path::Path,
    source: &str,
) -> Result<netsift_ffpf::proto::SourceInfo, String> {
    let client =
        Client::connect(socket).map_err(|e| format!("netsiftd at {}: {e}", socket.display()))?;
    let sources = client.sources().map_err(|e| e.to_string())?;
    sources
        .into_iter()
        .find(|s| s.name == source)
        .ok_or_else(|| format!("netsiftd at {} has no source {source}", socket.display()))
}

fn run() -> Result<(), String> {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let a = args::parse(&argv)?;
    for i in &a.ignored {
        eprintln!("netsift-extcap: ignoring {i}");
    }
    let sock = socket(a.socket.clone());
    match a.step {
        Step::Interfaces => {
            // No daemon: no interfaces, and no error (Wireshark asks every
            // extcap program at start-up and shows their complaints).
            let sources = Client::connect(&sock)
                .and_then(|c| c.sources())
                .unwrap_or_default();
            print!("{}", listing::interfaces(&sources));
        }
        Step::Dlts(i) => print!(
            "{}",
            listing::dlts(&source_info(&sock, listing::source_of(&i)?)?)
        ),
        Step::Config(i) => {
            listing::source_of(&i)?;
            print!("{}", listing::config(&sock.to_string_lossy()));
        }
        Step::Validate(i, filter) => {
            // Wireshark colours the filter box by this answer: nothing on
            // stdout is valid, a line is the error it shows.
            let info = source_info(&sock, listing::source_of(&i)?)?;
            if let Err(e) = netsift_pcapc::compile(&filter, netsift_wire::LinkType(info.linktype)) {
                println!("{e}");
            }
        }
        Step::Capture {
            interface,
            fifo,
            filter,
        } => {
            let source = listing::source_of(&interface)?;
            let stop = Arc::new(AtomicBool::new(false));
            for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
                signal_hook::flag::register(sig, Arc::clone(&stop))
                    .map_err(|e| format!("installing a signal handler: {e}"))?;
            }
            let done = capture::capture(&sock, source, &filter, a.snaplen, &fifo, &stop)?;
            eprintln!(
                "netsift-extcap: {} packets captured from {interface}",
                done.written
            );
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("netsift-extcap: {e}");
            ExitCode::FAILURE
        }
    }
}
