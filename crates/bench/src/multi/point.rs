//! One point of Figure 12: N applications of one contender (or none: the
//! sender alone) while the trace is replayed once at one rate, and what it cost.
//!
//! The order of one point: the daemon (if configured) and the applications
//! start and say they listen; a short window with nothing sent gives the
//! machine's background load ([`PointRun::background`], other builds on a
//! shared machine show here); then the CPU window opens (`/proc/stat` and each
//! application's `/proc/PID/stat`), tcpreplay plays the trace, and the window
//! closes once the applications' CPU time has stopped growing (they caught up
//! with their rings) or after [`CATCH_UP_MAX`]; the applications are left
//! running until [`DRAIN`] after the replay, so the last partly filled ring
//! block is handed over before SIGINT, and their closing lines are read.
//!
//! What an application should have captured is known without it: the filter's
//! verdicts on the trace file (the trace has no VLAN tags, so a live capture
//! and a file agree, see [`super::trace`]), scaled by the packets tcpreplay
//! says it sent. An application's loss is what it did not capture of that;
//! this counts the same for both contenders, whereas "dropped by kernel" is 0
//! for the shim today (it learns its ring's drops only at close).

use super::apps::{AppExit, AppSet, Apps, Contender};
use super::daemon::Daemon;
use super::procstat::{ticks_per_second, ProcTimes, SystemTimes};
use crate::live::netns::Netns;
use crate::live::replay::{tcpreplay, Rate, Sent};
use crate::live::Stop;
use std::path::Path;
use std::time::{Duration, Instant};

/// The window with nothing sent that measures the background load.
const BACKGROUND: Duration = Duration::from_millis(300);
/// The longest the CPU window stays open after the replay for the
/// applications to catch up.
pub const CATCH_UP_MAX: Duration = Duration::from_secs(3);
/// How long after the replay the applications are stopped: longer than
/// libpcap's packet buffer timeout in tcpdump (1 s).
pub const DRAIN: Duration = Duration::from_millis(1300);

/// What every point shares.
#[derive(Debug)]
pub struct Setup<'a> {
    /// The network.
    pub net: &'a Netns,
    /// The applications.
    pub apps: &'a Apps,
    /// The trace file and how many packets it holds.
    pub trace: (&'a Path, u64),
    /// Packets of one play of the trace each of the filters accepts.
    pub expected: &'a [u64],
    /// Set by Ctrl-C.
    pub stop: &'a Stop,
}

/// Which point to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    /// The contender; `None` for the sender alone.
    pub contender: Option<Contender>,
    /// Concurrent applications (0 alone).
    pub apps: usize,
    /// Replay rate.
    pub rate: Rate,
    /// Plays of the trace in one replay.
    pub loops: usize,
    /// The round this is part of.
    pub round: usize,
}

/// One measured point.
#[derive(Clone, Debug)]
pub struct PointRun {
    /// What was measured.
    pub point: Point,
    /// What tcpreplay sent.
    pub sent: Sent,
    /// Busy ticks of the whole machine in the CPU window.
    pub busy_ticks: u64,
    /// The applications' own ticks in the window.
    pub app_ticks: u64,
    /// The daemon's ticks in the window, when one ran.
    pub daemon_ticks: Option<u64>,
    /// Length of the CPU window, seconds.
    pub window_s: f64,
    /// Share of the machine busy before the replay, with the applications
    /// listening and nothing sent (0 to 1).
    pub background: f64,
    /// Each application's closing counts.
    pub exits: Vec<AppExit>,
    /// What each application should have captured.
    pub expected: Vec<u64>,
}

impl PointRun {
    fn mpkt(&self) -> f64 {
        (self.sent.packets as f64 / 1e6).max(1e-9)
    }

    /// The whole machine's busy CPU seconds per million packets sent (sender,
    /// kernel, applications, daemon and anything else running).
    pub fn cpu_s_per_mpkt(&self) -> f64 {
        self.busy_ticks as f64 / ticks_per_second() / self.mpkt()
    }

