//! The multi-application experiment's results: medians with min and max over
//! rounds, one Figure 12 table per replay rate, Table 1, the slow-reader
//! accounting, the placeholder for the copy modes, and the JSON line.

use super::apps::Contender;
use super::point::PointRun;
use super::slow_reader::SlowReaderRun;
use super::MultiReport;
use crate::live::replay::Rate;
use crate::stats::Stat;
use std::fmt::Write as _;

/// One (rate, contender, N) over its rounds.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Rounds summarised.
    pub rounds: usize,
    /// Machine-wide busy CPU seconds per million packets sent.
    pub cpu: Stat,
    /// The part that is not the applications' own.
    pub shared: Stat,
    /// The applications' own.
    pub app_cpu: Stat,
    /// The experiment's processes alone ([`PointRun::attributed_cpu_s_per_mpkt`]).
    pub attributed: Stat,
    /// The part of that which is not the applications' own.
    pub attributed_shared: Stat,
    /// The sender's rate, packets per second.
    pub pps: Stat,
    /// The worst application's loss (0 to 1).
    pub drop: Stat,
    /// "dropped by kernel", summed over the applications.
    pub kernel_dropped: Stat,
    /// Share of the machine busy before the replay.
    pub background: Stat,
    /// The daemon's CPU seconds per million packets, when one ran.
    pub daemon: Option<Stat>,
}

fn stat(runs: &[&PointRun], f: impl Fn(&PointRun) -> f64) -> Stat {
    Stat::of(&runs.iter().map(|r| f(r)).collect::<Vec<_>>()).unwrap_or_default()
}

/// `median [min, max]`, or the one value when they agree.
fn cell(s: &Stat, digits: usize) -> String {
    if s.min == s.max {
        format!("{:.*}", digits, s.median)
    } else {
        format!(
            "{:.*} [{:.*}, {:.*}]",
            digits, s.median, digits, s.min, digits, s.max
        )
    }
}

fn pct(s: &Stat) -> String {
    let p = |x: f64| 100.0 * x;
    if s.min == s.max {
        format!("{:.1}%", p(s.median))
    } else {
        format!("{:.1}% [{:.1}, {:.1}]", p(s.median), p(s.min), p(s.max))
    }
}

fn rate_label(r: Rate) -> String {
    match r {
        Rate::Top => "top speed".into(),
        r => format!("{} pps", r.label()),
    }
}

/// A progress line for one point.
pub fn point_line(r: &PointRun, runs: usize) -> String {
    let who = match r.point.contender {
        None => "sender alone".to_string(),
        Some(c) => format!("{} x{}", c.name(), r.point.apps),
    };
    format!(
        "round {}/{}, {}, {who}: sent {} ({:.0} pps), busy {:.2} s ({} ticks sampled; {:.3} CPU s/Mpkt), apps {:.3} s, sender {:.3} s, \
         shared {:.3} s/Mpkt, worst loss {:.1}%, kernel drops {}, background {:.0}%",
        r.point.round + 1,
        runs,
        rate_label(r.point.rate),
        r.sent.packets,
        r.sent.pps(),
        r.busy_s,
        r.busy_ticks,
        r.cpu_s_per_mpkt(),
        r.app_cpu_s,
        r.sender_cpu_s,
        r.shared_cpu_s_per_mpkt(),
        100.0 * r.drop_ratio(),
        r.kernel_dropped(),
        100.0 * r.background
    )
}

/// A progress line for one slow-reader pass.
pub fn slow_line(r: &SlowReaderRun) -> String {
    let flows: Vec<String> = r
        .flows
        .iter()
        .map(|f| {
            let s = &f.stats;
            format!(
                "{}: accepted {} = delivered {} + pbuf_full {} + ibuf_full {} + overwritten {} + invalid {}{}",
                f.name,
                s.writer.accepted,
                s.delivered,
                s.writer.pbuf_full,
                s.writer.ibuf_full,
                s.overwritten,
                s.invalid,
                if f.balanced { "" } else { " UNBALANCED" }
            )
        })
        .collect();
    format!(
        "slow reader ({}): {}",
        if r.bounded {
            "stall bounded at 20 ms"
        } else {
            "stall unbounded"
        },
        flows.join("; ")
    )
}

impl MultiReport {
    /// The points of (rate, contender, N).
    fn of(&self, rate: Rate, c: Option<Contender>, n: usize) -> Vec<&PointRun> {
        self.points
            .iter()
            .filter(|p| p.point.rate == rate && p.point.contender == c && p.point.apps == n)
            .collect()
    }

