//! The sources the daemon owns, and the threads that read them.
//!
//! An interface is one [`netsift_session::Capture`] over its AF_PACKET ring
//! with a live set of clauses ([`FilterSpec::Clauses`]) placed in the kernel
//! where it loads ([`Placement::Auto`]): the clauses are the distinct filters
//! of the source's active flows, so the kernel drops what no flow wants. The
//! capture runs on its own thread into a [`RingSink`], which hands each ring
//! block's accepted packets to the source's [`Dispatch`] as one batch.
//!
//! A capture file is played by a thread of its own, read with
//! `netsift_pcapio` and dispatched in batches, at the file's own timing (or
//! as fast as it reads); it waits until some flows are active, so that tests
//! can be exact.
//!
//! A source runs while it has flows: it starts when its first flow is
//! instantiated and stops when its last flow closes. A graph flow of another
//! source that names this one in a `device` element counts as one of its
//! flows (it feeds that graph, `dispatch.rs`).

use crate::config::{Play, SourceSpec};
use crate::dispatch::{deliver, Dispatch, Packet};
use crate::rights::Rights;
use crate::Log;
use netsift_ffpf::CopyMode;
use netsift_pcapc::{Meta, Target};
use netsift_session::sink::{Records, Sink, SinkError};
use netsift_session::{Capture, Clauses, Config, FilterSpec, Placement, Source as SessionSource};
use netsift_wire::LinkType;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub(crate) use crate::dispatch::lock;

/// The interface ring's size (libpcap's default is 2 MiB; tcpdump `-B 16384`
/// asks for 16 MiB).
const RING_BYTES: usize = 32 << 20;

/// The clause of a flow with no filter: every frame is at least 0 bytes long.
const MATCH_ALL: &str = "len >= 0";

fn lock_clauses(c: &Mutex<Clauses>) -> MutexGuard<'_, Clauses> {
    c.lock().unwrap_or_else(|e| e.into_inner())
}

/// A source's capture or playback, while it runs.
struct Running {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    /// An interface's live set of clauses (the union of the active filters).
    clauses: Option<Arc<Mutex<Clauses>>>,
    /// An AF_XDP source's program (the union of the active filters).
    redirect: Option<Arc<crate::xsk::Redirect>>,
}

/// One source: what it is, its link type, and its flow table.
pub(crate) struct Source {
    pub(crate) spec: SourceSpec,
    pub(crate) linktype: LinkType,
    /// What its flows' filters compile for (on an interface: received packets).
    pub(crate) target: Target,
    /// On an interface, the target of sent packets: a filter whose program
    /// differs for them (it tests the direction) runs one program for each
    /// (`flows::compile`); `None` on a file, whose packets have no direction.
    pub(crate) sent: Option<Target>,
    /// On an Ethernet interface, the targets of received and sent frames the
    /// kernel took a VLAN tag out of (on a ring, which puts it back) or will
    /// take it out of (an AF_XDP source's frames whose outermost EtherType is
    /// 802.1Q or 802.1ad, `netsift_session::tag_ahead`), compiled as
    /// libpcap's kernel filter (and so `tcpdump -i`) reads them
    /// (`Meta::tag_stripped`): a flow's filter, and a graph's `pcap`
    /// element, runs that program on them.
    pub(crate) tag_out: Option<(Target, Target)>,
    pub(crate) snaplen: u32,
    pub(crate) dispatch: Arc<Mutex<Dispatch>>,
    running: Option<Running>,
    /// The kernel's clauses by filter text: their number in the live set and
    /// the active flows using them.
    kernel: HashMap<String, (u64, usize)>,
    /// An AF_XDP source's figures.
    xdp: Arc<crate::xdp_source::Shared>,
}

