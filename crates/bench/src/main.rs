//! `netsift-bench`: a thin command line over the `netsift_bench` library.
//!
//! Each subcommand is one variant of [`Command`] with its own argument struct and
//! one `run_*` function; adding a subcommand means adding those three things and
//! one match arm in [`main`].

#![deny(unsafe_op_in_unsafe_fn)]

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use netsift_bench::{ftp_workload, FtpConfig};

/// Workload generators and benchmarks for netsift.
#[derive(Parser, Debug)]
#[command(name = "netsift-bench", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Generate the passive-mode FTP trace of the Swift paper (section 5.1) as an
    /// Ethernet pcap file, with an optional per-packet ground truth.
    GenFtp(GenFtpArgs),
    /// The dynamic-filtering experiment (Swift section 5.1): update latency against
    /// connections and missed packets in a real-time replay, netsift beside libpcap
    /// and the kernel's SO_ATTACH_FILTER.
    Dynamic(DynamicArgs),
    /// Generate the static-filtering trace (Swift section 5.2): a realistic gateway
    /// mix, 75-byte snapshot length by default; prints the six filters' selectivities.
    GenTrace(GenTraceArgs),
    /// The static-filtering experiment (Swift section 5.2, Tables 5-7, Figure 10):
    /// ns/packet of netsift, libpcap's BPF interpreter and hand-written native
    /// filters, plus netsift without SIMD and without hierarchical execution.
    Static(StaticArgs),
    /// End-to-end throughput: `netsift -r T -w O EXPR` against `tcpdump -r T -w O
    /// EXPR` as whole processes, filters 2-6, with a byte-for-byte output check.
    E2e(E2eArgs),
    /// Kernel placement: ns/packet of netsift's generated eBPF and of
    /// libpcap's classic program, both run by the kernel, beside the batch engine;
    /// map-write and program-swap latency; and Swift's FTP capture live over a veth
    /// pair, data packets missed per connection for `netsift --follow ftp --place
    /// kernel|user` and libpcap recompiling its filter. Needs root (CAP_BPF,
    /// CAP_NET_ADMIN; the FTP part is skipped without the latter).
    Kernel(KernelArgs),
    /// Live capture: the static trace replayed over a veth pair in
    /// namespaces of its own, `netsift -i` (1 and 2 workers) against `tcpdump -i`,
    /// and filter edits under load, netsift's live set against `pcap_setfilter`.
    /// Needs root (CAP_NET_ADMIN).
    Live(LiveArgs),
    /// Many applications on one link (FFPF section 5, Figure 12 and Table 1):
    /// N concurrent unmodified tcpdumps with overlapping filters through the
    /// stock libpcap and through netsift's drop-in libpcap, machine-wide CPU per
    /// packet and the shared part of it, the sender's rate and the worst
    /// application's loss; Table 1's per-operation costs and the slow-reader
    /// accounting in process. Needs root (CAP_NET_ADMIN) and the shim
    /// (`cargo build --release -p netsift-libpcap`).
    Multi(MultiArgs),
    /// FFPF's filter graphs and FPL (Table 1 rows 6-9): Aho-Corasick with and
    /// without a match, the Table 1 filter in FPL (interpreter, JIT, eBPF)
    /// against libpcap's BPF and netsift's pcap engine, and six flows sharing
    /// a pcap prefix against six independent ones, in process. eBPF needs
    /// CAP_BPF; without it its figures are null.
    Graphs(GraphsArgs),
}

/// Options of `graphs`.
#[derive(Args, Debug)]
struct GraphsArgs {
    /// Finish in well under a minute (7 rounds, half the operations,
    /// 100,000 packets).
    #[arg(long)]
    quick: bool,
    /// Print one JSON object as the last line.
    #[arg(long)]
    json: bool,
    /// Rounds of every set of contenders (default 11, quick 7).
    #[arg(long)]
    runs: Option<usize>,
    /// Operations per round as a fraction of the full run's (default 1,
    /// quick 0.5), for tests on unoptimised builds.
    #[arg(long)]
    scale: Option<f64>,
    /// Packets of the generated trace of the prefix experiment (default
    /// 300,000, quick 100,000).
    #[arg(long)]
    packets: Option<usize>,
}

