//! An AF_PACKET socket with a TPACKET_V3 receive ring.
//!
//! The ring is `blocks` blocks of `block_size` bytes mapped into this process. The
//! kernel fills a block with packets and hands it over (its status word gains
//! `TP_STATUS_USER`) when it is full or when the block timeout passes; this process
//! reads every packet of the block where it lies, then hands the block back
//! (`TP_STATUS_KERNEL`). Blocks go round in order, so the next block to read is
//! always known.
//!
//! Each packet sits after a `tpacket3_hdr` and a `sockaddr_ll`; the socket asks
//! for [`VLAN_TAG_LEN`] bytes of headroom before it (`PACKET_RESERVE`), so a VLAN tag
//! the kernel took out on receive can be put back in place, as libpcap does, with
//! no copy. A block's frames are read in one pass, as the filter takes them
//! ([`Block::frames`]); the first pass to reach a frame puts its tag back, and a
//! later one, which finds the same in the frame's header, hands it out as it is.

use crate::error::{Error, ErrorKind};
use crate::fanout::Fanout;
use std::cell::Cell;
use std::marker::PhantomData;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// Bytes of an 802.1Q tag.
const VLAN_TAG_LEN: usize = 4;
/// Bytes of a LINUX_SLL2 header, which `-i any` packets are given.
const SLL2_LEN: usize = 20;
/// The pseudo-interface that captures on all interfaces.
pub const ANY: &str = "any";
/// tcpdump's default buffer: 2 MiB.
const DEFAULT_BUFFER: usize = 2 << 20;
/// How long, in milliseconds, a reader may stall on a quiet link before the
/// kernel drops, at the least, when the buffer allows: blocks times the block
/// timeout.
const STALL_MS: usize = 160;
/// Where the `sockaddr_ll` of a frame starts: after the `tpacket3_hdr`, aligned to
/// 16 (`TPACKET_ALIGN`).
const SLL_AT: usize = (std::mem::size_of::<libc::tpacket3_hdr>() + 15) & !15;

/// Which packets of an interface to capture (tcpdump's `-Q`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Direction {
    /// Received and sent.
    #[default]
    InOut,
    /// Received only.
    In,
    /// Sent only.
    Out,
}

/// How to open a [`Ring`].
#[derive(Clone, Debug)]
pub struct Config {
    /// The interface's name.
    pub interface: String,
    /// Bytes kept of each packet (tcpdump's `-s`; 262144 by default).
    pub snaplen: u32,
    /// The ring's size in bytes (tcpdump's `-B`, in KiB there; 2 MiB by default).
    pub buffer_size: usize,
    /// How long the kernel may keep a block that is not full before handing it
    /// over: the latency of a quiet interface (1 ms in immediate mode).
    pub block_timeout: Duration,
    /// Put the interface in promiscuous mode (tcpdump does unless `-p`).
    pub promiscuous: bool,
    /// Which directions to keep.
    pub direction: Direction,
    /// Join PACKET_FANOUT group `id`, which spreads the interface's packets over
    /// the rings in it.
    pub fanout: Option<(u16, Fanout)>,
}

impl Config {
    /// tcpdump's defaults for `interface`.
    pub fn new(interface: &str) -> Config {
        Config {
            interface: interface.to_string(),
            snaplen: 262_144,
            buffer_size: DEFAULT_BUFFER,
            block_timeout: Duration::from_millis(10),
            promiscuous: true,
            direction: Direction::InOut,
            fanout: None,
        }
    }
}

/// What the kernel counted for the ring since it was opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Packets the socket received (tcpdump's "received by filter").
    pub received: u64,
    /// Packets dropped because the ring was full (tcpdump's "dropped by kernel").
    pub dropped: u64,
    /// Times the kernel found the ring full and froze it until a block came back.
    pub frozen: u64,
    /// Blocks this process read (each one wake-up at most).
    pub blocks: u64,
    /// Packets read from those blocks, after the ring's own direction and loopback
    /// checks: what the user-space filter judged in place (a block left before
    /// its end, at `-c`, counts the packets read up to there).
    pub frames: u64,
}

