//! One point of Figure 12: N applications of one contender (or none: the
//! sender alone) while the trace is replayed once at one rate, and what it cost.
//!
//! The order of one point: the daemon (if configured) and the applications
//! start and say they listen; the machine's background load is looked at
//! ([`PointRun::background`]: other builds on a shared machine show here) and
//! the point waits a few seconds for it to fall if it is high; then the CPU
//! window opens, tcpreplay plays the trace ([`super::sender`]), and the window
//! closes once the applications' CPU time has stopped growing (they caught up
//! with their rings) or after [`CATCH_UP_MAX`]; the applications are left
//! running until [`DRAIN`] after the replay, so the last partly filled ring
//! block is handed over before SIGINT, and their closing lines are read.
//!
//! Two measures of the cost. **Machine**: `/proc/stat` over the window,
//! every CPU's time less its idle time (the busy ticks undercount bursty work,
//! see [`super::procstat::parse_system`]), everything that ran, as FFPF
//! measured system load; the kernel's
//! softirq share counts wherever it ran, and so does any other build on the
//! machine. **Attributed**: the experiment's processes alone, tcpreplay's own
//! time from `wait4` and the applications', the daemon's and ksoftirqd's from
//! the scheduler; without IRQ time accounting (this kernel) softirq work is
//! charged to the task it interrupted, mostly the sender, whose transmit on
//! the veth runs the receive path, so it is counted too. The *shared* part of
//! either is what is not the applications' own time: sender, kernel, daemon.
//!
//! What an application should have captured is known without it: the filter's
//! verdicts on the trace file (the trace has no VLAN tags, so a live capture
//! and a file agree, see [`super::trace`]), scaled by the packets tcpreplay
//! says it sent. An application's loss is what it did not capture of that;
//! this counts the same for both contenders, whereas "dropped by kernel" is 0
//! for the shim today (it learns its ring's drops only at close).

use super::apps::{AppExit, AppSet, Apps, Contender};
use super::daemon::Daemon;
use super::procstat::{cpu_ns, cpu_ns_of, ksoftirqd_pids, SystemTimes};
use super::sender;
use crate::live::netns::Netns;
use crate::live::replay::{Rate, Sent};
use crate::live::Stop;
use std::path::Path;
use std::time::{Duration, Instant};

