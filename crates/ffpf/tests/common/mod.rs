//! Shared helpers of the integration tests: packets whose bytes say who they
//! are, so a reader can check every byte it gets, offered in batches; and a
//! reader in another process ([`child`]).

#![allow(dead_code)]

pub(crate) mod child;

use netsift_ffpf::{FlowFds, FlowId, FlowReader, Incoming, Packet};

/// The bytes of packet `seq`: its number, then a pattern derived from it,
/// `len` bytes in all (at least 8).
pub(crate) fn packet(seq: u64, len: usize) -> Vec<u8> {
    let mut v = seq.to_le_bytes().to_vec();
    v.extend((8..len.max(8)).map(|i| (seq as usize).wrapping_mul(31).wrapping_add(i) as u8));
    v
}

/// `pkts` (made by [`packet`], numbered from `from`) as one batch for
/// `flows`, with the time stamps and wire lengths [`check`] expects.
pub(crate) fn incoming<'a>(
    pkts: &'a [Vec<u8>],
    from: u64,
    flows: &'a [(FlowId, u32)],
) -> Vec<Incoming<'a>> {
    pkts.iter()
        .enumerate()
        .map(|(i, b)| Incoming {
            bytes: b,
            ts_ns: (from + i as u64) * 1000,
            wirelen: b.len() as u32 + 4,
            flows,
        })
        .collect()
}

/// A length between 8 and 8 + spread - 1 chosen by `seq`.
pub(crate) fn len_of(seq: u64, spread: u64) -> usize {
    8 + (seq.wrapping_mul(2_654_435_761) % spread) as usize
}

/// Checks a delivered packet against what [`packet`] made; returns its number.
pub(crate) fn check(p: &Packet<'_>) -> u64 {
    assert!(p.data.len() >= 8, "packet of {} bytes", p.data.len());
    let seq = u64::from_le_bytes(p.data[..8].try_into().unwrap());
    assert_eq!(
        p.data,
        &packet(seq, p.data.len())[..],
        "bytes of packet {seq}"
    );
    assert_eq!(p.ts_ns, seq * 1000, "time stamp of packet {seq}");
    assert_eq!(
        p.wirelen as usize,
        p.data.len() + 4,
        "wirelen of packet {seq}"
    );
    seq
}

/// A reader from a flow's descriptors.
pub(crate) fn reader(fds: FlowFds) -> FlowReader {
    FlowReader::from_fds(fds.pbuf, fds.ibuf, fds.control, fds.wake).expect("FlowReader::from_fds")
}
