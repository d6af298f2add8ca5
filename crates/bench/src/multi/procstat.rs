//! CPU time as the kernel counts it, from `/proc`: the whole machine's busy time
//! ([`SystemTimes`], the `cpu` line of `/proc/stat`) and one process's own time
//! ([`ProcTimes`], `utime` and `stime` of `/proc/PID/stat`, all its threads).
//!
//! The multi-application experiment needs both because the cost it is about is
//! not in the applications: the kernel's softirq work of handing each packet to
//! every socket, and later the daemon's, show up only in the system-wide figure.
//! Both are in clock ticks (`sysconf(_SC_CLK_TCK)`, [`ticks_per_second`]);
//! [`cpu_ns`] gives a process's time in nanoseconds from the scheduler
//! (`/proc/PID/task/*/schedstat`), which 10 ms ticks cannot resolve for a
//! process that runs 50 ms in a measurement.

use std::path::Path;

/// The summed counters of the `cpu` line of `/proc/stat`, in clock ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SystemTimes {
    /// Ticks spent running anything: user, nice, system, irq, softirq, steal.
    pub busy: u64,
    /// Ticks idle or waiting for I/O.
    pub idle: u64,
    /// CPUs online (the `cpuN` lines).
    pub cpus: u32,
}

impl SystemTimes {
    /// Reads `/proc/stat` now.
    pub fn now() -> Result<SystemTimes, String> {
        let text = std::fs::read_to_string("/proc/stat").map_err(|e| format!("/proc/stat: {e}"))?;
        parse_system(&text)
    }

    /// The ticks from `earlier` to `self` (each counter only grows).
    pub fn since(&self, earlier: &SystemTimes) -> SystemTimes {
        SystemTimes {
            busy: self.busy.saturating_sub(earlier.busy),
            idle: self.idle.saturating_sub(earlier.idle),
            cpus: self.cpus,
        }
    }
}

/// Reads the aggregate `cpu` line: `cpu user nice system idle iowait irq
/// softirq steal guest guest_nice`. Guest time is already inside user and nice,
/// so it is not added again.
///
/// The two halves are not measured alike. Busy time is sampled by the tick
/// (`CONFIG_TICK_CPU_ACCOUNTING`): a tick charges its whole period to what
/// it interrupted. Idle time, on a tickless kernel (`NO_HZ`), is the time
/// each CPU actually spent idle. Work that runs in bursts shorter than a tick
/// and sleeps in between, like the sender between packet bursts, is missed by
/// the first and not by the second, so [`SystemTimes::busy_s`] derives busy
/// time from the idle time and the wall clock.
pub fn parse_system(text: &str) -> Result<SystemTimes, String> {
    let line = text
        .lines()
        .find(|l| l.starts_with("cpu "))
        .ok_or("/proc/stat has no `cpu` line")?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|f| f.parse::<u64>())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("/proc/stat `cpu` line {line:?}: {e}"))?;
    if v.len() < 4 {
        return Err(format!("/proc/stat `cpu` line {line:?}: too few fields"));
    }
    let at = |i: usize| v.get(i).copied().unwrap_or(0);
    let cpus = text
        .lines()
        .filter(|l| l.starts_with("cpu") && l.as_bytes().get(3).is_some_and(u8::is_ascii_digit))
        .count() as u32;
    Ok(SystemTimes {
        busy: at(0) + at(1) + at(2) + at(5) + at(6) + at(7),
        idle: at(3) + at(4),
        cpus: cpus.max(1),
    })
}

impl SystemTimes {
    /// Busy CPU seconds over `wall` seconds, for a difference taken `wall`
    /// apart: every CPU's time less what it spent idle (see [`parse_system`]).
    pub fn busy_s(&self, wall: f64) -> f64 {
        (wall * f64::from(self.cpus) - self.idle as f64 / ticks_per_second()).max(0.0)
    }
}

/// One process's user and system time, all threads, in clock ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProcTimes {
    /// `utime`: user mode.
    pub user: u64,
    /// `stime`: kernel mode, on the process's behalf (system calls, faults).
    pub system: u64,
}

impl ProcTimes {
    /// Reads `/proc/PID/stat`; an error once the process is gone.
    pub fn of(pid: u32) -> Result<ProcTimes, String> {
        let path = format!("/proc/{pid}/stat");
        let text = std::fs::read_to_string(Path::new(&path)).map_err(|e| format!("{path}: {e}"))?;
        parse_proc(&text).ok_or_else(|| format!("{path}: cannot read {text:?}"))
    }

    /// User plus system ticks.
    pub fn total(&self) -> u64 {
        self.user + self.system
    }
}

/// Reads `utime` and `stime`, fields 14 and 15 of `/proc/PID/stat`. The command
/// name (field 2) is in parentheses and may hold spaces and parentheses itself,
/// so the fields are counted from the last `)`.
pub fn parse_proc(text: &str) -> Option<ProcTimes> {
    let rest = &text[text.rfind(')')? + 1..];
    // After the name: state is field 3, so utime (14) is the 12th from here.
    let mut f = rest.split_whitespace().skip(11);
    Some(ProcTimes {
        user: f.next()?.parse().ok()?,
        system: f.next()?.parse().ok()?,
    })
}

