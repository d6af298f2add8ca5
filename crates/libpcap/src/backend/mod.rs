//! Where a `netsift:IFACE` capture's packets come from: a [`Backend`] opens a
//! [`LiveSource`] on an interface, and the shim's `pcap_loop`,
//! `pcap_dispatch` and `pcap_next_ex` take packets from it, in one of two
//! ways: in batches of owned [`Packet`]s ([`LiveSource::next_batch`]), or in
//! place ([`LiveSource::in_place`]: the source waits and calls back with each
//! packet's bytes where they lie, in the caller's thread).
//!
//! Two backends: [`daemon::DaemonBackend`], a flow on `netsiftd` (an
//! ordinary user captures without privileges, sharing the daemon's capture),
//! and [`session::SessionBackend`], a capture in this process through
//! `netsift-session` (CAP_NET_RAW). [`route`] picks one by the interface's
//! name.
//!
//! Either way a descriptor ([`LiveSource::selectable_fd`]) is readable while
//! packets wait (or the source has ended), and [`Control::interrupt`] makes
//! it readable, and wakes a source waiting in place, from a signal handler,
//! for `pcap_breakloop`. The session backend hands batches through a
//! [`queue::Queue`] from its capture thread; the daemon backend reads the
//! flow's shared buffers in place, as libpcap reads its mmap ring, with no
//! thread, queue or copy of its own.

pub mod daemon;
pub mod queue;
pub mod session;

use std::collections::VecDeque;
use std::fmt;
use std::os::fd::RawFd;
use std::sync::Arc;

/// Which packets a source takes: `pcap_setdirection`'s choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Direction {
    /// Received and sent.
    #[default]
    InOut,
    /// Received only.
    In,
    /// Sent only.
    Out,
}

/// How to open a source: what `pcap_set_*` asked for before `pcap_activate`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenConfig {
    /// At most this many bytes of each packet.
    pub snaplen: u32,
    /// Promiscuous mode.
    pub promiscuous: bool,
    /// The packet buffer timeout in milliseconds (0: none).
    pub timeout_ms: i32,
    /// Hand each packet over as it arrives.
    pub immediate: bool,
    /// The kernel buffer's size in bytes (`None`: the backend's default).
    pub buffer_size: Option<usize>,
    /// Which direction.
    pub direction: Direction,
}

/// One captured packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Seconds since the epoch.
    pub ts_sec: i64,
    /// Nanoseconds within the second.
    pub ts_nsec: u32,
    /// Its length on the wire.
    pub wire_len: u32,
    /// The bytes captured (at most the snap length).
    pub data: Vec<u8>,
}

/// One packet lent by a source reading in place: its bytes are valid only
/// during the call they are passed to (libpcap's callback contract).
#[derive(Clone, Copy, Debug)]
pub struct PacketRef<'a> {
    /// Seconds since the epoch.
    pub ts_sec: i64,
    /// Nanoseconds within the second.
    pub ts_nsec: u32,
    /// Its length on the wire.
    pub wire_len: u32,
    /// The bytes captured (at most the snap length).
    pub data: &'a [u8],
}

/// What a source counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Packets accepted by the filter and handed over.
    pub received: u64,
    /// Packets the kernel dropped, where known.
    pub dropped: u64,
}

/// Which part of opening or running a source failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// No interface of that name.
    NoSuchDevice,
    /// Not allowed to capture (CAP_NET_RAW).
    Permission,
    /// The filter expression cannot be used.
    Filter,
    /// Asked for something the backend does not do.
    Unsupported,
    /// The capture failed (opening or while running).
    Capture,
}

/// A backend's error: its kind and what went wrong, said without the
/// interface's name (the shim puts `netsift: IFACE: ` before it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// Which part failed.
    pub kind: ErrorKind,
    /// What failed.
    pub message: String,
}

impl Error {
    /// An error of `kind` saying `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// The parts of a source any thread may use while another reads it, including
/// a signal handler (tcpdump calls `pcap_breakloop` from its SIGINT handler
/// and `pcap_stats` from SIGALRM's): both must be async-signal-safe, so no
/// locks and no allocation.
pub trait Control: Send + Sync {
    /// Makes the source's selectable descriptor readable.
    fn interrupt(&self);

    /// What the source counted so far.
    fn stats(&self) -> Stats;
}

/// A live capture from one interface.
pub trait LiveSource: Send {
    /// The link type (`DLT_*`) of its packets.
    fn linktype(&self) -> u32;