/// The window with nothing sent that measures the background load.
const BACKGROUND: Duration = Duration::from_millis(300);
/// A background load under which a point goes ahead at once (a share of
/// the whole machine).
const QUIET: f64 = 0.25;
/// Looks at the background before a point goes ahead anyway.
const QUIET_TRIES: usize = 6;
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
    /// Busy ticks of the whole machine in the CPU window as `/proc/stat`
    /// samples them (kept for the record; see [`super::procstat::parse_system`]).
    pub busy_ticks: u64,
    /// Busy CPU seconds of the whole machine in the window: every CPU's time
    /// less its idle time.
    pub busy_s: f64,
    /// The applications' own CPU seconds in the window.
    pub app_cpu_s: f64,
    /// The daemon's CPU seconds in the window, when one ran.
    pub daemon_cpu_s: Option<f64>,
    /// The sender's (tcpreplay's) CPU seconds, loading the trace included.
    pub sender_cpu_s: f64,
    /// The kernel's softirq threads' CPU seconds in the window.
    pub ksoftirqd_cpu_s: f64,
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
        self.busy_s / self.mpkt()
    }

    /// The part of it that is not the applications' own time.
    pub fn shared_cpu_s_per_mpkt(&self) -> f64 {
        (self.busy_s - self.app_cpu_s).max(0.0) / self.mpkt()
    }

    /// The applications' own CPU seconds per million packets sent.
    pub fn app_cpu_s_per_mpkt(&self) -> f64 {
        self.app_cpu_s / self.mpkt()
    }

    /// CPU seconds per million packets of the processes of the experiment
    /// alone: the sender, the applications, the daemon and the kernel's
    /// softirq threads. The kernel's receive work done in a process's context
    /// is in that process's time (tick accounting charges it to the task
    /// running); other builds on the machine are not counted, which the
    /// machine-wide figure cannot avoid.
    pub fn attributed_cpu_s_per_mpkt(&self) -> f64 {
        self.app_cpu_s / self.mpkt() + self.attributed_shared_cpu_s_per_mpkt()
    }

    /// The part of it that is not the applications' own: sender, softirq
    /// threads and daemon.
    pub fn attributed_shared_cpu_s_per_mpkt(&self) -> f64 {
        let s = self.sender_cpu_s + self.daemon_cpu_s.unwrap_or(0.0) + self.ksoftirqd_cpu_s;
        s / self.mpkt()
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

/// The share of the machine busy over [`BACKGROUND`], from idle time as the
/// machine figure is.
fn busy_share(stop: &Stop) -> Result<f64, String> {
    let t = Instant::now();
    let b0 = SystemTimes::now()?;
    stop.sleep(BACKGROUND)?;
    let b = SystemTimes::now()?.since(&b0);
    let wall = t.elapsed().as_secs_f64();
    Ok((b.busy_s(wall) / (wall * f64::from(b.cpus)).max(1e-9)).clamp(0.0, 1.0))
}

/// Waits (up to [`QUIET_TRIES`] looks a second apart) for the machine's
/// background load to fall below [`QUIET`], and returns the last look: on a
/// machine shared with builds, the machine-wide figure is only worth reading
/// when nothing else ran.
fn quiet(stop: &Stop) -> Result<f64, String> {
    let mut share = busy_share(stop)?;
    for _ in 1..QUIET_TRIES {
        if share < QUIET {
            break;
        }
        stop.sleep(Duration::from_secs(1))?;
        share = busy_share(stop)?;
    }
    Ok(share)
}

/// CPU nanoseconds of the applications and the daemon.
fn listener_ns(apps: Option<&AppSet>, daemon: Option<u32>) -> Result<(u64, u64), String> {
    let a = apps.map_or(0, |a| cpu_ns_of(&a.pids()));
    let d = daemon.map_or(Ok(0), cpu_ns)?;
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

    let background = quiet(s.stop)?;

    let softirqd = ksoftirqd_pids();
    let t0 = Instant::now();
    let sys0 = SystemTimes::now()?;
    let k0 = cpu_ns_of(&softirqd);
    let (a0, d0) = listener_ns(apps.as_ref(), dpid)?;
    let replay = sender::replay(s.net, s.trace.0, (p.rate, p.loops), s.stop)?;
    let sent = replay.sent;
    let replayed = Instant::now();
    // Catch-up: the window closes when the listeners' time grew less than
    // 1 ms in each of three looks 50 ms apart (they sleep once their rings
    // are empty), or at the cap.
    let mut last = listener_ns(apps.as_ref(), dpid)?;
    let mut still = 0;
    if apps.is_some() || dpid.is_some() {
        while still < 3 && replayed.elapsed() < CATCH_UP_MAX {
            std::thread::sleep(Duration::from_millis(50));
            let now = listener_ns(apps.as_ref(), dpid)?;
            let grew = (now.0 + now.1).saturating_sub(last.0 + last.1);
            still = if grew < 1_000_000 { still + 1 } else { 0 };
            last = now;
        }
    }
    let sys1 = SystemTimes::now()?;
    let window_s = t0.elapsed().as_secs_f64();
    let k1 = cpu_ns_of(&softirqd);
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
        busy_s: sys1.since(&sys0).busy_s(window_s),
        app_cpu_s: a1.saturating_sub(a0) as f64 / 1e9,
        daemon_cpu_s: dpid.map(|_| d1.saturating_sub(d0) as f64 / 1e9),
        sender_cpu_s: replay.cpu_s,
        ksoftirqd_cpu_s: k1.saturating_sub(k0) as f64 / 1e9,
        window_s,
        background,
        exits,
        expected,
    })
}
