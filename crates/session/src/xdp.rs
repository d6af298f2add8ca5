//! The XDP source: FFPF's lowest level on today's Linux. The filter is
//! generated as an XDP program (`netsift_kernel::codegen`, `Hook::Xdp`) and
//! linked to the interface. It runs on each received frame before the kernel
//! builds a socket buffer, copies what it accepts into a BPF ring buffer, and
//! passes every frame on to the host stack. This loop reads the ring buffer and
//! hands the records to the sink as the ring loop does.
//!
//! What differs from the socket level: only received frames are seen, before
//! GRO merges them; a frame is copied up to `XDP_CAP_MAX` bytes at most; and
//! time stamps are the program's `bpf_ktime_get_ns`, put on the wall clock here.

use crate::config::{Config, Direction, FilterSpec};
use crate::event::{Event, Events, Placed};
use crate::report::{Report, XdpReport};
use crate::sink::{record, split_ns, Sink};
use crate::{Error, ErrorKind};
use netsift_engine::{Compiled, Scratch};
use netsift_isa::PassSet;
use netsift_kernel::codegen::{
    generate, generate_split, Env, Halves, Split, XDP_CAP_MAX, XDP_HDR, XDP_STATS,
};
use netsift_kernel::ringbuf::RingBuf;
use netsift_kernel::sys::{Map, MapKind, ProgKind, Program};
use netsift_pcapc::{Meta, Target};
use netsift_wire::LinkType;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, Ordering};

/// The ring buffer's size when the configuration gives none: 4 MiB.
const DEFAULT_RING: usize = 4 << 20;

/// An XDP program linked to an interface, and the ring buffer it fills.
pub(crate) struct XdpSource {
    ring: RingBuf,
    stats: Map,
    /// The program, unlinked when this goes.
    _link: OwnedFd,
    /// Where the program is not decisive, the filter that decides what it
    /// passes unsure, and the one for frames the kernel will take a tag out of
    /// where it differs ([`tag_ahead`]).
    recheck: Option<(Compiled, Option<Compiled>)>,
    snaplen: u32,
}

fn placement(e: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Placement, e.to_string())
}

/// What the XDP level cannot do (yet), as an error that says so.
fn refused(cfg: &Config) -> Option<&'static str> {
    if cfg.source.interface() == netsift_capture::ANY {
        return Some("the XDP hook belongs to one interface, not `any`");
    }
    if !matches!(cfg.filter, FilterSpec::Static(_)) {
        return Some("a follower and a live set of clauses edit the filter in user space");
    }
    if cfg.workers > 1 {
        return Some("workers split a capture ring, and the XDP level has none");
    }
    if cfg.direction == Direction::Out {
        return Some("the XDP hook sees received frames only");
    }
    None
}

/// Whether the kernel will take the tag of `frame` out on receive (its
/// outermost EtherType is 802.1Q or 802.1ad: `skb_vlan_untag`), so that
/// libpcap's kernel filter reads it without the tag. At the XDP hook (and in
/// an AF_XDP socket) the tag is still in the frame.
pub fn tag_ahead(frame: &[u8]) -> bool {
    matches!(frame.get(12..14), Some([0x81, 0x00] | [0x88, 0xa8]))
}

/// The program `set` is made into at the XDP hook, with `tagged` for the frames
/// [`tag_ahead`] picks where it differs, and the maps it writes.
fn program(
    (set, tagged): (&PassSet, Option<&PassSet>),
    snaplen: u32,
    ring_size: u32,
) -> Result<(netsift_kernel::codegen::Generated, RingBuf, Map), Error> {
    let ring = RingBuf::create(ring_size).map_err(placement)?;
    let stats = Map::create(MapKind::PerCpuArray, 4, 8, XDP_STATS).map_err(placement)?;
    let env = Env::xdp(ring.map().fd(), stats.fd(), snaplen);
    let g = match tagged {
        None => generate(set, env),
        Some(t) => {
            let received = Halves {
                untagged: set,
                tagged: Some(t),
            };
            let split = Split {
                received,
                sent: None,
            };
            generate_split(split, env.tags_ahead())
        }
    };
    Ok((g.map_err(placement)?, ring, stats))
}