impl Source {
    /// A source as `spec` says, not running: its link type is read now (the
    /// interface's, or the file's header), so flows' filters compile at
    /// `create`.
    pub(crate) fn new(spec: SourceSpec, snaplen: u32) -> Result<Source, String> {
        if let SourceSpec::Xdp { iface, monitor } = &spec {
            check_xdp(iface, *monitor)?;
        }
        let (linktype, target, sent, tag_out, snaplen) = match &spec {
            SourceSpec::Ring { iface, .. } | SourceSpec::Xdp { iface, .. } => {
                let lt =
                    netsift_capture::linktype_of(iface).map_err(|e| format!("{iface}: {e}"))?;
                let ifindex =
                    netsift_capture::ifindex(iface).map_err(|e| format!("{iface}: {e}"))?;
                let meta = |outgoing, tag_stripped| Meta {
                    outgoing,
                    ifindex: ifindex as u32,
                    tag_stripped,
                };
                let t = Target::new(lt);
                // A ring puts back the tag the kernel took out (and says so);
                // at the XDP hook the tag is still in the frame, and the
                // kernel would take it out of the frames dispatch marks.
                let tag_out = (lt == LinkType::EN10MB)
                    .then(|| (t.meta(meta(false, true)), t.meta(meta(true, true))));
                let (received, sent) = (t.meta(meta(false, false)), t.meta(meta(true, false)));
                (lt, received, Some(sent), tag_out, snaplen)
            }
            SourceSpec::File { path, .. } => {
                let r =
                    netsift_pcapio::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
                let lt = r.linktype();
                let target = Target::new(lt).savefile_swapped(r.is_big_endian());
                (lt, target, None, None, r.snaplen())
            }
        };
        Ok(Source {
            spec,
            linktype,
            target,
            sent,
            tag_out,
            snaplen,
            dispatch: Arc::new(Mutex::new(Dispatch::new())),
            running: None,
            kernel: HashMap::new(),
            xdp: Arc::new(crate::xdp_source::Shared {
                kernel_dropped: AtomicU64::new(0),
            }),
        })
    }

