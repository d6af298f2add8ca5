//! A live capture: opened from a [`Config`] (rings or the XDP hook, the filter
//! compiled and placed), then run into sinks until stopped.

use crate::clauses::Clauses;
use crate::config::{Config, FilterSpec, Source};
use crate::event::Events;
use crate::filter::{compile_each, directed_sets, lock, Mode, StaticFilter};
use crate::following::Following;
use crate::place::{place_clauses, place_follow, place_static};
use crate::report::Report;
use crate::sink::Sink;
use crate::xdp::XdpSource;
use crate::{Error, ErrorKind};
use netsift_capture::{Fanout, Ring};
use netsift_pcapc::{Meta, Target};
use netsift_wire::LinkType;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering};
use std::sync::{Arc, Mutex};

/// A live set of clauses, shared between the capture and its editors.
type Shared = Arc<Mutex<Clauses>>;

/// A capture, open and ready to run.
pub struct Capture {
    linktype: LinkType,
    snaplen: u32,
    count: Option<u64>,
    source: Opened,
}

enum Opened {
    /// AF_PACKET rings (one per worker) and the filter they run.
    Rings {
        rings: Vec<Ring>,
        mode: Mode,
        clauses: Option<Shared>,
    },
    /// The XDP hook.
    Xdp(Box<XdpSource>),
}

/// A fanout group's id: one per capture, unique in this process (a daemon runs
/// many) and likely different from other processes'.
fn fanout_id() -> u16 {
    static NEXT: AtomicU16 = AtomicU16::new(0);
    (std::process::id() as u16)
        .wrapping_add(NEXT.fetch_add(1, Ordering::Relaxed).wrapping_mul(0x9e37))
}

impl Capture {
    /// Opens the capture `cfg` asks for: its rings (all joined to the fanout
    /// group before the filter is placed, so a ring that joins later cannot
    /// miss flows the kernel already spread) or its XDP program, with the filter
    /// compiled and placed. What the session decides on the way (where the
    /// filter went, why not the kernel) goes to `events`.
    pub fn open(cfg: &Config, events: Events) -> Result<Capture, Error> {
        if let Source::Xdp(_) = cfg.source {
            let (x, linktype) = XdpSource::open(cfg, &events)?;
            return Ok(Capture {
                linktype,
                snaplen: cfg.snaplen,
                count: cfg.count,
                source: Opened::Xdp(Box::new(x)),
            });
        }
        let iface = cfg.source.interface();
        let mut ring_cfg = cfg.ring();
        let workers = cfg.workers.max(1);
        if workers > 1 {
            // A follower needs a control connection and the flows it announces
            // in one worker, in order: those share an address pair, not a
            // 5-tuple.
            let how = match cfg.filter {
                FilterSpec::Follow(_) => Fanout::HostPair,
                _ => Fanout::FlowHash,
            };
            ring_cfg.fanout = Some((fanout_id(), how));
        }
        let rings = (0..workers)
            .map(|_| Ring::open(&ring_cfg).map_err(Error::capture))
            .collect::<Result<Vec<_>, _>>()?;
        let linktype = match rings[0].linktype() {
            Some(lt) => lt,
            None => netsift_capture::linktype_of(iface).map_err(Error::capture)?,
        };
        // The rings' sockets, duplicated: a kernel filter goes under them, and
        // an editor may still edit it while a worker drops its ring.
        let socks = rings
            .iter()
            .map(|r| r.as_fd().try_clone_to_owned())
            .collect::<std::io::Result<Vec<OwnedFd>>>()
            .map_err(|e| Error::with_source(ErrorKind::Io, "duplicating a ring's socket", e))?;
        let ifindex = rings[0].ifindex() as u32;
        let (mode, clauses) = filter(cfg, (linktype, ifindex), socks, &events)?;
        Ok(Capture {
            linktype,
            snaplen: cfg.snaplen,
            count: cfg.count,
            source: Opened::Rings {
                rings,
                mode,
                clauses,
            },
        })
    }

    /// The link type of the packets it captures.
    pub fn linktype(&self) -> LinkType {
        self.linktype
    }

    /// The most bytes of a packet it keeps.
    pub fn snaplen(&self) -> u32 {
        self.snaplen
    }

    /// How many rings (workers) it reads; 0 for the XDP hook.
    pub fn workers(&self) -> usize {
        match &self.source {
            Opened::Rings { rings, .. } => rings.len(),
            Opened::Xdp(_) => 0,
        }
    }

    /// The live set of clauses, for a [`FilterSpec::Clauses`] capture: edit it
    /// while the capture runs (from another thread).
    pub fn clauses(&self) -> Option<Shared> {
        match &self.source {
            Opened::Rings { clauses, .. } => clauses.clone(),
            Opened::Xdp(_) => None,
        }
    }