/// An open capture ring on one interface.
pub struct Ring {
    fd: OwnedFd,
    map: *mut u8,
    map_len: usize,
    block_size: usize,
    blocks: usize,
    /// The next block to read.
    next: usize,
    ifindex: i32,
    /// The interface's name, for errors.
    name: String,
    hatype: u16,
    /// `-i any`: a cooked (SOCK_DGRAM) socket on every interface; each packet is
    /// given a LINUX_SLL2 header.
    cooked: bool,
    /// The loopback interface's index: its outgoing packets come back in as
    /// incoming ones, so libpcap drops the outgoing copy, and so does this ring.
    lo_ifindex: i32,
    snaplen: u32,
    direction: Direction,
    stats: Stats,
    /// Blocks and packets read, counted as blocks are handed back (a block borrows
    /// the ring immutably).
    read: Cell<(u64, u64)>,
}

/// The ring's socket, for attaching a kernel filter under it, or duplicating it
/// for a thread that edits the filter while the ring is read.
impl std::os::fd::AsFd for Ring {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

// SAFETY: the mapping is owned by the ring and only reached through `&mut Ring`
// (a `Block` borrows the ring mutably), so moving the ring to another thread moves
// its only user.
unsafe impl Send for Ring {}

/// The largest power of two not above `x` (1 for 0).
fn floor_pow2(x: usize) -> usize {
    1 << (usize::BITS - 1 - (x | 1).leading_zeros())
}

/// `setsockopt(fd, SOL_PACKET, opt, &v)`.
fn set_opt<T>(fd: RawFd, opt: libc::c_int, v: &T, what: &str) -> Result<(), Error> {
    // SAFETY: `v` is a live value of the size passed.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_PACKET,
            opt,
            (v as *const T).cast(),
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        return Err(Error::os(what));
    }
    Ok(())
}

/// `getsockopt(fd, level, opt)` into a `T`.
///
/// # Safety
///
/// All zeros is a value of `T`, and so is anything the kernel writes over them
/// (`T` is plain integers).
unsafe fn get_opt<T>(
    fd: RawFd,
    level: libc::c_int,
    opt: libc::c_int,
    what: &str,
) -> Result<T, Error> {
    let mut v = std::mem::MaybeUninit::<T>::zeroed();
    let mut len = std::mem::size_of::<T>() as libc::socklen_t;
    // SAFETY: `v` has room for `len` bytes.
    let rc = unsafe { libc::getsockopt(fd, level, opt, v.as_mut_ptr().cast(), &mut len) };
    if rc != 0 {
        return Err(Error::os(what));
    }
    // SAFETY: zeroed, then written by the kernel: a value (the caller's promise).
    Ok(unsafe { v.assume_init() })
}

/// The index of interface `name` (for the XDP level, which links to an interface
/// rather than binding a ring to it).
pub fn ifindex(name: &str) -> Result<i32, Error> {
    let c = std::ffi::CString::new(name).map_err(|_| {
        Error::new(
            ErrorKind::NoSuchInterface,
            format!("{name:?}: no such interface"),
        )
    })?;
    // SAFETY: `c` is a NUL-terminated string.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if i == 0 {
        return Err(Error::new(
            ErrorKind::NoSuchInterface,
            format!("{name}: no such device exists"),
        ));
    }
    Ok(i as i32)
}

/// A new `AF_PACKET` socket for every protocol: raw frames, or for `-i any`
/// (`cooked`) frames without their link header (the ring puts an SLL2 one back).
fn packet_socket(name: &str, cooked: bool, proto: u16) -> Result<OwnedFd, Error> {
    let kind = if cooked {
        libc::SOCK_DGRAM
    } else {
        libc::SOCK_RAW
    };
    // SAFETY: plain socket(2).
    let raw = unsafe { libc::socket(libc::AF_PACKET, kind | libc::SOCK_CLOEXEC, proto as i32) };
    if raw < 0 {
        return Err(Error::os(format!("{name}: socket")));
    }
    // SAFETY: `raw` is a new descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(raw) })
}

