//! The kernel-resident part of a source's running graph: [`super::place`]'s
//! plan made into one eBPF socket filter (`netsift_kernel::graphs`) under a
//! packet socket of its own on the interface, made again when a graph flow
//! is activated, paused or closed (off the packet path; the swap is one
//! `SO_ATTACH_BPF`), and gone with the last kernel sink.
//!
//! An instance that could run in the kernel ([`Ability::MbufOnly`],
//! [`Ability::Sampler`]) gets a `BPF_F_MMAPABLE` region for its MBuf when
//! it is made, on a ring or AF_XDP source (and an FPL instance a second for
//! its registers; a sampler's region counts every packet that reached it,
//! its MBuf shows that count modulo the rate). Clients keep mapping
//! the instance's sealed memfd, as for any MBuf: while the kernel runs the
//! instance, a mirror thread copies each region into its memfd a 64-bit word
//! at a time every [`MIRROR_EVERY`], and when the instance moves, its MBuf
//! and registers are carried over (into the regions before the program that
//! runs it is attached; out of them once it no longer runs it). A read-only
//! descriptor of the map itself would not do: the kernel refuses to map a
//! `BPF_F_RDONLY` map descriptor at all, and a writable one is writable.
//!
//! On an AF_XDP source (`--copy zero`) the same plan runs at XDP instead
//! (`Level::Xdp`): the program goes in front of the source's redirecting
//! program ([`crate::xsk::Redirect::set_graph`]), over the frames the
//! interface receives, and each placed instance says `xdp`.
//!
//! Falling back: a filter the kernel cannot evaluate exactly, or a program
//! the kernel refuses, sends the instances it would have added to the
//! daemon (for the instance's life, saying why) and keeps the program in
//! place; if even that does not load, nothing runs below.

use super::check::Kind;
use super::place::{self, Ability, Placed, Plan};
use crate::config::SourceSpec;
use crate::xsk::Redirect;
use netsift_ffpf::shm::RwMapping;
use netsift_graph::{FlowId, Instance, InstanceId, Running};
use netsift_kernel::codegen::Halves;
use netsift_kernel::graphs::{Action, Attached, GraphError, Level, Sink};
use netsift_kernel::shared::Region;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

/// How often a kernel-run instance's MBuf is copied to its clients.
pub(crate) const MIRROR_EVERY: Duration = Duration::from_millis(5);

/// An instance's memory in the kernel: its MBuf, and an FPL program's
/// registers with the program itself.
pub(crate) struct Regions {
    mbuf: Arc<Region>,
    fpl: Option<(Region, netsift_fpl::Program)>,
    /// A sampler's rate: its region counts every packet that reached it,
    /// and its MBuf shows that count modulo the rate.
    rate: Option<u32>,
    /// The MBuf's length, as the instance asked for it.
    len: usize,
}

/// How a region reaches a memfd: its first bytes as they are, or a
/// sampler's count modulo its rate as the first word (the daemon's MBuf:
/// 4 bytes of count, then zeros).
#[derive(Clone, Copy)]
enum Shown {
    Bytes(usize),
    Count(u32),
}

/// What the mirror copies: per kernel-run instance, its region, its
/// memfd's mapping and what it shows.
type Pairs = Vec<(Arc<Region>, Arc<RwMapping>, Shown)>;

/// The thread copying regions into memfds while some instance runs below.
struct Mirror {
    pairs: Arc<Mutex<Pairs>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Mirror {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Copies what `region` shows into `map`: its first bytes (whole words),
/// or a sampler's count.
fn mirror(region: &Region, map: &RwMapping, shown: Shown) {
    let len = match shown {
        Shown::Bytes(len) => len,
        Shown::Count(rate) => {
            let since = region.dwords()[0].load(Ordering::Relaxed) % u64::from(rate.max(1));
            map.store_words(0, &since.to_ne_bytes());
            return;
        }
    };
    let mut buf = [0u8; 8];
    for (i, w) in region.dwords().iter().take(len.div_ceil(8)).enumerate() {
        buf.copy_from_slice(&w.load(Ordering::Relaxed).to_ne_bytes());
        map.store_words(8 * i, &buf);
    }
}

fn lock(p: &Mutex<Pairs>) -> std::sync::MutexGuard<'_, Pairs> {
    p.lock().unwrap_or_else(|e| e.into_inner())
}

impl Regions {
    /// A sampler's packets since the last it passed, as the daemon counts
    /// them: the region's count modulo the rate.
    pub(crate) fn since(&self) -> u32 {
        let rate = u64::from(self.rate.unwrap_or(1).max(1));
        (self.mbuf.dwords()[0].load(Ordering::Relaxed) % rate) as u32
    }