    /// Captures into `sinks` (one, or with workers one per worker) until `stop`
    /// is set or the configured count is reached. The report comes whatever
    /// happened; the result says whether the capture ended well.
    pub fn run<S: Sink>(self, sinks: &mut [S], stop: &AtomicBool) -> (Report, Result<(), Error>) {
        let limit = self.count.unwrap_or(u64::MAX);
        let n = self.workers();
        if sinks.is_empty() || (sinks.len() > 1 && sinks.len() != n) {
            let e = Error::new(
                ErrorKind::Unsupported,
                format!(
                    "{} sinks for {n} workers: give one, or one per worker",
                    sinks.len()
                ),
            );
            return (Report::default(), Err(e));
        }
        match self.source {
            Opened::Xdp(mut x) => x.run(&mut sinks[0], stop, limit),
            Opened::Rings {
                mut rings, mode, ..
            } => {
                let (mut report, result) = if rings.len() == 1 {
                    crate::ring::run(&mut rings[0], &mode, &mut sinks[0], stop, limit)
                } else {
                    crate::workers::run(rings, &mode, sinks, stop, limit)
                };
                if let Mode::Follow(_, f) = &mode {
                    report.follow = Some(lock(f).report());
                }
                (report, result)
            }
        }
    }
}

/// The filter mode `cfg` asks for, on an interface of link type `lt` and index
/// `ifindex`, placed under `socks` as `cfg.placement` says.
fn filter(
    cfg: &Config,
    (lt, ifindex): (LinkType, u32),
    socks: Vec<OwnedFd>,
    events: &Events,
) -> Result<(Mode, Option<Shared>), Error> {
    let target = Target::new(lt);
    // `inbound`, `outbound` and `ifindex` test what the socket says of each
    // packet, and so does a frame's VLAN tag the kernel took out: a static
    // filter is compiled for received and sent packets, with and without a tag
    // taken out, on this interface (equal programs kept once).
    let tagged = |outgoing, tag_stripped| {
        target.meta(Meta {
            outgoing,
            ifindex,
            tag_stripped,
        })
    };
    let meta = |outgoing| tagged(outgoing, false);
    let at = (lt, cfg.snaplen);
    match &cfg.filter {
        FilterSpec::Static(expr) if expr.trim().is_empty() => Ok((Mode::Static(None), None)),
        FilterSpec::Static(expr) => {
            // A frame the kernel took a VLAN tag out of is read as libpcap's
            // kernel filter reads it, unless asked to read it as a file holds it.
            let strip = !cfg.tags_as_file;
            let [r, rt, s, st] = compile_each(
                expr,
                [
                    meta(false),
                    tagged(false, strip),
                    meta(true),
                    tagged(true, strip),
                ],
            )?;
            let split = [[r, rt], [s, st]];
            let decides = place_static(cfg.placement, &split, at, &socks, events)?;
            let f = StaticFilter::split(split, decides);
            Ok((Mode::Static(Some(Arc::new(f))), None))
        }
        FilterSpec::Follow(spec) => {
            // The follower compiles its base filter as for a dead handle, where
            // these primitives never match.
            let expr = spec.base.as_deref().unwrap_or_default();
            let (set, sent) = directed_sets(expr, meta(false), meta(true))?;
            if set != sent || set != crate::filter::compile(expr, target)? {
                return Err(Error::new(
                    ErrorKind::Filter,
                    format!(
                        "the filter tests the direction of packets or the interface \
                         (inbound/outbound/ifindex), which --follow does not read on {} yet; \
                         -Q in|out picks a direction",
                        cfg.source.interface()
                    ),
                ));
            }
            // Frames the kernel took a VLAN tag out of are judged by the
            // follower alone, as libpcap's kernel filter reads them; the
            // kernel's program leaves them to it.
            let tag_out =
                (!cfg.tags_as_file && lt == LinkType::EN10MB).then(|| tagged(false, true));
            let (mut following, live) = Following::new(spec, (lt, tag_out), events.clone())?;
            let room = following.capacity().max(1024) as u32;
            let placed = place_follow(
                cfg.placement,
                (spec, tag_out.is_some()),
                at,
                room,
                &socks,
                events,
            )?;
            if let Some(k) = placed {
                following.set_kernel(k);
            }
            Ok((Mode::Follow(live, Arc::new(Mutex::new(following))), None))
        }
        FilterSpec::Clauses(expr) => {
            // Frames the kernel took a VLAN tag out of are judged by a live set
            // of their own, as libpcap's kernel filter reads them; the kernel's
            // program leaves them to it.
            let tagged = (!cfg.tags_as_file && lt == LinkType::EN10MB).then(|| tagged(false, true));
            let kernel = place_clauses(cfg.placement, at, tagged.is_some(), socks, events)?;
            let (mut clauses, live, live_tagged) =
                Clauses::on_interface((meta(false), meta(true)), tagged, kernel, events.clone());
            if !expr.trim().is_empty() {
                clauses.add(expr)?;
            }
            let mode = if cfg.kernel_prefilter_only {
                Mode::Static(None)
            } else {
                Mode::Edited(live, live_tagged)
            };
            Ok((mode, Some(Arc::new(Mutex::new(clauses)))))
        }
    }
}
