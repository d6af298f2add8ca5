//! `netsift-bench multi`: many monitoring applications on one link, FFPF's
//! Figure 12 and Table 1 (docs/BENCHMARKS.md, `multi`).
//!
//! FFPF (§5) ran N concurrent tcpdumps with overlapping filters through
//! Linux's socket filter, where every application has its own socket and the
//! kernel filters and copies each packet once per application, and through
//! FFPF's shared buffers, where a packet is stored once and each application
//! gets an index. This module measures the same on a veth pair:
//!
//! 1. **Figure 12 live** ([`point`]): the trace ([`trace`]) replayed with
//!    tcpreplay at fixed rates and at top speed while N unmodified tcpdumps
//!    ([`apps`]) capture, for two contenders, the stock libpcap and netsift's
//!    drop-in libpcap (optionally around a daemon, [`daemon`]), plus the sender
//!    alone. Per point: the machine's busy CPU per million packets
//!    ([`procstat`]), the part of it that is not the applications' own (the
//!    kernel's and the daemon's: the shared cost), the sender's rate, and the
//!    worst application's loss. Rounds repeat every point; within a round the
//!    contenders alternate which goes first.
//! 2. **Table 1 in process** ([`table1`]): ns per operation of a filter call, a
//!    filter stage, an IBuf index, a PBuf store and a wake-up.
//! 3. **The slow-reader run** ([`slow_reader`]): the accounting identity under
//!    the slow-reader preference with a reader that sleeps.
//! 4. **The copy modes** ([`copy_modes`]): the netsift contender through
//!    `netsiftd` with each `--copy` mode at top speed.
//!
//! [`report`] turns the runs into tables and the JSON line.

pub mod apps;
pub mod copy_modes;
pub mod daemon;
pub mod point;
pub mod procstat;
pub mod report;
pub mod sender;
pub mod slow_reader;
pub mod table1;
pub mod trace;

use crate::live::netns;
use crate::live::replay::Rate;
use crate::live::Stop;
use apps::{Apps, Contender};
use point::{Point, PointRun, Setup};
use std::path::PathBuf;
use std::time::Instant;

/// What to run.
#[derive(Clone, Debug)]
pub struct MultiConfig {
    /// The applications and the contenders' setup.
    pub apps: Apps,
    /// The numbers of concurrent applications.
    pub counts: Vec<usize>,
    /// Replay rates.
    pub rates: Vec<Rate>,
    /// Rounds: every point once per round.
    pub runs: usize,
    /// Packets of the trace.
    pub packets: usize,
    /// Plays of the trace per replay at top speed.
    pub top_loops: usize,
    /// Table 1's timing.
    pub table1: table1::Table1Config,
    /// Packets of each slow-reader pass.
    pub slow_reader_packets: u64,
    /// The numbers of applications the copy modes run with (at top speed).
    pub copy_counts: Vec<usize>,
    /// Where the trace is written.
    pub work_dir: PathBuf,
}

impl MultiConfig {
    /// The full run: 1 to 8 applications, 150 kpps and top speed, three rounds,
    /// 500,000 packets (twice over at top speed).
    pub fn full(apps: Apps, work_dir: PathBuf) -> MultiConfig {
        MultiConfig {
            apps,
            counts: (1..=8).collect(),
            rates: vec![Rate::Pps(150_000), Rate::Top],
            runs: 3,
            packets: 500_000,
            top_loops: 2,
            table1: table1::Table1Config {
                runs: 7,
                scale: 1.0,
            },
            slow_reader_packets: 100_000,
            copy_counts: vec![1, 6],
            work_dir,
        }
    }

    /// Under three minutes on two cores: 1 and 6 applications, one round,
    /// 200,000 packets; the copy modes at 6 only (about 30 s more).
    pub fn quick(apps: Apps, work_dir: PathBuf) -> MultiConfig {
        MultiConfig {
            counts: vec![1, 6],
            runs: 1,
            packets: 200_000,
            table1: table1::Table1Config {
                runs: 5,
                scale: 0.2,
            },
            slow_reader_packets: 20_000,
            copy_counts: vec![6],
            ..MultiConfig::full(apps, work_dir)
        }
    }
}

/// Everything measured.
#[derive(Clone, Debug)]
pub struct MultiReport {
    /// The trace replayed.
    pub trace: trace::Trace,
    /// The numbers of applications, ascending.
    pub counts: Vec<usize>,
    /// The rates, as configured.
    pub rates: Vec<Rate>,
    /// Rounds.
    pub runs: usize,
    /// Plays of the trace per replay at top speed.
    pub top_loops: usize,
    /// How the netsift contender ran: the shim in process, or with a daemon.
    pub netsift_backend: String,
    /// Every point of every round.
    pub points: Vec<PointRun>,
    /// The copy modes' points (empty when the daemon cannot be told a mode).
    pub copy_modes: Vec<copy_modes::CopyRun>,
    /// The numbers of applications of the copy modes' points.
    pub copy_counts: Vec<usize>,
    /// The slow-reader passes (unbounded stall, then bounded).
    pub slow_reader: Vec<slow_reader::SlowReaderRun>,
    /// Table 1.
    pub table1: Vec<table1::Row>,
    /// Wall-clock seconds of the whole run.
    pub seconds: f64,
}