/// Options of `multi`.
#[derive(Args, Debug)]
struct MultiArgs {
    /// Finish in under three minutes (1 and 6 applications, 200,000 packets,
    /// one round).
    #[arg(long)]
    quick: bool,
    /// Print one JSON object as the last line.
    #[arg(long)]
    json: bool,
    /// Numbers of concurrent applications, comma-separated (default 1-8, quick 1,6).
    #[arg(long, value_delimiter = ',')]
    apps: Vec<usize>,
    /// Replay rates in packets per second, comma-separated; `top` for top speed
    /// (default 150000,top).
    #[arg(long, value_delimiter = ',')]
    rates: Vec<String>,
    /// Rounds: every point once per round (default 3, quick 1).
    #[arg(long)]
    runs: Option<usize>,
    /// Packets of the generated trace (default 500,000, quick 200,000).
    #[arg(long)]
    packets: Option<usize>,
    /// Plays of the trace per replay at top speed.
    #[arg(long, default_value_t = 2)]
    top_loops: usize,
    /// Ring size of every application (`-B`), KiB.
    #[arg(long, default_value_t = 16384)]
    buffer_kib: usize,
    /// The tcpdump both contenders run.
    #[arg(long, default_value = "tcpdump")]
    tcpdump: PathBuf,
    /// The directory holding netsift's libpcap.so.0.8 (default: `libpcap`
    /// beside this binary, where `cargo build -p netsift-libpcap` puts it).
    #[arg(long, value_name = "DIR")]
    shim_dir: Option<PathBuf>,
    /// Environment for the netsift contender's tcpdumps and daemon, KEY=VALUE
    /// (repeatable), e.g. NETSIFT_SOCKET=/run/netsiftd.sock.
    #[arg(long = "netsift-env", value_name = "KEY=VALUE")]
    netsift_env: Vec<String>,
    /// A daemon to run around each netsift measurement, its command line
    /// (split into words as a shell would, quotes kept, no expansions),
    /// started in the capture namespace and stopped with SIGTERM. Default:
    /// `netsiftd` beside this binary, owning the capture interface, on a
    /// socket in the run's directory (so the netsift tcpdumps share one
    /// capture, as FFPF's do).
    #[arg(long, value_name = "COMMAND")]
    daemon: Option<String>,
    /// With --daemon: wait until this path exists (its socket) before starting
    /// the tcpdumps.
    #[arg(long, value_name = "PATH", requires = "daemon")]
    daemon_ready: Option<PathBuf>,
}

/// Options of `kernel`.
#[derive(Args, Debug)]
struct KernelArgs {
    /// Finish in well under a minute (2,000 packets, 3 runs; the FTP capture at
    /// one rate, 100 transfers, one run).
    #[arg(long)]
    quick: bool,
    /// Print one JSON object as the last line.
    #[arg(long)]
    json: bool,
    /// Write kernel-per-packet.svg and kernel-updates.svg into this directory.
    #[arg(long, value_name = "DIR")]
    svg_dir: Option<PathBuf>,
}

/// Options of `live`.
#[derive(Args, Debug)]
struct LiveArgs {
    /// Finish in under a minute (200,000 packets at 100k pps, three times over at top speed, one run).
    #[arg(long)]
    quick: bool,
    /// Print one JSON object as the last line.
    #[arg(long)]
    json: bool,
    /// Replay this capture (Ethernet) instead of the generated static trace.
    #[arg(long, value_name = "FILE", conflicts_with = "packets")]
    trace: Option<PathBuf>,
    /// Packets of the generated trace (default 1,000,000, quick 200,000).
    #[arg(long)]
    packets: Option<usize>,
    /// Which of the static experiment's filters both tools run (2-6).
    #[arg(long, default_value_t = 6, conflicts_with = "expr")]
    filter: u32,
    /// Run this filter expression instead.
    #[arg(long)]
    expr: Option<String>,
    /// Replay rates in packets per second, comma-separated; `top` for top speed.
    #[arg(long, value_delimiter = ',')]
    rates: Vec<String>,
    /// Replays per (contender, rate); medians are reported (default 3, quick 1).
    #[arg(long)]
    runs: Option<usize>,
    /// Ring size of every contender (`-B`), KiB.
    #[arg(long, default_value_t = 4096)]
    buffer_kib: usize,
    /// Milliseconds between two filter edits.
    #[arg(long, default_value_t = 2)]
    edit_period_ms: u64,
    /// Replay rate of the edit stream, packets per second.
    #[arg(long, default_value_t = 200_000)]
    edit_rate: u64,
    /// Write live-cpu.svg and live-drops.svg into this directory.
    #[arg(long, value_name = "DIR")]
    svg_dir: Option<PathBuf>,
    /// The tcpdump to run.
    #[arg(long, default_value = "tcpdump")]
    tcpdump: PathBuf,
}

