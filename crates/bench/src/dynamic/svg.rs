//! Small SVG line plots for docs/BENCHMARKS.md (the seeds' Figures 5-8, redrawn).

use super::DynamicReport;
use std::fmt::Write;

/// One line of a plot.
pub struct Series<'a> {
    /// The legend text.
    pub name: &'a str,
    /// The stroke colour, as an SVG colour (`#rrggbb`).
    pub color: &'a str,
    /// (x, y) in data units, in drawing order; the plot scales them to fit.
    pub points: Vec<(f64, f64)>,
}

const W: f64 = 640.0;
const H: f64 = 400.0;
const L: f64 = 70.0;
const R: f64 = 170.0;
const T: f64 = 40.0;
const B: f64 = 50.0;

fn scale(v: f64, lo: f64, hi: f64, log: bool) -> f64 {
    if log {
        let (v, lo, hi) = (
            v.max(1e-9).log10(),
            lo.max(1e-9).log10(),
            hi.max(1e-9).log10(),
        );
        (v - lo) / (hi - lo).max(1e-9)
    } else {
        (v - lo) / (hi - lo).max(1e-9)
    }
}

fn ticks(lo: f64, hi: f64, log: bool) -> Vec<f64> {
    if log {
        let (a, b) = (
            lo.max(1e-9).log10().floor() as i32,
            hi.max(1e-9).log10().ceil() as i32,
        );
        (a..=b).map(|e| 10f64.powi(e)).collect()
    } else {
        let step = ((hi - lo) / 5.0).max(1e-9);
        let mag = 10f64.powf(step.log10().floor());
        let step = (step / mag).ceil() * mag;
        let mut v = (lo / step).floor() * step;
        let mut out = Vec::new();
        while v <= hi + step * 0.01 {
            out.push(v);
            v += step;
        }
        out
    }
}

