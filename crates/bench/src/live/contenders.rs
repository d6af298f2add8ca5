//! The capture processes compared on the same replay: `netsift -i` with one worker
//! and with `--workers 2`, and `tcpdump -i`, each with the same filter, the same
//! output (`-w /dev/null`) and the same ring size (`-B`).
//!
//! A contender is started in the capture namespace, the trace is replayed once it
//! says it is listening, then it is stopped with SIGINT as a user would stop it.
//! Its counts come from the three lines both tools print when they stop (packets
//! captured, received by filter, dropped by kernel); its CPU time is the user and
//! system time `wait4` reports for the process (and any children it waited for).
//! [`capture`] is that start-replay-stop cycle for any command line (the kernel
//! benchmark's FTP experiment runs `netsift --follow ftp` with it).
//!
//! Part of that CPU time is paid once per process, whatever it captures: compiling
//! the filter, loading it into the kernel, and the kernel clearing the ring's pages
//! (about 7.5 ms for either tool here). [`idle`] runs the same cycle with nothing
//! sent, so the report can give the cost per packet without it; on a quick run of
//! 200,000 packets that once-only cost is most of what either tool spends.

use super::netns::{self, Netns};
use super::replay::{tcpreplay, Rate, Sent};
use super::Stop;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// One capture tool and how it is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contender {
    /// `netsift -i`: one worker, or `--workers N`; with `--place kernel` (the
    /// filter also as an eBPF socket filter under the ring, as tcpdump's classic
    /// one is under its socket).
    Netsift {
        /// Filtering worker threads (`--workers`).
        workers: usize,
        /// Whether the filter is also placed in the kernel (`--place kernel`).
        kernel: bool,
    },
    /// `tcpdump -i`.
    Tcpdump,
}

impl Contender {
    /// The three of the issue, and netsift with its filter in the kernel too, in
    /// report order.
    pub const ALL: [Contender; 4] = [
        Contender::Netsift {
            workers: 1,
            kernel: false,
        },
        Contender::Netsift {
            workers: 1,
            kernel: true,
        },
        Contender::Netsift {
            workers: 2,
            kernel: false,
        },
        Contender::Tcpdump,
    ];

    /// The contender's label in the report, its netsift flags or `tcpdump`.
    pub fn name(self) -> &'static str {
        match self {
            // Named by their placement: without `--place`, netsift filters in the
            // kernel where it can (the second).
            Contender::Netsift {
                workers: 1,
                kernel: false,
            } => "netsift --place user",
            Contender::Netsift {
                workers: 1,
                kernel: true,
            } => "netsift --place kernel",
            Contender::Netsift { kernel: false, .. } => "netsift --workers 2 --place user",
            Contender::Netsift { .. } => "netsift --workers 2 --place kernel",
            Contender::Tcpdump => "tcpdump",
        }
    }
}

/// The programs and their common options.
#[derive(Clone, Debug)]
pub struct Tools {
    /// The `netsift` binary that is measured.
    pub netsift: PathBuf,
    /// The `tcpdump` binary it is compared with.
    pub tcpdump: PathBuf,
    /// The filter expression both run.
    pub expr: String,
    /// `-B`, KiB.
    pub buffer_kib: usize,
}

/// One contender on one replay.
#[derive(Clone, Debug)]
pub struct CaptureRun {
    /// The tool that captured.
    pub contender: Contender,
    /// The replay rate.
    pub rate: Rate,
    /// What tcpreplay reported sending.
    pub sent: Sent,
    /// "packets captured": accepted by the filter and written.
    pub captured: u64,
    /// "packets received by filter".
    pub received: u64,
    /// "packets dropped by kernel".
    pub dropped: u64,
    /// User plus system CPU seconds of the process.
    pub cpu_s: f64,
    /// Which round of runs this was (every contender runs once a round, so the
    /// runs of one round are paired for the ratios).
    pub round: usize,
    /// The contender's once-per-process CPU seconds ([`idle`], median over
    /// rounds), set when the runs are done; 0 until then.
    pub idle_cpu_s: f64,
}

