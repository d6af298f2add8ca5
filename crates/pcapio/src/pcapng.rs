//! pcapng format, read as libpcap 1.10.3's `sf-pcapng.c` reads it.
//!
//! libpcap's rules, mirrored here:
//! - The first Section Header Block must have a length in [28, 1 MiB] and version
//!   1.0 or 1.2; its options and trailer are not examined. Later SHBs need only a
//!   valid byte-order magic in the same byte order and major version 1.
//! - Every other block: total length >= 12, a multiple of 4, at most 16 MiB (more
//!   for link types with a larger maximum packet), trailer length equal to it.
//! - Blocks before the first IDB are skipped; a packet block before it is an error,
//!   as is a file with no IDB at all.
//! - All interfaces, across sections, must have the first interface's link type and
//!   (adjusted) snapshot length. A new SHB forgets the interfaces seen so far.
//! - IDB options if_tsresol (power of 10 up to 10^-19 or of 2 up to 2^-63) and
//!   if_tsoffset are used; malformed options are errors. Other options are ignored,
//!   as are the options of packet blocks.
//! - Enhanced, Simple and the obsolete Packet blocks carry packets; SPBs belong to
//!   interface 0, have caplen = min(len, snaplen) and no time stamp (their time is
//!   interface 0's if_tsoffset). A captured length above the snapshot length is an
//!   error. All other block types are skipped.

use std::io::Read;

use crate::error::{Error, ErrorKind, Part};
use crate::input::{arr, Endian, Input};
use crate::libpcap;
use crate::record::{RawTs, Slot, Step};

/// Block type of a Section Header Block (same in both byte orders).
pub(crate) const BT_SHB: u32 = 0x0a0d_0d0a;
const BT_IDB: u32 = 1;
const BT_PB: u32 = 2;
const BT_SPB: u32 = 3;
const BT_EPB: u32 = 6;
const BYTE_ORDER_MAGIC: u32 = 0x1a2b_3c4d;
const SHB_MAX: u32 = 1024 * 1024;
const INITIAL_MAX_BLOCK: u32 = 16 * 1024 * 1024;

/// Time-stamp conversion of one interface.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Iface {
    /// Units per second.
    tsresol: u64,
    /// Whether `tsresol` is a power of 2 (else of 10).
    binary: bool,
    /// Seconds added to every time stamp.
    tsoffset: u64,
}

/// A parsed block: its type, where it starts in the file, and its body's place in
/// the input buffer (`body_at..body_at + body_len`, the trailer excluded).
struct Block {
    btype: u32,
    start: u64,
    body_at: usize,
    body_len: usize,
}

impl Block {
    fn body<'a, R: Read>(&self, input: &'a Input<R>) -> &'a [u8] {
        input
            .buf()
            .get(self.body_at..self.body_at + self.body_len)
            .unwrap_or_default()
    }
}

/// What [`NgState::read_block`] found.
enum BlockStep {
    Block(Block),
    /// A clean end of file.
    End,
    /// The block is not wholly buffered (only when the buffer may not move).
    Later,
}

/// A bounds-checked cursor over a block body.
struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    endian: Endian,
    /// File offset of `data[0]`.
    base: u64,
    btype: u32,
    start: u64,
}

impl<'a> Cursor<'a> {
    fn new(data: &'a [u8], endian: Endian, b: &Block) -> Self {
        Cursor {
            data,
            pos: 0,
            endian,
            base: b.start + 8,
            btype: b.btype,
            start: b.start,
        }
    }

    fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    fn short(&self) -> Error {
        Error::new(
            ErrorKind::BlockTooShort {
                block_type: self.btype,
            },
            self.start,
        )
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if self.remaining() < n {
            return Err(self.short());
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn u16(&mut self) -> Result<u16, Error> {
        let s = self.take(2)?;
        Ok(self.endian.u16([s[0], s[1]]))
    }

    fn u32(&mut self) -> Result<u32, Error> {
        let s = self.take(4)?;
        Ok(self.endian.u32([s[0], s[1], s[2], s[3]]))
    }

    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }
}

#[derive(Debug)]
pub(crate) struct NgState {
    pub(crate) endian: Endian,
    pub(crate) version: (u16, u16),
    /// LINKTYPE_ of the first interface.
    pub(crate) linktype: u32,
    /// Its link type as stored.
    pub(crate) linktype_field: u32,
    /// libpcap's DLT_ for it, against which later interfaces are compared.
    first_dlt: u32,
    /// Snapshot length of the first interface, adjusted as libpcap does.
    pub(crate) snaplen: u32,
    /// The first interface's snapshot length field as stored.
    pub(crate) snaplen_field: u32,
    /// Interfaces of the current section.
    ifaces: Vec<Iface>,
    /// Whether any interface seen so far has a resolution finer than 1 µs.
    pub(crate) fine: bool,
    /// Interfaces seen in all sections.
    pub(crate) total_ifaces: u64,
    max_block: u32,
}

impl NgState {
    /// Reads the first SHB (its block type has been read) and the blocks up to and
    /// including the first IDB.
    pub(crate) fn open<R: Read>(input: &mut Input<R>) -> Result<NgState, Error> {
        let mut h = [0u8; 8];
        let got = input.fill(&mut h)?;
        if got < h.len() {
            return Err(Error::new(
                ErrorKind::Truncated {
                    part: Part::SectionHeader,
                    needed: 12,
                    got: 4 + got as u64,
                },
                0,
            ));
        }
        let bom = [h[4], h[5], h[6], h[7]];
        let endian = if u32::from_le_bytes(bom) == BYTE_ORDER_MAGIC {
            Endian::Little
        } else if u32::from_be_bytes(bom) == BYTE_ORDER_MAGIC {
            Endian::Big
        } else {
            return Err(Error::new(
                ErrorKind::BadByteOrderMagic {
                    magic: u32::from_be_bytes(bom),
                },
                8,
            ));
        };
        let total = endian.u32([h[0], h[1], h[2], h[3]]);
        if !(28..=SHB_MAX).contains(&total) {
            return Err(Error::new(ErrorKind::BadSectionLength { len: total }, 4));
        }
        let want = (total - 12) as usize;
        let got = input.fill_to(want)?;
        if got < want {
            return Err(Error::new(
                ErrorKind::Truncated {
                    part: Part::SectionHeader,
                    needed: u64::from(total),
                    got: 12 + got as u64,
                },
                0,
            ));
        }
        // The buffer holds file bytes 12..total: versions, section length,
        // options, trailer (total >= 28, so the versions are there).
        let b = input.buffered();
        let major = endian.u16([b[0], b[1]]);
        let minor = endian.u16([b[2], b[3]]);
        input.consume(want);
        if !(major == 1 && (minor == 0 || minor == 2)) {
            return Err(Error::new(
                ErrorKind::UnsupportedPcapngVersion { major, minor },
                12,
            ));
        }

        let mut st = NgState {
            endian,
            version: (major, minor),
            linktype: 0,
            linktype_field: 0,
            first_dlt: 0,
            snaplen: 0,
            snaplen_field: 0,
            ifaces: Vec::new(),
            fine: false,
            total_ifaces: 0,
            max_block: INITIAL_MAX_BLOCK,
        };
        loop {
            let b = match st.read_block(input, true)? {
                BlockStep::Block(b) => b,
                BlockStep::End | BlockStep::Later => {
                    return Err(Error::new(ErrorKind::NoInterfaces, input.offset))
                }
            };
            match b.btype {
                BT_IDB => {
                    let mut c = Cursor::new(b.body(input), endian, &b);
                    let linktype = u32::from(c.u16()?);
                    let _reserved = c.u16()?;
                    let snaplen = c.u32()?;
                    let iface = parse_idb_options(&mut c)?;
                    st.linktype_field = linktype;
                    st.first_dlt = libpcap::linktype_to_dlt(linktype);
                    st.linktype = libpcap::dlt_to_linktype(st.first_dlt).unwrap_or(linktype);
                    st.snaplen_field = snaplen;
                    st.snaplen = libpcap::adjust_snapshot(st.first_dlt, snaplen);
                    let max =
                        libpcap::max_snaplen_for(st.first_dlt).saturating_add(8 + 20 + 131_072 + 4);
                    st.max_block = st.max_block.max(max);
                    st.add_iface(iface);
                    return Ok(st);
                }
                BT_EPB | BT_SPB | BT_PB => {
                    return Err(Error::new(ErrorKind::PacketBeforeInterface, b.start));
                }
                _ => {}
            }
        }
    }

    fn add_iface(&mut self, iface: Iface) {
        if iface.tsresol > 1_000_000 {
            self.fine = true;
        }
        self.total_ifaces += 1;
        self.ifaces.push(iface);
    }