/// The CPU nanoseconds process `pid` has run, all its threads that still
/// exist: the sum of the first field of each `/proc/PID/task/TID/schedstat`
/// (the scheduler's own runtime, in ns, where `/proc/PID/stat` has 10 ms
/// ticks). Falls back to `/proc/PID/stat` on a kernel without schedstat.
pub fn cpu_ns(pid: u32) -> Result<u64, String> {
    let tasks = format!("/proc/{pid}/task");
    let mut sum = 0u64;
    let mut seen = false;
    if let Ok(dir) = std::fs::read_dir(&tasks) {
        for t in dir.flatten() {
            let Ok(text) = std::fs::read_to_string(t.path().join("schedstat")) else {
                continue;
            };
            if let Some(ns) = parse_schedstat(&text) {
                sum += ns;
                seen = true;
            }
        }
    }
    if seen {
        return Ok(sum);
    }
    let t = ProcTimes::of(pid)?;
    Ok((t.total() as f64 * 1e9 / ticks_per_second()) as u64)
}

/// The runtime in ns, the first of `schedstat`'s three fields.
pub fn parse_schedstat(text: &str) -> Option<u64> {
    text.split_whitespace().next()?.parse().ok()
}

/// The summed CPU nanoseconds of `pids` (a process that is gone counts 0).
pub fn cpu_ns_of(pids: &[u32]) -> u64 {
    pids.iter().filter_map(|&p| cpu_ns(p).ok()).sum()
}

/// The kernel's softirq threads (`ksoftirqd/N`): when softirqs pile up the
/// kernel defers them there, and the packets' receive work is then theirs.
pub fn ksoftirqd_pids() -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|c| c.starts_with("ksoftirqd/"))
        })
        .collect()
}

/// Clock ticks per second (`USER_HZ`, 100 on Linux's usual builds).
pub fn ticks_per_second() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_cpu_line() {
        let stat = "cpu  1000 20 300 5000 40 6 70 8 0 0\n\
                    cpu0 500 10 150 2500 20 3 35 4 0 0\n\
                    intr 12345 0 0\n";
        let t = parse_system(stat).unwrap();
        assert_eq!(t.busy, 1000 + 20 + 300 + 6 + 70 + 8);
        assert_eq!(t.idle, 5040);
        assert_eq!(t.cpus, 1);
        let later = SystemTimes {
            busy: t.busy + 197,
            idle: t.idle + 3,
            cpus: 1,
        };
        assert_eq!(later.since(&t).busy, 197);
        // 2 s on two CPUs, 1.5 of them idle: 2.5 s busy.
        let d = SystemTimes {
            busy: 0,
            idle: (1.5 * ticks_per_second()) as u64,
            cpus: 2,
        };
        assert!((d.busy_s(2.0) - 2.5).abs() < 1e-9);
        // Old kernels print fewer columns; the missing ones count as zero.
        assert_eq!(parse_system("cpu 1 2 3 4\n").unwrap().busy, 6);
        assert!(parse_system("intr 1\n").is_err());
        assert!(parse_system("cpu 1 x 3 4\n").is_err());
    }

    #[test]
    fn reads_process_times_past_an_awkward_name() {
        let s = "4242 (tcp dump) (x)) S 1 4242 4242 0 -1 4194560 1234 0 0 0 \
                 11 64 0 0 20 0 2 0 98765 12345678 456 18446744073709551615\n";
        let p = parse_proc(s).unwrap();
        assert_eq!((p.user, p.system, p.total()), (11, 64, 75));
        assert!(parse_proc("4242 (tcpdump) S 1 2").is_none());
        assert!(ticks_per_second() > 0.0);
        let me = ProcTimes::of(std::process::id()).unwrap();
        assert!(me.total() < u64::MAX);
    }

    #[test]
    fn reads_the_schedulers_runtime() {
        assert_eq!(
            parse_schedstat("211777534 92248057 616\n"),
            Some(211_777_534)
        );
        assert_eq!(parse_schedstat(""), None);
        // Spinning must show in the reading: it grows by 10 ms of CPU
        // within a generous wall-clock bound. (A fixed 20 ms spin asked for
        // 10 ms of CPU, which a machine under load need not give.)
        let before = cpu_ns(std::process::id()).unwrap();
        let t = std::time::Instant::now();
        let mut now = before;
        while now < before + 10_000_000 && t.elapsed() < std::time::Duration::from_secs(30) {
            let spin = std::time::Instant::now();
            while spin.elapsed() < std::time::Duration::from_millis(1) {
                std::hint::black_box(0u64);
            }
            now = cpu_ns(std::process::id()).unwrap();
        }
        assert!(
            now >= before + 10_000_000,
            "{before} -> {now} ns in {:?}",
            t.elapsed()
        );
    }
}
