//! The applications of the experiment: N unmodified `tcpdump` processes on the
//! capture end of the pair, each with one of the overlapping [`FILTERS`], the
//! same output (`-w /dev/null`) and the same buffer (`-B`). What differs
//! between the two contenders ([`Contender`]) is only which libpcap tcpdump
//! loads and the interface name it is given:
//!
//! - **stock**: the system's libpcap; `-i IFACE`, a packet socket and a ring
//!   each, so the kernel filters and copies every packet once per application.
//! - **netsift**: the same binary with `LD_LIBRARY_PATH` pointing at netsift's
//!   drop-in `libpcap.so.0.8` and `-i netsift:IFACE`, plus whatever environment
//!   [`NetsiftSetup::env`] adds (`NETSIFT_SOCKET`, once the daemon-backed
//!   backend exists, sends every capture through `netsiftd`).
//!
//! [`AppSet`] starts the N processes, waits until each says it is listening,
//! reads their CPU time from `/proc` while they run, and stops them with SIGINT
//! as a user would; [`Closing`] is what each printed on its way out.

use crate::live::netns::{self, Netns};
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The overlapping filters the applications run, application `i` the
/// `i % 8`-th: a gateway's monitoring tools each want part of the same
/// traffic (all IP, TCP, one subnet, some services...), so most packets are
/// wanted by several. Filters 3-6 are the Swift paper's (section 3 of
/// docs/BENCHMARKS.md); none tests direction, which netsift's live set refuses.
pub const FILTERS: [&str; 8] = [
    "ip",
    "tcp",
    "ip src or dst net 192.168.2.0/24",
    "ip and tcp port (ssh or http or imap or smtp or pop3 or ftp)",
    "udp or icmp",
    "ip src net 192.168.2.0/24 and dst net 10.0.0.0/8",
    "ip or ip6",
    "not tcp port 80",
];

/// Which libpcap the applications capture through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Contender {
    /// The system's libpcap: a packet socket per application.
    Stock,
    /// netsift's drop-in libpcap on `netsift:IFACE`.
    Netsift,
}

impl Contender {
    /// Both, in report order.
    pub const ALL: [Contender; 2] = [Contender::Stock, Contender::Netsift];

    /// `stock` or `netsift`: the label in tables and the JSON keys' prefix.
    pub fn name(self) -> &'static str {
        match self {
            Contender::Stock => "stock",
            Contender::Netsift => "netsift",
        }
    }
}

/// A process started before the netsift contender's applications and stopped
/// after them: the daemon, once it exists. Its command line is configuration,
/// so running the experiment through `netsiftd` is a change of flags, not of
/// this harness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DaemonCommand {
    /// The program and its arguments; run in the capture namespace.
    pub argv: Vec<String>,
    /// Wait until this path exists before starting the applications (its
    /// control socket); without it, wait [`DaemonCommand::SETTLE`].
    pub ready: Option<PathBuf>,
}

impl DaemonCommand {
    /// How long a daemon without a readiness path is given to start.
    pub const SETTLE: Duration = Duration::from_millis(500);
}

/// How the netsift contender is run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetsiftSetup {
    /// The directory holding netsift's `libpcap.so.0.8` and nothing else
    /// (`target/<profile>/libpcap`).
    pub shim_dir: PathBuf,
    /// More environment for the applications (and the daemon), such as
    /// `NETSIFT_SOCKET=/run/netsiftd.sock`.
    pub env: Vec<(String, String)>,
    /// The daemon to run around each measurement, if any.
    pub daemon: Option<DaemonCommand>,
}

/// The programs and the options common to every application.
#[derive(Clone, Debug)]
pub struct Apps {
    /// The tcpdump binary, the same for both contenders.
    pub tcpdump: PathBuf,
    /// `-B`, KiB.
    pub buffer_kib: usize,
    /// The netsift contender's setup.
    pub netsift: NetsiftSetup,
}

impl Apps {
    /// The arguments of application `i` of contender `c` on `iface`.
    pub fn args(&self, c: Contender, iface: &str, i: usize) -> Vec<String> {
        let iface = match c {
            Contender::Stock => iface.to_string(),
            Contender::Netsift => format!("netsift:{iface}"),
        };
        vec![
            "-i".into(),
            iface,
            "-B".into(),
            self.buffer_kib.to_string(),
            "-w".into(),
            "/dev/null".into(),
            FILTERS[i % FILTERS.len()].into(),
        ]
    }

