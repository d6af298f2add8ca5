//! `topn` and `topn_key`: the N most frequent keys of a packet stream, counted
//! in the caller's MBuf with the Space-Saving algorithm (Metwally, Agrawal and
//! El Abbadi, ICDT 2005), so that the state is bounded by N and the
//! application reads the table straight from MBuf.
//!
//! Layout of the output region, `8 + 16 N` bytes, every number little-endian
//! (so FPL's `MEM[i]` slots read them as the sums below):
//!
//! ```text
//! offset 0        u64  packets counted (wrapping)
//! offset 8 + 16i  entry i, 0 <= i < N:
//!   +0   u32  source IPv4 address, as PKT.IP_SRC reads it   } slot: src | dst << 32
//!   +4   u32  destination IPv4 address (PKT.IP_DST)          }
//!   +8   u16  source port                                    } slot: sport | dport << 16
//!   +10  u16  destination port                               }        | count << 32
//!   +12  u32  count (0: the entry is free)
//! ```
//!
//! `topn_key` keeps the same table for a 64-bit key of the program's choosing
//! (input slot 0), held where `topn` holds the address pair, with ports 0.
//!
//! Space-Saving: a key in the table has its count raised; a new key takes a
//! free entry with count 1, or else replaces the entry with the least count
//! `m` and gets `m + 1`. Every key seen more than `total / N` times is in the
//! table, and an entry's count exceeds its key's true count by at most the
//! least count in the table. Entries are not kept sorted: the reader sorts.
//!
//! Work per call: one pass over the N entries (at most 1,024 for the graph's
//! class), no allocation. Any MBuf content is accepted (a program may write
//! the table itself): a count at `u32::MAX` stays there.

use crate::args::slot;
use netsift_follow::segment::segment;
use netsift_fpl::externs::{Call, ExternFn};
use netsift_wire::LinkType;
use std::net::IpAddr;

/// Bytes before the first entry.
pub const HEADER: usize = 8;
/// Bytes per entry.
pub const ENTRY: usize = 16;
/// The most entries a table may have, as the graph's `topn` class allows.
pub const MAX_N: usize = 1024;

/// The output size of a table of `n` entries.
pub const fn table_len(n: usize) -> usize {
    HEADER + ENTRY * n
}

/// Counts `key` (12 bytes, as laid out in an entry) in `table`; returns the
/// key's count afterwards, or 0 when `table` is not a whole table.
pub fn count(table: &mut [u8], key: &[u8; 12]) -> u32 {
    if table.len() <= HEADER || !(table.len() - HEADER).is_multiple_of(ENTRY) {
        return 0;
    }
    let (head, entries) = table.split_at_mut(HEADER);
    let total = u64::from_le_bytes(head.try_into().unwrap_or([0; 8]));
    head.copy_from_slice(&total.wrapping_add(1).to_le_bytes());
    let mut free = None;
    let mut least: Option<(usize, u32)> = None;
    let mut found = None;
    for (i, e) in entries.chunks_exact(ENTRY).enumerate() {
        let c = entry_count(e);
        if c == 0 {
            free = free.or(Some(i));
        } else if e[..12] == key[..] {
            found = Some((i, c));
            break;
        } else if least.is_none_or(|(_, m)| c < m) {
            least = Some((i, c));
        }
    }
    let (i, c) = match (found, free, least) {
        (Some((i, c)), _, _) => (i, c.saturating_add(1)),
        (None, Some(i), _) => (i, 1),
        (None, None, Some((i, m))) => (i, m.saturating_add(1)),
        (None, None, None) => return 0,
    };
    set_entry(&mut entries[i * ENTRY..(i + 1) * ENTRY], key, c);
    c
}

fn entry_count(e: &[u8]) -> u32 {
    u32::from_le_bytes([e[12], e[13], e[14], e[15]])
}

fn set_entry(e: &mut [u8], key: &[u8; 12], count: u32) {
    e[..12].copy_from_slice(key);
    e[12..16].copy_from_slice(&count.to_le_bytes());
}

/// The key of an IPv4 TCP segment in an Ethernet frame, laid out as an entry.
pub fn flow_key(frame: &[u8]) -> Option<[u8; 12]> {
    let s = segment(LinkType::EN10MB, frame)?;
    let (IpAddr::V4(src), IpAddr::V4(dst), 6) = (s.src, s.dst, s.proto) else {
        return None;
    };
    let mut k = [0u8; 12];
    k[0..4].copy_from_slice(&u32::from(src).to_le_bytes());
    k[4..8].copy_from_slice(&u32::from(dst).to_le_bytes());
    k[8..10].copy_from_slice(&s.sport.to_le_bytes());
    k[10..12].copy_from_slice(&s.dport.to_le_bytes());
    Some(k)
}

/// `topn` with `n` entries: reads nothing, counts the frame's IPv4 TCP flow
/// (address pair and ports) in the table at the output; returns its count, 0
/// for a frame that is not IPv4 TCP (nothing is counted then).
pub fn topn(n: usize) -> ExternFn {
    ExternFn::new(
        "topn",
        0,
        table_len(n),
        |mut call: Call<'_>| match flow_key(call.packet) {
            Some(k) => i64::from(count(call.output(), &k)),
            None => 0,
        },
    )
}

/// `topn_key` with `n` entries: counts the 64-bit key in input slot 0 (8 bytes)
/// in the table at the output; returns its count.
pub fn topn_key(n: usize) -> ExternFn {
    ExternFn::new("topn_key", 8, table_len(n), |mut call: Call<'_>| {
        let mut k = [0u8; 12];
        k[..8].copy_from_slice(&slot(call.input(), 0).to_le_bytes());
        i64::from(count(call.output(), &k))
    })
}
