//! `netsift-bench graphs`: FFPF's filter graphs and FPL (docs/BENCHMARKS.md,
//! section 11). Three parts, each with its contenders side by side in one set
//! of rounds ([`rounds`]):
//!
//! - [`scan`]: Table 1's rows 6-7, Aho-Corasick on 1,500-byte frames with and
//!   without a match, directly and called from FPL;
//! - [`filters`]: Table 1's rows 8-9, the Table 1 filter in FPL through the
//!   interpreter, the JIT ([`jit`], not merged yet: `null`) and eBPF
//!   ([`ebpf`], root), against the same filter in libpcap's BPF and in
//!   netsift's pcap engine; and FPL's executors on Figure 6's counter;
//! - [`prefix`]: six flows sharing a pcap prefix against six independent
//!   ones, the in-process model of the daemon's prefix merging.

pub mod ebpf;
pub mod filters;
pub mod jit;
pub mod prefix;
pub mod rounds;
pub mod scan;

use crate::stats::Stat;
use std::fmt::Write as _;

/// How much to time.
#[derive(Clone, Copy, Debug)]
pub struct GraphsConfig {
    /// Rounds of every set of contenders.
    pub runs: usize,
    /// Scale of the operations per round (1.0: the full run's).
    pub scale: f64,
    /// `repeat` of each eBPF test run.
    pub ebpf_repeat: u32,
    /// Packets of the generated trace of the prefix experiment.
    pub trace_packets: usize,
}

impl GraphsConfig {
    /// `--quick`: well under a minute.
    pub fn quick() -> GraphsConfig {
        GraphsConfig {
            runs: 7,
            scale: 0.5,
            ebpf_repeat: 50_000,
            trace_packets: 100_000,
        }
    }

    /// The full run.
    pub fn full() -> GraphsConfig {
        GraphsConfig {
            runs: 11,
            scale: 1.0,
            ebpf_repeat: 100_000,
            trace_packets: 300_000,
        }
    }

    /// `full` operations scaled, at least 100.
    pub fn ops(&self, full: u64) -> u64 {
        ((full as f64 * self.scale) as u64).max(100)
    }
}

/// Everything measured.
#[derive(Clone, Debug)]
pub struct GraphsReport {
    /// Aho-Corasick.
    pub scan: scan::Scan,
    /// The Table 1 filter.
    pub table1: filters::Table1Filter,
    /// Figure 6's counter through FPL's executors.
    pub fig6: filters::Executors,
    /// Prefix sharing.
    pub prefix: prefix::Prefix,
    /// The CPU's clock as the kernel reports it, MHz.
    pub mhz: Option<f64>,
}

/// Runs every part.
pub fn run(cfg: &GraphsConfig) -> Result<GraphsReport, String> {
    Ok(GraphsReport {
        scan: scan::run(cfg)?,
        table1: filters::table1(cfg)?,
        fig6: filters::fig6(cfg)?,
        prefix: prefix::run(cfg)?,
        mhz: crate::multi::table1::cpu_mhz(),
    })
}

fn cell(s: &Stat) -> String {
    format!("{:.1} [{:.1}, {:.1}]", s.median, s.min, s.max)
}

fn or_why(r: &Result<Stat, String>) -> String {
    match r {
        Ok(s) => cell(s),
        Err(why) => format!("not run: {why}"),
    }
}

/// A figure for the JSON line: the median, or `null` where it was not measured.
fn json_ns(r: &Result<Stat, String>) -> String {
    match r {
        Ok(s) => format!("{:.2}", s.median),
        Err(_) => "null".into(),
    }
}

