//! The static-filtering experiment of the Swift paper (section 5.2, Tables 5-7 and
//! Figure 10), reproduced side by side in one process.
//!
//! The six filters of Table 5 ([`crate::gen::trace::seeds_filters`]) run over a trace
//! held in memory (captured bytes cut at the snapshot length, wire length kept) on
//! five engines:
//!
//! - `netsift`: `netsift_pcapc::compile` then the engine (through [`engines::Netsift`]);
//! - `bpf`: libpcap's interpreter, `pcap_offline_filter` on `pcap_compile -O`'s program;
//! - `optc`: the hand-written native filters of [`optc`] (the paper's Opt-C);
//! - `netsift_nosimd` and `netsift_nosimd_nohier`: the ablation of Table 7
//!   ([`ablation`]).
//!
//! Before anything is timed, every engine's verdict is compared with libpcap's on
//! every packet; a difference is an error of the report (the command line prints it
//! and exits non-zero). For the accept and reject averages the trace is split by
//! libpcap's verdict into an accepted and a rejected subset, each copied contiguously
//! (one filter's pair at a time, so memory stays about twice the trace). Every run times each (filter,
//! engine) on the whole trace and on both subsets; the engines' order rotates from run
//! to run, so slow drifts of the machine hit all alike. Verdicts go through
//! `black_box` and are counted, and the counts are checked again on every run.
//!
//! Reported per filter and engine: ns/packet on the whole trace (median, min, max over
//! runs), and the paper's metric, the larger of the mean time of an accepted and of a
//! rejected packet ("worst"). Also: libpcap's BPF instruction count against netsift's
//! (Table 5), the instructions each executes per packet on average (Table 6), and the
//! accept ratio.

pub mod ablation;
pub mod blocklist;
pub mod e2e;
pub mod engines;
pub mod optc;
pub mod svg;

use std::fmt::Write as _;
use std::time::Instant;

use engines::{Engine, Libpcap, Native, Netsift, NetsiftBatch};
use netsift_engine::Simd;
use netsift_oracle::Filter;
use netsift_wire::LinkType;

use crate::gen::GenPacket;

/// Packets stored back to back, as a capture buffer would hold them.
#[derive(Clone, Debug, Default)]
pub struct Packets {
    bytes: Vec<u8>,
    /// (start in `bytes`, captured length, wire length)
    meta: Vec<(usize, u32, u32)>,
}

impl Packets {
    /// Copies generated packets (already cut at their snapshot length).
    pub fn from_gen(pkts: &[GenPacket]) -> Packets {
        let mut p = Packets {
            bytes: Vec::with_capacity(pkts.iter().map(|p| p.data.len()).sum()),
            meta: Vec::with_capacity(pkts.len()),
        };
        for g in pkts {
            p.push(&g.data, g.orig_len);
        }
        p
    }

    /// Appends a packet of captured bytes `data` and length on the wire `wire_len`.
    pub fn push(&mut self, data: &[u8], wire_len: u32) {
        self.meta
            .push((self.bytes.len(), data.len() as u32, wire_len));
        self.bytes.extend_from_slice(data);
    }

    /// How many packets are held.
    pub fn len(&self) -> usize {
        self.meta.len()
    }

    /// Whether no packet is held.
    pub fn is_empty(&self) -> bool {
        self.meta.is_empty()
    }

    /// (captured bytes, wire length) of each packet.
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], u32)> + '_ {
        self.meta
            .iter()
            .map(move |&(s, n, w)| (&self.bytes[s..s + n as usize], w))
    }

    /// The packets whose entry in `keep` is `want`.
    pub fn subset(&self, keep: &[bool], want: bool) -> Packets {
        let mut p = Packets::default();
        for ((d, w), &k) in self.iter().zip(keep) {
            if k == want {
                p.push(d, w);
            }
        }
        p
    }
}

/// How many packets a filter accepts, by netsift and by libpcap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selectivity {
    /// The filter's number in the paper's Table 5.
    pub id: u32,
    /// The filter expression.
    pub expr: String,
    /// Packets counted.
    pub packets: u64,
    /// Packets netsift accepted.
    pub netsift: u64,
    /// Packets libpcap accepted.
    pub libpcap: u64,
}

