//! Streaming pcap and pcapng reading, pcap writing — accepting, refusing and
//! interpreting capture files exactly as libpcap 1.10.3 does, so that netsift
//! is a drop-in for tcpdump 4.99.3 on the same files.
//!
//! # Reading
//!
//! [`Reader`] (or [`open`] for a path) detects the format from the first four
//! bytes and hands out packets one at a time ([`Reader::next_record`]) or in
//! batches ([`Reader::next_batch`]) as slices of its input buffer: it reads the
//! file in 1 MiB pieces and parses records where they lie, so a packet costs no
//! `read` call and no copy. It never loads the whole file (the buffer grows only
//! for a record larger than itself), so multi-gigabyte files and pipes stream in
//! constant memory.
//!
//! - **pcap**: both byte orders; magics `a1b2c3d4` (µs), `a1b23c4d` (ns) and
//!   Kuznetzov's `a1b2cd34` (24-byte record headers); versions 2.0-2.4 and DG/UX
//!   543.0 (caplen/len swapped below 2.3, swapped when caplen > len in 2.3); major
//!   version below 2 is "archaic", other versions are refused. The snapshot length
//!   is libpcap's adjusted one (0 or above 2^31-1 → the link type's maximum,
//!   262144 for most). A record whose caplen is above the link type's maximum
//!   (262144; DBUS 128 MiB, EBHSCR 8 MiB, USBPCAP 1 MiB) is an error; a record
//!   with caplen above the snapshot length (but within that maximum) is cut to the
//!   snapshot length, the rest skipped, caplen reported as the snapshot length.
//! - **The link-type field**: bits 26-31 carry the FCS length
//!   ([`Reader::linktype_field`]); libpcap 1.10.3 takes the low 26 bits as the link
//!   type, so a file with any of bits 16-25 set opens with a link type above 65535
//!   that tcpdump then refuses ("unknown data link type", as for
//!   `linktype-reserved-field-not-zero.pcap`). This reader refuses such files at
//!   the header (byte offset 20), agreeing with tcpdump. [`Reader::linktype`] maps
//!   the few Linux DLT_ values libpcap accepts in place of LINKTYPE_ values
//!   (12 → RAW 101, 11 → 100, 15 → 102, 16 → 103, 19 → 106), as libpcap does.
//! - **pcapng**: see the rules in the `pcapng` module source; in short, libpcap's:
//!   first SHB version 1.0 or 1.2 only, every block's length checked against its
//!   trailer, IDB options if_tsresol / if_tsoffset, EPB/SPB/obsolete PB packets,
//!   all interfaces must share the first one's link type ("an interface has a type
//!   N different from the type of the first interface") and snapshot length, a new
//!   SHB forgets the interfaces.
//! - **Pseudo-headers**: for files in the other byte order libpcap converts some
//!   link-layer pseudo-headers to host order; this reader does it for LINUX_SLL,
//!   LINUX_SLL2 (SocketCAN ids) and NFLOG, not for PFLOG and Linux USB.
//!
//! # Time stamps
//!
//! [`Packet::ts_sec`]/[`Packet::ts_nsec`] are the exact instant, normalised
//! (`ts_nsec < 1e9`), seconds unsigned (pcap seconds are read as `u32`, so files
//! after 2038 work; libpcap 1.10.3 makes them negative). [`Reader::precision`] is
//! the file's: pcap from the magic; pcapng `Micro` while every interface seen so
//! far has a resolution of 1 µs or coarser, else `Nano` (it can only change from
//! Micro to Nano while reading, when a finer interface appears).
//!
//! tcpdump prints and writes libpcap's `struct timeval`, which for malformed files
//! differs from the instant (a fraction of 1 000 000 µs is printed as
//! `.1000000`; fields are signed 32-bit). [`Reader::next_record`] returns the
//! stored time stamp too ([`RawTs`]), and [`RawTs::libpcap_timeval`] gives
//! exactly what libpcap hands tcpdump, for either precision.
//!
//! # Errors
//!
//! Every malformed file gives an [`Error`] value (never a panic) naming the byte
//! offset of the fault: `truncated packet record: header says 1514 bytes but the
//! file ends after 200 (at byte offset 123456)`, `bad pcapng block total length 7
//! (at byte offset 3400)`, `unknown file format (magic 0x47494638): ...`, `empty
//! file: ...`. Errors come after every complete packet before the fault. A file
//! that ends exactly at a record (pcapng: block) boundary ends cleanly, as in
//! libpcap.
//!
//! # What `tcpdump -r IN -w OUT` writes (tcpdump 4.99.3 / libpcap 1.10.3, x86-64)
//!
//! Found by experiment and verified byte for byte on all 867 corpus captures plus
//! the synthetic files of the tests:
//!
//! 1. Always a classic pcap file in host byte order (little-endian), version 2.4,
//!    thiszone 0, sigfigs 0, whatever the input's format, byte order or version.
//! 2. Magic `a1b2c3d4` (µs) by default, **also for nanosecond pcap and for pcapng
//!    input**: the fraction is truncated to µs (e.g. 924505488 ns → 924505 µs).
//!    Only with `--nano` (`--time-stamp-precision=nano`) is it `a1b23c4d` with ns
//!    (then a valid nanosecond pcap is copied byte for byte).
//! 3. The header's snapshot length is libpcap's adjusted one: the input's (pcapng:
//!    the first IDB's), with 0 or values above 2^31-1 replaced by 262144 (the link
//!    type's maximum), +14 for Kuznetzov Ethernet files.
//! 4. The header's link type is `dlt_to_linktype(linktype_to_dlt(x))` (identity
//!    except 11/12/15/16/19 → 100/101/102/103/106), plus a pcap input's FCS bits
//!    26-31 unchanged; pcapng: the first IDB's link type, no FCS bits. A link type
//!    libpcap cannot map makes tcpdump fail.
//! 5. Records: seconds = low 32 bits of libpcap's `tv_sec` (pcapng: ts divided by
//!    if_tsresol, plus if_tsoffset), fraction = libpcap's `tv_usec`/`tv_nsec` as signed 32 bits
//!    (a pcap ns fraction of 0x80000000 is written as µs -2147483 = 0xffdf3b65),
//!    caplen as libpcap delivers it (cut to the snapshot length), orig_len as
//!    stored, data as libpcap delivers it. All packets of all pcapng interfaces and
//!    sections are written in file order; pcapng options and non-packet blocks are
//!    dropped; a Simple Packet Block gets the time of if_tsoffset of interface 0.
//! 6. On a read error OUT holds every packet before the fault and tcpdump exits 1.
//!
//! To reproduce it byte for byte:
//!
//! ```
//! # use netsift_pcapio::*;
//! # fn copy(input: &[u8]) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
//! let mut rd = Reader::new(input)?;
//! let nano = false; // tcpdump's --nano
//! let h = rd.tcpdump_dump_header(nano).ok_or("link type not writable")?;
//! let mut w = PcapWriter::new(Vec::new(), h.linktype, h.snaplen, h.precision)?;
//! while let Some(r) = rd.next_record()? {
//!     w.write_record(&r)?;
//! }
//! Ok(w.into_inner()?)
//! # }
//! # let mut f = PcapWriter::new(Vec::new(), netsift_wire::LinkType::EN10MB, 0, TsPrecision::Nano).unwrap();
//! # f.write_packet(1, 999_999_999, &[0; 14], 14).unwrap();
//! # let out = copy(&f.into_inner().unwrap()).unwrap();
//! # assert_eq!(&out[..4], &[0xd4, 0xc3, 0xb2, 0xa1]);
//! # assert_eq!(&out[16..20], &262_144u32.to_le_bytes());
//! # assert_eq!(&out[28..32], &999_999u32.to_le_bytes());
//! ```
//!
//! ([`PcapWriter::write`] writes a [`Packet`]'s normalised time instead; the two
//! differ only for malformed time stamps.)
//!
//! For speed, read with [`Reader::next_batch`] and write with
//! [`PcapWriter::write_batch`] over a [`ChunkWriter`]: the same bytes, but runs
//! of records that the input stores exactly as they are written (a little-endian
//! 2.4 pcap file, such as tcpdump writes) are copied with one copy per run, and
//! the output file gets whole 1 MiB chunks at aligned offsets.

#![forbid(unsafe_code)]

mod batch;
mod chunk;
mod error;
mod input;
pub mod libpcap;
mod packet;
mod pcap;
mod pcapng;
mod postprocess;
mod reader;
mod record;
mod writer;

pub use batch::RecordBatch;
pub use chunk::ChunkWriter;
pub use error::{Error, ErrorKind, Part};
pub use packet::{Packet, TsPrecision};
pub use packet::{MAGIC_MICRO, MAGIC_NANO};
pub use pcap::MAGIC_KUZNETZOV;
pub use reader::{open, DumpHeader, Format, Reader};
pub use record::{RawTs, Record};
pub use writer::{file_header, record_header, PcapWriter};