/// Sets what the ring's frames are before the ring is made: TPACKET_V3, headroom
/// before each packet (for a VLAN tag put back, or an SLL2 header), and for
/// `-Q in` no outgoing packets.
fn frame_options(f: RawFd, name: &str, cooked: bool, direction: Direction) -> Result<(), Error> {
    set_opt(
        f,
        libc::PACKET_VERSION,
        &(libc::tpacket_versions::TPACKET_V3 as libc::c_int),
        &format!("{name}: TPACKET_V3"),
    )?;
    let reserve = if cooked { SLL2_LEN } else { VLAN_TAG_LEN };
    set_opt(
        f,
        libc::PACKET_RESERVE,
        &(reserve as libc::c_uint),
        &format!("{name}: PACKET_RESERVE"),
    )?;
    if direction == Direction::In {
        set_opt(
            f,
            libc::PACKET_IGNORE_OUTGOING,
            &1 as &libc::c_int,
            &format!("{name}: PACKET_IGNORE_OUTGOING"),
        )?;
    }
    Ok(())
}

/// The ring's shape for a buffer of `buffer_size` bytes and blocks retired after
/// `block_timeout`: `(block size, block count, the kernel's request)`.
///
/// Blocks of at least 128 KiB (a 64 KiB GSO packet with its headers fits) and at
/// most 1 MiB, a power of two pages; at least 4 of them. The kernel hands a block
/// over when it is full *or* when the block timeout passes, so on a quiet or
/// bursty link the number of blocks times the timeout is how long the reader may
/// stall before the kernel drops: as many blocks as STALL_MS of timeouts takes,
/// from 16 to 64 (64 in immediate mode, a 1 ms timeout), as the buffer allows. No
/// more: on a busy link each block is a wake-up of the reader, and at 4 MiB, 16
/// blocks of 256 KiB (libpcap's size) rather than 32 of 128 KiB took 7% less CPU
/// per packet.
fn geometry(buffer_size: usize, block_timeout: Duration) -> (usize, usize, libc::tpacket_req3) {
    let want = buffer_size.max(4 << 17);
    let timeout_ms = block_timeout.as_millis().clamp(1, STALL_MS as u128) as usize;
    let count = (STALL_MS / timeout_ms).clamp(16, 64);
    let block_size = floor_pow2(want / count).clamp(1 << 17, 1 << 20);
    let blocks = (want / block_size).max(4);
    let frame_size = 1 << 11;
    let req = libc::tpacket_req3 {
        tp_block_size: block_size as u32,
        tp_block_nr: blocks as u32,
        tp_frame_size: frame_size,
        tp_frame_nr: (block_size / frame_size as usize * blocks) as u32,
        tp_retire_blk_tov: block_timeout.as_millis().clamp(1, u32::MAX as u128) as u32,
        tp_sizeof_priv: 0,
        tp_feature_req_word: 0,
    };
    (block_size, blocks, req)
}

/// Has the kernel make the ring `req` describes and maps its `map_len` bytes
/// shared; the caller owns the mapping.
fn map_ring(
    f: RawFd,
    name: &str,
    req: &libc::tpacket_req3,
    map_len: usize,
) -> Result<*mut u8, Error> {
    set_opt(
        f,
        libc::PACKET_RX_RING,
        req,
        &format!("{name}: PACKET_RX_RING"),
    )?;
    // SAFETY: a fresh shared mapping of the ring the kernel just made.
    let map = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            map_len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            f,
            0,
        )
    };
    if map == libc::MAP_FAILED {
        return Err(Error::os(format!("{name}: mmap of the ring")));
    }
    Ok(map.cast())
}