    /// The MBuf's first `mem.len()` bytes into `mem`.
    pub(crate) fn load(&self, mem: &mut [u8]) {
        for (w, chunk) in self.mbuf.dwords().iter().zip(mem.chunks_mut(8)) {
            let b = w.load(Ordering::Relaxed).to_ne_bytes();
            chunk.copy_from_slice(&b[..chunk.len()]);
        }
    }

    /// `mem` into the MBuf, a word at a time (whole words, relaxed, as a
    /// memfd MBuf is published).
    pub(crate) fn store(&self, mem: &[u8]) {
        for (w, chunk) in self.mbuf.dwords().iter().zip(mem.chunks(8)) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            w.store(u64::from_ne_bytes(b), Ordering::Relaxed);
        }
    }

    /// The registers between the kernel's region and the daemon's copy:
    /// into the region when `to_kernel`, else out of it.
    pub(crate) fn carry_registers(&self, regs: &mut netsift_fpl::Registers, to_kernel: bool) {
        let Some((r, _)) = &self.fpl else { return };
        for (w, reg) in r.dwords().iter().zip(regs.iter_mut()) {
            if to_kernel {
                w.store(*reg as u64, Ordering::Relaxed);
            } else {
                *reg = w.load(Ordering::Relaxed) as i64;
            }
        }
    }
}

/// A source's kernel part.
pub(crate) struct Kernel {
    /// The interface the program goes under, or why there is none.
    below: Result<Below, String>,
    /// Active graph flows.
    active: BTreeSet<FlowId>,
    abilities: BTreeMap<InstanceId, Ability>,
    regions: BTreeMap<InstanceId, Regions>,
    attached: Option<Installed>,
    /// The kernel sinks of the program in place.
    in_program: BTreeSet<InstanceId>,
    plan: Plan,
    mirror: Option<Mirror>,
}

/// The interface a source's graph program goes under.
#[derive(Clone, Debug)]
pub(crate) struct Below {
    /// The interface's name: a `device` naming another interface is fed by
    /// that one's ring, which this program does not see.
    iface: String,
    at: At,
}

/// The level the program runs at.
#[derive(Clone, Debug)]
enum At {
    /// A socket filter under a packet socket of its own on `ifindex`.
    Socket {
        ifindex: u32,
        /// Loopback: each packet comes back in, and the ring keeps only that
        /// copy (as libpcap does), so the program skips the sent one.
        loopback: bool,
    },
    /// In front of an AF_XDP source's redirecting program (weak: the source
    /// owns it, and unlinks it when it stops).
    Xdp(Weak<Redirect>),
}

impl Below {
    /// The level's name, as `runs` says it.
    fn runs(&self) -> &'static str {
        match self.at {
            At::Socket { .. } => "kernel",
            At::Xdp(_) => "xdp",
        }
    }
}

/// The program in place.
enum Installed {
    Socket(Attached),
    /// Linked in front of the redirecting program; unlinked on drop.
    Xdp(Weak<Redirect>),
}

impl Drop for Installed {
    fn drop(&mut self) {
        if let Installed::Xdp(r) = self {
            if let Some(r) = r.upgrade() {
                // On an error the graph's program stays in front, counting
                // into regions nothing mirrors any more: harmless.
                let _ = r.set_graph(None);
            }
        }
    }
}

