//! The hook that runs a daemon around the netsift contender's measurements:
//! started in the capture namespace before the applications, given time to
//! get ready (its socket appears, [`DaemonCommand::ready`]), stopped with
//! SIGTERM after the applications exit. Its CPU is part of the shared cost the
//! experiment reports, read from `/proc` like the applications'.
//!
//! Nothing here knows what the daemon is: `netsiftd` with its socket, once it
//! exists, is a [`DaemonCommand`] and an environment variable
//! (`NETSIFT_SOCKET`) for the applications, both given on the command line.

use super::apps::{Child, DaemonCommand};
use crate::live::netns::Netns;
use std::io::Read;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a daemon is given to create its readiness path.
const READY_TIMEOUT: Duration = Duration::from_secs(15);

/// A running daemon.
#[derive(Debug)]
pub struct Daemon {
    child: Child,
    stderr: Option<JoinHandle<String>>,
}

/// Splits a command line into words as a POSIX shell would for the simple
/// cases: whitespace separates, single quotes keep everything, double quotes
/// keep everything but a backslash before `"` or `\\`, and a backslash outside
/// quotes keeps the next character. No expansions.
pub fn split_command(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if let Some(w) = word.take() {
                    words.push(w);
                }
            }
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err(format!("{line:?}: an unterminated ' quote")),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => w.push(c),
                            Some(c) => {
                                w.push('\\');
                                w.push(c);
                            }
                            None => return Err(format!("{line:?}: an unterminated \" quote")),
                        },
                        Some(c) => w.push(c),
                        None => return Err(format!("{line:?}: an unterminated \" quote")),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => word.get_or_insert_with(String::new).push(c),
                None => return Err(format!("{line:?}: a backslash at the end")),
            },
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    if words.is_empty() {
        return Err("an empty command line".into());
    }
    Ok(words)
}

impl Daemon {
    /// Starts `cmd` with `env` and returns once it is ready.
    pub fn start(
        net: &Netns,
        cmd: &DaemonCommand,
        env: &[(String, String)],
    ) -> Result<Daemon, String> {
        if let Some(p) = &cmd.ready {
            // A stale socket from an earlier run would pass for readiness.
            let _ = std::fs::remove_file(p);
        }
        let (child, mut err) = Child::spawn(net, &cmd.argv, env)?;
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            s
        });
        let mut d = Daemon {
            child,
            stderr: Some(stderr),
        };
        match &cmd.ready {
            None => std::thread::sleep(DaemonCommand::SETTLE),
            Some(p) => {
                let end = Instant::now() + READY_TIMEOUT;
                while !p.exists() {
                    if Instant::now() > end || !d.alive() {
                        let said = d.stop().unwrap_or_else(|e| e);
                        return Err(format!(
                            "daemon `{}` did not create {} within {READY_TIMEOUT:?}: {}",
                            cmd.argv.join(" "),
                            p.display(),
                            said.trim()
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        }
        Ok(d)
    }

    /// The daemon's process id.
    pub fn pid(&self) -> u32 {
        self.child.pid
    }

    /// Whether it still runs (a zombie, exited and not reaped, does not).
    fn alive(&self) -> bool {
        std::fs::read_to_string(format!("/proc/{}/stat", self.child.pid)).is_ok_and(|s| {
            s.rfind(')')
                .and_then(|i| s[i + 1..].split_whitespace().next())
                .is_some_and(|state| state != "Z")
        })
    }

    /// Stops it with SIGTERM (SIGKILL after 5 s); returns its standard error.
    pub fn stop(&mut self) -> Result<String, String> {
        let status = self.child.stop(libc::SIGTERM, Duration::from_secs(5));
        let said = self
            .stderr
            .take()
            .map(|h| h.join().unwrap_or_default())
            .unwrap_or_default();
        status.map(|_| said)
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if self.stderr.is_some() {
            let _ = self.stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netsift_testkit::netns::VethPair;
    use netsift_testkit::{require, Need};

    #[test]
    fn splits_a_command_line_as_a_shell_would() {
        assert_eq!(
            split_command("netsiftd  --socket /run/n.sock").unwrap(),
            ["netsiftd", "--socket", "/run/n.sock"]
        );
        assert_eq!(
            split_command(r#"sh -c 'touch "$X"; exec sleep 9' a\ b "c \"d\"""#).unwrap(),
            ["sh", "-c", "touch \"$X\"; exec sleep 9", "a b", "c \"d\""]
        );
        assert_eq!(split_command("''").unwrap(), [""]);
        assert!(split_command("sh -c 'x").is_err());
        assert!(split_command("  ").is_err());
    }

    /// The hook with a stand-in daemon: it gets the contender's environment,
    /// runs in the capture namespace, is waited for until its "socket"
    /// appears, and is gone after `stop`.
    #[test]
    fn starts_waits_for_and_stops_a_daemon() {
        require!(Need::Netns);
        let net = VethPair::with_names("nsdmn", "lbtx", "lbrx").unwrap();
        let dir = std::env::temp_dir().join(format!("netsift-daemon-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ready = dir.join("sock");
        let cmd = DaemonCommand {
            argv: vec![
                "sh".into(),
                "-c".into(),
                "sleep 0.2; ip -o link show lbrx >&2; touch \"$NETSIFT_SOCKET\"; exec sleep 30"
                    .into(),
            ],
            ready: Some(ready.clone()),
        };
        let env = [("NETSIFT_SOCKET".to_string(), ready.display().to_string())];
        let mut d = Daemon::start(&net, &cmd, &env).unwrap();
        assert!(ready.exists());
        let pid = d.pid();
        assert!(d.alive());
        let said = d.stop().unwrap();
        assert!(
            said.contains("lbrx"),
            "not in the capture namespace: {said}"
        );
        assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
        // A daemon that dies before it is ready is an error, not a hang.
        let dead = DaemonCommand {
            argv: vec!["false".into()],
            ready: Some(dir.join("never")),
        };
        assert!(Daemon::start(&net, &dead, &[]).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