impl Selectivity {
    /// The fraction of the packets libpcap accepted (0 when there were none).
    pub fn ratio(&self) -> f64 {
        self.libpcap as f64 / self.packets.max(1) as f64
    }
}

/// Counts the accepted packets of each of the paper's filters, with netsift and with
/// libpcap, one packet at a time (so a trace can be streamed through it).
pub struct SelectivityCounter {
    filters: Vec<(u32, String, Netsift, Filter)>,
    counts: Vec<(u64, u64)>,
    packets: u64,
}

impl SelectivityCounter {
    /// A counter at zero over the paper's filters, compiled by both; fails if either
    /// side refuses one.
    pub fn new() -> Result<SelectivityCounter, String> {
        let mut filters = Vec::new();
        for (id, expr) in crate::gen::trace::seeds_filters() {
            let (n, b) = compile(&expr)?;
            filters.push((id, expr, n, b));
        }
        let counts = vec![(0, 0); filters.len()];
        Ok(SelectivityCounter {
            filters,
            counts,
            packets: 0,
        })
    }

    /// Counts one packet (captured bytes `data`, length on the wire `wire_len`)
    /// against every filter.
    pub fn add(&mut self, data: &[u8], wire_len: u32) {
        self.packets += 1;
        for ((_, _, n, b), c) in self.filters.iter_mut().zip(&mut self.counts) {
            c.0 += u64::from(n.matches(data, wire_len));
            c.1 += u64::from(b.run_libpcap(data, wire_len) != 0);
        }
    }

    /// The counts so far, one entry per filter in the paper's order.
    pub fn finish(&self) -> Vec<Selectivity> {
        self.filters
            .iter()
            .zip(&self.counts)
            .map(|((id, expr, _, _), &(n, b))| Selectivity {
                id: *id,
                expr: expr.clone(),
                packets: self.packets,
                netsift: n,
                libpcap: b,
            })
            .collect()
    }
}

/// The selectivities of the paper's filters over `pkts`.
pub fn selectivities(pkts: &[GenPacket]) -> Result<Vec<Selectivity>, String> {
    let mut c = SelectivityCounter::new()?;
    for p in pkts {
        c.add(&p.data, p.orig_len);
    }
    Ok(c.finish())
}

/// Compiles a filter with netsift and with libpcap for Ethernet.
pub fn compile(expr: &str) -> Result<(Netsift, Filter), String> {
    let set = netsift_pcapc::compile(expr, LinkType::EN10MB)
        .map_err(|e| format!("netsift cannot compile {expr:?}: {e}"))?;
    let bpf = Filter::compile(LinkType::EN10MB, expr)
        .map_err(|e| format!("libpcap cannot compile {expr:?}: {e}"))?;
    Ok((Netsift::new(set), bpf))
}

/// The engines, in report order.
pub const ENGINES: [&str; 7] = [
    "netsift",
    "bpf",
    "optc",
    "netsift_nosimd",
    "netsift_nosimd_nohier",
    "netsift_pkt",
    "netsift_scalar",
];

/// What each engine is, for report headers.
pub const ENGINE_LABELS: [&str; 7] = [
    "netsift (batch engine, 32 packets per call, vector compares)",
    "libpcap BPF interpreter",
    "Opt-C (hand-written, native Rust -O)",
    "netsift, no SIMD operands",
    "netsift, no SIMD operands, no hierarchy",
    "netsift, one packet per call",
    "netsift batch engine, scalar compare kernels",
];

pub use crate::stats::Stat;

/// One engine's timings on one filter.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineRow {
    /// The engine's name, one of [`ENGINES`].
    pub engine: &'static str,
    /// ns/packet over the whole trace.
    pub all: Stat,
    /// ns/packet over the accepted packets (`None`: the filter accepts none).
    pub accept: Option<Stat>,
    /// ns/packet over the rejected packets (`None`: the filter rejects none).
    pub reject: Option<Stat>,
}