/// Options of `gen-trace`.
#[derive(Args, Debug)]
struct GenTraceArgs {
    /// Output pcap file (microsecond, Ethernet).
    #[arg(short = 'o', long = "output", value_name = "OUT.pcap")]
    output: PathBuf,
    /// Number of packets.
    #[arg(long, default_value_t = 1_000_000)]
    packets: usize,
    /// Snapshot length (75 as in the paper; 65535 for full frames).
    #[arg(long, default_value_t = 75)]
    snaplen: u32,
    /// Seed of every random choice (same arguments, same bytes).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Options of `static`.
#[derive(Args, Debug)]
struct StaticArgs {
    /// Finish in under 30 seconds (200 000 packets, 3 runs).
    #[arg(long)]
    quick: bool,
    /// Print one JSON object as the last line.
    #[arg(long)]
    json: bool,
    /// Timed runs per (filter, engine); medians are reported (default 5, quick 3).
    #[arg(long)]
    runs: Option<usize>,
    /// Only these of the six filters (e.g. `--filters 5,6`), for profiling.
    #[arg(long, value_delimiter = ',')]
    filters: Vec<u32>,
    /// Filter this capture (Ethernet) instead of a generated trace.
    #[arg(long, value_name = "FILE", conflicts_with = "packets")]
    trace: Option<PathBuf>,
    /// Packets of the generated trace (default 1 000 000, quick 200 000).
    #[arg(long)]
    packets: Option<usize>,
    /// Snapshot length of the generated trace.
    #[arg(long, default_value_t = 75)]
    snaplen: u32,
    /// Seed of the generated trace.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the grouped bar chart (the paper's Figure 10) to this SVG file.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Run the block-list experiment instead of the six filters: `host A1 or … or
    /// host An` at 5, 10, 1,000 and 100,000 hosts.
    #[arg(long)]
    block_list: bool,
    /// With --block-list: libpcap compiles lists of at most this many hosts (it takes
    /// about a minute at 1,000; default 1000, quick 10).
    #[arg(long)]
    libpcap_max: Option<usize>,
    /// With --block-list: the list sizes (default 5,10,1000,100000).
    #[arg(long, value_delimiter = ',')]
    block_sizes: Vec<usize>,
}

/// Options of `e2e`.
#[derive(Args, Debug)]
struct E2eArgs {
    /// Use this capture instead of generating the 1M-packet trace into a temp file.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Packets of the generated trace.
    #[arg(long, default_value_t = 1_000_000)]
    packets: usize,
    /// Snapshot length of the generated trace.
    #[arg(long, default_value_t = 75)]
    snaplen: u32,
    /// Runs of each command (median reported).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// The tcpdump to run.
    #[arg(long, default_value = "tcpdump")]
    tcpdump: PathBuf,
}

/// Options of `dynamic`.
#[derive(Args, Debug)]
struct DynamicArgs {
    /// Finish in under 30 seconds (fewer rates, no background, fewer repetitions).
    #[arg(long)]
    quick: bool,
    /// Print one JSON object as the last line.
    #[arg(long)]
    json: bool,
    /// Write update-latency.svg and missed-packets.svg into this directory.
    #[arg(long, value_name = "DIR")]
    svg_dir: Option<PathBuf>,
    /// Replay rates of the FTP trace in packets per second, comma-separated.
    #[arg(long, value_delimiter = ',')]
    rates: Option<Vec<u64>>,
    /// Background rates to mix in (0 = none), comma-separated.
    #[arg(long, value_delimiter = ',')]
    background: Option<Vec<u64>>,
    /// Replays per configuration (medians are reported).
    #[arg(long)]
    runs: Option<usize>,
    /// Seed of the workload.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Options of `gen-ftp`; defaults are those of `FtpConfig::default()`.
#[derive(Args, Debug)]
struct GenFtpArgs {
    /// Output pcap file (microsecond, Ethernet).
    #[arg(short = 'o', long = "output", value_name = "OUT.pcap")]
    output: PathBuf,
    /// Number of FTP servers (addresses 10.1.x.y).
    #[arg(long, default_value_t = 10)]
    servers: u32,
    /// Concurrent passive transfers per server.
    #[arg(long, default_value_t = 20)]
    transfers: u32,
    /// Client round-trip time in milliseconds (whole microseconds are kept).
    #[arg(long = "rtt-ms", default_value_t = 20.0)]
    rtt_ms: f64,
    /// Target trace length in seconds: transfers start over its first 40% and
    /// each lasts 55% of it.
    #[arg(long = "duration-s", default_value_t = 10.0)]
    duration_s: f64,
    /// Seed of every random choice (same arguments, same bytes).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Mean rate of non-FTP background packets per second (TCP/UDP/ICMP).
    #[arg(long = "background-pps", default_value_t = 0)]
    background_pps: u64,
    /// Write the ground truth (index, class, conn per packet) to this TSV file.
    #[arg(long, value_name = "TRUTH.tsv")]
    truth: Option<PathBuf>,
    /// Snapshot length: frames are cut to this many bytes.
    #[arg(long, default_value_t = 65535)]
    snaplen: u32,
    /// Full-size segments each data connection sends back to back first.
    #[arg(long, default_value_t = 160)]
    burst: u32,
    /// Data segments per second per connection after the burst (0: stop after it).
    #[arg(long = "rate-pps", default_value_t = 20)]
    rate_pps: u32,
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::GenFtp(args) => run_gen_ftp(&args),
        Command::Dynamic(args) => run_dynamic(&args),
        Command::GenTrace(args) => run_gen_trace(&args),
        Command::Static(args) => run_static(&args),
        Command::E2e(args) => run_e2e(&args),
        Command::Kernel(args) => run_kernel(&args),
        Command::Live(args) => run_live(&args),
        Command::Multi(args) => run_multi(&args),
        Command::Graphs(args) => run_graphs(&args),
    }
}

/// Converts a non-negative number of `unit`-nanosecond units to whole microseconds
/// of nanoseconds, refusing what is not a finite, non-negative number.
fn to_ns(value: f64, unit: f64, what: &str) -> Result<u64> {
    if !value.is_finite() || value < 0.0 || value * unit > 1e18 {
        bail!("--{what} must be a non-negative number, not {value}");
    }
    // Whole microseconds, because the pcap file stores microseconds.
    Ok((value * unit / 1000.0).round() as u64 * 1000)
}

fn run_gen_ftp(a: &GenFtpArgs) -> Result<()> {
    let cfg = FtpConfig {
        servers: a.servers,
        transfers: a.transfers,
        rtt_ns: to_ns(a.rtt_ms, 1e6, "rtt-ms")?,
        duration_ns: to_ns(a.duration_s, 1e9, "duration-s")?,
        seed: a.seed,
        background_pps: a.background_pps,
        snaplen: a.snaplen,
        burst_segments: a.burst,
        rate_pps: a.rate_pps,
        ..FtpConfig::default()
    };
    let w = ftp_workload(&cfg)?;

    let f = File::create(&a.output).with_context(|| format!("creating {}", a.output.display()))?;
    w.write_pcap(BufWriter::new(f))
        .with_context(|| format!("writing {}", a.output.display()))?;
    if let Some(path) = &a.truth {
        let f = File::create(path).with_context(|| format!("creating {}", path.display()))?;
        w.write_truth(BufWriter::new(f))
            .with_context(|| format!("writing {}", path.display()))?;
    }

    let s = w.stats();
    eprintln!(
        "gen-ftp: wrote {} packets ({} control, {} data, {} background) to {} ({:.1} MB); \
         {} servers x {} transfers = {} data connections, max {} open at once; \
         trace spans {:.3} s ({:.0} packets/s on average), RTT {} ms, seed {}.",
        s.packets,
        s.control,
        s.data,
        s.background,
        a.output.display(),
        s.file_bytes as f64 / 1e6,
        cfg.servers,
        cfg.transfers,
        s.connections,
        s.max_concurrency,
        s.span_ns as f64 / 1e9,
        if s.span_ns > 0 {
            s.packets as f64 * 1e9 / s.span_ns as f64
        } else {
            0.0
        },
        cfg.rtt_ns as f64 / 1e6,
        cfg.seed,
    );
    Ok(())
}

fn run_dynamic(a: &DynamicArgs) -> Result<()> {
    use netsift_bench::dynamic::{self, DynamicConfig};
    let mut cfg = if a.quick {
        DynamicConfig::quick()
    } else {
        DynamicConfig::full()
    };
    cfg.workload.seed = a.seed;
    if let Some(r) = &a.rates {
        if r.is_empty() || r.contains(&0) {
            bail!("--rates must be positive packet rates");
        }
        cfg.rates = r.clone();
    }
    if let Some(b) = &a.background {
        cfg.backgrounds = b.clone();
    }
    if let Some(n) = a.runs {
        cfg.runs = n.max(1);
    }
    let report =
        dynamic::run(&cfg, |line| eprintln!("dynamic: {line}")).map_err(|e| anyhow::anyhow!(e))?;
    println!(
        "# netsift-bench dynamic{}: {} packets, {} data connections, {:.1} s",
        if a.quick { " --quick" } else { "" },
        report.packets,
        report.connections,
        report.seconds
    );
    println!("{}", report.tables());
    if let Some(dir) = &a.svg_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for (name, svg) in [
            ("update-latency.svg", dynamic::svg::latency(&report)),
            ("missed-packets.svg", dynamic::svg::missed(&report)),
        ] {
            let p = dir.join(name);
            std::fs::write(&p, svg).with_context(|| format!("writing {}", p.display()))?;
        }
    }
    if a.json {
        println!("{}", report.json());
    }
    Ok(())
}

