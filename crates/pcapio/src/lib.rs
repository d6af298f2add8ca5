//! Streaming pcap and pcapng reading, pcap writing.

mod packet;
mod pcap;
mod writer;

pub use packet::{Packet, TsPrecision};
pub use writer::{file_header, PcapWriter};
