//! The daemon's configuration: its flags (parsed with clap, as the `netsift`
//! binary parses its own) and the typed [`Config`] they make. A bad flag is
//! refused before anything is opened.

use clap::Parser;
use netsift_ffpf::{CopyMode, Policy, StallBound};
use std::path::PathBuf;
use std::time::Duration;

/// The default control socket.
pub const DEFAULT_SOCKET: &str = netsift_ffpf::proto::DEFAULT_SOCKET;

/// The default PBuf size per flow group: 32 MiB, what two tcpdumps' `-B
/// 16384` rings hold, about 100 ms of full-size frames at 400 kpps (4 MiB
/// held 10-15 ms, less than a reader's scheduling delay on a loaded 2-core
/// machine: `netsift-bench multi` then lost up to 0.3%).
pub const DEFAULT_PBUF: u64 = 32 << 20;

/// The default IBuf entries per flow (24 bytes each: 768 KiB), as many
/// packets as the default PBuf holds at about 1 KiB a packet.
pub const DEFAULT_IBUF_ENTRIES: u64 = 32_768;

/// The command line of `netsiftd`.
#[derive(Parser, Debug, Clone)]
#[command(
    name = "netsiftd",
    version,
    about = "The netsift capture daemon: owns interfaces and capture files, filters once per \
             distinct filter, and serves flows to clients through shared memory"
)]
pub struct Flags {
    /// The control socket's path (removed and made again at start).
    #[arg(long = "socket", value_name = "PATH", default_value = DEFAULT_SOCKET)]
    pub socket: PathBuf,
    /// The control socket's mode, in octal (who may connect).
    #[arg(long = "mode", value_name = "OCTAL", default_value = "0660", value_parser = mode)]
    pub mode: u32,
    /// An interface to own (repeatable): its AF_PACKET ring is opened when its
    /// first flow is instantiated, and closed when its last flow closes.
    #[arg(long = "iface", value_name = "NAME")]
    pub iface: Vec<String>,
    /// A capture file to play as a source (repeatable), named NAME or after the
    /// file: its packets arrive at their own timing.
    #[arg(long = "file", value_name = "[NAME=]PATH")]
    pub file: Vec<String>,
    /// File sources: play once, or in a loop.
    #[arg(long = "play", value_name = "HOW", default_value = "once", value_parser = ["once", "loop"])]
    pub play: String,
    /// File sources: as fast as possible rather than at the file's timing.
    #[arg(long = "fast")]
    pub fast: bool,
    /// File sources: start playing once N flows have been activated on the
    /// source (tests start all their readers first, then the packets come).
    #[arg(long = "wait-flows", value_name = "N", default_value_t = 1)]
    pub wait_flows: u64,
    /// Flow groups' buffer preference: slow (nothing unread is overwritten;
    /// what does not fit is dropped) or fast (the writer overwrites).
    #[arg(long = "prefer", value_name = "READER", default_value = "slow", value_parser = ["slow", "fast"])]
    pub prefer: String,
    /// Where packets are stored (NIC-FIX §4.3): once per flow group
    /// (`once`), once per flow that accepted them (`per-flow`: a PBuf per
    /// flow, as sockets each get a copy; for comparison), or not at all
    /// (`zero`: every `--iface` is an AF_XDP source whose UMEM is its flow
    /// group's PBuf; only a group the policy grants `copy = "zero"`, or
    /// root's, may open flows on it; file sources copy once).
    #[arg(long = "copy", value_name = "MODE", default_value = "once", value_parser = ["once", "per-flow", "zero"])]
    pub copy: String,
    /// PBuf size per flow group, in bytes (a power of two, 4 KiB or more).
    #[arg(long = "pbuf-size", value_name = "BYTES", default_value_t = DEFAULT_PBUF, value_parser = pbuf_size)]
    pub pbuf_size: u64,
    /// IBuf entries of a flow that asks for no size (a power of two).
    #[arg(long = "ibuf-entries", value_name = "N", default_value_t = DEFAULT_IBUF_ENTRIES, value_parser = ibuf_entries)]
    pub ibuf_entries: u64,
    /// Slow-reader preference: detach a reader that stalls its group longer
    /// than this many milliseconds (default: never).
    #[arg(long = "stall-ms", value_name = "MS")]
    pub stall_ms: Option<u64>,
    /// Slow-reader preference: detach a reader that stalls its group for more
    /// than this many bytes of refused records (default: never).
    #[arg(long = "stall-bytes", value_name = "BYTES")]
    pub stall_bytes: Option<u64>,
    /// Keep at most this many bytes of each packet from an interface.
    #[arg(long = "snaplen", value_name = "BYTES", default_value_t = netsift_ffpf::proto::MAX_SNAPLEN)]
    pub snaplen: u32,
    /// Capture threads per interface, each with a ring of its own in one
    /// PACKET_FANOUT group (packets of one connection stay on one thread and
    /// in order); each thread hands its batches to the shared dispatch.
    #[arg(long = "workers", value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub workers: u16,
    /// Flows one connection may hold.
    #[arg(long = "max-flows", value_name = "N", default_value_t = 64)]
    pub max_flows: usize,
    /// Connections served at once.
    #[arg(long = "max-connections", value_name = "N", default_value_t = 256)]
    pub max_connections: usize,
    /// With `--copy zero`: IFACE is a monitor port (a tap or a mirror port
    /// carrying no traffic of this host), so its frames may be redirected to
    /// the daemon although it has an address or a route (repeatable).
    #[arg(long = "monitor-port", value_name = "IFACE")]
    pub monitor_port: Vec<String>,
    /// The authorisation policy (TOML rules: who may open flows on which
    /// sources, with which filter in front, snap length, buffer and flows).
    /// Without it the socket's mode decides who may connect, and each user is
    /// a class of rights of its own with every right.
    #[arg(long = "policy", value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// A pattern set FPL programs may search with
    /// `EXTERN("aho_corasick:SET", in, out)` (repeatable): FILE holds one
    /// pattern a line (escapes `\xHH`, `\\`, `\n`, `\r`, `\t`, `\0`, `\s`, `\#`;
    /// blank lines and `#` comments skipped), built once, at start.
    #[arg(long = "patterns", value_name = "SET=FILE")]
    pub patterns: Vec<String>,
}

