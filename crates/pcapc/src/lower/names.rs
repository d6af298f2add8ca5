//! Name resolution as libpcap does it: services (`/etc/services`), IP protocols
//! (`/etc/protocols`), networks (`/etc/networks`), Ethernet hosts (`/etc/ethers`),
//! host names through the system resolver, and libpcap's built-in tables.
//!
//! The files are read on each lookup; lookups happen at compile time only.

use std::fs;
use std::net::IpAddr;

fn lines(path: &str) -> Vec<Vec<String>> {
    let Ok(text) = fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|f| !f.is_empty())
        .collect()
}

/// Port of service `name` for transport `proto` ("tcp", "udp", "sctp").
pub(super) fn service(name: &str, proto: &str) -> Option<u32> {
    lines("/etc/services").into_iter().find_map(|f| {
        let (port, p) = f.get(1)?.split_once('/')?;
        if p != proto {
            return None;
        }
        let hit = f[0] == name || f[2..].iter().any(|a| a == name);
        if hit {
            port.parse().ok()
        } else {
            None
        }
    })
}

/// libpcap's PROTO_UNDEF: both TCP and UDP (and SCTP) apply.
pub(super) const PROTO_UNDEF: i32 = -1;

/// pcap_nametoport: the port and which transport it belongs to (6, 17, or
/// PROTO_UNDEF when TCP and UDP agree).
pub(super) fn nametoport(name: &str) -> Option<(u32, i32)> {
    // getaddrinfo takes a numeric service as the port itself, for TCP and UDP alike.
    if !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()) {
        return name
            .parse::<u32>()
            .ok()
            .filter(|&p| p <= 65535)
            .map(|p| (p, PROTO_UNDEF));
    }
    let tcp = service(name, "tcp");
    let udp = service(name, "udp");
    match (tcp, udp) {
        (Some(t), Some(u)) if t == u => Some((t, PROTO_UNDEF)),
        (Some(t), _) => Some((t, 6)),
        (None, Some(u)) => Some((u, 17)),
        (None, None) => None,
    }
}

/// pcap_nametoportrange: `"P1-P2"` with numbers or names.
pub(super) fn nametoportrange(name: &str) -> Option<(u32, u32, i32)> {
    if let Some((a, b)) = scan_two_numbers(name) {
        return Some((a, b, PROTO_UNDEF));
    }
    let (a, b) = name.split_once('-')?;
    let (p1, proto1) = nametoport(a)?;
    let (p2, proto2) = nametoport(b)?;
    Some((
        p1,
        p2,
        if proto1 != proto2 {
            PROTO_UNDEF
        } else {
            proto2
        },
    ))
}

/// `sscanf(s, "%d-%d")`: a number, '-', a number (trailing text ignored).
fn scan_two_numbers(s: &str) -> Option<(u32, u32)> {
    let (a, rest) = leading_int(s)?;
    let rest = rest.strip_prefix('-')?;
    let (b, _) = leading_int(rest)?;
    Some((a as u32, b as u32))
}

fn leading_int(s: &str) -> Option<(i64, &str)> {
    let t = s.trim_start();
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    if end == 0 {
        return None;
    }
    let v: i64 = t[..end].parse().ok()?;
    Some((if neg { -v } else { v }, &t[end..]))
}

/// getprotobyname.
pub(super) fn protocol(name: &str) -> Option<u32> {
    lines("/etc/protocols").into_iter().find_map(|f| {
        let hit = f[0] == name || f.get(2..).is_some_and(|a| a.iter().any(|x| x == name));
        if hit {
            f.get(1)?.parse().ok()
        } else {
            None
        }
    })
}

/// libpcap's eproto_db, then its llc_db (for `link proto NAME`).
pub(super) fn ether_proto(name: &str) -> Option<u32> {
    Some(match name {
        "aarp" => 0x80f3,
        "arp" => 0x0806,
        "atalk" => 0x809b,
        "decnet" => 0x6003,
        "ip" => 0x0800,
        "ip6" => 0x86dd,
        "lat" => 0x6004,
        "loopback" => 0x9000,
        "mopdl" => 0x6001,
        "moprc" => 0x6002,
        "rarp" => 0x8035,
        "sca" => 0x6007,
        "iso" => 0xfe,
        "stp" => 0x42,
        "ipx" => 0xe0,
        "netbeui" => 0xf0,
        _ => return None,
    })
}

/// getnetbyname via /etc/networks: the network number, as libpcap gets it.
pub(super) fn network(name: &str) -> Option<u32> {
    lines("/etc/networks").into_iter().find_map(|f| {
        let hit = f[0] == name || f.get(2..).is_some_and(|a| a.iter().any(|x| x == name));
        if !hit {
            return None;
        }
        // inet_network(): dotted parts, each shifted in.
        let mut v: u32 = 0;
        for part in f.get(1)?.split('.') {
            v = v.checked_shl(8)? | part.parse::<u8>().ok()? as u32;
        }
        Some(v)
    })
}

/// /etc/ethers lookup by host name.
pub(super) fn ether_host(name: &str) -> Option<[u8; 6]> {
    lines("/etc/ethers").into_iter().find_map(|f| {
        if f.get(1).map(String::as_str) != Some(name) {
            return None;
        }
        parse_mac(&f[0])
    })
}

/// Parses `xx:xx:xx:xx:xx:xx`, `xx-..`, `xx.xx.xx..`, `xxxx.xxxx.xxxx` and
/// `xxxxxxxxxxxx` (and mixes), as pcap_ether_aton.
pub(super) fn parse_mac(s: &str) -> Option<[u8; 6]> {
    let mut out = [0u8; 6];
    let mut n = 0;
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if matches!(b[i], b':' | b'.' | b'-') {
            i += 1;
            continue;
        }
        let h = (b[i] as char).to_digit(16)?;
        i += 1;
        let mut d = h;
        if i < b.len() && (b[i] as char).is_ascii_hexdigit() {
            d = d << 4 | (b[i] as char).to_digit(16)?;
            i += 1;
        }
        if n >= 6 {
            return None;
        }
        out[n] = d as u8;
        n += 1;
    }
    (n == 6).then_some(out)
}

/// The addresses a host name resolves to, in the resolver's order (getaddrinfo, as
/// libpcap's pcap_nametoaddrinfo).
pub(super) fn host_addrs(name: &str) -> Vec<IpAddr> {
    use std::net::ToSocketAddrs;
    let mut out = Vec::new();
    if let Ok(iter) = (name, 0u16).to_socket_addrs() {
        for a in iter {
            if !out.contains(&a.ip()) {
                out.push(a.ip());
            }
        }
    }
    out
}

/// __pcap_atoin: dotted decimal with 1-4 parts; returns (value, bits) or None.
pub(super) fn atoin(s: &str) -> Option<(u32, u32)> {
    let mut addr: u32 = 0;
    let mut len = 0;
    for part in s.split('.') {
        let mut n: u32 = 0;
        for c in part.chars() {
            if n > 25 {
                return None;
            }
            n = n * 10 + c.to_digit(10)?;
        }
        if n > 255 {
            return None;
        }
        addr = addr.checked_shl(8).unwrap_or(0) | n;
        len += 8;
    }
    if len > 32 {
        return None;
    }
    Some((addr, len))
}

/// __pcap_atodn: `area.node` DECnet address.
pub(super) fn atodn(s: &str) -> Option<u32> {
    let (a, rest) = leading_int(s)?;
    let rest = rest.strip_prefix('.')?;
    let (n, _) = leading_int(rest)?;
    let (a, n) = (a as u32, n as u32);
    Some(((a << 10) & 0o176000) | (n & 0o1777))
}