    /// The environment contender `c`'s processes get on top of this one's.
    pub fn env(&self, c: Contender) -> Vec<(String, String)> {
        match c {
            Contender::Stock => Vec::new(),
            Contender::Netsift => {
                let mut env = vec![(
                    "LD_LIBRARY_PATH".to_string(),
                    self.netsift.shim_dir.display().to_string(),
                )];
                env.extend(self.netsift.env.iter().cloned());
                env
            }
        }
    }
}

/// The three counts tcpdump prints when it stops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Closing {
    /// "packets captured": handed to tcpdump and written.
    pub captured: u64,
    /// "packets received by filter" (libpcap's `ps_recv`).
    pub received: u64,
    /// "packets dropped by kernel" (`ps_drop`). netsift's shim learns its
    /// ring's drops only at `pcap_close`, after tcpdump printed this, so it
    /// says 0 there today (docs/libpcap.md, Limits).
    pub dropped: u64,
}

/// Reads tcpdump's closing lines; `None` if one of the three is missing.
pub fn parse_closing(stderr: &str) -> Option<Closing> {
    let count = |what: &str| {
        stderr
            .lines()
            .rev()
            .find(|l| l.trim_end().ends_with(what))?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    };
    Some(Closing {
        captured: count("packets captured")?,
        received: count("packets received by filter")?,
        dropped: count("packets dropped by kernel")?,
    })
}

/// A started process in its own process group, killed and reaped if dropped
/// before [`Child::stop`] reaped it.
#[derive(Debug)]
pub struct Child {
    /// Its process id (the program's own: `ip netns exec` execs in place).
    pub pid: u32,
    reaped: bool,
}

impl Child {
    /// Starts `argv` in the capture namespace with `env` added, its standard
    /// error piped; the process is its own group, so a Ctrl-C at the terminal
    /// reaches the harness alone, which stops it.
    pub fn spawn(
        net: &Netns,
        argv: &[String],
        env: &[(String, String)],
    ) -> Result<(Child, std::process::ChildStderr), String> {
        let (program, args) = argv.split_first().ok_or("an empty command line")?;
        let mut cmd = netns::command(&net.b, program);
        cmd.args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut c = cmd
            .spawn()
            .map_err(|e| format!("cannot run {program}: {e}"))?;
        let stderr = c.stderr.take().expect("piped");
        Ok((
            Child {
                pid: c.id(),
                reaped: false,
            },
            stderr,
        ))
    }

    /// Sends `signal` (to this process, not its group).
    pub fn signal(&self, signal: i32) {
        if !self.reaped {
            // SAFETY: kill(2) on our own child, not reaped yet.
            unsafe { libc::kill(self.pid as libc::pid_t, signal) };
        }
    }

    /// Sends `signal` and waits up to `patience` for the exit (then SIGKILL);
    /// returns the exit status as `waitpid` gives it.
    pub fn stop(&mut self, signal: i32, patience: Duration) -> Result<i32, String> {
        self.signal(signal);
        self.wait(patience)
    }

