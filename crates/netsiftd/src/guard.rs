//! The guard on zero copy: an XDP program that redirects an interface's
//! frames to an AF_XDP socket takes them away from the host stack, so the
//! daemon refuses it on an interface that carries the host's own traffic,
//! unless the administrator says the interface is a monitor port
//! (`--monitor-port IFACE`).
//!
//! An interface carries the host's traffic when any of these holds:
//!
//! - it has an IPv4 address, or an IPv6 address of wider than link scope
//!   (a link-local IPv6 address alone does not count: the kernel gives one to
//!   every interface that comes up, and it carries only neighbour discovery);
//! - an IPv4 route of any table names it (`/proc/net/route`: an unnumbered
//!   point-to-point link carries traffic with no address of its own);
//! - an IPv6 route other than link-local (`fe80::/64`) and multicast
//!   (`ff00::/8`), which the kernel adds to every interface, names it
//!   (`/proc/net/ipv6_route`);
//! - it is a port of a bridge, bond or team (`/sys/class/net/IFACE/master`):
//!   the master's traffic crosses it.
//!
//! The test is on the state at the daemon's start; an address added later is
//! the administrator's doing.

use std::net::IpAddr;

/// Why `iface` carries the host's traffic, if it does.
pub(crate) fn host_traffic(iface: &str) -> Option<String> {
    if let Some(a) = address(iface) {
        return Some(format!("it has address {a}"));
    }
    if let Some(r) = route(iface) {
        return Some(format!("a route uses it ({r})"));
    }
    if let Ok(m) = std::fs::read_link(format!("/sys/class/net/{iface}/master")) {
        let m = m.file_name().map(|m| m.to_string_lossy().into_owned());
        return Some(format!(
            "it is a port of {}",
            m.unwrap_or_else(|| "a master".into())
        ));
    }
    None
}

/// An IPv4 address, or an IPv6 one wider than link scope, of `iface`.
fn address(iface: &str) -> Option<String> {
    netsift_ffpf::xsk::addresses(iface)
        .into_iter()
        .find(|a| match a {
            IpAddr::V4(_) => true,
            IpAddr::V6(v6) => v6.segments()[0] & 0xffc0 != 0xfe80,
        })
        .map(|a| a.to_string())
}

/// A route naming `iface`, as its table line says.
fn route(iface: &str) -> Option<String> {
    let v4 = std::fs::read_to_string("/proc/net/route").unwrap_or_default();
    // Iface Destination Gateway Flags …: destination in host-order hex.
    for line in v4.lines().skip(1) {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.first() == Some(&iface) {
            let dest = f
                .get(1)
                .and_then(|d| u32::from_str_radix(d, 16).ok())
                .map(|d| std::net::Ipv4Addr::from(u32::from_be(d)).to_string());
            return Some(format!("IPv4 route to {}", dest.unwrap_or_default()));
        }
    }
    let v6 = std::fs::read_to_string("/proc/net/ipv6_route").unwrap_or_default();
    // dest dest_len src src_len next refcnt use flags… iface last.
    for line in v6.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.last() != Some(&iface) || f.len() < 2 {
            continue;
        }
        let dest = f[0];
        if dest.starts_with("fe80") || dest.starts_with("ff") {
            continue;
        }
        // The loopback's unreachable routes name `lo`; a local route of an
        // address we would have seen above. What is left is a real route.
        return Some(format!("IPv6 route to {dest}/{}", f[1]));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loopback_carries_host_traffic_and_a_missing_interface_does_not() {
        // Every Linux host has `lo` with 127.0.0.1 (tests run in no
        // namespace of their own here).
        let why = host_traffic("lo").expect("lo has an address");
        assert!(why.contains("127.0.0.1") || why.contains("::1"), "{why}");
        assert_eq!(host_traffic("no-such-iface0"), None);
    }
}