/// Where a source's graph elements can go below the daemon: its
/// interface, or why nowhere. `redirect` is an AF_XDP source's program,
/// while it runs.
pub(crate) fn below(spec: &SourceSpec, redirect: Option<&Arc<Redirect>>) -> Result<Below, String> {
    match spec {
        SourceSpec::Ring { iface, .. } if iface == "any" => {
            Err("`any` is every interface, each with its own link header: not placed below".into())
        }
        SourceSpec::Ring { iface, .. } => {
            let ifindex = netsift_capture::ifindex(iface).map_err(|e| format!("{iface}: {e}"))?;
            let kind = std::fs::read_to_string(format!("/sys/class/net/{iface}/type"));
            Ok(Below {
                iface: iface.clone(),
                at: At::Socket {
                    ifindex: ifindex as u32,
                    loopback: kind.is_ok_and(|t| t.trim() == "772"),
                },
            })
        }
        SourceSpec::Xdp { iface, .. } => match redirect {
            Some(r) => Ok(Below {
                iface: iface.clone(),
                at: At::Xdp(Arc::downgrade(r)),
            }),
            None => Err(format!("the AF_XDP source {iface} is not running")),
        },
        SourceSpec::File { .. } => Err("a capture file has no kernel below the daemon".into()),
    }
}

/// Whether `program` never passes a packet: every `RETURN` gives 0 (the end
/// of the program and a fault give 0 too).
fn never_passes(body: &[netsift_fpl::hir::Stmt]) -> bool {
    use netsift_fpl::hir::{Expr, Stmt};
    body.iter().all(|s| match s {
        Stmt::Return(e) => *e == Expr::Const(0),
        Stmt::If { then, els, .. } => never_passes(then) && never_passes(els),
        Stmt::Loop(l) => never_passes(&l.init) && never_passes(&l.step) && never_passes(&l.body),
        Stmt::Assign { .. } | Stmt::Break | Stmt::Eval(_) => true,
    })
}

/// What an FPL instance could do below: `MbufOnly` with its checked program
/// when it never passes a packet and the kernel can run it.
fn fpl(i: &Instance) -> Result<netsift_fpl::Program, String> {
    let text = match i.args.first() {
        Some(netsift_graph::class::Value::Text(t)) => t.as_str(),
        _ => "",
    };
    // With its callable filters, so that a caller is refused below by the
    // back end (filter calls run in the daemon), not misread as an unknown
    // external function.
    let p = super::calls::program(text, i.mbuf, &i.calls, &netsift_externs::standard())?;
    if !never_passes(p.body()) {
        return Err(
            "it may pass packets (a RETURN that is not 0), which a socket filter \
                    cannot hand on per instance"
                .into(),
        );
    }
    netsift_kernel::fpl::refuse(&p, Some(text)).map_err(|e| e.to_string())?;
    Ok(p)
}

impl Kernel {
    /// No program; nothing adopted.
    pub(crate) fn new() -> Kernel {
        Kernel {
            below: Err("no source yet".into()),
            active: BTreeSet::new(),
            abilities: BTreeMap::new(),
            regions: BTreeMap::new(),
            attached: None,
            in_program: BTreeSet::new(),
            plan: Plan::default(),
            mirror: None,
        }
    }

    /// The source's level below the daemon ([`below`]), for instances made
    /// from now on.
    pub(crate) fn set_below(&mut self, below: Result<Below, String>) {
        self.below = below;
    }

