//! The in-process backend: a `netsift-session` capture on a thread of its
//! own, its packets handed over through a [`Queue`].
//!
//! The capture runs a live set of clauses ([`netsift_session::Clauses`]) in
//! user space, so that `pcap_setfilter` can change the filter after the
//! program dropped its privileges (tcpdump switches to its own user between
//! `pcap_activate` and `pcap_setfilter`): opening the ring again, or loading a
//! kernel program, would then be refused. A source with no filter holds one
//! clause that accepts every packet ([`MATCH_ALL`]); a filter replaces it, the
//! new clause added before the old one is removed, so no packet both would
//! accept is lost in between.

use super::queue::{Ended, Queue};
use super::{Backend, Control, Direction, Error, ErrorKind, LiveSource, OpenConfig, Packet, Stats};
use netsift_session::{Callback, Capture, Clauses, Config, FilterSpec, Placement, Source};
use std::collections::VecDeque;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// A clause that accepts every packet: every frame is at least 0 bytes long.
pub const MATCH_ALL: &str = "greater 0";

/// Packets held between the capture thread and the reader.
const QUEUE_PACKETS: usize = 16_384;

/// Opens captures through `netsift-session` in this process.
pub struct SessionBackend;

impl Backend for SessionBackend {
    fn open(&self, iface: &str, cfg: &OpenConfig) -> Result<Box<dyn LiveSource>, Error> {
        Ok(Box::new(SessionSource::open(iface, cfg)?))
    }
}

/// A running session capture.
struct SessionSource {
    iface: String,
    cfg: OpenConfig,
    linktype: u32,
    queue: Arc<Queue>,
    /// The current filter's text (`None`: every packet), to open again with.
    filter: Option<String>,
    run: Running,
}

