//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use netsift_pcapio::{Error, RawTs, Reader};

/// The shared corpus directory, or `None` (with a message) if it is not there.
pub(crate) fn corpus() -> Option<PathBuf> {
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

/// Whether `tcpdump` can be run (and `PCAPIO_NO_TCPDUMP` is not set).
pub(crate) fn have_tcpdump() -> bool {
    if std::env::var_os("PCAPIO_NO_TCPDUMP").is_some() {
        eprintln!("PCAPIO_NO_TCPDUMP set: skipping the comparison with tcpdump");
        return false;
    }
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
pub(crate) fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.is_file());
    v.sort();
    v
}

/// One packet, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pkt {
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
pub(crate) struct ReadAll {
    pub packets: Vec<Pkt>,
    pub end: Result<(), Error>,
    /// Whether the error came from `Reader::new`.
    pub open_failed: bool,
}

pub(crate) fn read_all_from<R: std::io::Read>(r: R) -> ReadAll {
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

pub(crate) fn read_all(data: &[u8]) -> ReadAll {
    read_all_from(data)
}

/// Deterministic xorshift64* generator.
pub(crate) struct Rng(pub u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
}

/// The result of reading a capture with us and with libpcap (`tcpdump -r IN -w OUT`).
pub(crate) struct Comparison {
    /// Disagreements, one line each.
    pub mismatches: Vec<String>,
    /// Whether tcpdump exited successfully.
    pub tcpdump_ok: bool,
    /// tcpdump's error message(s).
    pub tcpdump_err: String,
    /// What we read.
    pub ours: ReadAll,
}

/// Runs `tcpdump -r file -w tmp/out.pcap` and compares: success/failure, every
/// packet (data, caplen, orig_len, time stamp as libpcap gives it in µs), and our
/// own rewrite with `PcapWriter` against tcpdump's output, byte for byte.
pub(crate) fn compare_with_tcpdump(name: &str, file: &Path, tmp: &Path) -> Comparison {
    use netsift_pcapio::{PcapWriter, TsPrecision};

    let bytes = std::fs::read(file).expect("read capture");
    let ours = read_all(&bytes);
    let mut mismatches = Vec::new();

    let dump = tmp.join("out.pcap");
    let _ = std::fs::remove_file(&dump);
    let res = Command::new("tcpdump")
        .arg("-r")
        .arg(file)
        .arg("-w")
        .arg(&dump)
        .output()
        .expect("run tcpdump");
    let tcpdump_ok = res.status.success();
    let tcpdump_err = String::from_utf8_lossy(&res.stderr)
        .lines()
        .filter(|l| !l.starts_with("reading from file"))
        .collect::<Vec<_>>()
        .join(" | ");

    match (&ours.end, tcpdump_ok) {
        (Ok(()), false) => mismatches.push(format!(
            "{name}: tcpdump refuses ({tcpdump_err}) but we read it"
        )),
        (Err(e), true) => mismatches.push(format!("{name}: tcpdump reads it but we refuse: {e}")),
        (Err(e), false) => {
            let msg = e.to_string();
            if !msg.contains(&format!("(at byte offset {})", e.offset())) {
                mismatches.push(format!("{name}: error names no offset: {msg}"));
            }
        }
        (Ok(()), true) => {}
    }

    let Ok(tcpdump_bytes) = std::fs::read(&dump) else {
        if !ours.packets.is_empty() {
            mismatches.push(format!("{name}: no tcpdump output but we read packets"));
        }
        return Comparison {
            mismatches,
            tcpdump_ok,
            tcpdump_err,
            ours,
        };
    };
    let theirs = read_all(&tcpdump_bytes);
    if let Err(e) = &theirs.end {
        mismatches.push(format!("{name}: cannot read tcpdump's output: {e}"));
    }
    if theirs.packets.len() != ours.packets.len() {
        mismatches.push(format!(
            "{name}: we read {} packets, libpcap {}",
            ours.packets.len(),
            theirs.packets.len()
        ));
    }
    for (i, (a, b)) in ours.packets.iter().zip(&theirs.packets).enumerate() {
        let (sec, usec) = a.raw.libpcap_timeval(TsPrecision::Micro);
        let raw_ok = match b.raw {
            RawTs::Pcap { sec: s2, frac, .. } => s2 == sec as u32 && frac == usec as u32,
            _ => false,
        };
        // For well-formed time stamps the plain packet time, truncated to µs, agrees.
        let well_formed = match a.raw {
            RawTs::Pcap { frac, nano, sec } => {
                sec < 1 << 31 && frac < if nano { 1_000_000_000 } else { 1_000_000 }
            }
            RawTs::PcapNg { .. } => a.ts_sec < 1 << 31,
        };
        let plain_ok = a.ts_sec == b.ts_sec && a.ts_nsec / 1000 == b.ts_nsec / 1000;
        if a.data != b.data
            || a.caplen != b.caplen
            || a.orig_len != b.orig_len
            || !raw_ok
            || (well_formed && !plain_ok)
        {
            mismatches.push(format!(
                "{name}: packet {i} differs: ours caplen {} len {} ts {}.{:09} raw {:?}; libpcap caplen {} len {} ts {}.{:09}",
                a.caplen, a.orig_len, a.ts_sec, a.ts_nsec, a.raw, b.caplen, b.orig_len, b.ts_sec, b.ts_nsec
            ));
            break;
        }
    }

    // Reproduce tcpdump's output byte for byte.
    if let Ok(mut rd) = Reader::new(&bytes[..]) {
        match rd.tcpdump_dump_header(false) {
            None => mismatches.push(format!("{name}: tcpdump wrote output but we say it can't")),
            Some(h) => {
                let mut w =
                    PcapWriter::new(Vec::new(), h.linktype, h.snaplen, h.precision).unwrap();
                while let Ok(Some(r)) = rd.next_record() {
                    w.write_record(&r).unwrap();
                }
                let mine = w.into_inner().unwrap();
                // The fast path (batches, runs copied as stored, chunked output)
                // writes the same bytes.
                if let Ok(mut rd) = Reader::new(&bytes[..]) {
                    let out = netsift_pcapio::ChunkWriter::new(Vec::new());
                    let mut w = PcapWriter::new(out, h.linktype, h.snaplen, h.precision).unwrap();
                    while let Ok(b) = rd.next_batch(32) {
                        if b.is_empty() {
                            break;
                        }
                        w.write_batch(&b, &[true; 32]).unwrap();
                    }
                    let fast = w.into_inner().unwrap().into_inner().unwrap();
                    if fast != mine {
                        mismatches.push(format!("{name}: write_batch differs from write_record"));
                    }
                }
                if mine != tcpdump_bytes {
                    let at = mine
                        .iter()
                        .zip(&tcpdump_bytes)
                        .position(|(a, b)| a != b)
                        .unwrap_or(mine.len().min(tcpdump_bytes.len()));
                    mismatches.push(format!(
                        "{name}: our rewrite differs from tcpdump -w at byte {at} (ours {} bytes, tcpdump {})",
                        mine.len(),
                        tcpdump_bytes.len()
                    ));
                }
            }
        }
    }
    Comparison {
        mismatches,
        tcpdump_ok,
        tcpdump_err,
        ours,
    }
}

/// A fresh scratch directory for one test.
pub(crate) fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pcapio-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
