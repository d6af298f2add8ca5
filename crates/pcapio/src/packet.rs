//! The packet record handed out by the reader and accepted by the writer.

/// Magic of a microsecond pcap file.
pub const MAGIC_MICRO: u32 = 0xa1b2_c3d4;
/// Magic of a nanosecond pcap file.
pub const MAGIC_NANO: u32 = 0xa1b2_3c4d;

/// Time-stamp precision of a pcap file (or of a pcapng file as a whole).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TsPrecision {
    /// Microseconds: pcap magic `0xa1b2c3d4`.
    Micro,
    /// Nanoseconds: pcap magic `0xa1b23c4d`.
    Nano,
}

impl TsPrecision {
    /// How many units of this precision make one second.
    pub fn units_per_sec(self) -> u32 {
        match self {
            TsPrecision::Micro => 1_000_000,
            TsPrecision::Nano => 1_000_000_000,
        }
    }

    /// The pcap magic number for this precision.
    pub fn magic(self) -> u32 {
        match self {
            TsPrecision::Micro => MAGIC_MICRO,
            TsPrecision::Nano => MAGIC_NANO,
        }
    }
}

/// One packet, borrowed from the reader's buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet<'a> {
    /// Seconds since the Unix epoch.
    pub ts_sec: u64,
    /// Nanoseconds within the second (always below 1 000 000 000).
    pub ts_nsec: u32,
    /// Bytes captured; equals `data.len()`.
    pub caplen: u32,
    /// Length of the packet on the wire.
    pub orig_len: u32,
    /// The captured bytes.
    pub data: &'a [u8],
    /// pcapng interface index (always 0 for pcap files).
    pub interface: u32,
}
