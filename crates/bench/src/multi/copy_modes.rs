//! The copy modes side by side (NIC-FIX §4.3): the netsift contender through
//! `netsiftd` once per `--copy` mode, `once` (a packet stored once per flow
//! group), `per-flow` (once per flow that accepted it, as sockets each get a
//! copy) and `zero` (the interface's frames land in an AF_XDP UMEM that is
//! the group's PBuf; the daemon stores index entries only), at top speed,
//! with the same applications, trace and measures as Figure 12's points.
//!
//! Not like for like with stock: with `zero` an XDP program redirects every
//! frame of the capture interface that the applications' filters together
//! accept (with six, every IPv4 and every TCP frame) to the daemon's AF_XDP socket, so the
//! kernel's receive stack (socket buffers, the packet taps) never runs for
//! them, work every other contender pays for in the sender's softirq on
//! this veth. Its figures say what a monitor port costs, not what a host
//! interface would.

use super::apps::{Apps, Contender};
use super::point::{self, Point, PointRun, Setup};
use crate::live::replay::Rate;

/// The modes, in the order they run and are reported.
pub const MODES: [&str; 3] = ["once", "per-flow", "zero"];

/// What the report says of the comparison, wherever its figures appear.
pub const NOTE: &str = "With `zero`, XDP redirects every frame of the capture veth that the \
applications' filters together accept (with 6, every IPv4 and every TCP frame) to the daemon's \
AF_XDP socket (copy mode, XDP_COPY: veth has no zero-copy driver mode), so the \
kernel's receive stack does not run for them: not a like-for-like comparison with stock or \
with the other modes, whose frames the sender's softirq takes through the whole stack.";

/// One measured point of one mode.
#[derive(Clone, Debug)]
pub struct CopyRun {
    /// The `--copy` mode.
    pub mode: &'static str,
    /// The point.
    pub run: PointRun,
}

/// `apps` with the daemon told `--copy mode`; `None` when the netsift
/// contender has no daemon, or one that is not `netsiftd` (a `--daemon`
/// command the harness cannot add flags to).
pub fn with_copy(apps: &Apps, mode: &str) -> Option<Apps> {
    let d = apps.netsift.daemon.as_ref()?;
    let exe = std::path::Path::new(d.argv.first()?);
    if exe.file_name()? != "netsiftd" {
        return None;
    }
    let mut a = apps.clone();
    let argv = &mut a.netsift.daemon.as_mut()?.argv;
    argv.extend(["--copy".to_string(), mode.to_string()]);
    Some(a)
}

/// Every mode at each of `counts` applications, `runs` rounds, at top speed
/// (`loops` plays per replay); nothing if the daemon cannot be told a mode.
pub fn run(
    setup: &Setup<'_>,
    counts: &[usize],
    runs: usize,
    loops: usize,
    mut log: impl FnMut(&PointRun, &str),
) -> Result<Vec<CopyRun>, String> {
    let mut out = Vec::new();
    for round in 0..runs.max(1) {
        for mode in MODES {
            let Some(apps) = with_copy(setup.apps, mode) else {
                return Ok(Vec::new());
            };
            let s = Setup {
                apps: &apps,
                ..*setup
            };
            for &n in counts {
                let p = Point {
                    contender: Some(Contender::Netsift),
                    apps: n,
                    rate: Rate::Top,
                    loops,
                    round,
                };
                let r = point::measure(&s, p)?;
                log(&r, mode);
                out.push(CopyRun { mode, run: r });
            }
        }
    }
    Ok(out)
}

