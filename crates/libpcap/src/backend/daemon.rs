//! The daemon backend: a flow on `netsiftd`, which owns the capture, so an
//! ordinary user's tcpdump captures without privileges and shares the daemon's
//! one capture (one filter run per distinct filter, one stored copy per flow
//! group) with every other client.
//!
//! The flow is created and its buffers mapped when the handle is activated,
//! and activated (packets start to arrive) at the first `pcap_setfilter` or
//! the first read, whichever comes first: tcpdump sets its filter after
//! `pcap_activate`, and a packet its filter rejects must not slip in between.
//! A thread reads the flow's buffers (woken in batches by the daemon) into the
//! shim's [`Queue`], the same hand-over the in-process backend uses.

use super::queue::{Ended, Queue};
use super::{Backend, Control, Direction, Error, ErrorKind, LiveSource, OpenConfig, Packet, Stats};
use netsift_ffpf::{Client, Flow, FlowSpec};
use std::collections::VecDeque;
use std::os::fd::RawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

/// Packets held between the reading thread and the pcap API.
const QUEUE_PACKETS: usize = 16_384;

/// How long the reading thread waits for packets before it looks at its stop
/// flag (and lets `pcap_setfilter` take the flow).
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

/// The flow, shared by the reading thread and the pcap API's thread.
struct Shared {
    flow: Mutex<Flow>,
    active: AtomicBool,
}

impl Shared {
    fn flow(&self) -> MutexGuard<'_, Flow> {
        self.flow.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Activates the flow once.
    fn activate(&self) -> Result<(), Error> {
        if self.active.load(Ordering::Acquire) {
            return Ok(());
        }
        let mut f = self.flow();
        if !self.active.load(Ordering::Relaxed) {
            f.activate().map_err(|e| error("activating the flow", e))?;
            self.active.store(true, Ordering::Release);
        }
        Ok(())
    }
}

/// A flow on the daemon, read by a thread into a [`Queue`].
struct DaemonSource {
    shared: Arc<Shared>,
    linktype: u32,
    queue: Arc<Queue>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    /// The client, kept for the connection's life (the flow's requests go
    /// through it).
    _client: Client,
}

impl DaemonSource {
    fn open(socket: &Path, source: &str, o: &OpenConfig) -> Result<DaemonSource, Error> {
        if o.direction != Direction::InOut {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "a flow on netsiftd carries both directions (-Q/pcap_setdirection is not supported there)",
            ));
        }
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
        };
        let mut flow = client
            .create(&spec)
            .map_err(|e| error("creating the flow", e))?;
        flow.instantiate()
            .map_err(|e| error("instantiating the flow", e))?;
        let linktype = flow.linktype();
        let queue = Arc::new(Queue::new(QUEUE_PACKETS)?);
        let shared = Arc::new(Shared {
            flow: Mutex::new(flow),
            active: AtomicBool::new(false),
        });
        let stop = Arc::new(AtomicBool::new(false));
        // As libpcap: packets at once in immediate mode, else in batches
        // held no longer than the handle's timeout (tcpdump's 1 s; POLL when
        // none is set). Half of it is the hold: the thread notices waiting
        // packets up to POLL late, and the reader then still has to poll
        // the queue, and a packet must reach the program within the timeout
        // as libpcap's ring block does.
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
        let thread = spawn(shared.clone(), queue.clone(), stop.clone(), pace)?;
        Ok(DaemonSource {
            shared,
            linktype,
            queue,
            stop,
            thread: Some(thread),
            _client: client,
        })
    }
}

/// When the reading thread hands packets over: once `at` are waiting, or the
/// oldest has waited `within`.
#[derive(Clone, Copy, Debug)]
struct Pace {
    at: u64,
    within: Duration,
}