/// Binds the socket to interface `index` (0: every interface) for protocol
/// `proto` and returns the interface's ARPHRD hardware type, as the kernel
/// reports it back.
fn bind_to(f: RawFd, name: &str, proto: u16, index: i32) -> Result<u16, Error> {
    // SAFETY: zeroed sockaddr_ll is a valid value.
    let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
    sll.sll_family = libc::AF_PACKET as u16;
    sll.sll_protocol = proto;
    sll.sll_ifindex = index;
    // SAFETY: `sll` is a sockaddr_ll of the size passed.
    let rc = unsafe {
        libc::bind(
            f,
            (&sll as *const libc::sockaddr_ll).cast(),
            std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        return Err(Error::os(format!("{name}: bind")));
    }
    let mut len = std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t;
    // SAFETY: `sll` has room for `len` bytes.
    let rc = unsafe { libc::getsockname(f, (&mut sll as *mut libc::sockaddr_ll).cast(), &mut len) };
    if rc != 0 {
        return Err(Error::os(format!("{name}: getsockname")));
    }
    Ok(sll.sll_hatype)
}

/// Puts interface `index` into promiscuous mode for as long as the socket lives.
fn promiscuous(f: RawFd, name: &str, index: i32) -> Result<(), Error> {
    let mreq = libc::packet_mreq {
        mr_ifindex: index,
        mr_type: libc::PACKET_MR_PROMISC as u16,
        mr_alen: 0,
        mr_address: [0; 8],
    };
    set_opt(
        f,
        libc::PACKET_ADD_MEMBERSHIP,
        &mreq,
        &format!("{name}: promiscuous mode"),
    )
}

/// Joins fanout group `id`, which spreads packets over its rings as `how` says.
fn join_fanout(f: RawFd, name: &str, id: u16, how: Fanout) -> Result<(), Error> {
    let mode = match how {
        // No PACKET_FANOUT_FLAG_DEFRAG: it makes the kernel reassemble IP
        // fragments before the rings see them, so the capture would no
        // longer hold the packets as they were on the wire.
        Fanout::FlowHash => libc::PACKET_FANOUT_HASH,
        Fanout::HostPair => libc::PACKET_FANOUT_CBPF,
        Fanout::RoundRobin => libc::PACKET_FANOUT_LB,
    };
    let arg = id as u32 | mode << 16;
    set_opt(
        f,
        libc::PACKET_FANOUT,
        &arg,
        &format!("{name}: PACKET_FANOUT group {id}"),
    )?;
    if how == Fanout::HostPair {
        // The group's program; every member sets the same one, so the
        // group is complete whichever ring joined first.
        let mut prog = crate::fanout::host_pair_program();
        let fprog = libc::sock_fprog {
            len: prog.len() as u16,
            filter: prog.as_mut_ptr(),
        };
        set_opt(
            f,
            libc::PACKET_FANOUT_DATA,
            &fprog,
            &format!("{name}: PACKET_FANOUT_DATA (host-pair program)"),
        )?;
    }
    Ok(())
}

impl Ring {
    /// Opens a ring on `cfg.interface` and starts capturing.
    pub fn open(cfg: &Config) -> Result<Ring, Error> {
        let name = &cfg.interface;
        let cooked = name == ANY;
        let index = if cooked { 0 } else { ifindex(name)? };
        let lo_ifindex = ifindex("lo").unwrap_or(-1);
        let proto = (libc::ETH_P_ALL as u16).to_be();
        let fd = packet_socket(name, cooked, proto)?;
        let f = fd.as_raw_fd();
        frame_options(f, name, cooked, cfg.direction)?;
        let (block_size, blocks, req) = geometry(cfg.buffer_size, cfg.block_timeout);
        let map_len = block_size * blocks;
        let map = map_ring(f, name, &req, map_len)?;
        // From here the mapping is the ring's: dropping it unmaps.
        let mut ring = Ring {
            fd,
            map,
            map_len,
            block_size,
            blocks,
            next: 0,
            ifindex: index,
            name: name.clone(),
            hatype: 0,
            cooked,
            lo_ifindex,
            snaplen: cfg.snaplen.max(1),
            direction: cfg.direction,
            stats: Stats::default(),
            read: Cell::new((0, 0)),
        };
        ring.hatype = bind_to(f, name, proto, index)?;
        // `any` has no promiscuous mode (libpcap warns and goes on without it).
        if cfg.promiscuous && !cooked {
            promiscuous(f, name, index)?;
        }
        if let Some((id, how)) = cfg.fanout {
            join_fanout(f, name, id, how)?;
        }
        Ok(ring)
    }

    /// The interface's ARPHRD hardware type (1 for Ethernet, 772 for loopback).
    pub fn hardware_type(&self) -> u16 {
        self.hatype
    }

    /// Whether this is `-i any`: packets carry a LINUX_SLL2 header.
    pub fn cooked(&self) -> bool {
        self.cooked
    }

    /// The interface's index (0 for `any`).
    pub fn ifindex(&self) -> i32 {
        self.ifindex
    }

    /// The socket, for attaching a kernel filter or polling.
    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// The status word of block `i`, which the kernel and this process hand the
    /// block over with.
    fn status(&self, i: usize) -> &AtomicU32 {
        // SAFETY: block `i` is inside the mapping, its descriptor starts with
        // `version` and `offset_to_priv` (8 bytes), then `block_status`, a u32 at
        // an aligned address; the kernel writes it concurrently, so it is read and
        // written only atomically.
        unsafe { &*(self.map.add(i * self.block_size + 8) as *const AtomicU32) }
    }

    /// The next block of packets, waiting up to `timeout` for the kernel to hand
    /// one over; `None` if it did not. Dropping the block hands it back.
    pub fn next_block(&mut self, timeout: Duration) -> Result<Option<Block<'_>>, Error> {
        if self.status(self.next).load(Ordering::Acquire) & libc::TP_STATUS_USER == 0 {
            let mut p = libc::pollfd {
                fd: self.fd(),
                events: libc::POLLIN | libc::POLLERR,
                revents: 0,
            };
            let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
            // SAFETY: one pollfd.
            let rc = unsafe { libc::poll(&mut p, 1, ms) };
            if rc < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    return Ok(None);
                }
                return Err(Error::os("poll"));
            }
            if self.status(self.next).load(Ordering::Acquire) & libc::TP_STATUS_USER == 0 {
                if p.revents & libc::POLLERR != 0 {
                    self.take_error()?;
                }
                return Ok(None);
            }
        }
        let i = self.next;
        self.next = (self.next + 1) % self.blocks;
        // Block `i`'s status says the kernel handed it over, so until it is handed
        // back (the block's drop) only this process touches it, and `&mut self`
        // makes this the only block borrowed.
        Ok(Some(Block::new(self, i)))
    }

    /// Reads (and so clears) the socket's pending error, which makes every poll
    /// return at once until it is read: the kernel sets ENETDOWN when the
    /// interface goes down or away. Down, the ring waits for it to come back up,
    /// as libpcap does; gone, it is an error ("The interface disappeared", in
    /// libpcap's words).
    #[cold]
    fn take_error(&mut self) -> Result<(), Error> {
        // SAFETY: an int.
        let err: libc::c_int =
            unsafe { get_opt(self.fd(), libc::SOL_SOCKET, libc::SO_ERROR, "SO_ERROR")? };
        match err {
            0 => Ok(()),
            libc::ENETDOWN if self.interface_exists() => Ok(()),
            libc::ENETDOWN => Err(Error::new(
                ErrorKind::NoSuchInterface,
                format!("{}: the interface disappeared", self.name),
            )),
            e => Err(Error::with_source(
                ErrorKind::Os,
                format!("{}: capture", self.name),
                std::io::Error::from_raw_os_error(e),
            )),
        }
    }

    /// Whether the ring's interface is still there (in this process's
    /// namespace).
    fn interface_exists(&self) -> bool {
        let mut name = [0 as libc::c_char; libc::IF_NAMESIZE];
        // SAFETY: `name` has the IF_NAMESIZE bytes if_indextoname may write.
        let r = unsafe { libc::if_indextoname(self.ifindex as u32, name.as_mut_ptr()) };
        !r.is_null()
    }

    /// What the kernel counted since the ring was opened.
    pub fn stats(&mut self) -> Result<Stats, Error> {
        // SAFETY: three u32 counters.
        let s: libc::tpacket_stats_v3 = unsafe {
            get_opt(
                self.fd(),
                libc::SOL_PACKET,
                libc::PACKET_STATISTICS,
                "PACKET_STATISTICS",
            )?
        };
        // Reading the counters resets them: keep the sums.
        self.stats.received += s.tp_packets as u64;
        self.stats.dropped += s.tp_drops as u64;
        self.stats.frozen += s.tp_freeze_q_cnt as u64;
        (self.stats.blocks, self.stats.frames) = self.read.get();
        Ok(self.stats)
    }
}

