//! tcpreplay over the veth pair: the trace played at top speed or at a fixed packet
//! rate from the sender namespace, and what tcpreplay says it sent.

use super::netns::{self, Netns};
use super::Stop;
use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

/// How fast to replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rate {
    /// A fixed rate, packets per second (`--pps`).
    Pps(u64),
    /// As fast as tcpreplay can send (`--topspeed`).
    Top,
}

impl Rate {
    /// `100k`, `1M`, `top`.
    pub fn label(self) -> String {
        match self {
            Rate::Top => "top".into(),
            Rate::Pps(n) if n >= 1_000_000 && n % 1_000_000 == 0 => format!("{}M", n / 1_000_000),
            Rate::Pps(n) if n % 1000 == 0 => format!("{}k", n / 1000),
            Rate::Pps(n) => n.to_string(),
        }
    }
}

/// What one replay sent, from tcpreplay's closing report.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sent {
    /// Packets the interface took ("Successful packets").
    pub packets: u64,
    /// Packets the interface refused ("Failed packets").
    pub failed: u64,
    /// Seconds from the first packet to the last ("sent in").
    pub seconds: f64,
}

impl Sent {
    /// The rate achieved, packets per second.
    pub fn pps(&self) -> f64 {
        self.packets as f64 / self.seconds.max(1e-9)
    }
}

/// The number after `key` on the first line that contains it.
fn number_after(text: &str, key: &str) -> Option<f64> {
    let line = text.lines().find(|l| l.contains(key))?;
    let rest = &line[line.find(key)? + key.len()..];
    rest.split_whitespace().next()?.parse().ok()
}

/// Reads tcpreplay's report.
pub(crate) fn parse(out: &str) -> Result<Sent, String> {
    let missing = || format!("tcpreplay printed no statistics:\n{out}");
    let seconds = out
        .lines()
        .find(|l| l.starts_with("Actual:"))
        .and_then(|l| {
            l.split("sent in")
                .nth(1)?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .ok_or_else(missing)?;
    Ok(Sent {
        packets: number_after(out, "Successful packets:").ok_or_else(missing)? as u64,
        failed: number_after(out, "Failed packets:").unwrap_or(0.0) as u64,
        seconds,
    })
}

/// Plays `trace` once from the sender's end of the pair, the whole file loaded
/// first (`-K`) so that the disk does not set the pace; `loops` times over
/// (`--loop`).
pub fn tcpreplay(
    net: &Netns,
    trace: &Path,
    (rate, loops): (Rate, usize),
    stop: &Stop,
) -> Result<Sent, String> {
    let mut cmd = netns::command(&net.a, Path::new("tcpreplay"));
    cmd.args(["-i", &net.veth_a, "-K"]);
    match rate {
        Rate::Top => cmd.arg("--topspeed"),
        Rate::Pps(n) => cmd.arg(format!("--pps={n}")),
    };
    if loops > 1 {
        cmd.arg(format!("--loop={loops}"));
    }
    let mut child = cmd
        .arg(trace)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run tcpreplay: {e}"))?;
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let status = loop {
        if stop.is_set() {
            let _ = child.kill();
            let _ = child.wait();
            return Err("interrupted".into());
        }
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("waiting for tcpreplay: {e}")),
        }
    };
    let out = reader.join().unwrap_or_default();
    if !status.success() {
        let mut err = String::new();
        if let Some(mut e) = child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        return Err(format!("tcpreplay failed ({status}): {}", err.trim()));
    }
    parse(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tcpreplays_report() {
        let out = "Actual: 200000 packets (14487896 bytes) sent in 0.482036 seconds\n\
                   Rated: 30055630.6 Bps, 240.44 Mbps, 414906.77 pps\n\
                   Statistics for network device: va\n\
                   \tSuccessful packets:        199990\n\
                   \tFailed packets:            10\n";
        let s = parse(out).unwrap();
        assert_eq!((s.packets, s.failed), (199_990, 10));
        assert!((s.seconds - 0.482036).abs() < 1e-9);
        assert!(parse("nothing").is_err());
        assert_eq!(Rate::Pps(300_000).label(), "300k");
        assert_eq!(Rate::Pps(1_000_000).label(), "1M");
    }
}