/// Reads the flow into `queue` until `stop`, with every signal blocked (the
/// host program's handlers run on its own threads, as with libpcap).
fn spawn(
    shared: Arc<Shared>,
    queue: Arc<Queue>,
    stop: Arc<AtomicBool>,
    pace: Pace,
) -> Result<JoinHandle<()>, Error> {
    let run = move || {
        let result = read(&shared, &queue, &stop, pace);
        let f = shared.flow();
        let stats = f.stats().ok();
        let dropped = stats.as_ref().map_or(0, |s| s.pbuf_full + s.ibuf_full);
        queue.end(Ended {
            result,
            stats: Stats {
                received: queue.stats().received,
                dropped,
            },
        });
    };
    super::with_signals_blocked(|| {
        std::thread::Builder::new()
            .name("netsift-flow".into())
            .spawn(run)
    })
    .map_err(|e| {
        Error::new(
            ErrorKind::Capture,
            format!("starting the flow's thread: {e}"),
        )
    })
}

/// The reading loop: waits for the daemon's wake-up at [`Pace::at`] packets
/// (looking at the stop flag every [`POLL`]), then moves every waiting packet
/// into the queue; fewer once the first of them has waited [`Pace::within`].
fn read(shared: &Shared, queue: &Queue, stop: &AtomicBool, pace: Pace) -> Result<(), Error> {
    // Since when packets have been waiting, if they have.
    let mut since: Option<std::time::Instant> = None;
    while !stop.load(Ordering::Relaxed) {
        if !shared.active.load(Ordering::Acquire) {
            std::thread::sleep(POLL / 5);
            continue;
        }
        let mut f = shared.flow();
        let reader = f.reader().map_err(|e| error("the flow's buffers", e))?;
        let left = since.map_or(pace.within, |t| pace.within.saturating_sub(t.elapsed()));
        let timeout = left.min(POLL);
        let asked = std::time::Instant::now();
        let waiting = reader
            .wait_for(pace.at, timeout)
            .map_err(|e| error("waiting for packets", e))?;
        if waiting == 0 {
            if reader.writer_gone() {
                return Err(Error::new(ErrorKind::Capture, "netsiftd went away"));
            }
            continue;
        }
        // Back before the timeout with fewer than asked for: the daemon needs
        // the room these packets hold (`FlowReader::wait_for`), so they go now.
        let woken = asked.elapsed() < timeout;
        let first = *since.get_or_insert_with(std::time::Instant::now);
        if !woken && waiting < pace.at && first.elapsed() < pace.within && !reader.writer_gone() {
            continue;
        }
        since = None;
        loop {
            match reader.getnext() {
                Ok(Some(p)) => {
                    let pkt = Packet {
                        ts_sec: (p.ts_ns / 1_000_000_000) as i64,
                        ts_nsec: (p.ts_ns % 1_000_000_000) as u32,
                        wire_len: p.wirelen,
                        data: p.data.to_vec(),
                    };
                    if !queue.push(pkt, stop) {
                        return Ok(());
                    }
                }
                Ok(None) => break,
                // A record the daemon described badly is skipped (the reader
                // counts it); the capture goes on.
                Err(_) => continue,
            }
        }
    }
    Ok(())
}

impl LiveSource for DaemonSource {
    fn linktype(&self) -> u32 {
        self.linktype
    }

    fn set_filter(&mut self, expr: Option<&str>) -> Result<(), Error> {
        let expr = expr.map(str::trim).unwrap_or("");
        self.shared.flow().set_filter(expr).map_err(|e| {
            let mut err = error("the filter", e);
            err.kind = ErrorKind::Filter;
            err
        })?;
        self.shared.activate()
    }

    fn set_direction(&mut self, d: Direction) -> Result<(), Error> {
        match d {
            Direction::InOut => Ok(()),
            _ => Err(Error::new(
                ErrorKind::Unsupported,
                "a flow on netsiftd carries both directions",
            )),
        }
    }

    fn next_batch(&mut self, max: usize, out: &mut VecDeque<Packet>) -> Result<bool, Error> {
        self.shared.activate()?;
        self.queue.pop(max, out)
    }

    fn selectable_fd(&self) -> RawFd {
        // Polling the descriptor is how tcpdump reads: the flow starts then
        // if no filter started it.
        let _ = self.shared.activate();
        self.queue.fd()
    }

    fn control(&self) -> Arc<dyn Control> {
        self.queue.clone()
    }

    fn close(&mut self) -> Stats {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.queue.stats()
    }
}

impl Drop for DaemonSource {
    fn drop(&mut self) {
        self.close();
    }
}