impl EngineRow {
    /// The paper's metric: the larger of the accept and reject averages (medians).
    pub fn worst(&self) -> f64 {
        let a = self.accept.map_or(0.0, |s| s.median);
        let r = self.reject.map_or(0.0, |s| s.median);
        a.max(r)
    }
}

/// One filter's results.
#[derive(Clone, Debug, PartialEq)]
pub struct FilterRow {
    /// The filter's number in the paper's Table 5.
    pub id: u32,
    /// The filter expression.
    pub expr: String,
    /// Packets of the trace libpcap accepts.
    pub accepted: u64,
    /// `accepted` as a fraction of the trace.
    pub accept_ratio: f64,
    /// libpcap's `bf_len`.
    pub bpf_insns: usize,
    /// `PassSet::instruction_count()` of netsift's program, and of the ablations.
    pub netsift_insns: usize,
    /// Passes in netsift's program.
    pub netsift_passes: usize,
    /// Instruction count of the ablation without SIMD instructions.
    pub nosimd_insns: usize,
    /// Instruction count of the ablation without SIMD and without the hierarchy.
    pub nosimd_nohier_insns: usize,
    /// Instructions executed per packet on average (netsift: `Scratch::steps`; BPF:
    /// counted by the oracle's copy of the interpreter on a sample).
    pub netsift_exec: f64,
    /// The same for the ablation without SIMD, over every packet.
    pub nosimd_exec: f64,
    /// The same for the ablation without SIMD and hierarchy, over every packet.
    pub nosimd_nohier_exec: f64,
    /// The same for libpcap's program, over a sample of about `exec_sample` packets.
    pub bpf_exec: f64,
    /// In [`ENGINES`] order.
    pub engines: Vec<EngineRow>,
}

