//! The block-list experiment (`netsift-bench static --block-list`): `host A1 or … or
//! host An` for n = 5, 10, 1,000 and 100,000 over the static trace, so that the cost per
//! packet of a long list is visible beside a short one.
//!
//! Every list holds the same few addresses the trace carries (spread over the list)
//! and otherwise addresses of 198.18.0.0/15 (RFC 2544's benchmark range), which the
//! trace does not use, so every list accepts the same packets and only the lookup
//! differs: EQ2 passes up to 5 hosts (the extra 5-host row), a SET key table beyond
//! (`netsift_pcapc::large`). libpcap's BPF runs beside it where libpcap compiles the
//! list in reasonable time (it needs about a minute at 1,000 hosts and is not run at
//! 100,000). Verdicts are checked against libpcap's (or, where it is not run, against
//! the short list's, which accepts the same packets) before anything is timed.

use std::fmt::Write as _;
use std::time::Instant;

use netsift_engine::Simd;
use netsift_isa::PassSet;
use netsift_oracle::Filter;
use netsift_wire::LinkType;

use super::engines::{Engine, Libpcap, Netsift, NetsiftBatch};
use super::{time, Packets, Stat};

/// The list sizes, unless the command line names others.
pub const SIZES: [usize; 4] = [5, 10, 1_000, 100_000];

/// Addresses of the trace every list holds.
const HITS: usize = 4;

/// One list's results.
#[derive(Clone, Debug)]
pub struct BlockRow {
    /// Hosts in the list.
    pub hosts: usize,
    /// Time `netsift_pcapc::compile` took on the list, milliseconds.
    pub compile_ms: f64,
    /// Passes in netsift's program.
    pub passes: usize,
    /// Instructions in netsift's program.
    pub insns: usize,
    /// Keys in all of the program's SET tables (0 when the list fits in EQ passes).
    pub table_keys: usize,
    /// Packets of the trace the list accepts.
    pub accepted: u64,
    /// ns/packet of the batch engine.
    pub batch: Stat,
    /// ns/packet with one packet per call.
    pub pkt: Stat,
    /// libpcap's BPF interpreter, or why it was not run.
    pub bpf: Result<Stat, String>,
    /// libpcap's BPF instruction count, 0 where libpcap did not compile the list.
    pub bpf_insns: usize,
}

/// The first `HITS` IPv4 source addresses of the trace, in order of first sight.
fn trace_hosts(trace: &Packets) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for (d, _) in trace.iter() {
        if d.len() >= 34 && d[12..14] == [0x08, 0x00] {
            let a = u32::from_be_bytes([d[26], d[27], d[28], d[29]]);
            if !out.contains(&a) {
                out.push(a);
                if out.len() == HITS {
                    break;
                }
            }
        }
    }
    out
}

fn dotted(a: u32) -> String {
    let b = a.to_be_bytes();
    format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3])
}

/// `host …` over `n` addresses: the hits spread evenly, the rest from 198.18.0.0/15.
pub fn block_list(n: usize, hits: &[u32]) -> String {
    let step = n / hits.len().max(1);
    (0..n)
        .map(|i| {
            let a = match hits.get(i / step.max(1)) {
                Some(&h) if i % step.max(1) == step / 2 => h,
                _ => 0xc612_0000 + i as u32,
            };
            format!("host {}", dotted(a))
        })
        .collect::<Vec<_>>()
        .join(" or ")
}