    /// Waits up to `patience` for the exit (then SIGKILL).
    pub fn wait(&mut self, patience: Duration) -> Result<i32, String> {
        let pid = self.pid as libc::pid_t;
        let end = Instant::now() + patience;
        loop {
            let mut status = 0;
            // SAFETY: waitpid on our own child with a live out-pointer.
            let rc = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            if rc == pid {
                self.reaped = true;
                return Ok(status);
            }
            if rc < 0 {
                return Err(format!("waitpid: {}", std::io::Error::last_os_error()));
            }
            if Instant::now() > end {
                // SAFETY: as above; SIGKILL then a blocking reap of our child.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                    libc::waitpid(pid, std::ptr::null_mut(), 0);
                }
                self.reaped = true;
                return Err(format!(
                    "process {} did not stop within {:?}",
                    self.pid, patience
                ));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if !self.reaped {
            // SAFETY: our own unreaped child: kill it and reap it.
            unsafe {
                libc::kill(self.pid as libc::pid_t, libc::SIGKILL);
                libc::waitpid(self.pid as libc::pid_t, std::ptr::null_mut(), 0);
            }
        }
    }
}

/// How long an application may take to say it is listening.
const START_TIMEOUT: Duration = Duration::from_secs(15);

/// One application that ran: its filter, what it printed, its counts.
#[derive(Clone, Debug)]
pub struct AppExit {
    /// Index into [`FILTERS`].
    pub filter: usize,
    /// Its closing counts.
    pub closing: Closing,
}

/// N applications of one contender, running.
#[derive(Debug)]
pub struct AppSet {
    children: Vec<Child>,
    readers: Vec<JoinHandle<String>>,
}

impl AppSet {
    /// Starts `n` applications of `c` and returns once every one is listening.
    pub fn start(net: &Netns, apps: &Apps, c: Contender, n: usize) -> Result<AppSet, String> {
        let mut set = AppSet {
            children: Vec::with_capacity(n),
            readers: Vec::with_capacity(n),
        };
        let (tx, rx) = mpsc::channel();
        let env = apps.env(c);
        for i in 0..n {
            let mut argv = vec![apps.tcpdump.display().to_string()];
            argv.extend(apps.args(c, &net.veth_b, i));
            let (child, stderr) = Child::spawn(net, &argv, &env)?;
            set.children.push(child);
            let tx = tx.clone();
            set.readers.push(std::thread::spawn(move || {
                let mut all = String::new();
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    if line.contains("listening on") {
                        let _ = tx.send(i);
                    }
                    all.push_str(&line);
                    all.push('\n');
                }
                all
            }));
        }
        let end = Instant::now() + START_TIMEOUT;
        for _ in 0..n {
            let left = end.saturating_duration_since(Instant::now());
            if rx.recv_timeout(left).is_err() {
                drop(set.children);
                let said: Vec<String> = set
                    .readers
                    .into_iter()
                    .map(|r| r.join().unwrap_or_default())
                    .collect();
                return Err(format!(
                    "{} tcpdump did not start within {START_TIMEOUT:?}: {}",
                    c.name(),
                    said.join(" | ").trim()
                ));
            }
        }
        Ok(set)
    }

    /// The process ids, in application order.
    pub fn pids(&self) -> Vec<u32> {
        self.children.iter().map(|c| c.pid).collect()
    }

    /// Stops every application with SIGINT and collects what each printed.
    pub fn stop(mut self) -> Result<Vec<AppExit>, String> {
        // All at once, so none keeps capturing while another is stopped.
        for c in &self.children {
            c.signal(libc::SIGINT);
        }
        let mut statuses = Vec::new();
        for c in &mut self.children {
            statuses.push(c.wait(Duration::from_secs(10)));
        }
        let mut out = Vec::new();
        for (i, (r, status)) in self.readers.drain(..).zip(statuses).enumerate() {
            let said = r.join().unwrap_or_default();
            let status = status?;
            let closing = parse_closing(&said).ok_or_else(|| {
                format!(
                    "tcpdump {i} printed no closing counts (status {status}): {}",
                    said.trim()
                )
            })?;
            out.push(AppExit {
                filter: i % FILTERS.len(),
                closing,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tcpdumps_closing_lines() {
        let err = "tcpdump: listening on netsift:lbrx, link-type EN10MB (Ethernet), snapshot length 262144 bytes\n\
                   124590 packets captured\n\
                   200000 packets received by filter\n\
                   75410 packets dropped by kernel\n";
        let c = parse_closing(err).unwrap();
        assert_eq!(
            (c.captured, c.received, c.dropped),
            (124_590, 200_000, 75_410)
        );
        assert!(parse_closing("tcpdump: listening on lbrx\n3 packets captured\n").is_none());
    }

    #[test]
    fn contenders_differ_only_in_library_and_name() {
        let apps = Apps {
            tcpdump: "tcpdump".into(),
            buffer_kib: 16384,
            netsift: NetsiftSetup {
                shim_dir: "/t/libpcap".into(),
                env: vec![("NETSIFT_SOCKET".into(), "/run/n.sock".into())],
                daemon: None,
            },
        };
        let s = apps.args(Contender::Stock, "lbrx", 9);
        let n = apps.args(Contender::Netsift, "lbrx", 9);
        assert_eq!(s[..2], ["-i", "lbrx"]);
        assert_eq!(n[..2], ["-i", "netsift:lbrx"]);
        assert_eq!(s[2..], n[2..]);
        assert_eq!(s.last().unwrap(), FILTERS[1]);
        assert!(apps.env(Contender::Stock).is_empty());
        assert_eq!(
            apps.env(Contender::Netsift),
            [
                ("LD_LIBRARY_PATH".into(), "/t/libpcap".into()),
                ("NETSIFT_SOCKET".into(), "/run/n.sock".into())
            ]
        );
    }
}