    /// Takes the next block from the input (consuming it); its body stays in the
    /// input buffer. With `may_move` false nothing is read and nothing moves: a
    /// block not wholly buffered gives [`BlockStep::Later`].
    fn read_block<R: Read>(
        &self,
        input: &mut Input<R>,
        may_move: bool,
    ) -> Result<BlockStep, Error> {
        let start = input.offset;
        if input.available() < 8 {
            if !may_move {
                return Ok(BlockStep::Later);
            }
            let got = input.fill_to(8)?;
            if got == 0 {
                return Ok(BlockStep::End);
            }
            if got < 8 {
                return Err(Error::new(
                    ErrorKind::Truncated {
                        part: Part::BlockHeader,
                        needed: 8,
                        got: got as u64,
                    },
                    start,
                ));
            }
        }
        let e = self.endian;
        let h = input.buffered();
        let btype = e.u32([h[0], h[1], h[2], h[3]]);
        let total = e.u32([h[4], h[5], h[6], h[7]]);
        if total < 12 || total & 3 != 0 {
            return Err(Error::new(ErrorKind::BadBlockLength { len: total }, start));
        }
        if total > self.max_block {
            return Err(Error::new(
                ErrorKind::BlockTooLarge {
                    len: total,
                    max: self.max_block,
                },
                start,
            ));
        }
        let want = total as usize;
        if input.available() < want {
            if !may_move {
                return Ok(BlockStep::Later);
            }
            let got = input.fill_to(want)?;
            if got < want {
                return Err(Error::new(
                    ErrorKind::Truncated {
                        part: Part::Block,
                        needed: u64::from(total),
                        got: got as u64,
                    },
                    start,
                ));
            }
        }
        let body_len = want - 12;
        let trailer = arr::<4>(input.buffered(), want - 4).map_or(0, |t| e.u32(t));
        if trailer != total {
            return Err(Error::new(
                ErrorKind::TrailerMismatch {
                    header: total,
                    trailer,
                },
                start,
            ));
        }
        let body_at = input.pos() + 8;
        input.consume(want);
        Ok(BlockStep::Block(Block {
            btype,
            start,
            body_at,
            body_len,
        }))
    }

