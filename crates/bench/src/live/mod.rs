//! `netsift-bench live`: netsift against tcpdump on a real interface
//! (docs/BENCHMARKS.md, `live`).
//!
//! The benchmark makes its own network ([`netns::Netns`]: two namespaces and a
//! veth pair) and replays the static trace over it with tcpreplay, at fixed rates
//! and at top speed ([`replay`]). Two experiments:
//!
//! 1. **Capture cost** ([`contenders`]): `netsift -i` with one worker and with two,
//!    and `tcpdump -i`, one at a time on the same replay, same filter, same output
//!    (`-w /dev/null`) and same ring size; packets sent, captured and dropped by the
//!    kernel, and CPU seconds per million packets sent. The contenders' order
//!    rotates from run to run, so drifts of a shared machine hit all alike.
//! 2. **Filter edits under load** ([`edits`]): the filter alternates between two
//!    filters every few milliseconds; netsift's live set against libpcap's
//!    `pcap_setfilter`, counting lost and leaked packets by sequence number.
//!
//! [`report`] turns the runs into tables, the JSON line and the plots.

pub mod contenders;
pub mod edits;
pub mod netns;
pub mod replay;
pub mod report;

use contenders::{CaptureRun, Contender, Tools};
use edits::{EditRun, Stream};
use replay::Rate;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Set by SIGINT, SIGTERM or SIGHUP: the benchmark stops what it runs, and the
/// namespaces go as the stack unwinds.
#[derive(Clone, Debug, Default)]
pub struct Stop(Arc<AtomicBool>);

impl Stop {
    /// A flag the three signals set.
    pub fn on_signals() -> std::io::Result<Stop> {
        let s = Stop::default();
        for sig in [
            signal_hook::consts::SIGINT,
            signal_hook::consts::SIGTERM,
            signal_hook::consts::SIGHUP,
        ] {
            signal_hook::flag::register(sig, s.0.clone())?;
        }
        Ok(s)
    }

