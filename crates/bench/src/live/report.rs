//! The live benchmark's results: medians with min and max over runs, the issue's
//! targets as met or not, the one-line JSON object, and two SVG plots.

use super::contenders::{CaptureRun, Contender};
use super::edits::EditRun;
use super::replay::Rate;
use super::LiveReport;
use crate::dynamic::svg::{plot, Series};
use crate::stats::Stat;

/// One (contender, rate) over its runs.
#[derive(Clone, Debug)]
pub struct Row {
    /// The capture tool.
    pub contender: Contender,
    /// The replay rate.
    pub rate: Rate,
    /// Rate achieved by tcpreplay, packets per second.
    pub pps: Stat,
    /// Packets tcpreplay sent per run.
    pub sent: Stat,
    /// "packets captured": accepted by the filter and written, per run.
    pub captured: Stat,
    /// "received by filter": what reached the process's ring.
    pub received: Stat,
    /// "dropped by kernel": lost because the ring was full, per run.
    pub dropped: Stat,
    /// CPU seconds per million packets sent.
    pub cpu: Stat,
    /// The same less the contender's idle run ([`CaptureRun::net_cpu_per_mpkt`]).
    pub net_cpu: Stat,
}

/// One edit contender summed over its runs.
#[derive(Clone, Debug, Default)]
pub struct EditSum {
    /// How many runs are summed.
    pub runs: usize,
    /// Filter changes made.
    pub edits: u64,
    /// Packets tcpreplay sent.
    pub sent: u64,
    /// Packets of the stream delivered.
    pub delivered: u64,
    /// Packets matching both filters that were not delivered.
    pub lost: u64,
    /// Packets matching neither filter that were delivered.
    pub leaked: u64,
    /// Packets delivered more than once.
    pub duplicates: u64,
    /// The ring's "dropped by kernel".
    pub dropped: u64,
    /// Lost packets per run: min and max.
    pub lost_range: (u64, u64),
}

fn stat(runs: &[&CaptureRun], f: impl Fn(&CaptureRun) -> f64) -> Stat {
    Stat::of(&runs.iter().map(|r| f(r)).collect::<Vec<_>>()).unwrap_or_default()
}

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

impl LiveReport {
    /// The rates measured, in order (fixed rates ascending, then top speed).
    pub fn rates(&self) -> Vec<Rate> {
        let mut r: Vec<Rate> = self.runs.iter().map(|x| x.rate).collect();
        r.sort();
        r.dedup();
        r
    }

    /// Contender `c` at `rate` over its runs; `None` if it was not run there.
    pub fn row(&self, c: Contender, rate: Rate) -> Option<Row> {
        let runs: Vec<&CaptureRun> = self
            .runs
            .iter()
            .filter(|r| r.contender == c && r.rate == rate)
            .collect();
        if runs.is_empty() {
            return None;
        }
        Some(Row {
            contender: c,
            rate,
            pps: stat(&runs, |r| r.sent.pps()),
            sent: stat(&runs, |r| r.sent.packets as f64),
            captured: stat(&runs, |r| r.captured as f64),
            received: stat(&runs, |r| r.received as f64),
            dropped: stat(&runs, |r| r.dropped as f64),
            cpu: stat(&runs, |r| r.cpu_per_mpkt()),
            net_cpu: stat(&runs, |r| r.net_cpu_per_mpkt()),
        })
    }

    /// `c`'s CPU per packet over tcpdump's, less each one's idle run, a ratio per
    /// round from the two runs of that round (paired, so a drift of the machine
    /// between rounds cancels): median, min and max.
    pub fn paired_ratio(&self, c: Contender, rate: Rate) -> Option<Stat> {
        let of = |c: Contender, round: usize| {
            self.runs
                .iter()
                .find(|r| r.contender == c && r.rate == rate && r.round == round)
        };
        let ratios: Vec<f64> = self
            .runs
            .iter()
            .filter(|r| r.contender == c && r.rate == rate)
            .filter_map(|n| {
                let t = of(Contender::Tcpdump, n.round)?;
                Some(n.net_cpu_per_mpkt() / t.net_cpu_per_mpkt().max(1e-9))
            })
            .collect();
        Stat::of(&ratios)
    }

    /// Each contender's idle CPU milliseconds over the rounds.
    pub fn idle_ms(&self, c: Contender) -> Option<Stat> {
        let v: Vec<f64> = self
            .idle
            .iter()
            .filter(|(x, _)| *x == c)
            .map(|(_, s)| s * 1e3)
            .collect();
        Stat::of(&v)
    }

