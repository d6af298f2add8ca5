//! The AF_XDP socket of a zero-copy group ([`crate::CopyMode::Zero`]): its
//! UMEM is the group's frame ring ([`crate::frames`]), bound to receive
//! queue 0 of an interface in zero-copy driver mode where the driver has it
//! (`XDP_ZEROCOPY`: the NIC writes the frames by DMA), else in copy mode
//! (`XDP_COPY`: the kernel copies each frame into the UMEM once, in the
//! receive path; veth is such a driver). Either way the writer copies no
//! packet byte. One queue: frames go to the kernel, and come back, in the
//! frame ring's order, which one fill ring and one RX ring keep.
//!
//! A frame the RX ring returns ([`RxDesc`]) is the writer's until it goes
//! back through the fill ring: the kernel finished writing it before it
//! published the descriptor, and writes it again only once refilled, so
//! [`crate::Group::frame`] may lend its bytes as a slice to run filters on.
//!
//! Also here: [`addresses`], the interface's IP addresses, for the daemon's
//! guard against redirecting an interface that carries the host's traffic.

use std::ffi::CStr;
use std::net::IpAddr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};

/// The region to register as an AF_XDP UMEM: a frame ring's data area
/// ([`crate::frames::FrameRing::umem`]).
#[derive(Clone, Copy, Debug)]
pub struct Umem {
    /// Its first byte (page-aligned). Valid while the group lives; the
    /// writer reads and writes only the record headers through its own
    /// atomics, so only the kernel may write here.
    pub addr: NonNull<u8>,
    /// Its length, `C`: frames × frame size.
    pub len: u64,
    /// The frame (chunk) size.
    pub frame: u32,
}

fn os(what: &str) -> String {
    format!("{what}: {}", std::io::Error::last_os_error())
}

/// One of the socket's rings, mapped: a producer and a consumer index and
/// `size` descriptors of `desc` bytes.
struct Ring {
    base: NonNull<u8>,
    len: usize,
    producer: usize,
    consumer: usize,
    desc: usize,
    desc_size: usize,
    size: u32,
}

// SAFETY: the mapping is the socket's, used by the one thread that owns the
// `Xsk`; moving it to that thread is all that happens.
unsafe impl Send for Ring {}

impl Ring {
    fn map(
        xsk: RawFd,
        off: &libc::xdp_ring_offset,
        size: u32,
        desc_size: usize,
        pgoff: i64,
    ) -> Result<Ring, String> {
        let len = off.desc as usize + size as usize * desc_size;
        // SAFETY: a fresh shared mapping of the socket's ring at the offset
        // the kernel documents for it; unmapped on drop.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_POPULATE,
                xsk,
                pgoff,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(os("mapping an AF_XDP ring"));
        }
        Ok(Ring {
            base: NonNull::new(p.cast()).ok_or("mmap returned null")?,
            len,
            producer: off.producer as usize,
            consumer: off.consumer as usize,
            desc: off.desc as usize,
            desc_size,
            size,
        })
    }

    fn word(&self, off: usize) -> &AtomicU32 {
        // SAFETY: `off` is the kernel's offset of a 4-aligned index inside
        // the mapping, which the kernel and this process both access
        // atomically.
        unsafe { AtomicU32::from_ptr(self.base.as_ptr().add(off).cast()) }
    }

    fn slot(&self, i: u32) -> *mut u8 {
        // SAFETY: `i % size` keeps the slot inside the descriptor array.
        unsafe {
            self.base
                .as_ptr()
                .add(self.desc + (i % self.size) as usize * self.desc_size)
        }
    }
}

impl Drop for Ring {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `Ring::map`, with its length.
        unsafe { libc::munmap(self.base.as_ptr().cast(), self.len) };
    }
}

fn setsockopt<T>(fd: RawFd, opt: i32, v: &T, what: &str) -> Result<(), String> {
    // SAFETY: `v` is a live value of the type the option takes.
    let r = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_XDP,
            opt,
            (v as *const T).cast(),
            std::mem::size_of::<T>() as u32,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(os(what))
    }
}

fn getsockopt<T>(fd: RawFd, opt: i32, what: &str) -> Result<T, String> {
    // SAFETY: the kernel fills the value; an all-zero one of these plain C
    // structures is valid meanwhile.
    let mut v: T = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<T>() as u32;
    // SAFETY: `v` and `len` live through the call and say its size.
    let r =
        unsafe { libc::getsockopt(fd, libc::SOL_XDP, opt, (&mut v as *mut T).cast(), &mut len) };
    if r == 0 {
        Ok(v)
    } else {
        Err(os(what))
    }
}

