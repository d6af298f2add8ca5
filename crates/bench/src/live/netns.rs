//! The benchmark's own network: two namespaces joined by a veth pair
//! (`netsift_testkit::netns::VethPair`), made at the start and removed when it is
//! dropped (also on an error or Ctrl-C, which unwind through the drop). Traffic
//! goes from the sender namespace's end of the pair (`a`, interface `lbtx`) to the
//! capture namespace's end (`b`, `lbrx`) and nowhere else: neither end has an
//! address or a route, and IPv6 is off, so the kernel sends nothing of its own.
//!
//! Names carry the benchmark's process id, so a run that was killed outright leaves
//! namespaces that the next run recognises (their process is gone) and removes.

use netsift_testkit::netns::VethPair;
use netsift_testkit::skip::has_command;

pub use netsift_testkit::netns::{exec as command, try_in_ns as spawn_in};

/// The pair: `a` is where tcpreplay sends from (its end `veth_a`), `b` where the
/// contenders capture (`veth_b`).
pub type Netns = VethPair;

/// The capture namespace's end of the pair: what the contenders capture on.
pub const CAPTURE_DEV: &str = "lbrx";

/// Makes the namespaces and the pair, both ends up.
pub fn new() -> Result<Netns, String> {
    VethPair::with_names("nsbench", "lbtx", CAPTURE_DEV)
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
        if !has_command(cmd) {
            return Some(format!(
                "netsift-bench live needs `{cmd}` (apt-get install {pkg}; scripts/setup.sh installs it)"
            ));
        }
    }
    None
}
