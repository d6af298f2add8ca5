//! The numbered frames the live tests send from side B of a veth pair to
//! side A: UDP ones a filter keeps and TCP ones it leaves, each carrying its
//! number so that a lost or reordered one shows.

use netsift_testkit::frames::{Frame, MAC_A, MAC_B};

/// UDP from port `4000 + n` to 7, its payload `n` (big-endian).
pub fn udp(n: u32) -> Vec<u8> {
    Frame::ethernet(MAC_B, MAC_A)
        .ipv4([10, 9, 0, 2], [10, 9, 0, 1])
        .udp(4000 + n as u16, 7)
        .payload(&n.to_be_bytes())
        .build()
}

/// A TCP SYN from port `5000 + n` to 80.
pub fn tcp(n: u32) -> Vec<u8> {
    Frame::ethernet(MAC_B, MAC_A)
        .ipv4([10, 9, 0, 2], [10, 9, 0, 1])
        .tcp(5000 + n as u16, 80, 0x02)
        .build()
}