/// Prints the selectivities of the paper's filters; an error if netsift and libpcap
/// disagree on any count.
fn report_selectivities(sel: &[netsift_bench::static_bench::Selectivity]) -> Result<()> {
    let mut bad = false;
    for s in sel {
        let same = s.netsift == s.libpcap;
        bad |= !same;
        eprintln!(
            "  filter {}: {:>5.1}% ({} of {} packets; netsift {}, libpcap {}{})  {}",
            s.id,
            100.0 * s.ratio(),
            s.libpcap,
            s.packets,
            s.netsift,
            s.libpcap,
            if same { ", equal" } else { ", DIFFERENT" },
            if s.expr.len() > 60 {
                format!("{}...", &s.expr[..60])
            } else {
                s.expr.clone()
            }
        );
    }
    if bad {
        bail!("netsift and libpcap accept different numbers of packets");
    }
    Ok(())
}

/// Writes the generated trace to `path`, streaming; returns its stats and the
/// selectivities of the paper's filters.
fn write_trace(
    path: &std::path::Path,
    cfg: &netsift_bench::gen::trace::TraceConfig,
) -> Result<(
    netsift_bench::gen::trace::TraceStats,
    Vec<netsift_bench::static_bench::Selectivity>,
)> {
    use netsift_bench::gen::trace::{TraceGen, TraceStats};
    use netsift_pcapio::{PcapWriter, TsPrecision};
    let f = File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut w = PcapWriter::new(
        BufWriter::new(f),
        netsift_wire::LinkType::EN10MB,
        cfg.snaplen,
        TsPrecision::Micro,
    )
    .with_context(|| format!("writing {}", path.display()))?;
    let mut stats = TraceStats::default();
    let mut sel =
        netsift_bench::static_bench::SelectivityCounter::new().map_err(anyhow::Error::msg)?;
    for p in TraceGen::new(cfg).take(cfg.packets) {
        stats.add(&p);
        sel.add(&p.data, p.orig_len);
        w.write_packet(
            (p.ts_ns / 1_000_000_000) as u32,
            (p.ts_ns % 1_000_000_000 / 1000) as u32,
            &p.data,
            p.orig_len,
        )
        .with_context(|| format!("writing {}", path.display()))?;
    }
    let mut inner = w
        .into_inner()
        .with_context(|| format!("writing {}", path.display()))?;
    std::io::Write::flush(&mut inner).with_context(|| format!("writing {}", path.display()))?;
    Ok((stats, sel.finish()))
}