fn mode(s: &str) -> Result<u32, String> {
    u32::from_str_radix(s.trim_start_matches("0o"), 8)
        .ok()
        .filter(|m| *m <= 0o777)
        .ok_or_else(|| format!("mode {s}: an octal number up to 0777"))
}

fn pbuf_size(s: &str) -> Result<u64, String> {
    s.parse::<u64>()
        .ok()
        .filter(|n| n.is_power_of_two() && *n >= 4096)
        .ok_or_else(|| format!("PBuf size {s}: a power of two, 4096 or more"))
}

fn ibuf_entries(s: &str) -> Result<u64, String> {
    use netsift_ffpf::proto::{MAX_IBUF_ENTRIES, MIN_IBUF_ENTRIES};
    s.parse::<u64>()
        .ok()
        .filter(|n| n.is_power_of_two() && (MIN_IBUF_ENTRIES..=MAX_IBUF_ENTRIES).contains(n))
        .ok_or_else(|| {
            format!(
                "IBuf entries {s}: a power of two from {MIN_IBUF_ENTRIES} to {MAX_IBUF_ENTRIES}"
            )
        })
}

/// How a file source plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Play {
    /// Again from the start at the end.
    pub looped: bool,
    /// Without waiting for the packets' time stamps.
    pub fast: bool,
    /// Activations to wait for before the first packet.
    pub wait_flows: u64,
}

/// A source the daemon owns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceSpec {
    /// An interface's ring.
    Ring {
        /// The interface.
        iface: String,
        /// Capture threads, each with a ring of its own in one fanout group
        /// (`--workers`).
        workers: usize,
    },
    /// An interface's frames redirected by XDP to an AF_XDP socket whose
    /// UMEM is the PBuf of its one (zero-copy) flow group.
    Xdp {
        /// The interface.
        iface: String,
        /// Named with `--monitor-port`: carrying the host's traffic is no
        /// reason to refuse it.
        monitor: bool,
    },
    /// A capture file, played.
    File {
        /// Its name as a source.
        name: String,
        /// Its path.
        path: PathBuf,
        /// How it plays.
        play: Play,
    },
}

