//! A grouped bar chart of ns/packet per filter and engine: the paper's Figure 10,
//! redrawn for this machine (one group per filter, one bar per engine, the median with
//! a min-max whisker).

use std::fmt::Write;

use super::{StaticReport, ENGINES, ENGINE_LABELS};

const COLORS: [&str; 7] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
];
const W: f64 = 760.0;
const H: f64 = 420.0;
const L: f64 = 70.0;
const R: f64 = 20.0;
const T: f64 = 40.0;
const B: f64 = 120.0;

/// The chart as an SVG document.
pub fn figure10(r: &StaticReport, machine: &str) -> String {
    let top = r
        .filters
        .iter()
        .flat_map(|f| f.engines.iter().map(|e| e.all.max))
        .fold(1.0f64, f64::max);
    let step = nice_step(top / 5.0);
    let ymax = (top / step).ceil() * step;
    let pw = W - L - R;
    let ph = H - T - B;
    let y = |v: f64| T + ph - v / ymax * ph;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" \
         font-family=\"sans-serif\" font-size=\"12\">"
    );
    let _ = writeln!(s, "<rect width=\"{W}\" height=\"{H}\" fill=\"white\"/>");
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">Per-packet filtering time \
         (ns, median of {} runs, {} packets)</text>",
        W / 2.0,
        r.runs,
        r.packets
    );
    let mut v = 0.0;
    while v <= ymax + step * 0.01 {
        let yy = y(v);
        let _ = writeln!(
            s,
            "<line x1=\"{L}\" y1=\"{yy:.1}\" x2=\"{:.1}\" y2=\"{yy:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            L + pw,
            L - 6.0,
            yy + 4.0,
            v
        );
        v += step;
    }
    let groups = r.filters.len().max(1) as f64;
    let gw = pw / groups;
    let bw = gw * 0.8 / ENGINES.len() as f64;
    for (gi, f) in r.filters.iter().enumerate() {
        let gx = L + gi as f64 * gw + gw * 0.1;
        for (k, e) in f.engines.iter().enumerate() {
            let x = gx + k as f64 * bw;
            let (top, h) = (y(e.all.median), y(0.0) - y(e.all.median));
            let _ = writeln!(
                s,
                "<rect x=\"{x:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"{}\">\
                 <title>filter {}: {} {:.1} ns</title></rect>",
                bw * 0.9,
                COLORS[k % COLORS.len()],
                f.id,
                e.engine,
                e.all.median
            );
            let cx = x + bw * 0.45;
            let _ = writeln!(
                s,
                "<line x1=\"{cx:.1}\" y1=\"{:.1}\" x2=\"{cx:.1}\" y2=\"{:.1}\" stroke=\"black\"/>",
                y(e.all.min),
                y(e.all.max)
            );
        }
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">filter {}</text>",
            L + gi as f64 * gw + gw / 2.0,
            T + ph + 16.0,
            f.id
        );
    }
    let _ = writeln!(
        s,
        "<line x1=\"{L}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"black\"/>",
        T + ph,
        L + pw,
        T + ph
    );
    for (k, label) in ENGINE_LABELS.iter().enumerate() {
        let lx = L + (k % 3) as f64 * 220.0;
        let ly = T + ph + 40.0 + (k / 3) as f64 * 18.0;
        let _ = writeln!(
            s,
            "<rect x=\"{lx:.1}\" y=\"{:.1}\" width=\"12\" height=\"12\" fill=\"{}\"/>\
             <text x=\"{:.1}\" y=\"{ly:.1}\">{}</text>",
            ly - 10.0,
            COLORS[k],
            lx + 16.0,
            label
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"{L}\" y=\"{:.1}\" font-size=\"10\" fill=\"#555\">{}</text>",
        H - 12.0,
        escape(machine)
    );
    s.push_str("</svg>\n");
    s
}

fn nice_step(raw: f64) -> f64 {
    let raw = raw.max(1e-9);
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let m = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