    /// The summary of (rate, contender, N); `None` contender with N = 0 is the
    /// sender alone.
    pub fn summary(&self, rate: Rate, c: Option<Contender>, n: usize) -> Option<Summary> {
        let runs = self.of(rate, c, n);
        if runs.is_empty() {
            return None;
        }
        let daemon = runs.iter().all(|r| r.daemon_cpu_s.is_some()).then(|| {
            stat(&runs, |r| {
                r.daemon_cpu_s.unwrap_or(0.0) / (r.sent.packets as f64 / 1e6).max(1e-9)
            })
        });
        Some(Summary {
            rounds: runs.len(),
            cpu: stat(&runs, PointRun::cpu_s_per_mpkt),
            shared: stat(&runs, PointRun::shared_cpu_s_per_mpkt),
            app_cpu: stat(&runs, PointRun::app_cpu_s_per_mpkt),
            attributed: stat(&runs, PointRun::attributed_cpu_s_per_mpkt),
            attributed_shared: stat(&runs, PointRun::attributed_shared_cpu_s_per_mpkt),
            pps: stat(&runs, |r| r.sent.pps()),
            drop: stat(&runs, PointRun::drop_ratio),
            kernel_dropped: stat(&runs, |r| r.kernel_dropped() as f64),
            background: stat(&runs, |r| r.background),
            daemon,
        })
    }

    /// The rate the JSON's per-N lists are of: top speed if it was run (the
    /// paper's "high bitrate"), else the last rate.
    pub fn primary_rate(&self) -> Option<Rate> {
        if self.rates.contains(&Rate::Top) {
            Some(Rate::Top)
        } else {
            self.rates.last().copied()
        }
    }

    /// Whether every slow-reader pass balanced (false if none ran).
    pub fn slow_reader_exact(&self) -> bool {
        !self.slow_reader.is_empty() && self.slow_reader.iter().all(SlowReaderRun::exact)
    }

    /// One Figure 12 table per rate.
    pub fn figure12_tables(&self) -> String {
        let mut s = String::new();
        let has_daemon = self.points.iter().any(|p| p.daemon_cpu_s.is_some());
        for &rate in &self.rates {
            let _ = writeln!(
                s,
                "Figure 12 at {} ({} rounds; CPU s per million packets sent. machine: /proc/stat, CPU time less idle, \
                 everything on the machine; attributed: sender + tcpdumps + ksoftirqd{}; shared: less the tcpdumps' own):\n",
                rate_label(rate),
                self.runs,
                if has_daemon { " + daemon" } else { "" }
            );
            s.push_str(
                "| apps | contender | sender pps | machine CPU | machine shared | attributed CPU | attributed shared | tcpdumps' own | vs stock (attributed) | worst loss | kernel drops | background busy |\n\
                 |---|---|---|---|---|---|---|---|---|---|---|---|\n",
            );
            if let Some(a) = self.summary(rate, None, 0) {
                let _ = writeln!(
                    s,
                    "| 0 | sender alone | {} | {} | {} | {} | {} | - | - | - | - | {} |",
                    cell(&a.pps, 0),
                    cell(&a.cpu, 3),
                    cell(&a.shared, 3),
                    cell(&a.attributed, 3),
                    cell(&a.attributed_shared, 3),
                    pct(&a.background)
                );
            }
            for &n in &self.counts {
                let stock = self.summary(rate, Some(Contender::Stock), n);
                for c in Contender::ALL {
                    let Some(m) = self.summary(rate, Some(c), n) else {
                        continue;
                    };
                    let vs = match (c, &stock) {
                        (Contender::Netsift, Some(st)) if st.attributed.median > 0.0 => {
                            format!("{:.2}x", m.attributed.median / st.attributed.median)
                        }
                        (Contender::Stock, _) => "1.00x".into(),
                        _ => "-".into(),
                    };
                    let _ = writeln!(
                        s,
                        "| {n} | {} | {} | {} | {} | {} | {} | {} | {vs} | {} | {} | {} |",
                        c.name(),
                        cell(&m.pps, 0),
                        cell(&m.cpu, 3),
                        cell(&m.shared, 3),
                        cell(&m.attributed, 3),
                        cell(&m.attributed_shared, 3),
                        cell(&m.app_cpu, 3),
                        pct(&m.drop),
                        cell(&m.kernel_dropped, 0),
                        pct(&m.background)
                    );
                }
            }
            s.push('\n');
        }
        s
    }

