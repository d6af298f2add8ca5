//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use netsift_pcapio::{Error, RawTs, Reader};

/// The shared corpus directory, or `None` (with a message) if it is not there.
pub fn corpus() -> Option<PathBuf> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        manifest.join("../../../shared/corpus"),
        PathBuf::from("/work/shared/corpus"),
    ];
    for c in candidates {
        if c.join("pcaps").is_dir() {
            return Some(c);
        }
    }
    eprintln!("corpus not found (looked for $CARGO_MANIFEST_DIR/../../../shared/corpus and /work/shared/corpus): skipping");
    None
}

/// Whether `tcpdump` can be run.
pub fn have_tcpdump() -> bool {
    let ok = Command::new("tcpdump")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("tcpdump not found: skipping the comparison with tcpdump");
    }
    ok
}

/// Sorted files of a corpus subdirectory.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.is_file());
    v.sort();
    v
}

/// One packet, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pkt {
    pub ts_sec: u64,
    pub ts_nsec: u32,
    pub caplen: u32,
    pub orig_len: u32,
    pub data: Vec<u8>,
    pub interface: u32,
    pub raw: RawTs,
}

/// Everything a reader yields: packets, then how it ended.
#[derive(Debug)]
pub struct ReadAll {
    pub packets: Vec<Pkt>,
    pub end: Result<(), Error>,
    /// Whether the error came from `Reader::new`.
    pub open_failed: bool,
}

pub fn read_all_from<R: std::io::Read>(r: R) -> ReadAll {
    let mut packets = Vec::new();
    let mut rd = match Reader::new(r) {
        Ok(rd) => rd,
        Err(e) => {
            return ReadAll {
                packets,
                end: Err(e),
                open_failed: true,
            }
        }
    };
    let end = loop {
        match rd.next_record() {
            Ok(Some(r)) => {
                assert_eq!(r.packet.caplen as usize, r.packet.data.len());
                assert!(r.packet.ts_nsec < 1_000_000_000);
                packets.push(Pkt {
                    ts_sec: r.packet.ts_sec,
                    ts_nsec: r.packet.ts_nsec,
                    caplen: r.packet.caplen,
                    orig_len: r.packet.orig_len,
                    data: r.packet.data.to_vec(),
                    interface: r.packet.interface,
                    raw: r.raw_ts,
                })
            }
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    // Fused after the end or an error.
    assert!(matches!(rd.next_packet(), Ok(None)));
    ReadAll {
        packets,
        end,
        open_failed: false,
    }
}

pub fn read_all(data: &[u8]) -> ReadAll {
    read_all_from(data)
}

/// Deterministic xorshift64* generator.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
}
