//! A live run of a capture program: netsift (or tcpdump, the reference) started
//! in a namespace with its arguments, waited for until it says `listening on`,
//! stopped with SIGINT once the test has sent its traffic, and what it printed,
//! its exit status and the capture file it wrote collected in a [`Finished`].
//!
//! The filter expression goes last on the command line, after `-w`, as both
//! programs want it.

use crate::pcap::{self, Record};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// One stock tcpdump per filter of `exprs`, in namespace `ns` on `dev` with
/// `args`, each writing `dir/stockK.pcap` (K its filter's index), started:
/// the reference the live tests compare with.
pub fn tcpdump_each(
    ns: &str,
    dev: &str,
    args: &[&str],
    exprs: &[&str],
    dir: &Path,
) -> Vec<Running> {
    exprs
        .iter()
        .enumerate()
        .map(|(k, expr)| {
            Live::tcpdump()
                .in_ns(ns)
                .on(dev)
                .args(args)
                .write_to(&dir.join(format!("stock{k}.pcap")))
                .filter(expr)
                .start()
        })
        .collect()
}

/// A capture program's command line, to be started with [`Live::start`].
#[derive(Debug, Clone)]
pub struct Live {
    program: OsString,
    ns: Option<String>,
    args: Vec<OsString>,
    write: Option<PathBuf>,
    filter: Vec<String>,
}

impl Live {
    /// Runs `program` (such as `env!("CARGO_BIN_EXE_netsift")`).
    pub fn new(program: impl Into<OsString>) -> Live {
        Live {
            program: program.into(),
            ns: None,
            args: Vec::new(),
            write: None,
            filter: Vec::new(),
        }
    }

    /// Runs tcpdump as root (`-Z root`, so that it may write into the test's
    /// directory).
    pub fn tcpdump() -> Live {
        Live::new("tcpdump").args(["-Z", "root"])
    }

    /// Runs the program inside namespace `ns`.
    pub fn in_ns(mut self, ns: &str) -> Live {
        self.ns = Some(ns.to_string());
        self
    }

    /// Captures on interface `dev` (`-i dev`).
    pub fn on(self, dev: &str) -> Live {
        self.args(["-i", dev])
    }

    /// One more argument.
    pub fn arg(mut self, a: impl Into<OsString>) -> Live {
        self.args.push(a.into());
        self
    }

    /// More arguments.
    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> Live {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Writes the capture to `path` (`-w path`); [`Finished::packets`] reads it.
    pub fn write_to(mut self, path: &Path) -> Live {
        self.write = Some(path.to_path_buf());
        self
    }

    /// The filter expression, last on the command line.
    pub fn filter(mut self, expr: &str) -> Live {
        self.filter = vec![expr.to_string()];
        self
    }

    /// The command line this run would start.
    pub fn command(&self) -> std::process::Command {
        let mut c = match &self.ns {
            Some(ns) => crate::netns::exec(ns, &self.program),
            None => std::process::Command::new(&self.program),
        };
        c.args(&self.args);
        if let Some(w) = &self.write {
            c.arg("-w").arg(w);
        }
        c.args(&self.filter);
        c
    }

    /// Starts the program and waits until it says `listening on` on stderr;
    /// panics with what it said if it exits first.
    pub fn start(self) -> Running {
        let mut child = self
            .command()
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{:?} starts: {e}", self.program));
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut said = Vec::new();
        let mut line = String::new();
        while err.read_line(&mut line).unwrap_or(0) > 0 {
            said.push(line.trim_end().to_string());
            if line.contains("listening on") {
                break;
            }
            line.clear();
        }
        if !said.last().is_some_and(|l| l.contains("listening on")) {
            let status = child.wait();
            panic!(
                "{:?} did not start listening ({status:?}): {said:#?}",
                self.program
            );
        }
        // The rest of both streams is drained as the program writes it, so it never
        // blocks on a full pipe.
        let stderr = drain(err);
        let stdout = drain(child.stdout.take().unwrap());
        Running {
            child: Some(child),
            said,
            stderr: Some(stderr),
            stdout: Some(stdout),
            write: self.write,
        }
    }
}

fn drain(mut r: impl Read + Send + 'static) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = r.read_to_string(&mut s);
        s
    })
}