/// The median of `f` over the runs of `mode` with `n` applications.
fn median(runs: &[CopyRun], mode: &str, n: usize, f: fn(&PointRun) -> f64) -> Option<f64> {
    let mut v: Vec<f64> = runs
        .iter()
        .filter(|r| r.mode == mode && r.run.point.apps == n)
        .map(|r| f(&r.run))
        .collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

type Get = fn(&PointRun) -> f64;

/// The measures reported per mode, with their digits.
const MEASURES: [(&str, Get, usize); 4] = [
    ("cpu_s_per_mpkt", PointRun::cpu_s_per_mpkt, 4),
    ("shared_cpu_s_per_mpkt", PointRun::shared_cpu_s_per_mpkt, 4),
    ("sender_pps", |r| r.sent.pps(), 0),
    ("drop_ratio", PointRun::drop_ratio, 4),
];

/// The JSON value of `copy_modes`: `null` when nothing ran, else
/// `{"rate":"top","apps":[N…],"note":…,"once":{measure:[per N]},…}`, each
/// a median over rounds (`drop_ratio`: the worst application's).
pub fn json(runs: &[CopyRun], counts: &[usize]) -> String {
    if runs.is_empty() {
        return "null".into();
    }
    let num = |x: Option<f64>, d: usize| match x {
        Some(v) if v.is_finite() => format!("{v:.d$}"),
        _ => "null".into(),
    };
    let mut fields = vec![
        "\"rate\":\"top\"".to_string(),
        format!(
            "\"apps\":[{}]",
            counts
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(",")
        ),
        format!("\"note\":\"{}\"", NOTE.replace('"', "\\\"")),
    ];
    for mode in MODES {
        let m: Vec<String> = MEASURES
            .iter()
            .map(|&(key, f, d)| {
                let v: Vec<String> = counts
                    .iter()
                    .map(|&n| num(median(runs, mode, n, f), d))
                    .collect();
                format!("\"{key}\":[{}]", v.join(","))
            })
            .collect();
        fields.push(format!("\"{mode}\":{{{}}}", m.join(",")));
    }
    format!("{{{}}}", fields.join(","))
}

/// The comparison as a Markdown table, with [`NOTE`].
pub fn table(runs: &[CopyRun], counts: &[usize]) -> String {
    let mut t = String::from(
        "Copy modes at top speed (netsift through netsiftd --copy MODE; medians over rounds):\n\n\
         | N | mode | CPU s/Mpkt | shared CPU s/Mpkt | sender pps | worst loss |\n\
         |---|---|---|---|---|---|\n",
    );
    for &n in counts {
        for mode in MODES {
            let get = |f| median(runs, mode, n, f);
            if let (Some(c), Some(s), Some(p), Some(d)) = (
                get(PointRun::cpu_s_per_mpkt),
                get(PointRun::shared_cpu_s_per_mpkt),
                get(|r| r.sent.pps()),
                get(PointRun::drop_ratio),
            ) {
                t.push_str(&format!(
                    "| {n} | {mode} | {c:.3} | {s:.3} | {p:.0} | {:.2}% |\n",
                    d * 100.0
                ));
            }
        }
    }
    t.push('\n');
    t.push_str(NOTE);
    t.push('\n');
    t
}

#[cfg(test)]
mod tests {
    use super::super::apps::{DaemonCommand, NetsiftSetup};
    use super::*;

    fn apps(argv0: &str) -> Apps {
        Apps {
            tcpdump: "tcpdump".into(),
            buffer_kib: 16384,
            netsift: NetsiftSetup {
                shim_dir: "/x".into(),
                env: Vec::new(),
                daemon: Some(DaemonCommand {
                    argv: vec![argv0.into(), "--iface".into(), "lbrx".into()],
                    ready: None,
                }),
            },
        }
    }

    #[test]
    fn the_mode_goes_to_netsiftd_and_to_no_other_daemon() {
        let a = with_copy(&apps("/t/release/netsiftd"), "zero").unwrap();
        let argv = &a.netsift.daemon.unwrap().argv;
        assert_eq!(argv[argv.len() - 2..], ["--copy", "zero"]);
        assert!(with_copy(&apps("sh"), "zero").is_none());
        assert_eq!(json(&[], &[6]), "null");
    }
}
