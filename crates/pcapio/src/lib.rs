//! Streaming pcap and pcapng reading, pcap writing.
//!
//! (Documentation of the tcpdump findings follows below once written.)

mod error;
mod input;
pub mod libpcap;
mod packet;
mod pcap;
mod pcapng;
mod postprocess;
mod reader;
mod writer;

pub use error::{Error, ErrorKind, Part};
pub use packet::{Packet, TsPrecision};
pub use pcap::{MAGIC_KUZNETZOV, MAGIC_MICRO, MAGIC_NANO};
pub use reader::{open, DumpHeader, Format, RawTs, Reader, Record};
pub use writer::{file_header, PcapWriter};