fn run_gen_trace(a: &GenTraceArgs) -> Result<()> {
    use netsift_bench::gen::trace::TraceConfig;
    if a.packets == 0 || a.snaplen == 0 {
        bail!("--packets and --snaplen must be positive");
    }
    let cfg = TraceConfig {
        packets: a.packets,
        snaplen: a.snaplen,
        seed: a.seed,
        ..TraceConfig::default()
    };
    let t = std::time::Instant::now();
    let (stats, sel) = write_trace(&a.output, &cfg)?;
    eprintln!(
        "gen-trace: wrote {} (snaplen {}, seed {}) in {:.2} s: {}",
        a.output.display(),
        cfg.snaplen,
        cfg.seed,
        t.elapsed().as_secs_f64(),
        stats.summary()
    );
    eprintln!(
        "gen-trace: selectivities of the Swift paper's static filters (netsift = libpcap checked):"
    );
    report_selectivities(&sel)
}

/// Reads an Ethernet capture into memory.
fn read_trace(path: &std::path::Path) -> Result<netsift_bench::static_bench::Packets> {
    let mut r =
        netsift_pcapio::open(path).with_context(|| format!("opening {}", path.display()))?;
    if r.linktype() != netsift_wire::LinkType::EN10MB {
        bail!("{}: not an Ethernet capture", path.display());
    }
    let mut p = netsift_bench::static_bench::Packets::default();
    while let Some(pkt) = r
        .next_packet()
        .with_context(|| format!("reading {}", path.display()))?
    {
        p.push(pkt.data, pkt.orig_len);
    }
    Ok(p)
}

/// The first lines of a `static` report: the command, machine, libpcap and trace.
fn static_header(command: &str, what: &str, quick: bool, machine: &str, source: &str) {
    let quick = if quick { " --quick" } else { "" };
    println!("# netsift-bench {command}{quick}{what}");
    println!(
        "# machine: {machine}; libpcap: {}",
        netsift_oracle::lib_version()
    );
    println!("# trace: {source}");
}

fn run_kernel(a: &KernelArgs) -> Result<()> {
    use netsift_bench::kernel::{run, KernelConfig};
    let mut cfg = if a.quick {
        KernelConfig::quick()
    } else {
        KernelConfig::full()
    };
    // Without the binary the FTP experiment says so and is skipped.
    cfg.ftp.netsift = netsift_exe().ok();
    let t0 = std::time::Instant::now();
    let report = run(&cfg)?;
    print!("{}", report.table());
    println!("({:.1} s)", t0.elapsed().as_secs_f64());
    if let Some(dir) = &a.svg_dir {
        for (name, svg) in report.svgs() {
            let path = dir.join(name);
            std::fs::write(&path, svg).with_context(|| format!("{}", path.display()))?;
        }
    }
    if a.json {
        println!("{}", report.json());
    }
    Ok(())
}