impl Drop for Ring {
    fn drop(&mut self) {
        // SAFETY: the mapping was made by `open` with this length, and no block
        // borrows the ring any more.
        unsafe { libc::munmap(self.map.cast(), self.map_len) };
    }
}

/// A block of packets handed over by the kernel; handed back when dropped.
///
/// Its frames are read in one pass ([`Block::frames`]), straight from the block's
/// headers: nothing is collected first, so a frame's header and its bytes are
/// touched once, by the walk that hands the frame to the filter.
pub struct Block<'r> {
    status: &'r AtomicU32,
    /// The block's memory, `len` bytes. A pointer rather than a slice: a walk puts
    /// each kept frame's VLAN tag (or SLL2 header) in place just before handing the
    /// frame out, while the frames it handed out before are still borrowed.
    mem: *mut u8,
    len: usize,
    /// The packet count and the offset of the first packet, from the block's
    /// descriptor.
    num: u32,
    first: usize,
    how: Walk,
    /// Frames at offsets below this have been passed by a walk, which put their
    /// tags back: a later walk hands them out as they are.
    done: Cell<usize>,
    /// Kept frames those walks passed, for the ring's [`Stats::frames`].
    kept: Cell<u64>,
    /// The ring's count of blocks and frames read, updated when the block goes.
    read: &'r Cell<(u64, u64)>,
    _block: PhantomData<&'r mut [u8]>,
}

