//! The daemon backend: a flow on `netsiftd`, which owns the capture, so an
//! ordinary user's tcpdump captures without privileges and shares the daemon's
//! one capture (one filter run per distinct filter, one stored copy per flow
//! group) with every other client.
//!
//! The flow is created and its buffers mapped when the handle is activated,
//! and activated (packets start to arrive) at the first `pcap_setfilter` or
//! the first read, whichever comes first: tcpdump sets its filter after
//! `pcap_activate`, and a packet its filter rejects must not slip in between.
//!
//! It is read in place ([`InPlace`]), in the thread that calls `pcap_loop`,
//! `pcap_dispatch` or `pcap_next_ex`, as libpcap reads its mmap ring: the
//! thread sleeps on the flow's wake-up descriptor, which the daemon signals
//! once a batch is waiting ([`FlowReader::wait_for_or`]), then hands each
//! packet to the callback straight from the reader's copy
//! ([`FlowReader::getnext`]), which stays in the reader's own buffer until
//! its next `getnext`, as [`InPlace::dispatch`] promises (so `pcap_next_ex`
//! points there, without a copy of its own). No thread, queue or allocation per packet:
//! a thread and a queue between cost two context switches, an allocation and
//! a second copy per packet, and made the shim's tcpdumps spend 3.7 times the
//! CPU of stock ones.
//!
//! Two more descriptors: an eventfd that [`Control::interrupt`] writes
//! (`pcap_breakloop`, maybe from a signal handler or another thread), polled
//! with the wake-up descriptor; and an epoll instance holding both, the
//! selectable descriptor a program polls itself (readable while either is).