    /// `ring`, `xdp` or `file`.
    pub(crate) fn kind(&self) -> &'static str {
        match self.spec {
            SourceSpec::Ring { .. } => "ring",
            SourceSpec::Xdp { .. } => "xdp",
            SourceSpec::File { .. } => "file",
        }
    }

    /// Whether its thread runs (a file played once to its end has stopped).
    pub(crate) fn running(&self) -> bool {
        self.running
            .as_ref()
            .and_then(|r| r.thread.as_ref())
            .is_some_and(|t| !t.is_finished())
    }

    /// An AF_XDP source: frames the kernel dropped for want of a free frame.
    pub(crate) fn kernel_dropped(&self) -> u64 {
        self.xdp.kernel_dropped.load(Ordering::Relaxed)
    }

    /// How a new group of `rights` on this source stores packets under
    /// `--copy flag` ([`crate::rights::copy_mode`]); an AF_XDP source has
    /// one UMEM, so one zero-copy group: a group of another class is refused.
    pub(crate) fn copy_mode(&self, rights: &Rights, flag: CopyMode) -> Result<CopyMode, String> {
        let iface = !matches!(self.spec, SourceSpec::File { .. });
        let mode = crate::rights::copy_mode(rights, flag, iface)?;
        if matches!(self.spec, SourceSpec::Xdp { .. }) {
            let d = lock(&self.dispatch);
            if let Some((_, g)) = d.groups.iter().find(|(c, _)| **c != rights.class) {
                return Err(format!(
                    "zero copy on {}: its UMEM is flow group {}'s, of other rights; \
                     an interface has one zero-copy group",
                    self.spec.name(),
                    g.number
                ));
            }
        }
        Ok(mode)
    }

    /// An AF_XDP source's redirecting program, while it runs.
    pub(crate) fn redirect(&self) -> Option<&Arc<crate::xsk::Redirect>> {
        self.running.as_ref().and_then(|r| r.redirect.as_ref())
    }

    /// Clauses in the kernel's program now.
    pub(crate) fn kernel_clauses(&self) -> u64 {
        self.kernel.len() as u64
    }

    /// Starts its capture or playback, unless it runs already.
    pub(crate) fn start(&mut self, log: &Log) -> Result<(), String> {
        if self.running.is_some() {
            return Ok(());
        }
        {
            // Fresh counters and tables; the graphs it feeds stay.
            let mut d = lock(&self.dispatch);
            let feeds = std::mem::take(&mut d.feeds);
            *d = Dispatch::new();
            d.feeds = feeds;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let dispatch = Arc::clone(&self.dispatch);
        let name = self.spec.name().to_string();
        let running = match &self.spec {
            SourceSpec::Ring { iface, workers } => {
                let workers = *workers;
                let mut cfg = Config::new(SessionSource::Ring(iface.clone()));
                // With several, the session joins their rings in one fanout
                // group and runs each on a thread of its own, each with its
                // own sink below; the dispatch they share is locked per batch.
                cfg.workers = workers;
                cfg.filter = FilterSpec::Clauses(String::new());
                // Each flow's filter runs on every batch (dispatch.rs) and
                // is exact: the union judged in user space first would be
                // a second pass over every packet for nothing.
                cfg.kernel_prefilter_only = true;
                // The flows read a frame the kernel took a VLAN tag out of as
                // libpcap's kernel filter does (`tag_out` above); the kernel's
                // union of them passes such frames up to them unsure.
                cfg.tags_as_file = false;
                cfg.placement = Placement::Auto;
                cfg.immediate = true;
                cfg.snaplen = self.snaplen;
                // The one ring every client's packets pass through: as large
                // as two tcpdumps' `-B 16384`, so that the daemon, scheduled
                // late on a busy machine, drops no more than they would.
                cfg.buffer = Some(RING_BYTES);
                // What the session decides (where the filter went, why not the
                // kernel) is worth a line in the daemon's log.
                let (events_log, who) = (Arc::clone(log), name.clone());
                let events: netsift_session::Events = Arc::new(move |e| {
                    events_log(&format!("source {who}: {e:?}"));
                });
                let capture = Capture::open(&cfg, events).map_err(|e| format!("{iface}: {e}"))?;
                let clauses = capture.clauses();
                let (stop2, log2) = (Arc::clone(&stop), Arc::clone(log));
                let thread = std::thread::Builder::new()
                    .name(format!("ring {name}"))
                    .spawn(move || {
                        let mut sinks: Vec<RingSink> = (0..workers)
                            .map(|_| RingSink {
                                dispatch: Arc::clone(&dispatch),
                                name: name.clone(),
                                spare: None,
                            })
                            .collect();
                        let (_, r) = capture.run(&mut sinks, &stop2);
                        if let Err(e) = r {
                            log2(&format!("source {name}: capture ended: {e}"));
                        }
                    })
                    .map_err(|e| format!("starting the capture thread: {e}"))?;
                Running {
                    stop,
                    thread: Some(thread),
                    clauses,
                    redirect: None,
                }
            }
            SourceSpec::Xdp { iface, .. } => {
                let ifindex =
                    netsift_capture::ifindex(iface).map_err(|e| format!("{iface}: {e}"))?;
                let redirect = Arc::new(
                    crate::xsk::Redirect::link(ifindex as u32)
                        .map_err(|e| format!("{iface}: the XDP program: {e}"))?,
                );
                let held = Arc::clone(&redirect);
                let snaplen = self.snaplen;
                self.xdp.kernel_dropped.store(0, Ordering::Relaxed);
                let (stop2, log2, shared) =
                    (Arc::clone(&stop), Arc::clone(log), Arc::clone(&self.xdp));
                let thread = std::thread::Builder::new()
                    .name(format!("xdp {name}"))
                    .spawn(move || {
                        crate::xdp_source::run(
                            &name,
                            (ifindex as u32, snaplen),
                            &redirect,
                            &dispatch,
                            &shared,
                            &stop2,
                            &log2,
                        );
                    })
                    .map_err(|e| format!("starting the AF_XDP thread: {e}"))?;
                Running {
                    stop,
                    thread: Some(thread),
                    clauses: None,
                    redirect: Some(held),
                }
            }
            SourceSpec::File { path, play, .. } => {
                let (path, play) = (path.clone(), *play);
                let (stop2, log2) = (Arc::clone(&stop), Arc::clone(log));
                let thread = std::thread::Builder::new()
                    .name(format!("file {name}"))
                    .spawn(move || {
                        if let Err(e) = play_file(&path, play, &dispatch, &stop2) {
                            log2(&format!("source {name}: {e}"));
                        }
                    })
                    .map_err(|e| format!("starting the playback thread: {e}"))?;
                Running {
                    stop,
                    thread: Some(thread),
                    clauses: None,
                    redirect: None,
                }
            }
        };
        self.running = Some(running);
        Ok(())
    }

    /// Stops its capture or playback and waits for the thread.
    pub(crate) fn stop(&mut self) {
        if let Some(mut r) = self.running.take() {
            r.stop.store(true, Ordering::Relaxed);
            if let Some(t) = r.thread.take() {
                let _ = t.join();
            }
        }
        self.kernel.clear();
    }

    /// One more active flow wants `text`: on an interface, the kernel's
    /// program gets the clause unless an active flow has it already (widened
    /// before the flow is dispatched to).
    pub(crate) fn hold_clause(&mut self, text: &str) -> Result<(), String> {
        if let Some(r) = self.running.as_ref().and_then(|r| r.redirect.clone()) {
            return self.hold_xdp_clause(&r, text);
        }
        let Some(clauses) = self.running.as_ref().and_then(|r| r.clauses.as_ref()) else {
            return Ok(());
        };
        if let Some((_, refs)) = self.kernel.get_mut(text) {
            *refs += 1;
            return Ok(());
        }
        // No filter is every packet; the live set takes no empty expression,
        // so that flow's clause is one that accepts every frame.
        let clause = if text.trim().is_empty() {
            MATCH_ALL
        } else {
            text
        };
        let n = lock_clauses(clauses)
            .add(clause)
            .map_err(|e| e.to_string())?;
        self.kernel.insert(text.to_string(), (n, 1));
        Ok(())
    }

    /// One fewer active flow wants `text` (after it stopped being dispatched
    /// to): the clause goes with its last flow.
    pub(crate) fn release_clause(&mut self, text: &str, log: &Log) {
        if let Some(r) = self.running.as_ref().and_then(|r| r.redirect.clone()) {
            return self.release_xdp_clause(&r, text, log);
        }
        let Some(clauses) = self.running.as_ref().and_then(|r| r.clauses.as_ref()) else {
            return;
        };
        let Some((n, refs)) = self.kernel.get_mut(text) else {
            return;
        };
        *refs -= 1;
        if *refs == 0 {
            let n = *n;
            self.kernel.remove(text);
            if let Err(e) = lock_clauses(clauses).del(n) {
                log(&format!(
                    "source {}: removing clause {n}: {e}",
                    self.spec.name()
                ));
            }
        }
    }
}