/// What walking a block needs of its ring.
#[derive(Clone, Copy)]
struct Walk {
    cooked: bool,
    lo_ifindex: i32,
    snaplen: u32,
    direction: Direction,
}

/// Bytes of a `sockaddr_ll`.
const SLL_LEN: usize = std::mem::size_of::<libc::sockaddr_ll>();

impl<'r> Block<'r> {
    fn new(ring: &'r Ring, i: usize) -> Block<'r> {
        // SAFETY: block `i` lies inside the mapping.
        let mem = unsafe { ring.map.add(i * ring.block_size) };
        // SAFETY: the block descriptor (`tpacket_block_desc`) is at the start of
        // the block: `num_pkts` at 12, `offset_to_first_pkt` at 16.
        let (num, first) = unsafe {
            (
                std::ptr::read_unaligned(mem.add(12).cast::<u32>()),
                std::ptr::read_unaligned(mem.add(16).cast::<u32>()),
            )
        };
        Block {
            status: ring.status(i),
            mem,
            len: ring.block_size,
            num,
            first: first as usize,
            how: Walk {
                cooked: ring.cooked,
                lo_ifindex: ring.lo_ifindex,
                snaplen: ring.snaplen,
                direction: ring.direction,
            },
            done: Cell::new(0),
            kept: Cell::new(0),
            read: &ring.read,
            _block: PhantomData,
        }
    }

    /// The block's packets, in the order the kernel wrote them, read as the
    /// iterator goes.
    pub fn frames(&self) -> Frames<'_> {
        Frames {
            block: self,
            at: self.first,
            left: self.num,
            fetched: self.first,
        }
    }

    /// How many packets the block holds (after the direction filter): a walk.
    pub fn len(&self) -> usize {
        self.frames().count()
    }

    /// Whether the block holds no packet for this ring.
    pub fn is_empty(&self) -> bool {
        self.frames().next().is_none()
    }

    /// What putting back what the kernel took out of the frame whose header is
    /// at `at` and whose bytes start at `start` adds before those bytes, as libpcap
    /// does: an SLL2 header (`-i any`), a VLAN tag, or nothing. Read from the
    /// header and the `sockaddr_ll`, which putting back leaves as they are, so
    /// every walk finds the same.
    #[inline(always)]
    fn put_back(&self, h: &libc::tpacket3_hdr, at: usize, start: usize) -> usize {
        // The headroom PACKET_RESERVE left starts after the sockaddr_ll.
        let room = start.saturating_sub(at + SLL_AT + SLL_LEN);
        if self.how.cooked {
            if room >= SLL2_LEN {
                SLL2_LEN
            } else {
                0
            }
        } else if h.tp_status & libc::TP_STATUS_VLAN_VALID != 0
            && h.tp_snaplen >= 12
            && room >= VLAN_TAG_LEN
        {
            VLAN_TAG_LEN
        } else {
            0
        }
    }

