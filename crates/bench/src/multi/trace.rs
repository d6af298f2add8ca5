//! The trace the experiment replays: the static trace's gateway mix
//! (`netsift-bench gen-trace`, crates/gen) with whole frames (`--snaplen
//! 1514`), written by the harness into its temporary directory, and what each
//! of the applications' filters accepts in it.
//!
//! VLAN-tagged frames (about 14% of the mix) are left out. The kernel takes a
//! frame's tag out before a packet socket's filter runs, so libpcap's `ip`
//! matches tagged IPv4 live but not in a file, and netsift puts the tag back
//! (docs/BENCHMARKS.md, section 7): with tags, what each contender should
//! capture would differ and could not be told from the file. Without them, a
//! filter's verdicts on the file are what either should capture live.

use super::apps::FILTERS;
use crate::gen::trace::{TraceConfig, TraceGen};
use netsift_pcapio::{PcapWriter, TsPrecision};
use netsift_wire::LinkType;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// The snapshot length of the trace: whole Ethernet frames.
pub const SNAPLEN: u32 = 1514;

/// A written trace.
#[derive(Clone, Debug)]
pub struct Trace {
    /// Where it is.
    pub path: PathBuf,
    /// Packets in it.
    pub packets: u64,
    /// Mean bytes per frame.
    pub mean_bytes: f64,
    /// Packets each of [`FILTERS`] accepts (libpcap, offline).
    pub expected: Vec<u64>,
    /// The generator's arguments, for the report.
    pub source: String,
}

/// Whether an Ethernet frame carries an 802.1Q or 802.1ad tag.
fn tagged(frame: &[u8]) -> bool {
    matches!(frame.get(12..14), Some([0x81, 0x00] | [0x88, 0xa8]))
}

/// Generates `packets` untagged packets (seed 1) into `dir/multi-trace.pcap`.
pub fn write(dir: &Path, packets: usize) -> Result<Trace, String> {
    let path = dir.join("multi-trace.pcap");
    let cfg = TraceConfig {
        packets: usize::MAX,
        snaplen: SNAPLEN,
        ..TraceConfig::default()
    };
    let io = |e: std::io::Error| format!("{}: {e}", path.display());
    let f = std::fs::File::create(&path).map_err(io)?;
    let mut w = PcapWriter::new(
        BufWriter::new(f),
        LinkType::EN10MB,
        SNAPLEN,
        TsPrecision::Micro,
    )
    .map_err(|e| format!("{}: {e}", path.display()))?;
    let filters = FILTERS
        .iter()
        .map(|e| netsift_oracle::Filter::compile(LinkType::EN10MB, e))
        .collect::<Result<Vec<_>, _>>()?;
    let mut expected = vec![0u64; FILTERS.len()];
    let (mut n, mut bytes) = (0u64, 0u64);
    for p in TraceGen::new(&cfg)
        .filter(|p| !tagged(&p.data))
        .take(packets)
    {
        for (e, f) in expected.iter_mut().zip(&filters) {
            *e += u64::from(f.accepts(&p.data, p.orig_len));
        }
        n += 1;
        bytes += p.data.len() as u64;
        w.write_packet(
            (p.ts_ns / 1_000_000_000) as u32,
            (p.ts_ns % 1_000_000_000 / 1000) as u32,
            &p.data,
            p.orig_len,
        )
        .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let inner = w
        .into_inner()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    inner
        .into_inner()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Trace {
        path,
        packets: n,
        mean_bytes: bytes as f64 / n.max(1) as f64,
        expected,
        source: format!(
            "gen-trace --snaplen {SNAPLEN} --seed 1, VLAN-tagged frames left out, first {n} packets"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::tagged;

    #[test]
    fn tells_tagged_frames() {
        let mut f = vec![0u8; 60];
        f[12..14].copy_from_slice(&[0x08, 0x00]);
        assert!(!tagged(&f));
        f[12..14].copy_from_slice(&[0x81, 0x00]);
        assert!(tagged(&f));
        assert!(!tagged(&f[..13]));
    }
}
