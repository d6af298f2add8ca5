//! Workload generators: synthetic captures with a ground truth, for benchmarks
//! that must know which packets a filter ought to accept and when.
//!
//! - [`rng`]: the seeded SplitMix64 generator every workload draws from, so the same
//!   arguments always give byte-identical output.
//! - [`packet`]: Ethernet/IPv4/TCP/UDP/ICMP frame builders with correct checksums.
//! - [`ftp`]: the passive-mode FTP workload of the Swift paper (section 5.1).
//!
//! A workload is a time-ordered `Vec<`[`GenPacket`]`>` held in memory (the trace
//! must be replayed at full speed later, so it is built up front), written out with
//! [`write_pcap`].

pub mod ftp;
pub mod packet;
pub mod rng;
pub mod trace;

use std::io::{self, Write};

use netsift_pcapio::{PcapWriter, TsPrecision};
use netsift_wire::LinkType;

/// One generated packet: an Ethernet frame and its capture time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenPacket {
    /// Capture time in nanoseconds since the Unix epoch. Generators keep it a
    /// multiple of 1000 so that the microsecond pcap file stores it exactly.
    pub ts_ns: u64,
    /// Length of the frame on the wire (`data` may be cut by the snapshot length).
    pub orig_len: u32,
    /// The captured bytes.
    pub data: Vec<u8>,
}

/// Writes `packets` as a microsecond, little-endian, LINKTYPE_ETHERNET pcap file
/// with snapshot length `snaplen` (what `tcpdump -w` writes by default), and
/// returns the writer after flushing it.
pub fn write_pcap<W: Write>(w: W, packets: &[GenPacket], snaplen: u32) -> io::Result<W> {
    let mut pw = PcapWriter::new(w, LinkType::EN10MB, snaplen, TsPrecision::Micro)?;
    for p in packets {
        let sec = u32::try_from(p.ts_ns / 1_000_000_000).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "time stamp after 2106 does not fit a pcap file",
            )
        })?;
        let usec = (p.ts_ns % 1_000_000_000 / 1000) as u32;
        pw.write_packet(sec, usec, &p.data, p.orig_len)?;
    }
    pw.into_inner()
}