/// One capture thread and its live set.
struct Running {
    clauses: Arc<Mutex<Clauses>>,
    /// The clause that is the current filter.
    clause: u64,
    stop: Arc<AtomicBool>,
    /// Set when the thread is stopped to be replaced: it then leaves the queue
    /// open for its successor.
    retired: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Running {
    /// Stops the thread and waits for it.
    fn stop(&mut self, retire: bool) {
        self.retired.store(retire, Ordering::Relaxed);
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A session error as a backend error: an interface that does not exist and
/// a refused permission keep their kinds (pcap_activate's status codes say
/// them).
fn error(e: netsift_session::Error) -> Error {
    use netsift_capture::ErrorKind as C;
    let kind = match e.kind() {
        netsift_session::ErrorKind::Filter => ErrorKind::Filter,
        netsift_session::ErrorKind::Unsupported => ErrorKind::Unsupported,
        _ => {
            let cap = std::error::Error::source(&e)
                .and_then(|s| s.downcast_ref::<netsift_capture::Error>());
            match cap.map(netsift_capture::Error::kind) {
                Some(C::NoSuchInterface) => ErrorKind::NoSuchDevice,
                Some(C::Permission) => ErrorKind::Permission,
                _ => ErrorKind::Capture,
            }
        }
    };
    Error::new(kind, e.to_string())
}

fn direction(d: Direction) -> netsift_session::Direction {
    match d {
        Direction::InOut => netsift_session::Direction::InOut,
        Direction::In => netsift_session::Direction::In,
        Direction::Out => netsift_session::Direction::Out,
    }
}

/// Opens the capture `o` asks for on `iface`, filtering with `filter`, and
/// starts its thread into `queue`; its link type.
fn start(
    iface: &str,
    o: &OpenConfig,
    filter: Option<&str>,
    queue: &Arc<Queue>,
) -> Result<(Running, u32), Error> {
    let mut cfg = Config::new(Source::Ring(iface.into()));
    cfg.placement = Placement::User;
    cfg.snaplen = o.snaplen;
    cfg.promiscuous = o.promiscuous;
    cfg.immediate = o.immediate;
    cfg.buffer = o.buffer_size;
    cfg.direction = direction(o.direction);
    cfg.filter = FilterSpec::Clauses(filter.unwrap_or(MATCH_ALL).into());
    let capture = Capture::open(&cfg, netsift_session::events::ignore()).map_err(error)?;
    let linktype = capture.linktype().0;
    let clauses = capture
        .clauses()
        .ok_or_else(|| Error::new(ErrorKind::Capture, "the capture has no live set"))?;
    let stop = Arc::new(AtomicBool::new(false));
    let retired = Arc::new(AtomicBool::new(false));
    let thread = spawn(capture, queue.clone(), stop.clone(), retired.clone())?;
    let run = Running {
        clauses,
        // The expression given at open is clause 0.
        clause: 0,
        stop,
        retired,
        thread: Some(thread),
    };
    Ok((run, linktype))
}

impl SessionSource {
    fn open(iface: &str, o: &OpenConfig) -> Result<SessionSource, Error> {
        let queue = Arc::new(Queue::new(QUEUE_PACKETS)?);
        let (run, linktype) = start(iface, o, None, &queue)?;
        Ok(SessionSource {
            iface: iface.into(),
            cfg: o.clone(),
            linktype,
            queue,
            filter: None,
            run,
        })
    }
}

/// Runs `capture` into `queue` on a thread until `stop`. The thread blocks
/// every signal: the host program's handlers (tcpdump's SIGINT, which calls
/// `pcap_breakloop`) run on its own threads, as with libpcap, which has none.
fn spawn(
    capture: Capture,
    queue: Arc<Queue>,
    stop: Arc<AtomicBool>,
    retired: Arc<AtomicBool>,
) -> Result<JoinHandle<()>, Error> {
    let run = move || {
        let mut sinks = [Callback(|r: &netsift_pcapio::Record<'_>| {
            let p = Packet {
                ts_sec: r.packet.ts_sec as i64,
                ts_nsec: r.packet.ts_nsec,
                wire_len: r.packet.orig_len,
                data: r.packet.data.to_vec(),
            };
            queue.push(p, &stop);
            Ok(())
        })];
        let (report, result) = capture.run(&mut sinks, &stop);
        if !retired.load(Ordering::Relaxed) {
            queue.end(Ended {
                result: result.map_err(error),
                stats: Stats {
                    received: report.captured,
                    dropped: report.dropped,
                },
            });
        }
    };
    super::with_signals_blocked(|| {
        std::thread::Builder::new()
            .name("netsift-capture".into())
            .spawn(run)
    })
    .map_err(|e| {
        Error::new(
            ErrorKind::Capture,
            format!("starting the capture thread: {e}"),
        )
    })
}

impl LiveSource for SessionSource {
    fn linktype(&self) -> u32 {
        self.linktype
    }

    fn set_filter(&mut self, expr: Option<&str>) -> Result<(), Error> {
        let expr = expr.map(str::trim).filter(|e| !e.is_empty());
        let r = &mut self.run;
        let mut c = r.clauses.lock().unwrap_or_else(|e| e.into_inner());
        let n = c.add(expr.unwrap_or(MATCH_ALL)).map_err(error)?;
        let old = std::mem::replace(&mut r.clause, n);
        c.del(old).map_err(error)?;
        self.filter = expr.map(str::to_string);
        Ok(())
    }

    /// The ring's direction is fixed when it opens: a new capture is opened
    /// (which needs the privileges the first one did: tcpdump sets the
    /// direction before it drops them) and replaces the running one; packets
    /// already queued stay.
    fn set_direction(&mut self, d: Direction) -> Result<(), Error> {
        if d == self.cfg.direction {
            return Ok(());
        }
        let mut cfg = self.cfg.clone();
        cfg.direction = d;
        let (run, _) = start(&self.iface, &cfg, self.filter.as_deref(), &self.queue)?;
        self.run.stop(true);
        self.run = run;
        self.cfg = cfg;
        Ok(())
    }

    fn next_batch(&mut self, max: usize, out: &mut VecDeque<Packet>) -> Result<bool, Error> {
        self.queue.pop(max, out)
    }

    fn selectable_fd(&mut self) -> RawFd {
        self.queue.fd()
    }

    fn control(&self) -> Arc<dyn Control> {
        self.queue.clone()
    }

    fn close(&mut self) -> Stats {
        self.run.stop(false);
        self.queue.stats()
    }
}

impl Drop for SessionSource {
    fn drop(&mut self) {
        self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netsift_session::events;

    /// The clause a source starts with compiles, and accepts a packet.
    #[test]
    fn the_match_all_clause_compiles() {
        let target = netsift_pcapc_target();
        let (mut c, _reader) = Clauses::new(target, events::ignore());
        c.add(MATCH_ALL).unwrap();
    }

    fn netsift_pcapc_target() -> netsift_pcapc::Target {
        netsift_pcapc::Target::new(netsift_wire::LinkType::EN10MB)
    }
}