impl Source {
    /// [`Source::hold_clause`] on an AF_XDP source: its program is made
    /// again with the new text among its clauses, unless an active flow has
    /// it already.
    fn hold_xdp_clause(&mut self, r: &crate::xsk::Redirect, text: &str) -> Result<(), String> {
        if let Some((_, refs)) = self.kernel.get_mut(text) {
            *refs += 1;
            return Ok(());
        }
        self.kernel.insert(text.to_string(), (0, 1));
        let made = self.xdp_program(r);
        if made.is_err() {
            self.kernel.remove(text);
        }
        made
    }

    /// [`Source::release_clause`] on an AF_XDP source: the program is made
    /// again without the text once its last flow is gone.
    fn release_xdp_clause(&mut self, r: &crate::xsk::Redirect, text: &str, log: &Log) {
        let Some((_, refs)) = self.kernel.get_mut(text) else {
            return;
        };
        *refs -= 1;
        if *refs == 0 {
            self.kernel.remove(text);
            if let Err(e) = self.xdp_program(r) {
                // The old program stays: a superset of what the flows want.
                log(&format!("source {}: {e}", self.spec.name()));
            }
        }
    }

    /// The program of the texts in `kernel`, compiled for received frames,
    /// and for those the kernel will take a VLAN tag out of where the source
    /// reads them so (`tag_out`).
    fn xdp_program(&self, r: &crate::xsk::Redirect) -> Result<(), String> {
        let sets = self
            .kernel
            .keys()
            .map(|t| {
                let clause = if t.trim().is_empty() { MATCH_ALL } else { t };
                let bad = |e: &dyn std::fmt::Display| format!("filter {clause:?}: {e}");
                match self.tag_out {
                    None => netsift_pcapc::compile_for(clause, self.target)
                        .map(|s| (s, None))
                        .map_err(|e| bad(&e)),
                    Some((tagged, _)) => {
                        let [s, t] = netsift_session::compile_each(clause, [self.target, tagged])
                            .map_err(|e| bad(&e))?;
                        Ok((s, Some(t)))
                    }
                }
            })
            .collect::<Result<Vec<_>, String>>()?;
        let refs: Vec<_> = sets.iter().map(|(s, t)| (s, t.as_ref())).collect();
        r.set_clauses(&refs)
            .map_err(|e| format!("the XDP program of the active filters: {e}"))
    }
}