impl FilterRow {
    /// The timings of the engine named `name`; panics if it is not one of [`ENGINES`].
    pub fn engine(&self, name: &str) -> &EngineRow {
        self.engines
            .iter()
            .find(|e| e.engine == name)
            .expect("every engine is measured")
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct StaticConfig {
    /// Timed runs (medians are over these).
    pub runs: usize,
    /// Packets of the sample on which BPF instructions executed are counted.
    pub exec_sample: usize,
    /// Only these filters (all six if empty): for profiling one filter.
    pub only: Vec<u32>,
}

impl Default for StaticConfig {
    fn default() -> Self {
        StaticConfig {
            runs: 5,
            exec_sample: 20_000,
            only: Vec::new(),
        }
    }
}

/// The whole experiment's results.
#[derive(Clone, Debug)]
pub struct StaticReport {
    /// Packets in the trace.
    pub packets: usize,
    /// Timed runs the medians are over (at least 1).
    pub runs: usize,
    /// One row per filter, in the paper's order.
    pub filters: Vec<FilterRow>,
    /// Verdict mismatches; empty when every engine agreed with libpcap everywhere.
    pub errors: Vec<String>,
}

/// Everything one filter needs during the timed runs.
struct Setup {
    id: u32,
    expr: String,
    netsift: NetsiftBatch,
    pkt: Netsift,
    scalar: NetsiftBatch,
    nosimd: NetsiftBatch,
    nohier: NetsiftBatch,
    bpf: Filter,
    /// libpcap's verdict per packet of the trace.
    keep: Vec<bool>,
    accepted: u64,
    times: Vec<[Vec<f64>; 3]>,
}

/// Times one engine over `pkts`; returns ns/packet and the accepted count.
#[inline(never)]
fn time<E: Engine>(e: &mut E, pkts: &Packets) -> (f64, u64) {
    let t = Instant::now();
    let acc = e.count(pkts);
    let ns = t.elapsed().as_nanos() as f64;
    (ns / pkts.len().max(1) as f64, acc)
}

fn time_optc(id: u32, pkts: &Packets) -> (f64, u64) {
    match id {
        1 => time(&mut Native(optc::f1_accept_all), pkts),
        2 => time(&mut Native(optc::f2_ip), pkts),
        3 => time(&mut Native(optc::f3_src_dst_net), pkts),
        4 => time(&mut Native(optc::f4_src_or_dst_net), pkts),
        5 => time(&mut Native(optc::f5_tcp_ports), pkts),
        _ => time(&mut Native(optc::f6_irc), pkts),
    }
}

impl Setup {
    fn time_engine(&mut self, engine: usize, pkts: &Packets) -> (f64, u64) {
        match engine {
            0 => time(&mut self.netsift, pkts),
            1 => time(&mut Libpcap(&self.bpf), pkts),
            2 => time_optc(self.id, pkts),
            3 => time(&mut self.nosimd, pkts),
            4 => time(&mut self.nohier, pkts),
            5 => time(&mut self.pkt, pkts),
            _ => time(&mut self.scalar, pkts),
        }
    }
}

/// BPF instructions executed on one packet (the oracle's interpreter, budget search).
fn bpf_steps(f: &Filter, data: &[u8], wire: u32) -> u64 {
    let insns = f.insns();
    let (mut lo, mut hi) = (1u64, insns.len() as u64 + 1);
    // The smallest budget that gives a verdict (programs without loops run each
    // instruction at most once).
    while lo < hi {
        let mid = (lo + hi) / 2;
        if netsift_oracle::bpf::interpret(insns, data, wire, mid).is_ok() {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// Runs the experiment over `trace`. `progress` receives one line per step.
pub fn run(
    trace: &Packets,
    cfg: &StaticConfig,
    mut progress: impl FnMut(&str),
) -> Result<StaticReport, String> {
    let runs = cfg.runs.max(1);
    let mut errors = Vec::new();
    let mut setups = Vec::new();
    let mut rows = Vec::new();
    for (id, expr) in crate::gen::trace::seeds_filters() {
        if !cfg.only.is_empty() && !cfg.only.contains(&id) {
            continue;
        }
        let (mut netsift, bpf) = compile(&expr)?;
        let nosimd_set = ablation::no_simd(netsift.set())
            .map_err(|e| format!("filter {id}: no-SIMD transform: {e}"))?;
        let nohier_set = ablation::no_hierarchy(&nosimd_set);
        let mut batch = NetsiftBatch::new(netsift.set().clone(), Simd::detect());
        let mut scalar = NetsiftBatch::new(netsift.set().clone(), Simd::scalar());
        let mut nosimd_b = NetsiftBatch::new(nosimd_set.clone(), Simd::detect());
        let mut nohier_b = NetsiftBatch::new(nohier_set.clone(), Simd::detect());
        // The per-packet engine counts the instructions each packet executes (Table
        // 6); the batch engine executes the same ones.
        let mut nosimd = Netsift::new(nosimd_set);
        let mut nohier = Netsift::new(nohier_set);
        let optc = optc::filter(id).expect("six filters");
        let batched = [
            batch.verdicts(trace),
            nosimd_b.verdicts(trace),
            nohier_b.verdicts(trace),
            scalar.verdicts(trace),
        ];

        // Verdicts of every engine against libpcap's, and executed instructions.
        let mut keep = Vec::with_capacity(trace.len());
        let mut wrong = [0u64; ENGINES.len()];
        let mut first_wrong: [Option<usize>; ENGINES.len()] = [None; ENGINES.len()];
        let mut exec = [0u64; 3];
        let mut bpf_exec = 0u64;
        let mut sampled = 0u64;
        let stride = (trace.len() / cfg.exec_sample.max(1)).max(1);
        for (i, (d, w)) in trace.iter().enumerate() {
            let truth = bpf.run_libpcap(d, w) != 0;
            keep.push(truth);
            let got = [
                batched[0][i],
                truth,
                optc(d, w),
                batched[1][i],
                batched[2][i],
                netsift.matches(d, w),
                batched[3][i],
            ];
            // Each engine's verdict must be libpcap's; the per-packet ablation
            // engines only count steps, but they are checked too.
            let counted = [nosimd.matches(d, w), nohier.matches(d, w)];
            for (k, g) in counted.iter().enumerate() {
                if *g != truth {
                    wrong[3 + k] += 1;
                    first_wrong[3 + k].get_or_insert(i);
                }
            }
            exec[0] += netsift.steps();
            for (k, g) in got.iter().enumerate() {
                if *g != truth {
                    wrong[k] += 1;
                    first_wrong[k].get_or_insert(i);
                }
            }
            // `matches` above left the steps of this packet in each scratch.
            exec[1] += nosimd.steps();
            exec[2] += nohier.steps();
            if i % stride == 0 {
                bpf_exec += bpf_steps(&bpf, d, w);
                sampled += 1;
            }
        }
        for k in 0..ENGINES.len() {
            if wrong[k] > 0 {
                errors.push(format!(
                    "filter {id}: {} disagrees with libpcap on {} of {} packets (first: packet {})",
                    ENGINES[k],
                    wrong[k],
                    trace.len(),
                    first_wrong[k].unwrap_or(0)
                ));
            }
        }
        let accepted = keep.iter().filter(|&&k| k).count() as u64;
        let n = trace.len().max(1) as f64;
        rows.push(FilterRow {
            id,
            expr: expr.clone(),
            accepted,
            accept_ratio: accepted as f64 / n,
            bpf_insns: bpf.insns().len(),
            netsift_insns: netsift.set().instruction_count(),
            netsift_passes: netsift.set().passes().len(),
            nosimd_insns: nosimd.set().instruction_count(),
            nosimd_nohier_insns: nohier.set().instruction_count(),
            netsift_exec: exec[0] as f64 / n,
            nosimd_exec: exec[1] as f64 / n,
            nosimd_nohier_exec: exec[2] as f64 / n,
            bpf_exec: bpf_exec as f64 / sampled.max(1) as f64,
            engines: Vec::new(),
        });
        progress(&format!(
            "filter {id}: accepts {accepted} of {} packets ({:.1}%); {} BPF / {} netsift instructions",
            trace.len(),
            100.0 * accepted as f64 / n,
            bpf.insns().len(),
            netsift.set().instruction_count()
        ));
        setups.push(Setup {
            id,
            expr,
            netsift: batch,
            pkt: netsift,
            scalar,
            nosimd: nosimd_b,
            nohier: nohier_b,
            bpf,
            keep,
            accepted,
            times: vec![[Vec::new(), Vec::new(), Vec::new()]; ENGINES.len()],
        });
    }

    for run in 0..runs {
        let t = Instant::now();
        for s in &mut setups {
            // The accepted and rejected subsets, each contiguous; built per filter and
            // run so that only one filter's copies are held at a time.
            let subsets = [trace.subset(&s.keep, true), trace.subset(&s.keep, false)];
            for k in 0..ENGINES.len() {
                let engine = (k + run) % ENGINES.len();
                let (ns, acc) = s.time_engine(engine, trace);
                if acc != s.accepted {
                    errors.push(format!(
                        "filter {} ({:?}), run {run}: {} accepted {acc} packets, libpcap {}",
                        s.id, s.expr, ENGINES[engine], s.accepted
                    ));
                }
                s.times[engine][0].push(ns);
                for (j, sub) in subsets.iter().enumerate() {
                    if sub.is_empty() {
                        continue;
                    }
                    let (ns, acc) = s.time_engine(engine, sub);
                    let want = if j == 0 { sub.len() as u64 } else { 0 };
                    if acc != want {
                        errors.push(format!(
                            "filter {}, run {run}: {} accepted {acc} of the {} packets libpcap {}",
                            s.id,
                            ENGINES[engine],
                            sub.len(),
                            if j == 0 { "accepts" } else { "rejects" }
                        ));
                    }
                    s.times[engine][1 + j].push(ns);
                }
            }
        }
        progress(&format!(
            "run {}/{runs} done in {:.1} s",
            run + 1,
            t.elapsed().as_secs_f64()
        ));
    }

    for (row, s) in rows.iter_mut().zip(&setups) {
        row.engines = (0..ENGINES.len())
            .map(|k| EngineRow {
                engine: ENGINES[k],
                all: Stat::of(&s.times[k][0]).unwrap_or_default(),
                accept: Stat::of(&s.times[k][1]),
                reject: Stat::of(&s.times[k][2]),
            })
            .collect();
    }
    Ok(StaticReport {
        packets: trace.len(),
        runs,
        filters: rows,
        errors,
    })
}

/// "CPU model, N CPUs" of this machine.
pub fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    let n = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{model}, nproc {n}")
}

fn ratio(a: f64, b: f64) -> String {
    if b > 0.0 {
        format!("{:.2}x", a / b)
    } else {
        "-".to_string()
    }
}

fn short(expr: &str) -> String {
    if expr.is_empty() {
        "\"\" (accept all)".to_string()
    } else if expr.len() > 70 {
        format!(
            "{}...",
            &expr[..expr.find("ip host (").map_or(60, |i| i + 9)]
        )
    } else {
        expr.to_string()
    }
}

impl StaticReport {
    /// Markdown tables: Table 5 (instruction counts), Figure 10 (ns/packet, all
    /// engines), the paper's worst-of-accept/reject metric, Table 6 (instructions
    /// executed) and Table 7 (ablation).
    pub fn tables(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "## Filters and instruction counts (Table 5)\n\n\
             | # | filter | accept ratio | BPF insns | netsift insns (passes) | no SIMD | no SIMD, no hier. |\n\
             |---|---|---|---|---|---|---|"
        );
        for f in &self.filters {
            let _ = writeln!(
                o,
                "| {} | `{}` | {:.1}% | {} | {} ({}) | {} | {} |",
                f.id,
                short(&f.expr),
                100.0 * f.accept_ratio,
                f.bpf_insns,
                f.netsift_insns,
                f.netsift_passes,
                f.nosimd_insns,
                f.nosimd_nohier_insns
            );
        }
        let _ = writeln!(
            o,
            "\n## ns/packet over the whole trace, median [min, max] of {} runs (Figure 10)\n\n\
             | # | netsift | libpcap BPF | Opt-C | bpf/netsift | netsift/optc |\n\
             |---|---|---|---|---|---|",
            self.runs
        );
        let cell = |s: &Stat| format!("{:.1} [{:.1}, {:.1}]", s.median, s.min, s.max);
        for f in &self.filters {
            let (n, b, c) = (
                f.engine("netsift").all,
                f.engine("bpf").all,
                f.engine("optc").all,
            );
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} |",
                f.id,
                cell(&n),
                cell(&b),
                cell(&c),
                ratio(b.median, n.median),
                ratio(n.median, c.median)
            );
        }
        let _ = writeln!(
            o,
            "\n## The paper's metric: max(accept mean, reject mean) ns/packet, medians\n\n\
             | # | netsift acc / rej | BPF acc / rej | Opt-C acc / rej | netsift | BPF | Opt-C | bpf/netsift | netsift/optc |\n\
             |---|---|---|---|---|---|---|---|---|"
        );
        let ar = |e: &EngineRow| {
            let m = |s: Option<Stat>| s.map_or("-".to_string(), |s| format!("{:.1}", s.median));
            format!("{} / {}", m(e.accept), m(e.reject))
        };
        for f in &self.filters {
            let (n, b, c) = (f.engine("netsift"), f.engine("bpf"), f.engine("optc"));
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {:.1} | {:.1} | {:.1} | {} | {} |",
                f.id,
                ar(n),
                ar(b),
                ar(c),
                n.worst(),
                b.worst(),
                c.worst(),
                ratio(b.worst(), n.worst()),
                ratio(n.worst(), c.worst())
            );
        }
        let _ = writeln!(
            o,
            "\n## Instructions executed per packet, mean (Table 6)\n\n\
             | # | BPF | netsift | ns per BPF insn | ns per netsift insn |\n\
             |---|---|---|---|---|"
        );
        for f in &self.filters {
            let per = |ns: f64, k: f64| {
                if k > 0.0 {
                    format!("{:.2}", ns / k)
                } else {
                    "-".to_string()
                }
            };
            let _ = writeln!(
                o,
                "| {} | {:.2} | {:.2} | {} | {} |",
                f.id,
                f.bpf_exec,
                f.netsift_exec,
                per(f.engine("bpf").all.median, f.bpf_exec),
                per(f.engine("netsift").all.median, f.netsift_exec)
            );
        }
        let _ = writeln!(
            o,
            "\n## netsift's engines: one packet per call, the batch engine, its scalar kernels; ns/packet, median [min, max]\n\n\
             | # | one packet per call | batch, vector kernels | batch, scalar kernels | batch speed-up | vector kernels' speed-up |\n\
             |---|---|---|---|---|---|"
        );
        for f in &self.filters {
            let (p, b, k) = (
                f.engine("netsift_pkt").all,
                f.engine("netsift").all,
                f.engine("netsift_scalar").all,
            );
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} |",
                f.id,
                cell(&p),
                cell(&b),
                cell(&k),
                ratio(p.median, b.median),
                ratio(k.median, b.median)
            );
        }
        let _ = writeln!(
            o,
            "\n## Ablation (Table 7): ns/packet, median [min, max]; instructions executed per packet\n\n\
             | # | netsift | no SIMD | no SIMD, no hierarchy | slowdown no SIMD | slowdown no SIMD, no hier. |\n\
             |---|---|---|---|---|---|"
        );
        for f in &self.filters {
            let (a, b, c) = (
                f.engine("netsift").all,
                f.engine("netsift_nosimd").all,
                f.engine("netsift_nosimd_nohier").all,
            );
            let _ = writeln!(
                o,
                "| {} | {} ({:.2}) | {} ({:.2}) | {} ({:.2}) | {} | {} |",
                f.id,
                cell(&a),
                f.netsift_exec,
                cell(&b),
                f.nosimd_exec,
                cell(&c),
                f.nosimd_nohier_exec,
                ratio(b.median, a.median),
                ratio(c.median, a.median)
            );
        }
        o
    }

    /// One line of JSON (see the command's documentation for the shape).
    pub fn json(&self) -> String {
        let mut o = format!(
            "{{\"packets\":{},\"runs\":{},\"filters\":[",
            self.packets, self.runs
        );
        for (i, f) in self.filters.iter().enumerate() {
            if i > 0 {
                o.push(',');
            }
            let _ = write!(
                o,
                "{{\"id\":{},\"expr\":{},\"netsift_ns\":{:.3},\"bpf_ns\":{:.3},\"optc_ns\":{:.3},\
                 \"netsift_nosimd_ns\":{:.3},\"netsift_nosimd_nohier_ns\":{:.3},\
                 \"netsift_insns\":{},\"bpf_insns\":{},\"accept_ratio\":{:.6},\
                 \"accepted\":{},\"nosimd_insns\":{},\"nosimd_nohier_insns\":{},\
                 \"netsift_exec\":{:.3},\"bpf_exec\":{:.3}",
                f.id,
                json_str(&f.expr),
                f.engine("netsift").all.median,
                f.engine("bpf").all.median,
                f.engine("optc").all.median,
                f.engine("netsift_nosimd").all.median,
                f.engine("netsift_nosimd_nohier").all.median,
                f.netsift_insns,
                f.bpf_insns,
                f.accept_ratio,
                f.accepted,
                f.nosimd_insns,
                f.nosimd_nohier_insns,
                f.netsift_exec,
                f.bpf_exec
            );
            for e in &f.engines {
                if matches!(e.engine, "netsift_pkt" | "netsift_scalar") {
                    let _ = write!(o, ",\"{}_ns\":{:.3}", e.engine, e.all.median);
                }
                let _ = write!(
                    o,
                    ",\"{0}_min_ns\":{1:.3},\"{0}_max_ns\":{2:.3},\"{0}_worst_ns\":{3:.3}",
                    e.engine,
                    e.all.min,
                    e.all.max,
                    e.worst()
                );
            }
            o.push('}');
        }
        o.push_str("]}");
        o
    }
}

/// A JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}