/// `s` as a JSON string: quotes, backslashes and control characters escaped
/// (a kernel error may carry any of them).
fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl GraphsReport {
    fn cycles(&self, ns: &Result<Stat, String>) -> String {
        match (ns, self.mhz) {
            (Ok(s), Some(mhz)) => format!("{:.0}", s.median * mhz / 1000.0),
            _ => "-".into(),
        }
    }

    /// The tables, as text.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let t = &self.table1;
        let rows: [(&str, Result<Stat, String>, &str); 9] = [
            (
                "Aho-Corasick, 1,000 signatures, match at the payload's start, direct",
                Ok(self.scan.hit),
                "1000",
            ),
            (
                "Aho-Corasick, no match, direct (1,446 payload bytes searched)",
                Ok(self.scan.miss),
                "9900",
            ),
            (
                "Aho-Corasick, match, from FPL (interpreter)",
                Ok(self.scan.hit_fpl),
                "-",
            ),
            (
                "Aho-Corasick, no match, from FPL (interpreter)",
                Ok(self.scan.miss_fpl),
                "-",
            ),
            (
                "Table 1 filter in FPL, interpreter",
                Ok(t.fpl.interp),
                "185",
            ),
            ("Table 1 filter in FPL, JIT", t.fpl.jit.clone(), "185"),
            (
                "Table 1 filter in FPL, eBPF (less an empty program's test run)",
                t.fpl.ebpf.clone(),
                "185",
            ),
            (
                "same filter in libpcap's BPF (pcap_offline_filter)",
                Ok(t.bpf),
                "740",
            ),
            (
                "same filter in netsift's pcap engine (Compiled::matches)",
                Ok(t.pcap),
                "-",
            ),
        ];
        let _ = writeln!(
            s,
            "Table 1, rows 6-9 (ns per packet, median [min, max]; ~cycles at {} MHz):",
            self.mhz.map_or("?".into(), |m| format!("{m:.0}"))
        );
        let _ = writeln!(
            s,
            "| task | ns | ~cycles | FFPF's cycles |\n|---|---|---|---|"
        );
        for (task, ns, ffpf) in &rows {
            let _ = writeln!(
                s,
                "| {task} | {} | {} | {ffpf} |",
                or_why(ns),
                self.cycles(ns)
            );
        }
        if let Some(f) = t.fpl.ebpf_floor {
            let _ = writeln!(
                s,
                "(an empty eBPF program's test run: {} ns, subtracted)",
                cell(&f)
            );
        }
        let _ = writeln!(
            s,
            "\nFPL's executors (ns per packet):\n| program | interpreter | JIT | eBPF | eBPF insns |\n|---|---|---|---|---|"
        );
        for e in [&t.fpl, &self.fig6] {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} |",
                e.name,
                cell(&e.interp),
                or_why(&e.jit),
                or_why(&e.ebpf),
                e.ebpf_insns.map_or("-".into(), |n| n.to_string())
            );
        }
        let p = &self.prefix;
        let _ = writeln!(
            s,
            "\nSix flows `{}` -> FPL filter, in process, over {} packets ({} pass the prefix; flows accept {:?}), ns per packet:\n\
             | arrangement | ns |\n|---|---|\n\
             | six flows, prefix shared | {} |\n| six flows, independent | {} |\n| one flow | {} |\n\
             shared / independent: {:.3}; six shared / one flow: {:.3}",
            prefix::PREFIX,
            p.packets,
            p.prefix_accepts,
            p.accepts,
            cell(&p.shared),
            cell(&p.independent),
            cell(&p.one),
            p.ratio(),
            p.over_one()
        );
        s
    }

    /// One JSON object (the `--json` last line); figures not measured are `null`.
    pub fn json(&self) -> String {
        let t = &self.table1;
        let p = &self.prefix;
        let why = |r: &Result<Stat, String>| match r {
            Ok(_) => "null".to_string(),
            Err(w) => json_string(w),
        };
        format!(
            "{{\"fpl_jit_ns\":{},\"fpl_interp_ns\":{:.2},\"fpl_ebpf_ns\":{},\"ebpf_floor_ns\":{},\
             \"bpf_ns\":{:.2},\"pcap_ns\":{:.2},\"aho_match_ns\":{:.2},\"aho_nomatch_ns\":{:.2},\
             \"aho_match_fpl_ns\":{:.2},\"aho_nomatch_fpl_ns\":{:.2},\
             \"fig6_interp_ns\":{:.2},\"fig6_jit_ns\":{},\"fig6_ebpf_ns\":{},\
             \"shared_prefix_ratio\":{:.4},\"shared_over_one_flow\":{:.4},\
             \"shared_ns\":{:.2},\"independent_ns\":{:.2},\"one_flow_ns\":{:.2},\
             \"cpu_mhz\":{},\"jit_missing\":{},\"ebpf_missing\":{}}}",
            json_ns(&t.fpl.jit),
            t.fpl.interp.median,
            json_ns(&t.fpl.ebpf),
            t.fpl
                .ebpf_floor
                .map_or("null".into(), |f| format!("{:.2}", f.median)),
            t.bpf.median,
            t.pcap.median,
            self.scan.hit.median,
            self.scan.miss.median,
            self.scan.hit_fpl.median,
            self.scan.miss_fpl.median,
            self.fig6.interp.median,
            json_ns(&self.fig6.jit),
            json_ns(&self.fig6.ebpf),
            p.ratio(),
            p.over_one(),
            p.shared.median,
            p.independent.median,
            p.one.median,
            self.mhz.map_or("null".into(), |m| format!("{m:.0}")),
            why(&t.fpl.jit),
            why(&t.fpl.ebpf),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::json_string;

    #[test]
    fn reasons_are_valid_json_strings() {
        assert_eq!(json_string("a \"b\" \\ c\nd"), r#""a \"b\" \\ c\u000ad""#);
    }
}