/// Refuses an AF_XDP source the daemon must not or cannot run: one that
/// carries the host's traffic ([`crate::guard`]) unless it is a monitor port,
/// and one with more than one receive queue (the socket binds queue 0).
fn check_xdp(iface: &str, monitor: bool) -> Result<(), String> {
    if !monitor {
        if let Some(why) = crate::guard::host_traffic(iface) {
            return Err(format!(
                "--copy zero on {iface}: {why}, so it carries this host's traffic, which \
                 redirecting its frames to AF_XDP would take from the host stack; give \
                 --monitor-port {iface} if it is a monitor port"
            ));
        }
    }
    let queues = std::fs::read_dir(format!("/sys/class/net/{iface}/queues"))
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("rx-"))
                .count()
        })
        .unwrap_or(1);
    if queues > 1 {
        return Err(format!(
            "--copy zero on {iface}: {queues} receive queues; the AF_XDP source binds \
             queue 0 only (make it one, e.g. `ethtool -L {iface} combined 1`)"
        ));
    }
    Ok(())
}

/// The sink of an interface's capture: each ring block's accepted packets,
/// laid out as pcap records by the session, are one batch.
struct RingSink {
    dispatch: Arc<Mutex<Dispatch>>,
    /// The source's name, as the graphs it feeds know it.
    name: String,
    spare: Option<Records>,
}

impl Sink for RingSink {
    fn packet(&mut self, rec: &netsift_pcapio::Record<'_>) -> Result<(), SinkError> {
        let p = &rec.packet;
        let pkt = Packet {
            data: p.data,
            wirelen: p.orig_len,
            ts_ns: p.ts_sec * 1_000_000_000 + u64::from(p.ts_nsec),
            // One by one only from the XDP level, which sees received packets.
            outgoing: false,
            tag_out: false,
        };
        deliver(&self.dispatch, &self.name, &[pkt]);
        Ok(())
    }

    fn records(&mut self) -> Option<Records> {
        Some(match self.spare.take() {
            Some(r) => r.recycle(),
            None => Records::new(Vec::new(), true),
        })
    }

    fn write_records(&mut self, records: Records) -> Result<(), SinkError> {
        let pkts = parse_records(
            records.bytes(),
            (records.outgoing(), records.tag_put_back()),
        );
        if !pkts.is_empty() {
            deliver(&self.dispatch, &self.name, &pkts);
        }
        self.spare = Some(records);
        Ok(())
    }
}