impl CaptureRun {
    /// CPU seconds per million packets sent.
    pub fn cpu_per_mpkt(&self) -> f64 {
        self.cpu_s / (self.sent.packets as f64 / 1e6).max(1e-9)
    }

    /// CPU seconds per million packets sent, less what the process spends once
    /// whatever it captures (its idle run).
    pub fn net_cpu_per_mpkt(&self) -> f64 {
        (self.cpu_s - self.idle_cpu_s).max(0.0) / (self.sent.packets as f64 / 1e6).max(1e-9)
    }
}

/// How long a contender may take to start listening.
const START_TIMEOUT: Duration = Duration::from_secs(10);
/// How long after the replay the contender keeps running: longer than libpcap's
/// block timeout in tcpdump (1 s), so the last partly filled block of the ring is
/// handed over before the stop, for both tools alike.
pub const DRAIN: Duration = Duration::from_millis(1300);

/// A child process that is killed and reaped if it is dropped before `finish`.
struct Running {
    pid: libc::pid_t,
    reaped: bool,
}

impl Running {
    /// Sends SIGINT and waits up to 10 s for the exit; returns the CPU seconds.
    fn finish(&mut self) -> Result<(f64, i32), String> {
        // SAFETY: kill(2) on our own child, which has not been reaped yet.
        unsafe { libc::kill(self.pid, libc::SIGINT) };
        let end = Instant::now() + Duration::from_secs(10);
        loop {
            let mut status = 0;
            // SAFETY: zeroed rusage is a valid value.
            let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
            // SAFETY: wait4 on our own child with live out-pointers.
            let rc = unsafe { libc::wait4(self.pid, &mut status, libc::WNOHANG, &mut ru) };
            if rc == self.pid {
                self.reaped = true;
                let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
                return Ok((secs(ru.ru_utime) + secs(ru.ru_stime), status));
            }
            if rc < 0 {
                return Err(format!("wait4: {}", std::io::Error::last_os_error()));
            }
            if Instant::now() > end {
                return Err("the capture did not stop within 10 s of SIGINT".into());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if !self.reaped {
            // SAFETY: our own unreaped child: kill it and reap it.
            unsafe {
                libc::kill(self.pid, libc::SIGKILL);
                libc::waitpid(self.pid, std::ptr::null_mut(), 0);
            }
        }
    }
}

/// The count on the closing line that ends with `what` ("packets captured").
fn closing_count(stderr: &str, what: &str) -> Option<u64> {
    stderr
        .lines()
        .rev()
        .find(|l| l.trim_end().ends_with(what) && !l.starts_with("worker"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A capture process that ran through one replay: what tcpreplay sent, the
/// process's standard error (its closing statistics), its exit status and CPU
/// seconds.
#[derive(Clone, Debug)]
pub struct Finished {
    /// What tcpreplay reported sending.
    pub sent: Sent,
    /// The capture process's standard error.
    pub stderr: String,
    /// The process's exit code.
    pub status: i32,
    /// User plus system CPU seconds the process used.
    pub cpu_s: f64,
}

impl Finished {
    /// The count on the closing line that ends with `what`, or an error naming
    /// the capture `name`.
    pub fn count(&self, name: &str, what: &str) -> Result<u64, String> {
        closing_count(&self.stderr, what).ok_or_else(|| {
            format!(
                "{name} printed no \"{what}\" line (exit status {}): {}",
                self.status,
                self.stderr.trim()
            )
        })
    }
}

/// Runs `program` with `args` in the capture namespace, replays `trace` at `rate`
/// once it says it is listening, lets it drain, and stops it with SIGINT. `name`
/// names it in errors.
pub fn capture(
    net: &Netns,
    program: &Path,
    args: &[String],
    name: &str,
    trace: &Path,
    rate: Rate,
    stop: &Stop,
) -> Result<Finished, String> {
    cycle(net, program, args, name, Some((trace, rate, 1)), stop)
}

/// [`capture`] (the trace replayed `loops` times), or with `replay` `None` the
/// same start, drain and stop with nothing sent.
fn cycle(
    net: &Netns,
    program: &Path,
    args: &[String],
    name: &str,
    replay: Option<(&Path, Rate, usize)>,
    stop: &Stop,
) -> Result<Finished, String> {
    let mut cmd = netns::command(&net.b, program);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        // Its own process group: a Ctrl-C at the terminal reaches the benchmark,
        // which stops the contender itself (and removes the namespaces after).
        .process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    let mut running = Running {
        pid: child.id() as libc::pid_t,
        reaped: false,
    };
    let stderr = child.stderr.take().expect("piped");
    let (ready_tx, ready_rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains("listening on") {
                let _ = ready_tx.send(());
            }
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    if ready_rx.recv_timeout(START_TIMEOUT).is_err() {
        drop(running);
        let err = reader.join().unwrap_or_default();
        return Err(format!("{name} did not start: {}", err.trim()));
    }
    let sent = match replay {
        Some((trace, rate, loops)) => tcpreplay(net, trace, (rate, loops), stop)?,
        None => Sent::default(),
    };
    stop.sleep(DRAIN)?;
    let (cpu_s, status) = running.finish()?;
    Ok(Finished {
        sent,
        stderr: reader.join().unwrap_or_default(),
        status,
        cpu_s,
    })
}

/// The command line of `c`: `-i`, `-B`, netsift's placement and workers, `-w
/// /dev/null` and the filter.
fn command<'t>(net: &Netns, tools: &'t Tools, c: Contender) -> (&'t Path, Vec<String>) {
    let program = match c {
        Contender::Netsift { .. } => &tools.netsift,
        Contender::Tcpdump => &tools.tcpdump,
    };
    let mut args = vec![
        "-i".to_string(),
        net.veth_b.clone(),
        "-B".into(),
        tools.buffer_kib.to_string(),
    ];
    if let Contender::Netsift { workers, kernel } = c {
        if workers > 1 {
            args.extend(["--workers".into(), workers.to_string()]);
        }
        // Said either way: netsift's default is the kernel where it can.
        let place = if kernel { "kernel" } else { "user" };
        args.extend(["--place".into(), place.into()]);
    }
    args.extend(["-w".into(), "/dev/null".into(), tools.expr.clone()]);
    (program, args)
}

/// Runs `c` on one replay of `trace` (`loops` times over) at `rate`, in round
/// `round`.
pub fn run_one(
    net: &Netns,
    tools: &Tools,
    c: Contender,
    (trace, loops): (&Path, usize),
    (rate, round): (Rate, usize),
    stop: &Stop,
) -> Result<CaptureRun, String> {
    let (program, args) = command(net, tools, c);
    let replay = Some((trace, rate, loops));
    let f = cycle(net, program, &args, c.name(), replay, stop)?;
    Ok(CaptureRun {
        contender: c,
        rate,
        sent: f.sent,
        captured: f.count(c.name(), "packets captured")?,
        received: f.count(c.name(), "packets received by filter")?,
        dropped: f.count(c.name(), "packets dropped by kernel")?,
        cpu_s: f.cpu_s,
        round,
        idle_cpu_s: 0.0,
    })
}

/// The CPU seconds `c` spends started, left listening as long as after a replay,
/// and stopped, with nothing sent: what it pays once whatever it captures.
pub fn idle(net: &Netns, tools: &Tools, c: Contender, stop: &Stop) -> Result<f64, String> {
    let (program, args) = command(net, tools, c);
    let f = cycle(net, program, &args, c.name(), None, stop)?;
    // It must have stopped as after a capture (its closing lines), not failed.
    f.count(c.name(), "packets captured")?;
    Ok(f.cpu_s)
}

#[cfg(test)]
mod tests {
    use super::closing_count;

    #[test]
    fn reads_the_closing_lines_not_the_workers() {
        let err = "listening on lbrx, link-type EN10MB\n\
                   worker 0: 5 packets captured, 9 received by filter, 1 dropped by kernel\n\
                   124590 packets captured\n200000 packets received by filter\n\
                   3 packets dropped by kernel\n";
        assert_eq!(closing_count(err, "packets captured"), Some(124_590));
        assert_eq!(closing_count(err, "packets dropped by kernel"), Some(3));
        assert_eq!(closing_count("", "packets captured"), None);
    }
}