    /// A new instance `i` running as `kind`: what it could do below, and, if
    /// that is counting into its MBuf, the region it keeps for its life.
    pub(crate) fn adopt(&mut self, i: &Instance, kind: &Kind) {
        let mut program = None;
        let ability = match kind {
            Kind::Source => match (&self.below, i.args.first()) {
                (Ok(b), Some(netsift_graph::class::Value::Text(d))) if *d != b.iface => {
                    Ability::Daemon(format!(
                        "device {d} is another interface, whose packets reach this graph \
                         through the daemon"
                    ))
                }
                _ => Ability::Source,
            },
            Kind::Pcap(p)
                if p.sent.is_some() || p.tag_out.as_ref().is_some_and(|t| t.sent.is_some()) =>
            {
                Ability::Daemon(
                    "its expression tests the direction, which one program for both directions \
                 cannot"
                        .into(),
                )
            }
            Kind::Pcap(_) => Ability::Filter,
            Kind::Bpf(_) => Ability::Daemon(
                "classic BPF runs in the daemon's interpreter, not compiled to eBPF".into(),
            ),
            Kind::Sampler(_) => Ability::Sampler,
            Kind::PacketCount | Kind::ByteCount if i.mbuf >= 8 => Ability::MbufOnly,
            Kind::PacketCount | Kind::ByteCount => {
                Ability::Daemon("no MBuf to count in (it asks for fewer than 8 bytes)".into())
            }
            Kind::Fpl(..) => match fpl(i) {
                Ok(p) => {
                    program = Some(p);
                    Ability::MbufOnly
                }
                Err(e) => Ability::Daemon(e),
            },
            Kind::Follow(_) => Ability::Daemon(
                "a follower parses control payloads and edits its live set, which only the \
                 daemon can"
                    .into(),
            ),
            Kind::External(_) => Ability::Daemon(
                "external functions are native code in the daemon (FPL's EXTERN is refused \
                 for the kernel too)"
                    .into(),
            ),
            Kind::Native(_) => {
                Ability::Daemon("a native filter is a shared object loaded by the daemon".into())
            }
        };
        let rate = match kind {
            Kind::Sampler(rate) => Some(*rate),
            _ => None,
        };
        let ability = match (ability, &self.below) {
            (a @ (Ability::MbufOnly | Ability::Sampler), Ok(_)) => {
                match regions(i, program, rate) {
                    Ok(r) => {
                        self.regions.insert(i.id, r);
                        a
                    }
                    Err(e) => Ability::Daemon(format!("its MBuf in the kernel: {e}")),
                }
            }
            (a, _) => a,
        };
        self.abilities.insert(i.id, ability);
    }

    /// Instance `id` is gone.
    pub(crate) fn forget(&mut self, id: InstanceId) {
        self.abilities.remove(&id);
        self.regions.remove(&id);
    }

    /// Flow `flow` is active (`true`) or no longer is.
    pub(crate) fn set_active(&mut self, flow: FlowId, on: bool) {
        if on {
            self.active.insert(flow);
        } else {
            self.active.remove(&flow);
        }
    }

    /// Instance `id`'s kernel memory, if it has some.
    pub(crate) fn regions(&self, id: InstanceId) -> Option<&Regions> {
        self.regions.get(&id)
    }

    /// Mirrors the MBuf regions of the instances in `pairs` (each with its
    /// memfd's mapping) from now on, and no others: the thread starts with
    /// the first and stops with the last.
    pub(crate) fn mirror(&mut self, pairs: Vec<(InstanceId, Arc<RwMapping>)>) {
        let pairs: Pairs = pairs
            .into_iter()
            .filter_map(|(id, map)| {
                let r = self.regions.get(&id)?;
                let shown = match r.rate {
                    // The daemon's sampler shows its count where it has room.
                    Some(rate) if r.len >= 4 => Shown::Count(rate),
                    Some(_) => Shown::Bytes(0),
                    None => Shown::Bytes(r.mbuf.len()),
                };
                Some((Arc::clone(&r.mbuf), map, shown))
            })
            .collect();
        if pairs.is_empty() {
            // Joined on drop, after a last copy of what it mirrored.
            if let Some(m) = self.mirror.take() {
                for (r, map, shown) in lock(&m.pairs).iter() {
                    mirror(r, map, *shown);
                }
            }
            return;
        }
        if let Some(m) = &self.mirror {
            *lock(&m.pairs) = pairs;
            return;
        }
        let shared = Arc::new(Mutex::new(pairs));
        let stop = Arc::new(AtomicBool::new(false));
        let (p, s) = (Arc::clone(&shared), Arc::clone(&stop));
        let thread = std::thread::Builder::new()
            .name("mbuf mirror".into())
            .spawn(move || {
                while !s.load(Ordering::Relaxed) {
                    for (r, map, shown) in lock(&p).iter() {
                        mirror(r, map, *shown);
                    }
                    std::thread::sleep(MIRROR_EVERY);
                }
            })
            .ok();
        self.mirror = Some(Mirror {
            pairs: shared,
            stop,
            thread,
        });
    }

    /// Where instance `id` runs now, and why.
    pub(crate) fn placed(&self, id: InstanceId) -> Option<&Placed> {
        self.plan.placed.get(&id)
    }

