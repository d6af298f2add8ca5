//! The error type: what went wrong, and where in the file.

use std::fmt;
use std::io;

/// A read failure: a malformed or truncated file, or an I/O error.
///
/// Every error carries the byte offset in the file where the fault is: the
/// start of the offending record, block or option (or of the header field that
/// is wrong). `Display` gives a one-line message ending with
/// `(at byte offset N)`.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    offset: u64,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, offset: u64) -> Error {
        Error { kind, offset }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// Byte offset in the file where the fault is.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Whether this is a read error of the underlying reader rather than a
    /// fault in the file's contents.
    pub fn is_io(&self) -> bool {
        matches!(self.kind, ErrorKind::Io(_) | ErrorKind::Open(_))
    }

    /// Whether the file ended in the middle of a header, record or block.
    pub fn is_truncation(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::Truncated { .. } | ErrorKind::TruncatedPacket { .. }
        )
    }
}

/// Which part of the file the reader was reading when the data ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Part {
    /// The 4-byte magic number that starts every capture file.
    Magic,
    /// The 24-byte pcap file header.
    PcapFileHeader,
    /// A pcap per-packet record header (16 bytes, 24 for the Kuznetzov format).
    PcapRecordHeader,
    /// The fixed start of a pcapng Section Header Block.
    SectionHeader,
    /// A pcapng block header (type and total length).
    BlockHeader,
    /// The body of a pcapng block.
    Block,
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Part::Magic => "file header (magic number)",
            Part::PcapFileHeader => "pcap file header",
            Part::PcapRecordHeader => "packet record header",
            Part::SectionHeader => "pcapng section header block",
            Part::BlockHeader => "pcapng block header",
            Part::Block => "pcapng block",
        })
    }
}