    /// Writes what [`Block::put_back`] said (`add` bytes) in place before the
    /// frame's bytes at `start`.
    ///
    /// # Safety
    ///
    /// The header and `sockaddr_ll` at `at` lie inside the block, `add` is what
    /// `put_back` returned for the frame, no frame handed out covers
    /// `start - add..start + 12`, and this is the first time for this frame.
    #[inline(never)]
    unsafe fn write_back(&self, h: &libc::tpacket3_hdr, at: usize, start: usize, add: usize) {
        let m = self.mem;
        if add == SLL2_LEN {
            // libpcap's LINUX_SLL2 header, built from the sockaddr_ll.
            // SAFETY: the sockaddr_ll is inside the block (the caller's promise).
            let sll: libc::sockaddr_ll =
                unsafe { std::ptr::read_unaligned(m.add(at + SLL_AT).cast()) };
            let halen = (sll.sll_halen as usize).min(8);
            let mut hdr = [0u8; SLL2_LEN];
            hdr[0..2].copy_from_slice(&sll.sll_protocol.to_ne_bytes());
            hdr[4..8].copy_from_slice(&sll.sll_ifindex.to_be_bytes());
            hdr[8..10].copy_from_slice(&sll.sll_hatype.to_be_bytes());
            hdr[10] = sll.sll_pkttype;
            hdr[11] = sll.sll_halen;
            hdr[12..12 + halen].copy_from_slice(&sll.sll_addr[..halen]);
            // SAFETY: the SLL2_LEN bytes before `start` are headroom.
            unsafe {
                std::ptr::copy_nonoverlapping(hdr.as_ptr(), m.add(start - SLL2_LEN), SLL2_LEN)
            };
        } else if add == VLAN_TAG_LEN {
            // libpcap puts a tag the kernel took out back after the two MAC
            // addresses, using the headroom before them.
            let tpid = h.hv1.tp_vlan_tpid;
            let tpid = if h.tp_status & libc::TP_STATUS_VLAN_TPID_VALID != 0 && tpid != 0 {
                tpid
            } else {
                0x8100
            };
            let mut tag = [0u8; VLAN_TAG_LEN];
            tag[0..2].copy_from_slice(&tpid.to_be_bytes());
            tag[2..4].copy_from_slice(&(h.hv1.tp_vlan_tci as u16).to_be_bytes());
            // SAFETY: the 4 bytes before `start` are headroom and the frame has at
            // least 12 bytes.
            unsafe {
                std::ptr::copy(m.add(start), m.add(start - VLAN_TAG_LEN), 12);
                std::ptr::copy_nonoverlapping(tag.as_ptr(), m.add(start + 8), VLAN_TAG_LEN);
            }
        }
    }
}

impl Drop for Block<'_> {
    fn drop(&mut self) {
        let (blocks, frames) = self.read.get();
        self.read.set((blocks + 1, frames + self.kept.get()));
        // Hand the block back: the kernel may write it from now on.
        self.status.store(libc::TP_STATUS_KERNEL, Ordering::Release);
    }
}

/// How far ahead of the frame being read the walk asks for the block's memory.
/// The kernel wrote the block on the CPU that received the packets, most often
/// another one, so the walk's first touch of each cache line is a miss; asked for
/// a dozen frames of a busy link ahead, the lines come in while the filter works
/// on the frames before them.
const PREFETCH: usize = 2048;

/// Asks for the cache line at `p`.
#[inline(always)]
fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it reads nothing architecturally and cannot
    // fault.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// A walk over a block's frames ([`Block::frames`]).
pub struct Frames<'b> {
    block: &'b Block<'b>,
    /// Where the next frame's header is.
    at: usize,
    /// Packets of the block not yet walked over.
    left: u32,
    /// Where prefetching has got to.
    fetched: usize,
}

