//! The benchmark's own network: two namespaces joined by a veth pair, made at the
//! start and removed when [`Netns`] is dropped (also on an error or Ctrl-C, which
//! unwind through the drop). Traffic goes from the sender namespace's end of the
//! pair to the capture namespace's end and nowhere else: neither end has an address
//! or a route, and IPv6 is off, so the kernel sends nothing of its own.
//!
//! Names carry the benchmark's process id, so a run that was killed outright leaves
//! namespaces that the next run recognises (their process is gone) and removes.

use std::os::fd::AsRawFd;
use std::process::Command;

/// Prefix of every namespace this module makes.
const PREFIX: &str = "nsbench";

/// Two namespaces and the veth pair between them.
pub struct Netns {
    /// Where tcpreplay sends from.
    pub sender: String,
    /// Where the contenders capture.
    pub capture: String,
    /// The sender's end of the pair (in `sender`).
    pub tx: String,
    /// The capturing end (in `capture`).
    pub rx: String,
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run `ip` (iproute2): {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

/// Whether the effective capability set holds capability `bit` (from
/// /proc/self/status, so no capability library is needed for one mask).
fn has_capability(bit: u32) -> bool {
    let Ok(s) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    s.lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|h| u64::from_str_radix(h.trim(), 16).ok())
        .is_some_and(|m| m >> bit & 1 == 1)
}

/// Why this process cannot run the live benchmark, if it cannot: it needs
/// CAP_NET_ADMIN (namespaces, veth, packet sockets) and CAP_SYS_ADMIN (`setns`),
/// which root has, and the `ip`, `tcpreplay` and `tcpdump` commands.
pub fn missing_privilege() -> Option<String> {
    const CAP_NET_ADMIN: u32 = 12;
    const CAP_SYS_ADMIN: u32 = 21;
    if !has_capability(CAP_NET_ADMIN) || !has_capability(CAP_SYS_ADMIN) {
        return Some(
            "netsift-bench live needs CAP_NET_ADMIN and CAP_SYS_ADMIN (run it as root): \
             it makes network namespaces and a veth pair and captures on them"
                .into(),
        );
    }
    for (cmd, pkg) in [
        ("ip", "iproute2"),
        ("tcpreplay", "tcpreplay"),
        ("tcpdump", "tcpdump"),
    ] {
        let found = Command::new(cmd)
            .arg(if cmd == "ip" { "-V" } else { "--version" })
            .output()
            .is_ok();
        if !found {
            return Some(format!(
                "netsift-bench live needs `{cmd}` (apt-get install {pkg}; scripts/setup.sh installs it)"
            ));
        }
    }
    None
}

/// Removes namespaces left by runs whose process no longer exists.
fn remove_stale() {
    let Ok(out) = Command::new("ip").args(["netns", "list"]).output() else {
        return;
    };
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let name = line.split_whitespace().next().unwrap_or("");
        let Some(rest) = name.strip_prefix(PREFIX) else {
            continue;
        };
        // nsbench{tx|rx}{pid}
        let pid = rest.trim_start_matches(|c: char| c.is_ascii_alphabetic());
        if pid.parse::<u32>().is_ok() && !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let _ = ip(&["netns", "del", name]);
        }
    }
}

impl Netns {
    /// Makes the namespaces and the pair, both ends up.
    pub fn new() -> Result<Netns, String> {
        remove_stale();
        let pid = std::process::id();
        let n = Netns {
            sender: format!("{PREFIX}tx{pid}"),
            capture: format!("{PREFIX}rx{pid}"),
            tx: "lbtx".into(),
            rx: "lbrx".into(),
        };
        // From here on, dropping `n` removes whatever was made.
        ip(&["netns", "add", &n.sender])?;
        ip(&["netns", "add", &n.capture])?;
        ip(&[
            "-n", &n.sender, "link", "add", &n.tx, "type", "veth", "peer", "name", &n.rx, "netns",
            &n.capture,
        ])?;
        for (ns, dev) in [(&n.sender, &n.tx), (&n.capture, &n.rx)] {
            // No IPv6 autoconfiguration: the kernel would send router and neighbour
            // solicitations of its own, which the counts would have to exclude.
            ip(&[
                "netns",
                "exec",
                ns,
                "sysctl",
                "-qw",
                "net.ipv6.conf.all.disable_ipv6=1",
            ])?;
            ip(&["-n", ns, "link", "set", dev, "up"])?;
        }
        Ok(n)
    }

    /// A command that runs `program` inside namespace `ns` (`ip netns exec` execs
    /// the program in place, so the child's pid and resource usage are the
    /// program's own).
    pub fn command(ns: &str, program: &std::path::Path) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", ns]).arg(program);
        c
    }

    /// Runs `f` on a new thread that has entered namespace `ns`: the sockets it
    /// opens belong there.
    pub fn spawn_in<T: Send + 'static>(
        ns: &str,
        f: impl FnOnce() -> Result<T, String> + Send + 'static,
    ) -> std::thread::JoinHandle<Result<T, String>> {
        let path = format!("/var/run/netns/{ns}");
        std::thread::spawn(move || {
            let file = std::fs::File::open(&path).map_err(|e| format!("{path}: {e}"))?;
            // SAFETY: setns on a namespace file descriptor that lives through the
            // call; it changes only this thread's network namespace.
            let rc = unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) };
            if rc != 0 {
                return Err(format!("setns {path}: {}", std::io::Error::last_os_error()));
            }
            f()
        })
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        // Removing a namespace removes the veth end in it, and with it the pair.
        let _ = ip(&["netns", "del", &self.sender]);
        let _ = ip(&["netns", "del", &self.capture]);
    }
}