/// What went wrong. Messages follow libpcap's where libpcap has one.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file could not be opened (it names no byte offset).
    Open(io::Error),
    /// The underlying reader failed.
    Io(io::Error),
    /// The file is empty.
    Empty,
    /// The file does not start with a pcap or pcapng magic number.
    UnknownFormat {
        /// The first four bytes, read big-endian.
        magic: u32,
    },
    /// The file ended inside a header or block: `needed` bytes were due, `got` were there.
    Truncated {
        /// What was being read.
        part: Part,
        /// Bytes the structure needs.
        needed: u64,
        /// Bytes the file had.
        got: u64,
    },
    /// The file ended inside a pcap packet's data.
    TruncatedPacket {
        /// Captured length the record header announces.
        caplen: u32,
        /// Data bytes present before the end of the file.
        got: u64,
    },
    /// pcap major version below 2.
    ArchaicVersion {
        /// Major version.
        major: u16,
        /// Minor version.
        minor: u16,
    },
    /// pcap version other than 2.0 to 2.4 (or DG/UX's 543.0).
    UnsupportedVersion {
        /// Major version.
        major: u16,
        /// Minor version.
        minor: u16,
    },
    /// Bits 16-25 of the pcap header's link-type field are not zero.
    ReservedLinkTypeBits {
        /// The whole link-type field.
        field: u32,
    },
    /// A packet's captured length is larger than the file's snapshot length
    /// (pcapng), or larger than both the snapshot length and the maximum libpcap
    /// accepts for the link type (pcap).
    CaplenTooLarge {
        /// The captured length of the record.
        caplen: u32,
        /// The limit it exceeds.
        limit: u32,
        /// Whether the limit is the snapshot length (else the link type's maximum).
        snaplen: bool,
    },
    /// pcapng Section Header Block with a byte-order magic that is neither order.
    BadByteOrderMagic {
        /// The field as read in the section's byte order.
        magic: u32,
    },
    /// A later pcapng section has the other byte order.
    ByteOrderChanged,
    /// pcapng Section Header Block length out of libpcap's range [28, 1 MiB].
    BadSectionLength {
        /// The length.
        len: u32,
    },
    /// pcapng version libpcap refuses.
    UnsupportedPcapngVersion {
        /// Major version.
        major: u16,
        /// Minor version.
        minor: u16,
    },
    /// pcapng block total length below 12 or not a multiple of 4.
    BadBlockLength {
        /// The length.
        len: u32,
    },
    /// pcapng block larger than libpcap accepts.
    BlockTooLarge {
        /// The length.
        len: u32,
        /// libpcap's maximum.
        max: u32,
    },
    /// The pcapng block's trailing length differs from its leading length.
    TrailerMismatch {
        /// Length at the start of the block.
        header: u32,
        /// Length at the end of the block.
        trailer: u32,
    },
    /// A pcapng block's content runs past the end of the block.
    BlockTooShort {
        /// The block type.
        block_type: u32,
    },
    /// A bad Interface Description Block option (message as libpcap's).
    BadOption(String),
    /// The pcapng file has no Interface Description Block.
    NoInterfaces,
    /// A packet block before any Interface Description Block.
    PacketBeforeInterface,
    /// A packet refers to an interface with no Interface Description Block.
    UnknownInterface {
        /// The interface id.
        id: u32,
    },
    /// An interface's link type differs from the first interface's.
    LinkTypeMismatch {
        /// The link type of this interface.
        linktype: u32,
        /// The link type of the first interface.
        first: u32,
    },
    /// An interface's snapshot length differs from the first interface's.
    SnaplenMismatch {
        /// The snapshot length of this interface.
        snaplen: u32,
        /// The (adjusted) snapshot length of the first interface.
        first: u32,
    },
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ErrorKind::*;
        match self {
            Open(e) => write!(f, "cannot open capture file: {e}"),
            Io(e) => write!(f, "error reading capture file: {e}"),
            Empty => f.write_str("empty file: not a pcap or pcapng capture"),
            UnknownFormat { magic } => write!(
                f,
                "unknown file format (magic 0x{magic:08x}): not a pcap or pcapng capture"
            ),
            Truncated { part, needed, got } => write!(
                f,
                "truncated {part}: needs {needed} bytes but the file ends after {got}"
            ),
            TruncatedPacket { caplen, got } => write!(
                f,
                "truncated packet record: header says {caplen} bytes but the file ends after {got}"
            ),
            ArchaicVersion { major, minor } => {
                write!(f, "archaic pcap savefile format (version {major}.{minor})")
            }
            UnsupportedVersion { major, minor } => {
                write!(f, "unsupported pcap savefile version {major}.{minor}")
            }
            ReservedLinkTypeBits { field } => write!(
                f,
                "pcap link-type field 0x{field:08x} has reserved bits 16-25 set (link type {} is not valid)",
                field & 0x03ff_ffff
            ),
            CaplenTooLarge {
                caplen,
                limit,
                snaplen: true,
            } => write!(
                f,
                "invalid packet capture length {caplen}, bigger than snaplen of {limit}"
            ),
            CaplenTooLarge { caplen, limit, .. } => write!(
                f,
                "invalid packet capture length {caplen}, bigger than maximum of {limit}"
            ),
            BadByteOrderMagic { magic } => write!(
                f,
                "pcapng section header block has a bad byte-order magic 0x{magic:08x}"
            ),
            ByteOrderChanged => f.write_str("the file has pcapng sections with different byte orders"),
            BadSectionLength { len } => write!(
                f,
                "pcapng section header block has invalid length {len} (must be 28 to 1048576)"
            ),
            UnsupportedPcapngVersion { major, minor } => {
                write!(f, "unsupported pcapng savefile version {major}.{minor}")
            }
            BadBlockLength { len } => write!(f, "bad pcapng block total length {len}"),
            BlockTooLarge { len, max } => {
                write!(f, "pcapng block total length {len} > maximum {max}")
            }
            TrailerMismatch { header, trailer } => write!(
                f,
                "pcapng block total length in header ({header}) and trailer ({trailer}) don't match"
            ),
            BlockTooShort { block_type } => {
                write!(f, "pcapng block of type {block_type} is too short for its contents")
            }
            BadOption(msg) => f.write_str(msg),
            NoInterfaces => f.write_str("the capture file has no Interface Description Blocks"),
            PacketBeforeInterface => f.write_str(
                "the capture file has a packet block before any Interface Description Blocks",
            ),
            UnknownInterface { id } => write!(
                f,
                "a packet arrived on interface {id}, but there's no Interface Description Block for that interface"
            ),
            LinkTypeMismatch { linktype, first } => write!(
                f,
                "an interface has a type {linktype} different from the type of the first interface ({first})"
            ),
            SnaplenMismatch { snaplen, first } => write!(
                f,
                "an interface has a snapshot length {snaplen} different from the snapshot length of the first interface ({first})"
            ),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ErrorKind::Open(_) => write!(f, "{}", self.kind),
            _ => write!(f, "{} (at byte offset {})", self.kind, self.offset),
        }
    }
}

// No `source()`: the message already holds the I/O error's text, and a chain that
// printed it again (anyhow's `{:#}`) would say it twice.
impl std::error::Error for Error {}

impl From<Error> for io::Error {
    fn from(e: Error) -> io::Error {
        match e.kind {
            ErrorKind::Io(inner) | ErrorKind::Open(inner) => inner,
            _ => io::Error::new(io::ErrorKind::InvalidData, e),
        }
    }
}