impl XdpSource {
    /// Links the filter of `cfg` to its interface's XDP hook.
    pub(crate) fn open(cfg: &Config, events: &Events) -> Result<(XdpSource, LinkType), Error> {
        if let Some(why) = refused(cfg) {
            return Err(Error::new(ErrorKind::Unsupported, why));
        }
        let iface = cfg.source.interface();
        let lt = netsift_capture::linktype_of(iface).map_err(Error::capture)?;
        if lt != LinkType::EN10MB {
            return Err(placement(format!(
                "the XDP program reads Ethernet frames, not {lt}"
            )));
        }
        let ifindex = netsift_capture::ifindex(iface).map_err(Error::capture)? as u32;
        let FilterSpec::Static(expr) = &cfg.filter else {
            unreachable!("refused above")
        };
        // Every frame at the hook was received on this interface: `inbound` and
        // `ifindex` are constants of the program. A frame whose tag the kernel
        // will take out is read as libpcap's kernel filter will read it.
        let target = |tag_stripped| {
            Target::new(lt).meta(Meta {
                outgoing: false,
                ifindex,
                tag_stripped,
            })
        };
        let [set, tagged] =
            crate::filter::compile_each(expr, [target(false), target(!cfg.tags_as_file)])?;
        let tagged = (tagged != set).then_some(tagged);
        let size = cfg
            .buffer
            .unwrap_or(DEFAULT_RING)
            .next_power_of_two()
            .clamp(1 << 16, 1 << 30);
        let (g, ring, stats) = program((&set, tagged.as_ref()), cfg.snaplen, size as u32)?;
        let prog = Program::load(ProgKind::Xdp, "netsift", &g.insns).map_err(placement)?;
        // The driver's hook where the interface has one, else the generic one.
        let link = prog.link_xdp(ifindex, 0).map_err(placement)?;
        events(Event::Placed(Placed::Xdp {
            insns: g.insns.len(),
            decisive: g.decisive,
            cap: cfg.snaplen.min(XDP_CAP_MAX),
        }));
        let src = XdpSource {
            ring,
            stats,
            _link: link,
            recheck: (!g.decisive).then(|| (Compiled::new(set), tagged.map(Compiled::new))),
            snaplen: cfg.snaplen,
        };
        Ok((src, lt))
    }

    /// Hands what the program copies to `sink` until `stop` or `limit` packets.
    pub(crate) fn run<S: Sink>(
        &mut self,
        sink: &mut S,
        stop: &AtomicBool,
        limit: u64,
    ) -> (Report, Result<(), Error>) {
        let mut captured = 0u64;
        let result = self.records(sink, stop, limit, &mut captured);
        let result = result.and(sink.flush().map_err(Error::sink));
        let count = |w: u32| self.stats.sum_percpu_u64(w).map_err(placement);
        let counts = (|| Ok::<_, Error>((count(0)?, count(1)?, count(2)?)))();
        let mut report = Report {
            captured,
            ..Report::default()
        };
        match counts {
            Ok((seen, accepted, full)) => {
                report.received = seen;
                report.dropped = full;
                report.xdp = Some(XdpReport {
                    seen,
                    accepted,
                    full,
                });
                (report, result)
            }
            Err(e) => (report, result.and(Err(e))),
        }
    }

    /// The loop over the ring buffer.
    fn records<S: Sink>(
        &mut self,
        sink: &mut S,
        stop: &AtomicBool,
        limit: u64,
        captured: &mut u64,
    ) -> Result<(), Error> {
        // The program stamps CLOCK_MONOTONIC; a record's wall-clock time adds
        // the offset between the clocks now.
        let offset = netsift_kernel::ringbuf::monotonic_to_realtime_ns();
        let mut scratch = Scratch::new();
        let snaplen = self.snaplen as usize;
        while !stop.load(Ordering::Relaxed) && *captured < limit {
            if !self.ring.wait(100).map_err(placement)? {
                continue;
            }
            let mut failed = None;
            let recheck = &self.recheck;
            self.ring.drain(|rec| {
                if failed.is_some() || *captured >= limit || rec.len() < XDP_HDR as usize {
                    return;
                }
                let word = |at: usize| {
                    u32::from_ne_bytes([rec[at], rec[at + 1], rec[at + 2], rec[at + 3]])
                };
                let (cap, wire) = (word(0) as usize, word(4));
                let mut mono = [0u8; 8];
                mono.copy_from_slice(&rec[8..16]);
                let mono = u64::from_ne_bytes(mono);
                let Some(data) = rec.get(XDP_HDR as usize..XDP_HDR as usize + cap) else {
                    return;
                };
                if let Some((f, tagged)) = recheck {
                    let f = match tagged {
                        Some(t) if tag_ahead(data) => t,
                        _ => f,
                    };
                    if !f.matches(&mut scratch, data, wire) {
                        return;
                    }
                }
                let (sec, nsec) = split_ns((i128::from(mono) + offset).max(0) as u64);
                let data = &data[..cap.min(snaplen)];
                *captured += 1;
                if let Err(e) = sink.packet(&record(sec, nsec, data, wire)) {
                    failed = Some(Error::sink(e));
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
        }
        Ok(())
    }
}

/// The XDP program made from `set`, listed (with maps made for it).
pub fn xdp_listing(set: &PassSet, lt: LinkType, snaplen: u32) -> Result<String, Error> {
    if lt != LinkType::EN10MB {
        return Err(placement(format!(
            "the XDP program reads Ethernet frames, not {lt}"
        )));
    }
    let (g, _ring, _stats) = program((set, None), snaplen, 1 << 16)?;
    let mut out = format!(
        "; XDP program, {} instructions; {}\n",
        g.insns.len(),
        if g.decisive {
            "decisive: it copies exactly what the filter accepts"
        } else {
            "user space decides what it copies unsure"
        }
    );
    out.push_str(&netsift_kernel::asm::listing(&g.insns));
    Ok(out)
}