/// The packets of records laid out by [`Records::push_directed`] with
/// nanosecond time stamps: `{sec, nsec, caplen, wirelen}` little-endian, then
/// the bytes; `outgoing` is their directions in order, `tagged` whether the
/// kernel took a VLAN tag out of each.
fn parse_records<'a>(mut b: &'a [u8], (outgoing, tagged): (&[bool], &[bool])) -> Vec<Packet<'a>> {
    let word = |b: &[u8], i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let mut out = Vec::new();
    while b.len() >= 16 {
        let (sec, nsec, caplen, wire) = (word(b, 0), word(b, 4), word(b, 8), word(b, 12));
        let end = 16 + caplen as usize;
        if end > b.len() {
            break;
        }
        out.push(Packet {
            data: &b[16..end],
            wirelen: wire,
            ts_ns: u64::from(sec) * 1_000_000_000 + u64::from(nsec),
            outgoing: outgoing.get(out.len()).copied().unwrap_or(false),
            tag_out: tagged.get(out.len()).copied().unwrap_or(false),
        });
        b = &b[end..];
    }
    out
}

/// Sleeps until `t` or `stop`, in short steps; false if stopped.
fn sleep_until(t: Instant, stop: &AtomicBool) -> bool {
    loop {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let now = Instant::now();
        if now >= t {
            return true;
        }
        std::thread::sleep((t - now).min(Duration::from_millis(20)));
    }
}

/// Plays the file at `path` into `dispatch` as `play` says, until its end (or
/// forever in a loop) or `stop`.
fn play_file(
    path: &Path,
    play: Play,
    dispatch: &Mutex<Dispatch>,
    stop: &AtomicBool,
) -> Result<(), String> {
    while lock(dispatch).counters.activations < play.wait_flows {
        if !sleep_until(Instant::now() + Duration::from_millis(5), stop) {
            return Ok(());
        }
    }
    loop {
        let mut reader =
            netsift_pcapio::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let start = Instant::now();
        let mut first: Option<u64> = None;
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            let batch = reader
                .next_batch(netsift_session::BATCH)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            if batch.is_empty() {
                break;
            }
            let mut pkts = Vec::with_capacity(batch.len());
            for rec in batch.iter() {
                let p = rec.packet;
                let ts = p.ts_sec.saturating_mul(1_000_000_000) + u64::from(p.ts_nsec);
                if !play.fast {
                    let f = *first.get_or_insert(ts);
                    let due = start + Duration::from_nanos(ts.saturating_sub(f));
                    if due > Instant::now() {
                        lock(dispatch).batch(&pkts);
                        pkts.clear();
                        if !sleep_until(due, stop) {
                            return Ok(());
                        }
                    }
                }
                pkts.push(Packet {
                    data: p.data,
                    wirelen: p.orig_len,
                    ts_ns: ts,
                    outgoing: false,
                    tag_out: false,
                });
            }
            lock(dispatch).batch(&pkts);
        }
        if !play.looped {
            lock(dispatch).counters.finished = true;
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn laid_out_records_read_back() {
        let mut r = Records::new(Vec::new(), true);
        r.push(3, 7, &[1, 2, 3], 60);
        r.push_directed(4, 999_999_999, &[], 0, (true, false));
        r.push_directed(5, 0, &[9], 64, (false, true));
        let p = parse_records(r.bytes(), (r.outgoing(), r.tag_put_back()));
        assert_eq!(p.len(), 3);
        assert_eq!(
            (p[0].data, p[0].wirelen, p[0].ts_ns),
            (&[1u8, 2, 3][..], 60, 3_000_000_007)
        );
        assert_eq!((p[1].data.len(), p[1].ts_ns), (0, 4_999_999_999));
        assert_eq!((p[0].outgoing, p[1].outgoing), (false, true));
        let tags: Vec<bool> = p.iter().map(|p| p.tag_out).collect();
        assert_eq!(tags, [false, false, true]);
    }
}