/// Runs the experiment; `log` receives a line per point.
pub fn run(
    cfg: &MultiConfig,
    stop: &Stop,
    mut log: impl FnMut(&str),
) -> Result<MultiReport, String> {
    if let Some(why) = netns::missing_privilege() {
        return Err(why);
    }
    let t0 = Instant::now();
    let shim = cfg.apps.netsift.shim_dir.join("libpcap.so.0.8");
    if !shim.exists() {
        return Err(format!(
            "{} not found: build it with `cargo build --release -p netsift-libpcap`",
            shim.display()
        ));
    }
    let tr = trace::write(&cfg.work_dir, cfg.packets)?;
    log(&format!(
        "trace {}: {} packets, {:.0} bytes each on average; expected per filter {:?}",
        tr.path.display(),
        tr.packets,
        tr.mean_bytes,
        tr.expected
    ));
    let net = netns::new()?;
    log(&format!(
        "namespaces {} -> {}, veth {} -> {}",
        net.a, net.b, net.veth_a, net.veth_b
    ));
    let setup = Setup {
        net: &net,
        apps: &cfg.apps,
        trace: (&tr.path, tr.packets),
        expected: &tr.expected,
        stop,
    };
    let mut counts = cfg.counts.clone();
    counts.sort_unstable();
    counts.dedup();
    let mut points = Vec::new();
    for round in 0..cfg.runs.max(1) {
        for (k, &rate) in cfg.rates.iter().enumerate() {
            let loops = if rate == Rate::Top { cfg.top_loops } else { 1 };
            let mut todo = vec![Point {
                contender: None,
                apps: 0,
                rate,
                loops,
                round,
            }];
            for (j, &n) in counts.iter().enumerate() {
                // Alternate which contender goes first, so a drift of the
                // shared machine hits both alike.
                let first = (round + k + j) % 2;
                for i in 0..2 {
                    todo.push(Point {
                        contender: Some(Contender::ALL[(first + i) % 2]),
                        apps: n,
                        rate,
                        loops,
                        round,
                    });
                }
            }
            for p in todo {
                let r = point::measure(&setup, p)?;
                log(&report::point_line(&r, cfg.runs));
                points.push(r);
            }
        }
    }
    let copy = copy_modes::run(
        &setup,
        &cfg.copy_counts,
        cfg.runs,
        cfg.top_loops,
        |r, mode| {
            log(&format!(
                "--copy {mode}: {}",
                report::point_line(r, cfg.runs)
            ))
        },
    )?;
    drop(net);
    let mut slow = Vec::new();
    for bounded in [false, true] {
        let r = slow_reader::run(cfg.slow_reader_packets, bounded)?;
        log(&report::slow_line(&r));
        slow.push(r);
    }
    log("table 1: timing in process");
    let t1 = table1::run(&cfg.table1)?;
    let _ = std::fs::remove_file(&tr.path);
    Ok(MultiReport {
        trace: tr,
        counts,
        rates: cfg.rates.clone(),
        runs: cfg.runs.max(1),
        top_loops: cfg.top_loops,
        netsift_backend: backend_label(&cfg.apps),
        points,
        copy_modes: copy,
        copy_counts: cfg.copy_counts.clone(),
        slow_reader: slow,
        table1: t1,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// How the netsift contender captures, as the report says it.
pub fn backend_label(apps: &Apps) -> String {
    let env: Vec<String> = apps
        .netsift
        .env
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    match &apps.netsift.daemon {
        None if env.is_empty() => {
            "the shim's in-process session backend (a capture per tcpdump)".into()
        }
        None => format!("the shim with {}", env.join(" ")),
        Some(d) => format!(
            "the shim with {} around the daemon `{}`",
            if env.is_empty() {
                "no extra environment".to_string()
            } else {
                env.join(" ")
            },
            shell_words(&d.argv)
        ),
    }
}

/// `argv` as a shell would read it back: words with spaces, quotes or `$` in
/// single quotes.
fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|w| {
            let plain =
                !w.is_empty() && !w.contains(|c: char| c.is_whitespace() || "'\"\\$".contains(c));
            if plain {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::{daemon::split_command, shell_words};

    #[test]
    fn a_daemon_line_reads_back_as_it_was_given() {
        let line = r#"sh -c 'touch "$X"; exec sleep 9' it\'s"#;
        let argv = split_command(line).unwrap();
        let shown = shell_words(&argv);
        assert_eq!(shown, r#"sh -c 'touch "$X"; exec sleep 9' 'it'\''s'"#);
        assert_eq!(split_command(&shown).unwrap(), argv);
    }
}