    /// The part of it that is not the applications' own time.
    pub fn shared_cpu_s_per_mpkt(&self) -> f64 {
        self.busy_ticks.saturating_sub(self.app_ticks) as f64 / ticks_per_second() / self.mpkt()
    }

    /// The applications' own CPU seconds per million packets sent.
    pub fn app_cpu_s_per_mpkt(&self) -> f64 {
        self.app_ticks as f64 / ticks_per_second() / self.mpkt()
    }

    /// The worst application's loss: the share of what it should have captured
    /// that it did not (0 with no applications).
    pub fn drop_ratio(&self) -> f64 {
        self.exits
            .iter()
            .zip(&self.expected)
            .map(|(e, &want)| want.saturating_sub(e.closing.captured) as f64 / want.max(1) as f64)
            .fold(0.0, f64::max)
    }

    /// The applications' "dropped by kernel", summed.
    pub fn kernel_dropped(&self) -> u64 {
        self.exits.iter().map(|e| e.closing.dropped).sum()
    }
}

/// Ticks of the applications and the daemon.
fn listener_ticks(apps: Option<&AppSet>, daemon: Option<u32>) -> Result<(u64, u64), String> {
    let a = apps.map_or(Ok(0), AppSet::ticks)?;
    let d = daemon.map_or(Ok(0), |pid| ProcTimes::of(pid).map(|t| t.total()))?;
    Ok((a, d))
}

/// Measures one point.
pub fn measure(s: &Setup<'_>, p: Point) -> Result<PointRun, String> {
    let mut daemon = match (p.contender, &s.apps.netsift.daemon) {
        (Some(Contender::Netsift), Some(cmd)) => {
            Some(Daemon::start(s.net, cmd, &s.apps.env(Contender::Netsift))?)
        }
        _ => None,
    };
    let apps = match p.contender {
        Some(c) if p.apps > 0 => Some(AppSet::start(s.net, s.apps, c, p.apps)?),
        _ => None,
    };
    let dpid = daemon.as_ref().map(Daemon::pid);

    let b0 = SystemTimes::now()?;
    s.stop.sleep(BACKGROUND)?;
    let b1 = SystemTimes::now()?.since(&b0);
    let background = b1.busy as f64 / (b1.busy + b1.idle).max(1) as f64;

    let t0 = Instant::now();
    let sys0 = SystemTimes::now()?;
    let (a0, d0) = listener_ticks(apps.as_ref(), dpid)?;
    let sent = tcpreplay(s.net, s.trace.0, (p.rate, p.loops), s.stop)?;
    let replayed = Instant::now();
    // Catch-up: the window closes when the listeners' time stood still for
    // three looks in a row (a tick is 10 ms; they sleep once their rings are
    // empty), or at the cap.
    let mut last = listener_ticks(apps.as_ref(), dpid)?;
    let mut still = 0;
    if apps.is_some() || dpid.is_some() {
        while still < 3 && replayed.elapsed() < CATCH_UP_MAX {
            std::thread::sleep(Duration::from_millis(50));
            let now = listener_ticks(apps.as_ref(), dpid)?;
            still = if now == last { still + 1 } else { 0 };
            last = now;
        }
    }
    let sys1 = SystemTimes::now()?;
    let window_s = t0.elapsed().as_secs_f64();
    let (a1, d1) = last;
    s.stop.sleep(DRAIN.saturating_sub(replayed.elapsed()))?;
    let exits = match apps {
        Some(a) => a.stop()?,
        None => Vec::new(),
    };
    if let Some(d) = daemon.as_mut() {
        d.stop()?;
    }
    let expected = exits
        .iter()
        .map(|e| {
            let per_play = s.expected.get(e.filter).copied().unwrap_or(0);
            (per_play as f64 * sent.packets as f64 / s.trace.1.max(1) as f64).round() as u64
        })
        .collect();
    Ok(PointRun {
        point: p,
        sent,
        busy_ticks: sys1.since(&sys0).busy,
        app_ticks: a1.saturating_sub(a0),
        daemon_ticks: dpid.map(|_| d1.saturating_sub(d0)),
        window_s,
        background,
        exits,
        expected,
    })
}
