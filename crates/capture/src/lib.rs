//! Live capture: packets from a network interface, as a capture file gives them.
//!
//! On Linux a capture source is an AF_PACKET socket with a TPACKET_V3 receive ring
//! ([`Ring`]): the kernel writes packets into blocks of memory shared with this
//! process, and hands over whole blocks, so a busy interface costs one wake-up per
//! block rather than per packet. The filter then runs *in the ring*: the batch
//! engine reads the packets where the kernel put them, and only accepted ones are
//! copied out (to a file or a printer).
//!
//! The ring keeps the kernel's view of each packet ([`Frame`]): captured bytes,
//! length on the wire, a nanosecond time stamp, and the VLAN tag the kernel took
//! out of the packet on receive. [`Ring`] puts that tag back in place, as libpcap
//! does, and says so ([`Frame::tag_put_back`]): libpcap's kernel filter reads such
//! a frame without its tag, and the session filters it as that filter does.
//!
//! Where a kernel-side filter plugs in: [`Ring`] owns the socket, and a socket
//! filter (classic BPF, or the eBPF netsift-kernel generates) attaches to it before the ring fills; the
//! ring then holds only what the kernel let through, and the user-space filter
//! makes the exact decision on those.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod error;
mod fanout;
mod iface;
mod ring;

pub use error::{Error, ErrorKind};
pub use fanout::Fanout;
pub use iface::{interfaces, linktype, linktype_of, Interface};
pub use ring::{ifindex, Block, Config, Direction, Frame, Frames, Ring, Stats, ANY};