    /// Plans `running` again and puts the program in place (or removes it);
    /// the instances the daemon no longer runs, and what went wrong, to log.
    pub(crate) fn update<'k>(
        &mut self,
        running: &Running,
        kind: &dyn Fn(InstanceId) -> Option<&'k Kind>,
    ) -> (BTreeSet<InstanceId>, Option<String>) {
        let mut trouble = None;
        // Each round sends at least one instance to the daemon for good, so
        // this ends; a graph has at most a few hundred instances.
        loop {
            let below = self.below.as_ref().map(Below::runs).map_err(String::as_str);
            let abilities = &self.abilities;
            let ab = |id: InstanceId| {
                abilities
                    .get(&id)
                    .cloned()
                    .unwrap_or_else(|| Ability::Daemon("not built".into()))
            };
            let plan = place::plan(running, &self.active, &ab, below);
            if plan.sinks.is_empty() {
                self.attached = None;
                self.in_program.clear();
                self.plan = plan;
                break;
            }
            match self.install(&plan, kind) {
                Ok(()) => {
                    self.in_program = plan.sinks.iter().map(|(id, _)| *id).collect();
                    self.in_program
                        .extend(plan.behind.values().flatten().copied());
                    self.plan = plan;
                    break;
                }
                Err((culprits, e)) => {
                    let why = format!("the kernel refused its program: {e}");
                    trouble = Some(why.clone());
                    let fresh: Vec<InstanceId> = culprits
                        .into_iter()
                        .filter(|c| !self.in_program.contains(c))
                        .collect();
                    let give_up = fresh.is_empty();
                    for c in fresh {
                        self.abilities.insert(c, Ability::Daemon(why.clone()));
                    }
                    if give_up {
                        // Not even what loaded before: nothing below.
                        for s in std::mem::take(&mut self.in_program) {
                            self.abilities.insert(s, Ability::Daemon(why.clone()));
                        }
                        self.attached = None;
                    }
                }
            }
        }
        (self.plan.resident(), trouble)
    }

    /// What kernel sink `id` does in `plan`'s program: a sampler runs the
    /// sinks behind it.
    fn action<'k>(
        &self,
        id: InstanceId,
        kind: &dyn Fn(InstanceId) -> Option<&'k Kind>,
        plan: &Plan,
    ) -> Result<Action<'_>, String> {
        let r = self
            .regions
            .get(&id)
            .ok_or_else(|| format!("instance {} has no region", id.0))?;
        Ok(match (kind(id), &r.fpl) {
            (Some(Kind::PacketCount), _) => Action::Packets(r.mbuf.as_ref()),
            (Some(Kind::ByteCount), _) => Action::Bytes(r.mbuf.as_ref()),
            (Some(Kind::Fpl(..)), Some((regs, p))) => Action::Fpl(
                p,
                netsift_kernel::fpl::Maps {
                    mbuf: r.mbuf.map().fd(),
                    regs: regs.map().fd(),
                },
            ),
            (Some(Kind::Sampler(rate)), _) => Action::Sample {
                counter: r.mbuf.as_ref(),
                rate: *rate,
                then: plan
                    .behind
                    .get(&id)
                    .into_iter()
                    .flatten()
                    .map(|s| self.action(*s, kind, plan))
                    .collect::<Result<_, _>>()?,
            },
            _ => return Err(format!("instance {} cannot count", id.0)),
        })
    }

    /// Generates `plan`'s program and puts it under the socket; on an error,
    /// the instances to blame (a filter that is not exact, or every sink).
    fn install<'k>(
        &mut self,
        plan: &Plan,
        kind: &dyn Fn(InstanceId) -> Option<&'k Kind>,
    ) -> Result<(), (Vec<InstanceId>, String)> {
        let below = self.below.clone().map_err(|e| (Vec::new(), e))?;
        let sinks_ids: Vec<InstanceId> = plan
            .sinks
            .iter()
            .map(|(id, _)| *id)
            .chain(plan.behind.values().flatten().copied())
            .collect();
        let all = |e: String| (sinks_ids.clone(), e);
        let mut filters: Vec<InstanceId> = Vec::new();
        let mut sinks = Vec::new();
        for (id, paths) in &plan.sinks {
            let mut ps = Vec::new();
            for p in paths {
                let mut q = Vec::new();
                for f in p {
                    let at = match filters.iter().position(|x| x == f) {
                        Some(at) => at,
                        None => {
                            filters.push(*f);
                            filters.len() - 1
                        }
                    };
                    q.push(at);
                }
                ps.push(q);
            }
            let action = self.action(*id, kind, plan).map_err(all)?;
            sinks.push(Sink { action, paths: ps });
        }
        // Each with its program for frames the kernel takes a VLAN tag out
        // of, where the source reads them so (as the daemon runs it).
        let sets: Vec<Halves<'_>> = filters
            .iter()
            .map(|f| match kind(*f) {
                Some(Kind::Pcap(p)) => Ok(Halves {
                    untagged: p.received.pass_set(),
                    tagged: p.tag_out.as_ref().map(|t| t.received.pass_set()),
                }),
                _ => Err(all(format!("instance {} is not a filter", f.0))),
            })
            .collect::<Result<_, _>>()?;
        let level = match &below.at {
            At::Socket { loopback, .. } => Level::Socket { sent: !loopback },
            At::Xdp(r) => {
                let r = r
                    .upgrade()
                    .ok_or_else(|| all("the AF_XDP source stopped".into()))?;
                Level::Xdp { then: r.then_fd() }
            }
        };
        let program = netsift_kernel::graphs::generate_tagged(&sets, &sinks, level);
        let program = program.map_err(|e| match e {
            GraphError::NotExact(i) => (vec![filters[i]], e.to_string()),
            e => all(e.to_string()),
        })?;
        match (&mut self.attached, &below.at) {
            (Some(Installed::Socket(a)), At::Socket { .. }) => {
                a.swap(&program).map_err(|e| all(e.to_string()))
            }
            (_, At::Socket { ifindex, .. }) => {
                let a = Attached::open(*ifindex, &program).map_err(|e| all(e.to_string()))?;
                self.attached = Some(Installed::Socket(a));
                Ok(())
            }
            (_, At::Xdp(r)) => {
                let redirect = r
                    .upgrade()
                    .ok_or_else(|| all("the AF_XDP source stopped".into()))?;
                // Held for this source's program now (a source that stopped
                // and started again has another): dropping what was held
                // for another unlinks the graph from it.
                if !matches!(&self.attached, Some(Installed::Xdp(w)) if w.ptr_eq(r)) {
                    self.attached = Some(Installed::Xdp(Weak::clone(r)));
                }
                redirect.set_graph(Some(&program.insns)).map_err(all)
            }
        }
    }
}