    /// Table 1.
    pub fn table1_table(&self) -> String {
        let mhz = super::table1::cpu_mhz();
        let mut s = format!(
            "Table 1 in process (ns per operation, median [min, max] over runs; cycles at the {} the kernel reports):\n\n",
            mhz.map_or("clock".to_string(), |m| format!("{m:.0} MHz"))
        );
        s.push_str("| task | ns | ~cycles | FFPF's cycles (1.2 GHz P3) |\n|---|---|---|---|\n");
        for r in &self.table1 {
            let cycles = mhz.map_or("-".to_string(), |m| format!("{:.0}", r.ns.median * m / 1e3));
            let _ = writeln!(
                s,
                "| {} | {} | {cycles} | {} |",
                r.task,
                cell(&r.ns, 1),
                r.ffpf_cycles.map_or("-".into(), |c| c.to_string())
            );
        }
        s
    }

    /// The slow-reader accounting.
    pub fn slow_reader_table(&self) -> String {
        let mut s = String::from(
            "Slow-reader accounting (crates/ffpf in process, slow-reader preference, 256 KiB PBuf, 1500-byte packets):\n\n\
             | stall | flow | accepted | delivered | PBuf full | IBuf full | overwritten | invalid | detached | exact |\n\
             |---|---|---|---|---|---|---|---|---|---|\n",
        );
        for r in &self.slow_reader {
            for f in &r.flows {
                let st = &f.stats;
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    if r.bounded {
                        "bounded 20 ms"
                    } else {
                        "unbounded"
                    },
                    f.name,
                    st.writer.accepted,
                    st.delivered,
                    st.writer.pbuf_full,
                    st.writer.ibuf_full,
                    st.overwritten,
                    st.invalid,
                    st.detached,
                    if f.balanced { "yes" } else { "NO" }
                );
            }
        }
        let _ = writeln!(s, "\nslow_reader_exact: {}", self.slow_reader_exact());
        s
    }

    /// All tables, and the copy modes' (or a placeholder if they did not run).
    pub fn tables(&self) -> String {
        let copy = if self.copy_modes.is_empty() {
            COPY_MODES_PLACEHOLDER.to_string()
        } else {
            super::copy_modes::table(&self.copy_modes, &self.copy_counts)
        };
        format!(
            "{}{}\n{}\n{}",
            self.figure12_tables(),
            self.table1_table(),
            self.slow_reader_table(),
            copy
        )
    }

    /// The one-line JSON object.
    pub fn json(&self) -> String {
        let num = |x: Option<f64>, d: usize| match x {
            Some(v) if v.is_finite() => format!("{v:.d$}"),
            _ => "null".into(),
        };
        let rate = self.primary_rate();
        let list = |c: Contender, f: &dyn Fn(&Summary) -> f64, d: usize| -> String {
            let v: Vec<String> = self
                .counts
                .iter()
                .map(|&n| {
                    num(
                        rate.and_then(|r| self.summary(r, Some(c), n))
                            .map(|m| f(&m)),
                        d,
                    )
                })
                .collect();
            format!("[{}]", v.join(","))
        };
        let mut fields = vec![
            format!("\"rate\":{}", num_label(rate)),
            format!("\"packets\":{}", self.trace.packets),
            format!("\"rounds\":{}", self.runs),
            format!("\"netsift_backend\":{}", json_str(&self.netsift_backend)),
            format!(
                "\"apps\":[{}]",
                self.counts
                    .iter()
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        ];
        type Get = fn(&Summary) -> f64;
        let metrics: [(&str, Get, usize); 7] = [
            ("cpu_s_per_mpkt", |m| m.cpu.median, 4),
            ("shared_cpu_s_per_mpkt", |m| m.shared.median, 4),
            ("attributed_cpu_s_per_mpkt", |m| m.attributed.median, 4),
            (
                "attributed_shared_cpu_s_per_mpkt",
                |m| m.attributed_shared.median,
                4,
            ),
            ("app_cpu_s_per_mpkt", |m| m.app_cpu.median, 4),
            ("sender_pps", |m| m.pps.median, 0),
            ("drop_ratio", |m| m.drop.median, 4),
        ];
        for (key, f, d) in metrics {
            for c in Contender::ALL {
                fields.push(format!("\"{}_{key}\":{}", c.name(), list(c, &f, d)));
            }
        }
        let daemon: Vec<String> = self
            .counts
            .iter()
            .map(|&n| {
                let m = rate.and_then(|r| self.summary(r, Some(Contender::Netsift), n));
                num(m.and_then(|m| m.daemon).map(|d| d.median), 4)
            })
            .collect();
        fields.push(format!(
            "\"netsift_daemon_cpu_s_per_mpkt\":[{}]",
            daemon.join(",")
        ));
        let alone = rate.and_then(|r| self.summary(r, None, 0));
        fields.push(format!(
            "\"sender_pps_alone\":{}",
            num(alone.as_ref().map(|a| a.pps.median), 0)
        ));
        fields.push(format!(
            "\"cpu_s_per_mpkt_alone\":{}",
            num(alone.as_ref().map(|a| a.cpu.median), 4)
        ));
        fields.push(format!(
            "\"attributed_cpu_s_per_mpkt_alone\":{}",
            num(alone.as_ref().map(|a| a.attributed.median), 4)
        ));
        fields.push(format!(
            "\"slow_reader_exact\":{}",
            self.slow_reader_exact()
        ));
        let t1: Vec<String> = self
            .table1
            .iter()
            .map(|r| format!("\"{}\":{}", r.key, num(Some(r.ns.median), 2)))
            .collect();
        fields.push(format!("\"table1_ns\":{{{}}}", t1.join(",")));
        fields.push(format!(
            "\"copy_modes\":{}",
            super::copy_modes::json(&self.copy_modes, &self.copy_counts)
        ));
        let rows: Vec<String> = self
            .points
            .iter()
            .map(|p| {
                format!(
                    "{{\"rate\":\"{}\",\"contender\":{},\"apps\":{},\"round\":{},\"sent\":{},\"sender_pps\":{:.0},\"busy_ticks\":{},\"busy_s\":{:.3},\"window_s\":{:.3},\"app_cpu_s\":{:.4},\"daemon_cpu_s\":{},\"sender_cpu_s\":{:.4},\"ksoftirqd_cpu_s\":{:.4},\"cpu_s_per_mpkt\":{:.4},\"shared_cpu_s_per_mpkt\":{:.4},\"attributed_cpu_s_per_mpkt\":{:.4},\"attributed_shared_cpu_s_per_mpkt\":{:.4},\"drop_ratio\":{:.4},\"kernel_dropped\":{},\"background\":{:.3},\"captured\":[{}],\"received\":[{}],\"expected\":[{}]}}",
                    p.point.rate.label(),
                    p.point.contender.map_or("null".into(), |c| json_str(c.name())),
                    p.point.apps,
                    p.point.round,
                    p.sent.packets,
                    p.sent.pps(),
                    p.busy_ticks,
                    p.busy_s,
                    p.window_s,
                    p.app_cpu_s,
                    p.daemon_cpu_s.map_or("null".into(), |t| format!("{t:.4}")),
                    p.sender_cpu_s,
                    p.ksoftirqd_cpu_s,
                    p.cpu_s_per_mpkt(),
                    p.shared_cpu_s_per_mpkt(),
                    p.attributed_cpu_s_per_mpkt(),
                    p.attributed_shared_cpu_s_per_mpkt(),
                    p.drop_ratio(),
                    p.kernel_dropped(),
                    p.background,
                    p.exits.iter().map(|e| e.closing.captured.to_string()).collect::<Vec<_>>().join(","),
                    p.exits.iter().map(|e| e.closing.received.to_string()).collect::<Vec<_>>().join(","),
                    p.expected.iter().map(|e| e.to_string()).collect::<Vec<_>>().join(","),
                )
            })
            .collect();
        fields.push(format!("\"rows\":[{}]", rows.join(",")));
        format!("{{{}}}", fields.join(","))
    }
}

