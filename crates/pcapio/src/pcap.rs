//! Classic pcap format.

/// Magic of a microsecond pcap file.
pub const MAGIC_MICRO: u32 = 0xa1b2_c3d4;
/// Magic of a nanosecond pcap file.
pub const MAGIC_NANO: u32 = 0xa1b2_3c4d;
