//! End-to-end throughput: `netsift -r TRACE -w OUT EXPR` against
//! `tcpdump -r TRACE -w OUT EXPR`, as whole processes (reading, filtering and writing
//! a pcap file), for filters 2-6. Each command runs `runs` times, the two tools
//! alternating; the report gives wall-clock medians with min and max, packets per
//! second, and whether the two output files are byte-identical.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use super::Stat;

/// What to run.
#[derive(Clone, Debug)]
pub struct E2eConfig {
    /// The pcap both tools read (`-r`).
    pub trace: PathBuf,
    /// Packets in the trace (for packets per second).
    pub packets: u64,
    /// The `netsift` binary that is measured.
    pub netsift: PathBuf,
    /// The `tcpdump` binary it is compared with.
    pub tcpdump: PathBuf,
    /// Where the output files go.
    pub out_dir: PathBuf,
    /// Runs of each command (at least 1 is made); the two tools alternate.
    pub runs: usize,
}

/// One filter's result.
#[derive(Clone, Debug)]
pub struct E2eRow {
    /// The filter's number in the paper's Table 5.
    pub id: u32,
    /// The filter expression.
    pub expr: String,
    /// Wall-clock seconds.
    pub netsift: Stat,
    /// The same for tcpdump.
    pub tcpdump: Stat,
    /// Bytes written by each tool.
    pub netsift_bytes: u64,
    /// The same for tcpdump.
    pub tcpdump_bytes: u64,
    /// Whether the two output files are byte for byte the same.
    pub identical: bool,
}

impl E2eRow {
    /// netsift's throughput in millions of packets per second, from its median time
    /// over a trace of `packets` packets.
    pub fn netsift_mpps(&self, packets: u64) -> f64 {
        packets as f64 / self.netsift.median.max(1e-9) / 1e6
    }
    /// tcpdump's throughput in millions of packets per second, from its median time
    /// over a trace of `packets` packets.
    pub fn tcpdump_mpps(&self, packets: u64) -> f64 {
        packets as f64 / self.tcpdump.median.max(1e-9) / 1e6
    }
}

fn run_once(program: &Path, trace: &Path, out: &Path, expr: &str) -> Result<f64, String> {
    let t = Instant::now();
    let o = Command::new(program)
        .arg("-r")
        .arg(trace)
        .arg("-w")
        .arg(out)
        .arg(expr)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    let secs = t.elapsed().as_secs_f64();
    if !o.status.success() {
        return Err(format!(
            "{} -r {} -w {} {expr:?} failed ({}): {}",
            program.display(),
            trace.display(),
            out.display(),
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        ));
    }
    Ok(secs)
}

/// Runs filters 2-6 of the paper; `progress` receives one line per measurement.
pub fn run(cfg: &E2eConfig, mut progress: impl FnMut(&str)) -> Result<Vec<E2eRow>, String> {
    let filters: Vec<(u32, String)> = crate::gen::trace::seeds_filters()
        .into_iter()
        .filter(|(id, _)| *id >= 2)
        .collect();
    let runs = cfg.runs.max(1);
    let mut times = vec![(Vec::new(), Vec::new()); filters.len()];
    for run in 0..runs {
        for (i, (id, expr)) in filters.iter().enumerate() {
            let n_out = cfg.out_dir.join(format!("netsift-{id}.pcap"));
            let t_out = cfg.out_dir.join(format!("tcpdump-{id}.pcap"));
            // Alternate which tool goes first, so the page cache favours neither.
            let order = if (run + i) % 2 == 0 { [0, 1] } else { [1, 0] };
            for which in order {
                if which == 0 {
                    let s = run_once(&cfg.netsift, &cfg.trace, &n_out, expr)?;
                    times[i].0.push(s);
                } else {
                    let s = run_once(&cfg.tcpdump, &cfg.trace, &t_out, expr)?;
                    times[i].1.push(s);
                }
            }
            progress(&format!(
                "run {}/{runs}, filter {id}: netsift {:.3} s, tcpdump {:.3} s",
                run + 1,
                times[i].0.last().copied().unwrap_or(0.0),
                times[i].1.last().copied().unwrap_or(0.0)
            ));
        }
    }
    let mut rows = Vec::new();
    for ((id, expr), (n, t)) in filters.into_iter().zip(times) {
        let n_out = cfg.out_dir.join(format!("netsift-{id}.pcap"));
        let t_out = cfg.out_dir.join(format!("tcpdump-{id}.pcap"));
        let a = std::fs::read(&n_out).map_err(|e| format!("{}: {e}", n_out.display()))?;
        let b = std::fs::read(&t_out).map_err(|e| format!("{}: {e}", t_out.display()))?;
        rows.push(E2eRow {
            id,
            expr,
            netsift: Stat::of(&n).unwrap_or_default(),
            tcpdump: Stat::of(&t).unwrap_or_default(),
            netsift_bytes: a.len() as u64,
            tcpdump_bytes: b.len() as u64,
            identical: a == b,
        });
        let _ = std::fs::remove_file(&n_out);
        let _ = std::fs::remove_file(&t_out);
    }
    Ok(rows)
}

/// A markdown table of the rows.
pub fn table(rows: &[E2eRow], packets: u64) -> String {
    let mut o = String::from(
        "| # | netsift s, median [min, max] | tcpdump s, median [min, max] | netsift Mpps | tcpdump Mpps | netsift/tcpdump speed | output |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let cell = |s: &Stat| format!("{:.3} [{:.3}, {:.3}]", s.median, s.min, s.max);
        o.push_str(&format!(
            "| {} | {} | {} | {:.2} | {:.2} | {:.2}x | {} |\n",
            r.id,
            cell(&r.netsift),
            cell(&r.tcpdump),
            r.netsift_mpps(packets),
            r.tcpdump_mpps(packets),
            r.tcpdump.median / r.netsift.median.max(1e-9),
            if r.identical {
                format!("identical ({} bytes)", r.netsift_bytes)
            } else {
                format!(
                    "DIFFERENT ({} vs {} bytes)",
                    r.netsift_bytes, r.tcpdump_bytes
                )
            }
        ));
    }
    o
}