/// A started capture program; killed if dropped before it was stopped.
#[derive(Debug)]
pub struct Running {
    child: Option<Child>,
    said: Vec<String>,
    stderr: Option<JoinHandle<String>>,
    stdout: Option<JoinHandle<String>>,
    write: Option<PathBuf>,
}

impl Running {
    /// What the program said on stderr up to and with `listening on`.
    pub fn said(&self) -> &[String] {
        &self.said
    }

    /// The program's process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    /// Sends SIGINT, and waits for the program to finish.
    pub fn stop(self) -> Finished {
        self.wait(Duration::ZERO)
    }

    /// Waits up to `limit` for the program to finish by itself (`-c N`), then
    /// sends SIGINT and waits for it.
    pub fn wait(mut self, limit: Duration) -> Finished {
        let mut child = self.child.take().unwrap();
        let end = Instant::now() + limit;
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if Instant::now() >= end {
                interrupt(child.id());
                break child.wait().unwrap();
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Finished {
            status,
            said: std::mem::take(&mut self.said),
            stderr: self.stderr.take().unwrap().join().unwrap(),
            stdout: self.stdout.take().unwrap().join().unwrap(),
            written: self.write.take(),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(c) = &mut self.child {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Sends SIGINT to process `pid`.
pub fn interrupt(pid: u32) {
    // SAFETY: kill(2) has no memory preconditions; the pid is a child of ours.
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
}

/// A finished run: its exit status, what it printed, and the file it wrote.
#[derive(Debug)]
pub struct Finished {
    /// How the program exited.
    pub status: ExitStatus,
    /// Its stderr up to and with `listening on`, a line each.
    pub said: Vec<String>,
    /// Its stderr after that (statistics, warnings).
    pub stderr: String,
    /// Its stdout.
    pub stdout: String,
    /// The file given to [`Live::write_to`].
    pub written: Option<PathBuf>,
}

impl Finished {
    /// Panics, with everything the program said, unless it exited with status 0.
    #[track_caller]
    pub fn assert_success(&self) -> &Finished {
        assert!(
            self.status.success(),
            "exited {}: {}\n{}",
            self.status,
            self.said.join("\n"),
            self.stderr
        );
        self
    }

    /// Whether the lines before `listening on` contain `text`.
    pub fn said_contains(&self, text: &str) -> bool {
        self.said.iter().any(|l| l.contains(text))
    }

    /// The records of the file it wrote.
    pub fn records(&self) -> Vec<Record> {
        pcap::records(self.written.as_deref().expect("the run was given write_to"))
    }

    /// The packets of the file it wrote: data and wire length.
    pub fn packets(&self) -> Vec<(Vec<u8>, u32)> {
        pcap::packets(self.written.as_deref().expect("the run was given write_to"))
    }

    /// [`Finished::packets`] sorted, after [`Finished::assert_success`]: two
    /// programs reading their own sockets may order frames differently.
    pub fn sorted_packets(&self) -> Vec<(Vec<u8>, u32)> {
        self.assert_success();
        let mut p = self.packets();
        p.sort();
        p
    }

    /// A count from its statistics, such as `packets received by filter`.
    pub fn statistic(&self, what: &str) -> Option<u64> {
        let suffix = format!(" {what}");
        self.stderr
            .lines()
            .find_map(|l| l.trim().strip_suffix(suffix.as_str()))
            .and_then(|n| n.trim().parse().ok())
    }
}

/// A child process stopped when dropped: SIGINT (as Ctrl-C would), then
/// SIGKILL if it has not gone within 5 s, and reaped either way, so that a
/// test that fails midway leaves nothing running.
#[derive(Debug)]
pub struct Stopped(pub Child);

impl Drop for Stopped {
    fn drop(&mut self) {
        interrupt(self.0.id());
        let until = std::time::Instant::now() + Duration::from_secs(5);
        while std::time::Instant::now() < until {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
