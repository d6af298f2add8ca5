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
