//! Hashes and checksums: `hash` (FPL's own FNV-1a over a computed range),
//! `flow_hash` (the same hash over a packet's addresses and ports, wherever its
//! headers put them), `checksum` (the Internet checksum of a range) and
//! `checksums_ok` (whether a packet's IPv4 header and TCP/UDP checksums verify).
//!
//! Each reads at most the packet once, allocates nothing, and answers `-1` for
//! what it cannot compute (a range not wholly captured, a frame without the
//! headers it needs), which no successful call returns.

use crate::args::{slot, Range};
use netsift_follow::segment::segment;
use netsift_fpl::externs::{Call, ExternFn};
use netsift_fpl::hash::hash as fnv1a;
use netsift_wire::checksum::{internet, pseudo};
use netsift_wire::ipv4::Ipv4Packet;
use netsift_wire::LinkType;
use std::net::IpAddr;

/// `hash`: reads `(start, len, buckets)` (24 bytes), writes nothing, returns the
/// 32-bit FNV-1a of the range modulo `buckets` — what FPL's `HASH` computes,
/// with a length known only at run time.
pub fn hash() -> ExternFn {
    ExternFn::new("hash", 24, 0, |call: Call<'_>| {
        let input = call.input();
        let Some(buckets) = buckets(slot(input, 2)) else {
            return -1;
        };
        match Range::read(input, 0).exact(call.packet) {
            Some(bytes) => fnv1a(bytes, buckets),
            None => -1,
        }
    })
}

/// `flow_hash`: reads `buckets` (8 bytes), writes nothing, returns FNV-1a of
/// the packet's source and destination addresses and ports (in that order, in
/// network byte order: for IPv4 without options exactly `HASH(26, 12, buckets)`)
/// modulo `buckets`; -1 for a frame without a TCP or UDP segment.
pub fn flow_hash() -> ExternFn {
    ExternFn::new("flow_hash", 8, 0, |call: Call<'_>| {
        let Some(buckets) = buckets(slot(call.input(), 0)) else {
            return -1;
        };
        let Some(seg) = segment(LinkType::EN10MB, call.packet) else {
            return -1;
        };
        let mut key = [0u8; 36];
        let mut n = 0;
        for a in [seg.src, seg.dst] {
            match a {
                IpAddr::V4(a) => key[n..n + 4].copy_from_slice(&a.octets()),
                IpAddr::V6(a) => key[n..n + 16].copy_from_slice(&a.octets()),
            }
            n += if a.is_ipv4() { 4 } else { 16 };
        }
        key[n..n + 2].copy_from_slice(&seg.sport.to_be_bytes());
        key[n + 2..n + 4].copy_from_slice(&seg.dport.to_be_bytes());
        fnv1a(&key[..n + 4], buckets)
    })
}

/// A bucket count from 1 to 2^32 - 1 (FPL's `HASH` takes the same).
fn buckets(v: i64) -> Option<u32> {
    u32::try_from(v).ok().filter(|&b| b >= 1)
}

/// `checksum`: reads `(start, len)` (16 bytes), writes nothing, returns the
/// Internet checksum (RFC 1071, complemented) of the range, 0 to 65,535: 0 when
/// the range holds a correct checksum of itself, as an IPv4 header does.
pub fn checksum() -> ExternFn {
    ExternFn::new("checksum", 16, 0, |call: Call<'_>| {
        match Range::read(call.input(), 0).exact(call.packet) {
            Some(bytes) => i64::from(internet(bytes)),
            None => -1,
        }
    })
}

/// `checksums_ok`: reads and writes nothing; 1 when the frame is Ethernet
/// (802.1Q/802.1ad tags allowed) carrying a whole IPv4 packet whose header
/// checksum verifies and, unless it is a fragment, whose TCP or UDP checksum
/// verifies too (a UDP checksum of 0 means none); 0 otherwise, a frame cut
/// short by the snap length included (it cannot be verified).
pub fn checksums_ok() -> ExternFn {
    ExternFn::new("checksums_ok", 0, 0, |call: Call<'_>| {
        i64::from(verify(call.packet).unwrap_or(false))
    })
}

/// The IPv4 packet of an Ethernet frame: after the tags, EtherType 0x0800.
fn ipv4_of(frame: &[u8]) -> Option<&[u8]> {
    let mut at = 12;
    loop {
        let t = u16::from_be_bytes([*frame.get(at)?, *frame.get(at + 1)?]);
        match t {
            0x8100 | 0x88a8 | 0x9100 => at += 4,
            0x0800 => return frame.get(at + 2..),
            _ => return None,
        }
    }
}

/// Whether the checksums verify; `None` where the frame is not a whole IPv4 packet.
pub(crate) fn verify(frame: &[u8]) -> Option<bool> {
    let ip = Ipv4Packet::new_checked(ipv4_of(frame)?).ok()?;
    ip.check_total_len().ok()?;
    if !ip.verify_checksum() {
        return Some(false);
    }
    if ip.is_fragment() {
        return Some(true);
    }
    let (src, dst) = (ip.src_addr().octets(), ip.dst_addr().octets());
    let l4 = ip.payload();
    let proto = ip.protocol().0;
    Some(match proto {
        6 => l4.len() >= 20 && pseudo(&src, &dst, proto, l4) == 0,
        17 => {
            let sum = u16::from_be_bytes([*l4.get(6)?, *l4.get(7)?]);
            l4.len() >= 8 && (sum == 0 || pseudo(&src, &dst, proto, l4) == 0)
        }
        _ => true,
    })
}