use super::{
    Backend, Control, Direction, Error, ErrorKind, InPlace, LiveSource, OpenConfig, Packet,
    PacketRef, Stats,
};
use netsift_ffpf::{Client, Flow, FlowReader, FlowSpec};
use std::collections::VecDeque;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long packets are held when the handle has no timeout (and is not in
/// immediate mode), and the least they are held for a timeout.
const POLL: Duration = Duration::from_millis(50);

/// Packets the daemon lets gather before it wakes a reader that is not in
/// immediate mode: libpcap hands a TPACKET_V3 ring's block over when it is
/// full or its timeout expires, not per packet, and a wake-up costs both
/// sides a system call and the reader a context switch (tens of µs on a VM).
/// A batch never waits longer than the handle's timeout.
const WAKE_AT: u64 = 256;

/// The daemon's socket: `NETSIFT_SOCKET`, else the default
/// ([`netsift_ffpf::client::socket_path`]).
pub fn socket() -> PathBuf {
    netsift_ffpf::client::socket_path(None)
}

/// Opens flows on the daemon at [`socket`].
pub struct DaemonBackend;

impl Backend for DaemonBackend {
    fn open(&self, iface: &str, cfg: &OpenConfig) -> Result<Box<dyn LiveSource>, Error> {
        Ok(Box::new(DaemonSource::open(&socket(), iface, cfg)?))
    }
}

/// `pcap_setdirection`'s choice as the protocol says it.
fn wire_direction(d: Direction) -> netsift_ffpf::proto::Direction {
    match d {
        Direction::InOut => netsift_ffpf::proto::Direction::InOut,
        Direction::In => netsift_ffpf::proto::Direction::In,
        Direction::Out => netsift_ffpf::proto::Direction::Out,
    }
}

/// A client-library error as a backend error.
fn error(what: &str, e: netsift_ffpf::Error) -> Error {
    let text = e.to_string();
    let kind = if text.contains("refused by rule") {
        ErrorKind::Permission
    } else {
        ErrorKind::Capture
    };
    Error::new(kind, format!("{what}: {text}"))
}

/// The source's parts a signal handler or another thread reaches: the
/// interrupting eventfd and the counters, atomics only.
struct Shared {
    kick: OwnedFd,
    received: AtomicU64,
    dropped: AtomicU64,
}

impl Shared {
    /// Empties the eventfd (non-blocking; nothing to read leaves it so).
    fn drain(&self) {
        let mut v = 0u64;
        // SAFETY: read(2) of 8 bytes into a local from our non-blocking
        // eventfd; EAGAIN leaves it at zero.
        unsafe { libc::read(self.kick.as_raw_fd(), (&mut v as *mut u64).cast(), 8) };
    }
}

impl Control for Shared {
    fn interrupt(&self) {
        let one: u64 = 1;
        // SAFETY: write(2) of 8 bytes from a local to an eventfd we own;
        // async-signal-safe, and a full counter (EAGAIN) is readable already.
        unsafe { libc::write(self.kick.as_raw_fd(), (&one as *const u64).cast(), 8) };
    }

    fn stats(&self) -> Stats {
        Stats {
            received: self.received.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
        }
    }
}

/// When waiting packets are handed over: once `at` are waiting, or the
/// oldest has waited `within`.
#[derive(Clone, Copy, Debug)]
struct Pace {
    at: u64,
    within: Duration,
}

/// A flow on the daemon, read in place.
struct DaemonSource {
    flow: Flow,
    active: bool,
    /// The direction the flow takes (asked again only when it changes, so a
    /// program that sets `inout` works with a daemon without the verb).
    direction: Direction,
    linktype: u32,
    pace: Pace,
    /// Since when packets have been seen waiting, if they have.
    since: Option<Instant>,
    shared: Arc<Shared>,
    /// The selectable descriptor: an epoll instance over the flow's wake-up
    /// descriptor and `shared.kick`.
    epoll: OwnedFd,
    /// Whether the program asked for the selectable descriptor: every read
    /// then leaves it readable while packets wait (see [`DaemonSource::settle`]).
    polled: bool,
    /// The client, kept for the connection's life (the flow's requests go
    /// through it).
    _client: Client,
}

/// An `errno` failure as a backend error.
fn os_error(what: &str) -> Error {
    let e = std::io::Error::last_os_error();
    Error::new(ErrorKind::Capture, format!("{what}: {e}"))
}

/// A new descriptor from a system call's result, or the failure.
fn owned(fd: RawFd, what: &str) -> Result<OwnedFd, Error> {
    if fd < 0 {
        return Err(os_error(what));
    }
    // SAFETY: a descriptor just returned by the kernel, owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Adds `fd` to epoll instance `ep`, level-triggered for reading.
fn watch(ep: BorrowedFd<'_>, fd: BorrowedFd<'_>) -> Result<(), Error> {
    let mut ev = libc::epoll_event {
        events: libc::EPOLLIN as u32,
        u64: fd.as_raw_fd() as u64,
    };
    // SAFETY: epoll_ctl on live descriptors with an event on the stack.
    let r =
        unsafe { libc::epoll_ctl(ep.as_raw_fd(), libc::EPOLL_CTL_ADD, fd.as_raw_fd(), &mut ev) };
    if r < 0 {
        return Err(os_error("epoll_ctl"));
    }
    Ok(())
}

impl DaemonSource {
    fn open(socket: &Path, source: &str, o: &OpenConfig) -> Result<DaemonSource, Error> {
        let client = Client::connect(socket).map_err(|e| {
            Error::new(
                ErrorKind::Capture,
                format!("netsiftd at {}: {e}", socket.display()),
            )
        })?;
        let known = client
            .sources()
            .map_err(|e| error("listing the daemon's sources", e))?;
        if !known.iter().any(|s| s.name == source) {
            let names: Vec<&str> = known.iter().map(|s| s.name.as_str()).collect();
            return Err(Error::new(
                ErrorKind::NoSuchDevice,
                format!(
                    "netsiftd at {} has no source {source} (it has {names:?})",
                    socket.display()
                ),
            ));
        }
        let spec = FlowSpec {
            source: source.to_string(),
            filter: String::new(),
            snaplen: Some(o.snaplen),
            ibuf_entries: None,
            direction: wire_direction(o.direction),
            ..FlowSpec::default()
        };
        let mut flow = client
            .create(&spec)
            .map_err(|e| error("creating the flow", e))?;
        flow.instantiate()
            .map_err(|e| error("instantiating the flow", e))?;
        let linktype = flow.linktype();
        // SAFETY: eventfd(2) with constant flags.
        let kick = owned(
            unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) },
            "eventfd",
        )?;
        // SAFETY: epoll_create1(2) with a constant flag.
        let epoll = owned(
            unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) },
            "epoll_create1",
        )?;
        let reader = flow.reader().map_err(|e| error("the flow's buffers", e))?;
        watch(epoll.as_fd(), reader.wake_fd())?;
        watch(epoll.as_fd(), kick.as_fd())?;
        // As libpcap: packets at once in immediate mode, else in batches
        // held no longer than the handle's timeout (tcpdump's 1 s; POLL when
        // none is set). Half of it is the hold: a packet is first seen up to
        // one hold after it came (the daemon wakes at a full batch only), and
        // must reach the program within the timeout, as libpcap's ring block
        // does.
        let pace = if o.immediate {
            Pace {
                at: 1,
                within: POLL,
            }
        } else {
            Pace {
                at: WAKE_AT,
                within: match o.timeout_ms {
                    t if t > 0 => (Duration::from_millis(t as u64) / 2).max(POLL),
                    _ => POLL,
                },
            }
        };
        Ok(DaemonSource {
            flow,
            active: false,
            direction: o.direction,
            linktype,
            pace,
            since: None,
            shared: Arc::new(Shared {
                kick,
                received: AtomicU64::new(0),
                dropped: AtomicU64::new(0),
            }),
            epoll,
            polled: false,
            _client: client,
        })
    }

    /// Activates the flow once.
    fn activate(&mut self) -> Result<(), Error> {
        if !self.active {
            self.flow
                .activate()
                .map_err(|e| error("activating the flow", e))?;
            self.active = true;
        }
        Ok(())
    }

    /// Publishes the reader's counts for `pcap_stats` (which may run in a
    /// signal handler, so reads atomics only).
    fn publish(shared: &Shared, reader: &FlowReader) {
        let s = reader.stats();
        shared.received.store(s.delivered, Ordering::Relaxed);
        let dropped = s.writer.pbuf_full + s.writer.ibuf_full + s.overwritten;
        shared.dropped.store(dropped, Ordering::Relaxed);
    }

    /// Before going back to a program that polls the selectable descriptor
    /// itself: leaves it readable if packets wait, else asks the daemon to
    /// make it so at the next packet (the daemon signals only when asked).
    ///
    /// The eventfd is emptied when nothing waits, so the descriptor does not
    /// stay readable from an earlier call; a `pcap_breakloop` it held is not
    /// lost, because the handle looks at its break flag after every dispatch.
    fn settle(shared: &Shared, polled: bool, reader: &mut FlowReader) {
        if !polled {
            return;
        }
        if reader.available() == 0 {
            shared.drain();
            if reader.arm(1) == 0 {
                return;
            }
        }
        shared.interrupt();
    }
}

