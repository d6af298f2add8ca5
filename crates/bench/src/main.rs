//! `netsift-bench`: a thin command line over the `netsift_bench` library.
//!
//! Each subcommand is one variant of [`Command`] with its own argument struct and
//! one `run_*` function; adding a subcommand means adding those three things and
//! one match arm in [`main`].

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