fn run_static(a: &StaticArgs) -> Result<()> {
    use netsift_bench::gen::trace::{trace, TraceConfig, TraceStats};
    use netsift_bench::static_bench::{self, Packets, StaticConfig};
    let t0 = std::time::Instant::now();
    let runs = a.runs.unwrap_or(if a.quick { 3 } else { 5 }).max(1);
    let (packets, source) = if let Some(path) = &a.trace {
        let p = read_trace(path)?;
        let n = p.len();
        (p, format!("{} ({n} packets)", path.display()))
    } else {
        let cfg = TraceConfig {
            packets: a
                .packets
                .unwrap_or(if a.quick { 200_000 } else { 1_000_000 }),
            snaplen: a.snaplen,
            seed: a.seed,
            ..TraceConfig::default()
        };
        let g = trace(&cfg);
        let mut st = TraceStats::default();
        g.iter().for_each(|p| st.add(p));
        let p = Packets::from_gen(&g);
        (
            p,
            format!(
                "generated trace (gen-trace --packets {} --snaplen {} --seed {}): {}",
                cfg.packets,
                cfg.snaplen,
                cfg.seed,
                st.summary()
            ),
        )
    };
    if packets.is_empty() {
        bail!("the trace holds no packets");
    }
    let machine = static_bench::machine();
    if a.block_list {
        let max = a.libpcap_max.unwrap_or(if a.quick { 10 } else { 1000 });
        let sizes = if a.block_sizes.is_empty() {
            static_bench::blocklist::SIZES.to_vec()
        } else {
            a.block_sizes.clone()
        };
        let rows = static_bench::blocklist::run(&packets, &sizes, runs, max, |l| {
            eprintln!("static --block-list: {l}")
        })
        .map_err(anyhow::Error::msg)?;
        static_header("static --block-list", "", a.quick, &machine, &source);
        println!();
        println!("{}", static_bench::blocklist::table(&rows, runs));
        eprintln!("static: done in {:.1} s", t0.elapsed().as_secs_f64());
        return Ok(());
    }
    let cfg = StaticConfig {
        runs,
        only: a.filters.clone(),
        ..StaticConfig::default()
    };
    let report = static_bench::run(&packets, &cfg, |l| eprintln!("static: {l}"))
        .map_err(anyhow::Error::msg)?;
    static_header(
        "static",
        ": Swift section 5.2 (Tables 5-7, Figure 10)",
        a.quick,
        &machine,
        &source,
    );
    println!(
        "# {} packets in memory, {} runs per (filter, engine), engines interleaved round-robin; \
         engines: netsift (batch engine, Compiled::filter_batch, 32 packets per call), libpcap BPF interpreter \
         (pcap_offline_filter), Opt-C (hand-written, native Rust -O), netsift without SIMD operands, netsift without \
         SIMD operands and hierarchy, netsift one packet per call (Compiled::matches), netsift batch engine with \
         scalar kernels",
        report.packets, report.runs
    );
    println!();
    println!("{}", report.tables());
    if let Some(path) = &a.svg {
        std::fs::write(path, static_bench::svg::figure10(&report, &machine))
            .with_context(|| format!("writing {}", path.display()))?;
    }
    eprintln!("static: done in {:.1} s", t0.elapsed().as_secs_f64());
    for e in &report.errors {
        eprintln!("error: {e}");
    }
    if a.json {
        println!("{}", report.json());
    }
    if !report.errors.is_empty() {
        bail!("{} verdict mismatches against libpcap", report.errors.len());
    }
    Ok(())
}