impl InPlace for DaemonSource {
    fn dispatch(
        &mut self,
        wait: Option<Duration>,
        f: &mut dyn FnMut(&PacketRef<'_>) -> bool,
    ) -> Result<Option<usize>, Error> {
        self.activate()?;
        let deadline = wait.and_then(|w| Instant::now().checked_add(w));
        let polled = self.polled;
        let (pace, shared) = (self.pace, &*self.shared);
        let reader = self
            .flow
            .reader()
            .map_err(|e| error("the flow's buffers", e))?;
        // A wake-up left from an earlier threshold (or `settle`) would end the
        // wait below before a batch gathered.
        netsift_ffpf::wake::drain(reader.wake_fd());
        loop {
            let have = reader.available();
            let now = Instant::now();
            let expired = deadline.is_some_and(|d| now >= d);
            if have > 0 {
                let first = *self.since.get_or_insert(now);
                if have >= pace.at
                    || now.duration_since(first) >= pace.within
                    || expired
                    || reader.writer_gone()
                {
                    break;
                }
            } else if reader.writer_gone() {
                Self::publish(shared, reader);
                return Err(Error::new(ErrorKind::Capture, "netsiftd went away"));
            }
            if expired {
                Self::settle(shared, polled, reader);
                return Ok(Some(0));
            }
            let hold = self.since.map_or(pace.within, |t| {
                pace.within.saturating_sub(now.duration_since(t))
            });
            let timeout = deadline.map_or(hold, |d| hold.min(d.saturating_duration_since(now)));
            let Some(waiting) = reader
                .wait_for_or(pace.at, timeout, shared.kick.as_fd())
                .map_err(|e| error("waiting for packets", e))?
            else {
                // Interrupted: the handle looks at its break flag next.
                // `pcap_breakloop` sets the flag before it writes the
                // eventfd, so emptying it only once it was seen loses no
                // break; emptying it earlier (before the handle looked at
                // its flag) could.
                shared.drain();
                Self::settle(shared, polled, reader);
                return Ok(Some(0));
            };
            // Back before the timeout with fewer than asked for: the daemon
            // needs the room these packets hold (`FlowReader::wait_for`), so
            // they go now.
            if waiting > 0 && waiting < pace.at && now.elapsed() < timeout {
                break;
            }
        }
        let mut n = 0;
        loop {
            match reader.getnext() {
                Ok(Some(p)) => {
                    n += 1;
                    let pkt = PacketRef {
                        ts_sec: (p.ts_ns / 1_000_000_000) as i64,
                        ts_nsec: (p.ts_ns % 1_000_000_000) as u32,
                        wire_len: p.wirelen,
                        data: p.data,
                    };
                    if !f(&pkt) {
                        break;
                    }
                }
                Ok(None) => {
                    self.since = None;
                    break;
                }
                // A record the daemon described badly is skipped (the reader
                // counts it); the capture goes on.
                Err(_) => continue,
            }
        }
        Self::publish(shared, reader);
        Self::settle(shared, polled, reader);
        Ok(Some(n))
    }
}

impl LiveSource for DaemonSource {
    fn linktype(&self) -> u32 {
        self.linktype
    }