/// A frame the kernel filled, from the RX ring of an [`Xsk`]: its UMEM
/// address and length. Only [`Xsk::peek`] makes one.
#[derive(Clone, Copy, Debug)]
pub struct RxDesc {
    addr: u64,
    len: u32,
    /// The UMEM's first byte, to tell which UMEM the frame is in.
    umem: usize,
}

impl RxDesc {
    /// Its UMEM address (`xdp_desc.addr`).
    pub fn addr(&self) -> u64 {
        self.addr
    }

    /// Its length (`xdp_desc.len`).
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn umem(&self) -> usize {
        self.umem
    }

    /// A descriptor as the kernel would publish it, for unit tests.
    #[cfg(test)]
    pub(crate) fn made(addr: u64, len: u32, umem: usize) -> RxDesc {
        RxDesc { addr, len, umem }
    }
}

/// How the socket was bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The driver writes the UMEM itself.
    ZeroCopy,
    /// The kernel copies each frame into the UMEM (no driver support).
    Copy,
}

/// A bound AF_XDP socket with its fill and RX rings.
pub struct Xsk {
    fd: OwnedFd,
    fill: Ring,
    rx: Ring,
    umem: usize,
    /// How it was bound.
    pub mode: Mode,
}

impl Xsk {
    /// A socket on queue 0 of `ifindex` with `umem` as its UMEM: zero-copy
    /// driver mode where the driver has it, else copy mode.
    pub fn open(ifindex: u32, umem: Umem) -> Result<Xsk, String> {
        match Xsk::open_mode(ifindex, umem, Mode::ZeroCopy) {
            Ok(x) => Ok(x),
            Err(_) => Xsk::open_mode(ifindex, umem, Mode::Copy),
        }
    }