fn run_e2e(a: &E2eArgs) -> Result<()> {
    use netsift_bench::gen::trace::TraceConfig;
    use netsift_bench::static_bench::e2e::{self, E2eConfig};
    let netsift = netsift_exe()?;
    let dir = std::env::temp_dir().join(format!("netsift-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let result = (|| -> Result<()> {
        let (trace, packets) = if let Some(t) = &a.trace {
            let n = read_trace(t)?.len() as u64;
            (t.clone(), n)
        } else {
            let path = dir.join("trace.pcap");
            let cfg = TraceConfig {
                packets: a.packets,
                snaplen: a.snaplen,
                ..TraceConfig::default()
            };
            let (stats, _) = write_trace(&path, &cfg)?;
            eprintln!("e2e: generated {}: {}", path.display(), stats.summary());
            (path, stats.packets)
        };
        let cfg = E2eConfig {
            trace: trace.clone(),
            packets,
            netsift: netsift.clone(),
            tcpdump: a.tcpdump.clone(),
            out_dir: dir.clone(),
            runs: a.runs,
        };
        let rows = e2e::run(&cfg, |l| eprintln!("e2e: {l}")).map_err(anyhow::Error::msg)?;
        println!("# netsift-bench e2e: whole processes, `-r TRACE -w OUT EXPR`, filters 2-6");
        println!(
            "# machine: {}; trace: {} ({packets} packets); netsift: {}; tcpdump: {}; {} runs each",
            netsift_bench::static_bench::machine(),
            trace.display(),
            netsift.display(),
            a.tcpdump.display(),
            a.runs
        );
        println!();
        print!("{}", e2e::table(&rows, packets));
        let different: Vec<_> = rows.iter().filter(|r| !r.identical).map(|r| r.id).collect();
        if different.is_empty() {
            println!("\nAll output files are byte-identical to tcpdump's.");
            Ok(())
        } else {
            bail!("output differs from tcpdump's for filters {different:?}")
        }
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// The `netsift` binary beside this one.
fn netsift_exe() -> Result<PathBuf> {
    let exe = std::env::current_exe().context("locating netsift-bench")?;
    let netsift = exe.with_file_name("netsift");
    if !netsift.exists() {
        bail!(
            "{} not found: build it with `cargo build --release -p netsift`",
            netsift.display()
        );
    }
    Ok(netsift)
}

fn run_live(a: &LiveArgs) -> Result<()> {
    use netsift_bench::gen::trace::{seeds_filters, TraceConfig};
    use netsift_bench::live::{self, contenders::Tools, replay::Rate, LiveConfig, Stop};
    if let Some(why) = live::netns::missing_privilege() {
        bail!(why);
    }
    let stop = Stop::on_signals().context("installing signal handlers")?;
    let expr = match &a.expr {
        Some(e) => e.clone(),
        None => match seeds_filters().into_iter().find(|(id, _)| *id == a.filter) {
            Some((id, e)) if id >= 2 => e,
            _ => bail!("--filter must be one of 2-6"),
        },
    };
    let tools = Tools {
        netsift: netsift_exe()?,
        tcpdump: a.tcpdump.clone(),
        expr,
        buffer_kib: a.buffer_kib.max(1),
    };
    let dir = std::env::temp_dir().join(format!("netsift-live-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let result = (|| -> Result<()> {
        let trace = if let Some(t) = &a.trace {
            t.clone()
        } else {
            let path = dir.join("trace.pcap");
            let cfg = TraceConfig {
                packets: a
                    .packets
                    .unwrap_or(if a.quick { 200_000 } else { 1_000_000 }),
                ..TraceConfig::default()
            };
            let (stats, _) = write_trace(&path, &cfg)?;
            eprintln!("live: generated {}: {}", path.display(), stats.summary());
            path
        };
        let mut cfg = if a.quick {
            LiveConfig::quick(trace, tools, dir.clone())
        } else {
            LiveConfig::full(trace, tools, dir.clone())
        };
        if !a.rates.is_empty() {
            cfg.rates = a
                .rates
                .iter()
                .map(|r| match r.as_str() {
                    "top" => Ok(Rate::Top),
                    n => match n.parse::<u64>() {
                        Ok(n) if n > 0 => Ok(Rate::Pps(n)),
                        _ => bail!("--rates: {n:?} is neither a packet rate nor `top`"),
                    },
                })
                .collect::<Result<_>>()?;
        }
        if let Some(n) = a.runs {
            cfg.runs = n.max(1);
            cfg.edit_runs = n.max(1);
        }
        if a.edit_rate == 0 {
            bail!("--edit-rate must be positive");
        }
        cfg.edit_rate = Rate::Pps(a.edit_rate);
        cfg.edit_period = std::time::Duration::from_millis(a.edit_period_ms.max(1));
        let report =
            live::run(&cfg, &stop, |l| eprintln!("live: {l}")).map_err(anyhow::Error::msg)?;
        println!(
            "# netsift-bench live{}: {} packets replayed over a veth pair (namespaces), filter {:?}, -w /dev/null, -B {} KiB; {:.1} s",
            if a.quick { " --quick" } else { "" },
            report.packets,
            report.expr,
            report.buffer_kib,
            report.seconds
        );
        println!(
            "# machine: {}; libpcap: {}; {} of the trace's packets match as in a capture file",
            netsift_bench::static_bench::machine(),
            netsift_oracle::lib_version(),
            report.expected
        );
        println!(
            "# edits: {} packets at {} pps, filter A {:?} <-> B {:?} every {} ms; {} match both, {} neither",
            report.edit_packets,
            report.edit_rate.label(),
            live::edits::FILTER_A,
            live::edits::FILTER_B,
            report.edit_period.as_millis(),
            report.edit_both,
            report.edit_neither
        );
        println!();
        println!("{}", report.tables());
        for (line, ok) in report.targets() {
            println!("- {}: {line}", if ok { "met" } else { "NOT met" });
        }
        if let Some(d) = &a.svg_dir {
            std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
            for (name, svg) in [
                ("live-cpu.svg", live::report::cpu_svg(&report)),
                ("live-drops.svg", live::report::drops_svg(&report)),
            ] {
                let p = d.join(name);
                std::fs::write(&p, svg).with_context(|| format!("writing {}", p.display()))?;
            }
        }
        if a.json {
            println!("{}", report.json());
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Parses `--rates`: packet rates or `top`.
fn parse_rates(rates: &[String]) -> Result<Vec<netsift_bench::live::replay::Rate>> {
    use netsift_bench::live::replay::Rate;
    rates
        .iter()
        .map(|r| match r.as_str() {
            "top" => Ok(Rate::Top),
            n => match n.parse::<u64>() {
                Ok(n) if n > 0 => Ok(Rate::Pps(n)),
                _ => bail!("--rates: {n:?} is neither a packet rate nor `top`"),
            },
        })
        .collect()
}

fn run_multi(a: &MultiArgs) -> Result<()> {
    use netsift_bench::multi::{
        self,
        apps::{Apps, DaemonCommand, NetsiftSetup},
        MultiConfig,
    };
    if let Some(why) = netsift_bench::live::netns::missing_privilege() {
        bail!(why);
    }
    let stop = netsift_bench::live::Stop::on_signals().context("installing signal handlers")?;
    let shim_dir = match &a.shim_dir {
        Some(d) => d.clone(),
        None => std::env::current_exe()
            .context("locating netsift-bench")?
            .with_file_name("libpcap"),
    };
    let env = a
        .netsift_env
        .iter()
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
            _ => bail!("--netsift-env {kv:?}: want KEY=VALUE"),
        })
        .collect::<Result<Vec<_>>>()?;
    let dir = std::env::temp_dir().join(format!("netsift-multi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut env = env;
    let daemon = match &a.daemon {
        Some(cmd) => {
            let argv =
                multi::daemon::split_command(cmd).map_err(|e| anyhow::anyhow!("--daemon: {e}"))?;
            Some(DaemonCommand {
                argv,
                ready: a.daemon_ready.clone(),
            })
        }
        None => {
            let exe = std::env::current_exe()
                .context("locating netsift-bench")?
                .with_file_name("netsiftd");
            if !exe.exists() {
                bail!(
                    "{} not found: build it with `cargo build --release -p netsiftd`, or pass --daemon",
                    exe.display()
                );
            }
            let socket = dir.join("netsiftd.sock");
            if !env.iter().any(|(k, _)| k == "NETSIFT_SOCKET") {
                env.push(("NETSIFT_SOCKET".into(), socket.display().to_string()));
            }
            Some(DaemonCommand {
                argv: vec![
                    exe.display().to_string(),
                    "--socket".into(),
                    socket.display().to_string(),
                    "--mode".into(),
                    "0666".into(),
                    "--iface".into(),
                    netsift_bench::live::netns::CAPTURE_DEV.into(),
                ],
                ready: Some(socket),
            })
        }
    };
    let apps = Apps {
        tcpdump: a.tcpdump.clone(),
        buffer_kib: a.buffer_kib.max(1),
        netsift: NetsiftSetup {
            shim_dir,
            env,
            daemon,
        },
    };
    let mut cfg = if a.quick {
        MultiConfig::quick(apps, dir.clone())
    } else {
        MultiConfig::full(apps, dir.clone())
    };
    if !a.apps.is_empty() {
        if a.apps.contains(&0) {
            bail!("--apps: the numbers of applications must be positive");
        }
        cfg.counts = a.apps.clone();
    }
    if !a.rates.is_empty() {
        cfg.rates = parse_rates(&a.rates)?;
    }
    if let Some(n) = a.runs {
        cfg.runs = n.max(1);
    }
    if let Some(n) = a.packets {
        if n == 0 {
            bail!("--packets must be positive");
        }
        cfg.packets = n;
    }
    cfg.top_loops = a.top_loops.max(1);
    let result = multi::run(&cfg, &stop, |l| eprintln!("multi: {l}"));
    let _ = std::fs::remove_dir_all(&dir);
    let report = result.map_err(anyhow::Error::msg)?;
    println!(
        "# netsift-bench multi{}: {} ({:.0} bytes a frame on average) replayed over a veth pair (namespaces); \
         tcpdump -i IFACE|netsift:IFACE -B {} -w /dev/null FILTER, {} rounds, top speed {}x over; {:.1} s",
        if a.quick { " --quick" } else { "" },
        report.trace.source,
        report.trace.mean_bytes,
        cfg.apps.buffer_kib,
        report.runs,
        report.top_loops,
        report.seconds
    );
    println!(
        "# machine: {}; stock libpcap: {}; netsift contender: {}",
        netsift_bench::static_bench::machine(),
        netsift_oracle::lib_version(),
        report.netsift_backend
    );
    println!(
        "# filters (application i runs filter i mod 8): {}",
        multi::apps::FILTERS
            .iter()
            .zip(&report.trace.expected)
            .map(|(f, n)| format!("{f:?} ({n})"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!();
    println!("{}", report.tables());
    if a.json {
        println!("{}", report.json());
    }
    Ok(())
}

fn run_graphs(a: &GraphsArgs) -> Result<()> {
    use netsift_bench::graphs::{run, GraphsConfig};
    let mut cfg = if a.quick {
        GraphsConfig::quick()
    } else {
        GraphsConfig::full()
    };
    if let Some(n) = a.runs {
        cfg.runs = n.max(1);
    }
    if let Some(f) = a.scale {
        if !(f.is_finite() && f > 0.0 && f <= 100.0) {
            bail!("--scale must be a number above 0 and at most 100, not {f}");
        }
        cfg.scale = f;
    }
    if let Some(n) = a.packets {
        if n == 0 {
            bail!("--packets must be positive");
        }
        cfg.trace_packets = n;
    }
    let t0 = std::time::Instant::now();
    let report = run(&cfg).map_err(anyhow::Error::msg)?;
    println!(
        "# netsift-bench graphs{}: {} rounds, contenders alternating; {:.1} s",
        if a.quick { " --quick" } else { "" },
        cfg.runs,
        t0.elapsed().as_secs_f64()
    );
    println!(
        "# machine: {}; libpcap: {}",
        netsift_bench::static_bench::machine(),
        netsift_oracle::lib_version()
    );
    println!();
    print!("{}", report.table());
    if a.json {
        println!("{}", report.json());
    }
    Ok(())
}
