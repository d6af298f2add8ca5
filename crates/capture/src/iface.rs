//! The interfaces a capture can open, as `tcpdump -D` lists them.

use std::fs;

/// One network interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interface {
    /// Its name (`eth0`).
    pub name: String,
    /// Its index.
    pub index: u32,
    /// Administratively up.
    pub up: bool,
    /// Operationally running.
    pub running: bool,
    /// A loopback interface.
    pub loopback: bool,
    /// Carrier: `Some(true)` connected, `Some(false)` not, `None` unknown.
    pub connected: Option<bool>,
}

impl Interface {
    /// tcpdump's bracketed flags: `[Up, Running, Connected]`, or `[none]`.
    pub fn flags(&self) -> String {
        let mut f = Vec::new();
        if self.up {
            f.push("Up");
        }
        if self.running {
            f.push("Running");
        }
        if self.loopback {
            f.push("Loopback");
        } else {
            match self.connected {
                Some(true) => f.push("Connected"),
                Some(false) if self.up => f.push("Disconnected"),
                _ => {}
            }
        }
        if f.is_empty() {
            "[none]".into()
        } else {
            format!("[{}]", f.join(", "))
        }
    }
}

/// The interfaces of this network namespace (from `/sys/class/net`), in the order
/// libpcap lists them: running before not, up before down, loopback after the
/// others of its kind, then by index.
pub fn interfaces() -> std::io::Result<Vec<Interface>> {
    let mut out = Vec::new();
    for e in fs::read_dir("/sys/class/net")? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        let read = |f: &str| {
            fs::read_to_string(e.path().join(f))
                .ok()
                .map(|s| s.trim().to_string())
        };
        let Some(index) = read("ifindex").and_then(|s| s.parse().ok()) else {
            continue;
        };
        let flags = read("flags")
            .and_then(|s| u32::from_str_radix(s.trim_start_matches("0x"), 16).ok())
            .unwrap_or(0);
        let up = flags & libc::IFF_UP as u32 != 0;
        // sysfs holds the flags as set; the kernel adds IFF_RUNNING when reporting
        // them for an interface that is up and operationally up (or of unknown
        // state, as loopback is).
        let oper = read("operstate").unwrap_or_default();
        out.push(Interface {
            name,
            index,
            up,
            running: up && (oper == "up" || oper == "unknown"),
            loopback: flags & libc::IFF_LOOPBACK as u32 != 0,
            connected: read("carrier").and_then(|c| match c.as_str() {
                "1" => Some(true),
                "0" => Some(false),
                _ => None,
            }),
        });
    }
    out.sort_by_key(|i| (!i.running, !i.up, i.loopback, i.index));
    Ok(out)
}