    fn set_filter(&mut self, expr: Option<&str>) -> Result<(), Error> {
        let expr = expr.map(str::trim).unwrap_or("");
        self.flow.set_filter(expr).map_err(|e| {
            let mut err = error("the filter", e);
            err.kind = ErrorKind::Filter;
            err
        })?;
        self.activate()
    }

    /// The daemon filters by direction, before the flow's IBuf: packets of
    /// the other direction already waiting are still handed over (as with
    /// libpcap, whose ring holds what it held).
    fn set_direction(&mut self, d: Direction) -> Result<(), Error> {
        if d != self.direction {
            self.flow
                .set_direction(wire_direction(d))
                .map_err(|e| error("the direction", e))?;
            self.direction = d;
        }
        Ok(())
    }

    fn in_place(&mut self) -> Option<&mut dyn InPlace> {
        Some(self)
    }

    fn next_batch(&mut self, max: usize, out: &mut VecDeque<Packet>) -> Result<bool, Error> {
        // Not used (the source is in place), but correct: copies.
        let mut f = |p: &PacketRef<'_>| {
            out.push_back(Packet {
                ts_sec: p.ts_sec,
                ts_nsec: p.ts_nsec,
                wire_len: p.wire_len,
                data: p.data.to_vec(),
            });
            out.len() < max
        };
        Ok(self.dispatch(Some(Duration::ZERO), &mut f)?.is_some())
    }

    fn selectable_fd(&mut self) -> RawFd {
        // Polling the descriptor is how some programs read: the flow starts
        // then if no filter started it, and the daemon is asked to make the
        // descriptor readable at the first packet.
        self.polled = true;
        if self.activate().is_ok() {
            if let Ok(r) = self.flow.reader() {
                Self::settle(&self.shared, true, r);
            }
        }
        self.epoll.as_raw_fd()
    }

    fn control(&self) -> Arc<dyn Control> {
        self.shared.clone()
    }

    fn close(&mut self) -> Stats {
        if let Ok(r) = self.flow.reader() {
            Self::publish(&self.shared, r);
        }
        self.shared.stats()
    }
}