impl<'b> Frames<'b> {
    /// Puts the next frames into `out`, as many as fit and are left; returns how
    /// many. The same frames as [`Iterator::next`] gives one at a time, with
    /// nothing handed back through an `Option` per frame.
    pub fn fill(&mut self, out: &mut [Frame<'b>]) -> usize {
        let mut n = 0;
        while n < out.len() {
            match self.walk() {
                Some(f) => out[n] = f,
                None => break,
            }
            n += 1;
        }
        n
    }

    /// The next frame handed out, fixed up the first time a walk passes it.
    #[inline(always)]
    fn walk(&mut self) -> Option<Frame<'b>> {
        let b = self.block;
        while self.left > 0 {
            self.left -= 1;
            let at = self.at;
            if at + SLL_AT + SLL_LEN > b.len {
                break;
            }
            let ahead = (at + PREFETCH).min(b.len);
            while self.fetched < ahead {
                // Inside the block, which is this process's until it goes back.
                prefetch(b.mem.wrapping_add(self.fetched));
                self.fetched += 64;
            }
            // SAFETY: the header and the sockaddr_ll after it are inside the block,
            // and no frame handed out covers them (a frame's bytes start after them).
            let (h, sll): (libc::tpacket3_hdr, libc::sockaddr_ll) = unsafe {
                (
                    std::ptr::read_unaligned(b.mem.add(at).cast()),
                    std::ptr::read_unaligned(b.mem.add(at + SLL_AT).cast()),
                )
            };
            let next = h.tp_next_offset as usize;
            // The frame ends where the next one starts (the last at the block's end).
            let end = if next == 0 {
                self.left = 0;
                b.len
            } else {
                self.at = at + next;
                (at + next).min(b.len)
            };
            let outgoing = sll.sll_pkttype == libc::PACKET_OUTGOING;
            // As libpcap's linux_check_direction: the outgoing copy of a loopback
            // packet goes (it comes back in), then the direction asked for.
            let keep = !(outgoing && sll.sll_ifindex == b.how.lo_ifindex)
                && match b.how.direction {
                    Direction::InOut => true,
                    Direction::In => !outgoing,
                    Direction::Out => outgoing,
                };
            let start = at + h.tp_mac as usize;
            let fresh = at >= b.done.get();
            if fresh {
                b.done.set(at + 1);
            }
            if !keep || start + h.tp_snaplen as usize > end {
                continue;
            }
            let add = b.put_back(&h, at, start);
            if fresh {
                b.kept.set(b.kept.get() + 1);
                if add > 0 {
                    // SAFETY: the frame lies in `at..end`, after every frame handed
                    // out (frames go forward, and none at or after `at` was walked
                    // yet); `add` is what `put_back` said.
                    unsafe { b.write_back(&h, at, start, add) };
                }
            }
            let start = start - add;
            let cap = (h.tp_snaplen + add as u32).min(b.how.snaplen) as usize;
            // SAFETY: `start..start + cap` is inside this frame (checked against
            // `end` above; putting back only moves the start into the headroom),
            // which no walk writes again.
            let data = unsafe { std::slice::from_raw_parts(b.mem.add(start), cap) };
            return Some(Frame {
                data,
                wire_len: h.tp_len + add as u32,
                sec: h.tp_sec,
                nsec: h.tp_nsec,
                outgoing,
                tag_put_back: add == VLAN_TAG_LEN,
            });
        }
        None
    }
}

impl<'b> Iterator for Frames<'b> {
    type Item = Frame<'b>;

    fn next(&mut self) -> Option<Frame<'b>> {
        self.walk()
    }
}

/// One captured packet, as a capture file would record it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Frame<'a> {
    /// The captured bytes (at most the snap length), VLAN tag put back.
    pub data: &'a [u8],
    /// The packet's length on the wire (with the tag).
    pub wire_len: u32,
    /// Time stamp: seconds since the epoch.
    pub sec: u32,
    /// Time stamp: nanoseconds.
    pub nsec: u32,
    /// Sent by this host (`PACKET_OUTGOING`), not received: what libpcap's
    /// `inbound` and `outbound` test on a link header without a direction field.
    pub outgoing: bool,
    /// The kernel took a VLAN tag out of the frame (`TP_STATUS_VLAN_VALID`), which
    /// is put back at bytes 12 to 15 of `data`: libpcap's kernel filter reads
    /// such a frame without the tag.
    pub tag_put_back: bool,
}
