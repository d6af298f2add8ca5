//! The capture files tests write and compare: frames in, packets out.

use netsift_pcapio::{PcapWriter, TsPrecision};
use netsift_wire::LinkType;
use std::path::Path;

/// One record of a capture file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Seconds of the time stamp.
    pub ts_sec: u64,
    /// Nanoseconds of the time stamp.
    pub ts_nsec: u32,
    /// The bytes captured.
    pub data: Vec<u8>,
    /// The length on the wire.
    pub orig_len: u32,
}

/// Every record of the capture file at `path`; panics if it does not read whole.
pub fn records(path: &Path) -> Vec<Record> {
    let mut r = netsift_pcapio::open(path)
        .unwrap_or_else(|e| panic!("{}: capture file opens: {e}", path.display()));
    let mut out = Vec::new();
    while let Some(p) = r
        .next_packet()
        .unwrap_or_else(|e| panic!("{}: capture file reads: {e}", path.display()))
    {
        out.push(Record {
            ts_sec: p.ts_sec,
            ts_nsec: p.ts_nsec,
            data: p.data.to_vec(),
            orig_len: p.orig_len,
        });
    }
    out
}

/// The packets of the capture file at `path`: data and wire length.
pub fn packets(path: &Path) -> Vec<(Vec<u8>, u32)> {
    records(path)
        .into_iter()
        .map(|r| (r.data, r.orig_len))
        .collect()
}

/// Writes `frames` as an Ethernet capture file, one microsecond apart (fewer than a million).
pub fn write(path: &Path, frames: &[Vec<u8>]) {
    let f = std::fs::File::create(path).unwrap();
    let mut w = PcapWriter::new(f, LinkType::EN10MB, 262_144, TsPrecision::Micro).unwrap();
    for (i, fr) in frames.iter().enumerate() {
        w.write_packet(1_700_000_000, i as u32, fr, fr.len() as u32)
            .unwrap();
    }
    w.flush().unwrap();
}

/// `(data, wire length)` of each frame as it was sent whole.
pub fn as_sent(frames: &[Vec<u8>]) -> Vec<(Vec<u8>, u32)> {
    frames.iter().map(|f| (f.clone(), f.len() as u32)).collect()
}
