//! The seeds' Figure 2b as tests run it: the three FPL programs of
//! `crates/fpl/examples/fig2b_*.fpl` (a caller and the two filters it calls on
//! its MBuf), the graph flow that defines and calls them, the ground truth
//! computed from the frames by a model that shares nothing with FPL
//! ([`Truth`]: packets per TCP flow, the first [`ENTRIES`] flows admitted),
//! and the MBuf they write read back ([`Table`]).

use std::collections::HashMap;

/// The first filter: packets per TCP flow in a hash table.
pub const COUNT_FLOWS: &str = include_str!("../../fpl/examples/fig2b_count_flows.fpl");
/// The second filter: the ten most active flows of that table.
pub const TOP_FLOWS: &str = include_str!("../../fpl/examples/fig2b_top_flows.fpl");
/// The filter that calls both on its MBuf.
pub const CALLER: &str = include_str!("../../fpl/examples/fig2b_caller.fpl");

/// Entries of the table (three 8-byte slots each).
pub const ENTRIES: usize = 1024;
/// `count_flows`' MBuf window: the table.
pub const COUNT_WINDOW: usize = ENTRIES * 24;
/// The slot where the ten triples of `top_flows` begin.
pub const TOP_SLOT: usize = ENTRIES * 3;
/// `top_flows`' MBuf window: the table and the ten triples.
pub const TOP_WINDOW: usize = COUNT_WINDOW + 10 * 24;
/// The caller's MBuf: both windows from 0, then the two results.
pub const CALLER_MBUF: usize = TOP_WINDOW + 16;

/// A TCP flow: source and destination addresses, source and destination ports.
pub type Key = (u32, u32, u16, u16);

/// The graph flow of Figure 2b on `device`: both filters defined by name
/// before it, the caller as its one filter.
pub fn graph(device: &str) -> String {
    format!(
        "count_flows = (fpl, \"{COUNT_FLOWS}\", {COUNT_WINDOW});\n\
         top_flows = (fpl, \"{TOP_FLOWS}\", {TOP_WINDOW});\n\
         (device, {device}) -> (fpl, \"{CALLER}\", {CALLER_MBUF})"
    )
}

/// Packets per TCP flow, as the figure's first filter should count them.
#[derive(Debug, Default)]
pub struct Truth {
    /// Packets per admitted flow.
    pub counts: HashMap<Key, i64>,
    /// Packets counted (the caller passes these).
    pub counted: usize,
}

impl Truth {
    /// Counts `frame` if it is an Ethernet frame with an unfragmented (or
    /// first fragment of an) IPv4/TCP packet long enough for the ports and the
    /// hashed bytes, of a flow already admitted or admitted now while fewer
    /// than [`ENTRIES`] are. Whether it counted it.
    pub fn count(&mut self, frame: &[u8]) -> bool {
        let Some(key) = key(frame) else {
            return false;
        };
        if !self.counts.contains_key(&key) && self.counts.len() == ENTRIES {
            return false;
        }
        *self.counts.entry(key).or_default() += 1;
        self.counted += 1;
        true
    }

    /// The ten largest counts, largest first.
    pub fn top_counts(&self) -> Vec<i64> {
        let mut c: Vec<i64> = self.counts.values().copied().collect();
        c.sort_unstable_by(|a, b| b.cmp(a));
        c.truncate(10);
        c
    }
}

/// The flow of `frame`, read as the filter reads it (the IPv4 header's
/// length as written; no version or checksum check).
fn key(f: &[u8]) -> Option<Key> {
    let b = |i: usize| f.get(i).copied();
    let w = |i: usize| Some(u16::from_be_bytes([b(i)?, b(i + 1)?]));
    let dw = |i: usize| Some(u32::from_be_bytes([b(i)?, b(i + 1)?, b(i + 2)?, b(i + 3)?]));
    if w(12)? != 0x0800 || b(23)? != 6 || w(20)? & 0x1fff != 0 {
        return None;
    }
    let l4 = 14 + usize::from(b(14)? & 15) * 4;
    let key = (dw(26)?, dw(30)?, w(l4)?, w(l4 + 2)?);
    // The hash covers bytes 26 to 37.
    (f.len() >= 38).then_some(key)
}

/// The MBuf of Figure 2b's caller, read back.
#[derive(Debug, PartialEq, Eq)]
pub struct Table {
    /// The table's entries.
    pub counts: HashMap<Key, i64>,
    /// The ten triples, in order, unused ones left out.
    pub top: Vec<(Key, i64)>,
    /// The two calls' results of the last packet.
    pub results: [i64; 2],
}

impl Table {
    /// Reads `mbuf`, [`CALLER_MBUF`] bytes. Panics if an entry is malformed
    /// (a used one without bit 32 of its ports, or one listed twice).
    pub fn read(mbuf: &[u8]) -> Table {
        let slot = |i: usize| i64::from_le_bytes(mbuf[8 * i..8 * i + 8].try_into().unwrap());
        let key = |i: usize| {
            let (addrs, ports) = (slot(i) as u64, slot(i + 1) as u64);
            assert_eq!(ports >> 32, 1, "entry at slot {i}: {ports:#x}");
            (
                (addrs >> 32) as u32,
                addrs as u32,
                (ports >> 16) as u16,
                ports as u16,
            )
        };
        let mut counts = HashMap::new();
        for e in 0..ENTRIES {
            if slot(3 * e + 1) != 0 {
                let old = counts.insert(key(3 * e), slot(3 * e + 2));
                assert!(old.is_none(), "entry {e} holds a flow twice");
            }
        }
        let top = (0..10)
            .map(|k| TOP_SLOT + 3 * k)
            .filter(|&s| slot(s + 1) != 0)
            .map(|s| (key(s), slot(s + 2)))
            .collect();
        Table {
            counts,
            top,
            results: [slot(TOP_SLOT + 30), slot(TOP_SLOT + 31)],
        }
    }

    /// Checks the table and the top ten against `truth`; panics naming the
    /// first difference.
    pub fn check(&self, truth: &Truth) {
        assert_eq!(self.counts.len(), truth.counts.len(), "flows in the table");
        for (k, n) in &truth.counts {
            assert_eq!(self.counts.get(k), Some(n), "flow {k:?}");
        }
        let listed: Vec<i64> = self.top.iter().map(|t| t.1).collect();
        assert_eq!(listed, truth.top_counts(), "the top ten's counts");
        for (k, n) in &self.top {
            assert_eq!(truth.counts.get(k), Some(n), "listed flow {k:?}");
        }
        let mut keys: Vec<_> = self.top.iter().map(|t| t.0).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), self.top.len(), "a flow listed twice");
        assert_eq!(self.results[1], listed.first().copied().unwrap_or(0));
    }
}