/// The regions of instance `i`: its MBuf (whole words, at least one), and
/// with an FPL `program` its registers; a sampler's `rate`.
fn regions(
    i: &Instance,
    program: Option<netsift_fpl::Program>,
    rate: Option<u32>,
) -> Result<Regions, String> {
    let len = (i.mbuf as usize).div_ceil(8).max(1) * 8;
    let mbuf = Arc::new(Region::create(len).map_err(|e| e.to_string())?);
    let fpl = match program {
        Some(p) => {
            let regs = Region::create(netsift_kernel::fpl::REGS_LEN).map_err(|e| e.to_string())?;
            Some((regs, p))
        }
        None => None,
    };
    Ok(Regions {
        mbuf,
        fpl,
        rate,
        len: i.mbuf as usize,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(text: &str) -> netsift_fpl::Program {
        let opts = netsift_fpl::Options {
            mbuf_len: 64,
            ..netsift_fpl::Options::default()
        };
        netsift_fpl::compile(text, &opts, &netsift_externs::standard()).unwrap()
    }

    #[test]
    fn a_program_that_returns_only_0_never_passes() {
        for (text, never) in [
            ("MEM[0]++;", true),
            ("IF (PKT.B[0] == 1) THEN RETURN 0; FI", true),
            ("IF (PKT.B[0] == 1) THEN RETURN 1; FI", false),
            ("FOR (R[0] = 0; R[0] < 4; R[0]++) RETURN R[0]; ROF", false),
            ("RETURN 0;", true),
        ] {
            assert_eq!(never_passes(program(text).body()), never, "{text}");
        }
    }
}