fn label(v: f64) -> String {
    if v >= 1e6 {
        format!("{}M", v / 1e6)
    } else if v >= 1e3 {
        format!("{}k", v / 1e3)
    } else {
        // Ticks are sums of a step, so 0.6 may arrive as 0.6000000000000001.
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A line plot; points with non-positive coordinates are dropped on log axes.
pub fn plot(
    title: &str,
    xl: &str,
    yl: &str,
    series: &[Series<'_>],
    log_x: bool,
    log_y: bool,
) -> String {
    let keep = |&(x, y): &(f64, f64)| {
        x.is_finite() && y.is_finite() && (!log_x || x > 0.0) && (!log_y || y > 0.0)
    };
    let all: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|s| s.points.iter().copied().filter(keep))
        .collect();
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in &all {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if all.is_empty() {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if log_y {
        y0 = 10f64.powf(y0.log10().floor());
        y1 = 10f64.powf(y1.log10().ceil());
    } else {
        y0 = y0.min(0.0);
        y1 = if y1 <= y0 { y0 + 1.0 } else { y1 * 1.1 };
    }
    if log_x {
        x0 = 10f64.powf(x0.log10().floor());
        x1 = 10f64.powf(x1.log10().ceil());
    }
    let px = |x: f64| L + scale(x, x0, x1, log_x) * (W - L - R);
    let py = |y: f64| H - B - scale(y, y0, y1, log_y) * (H - T - B);
    let mut s = String::new();
    let _ = writeln!(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" font-family=\"sans-serif\" font-size=\"12\">");
    let _ = writeln!(s, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">{title}</text>",
        (L + W - R) / 2.0
    );
    for t in ticks(x0, x1, log_x) {
        if t < x0 * 0.999 || t > x1 * 1.001 {
            continue;
        }
        let x = px(t);
        let _ = writeln!(s, "<line x1=\"{x:.1}\" y1=\"{}\" x2=\"{x:.1}\" y2=\"{}\" stroke=\"#ddd\"/><text x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>", T, H - B, H - B + 16.0, label(t));
    }
    for t in ticks(y0, y1, log_y) {
        if t < y0 * 0.999 || t > y1 * 1.001 {
            continue;
        }
        let y = py(t);
        let _ = writeln!(s, "<line x1=\"{L}\" y1=\"{y:.1}\" x2=\"{}\" y2=\"{y:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>", W - R, L - 6.0, y + 4.0, label(t));
    }
    let _ = writeln!(
        s,
        "<rect x=\"{L}\" y=\"{T}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>",
        W - L - R,
        H - T - B
    );
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{xl}</text>",
        (L + W - R) / 2.0,
        H - 12.0
    );
    let _ = writeln!(
        s,
        "<text transform=\"translate(16,{}) rotate(-90)\" text-anchor=\"middle\">{yl}</text>",
        (T + H - B) / 2.0
    );
    for (k, se) in series.iter().enumerate() {
        let pts: Vec<String> = se
            .points
            .iter()
            .filter(|p| keep(p))
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        if !pts.is_empty() {
            let _ = writeln!(
                s,
                "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>",
                se.color,
                pts.join(" ")
            );
            for p in &pts {
                let (x, y) = p.split_once(',').unwrap_or(("0", "0"));
                let _ = writeln!(
                    s,
                    "<circle cx=\"{x}\" cy=\"{y}\" r=\"3\" fill=\"{}\"/>",
                    se.color
                );
            }
        }
        let ly = T + 14.0 + 18.0 * k as f64;
        let _ = writeln!(s, "<line x1=\"{}\" y1=\"{ly}\" x2=\"{}\" y2=\"{ly}\" stroke=\"{}\" stroke-width=\"2\"/><text x=\"{}\" y=\"{}\">{}</text>", W - R + 10.0, W - R + 30.0, se.color, W - R + 36.0, ly + 4.0, se.name);
    }
    s.push_str("</svg>\n");
    s
}

/// Figure 5/6: update latency against concurrent connections.
pub fn latency(r: &DynamicReport) -> String {
    let pts = |v: &[super::LatencyPoint]| {
        v.iter()
            .map(|p| (p.connections as f64, p.p50_ns / 1000.0))
            .collect()
    };
    let lsf = r
        .libpcap
        .iter()
        .filter_map(|p| p.lsf_p50_ns.map(|x| (p.connections as f64, x / 1000.0)))
        .collect();
    plot(
        "Filter update latency (p50)",
        "concurrent connections",
        "update latency (µs, log)",
        &[
            Series {
                name: "libpcap recompile",
                color: "#c0392b",
                points: pts(&r.libpcap),
            },
            Series {
                name: "kernel attach only",
                color: "#e67e22",
                points: lsf,
            },
            Series {
                name: "netsift passes",
                color: "#2471a3",
                points: pts(&r.netsift),
            },
            Series {
                name: "netsift SET",
                color: "#27ae60",
                points: pts(&r.netsift_set),
            },
        ],
        true,
        true,
    )
}

/// Figure 7/8: missed packets per data connection against the replay rate.
pub fn missed(r: &DynamicReport) -> String {
    let mut bgs: Vec<u64> = r.replays.iter().map(|x| x.background).collect();
    bgs.sort_unstable();
    bgs.dedup();
    let colors = [
        ("libpcap", ["#c0392b", "#f1948a"]),
        ("netsift", ["#2471a3", "#85c1e9"]),
    ];
    let mut names = Vec::new();
    let mut series = Vec::new();
    for (c, cols) in colors {
        for (k, bg) in bgs.iter().enumerate() {
            names.push(if *bg == 0 {
                c.to_string()
            } else {
                format!("{c} +{}k bg", bg / 1000)
            });
            let points = r
                .replays
                .iter()
                .filter(|x| x.contender == c && x.background == *bg)
                .map(|x| (x.rate as f64 / 1000.0, x.missed_per_conn.median))
                .collect();
            series.push((cols[k.min(1)], points));
        }
    }
    let series: Vec<Series<'_>> = series
        .into_iter()
        .zip(&names)
        .map(|((color, points), name)| Series {
            name,
            color,
            points,
        })
        .collect();
    plot(
        "Missed packets per data connection",
        "replay rate (kpps)",
        "missed packets per connection",
        &series,
        false,
        false,
    )
}