    fn open_mode(ifindex: u32, umem: Umem, mode: Mode) -> Result<Xsk, String> {
        // SAFETY: a new socket, owned at once below.
        let raw = unsafe { libc::socket(libc::AF_XDP, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
        if raw < 0 {
            return Err(os("an AF_XDP socket"));
        }
        // SAFETY: a descriptor the kernel just returned that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let reg = libc::xdp_umem_reg {
            addr: umem.addr.as_ptr() as u64,
            len: umem.len,
            chunk_size: umem.frame,
            headroom: 0,
            flags: 0,
            tx_metadata_len: 0,
        };
        setsockopt(raw, libc::XDP_UMEM_REG, &reg, "XDP_UMEM_REG")?;
        // Every frame may be the kernel's at once, or waiting in RX.
        let frames = (umem.len / u64::from(umem.frame)) as u32;
        for opt in [
            libc::XDP_UMEM_FILL_RING,
            libc::XDP_UMEM_COMPLETION_RING,
            libc::XDP_RX_RING,
        ] {
            setsockopt(raw, opt, &frames, "an AF_XDP ring's size")?;
        }
        let off: libc::xdp_mmap_offsets =
            getsockopt(raw, libc::XDP_MMAP_OFFSETS, "XDP_MMAP_OFFSETS")?;
        let fill = Ring::map(
            raw,
            &off.fr,
            frames,
            8,
            libc::XDP_UMEM_PGOFF_FILL_RING as i64,
        )?;
        let rx = Ring::map(
            raw,
            &off.rx,
            frames,
            std::mem::size_of::<libc::xdp_desc>(),
            libc::XDP_PGOFF_RX_RING,
        )?;
        // SAFETY: an all-zero sockaddr_xdp is valid; the fields set below
        // bind queue 0 of the interface.
        let mut sx: libc::sockaddr_xdp = unsafe { std::mem::zeroed() };
        sx.sxdp_family = libc::AF_XDP as u16;
        sx.sxdp_ifindex = ifindex;
        sx.sxdp_queue_id = 0;
        sx.sxdp_flags = match mode {
            Mode::ZeroCopy => libc::XDP_ZEROCOPY,
            Mode::Copy => libc::XDP_COPY,
        };
        // SAFETY: `sx` lives through the call, with its size.
        let r = unsafe {
            libc::bind(
                raw,
                (&sx as *const libc::sockaddr_xdp).cast(),
                std::mem::size_of::<libc::sockaddr_xdp>() as u32,
            )
        };
        if r != 0 {
            return Err(os("binding the AF_XDP socket"));
        }
        Ok(Xsk {
            fd,
            fill,
            rx,
            umem: umem.addr.as_ptr() as usize,
            mode,
        })
    }

    /// Its descriptor, for an XSKMAP.
    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Waits up to `ms` for frames in RX.
    pub fn wait(&self, ms: i32) {
        let mut p = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one live pollfd.
        unsafe { libc::poll(&mut p, 1, ms) };
    }

    /// Descriptors waiting in RX.
    pub fn pending(&self) -> u32 {
        let cons = self.rx.word(self.rx.consumer).load(Ordering::Relaxed);
        let prod = self.rx.word(self.rx.producer).load(Ordering::Acquire);
        prod.wrapping_sub(cons)
    }

    /// The descriptors waiting in RX, at most `max`: appended to `out`;
    /// they stay the daemon's until [`Xsk::release`].
    pub fn peek(&self, max: u32, out: &mut Vec<RxDesc>) -> u32 {
        let cons = self.rx.word(self.rx.consumer).load(Ordering::Relaxed);
        let prod = self.rx.word(self.rx.producer).load(Ordering::Acquire);
        let n = prod.wrapping_sub(cons).min(max);
        for i in 0..n {
            // SAFETY: a descriptor the kernel published (below the producer
            // it released) and the daemon has not consumed.
            let d = unsafe {
                self.rx
                    .slot(cons.wrapping_add(i))
                    .cast::<libc::xdp_desc>()
                    .read_unaligned()
            };
            out.push(RxDesc {
                addr: d.addr,
                len: d.len,
                umem: self.umem,
            });
        }
        n
    }

    /// The first `n` descriptors of RX are consumed.
    pub fn release(&self, n: u32) {
        let c = self.rx.word(self.rx.consumer);
        c.store(c.load(Ordering::Relaxed).wrapping_add(n), Ordering::Release);
    }

    /// Gives the kernel the frames at `addrs`.
    pub fn fill(&self, addrs: &[u64]) {
        let prod = self.fill.word(self.fill.producer).load(Ordering::Relaxed);
        for (i, a) in addrs.iter().enumerate() {
            // SAFETY: a slot of the fill ring the kernel has consumed: the
            // ring has a slot per frame and the frame ring never hands out
            // a frame twice, so never more are outstanding.
            unsafe {
                self.fill
                    .slot(prod.wrapping_add(i as u32))
                    .cast::<u64>()
                    .write_unaligned(*a)
            };
        }
        self.fill
            .word(self.fill.producer)
            .store(prod.wrapping_add(addrs.len() as u32), Ordering::Release);
    }

    /// Frames the kernel dropped for this socket: no free frame in the fill
    /// ring or too long for a frame (`rx_dropped`; `rx_fill_ring_empty_descs`
    /// counts the first of these again, so it is left out), or no room in RX.
    pub fn dropped(&self) -> u64 {
        getsockopt::<libc::xdp_statistics>(
            self.fd.as_raw_fd(),
            libc::XDP_STATISTICS,
            "XDP_STATISTICS",
        )
        .map_or(0, |s| s.rx_dropped + s.rx_ring_full)
    }
}

/// The IP addresses `iface` has (`getifaddrs`).
pub fn addresses(iface: &str) -> Vec<IpAddr> {
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: `list` receives a list libc allocates, freed below.
    if unsafe { libc::getifaddrs(&mut list) } != 0 {
        return Vec::new();
    }
    let mut found = Vec::new();
    let mut p = list;
    while !p.is_null() {
        // SAFETY: a node of the list getifaddrs returned, not yet freed.
        let ifa = unsafe { &*p };
        p = ifa.ifa_next;
        // SAFETY: `ifa_name` is a NUL-terminated string of the node.
        let name = unsafe { CStr::from_ptr(ifa.ifa_name) };
        if ifa.ifa_addr.is_null() || name.to_bytes() != iface.as_bytes() {
            continue;
        }
        // SAFETY: a non-null address of the node; its family says its type.
        let family = i32::from(unsafe { (*ifa.ifa_addr).sa_family });
        if family == libc::AF_INET {
            // SAFETY: an AF_INET address is a sockaddr_in.
            let a = unsafe { &*ifa.ifa_addr.cast::<libc::sockaddr_in>() };
            found.push(IpAddr::from(u32::from_be(a.sin_addr.s_addr).to_be_bytes()));
        } else if family == libc::AF_INET6 {
            // SAFETY: an AF_INET6 address is a sockaddr_in6.
            let a = unsafe { &*ifa.ifa_addr.cast::<libc::sockaddr_in6>() };
            found.push(IpAddr::from(a.sin6_addr.s6_addr));
        }
    }
    // SAFETY: the list getifaddrs returned, freed once.
    unsafe { libc::freeifaddrs(list) };
    found
}
