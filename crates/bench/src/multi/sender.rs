//! The sender: tcpreplay in the sender namespace, with its own CPU time.
//!
//! At a fixed rate tcpreplay's default timer spins between packets, so the
//! sender alone used a whole core whatever the rate, and the kernel's work for
//! the listeners, done in the sender's context as it transmits (veth hands
//! each frame to the receive path on the same CPU), only took time from that
//! spin: nothing showed. With `-T nano --pps-multi=100` it sends bursts of 100
//! and sleeps in between, so its time is the sending and the kernel work it
//! carries (tcpreplay alone at 150 kpps here: 1.69 CPU s for 200,000 packets
//! with the default timer, 0.76 s with this one). At top speed there is no
//! timer.
//!
//! The process's CPU time comes from `wait4` (`ip netns exec` execs tcpreplay
//! in place, so the child is tcpreplay).

use crate::live::netns::{self, Netns};
use crate::live::replay::{parse, Rate, Sent};
use crate::live::Stop;
use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

/// Packets tcpreplay sends per timer interval at a fixed rate.
pub const PPS_MULTI: u32 = 100;

/// What one replay sent and what the sender process spent.
#[derive(Clone, Copy, Debug, Default)]
pub struct Replay {
    /// tcpreplay's report.
    pub sent: Sent,
    /// tcpreplay's user plus system CPU seconds.
    pub cpu_s: f64,
}

/// The tcpreplay arguments for `rate`, `loops` plays of `trace` on `iface`.
pub fn args(iface: &str, trace: &Path, rate: Rate, loops: usize) -> Vec<String> {
    let mut a = vec!["-i".to_string(), iface.to_string(), "-K".into()];
    match rate {
        Rate::Top => a.push("--topspeed".into()),
        Rate::Pps(n) => a.extend([
            format!("--pps={n}"),
            "-T".into(),
            "nano".into(),
            format!("--pps-multi={PPS_MULTI}"),
        ]),
    }
    if loops > 1 {
        a.push(format!("--loop={loops}"));
    }
    a.push(trace.display().to_string());
    a
}

/// Replays `trace` from the sender's end of the pair.
pub fn replay(
    net: &Netns,
    trace: &Path,
    (rate, loops): (Rate, usize),
    stop: &Stop,
) -> Result<Replay, String> {
    let mut cmd = netns::command(&net.a, Path::new("tcpreplay"));
    let mut child = cmd
        .args(args(&net.veth_a, trace, rate, loops))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run tcpreplay: {e}"))?;
    let pid = child.id() as libc::pid_t;
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let (status, cpu_s) = loop {
        if stop.is_set() {
            let _ = child.kill();
            let _ = child.wait();
            return Err("interrupted".into());
        }
        let mut status = 0;
        // SAFETY: zeroed rusage is a valid value.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: wait4 on our own child with live out-pointers; once it is
        // reaped here `child` is not waited for again.
        let rc = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut ru) };
        if rc == pid {
            let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
            break (status, secs(ru.ru_utime) + secs(ru.ru_stime));
        }
        if rc < 0 {
            return Err(format!("wait4: {}", std::io::Error::last_os_error()));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let out = out.join().unwrap_or_default();
    let err = err.join().unwrap_or_default();
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        return Err(format!(
            "tcpreplay failed (status {status}): {}",
            err.trim()
        ));
    }
    Ok(Replay {
        sent: parse(&out)?,
        cpu_s,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_rate_sleeps_between_bursts() {
        let a = args("lbtx", Path::new("/t.pcap"), Rate::Pps(150_000), 1);
        assert_eq!(
            a,
            [
                "-i",
                "lbtx",
                "-K",
                "--pps=150000",
                "-T",
                "nano",
                "--pps-multi=100",
                "/t.pcap"
            ]
        );
        let t = args("lbtx", Path::new("/t.pcap"), Rate::Top, 2);
        assert_eq!(t, ["-i", "lbtx", "-K", "--topspeed", "--loop=2", "/t.pcap"]);
    }
}