    /// Whether one of the signals has arrived.
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Sleeps `d`, or less with an error if the flag is set meanwhile.
    pub fn sleep(&self, d: Duration) -> Result<(), String> {
        let end = Instant::now() + d;
        while Instant::now() < end {
            if self.is_set() {
                return Err("interrupted".into());
            }
            std::thread::sleep((end - Instant::now()).min(Duration::from_millis(20)));
        }
        Ok(())
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct LiveConfig {
    /// The static trace (pcap, Ethernet).
    pub trace: PathBuf,
    /// The capture programs, the filter and the buffer size they are run with.
    pub tools: Tools,
    /// Replay rates of the capture-cost experiment.
    pub rates: Vec<Rate>,
    /// Replays per (contender, rate).
    pub runs: usize,
    /// How many times over one replay at top speed plays the trace.
    pub top_loops: usize,
    /// Packets of the edit stream.
    pub edit_packets: usize,
    /// Replay rate of the edit stream.
    pub edit_rate: Rate,
    /// Time between two filter changes.
    pub edit_period: Duration,
    /// Runs of the edit experiment per contender.
    pub edit_runs: usize,
    /// How long the in-memory edit stress runs.
    pub stress_time: Duration,
    /// Where the edit stream's pcap is written.
    pub work_dir: PathBuf,
}

impl LiveConfig {
    /// The full benchmark: 100k, 200k and 300k packets per second and top speed, three
    /// runs each; 1.5 million edit-stream packets at 200k per second, three runs.
    pub fn full(trace: PathBuf, tools: Tools, work_dir: PathBuf) -> LiveConfig {
        LiveConfig {
            trace,
            tools,
            rates: vec![
                Rate::Pps(100_000),
                Rate::Pps(200_000),
                Rate::Pps(300_000),
                Rate::Top,
            ],
            runs: 3,
            top_loops: 1,
            edit_packets: 1_500_000,
            edit_rate: Rate::Pps(200_000),
            edit_period: Duration::from_millis(2),
            edit_runs: 3,
            stress_time: Duration::from_secs(5),
            work_dir,
        }
    }

    /// Under a minute: 100k per second and top speed, one run; 400,000 edit-stream
    /// packets. At top speed the trace is played three times over, so that what
    /// a capture spends per packet outweighs what it spends once (the idle run);
    /// with one play of 200,000 packets the two were of a size, and the per-packet
    /// ratio swung from 0.23x to 0.76x between runs.
    pub fn quick(trace: PathBuf, tools: Tools, work_dir: PathBuf) -> LiveConfig {
        LiveConfig {
            rates: vec![Rate::Pps(100_000), Rate::Top],
            runs: 1,
            top_loops: 3,
            edit_packets: 400_000,
            edit_runs: 1,
            stress_time: Duration::from_secs(1),
            ..LiveConfig::full(trace, tools, work_dir)
        }
    }
}

/// Everything measured.
pub struct LiveReport {
    /// Packets in the trace.
    pub packets: u64,
    /// Packets of the trace the filter accepts as in a capture file (libpcap's
    /// offline verdicts; netsift captures exactly these when it drops nothing).
    pub expected: u64,
    /// The filter expression every contender ran.
    pub expr: String,
    /// The capture buffer (`-B`) every contender was given, KiB.
    pub buffer_kib: usize,
    /// One entry per contender, rate and run of the capture-cost experiment.
    pub runs: Vec<CaptureRun>,
    /// CPU seconds of each idle run ([`contenders::idle`]): started, listening as
    /// long as after a replay, stopped, nothing sent.
    pub idle: Vec<(Contender, f64)>,
    /// Packets of the edit stream.
    pub edit_packets: usize,
    /// Replay rate of the edit stream.
    pub edit_rate: Rate,
    /// Time between two filter changes in the edit experiment.
    pub edit_period: Duration,
    /// Packets of the edit stream that match both filters, and neither.
    pub edit_both: u64,
    /// Packets of the edit stream that match neither filter.
    pub edit_neither: u64,
    /// One entry per contender and run of the edit experiment.
    pub edits: Vec<EditRun>,
    /// The in-memory edit stress: edits back to back while packets are filtered.
    pub stress: edits::Stress,
    /// Wall-clock time of the whole benchmark, seconds.
    pub seconds: f64,
}

/// Packets of `trace` and how many `expr` accepts as `tcpdump -i` would on the
/// receiving end of the replay: the kernel takes an outer 802.1Q or 802.1ad tag
/// out of a received frame, and libpcap's kernel filter reads the frame without
/// it (netsift's live capture does the same, docs/status.md); libpcap offline
/// on each frame with that tag cut out.
fn count_expected(trace: &Path, expr: &str) -> Result<(u64, u64), String> {
    let f = netsift_oracle::Filter::compile(netsift_wire::LinkType::EN10MB, expr)?;
    let mut r = netsift_pcapio::open(trace).map_err(|e| format!("{}: {e}", trace.display()))?;
    let (mut n, mut acc) = (0, 0);
    while let Some(p) = r
        .next_packet()
        .map_err(|e| format!("{}: {e}", trace.display()))?
    {
        n += 1;
        let tagged = p.data.len() >= 18 && matches!(p.data[12..14], [0x81, 0x00] | [0x88, 0xa8]);
        acc += if tagged {
            let mut untagged = p.data[..12].to_vec();
            untagged.extend_from_slice(&p.data[16..]);
            f.accepts(&untagged, p.orig_len.saturating_sub(4))
        } else {
            f.accepts(p.data, p.orig_len)
        } as u64;
    }
    Ok((n, acc))
}

/// One contender of the edit experiment.
type EditFn = fn(&edits::Setup<'_>) -> Result<EditRun, String>;

/// Runs both experiments; `log` receives progress lines.
/// The edit experiment alone, for netsift with the clauses in the kernel
/// ([`edits::netsift_kernel`]): `packets` stream packets replayed at `rate`, a
/// filter change every `period`, on a network of its own.
pub fn kernel_edits(
    packets: usize,
    rate: Rate,
    period: Duration,
    buffer: usize,
    work_dir: &Path,
    stop: &Stop,
) -> Result<EditRun, String> {
    if let Some(why) = netns::missing_privilege() {
        return Err(why);
    }
    let stream = Stream::new(packets)?;
    let path = work_dir.join(format!("kernel-edits-{}.pcap", std::process::id()));
    write_stream(&stream, &path)?;
    let net = netns::new()?;
    let setup = edits::Setup {
        net: &net,
        trace: &path,
        stream: &stream,
        rate,
        period,
        buffer,
        stop,
    };
    let run = edits::netsift_kernel(&setup);
    let _ = std::fs::remove_file(&path);
    run
}

/// Writes the edit stream as a pcap file.
fn write_stream(stream: &Stream, path: &Path) -> Result<(), String> {
    let f = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    crate::write_pcap(std::io::BufWriter::new(f), &stream.packets, 65_535)
        .and_then(|mut w| std::io::Write::flush(&mut w))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Runs the whole live benchmark (capture cost at each rate, then the edit
/// experiment and the edit stress); needs root for the network namespaces, and
/// `log` receives progress lines.
pub fn run(cfg: &LiveConfig, stop: &Stop, mut log: impl FnMut(&str)) -> Result<LiveReport, String> {
    if let Some(why) = netns::missing_privilege() {
        return Err(why);
    }
    let t0 = Instant::now();
    let (packets, expected) = count_expected(&cfg.trace, &cfg.tools.expr)?;
    let stream = Stream::new(cfg.edit_packets)?;
    let stream_path = cfg.work_dir.join("edit-stream.pcap");
    write_stream(&stream, &stream_path)?;
    let net = netns::new()?;
    log(&format!(
        "namespaces {} -> {}, veth {} -> {}",
        net.a, net.b, net.veth_a, net.veth_b
    ));
    let mut runs = Vec::new();
    let mut idle = Vec::new();
    for r in 0..cfg.runs.max(1) {
        for (k, &rate) in cfg.rates.iter().enumerate() {
            for i in 0..Contender::ALL.len() {
                let c = Contender::ALL[(i + r + k) % Contender::ALL.len()];
                let loops = if rate == Rate::Top { cfg.top_loops } else { 1 };
                let trace = (cfg.trace.as_path(), loops.max(1));
                let run = contenders::run_one(&net, &cfg.tools, c, trace, (rate, r), stop)?;
                log(&format!(
                    "run {}/{}, {} pps, {}: sent {} ({:.0} pps), captured {}, dropped {}, {:.3} CPU s/Mpkt",
                    r + 1,
                    cfg.runs,
                    rate.label(),
                    c.name(),
                    run.sent.packets,
                    run.sent.pps(),
                    run.captured,
                    run.dropped,
                    run.cpu_per_mpkt()
                ));
                runs.push(run);
            }
        }
        for i in 0..Contender::ALL.len() {
            let c = Contender::ALL[(i + r) % Contender::ALL.len()];
            let cpu_s = contenders::idle(&net, &cfg.tools, c, stop)?;
            log(&format!(
                "run {}/{}, idle, {}: {:.1} CPU ms",
                r + 1,
                cfg.runs,
                c.name(),
                cpu_s * 1e3
            ));
            idle.push((c, cpu_s));
        }
    }
    // Each run's once-only cost: its contender's median over the idle runs.
    for run in &mut runs {
        let mine: Vec<f64> = idle
            .iter()
            .filter(|(c, _)| *c == run.contender)
            .map(|(_, s)| *s)
            .collect();
        run.idle_cpu_s = crate::stats::Stat::of(&mine).map_or(0.0, |s| s.median);
    }
    let setup = edits::Setup {
        net: &net,
        trace: &stream_path,
        stream: &stream,
        rate: cfg.edit_rate,
        period: cfg.edit_period,
        buffer: cfg.tools.buffer_kib * 1024,
        stop,
    };
    let mut edit_runs = Vec::new();
    for r in 0..cfg.edit_runs.max(1) {
        let all: [EditFn; 3] = [edits::netsift, edits::netsift_kernel, edits::libpcap];
        for k in 0..all.len() {
            // The order turns from run to run, so drifts hit all alike.
            let f = all[(k + r) % all.len()];
            let e = f(&setup)?;
            log(&format!(
                "edits run {}/{}, {}: {} edits, sent {}, delivered {}, lost {}, leaked {}, dropped {}",
                r + 1,
                cfg.edit_runs,
                e.contender,
                e.edits,
                e.sent.packets,
                e.delivered,
                e.lost,
                e.leaked,
                e.dropped
            ));
            edit_runs.push(e);
        }
    }
    let stress = edits::stress(&stream, cfg.stress_time)?;
    log(&format!(
        "edit stress: {} edits back to back, {} packets filtered meanwhile, {} lost, {} leaked",
        stress.edits, stress.evaluations, stress.lost, stress.leaked
    ));
    let (edit_both, edit_neither) = stream.classes();
    let _ = std::fs::remove_file(&stream_path);
    Ok(LiveReport {
        packets,
        expected,
        expr: cfg.tools.expr.clone(),
        buffer_kib: cfg.tools.buffer_kib,
        runs,
        idle,
        edit_packets: cfg.edit_packets,
        edit_rate: cfg.edit_rate,
        edit_period: cfg.edit_period,
        edit_both,
        edit_neither,
        edits: edit_runs,
        stress,
        seconds: t0.elapsed().as_secs_f64(),
    })
}