fn num_label(r: Option<Rate>) -> String {
    r.map_or("null".into(), |r| json_str(&r.label()))
}

/// A JSON string literal.
fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for ch in s.chars() {
        match ch {
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

/// Printed in place of the copy-mode comparison until it can be measured.
pub const COPY_MODES_PLACEHOLDER: &str = "Copy modes side by side: NOT MEASURED. \
They run only with the netsift contender through netsiftd (the default, or a --daemon \
command whose program is netsiftd), which was not the case; `copy_modes` is null in the JSON.\n";

#[cfg(test)]
mod tests {
    use super::super::apps::{AppExit, Closing};
    use super::super::point::Point;
    use super::super::procstat::ticks_per_second;
    use super::super::slow_reader;
    use super::super::trace::Trace;
    use super::*;
    use crate::live::replay::Sent;

    fn point(c: Option<Contender>, apps: usize, rate: Rate, round: usize) -> PointRun {
        let exits = (0..apps)
            .map(|i| AppExit {
                filter: i,
                closing: Closing {
                    captured: 900,
                    received: 1000,
                    dropped: 100,
                },
            })
            .collect();
        PointRun {
            point: Point {
                contender: c,
                apps,
                rate,
                loops: 1,
                round,
            },
            sent: Sent {
                packets: 200_000,
                failed: 0,
                seconds: 0.5,
            },
            busy_ticks: 197 + 40 * apps as u64,
            busy_s: (197 + 40 * apps) as f64 / ticks_per_second(),
            app_cpu_s: 0.11 * apps as f64,
            daemon_cpu_s: None,
            sender_cpu_s: 0.5,
            ksoftirqd_cpu_s: 0.02,
            window_s: 0.6,
            background: 0.01,
            exits,
            expected: vec![1000; apps],
        }
    }

    fn report() -> MultiReport {
        let rates = vec![Rate::Pps(150_000), Rate::Top];
        let mut points = Vec::new();
        for round in 0..2 {
            for &rate in &rates {
                points.push(point(None, 0, rate, round));
                for n in [1, 6] {
                    for c in Contender::ALL {
                        points.push(point(Some(c), n, rate, round));
                    }
                }
            }
        }
        MultiReport {
            trace: Trace {
                path: "/tmp/t.pcap".into(),
                packets: 200_000,
                mean_bytes: 846.0,
                expected: vec![1000; 8],
                source: "test".into(),
            },
            counts: vec![1, 6],
            rates,
            runs: 2,
            top_loops: 2,
            netsift_backend: "in \"process\"".into(),
            points,
            copy_modes: Vec::new(),
            copy_counts: vec![6],
            slow_reader: vec![slow_reader::run(500, false).unwrap()],
            table1: Vec::new(),
            seconds: 1.0,
        }
    }

    #[test]
    fn the_json_line_has_the_issues_fields() {
        let r = report();
        let j: serde_json::Value = serde_json::from_str(&r.json()).expect("valid JSON");
        let apps = j["apps"].as_array().unwrap();
        assert_eq!(apps.len(), 2);
        assert!(apps.iter().any(|a| a == 1) && apps.iter().any(|a| a == 6));
        for key in [
            "stock_cpu_s_per_mpkt",
            "netsift_cpu_s_per_mpkt",
            "stock_shared_cpu_s_per_mpkt",
            "netsift_shared_cpu_s_per_mpkt",
            "stock_sender_pps",
            "netsift_sender_pps",
            "stock_drop_ratio",
            "netsift_drop_ratio",
            "stock_attributed_cpu_s_per_mpkt",
            "netsift_attributed_shared_cpu_s_per_mpkt",
        ] {
            let v = j[key].as_array().unwrap_or_else(|| panic!("{key} missing"));
            assert_eq!(v.len(), apps.len(), "{key}");
            assert!(v.iter().all(|x| x.is_number()), "{key}: {v:?}");
        }
        assert_eq!(j["sender_pps_alone"], 400_000);
        assert_eq!(j["slow_reader_exact"], true);
        assert!(j["copy_modes"].is_null());
        assert_eq!(j["rate"], "top");
        assert_eq!(j["netsift_backend"], "in \"process\"");
        // 2 rounds x 2 rates x (alone + 2 counts x 2 contenders).
        assert_eq!(j["rows"].as_array().unwrap().len(), 20);
        let drop = j["stock_drop_ratio"][0].as_f64().unwrap();
        assert!((drop - 0.1).abs() < 1e-9);
        let shared = j["stock_shared_cpu_s_per_mpkt"][1].as_f64().unwrap();
        let tps = ticks_per_second();
        let want = ((197.0 + 240.0) / tps - 0.66) / 0.2;
        assert!((shared - want).abs() < 1e-3, "{shared} vs {want}");
    }

    #[test]
    fn tables_name_every_point_and_the_placeholder() {
        let t = report().tables();
        assert!(t.contains("Figure 12 at top speed"));
        assert!(t.contains("| 0 | sender alone | 400000 |"));
        assert!(t.contains("| 6 | netsift |"));
        assert!(t.contains("Copy modes side by side: NOT MEASURED"));
        assert!(t.contains("slow_reader_exact: true"));
    }
}
