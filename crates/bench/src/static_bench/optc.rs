//! "Opt-C": the paper's hand-written native filters, one per criterion of Table 5,
//! here in Rust compiled with optimisation (`-O`, the release profile) instead of C
//! with `gcc -O2`. They are the ceiling the interpreters are measured against.
//!
//! Each function has exactly the semantics of the program libpcap 1.10 compiles (with
//! its optimiser) for the filter on Ethernet, as `tcpdump -d EXPR` prints it: the same
//! loads in the same order, and a load past the captured bytes rejects the packet (BPF
//! returns 0), so the verdicts agree on truncated packets too. In particular:
//!
//! - `ip` is only `ether[12:2] = 0x800` (a VLAN-tagged frame is not `ip`);
//! - port tests first check the protocol byte and that the fragment offset
//!   (`ip[6:2] & 0x1fff`) is 0, then read the ports behind the IPv4 header of length
//!   `4 * (ip[0] & 0xf)` (libpcap's `ldxb 4*([14]&0xf)`), source port first;
//! - `ip and tcp port ...` has no IPv6 alternative: libpcap's optimiser removes it
//!   because `ip` already failed for IPv6.
//!
//! `crates/bench/tests/static_bench.rs` checks every function against libpcap on every
//! packet of generated traces, with 75-byte and full snapshot lengths.

use crate::gen::trace::SEEDS_HOSTS;

/// A hand-written filter: captured bytes and wire length in, verdict out.
pub type OptCFn = fn(&[u8], u32) -> bool;

/// The Opt-C filter for the paper's filter number `id` (1-6).
pub fn filter(id: u32) -> Option<OptCFn> {
    Some(match id {
        1 => f1_accept_all,
        2 => f2_ip,
        3 => f3_src_dst_net,
        4 => f4_src_or_dst_net,
        5 => f5_tcp_ports,
        6 => f6_irc,
        _ => return None,
    })
}

#[inline(always)]
fn b(p: &[u8], at: usize) -> Option<u32> {
    p.get(at).map(|&x| u32::from(x))
}

#[inline(always)]
fn h(p: &[u8], at: usize) -> Option<u32> {
    let s = p.get(at..at + 2)?;
    Some(u32::from(u16::from_be_bytes([s[0], s[1]])))
}

#[inline(always)]
fn w(p: &[u8], at: usize) -> Option<u32> {
    let s = p.get(at..at + 4)?;
    Some(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

#[inline(always)]
fn is_ip(p: &[u8]) -> Option<bool> {
    Some(h(p, 12)? == 0x0800)
}

/// The IPv4 header length, as `ldxb 4*([14]&0xf)`.
#[inline(always)]
fn ihl(p: &[u8]) -> Option<usize> {
    Some(4 * (b(p, 14)? & 0xf) as usize)
}

/// `""`: accept everything.
pub fn f1_accept_all(_p: &[u8], _wire: u32) -> bool {
    true
}

/// `ip`.
pub fn f2_ip(p: &[u8], _wire: u32) -> bool {
    is_ip(p) == Some(true)
}

/// `ip src net 192.168.2.0/24 and dst net 10.0.0.0/8`.
pub fn f3_src_dst_net(p: &[u8], _wire: u32) -> bool {
    (|| {
        Some(
            is_ip(p)?
                && w(p, 26)? & 0xffff_ff00 == 0xc0a8_0200
                && w(p, 30)? & 0xff00_0000 == 0x0a00_0000,
        )
    })()
    .unwrap_or(false)
}

/// `ip src or dst net 192.168.2.0/24`.
pub fn f4_src_or_dst_net(p: &[u8], _wire: u32) -> bool {
    (|| {
        Some(
            is_ip(p)?
                && (w(p, 26)? & 0xffff_ff00 == 0xc0a8_0200
                    || w(p, 30)? & 0xffff_ff00 == 0xc0a8_0200),
        )
    })()
    .unwrap_or(false)
}

#[inline(always)]
fn mail_web_port(port: u32) -> bool {
    // ssh, http, imap, smtp, pop3, ftp
    matches!(port, 22 | 80 | 143 | 25 | 110 | 21)
}

/// `ip and tcp port (ssh or http or imap or smtp or pop3 or ftp)`.
pub fn f5_tcp_ports(p: &[u8], _wire: u32) -> bool {
    (|| {
        if !is_ip(p)? || b(p, 23)? != 6 || h(p, 20)? & 0x1fff != 0 {
            return Some(false);
        }
        let x = ihl(p)?;
        Some(mail_web_port(h(p, x + 14)?) || mail_web_port(h(p, x + 16)?))
    })()
    .unwrap_or(false)
}

/// The 38 addresses of filter 6 as big-endian words.
const HOSTS: [u32; 38] = {
    let mut out = [0u32; 38];
    let mut i = 0;
    while i < 38 {
        out[i] = u32::from_be_bytes(SEEDS_HOSTS[i]);
        i += 1;
    }
    out
};

#[inline(always)]
fn listed(a: u32) -> bool {
    HOSTS.contains(&a)
}

/// `ip and (not tcp port (80 or 25 or 143) and not ip host (A1 or ... or A38))`.
pub fn f6_irc(p: &[u8], _wire: u32) -> bool {
    (|| {
        if !is_ip(p)? {
            return Some(false);
        }
        if b(p, 23)? == 6 && h(p, 20)? & 0x1fff == 0 {
            let x = ihl(p)?;
            if matches!(h(p, x + 14)?, 80 | 25 | 143) || matches!(h(p, x + 16)?, 80 | 25 | 143) {
                return Some(false);
            }
        }
        Some(!listed(w(p, 26)?) && !listed(w(p, 30)?))
    })()
    .unwrap_or(false)
}