    /// Reads blocks until the next packet, which is left in the input buffer.
    /// With `may_move` false nothing is read and nothing moves (see
    /// [`NgState::read_block`]).
    pub(crate) fn next<R: Read>(
        &mut self,
        input: &mut Input<R>,
        may_move: bool,
    ) -> Result<Step, Error> {
        loop {
            let b = match self.read_block(input, may_move)? {
                BlockStep::Block(b) => b,
                BlockStep::End => return Ok(Step::End),
                BlockStep::Later => return Ok(Step::Later),
            };
            let mut c = Cursor::new(b.body(input), self.endian, &b);
            let (iface_id, caplen, len, t) = match b.btype {
                BT_EPB => {
                    let id = c.u32()?;
                    let hi = c.u32()?;
                    let lo = c.u32()?;
                    let caplen = c.u32()?;
                    let len = c.u32()?;
                    (id, caplen, len, u64::from(hi) << 32 | u64::from(lo))
                }
                BT_SPB => {
                    let len = c.u32()?;
                    (0, len.min(self.snaplen), len, 0)
                }
                BT_PB => {
                    let id = u32::from(c.u16()?);
                    let _drops = c.u16()?;
                    let hi = c.u32()?;
                    let lo = c.u32()?;
                    let caplen = c.u32()?;
                    let len = c.u32()?;
                    (id, caplen, len, u64::from(hi) << 32 | u64::from(lo))
                }
                BT_IDB => {
                    let linktype = u32::from(c.u16()?);
                    let _reserved = c.u16()?;
                    let snaplen = c.u32()?;
                    // libpcap compares the new LINKTYPE_ with the first one's DLT_.
                    if linktype != self.first_dlt {
                        return Err(Error::new(
                            ErrorKind::LinkTypeMismatch {
                                linktype,
                                first: self.linktype_field,
                            },
                            b.start,
                        ));
                    }
                    if libpcap::adjust_snapshot(self.first_dlt, snaplen) != self.snaplen {
                        return Err(Error::new(
                            ErrorKind::SnaplenMismatch {
                                snaplen,
                                first: self.snaplen,
                            },
                            b.start,
                        ));
                    }
                    let iface = parse_idb_options(&mut c)?;
                    self.add_iface(iface);
                    continue;
                }
                BT_SHB => {
                    let bom = self.endian.u32(c.take(4)?.try_into().unwrap_or([0; 4]));
                    let major = c.u16()?;
                    let _minor = c.u16()?;
                    let _section_len = c.take(8)?;
                    if bom == BYTE_ORDER_MAGIC.swap_bytes() {
                        return Err(Error::new(ErrorKind::ByteOrderChanged, b.start + 8));
                    }
                    if bom != BYTE_ORDER_MAGIC {
                        return Err(Error::new(
                            ErrorKind::BadByteOrderMagic { magic: bom },
                            b.start + 8,
                        ));
                    }
                    if major != 1 {
                        return Err(Error::new(
                            ErrorKind::UnsupportedPcapngVersion {
                                major,
                                minor: _minor,
                            },
                            b.start + 12,
                        ));
                    }
                    self.ifaces.clear();
                    continue;
                }
                _ => continue,
            };

            let Some(&iface) = self.ifaces.get(iface_id as usize) else {
                return Err(Error::new(
                    ErrorKind::UnknownInterface { id: iface_id },
                    b.start,
                ));
            };
            if caplen > self.snaplen {
                return Err(Error::new(
                    ErrorKind::CaplenTooLarge {
                        caplen,
                        limit: self.snaplen,
                        snaplen: true,
                    },
                    b.start,
                ));
            }
            let data_start = b.body_at + c.pos;
            c.take(caplen as usize)?;
            return Ok(Step::Record(Slot {
                rec_start: b.body_at - 8,
                data_start,
                caplen,
                orig_len: len,
                interface: iface_id,
                raw: RawTs::PcapNg {
                    ts: t,
                    tsresol: iface.tsresol,
                    binary: iface.binary,
                    tsoffset: iface.tsoffset,
                },
                stored: false,
            }));
        }
    }
}

/// Parses the options of an IDB (the cursor is past the fixed part), as libpcap's
/// `process_idb_options` does.
fn parse_idb_options(c: &mut Cursor<'_>) -> Result<Iface, Error> {
    let mut iface = Iface {
        tsresol: 1_000_000,
        binary: false,
        tsoffset: 0,
    };
    let mut saw_tsresol = false;
    let mut saw_tsoffset = false;
    let bad = |msg: String, at: u64| Error::new(ErrorKind::BadOption(msg), at);
    while c.remaining() != 0 {
        let at = c.offset();
        let code = c.u16()?;
        let len = c.u16()?;
        let padded = usize::from(len).div_ceil(4) * 4;
        let value = c.take(padded)?;
        match code {
            0 => {
                if len != 0 {
                    return Err(bad(
                        format!("Interface Description Block has opt_endofopt option with length {len} != 0"),
                        at,
                    ));
                }
                break;
            }
            9 => {
                if len != 1 {
                    return Err(bad(
                        format!("Interface Description Block has if_tsresol option with length {len} != 1"),
                        at,
                    ));
                }
                if saw_tsresol {
                    return Err(bad(
                        "Interface Description Block has more than one if_tsresol option".into(),
                        at,
                    ));
                }
                saw_tsresol = true;
                let r = value[0];
                if r & 0x80 != 0 {
                    let shift = r & 0x7f;
                    if shift > 63 {
                        return Err(bad(
                            format!("Interface Description Block if_tsresol option resolution 2^-{shift} is too high"),
                            at,
                        ));
                    }
                    iface.binary = true;
                    iface.tsresol = 1u64 << shift;
                } else {
                    if r > 19 {
                        return Err(bad(
                            format!("Interface Description Block if_tsresol option resolution 10^-{r} is too high"),
                            at,
                        ));
                    }
                    iface.binary = false;
                    iface.tsresol = 10u64.pow(u32::from(r));
                }
            }
            14 => {
                if len != 8 {
                    return Err(bad(
                        format!("Interface Description Block has if_tsoffset option with length {len} != 8"),
                        at,
                    ));
                }
                if saw_tsoffset {
                    return Err(bad(
                        "Interface Description Block has more than one if_tsoffset option".into(),
                        at,
                    ));
                }
                saw_tsoffset = true;
                let v = arr::<8>(value, 0).ok_or_else(|| c.short())?;
                iface.tsoffset = c.endian.u64(v);
            }
            _ => {}
        }
    }
    Ok(iface)
}