impl SourceSpec {
    /// Its name as a source.
    pub fn name(&self) -> &str {
        match self {
            SourceSpec::Ring { iface, .. } | SourceSpec::Xdp { iface, .. } => iface,
            SourceSpec::File { name, .. } => name,
        }
    }
}

/// The daemon's configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// The control socket's path.
    pub socket: PathBuf,
    /// Its mode.
    pub mode: u32,
    /// The sources, by distinct name.
    pub sources: Vec<SourceSpec>,
    /// The groups' buffer preference.
    pub policy: Policy,
    /// Where packets are stored: once per group, once per flow, or in the
    /// kernel's frames (zero copy, on interfaces, for groups granted it).
    pub copy: CopyMode,
    /// PBuf bytes per group (per flow with [`CopyMode::PerFlow`]).
    pub pbuf_bytes: u64,
    /// IBuf entries of a flow that asks for no size.
    pub ibuf_entries: u64,
    /// The stall bound of slow-reader groups.
    pub stall: StallBound,
    /// Snap length of interface captures.
    pub snaplen: u32,
    /// Flows per connection.
    pub max_flows: usize,
    /// Connections at once.
    pub max_connections: usize,
    /// The authorisation policy, read at start (`None`: one class of rights
    /// per user, every right).
    pub auth: Option<netsift_ffpf::auth::Policy>,
    /// Where it was read from, to read it again on SIGHUP.
    pub auth_file: Option<PathBuf>,
    /// The external functions FPL's `EXTERN` may call: the standard ones and
    /// the `--patterns` sets, their searchers built once.
    pub externs: netsift_externs::Library,
}

impl Config {
    /// The configuration `flags` ask for; an error names the flag at fault.
    pub fn from_flags(flags: &Flags) -> Result<Config, String> {
        let play = Play {
            looped: flags.play == "loop",
            fast: flags.fast,
            wait_flows: flags.wait_flows,
        };
        let zero = flags.copy == "zero";
        if let Some(m) = flags.monitor_port.iter().find(|m| !flags.iface.contains(m)) {
            return Err(format!(
                "--monitor-port {m}: not an interface the daemon owns (give --iface {m})"
            ));
        }
        if !zero && !flags.monitor_port.is_empty() {
            return Err("--monitor-port: only with --copy zero (nothing else \
                        redirects an interface's frames)"
                .into());
        }
        let mut sources: Vec<SourceSpec> = flags
            .iface
            .iter()
            .map(|i| match zero {
                true => SourceSpec::Xdp {
                    iface: i.clone(),
                    monitor: flags.monitor_port.contains(i),
                },
                false => SourceSpec::Ring {
                    iface: i.clone(),
                    workers: usize::from(flags.workers),
                },
            })
            .collect();
        for f in &flags.file {
            let (name, path) = match f.split_once('=') {
                Some((n, p)) if !n.is_empty() && !n.contains('/') => {
                    (n.to_string(), PathBuf::from(p))
                }
                _ => {
                    let p = PathBuf::from(f);
                    let n = p
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .ok_or_else(|| format!("--file {f}: no file name"))?;
                    (n, p)
                }
            };
            sources.push(SourceSpec::File { name, path, play });
        }
        let mut names: Vec<&str> = sources.iter().map(SourceSpec::name).collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!(
                "two sources named {}: name a file source with --file NAME=PATH",
                w[0]
            ));
        }
        if let Some(n) = names
            .iter()
            .find(|n| n.len() > netsift_ffpf::proto::MAX_NAME)
        {
            return Err(format!(
                "source name {n}: longer than {} bytes",
                netsift_ffpf::proto::MAX_NAME
            ));
        }
        if sources.is_empty() {
            return Err("no source: give --iface NAME or --file PATH".into());
        }
        let policy = match flags.prefer.as_str() {
            "fast" => Policy::FastReader,
            _ => Policy::SlowReader,
        };
        let copy = match flags.copy.as_str() {
            "per-flow" => CopyMode::PerFlow,
            // Granted per group, by the policy, on interfaces only
            // (`rights::copy_mode`).
            "zero" => CopyMode::Zero,
            _ => CopyMode::Once,
        };
        let externs = pattern_sets(&flags.patterns)?;
        Ok(Config {
            socket: flags.socket.clone(),
            mode: flags.mode,
            sources,
            policy,
            copy,
            pbuf_bytes: flags.pbuf_size,
            ibuf_entries: flags.ibuf_entries,
            stall: StallBound {
                time: flags.stall_ms.map(Duration::from_millis),
                bytes: flags.stall_bytes,
            },
            snaplen: flags.snaplen.clamp(1, netsift_ffpf::proto::MAX_SNAPLEN),
            max_flows: flags.max_flows.max(1),
            max_connections: flags.max_connections.max(1),
            externs,
            auth_file: flags.policy.clone(),
            auth: match &flags.policy {
                None => None,
                Some(p) => Some(
                    netsift_ffpf::auth::Policy::load_with(p, &crate::vocabulary::Names)
                        .map_err(|e| format!("--policy: {e}"))?,
                ),
            },
        })
    }
}

