//! `netsiftd`: the capture daemon's binary. It parses the flags, opens the
//! sources and the control socket, and serves until SIGINT or SIGTERM; then
//! it stops the sources and removes the socket. SIGHUP reads the policy file
//! again.

#![forbid(unsafe_code)]

use clap::Parser;
use netsiftd::{listener, Config, Daemon, Flags, Log};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

fn main() -> ExitCode {
    let flags = Flags::parse();
    let log: Log = Arc::new(|s: &str| eprintln!("netsiftd: {s}"));
    match run(&flags, &log) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("netsiftd: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(flags: &Flags, log: &Log) -> Result<(), String> {
    let cfg = Config::from_flags(flags)?;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop))
            .map_err(|e| format!("installing a signal handler: {e}"))?;
    }
    let socket = cfg.socket.clone();
    let sock = listener::bind(&socket, cfg.mode).map_err(|e| e.to_string())?;
    let names: Vec<String> = cfg.sources.iter().map(|s| s.name().to_string()).collect();
    let daemon = Arc::new(Daemon::new(cfg, Arc::clone(log))?);
    // SIGHUP: the policy file read again, off the signal handler (which only
    // sets the flag), by a thread that looks at it as the listener looks at
    // `stop`.
    let hup = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGHUP, Arc::clone(&hup))
        .map_err(|e| format!("installing a signal handler: {e}"))?;
    {
        let (daemon, stop, log) = (Arc::clone(&daemon), Arc::clone(&stop), Arc::clone(log));
        std::thread::Builder::new()
            .name("sighup".into())
            .spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(100));
                    if hup.swap(false, Ordering::Relaxed) {
                        match daemon.reload_policy() {
                            Ok(m) => log(&m),
                            Err(e) => log(&format!("{e}; the policy in force stays")),
                        }
                    }
                }
            })
            .map_err(|e| format!("the SIGHUP thread: {e}"))?;
    }
    log(&format!(
        "listening on {}, sources: {}",
        socket.display(),
        names.join(", ")
    ));
    listener::serve(&daemon, &sock, &stop, log);
    daemon.shutdown();
    let _ = std::fs::remove_file(&socket);
    log("stopped");
    Ok(())
}