    /// Keeps only the packets `expr` (a pcap expression) accepts; `None`: all.
    /// On an error the previous filter stays.
    fn set_filter(&mut self, expr: Option<&str>) -> Result<(), Error>;

    /// Takes packets of `direction` only, from now on.
    fn set_direction(&mut self, direction: Direction) -> Result<(), Error>;

    /// The source as one that delivers in place, if it is one: the shim then
    /// reads it through [`InPlace::dispatch`] and never calls
    /// [`LiveSource::next_batch`].
    fn in_place(&mut self) -> Option<&mut dyn InPlace> {
        None
    }

    /// Moves up to `max` waiting packets to `out`, without waiting. `Ok(false)`
    /// once the source has ended and nothing waits; an error if it ended with
    /// one. (Not called on a source that is [`LiveSource::in_place`].)
    fn next_batch(&mut self, max: usize, out: &mut VecDeque<Packet>) -> Result<bool, Error>;

    /// A descriptor that polls readable while packets wait or the source
    /// ended. Asking for it may start the capture (a program that polls it
    /// reads next).
    fn selectable_fd(&mut self) -> RawFd;

    /// Its waker and counters, for `pcap_breakloop` and `pcap_stats`.
    fn control(&self) -> Arc<dyn Control>;

    /// Stops capturing and releases the interface; what it counted in all.
    fn close(&mut self) -> Stats;
}

/// A source that delivers in the caller's thread (see the module docs).
pub trait InPlace {
    /// Waits up to `wait` (`None`: for ever; zero: not at all) for packets
    /// as the source's batching says (a batch, or the oldest packet held
    /// long enough), then calls `f` on each waiting packet until `f` returns
    /// false; a packet `f` was called on is consumed, the rest wait for the
    /// next call. `Ok(Some(n))`: `f` saw `n` packets, 0 after a timeout or
    /// an [`Control::interrupt`]; `Ok(None)` once the source has ended and
    /// nothing waits; an error if it ended with one.
    ///
    /// The bytes of the last packet `f` saw stay valid, where they were and
    /// as they were, until the source's next `dispatch` or `next_batch`, or
    /// its drop (no other method may touch them): `pcap_next_ex` hands them
    /// to its caller without a copy, and libpcap promises them until the
    /// caller's next read. They must therefore be memory only this process
    /// writes, never a buffer the daemon may overwrite.
    fn dispatch(
        &mut self,
        wait: Option<std::time::Duration>,
        f: &mut dyn FnMut(&PacketRef<'_>) -> bool,
    ) -> Result<Option<usize>, Error>;
}

/// Opens live sources.
pub trait Backend: Sync {
    /// A source on `iface` configured as `cfg`.
    fn open(&self, iface: &str, cfg: &OpenConfig) -> Result<Box<dyn LiveSource>, Error>;
}

/// The prefix of an interface captured through `netsiftd`.
pub const DAEMON_PREFIX: &str = "netsift:";
/// The prefix of an interface captured in this process (root only).
pub const LOCAL_PREFIX: &str = "netsift-local:";

/// Which backend serves interface `name`, and the name it knows it by:
/// `netsift:SOURCE` is a flow on the daemon ([`daemon::DaemonBackend`], at
/// `NETSIFT_SOCKET` or `/run/netsift.sock`); `netsift-local:IFACE` a
/// capture in this process ([`session::SessionBackend`], which needs
/// CAP_NET_RAW); any other name goes to the daemon too when `NETSIFT_SOCKET`
/// is set, and to the real libpcap (`None`) when it is not.
pub fn route(name: &str) -> Option<(&'static dyn Backend, &str)> {
    if let Some(iface) = name.strip_prefix(LOCAL_PREFIX) {
        return Some((&session::SessionBackend, iface));
    }
    if let Some(source) = name.strip_prefix(DAEMON_PREFIX) {
        return Some((&daemon::DaemonBackend, source));
    }
    std::env::var_os("NETSIFT_SOCKET")
        .filter(|s| !s.is_empty())
        .map(|_| (&daemon::DaemonBackend as &dyn Backend, name))
}

/// Runs `f` with every signal blocked on this thread, so that a thread it
/// starts begins with them blocked; the mask is restored after.
pub(crate) fn with_signals_blocked<T>(f: impl FnOnce() -> T) -> T {
    // SAFETY: sigset_t is plain data, filled by sigfillset before use;
    // pthread_sigmask changes only this thread's mask and restores it below.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_BLOCK, &all, &mut old);
        let r = f();
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        r
    }
}