/// Runs the experiment on lists of `sizes` hosts (the first is the reference for
/// lists libpcap does not compile): `runs` timed runs per (list, engine); libpcap
/// compiles lists of at most `libpcap_max` hosts.
pub fn run(
    trace: &Packets,
    sizes: &[usize],
    runs: usize,
    libpcap_max: usize,
    mut progress: impl FnMut(&str),
) -> Result<Vec<BlockRow>, String> {
    let hits = trace_hosts(trace);
    if hits.is_empty() {
        return Err("the trace holds no IPv4 packet".into());
    }
    let mut rows = Vec::new();
    let mut setups = Vec::new();
    let mut reference: Option<Vec<bool>> = None;
    for &n in sizes {
        let text = block_list(n, &hits);
        let t = Instant::now();
        let set: PassSet = netsift_pcapc::compile(&text, LinkType::EN10MB)
            .map_err(|e| format!("netsift cannot compile the {n}-host list: {}", e.message()))?;
        let compile_ms = t.elapsed().as_secs_f64() * 1e3;
        let mut batch = NetsiftBatch::new(set.clone(), Simd::detect());
        let mut pkt = Netsift::new(set.clone());
        let bpf = if n <= libpcap_max {
            let t = Instant::now();
            let f = Filter::compile(LinkType::EN10MB, &text)
                .map_err(|e| format!("libpcap cannot compile the {n}-host list: {e}"))?;
            progress(&format!(
                "{n} hosts: libpcap compiled in {:.1} s",
                t.elapsed().as_secs_f64()
            ));
            Some(f)
        } else {
            None
        };
        // Verdicts first: libpcap's, else the previous list's (the same packets match).
        let verdicts: Vec<bool> = match &bpf {
            Some(f) => trace
                .iter()
                .map(|(d, w)| f.run_libpcap(d, w) != 0)
                .collect(),
            None => reference.clone().ok_or("no reference verdicts")?,
        };
        let got_b = batch.verdicts(trace);
        for (i, (d, w)) in trace.iter().enumerate() {
            if got_b[i] != verdicts[i] || pkt.matches(d, w) != verdicts[i] {
                return Err(format!(
                    "{n}-host list: netsift disagrees on packet {i} (want {})",
                    verdicts[i]
                ));
            }
        }
        let accepted = verdicts.iter().filter(|&&v| v).count() as u64;
        reference = Some(verdicts);
        progress(&format!(
            "{n} hosts: compiled in {compile_ms:.1} ms, {accepted} of {} packets accepted",
            trace.len()
        ));
        rows.push(BlockRow {
            hosts: n,
            compile_ms,
            passes: set.passes().len(),
            insns: set.instruction_count(),
            table_keys: set.tables().iter().map(|t| t.len()).sum(),
            accepted,
            batch: Stat::default(),
            pkt: Stat::default(),
            bpf: Err(format!(
                "not run (libpcap compiles lists of at most {libpcap_max} hosts here)"
            )),
            bpf_insns: bpf.as_ref().map_or(0, |f| f.insns().len()),
        });
        setups.push((batch, pkt, bpf, accepted, <[Vec<f64>; 3]>::default()));
    }
    // Every run times every (list, engine), the engines' order rotating, so that drifts
    // of a shared machine hit every list alike.
    for run in 0..runs {
        for (n, (batch, pkt, bpf, accepted, times)) in sizes.iter().zip(&mut setups) {
            for k in 0..3 {
                let e = (k + run) % 3;
                let (ns, acc) = match (e, &*bpf) {
                    (0, _) => time(batch, trace),
                    (1, _) => time(pkt, trace),
                    (_, Some(f)) => time(&mut Libpcap(f), trace),
                    (_, None) => continue,
                };
                if acc != *accepted {
                    return Err(format!(
                        "{n}-host list: engine {e} accepted {acc}, not {accepted}"
                    ));
                }
                times[e].push(ns);
            }
        }
        progress(&format!("run {}/{runs} done", run + 1));
    }
    let stat = |v: &[f64]| Stat::of(v).unwrap_or_default();
    for (row, (_, _, bpf, _, times)) in rows.iter_mut().zip(&setups) {
        row.batch = stat(&times[0]);
        row.pkt = stat(&times[1]);
        if bpf.is_some() {
            row.bpf = Ok(stat(&times[2]));
        }
    }
    Ok(rows)
}

/// The report: one row per list, then the ratio of the longest to the shortest.
pub fn table(rows: &[BlockRow], runs: usize) -> String {
    let mut o = String::new();
    let cell = |s: &Stat| format!("{:.1} [{:.1}, {:.1}]", s.median, s.min, s.max);
    let _ = writeln!(
        o,
        "## Block list: `host A1 or … or host An`, ns/packet, median [min, max] of {runs} runs\n\n\
         | hosts | netsift compile | netsift passes/insns, table keys | accepted | netsift batch | netsift one packet per call | libpcap BPF (insns) |\n\
         |---|---|---|---|---|---|---|"
    );
    for r in rows {
        let bpf = match &r.bpf {
            Ok(s) => format!("{} ({})", cell(s), r.bpf_insns),
            Err(why) => why.clone(),
        };
        let _ = writeln!(
            o,
            "| {} | {:.1} ms | {}/{}, {} | {} | {} | {} | {bpf} |",
            r.hosts,
            r.compile_ms,
            r.passes,
            r.insns,
            r.table_keys,
            r.accepted,
            cell(&r.batch),
            cell(&r.pkt)
        );
    }
    // The cost of a long list against a short one: against the 10-host list if
    // there is one, else the first.
    let base = rows.iter().find(|r| r.hosts == 10).or(rows.first());
    if let Some(b) = base {
        let _ = writeln!(o, "\nRatios of medians to the {}-host list:\n", b.hosts);
        for r in rows {
            let _ = writeln!(
                o,
                "- {} hosts: batch {:.2}x, one packet per call {:.2}x",
                r.hosts,
                r.batch.median / b.batch.median,
                r.pkt.median / b.pkt.median
            );
        }
    }
    o
}