/// The standard external functions plus a pattern set per `SET=FILE`; an
/// error names the flag, and the file and line at fault.
fn pattern_sets(sets: &[String]) -> Result<netsift_externs::Library, String> {
    let mut lib = netsift_externs::Library::new();
    for s in sets {
        let Some((name, file)) = s.split_once('=') else {
            return Err(format!("--patterns {s}: give SET=FILE"));
        };
        lib.aho_corasick_file(name, std::path::Path::new(file))
            .map_err(|e| format!("--patterns {s}: {e}"))?;
    }
    Ok(lib)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(args: &[&str]) -> Result<Config, String> {
        let mut argv = vec!["netsiftd", "--file", "x.pcap"];
        argv.extend(args);
        Config::from_flags(&Flags::parse_from(argv))
    }

    #[test]
    fn copy_modes_parse_and_zero_makes_interfaces_xdp_sources() {
        assert_eq!(config(&[]).unwrap().copy, CopyMode::Once);
        assert_eq!(
            config(&["--copy", "per-flow"]).unwrap().copy,
            CopyMode::PerFlow
        );
        let c = config(&["--copy", "zero", "--iface", "a", "--iface", "b"]).unwrap();
        assert_eq!(c.copy, CopyMode::Zero);
        assert!(matches!(
            c.sources[0],
            SourceSpec::Xdp { monitor: false, .. }
        ));
        let c = config(&["--copy", "zero", "--iface", "a", "--monitor-port", "a"]).unwrap();
        assert!(matches!(
            c.sources[0],
            SourceSpec::Xdp { monitor: true, .. }
        ));
        assert!(matches!(c.sources[1], SourceSpec::File { .. }));
        let e = config(&["--copy", "zero", "--monitor-port", "a"]).unwrap_err();
        assert!(e.contains("--monitor-port a"), "{e}");
        let e = config(&["--iface", "a", "--monitor-port", "a"]).unwrap_err();
        assert!(e.contains("--copy zero"), "{e}");
    }

    #[test]
    fn pattern_sets_are_built_at_start_and_refused_with_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("worms.txt");
        std::fs::write(&good, "# worms\ncmd.exe\n\\x2fdefault.ida\n").unwrap();
        let bad = dir.path().join("bad.txt");
        std::fs::write(&bad, "ok\n\n  \\q\n").unwrap();
        let arg = |p: &std::path::Path, set: &str| format!("{set}={}", p.display());
        let c = config(&["--patterns", &arg(&good, "worms")]).unwrap();
        let names: Vec<String> = c
            .externs
            .functions()
            .iter()
            .map(|f| f.name().into())
            .collect();
        assert!(
            names.contains(&"aho_corasick:worms".to_string()),
            "{names:?}"
        );
        let e = config(&["--patterns", &arg(&bad, "b")]).unwrap_err();
        assert!(
            e.contains("bad.txt, line 3") && e.contains("--patterns"),
            "{e}"
        );
        let e = config(&["--patterns", &arg(&good, "no/slash")]).unwrap_err();
        assert!(e.contains("not a aho_corasick name"), "{e}");
        let e = config(&["--patterns", "worms"]).unwrap_err();
        assert!(e.contains("SET=FILE"), "{e}");
        let missing = dir.path().join("missing.txt");
        let e = config(&["--patterns", &arg(&missing, "m")]).unwrap_err();
        assert!(e.contains("missing.txt"), "{e}");
    }
}