    /// The edit runs of the contender named `contender`, summed; all zero if it
    /// has none.
    pub fn edit_sum(&self, contender: &str) -> EditSum {
        let runs: Vec<&EditRun> = self
            .edits
            .iter()
            .filter(|e| e.contender == contender)
            .collect();
        let mut s = EditSum {
            runs: runs.len(),
            lost_range: (u64::MAX, 0),
            ..EditSum::default()
        };
        for e in &runs {
            s.edits += e.edits;
            s.sent += e.sent.packets;
            s.delivered += e.delivered;
            s.lost += e.lost;
            s.leaked += e.leaked;
            s.duplicates += e.duplicates;
            s.dropped += e.dropped;
            s.lost_range = (s.lost_range.0.min(e.lost), s.lost_range.1.max(e.lost));
        }
        if runs.is_empty() {
            s.lost_range = (0, 0);
        }
        s
    }

    /// Markdown tables: capture cost per rate, then the edit experiment.
    pub fn tables(&self) -> String {
        let mut s = String::from(
            "| rate | contender | sent pps | sent | received by filter | captured | dropped by kernel | CPU s / Mpkt sent | CPU vs tcpdump | less the idle run | per packet vs tcpdump (paired) |\n\
             |---|---|---|---|---|---|---|---|---|---|---|\n",
        );
        for rate in self.rates() {
            let td = self.row(Contender::Tcpdump, rate);
            for c in Contender::ALL {
                let Some(r) = self.row(c, rate) else { continue };
                let ratio = td.as_ref().map_or("-".into(), |t| {
                    format!("{:.2}x", r.cpu.median / t.cpu.median.max(1e-9))
                });
                let paired = self
                    .paired_ratio(c, rate)
                    .map_or("-".into(), |p| format!("{}x", cell(&p, 2)));
                s.push_str(&format!(
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                    rate.label(),
                    c.name(),
                    cell(&r.pps, 0),
                    cell(&r.sent, 0),
                    cell(&r.received, 0),
                    cell(&r.captured, 0),
                    cell(&r.dropped, 0),
                    cell(&r.cpu, 3),
                    ratio,
                    cell(&r.net_cpu, 3),
                    paired
                ));
            }
        }
        s.push_str(
            "\n| idle run (started, listening, stopped; nothing sent) | CPU ms |\n|---|---|\n",
        );
        for c in Contender::ALL {
            if let Some(i) = self.idle_ms(c) {
                s.push_str(&format!("| {} | {} |\n", c.name(), cell(&i, 1)));
            }
        }
        s.push_str(
            "\n| edit contender | runs | edits | sent | delivered | lost (both A and B, not delivered) | leaked (neither, delivered) | duplicates | dropped by kernel |\n\
             |---|---|---|---|---|---|---|---|---|\n",
        );
        for name in ["netsift", "netsift-kernel", "libpcap"] {
            let e = self.edit_sum(name);
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} (per run {}-{}) | {} | {} | {} |\n",
                name,
                e.runs,
                e.edits,
                e.sent,
                e.delivered,
                e.lost,
                e.lost_range.0,
                e.lost_range.1,
                e.leaked,
                e.duplicates,
                e.dropped
            ));
        }
        let st = &self.stress;
        s.push_str(&format!(
            "\n| edit stress (in memory, edits back to back) | edits | packets filtered | lost | leaked |\n\
             |---|---|---|---|---|\n| netsift live set | {} | {} | {} | {} |\n",
            st.edits, st.evaluations, st.lost, st.leaked
        ));
        s
    }

    /// The targets: a line each, and whether it is met.
    pub fn targets(&self) -> Vec<(String, bool)> {
        let mut out = Vec::new();
        for rate in self.rates() {
            let Some(td) = self.row(Contender::Tcpdump, rate) else {
                continue;
            };
            if td.dropped.max > 0.0 {
                continue;
            }
            for c in Contender::ALL
                .into_iter()
                .filter(|c| *c != Contender::Tcpdump)
            {
                if let Some(n) = self.row(c, rate) {
                    out.push((
                        format!(
                            "at {} pps tcpdump dropped nothing; {} dropped {} (max over runs)",
                            rate.label(),
                            c.name(),
                            n.dropped.max
                        ),
                        n.dropped.max == 0.0,
                    ));
                }
            }
        }
        // The CPU target, per packet: the CPU less what each process spends once
        // whatever it captures (its idle run), netsift's over tcpdump's in the same
        // round, median over rounds; for netsift filtering in user space and with
        // its filter in the kernel too (as tcpdump's is); met if either is. The
        // ratio of the whole processes' CPU is said beside it.
        if let Some(t) = self.row(Contender::Tcpdump, Rate::Top) {
            let mut lines = Vec::new();
            let mut met = false;
            for kernel in [false, true] {
                let c = Contender::Netsift { workers: 1, kernel };
                if let (Some(n), Some(p)) =
                    (self.row(c, Rate::Top), self.paired_ratio(c, Rate::Top))
                {
                    met |= p.median <= 0.5;
                    lines.push(format!(
                        "{} {:.3} CPU s/Mpkt less {:.1} ms idle, {}x per packet \
                         (whole process {:.3}, {:.2}x)",
                        c.name(),
                        n.net_cpu.median,
                        self.idle_ms(c).map_or(0.0, |i| i.median),
                        cell(&p, 2),
                        n.cpu.median,
                        n.cpu.median / t.cpu.median.max(1e-9)
                    ));
                }
            }
            if !lines.is_empty() {
                out.push((
                    format!(
                        "at top speed (1 worker): {}; tcpdump {:.3} less {:.1} ms idle \
                         (whole process {:.3}) (target: at most 0.5x per packet)",
                        lines.join("; "),
                        t.net_cpu.median,
                        self.idle_ms(Contender::Tcpdump).map_or(0.0, |i| i.median),
                        t.cpu.median
                    ),
                    met,
                ));
            }
        }
        let (n, l) = (self.edit_sum("netsift"), self.edit_sum("libpcap"));
        let k = self.edit_sum("netsift-kernel");
        out.push((
            format!(
                "edits: netsift lost {} and leaked {} over {} edits; with the clauses in the kernel too, lost {} and leaked {} over {} edits (libpcap: lost {}, leaked {} over {} edits)",
                n.lost, n.leaked, n.edits, k.lost, k.leaked, k.edits, l.lost, l.leaked, l.edits
            ),
            n.runs > 0 && n.lost == 0 && n.leaked == 0 && k.lost == 0 && k.leaked == 0,
        ));
        let st = &self.stress;
        out.push((
            format!(
                "edit stress: netsift lost {} and leaked {} of {} packets over {} back-to-back edits",
                st.lost, st.leaked, st.evaluations, st.edits
            ),
            st.lost == 0 && st.leaked == 0,
        ));
        out
    }

    /// The one-line JSON object the issue asks for (figures at top speed are
    /// medians over runs; edit counts are sums over runs).
    pub fn json(&self) -> String {
        let top = |c| self.row(c, Rate::Top);
        let num = |x: Option<f64>, d: usize| match x {
            Some(v) if v.is_finite() => format!("{v:.d$}"),
            _ => "null".into(),
        };
        let k1 = Contender::Netsift {
            workers: 1,
            kernel: false,
        };
        let kk = Contender::Netsift {
            workers: 1,
            kernel: true,
        };
        let n1 = top(k1);
        let n2 = top(Contender::Netsift {
            workers: 2,
            kernel: false,
        });
        let nk = top(kk);
        let td = top(Contender::Tcpdump);
        let (ne, le) = (self.edit_sum("netsift"), self.edit_sum("libpcap"));
        let ke = self.edit_sum("netsift-kernel");
        let rows: Vec<String> = self
            .rates()
            .into_iter()
            .flat_map(|rate| Contender::ALL.into_iter().map(move |c| (c, rate)))
            .filter_map(|(c, rate)| self.row(c, rate))
            .map(|r| {
                format!(
                    "{{\"rate\":\"{}\",\"contender\":\"{}\",\"sent_pps\":{:.0},\"sent\":{:.0},\"captured\":{:.0},\"dropped\":{:.0},\"cpu_s_per_mpkt\":{:.4},\"net_cpu_s_per_mpkt\":{:.4},\"idle_cpu_ms\":{}}}",
                    r.rate.label(),
                    r.contender.name(),
                    r.pps.median,
                    r.sent.median,
                    r.captured.median,
                    r.dropped.median,
                    r.cpu.median,
                    r.net_cpu.median,
                    num(self.idle_ms(r.contender).map(|i| i.median), 2)
                )
            })
            .collect();
        format!(
            "{{\"packets\":{},\"expected\":{},\"top_sent\":{},\"top_sent_pps\":{},\"netsift_dropped\":{},\"netsift2_dropped\":{},\"tcpdump_dropped\":{},\"netsift_kernel_dropped\":{},\
             \"netsift_cpu_s_per_mpkt\":{},\"netsift2_cpu_s_per_mpkt\":{},\"tcpdump_cpu_s_per_mpkt\":{},\"netsift_kernel_cpu_s_per_mpkt\":{},\
             \"netsift_net_cpu_s_per_mpkt\":{},\"tcpdump_net_cpu_s_per_mpkt\":{},\"netsift_kernel_net_cpu_s_per_mpkt\":{},\"netsift_cpu_ratio\":{},\"netsift_kernel_cpu_ratio\":{},\
             \"edits\":{},\"libpcap_edits\":{},\"edit_packets_sent\":{},\"netsift_edit_lost\":{},\"netsift_edit_leaked\":{},\"netsift_edit_dropped\":{},\
             \"libpcap_edit_lost\":{},\"libpcap_edit_leaked\":{},\"libpcap_edit_dropped\":{},\"netsift_kernel_edits\":{},\"netsift_kernel_edit_lost\":{},\"netsift_kernel_edit_leaked\":{},\
             \"stress_edits\":{},\"stress_packets\":{},\"stress_lost\":{},\"stress_leaked\":{},\"targets_met\":{},\"rows\":[{}]}}",
            self.packets,
            self.expected,
            num(td.as_ref().map(|r| r.sent.median), 0),
            num(td.as_ref().map(|r| r.pps.median), 0),
            num(n1.as_ref().map(|r| r.dropped.median), 0),
            num(n2.as_ref().map(|r| r.dropped.median), 0),
            num(td.as_ref().map(|r| r.dropped.median), 0),
            num(nk.as_ref().map(|r| r.dropped.median), 0),
            num(n1.as_ref().map(|r| r.cpu.median), 4),
            num(n2.as_ref().map(|r| r.cpu.median), 4),
            num(td.as_ref().map(|r| r.cpu.median), 4),
            num(nk.as_ref().map(|r| r.cpu.median), 4),
            num(n1.as_ref().map(|r| r.net_cpu.median), 4),
            num(td.as_ref().map(|r| r.net_cpu.median), 4),
            num(nk.as_ref().map(|r| r.net_cpu.median), 4),
            num(self.paired_ratio(k1, Rate::Top).map(|p| p.median), 3),
            num(self.paired_ratio(kk, Rate::Top).map(|p| p.median), 3),
            ne.edits,
            le.edits,
            ne.sent,
            ne.lost,
            ne.leaked,
            ne.dropped,
            le.lost,
            le.leaked,
            le.dropped,
            ke.edits,
            ke.lost,
            ke.leaked,
            self.stress.edits,
            self.stress.evaluations,
            self.stress.lost,
            self.stress.leaked,
            self.targets().iter().all(|(_, ok)| *ok),
            rows.join(",")
        )
    }
}

const COLORS: [(Contender, &str); 4] = [
    (
        Contender::Netsift {
            workers: 1,
            kernel: false,
        },
        "#2471a3",
    ),
    (
        Contender::Netsift {
            workers: 1,
            kernel: true,
        },
        "#8e44ad",
    ),
    (
        Contender::Netsift {
            workers: 2,
            kernel: false,
        },
        "#27ae60",
    ),
    (Contender::Tcpdump, "#c0392b"),
];

/// One line per contender: `y` of each rate against the rate achieved (kpps).
fn by_rate(r: &LiveReport, title: &str, yl: &str, y: impl Fn(&Row) -> f64) -> String {
    let series: Vec<Series<'_>> = COLORS
        .iter()
        .map(|&(c, color)| {
            let mut points: Vec<(f64, f64)> = r
                .rates()
                .into_iter()
                .filter_map(|rate| r.row(c, rate))
                .map(|row| (row.pps.median / 1000.0, y(&row)))
                .collect();
            // Top speed on a busy machine may come out below a fixed rate.
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series {
                name: c.name(),
                color,
                points,
            }
        })
        .collect();
    plot(
        title,
        "replay rate achieved (kpps)",
        yl,
        &series,
        false,
        false,
    )
}

/// CPU seconds per million packets against the replay rate.
pub fn cpu_svg(r: &LiveReport) -> String {
    by_rate(
        r,
        "Capture CPU per packet (-w /dev/null)",
        "CPU s per million packets",
        |row| row.cpu.median,
    )
}

/// Kernel drops (percent of packets sent) against the replay rate.
pub fn drops_svg(r: &LiveReport) -> String {
    by_rate(
        r,
        &format!("Dropped by kernel, -B {} KiB", r.buffer_kib),
        "dropped by kernel (% of sent)",
        |row| 100.0 * row.dropped.median / row.sent.median.max(1.0),
    )
}
