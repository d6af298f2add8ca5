//! Where each instance of a running graph runs: the rule (docs/daemon.md,
//! "Placement").
//!
//! A socket filter can only keep or drop a packet; it cannot tell the daemon
//! which instance passed it. So an instance runs in the kernel (a socket
//! filter, or at XDP on an AF_XDP source), below the daemon, when it and everything upstream of it can run there and nothing
//! has to come back from it per packet:
//!
//! - a *kernel sink* is an active instance whose outcome is only MBuf state
//!   ([`Ability::MbufOnly`]: `packetcount`, `bytecount`, an FPL program that
//!   never passes a packet and that the kernel can run) whose every path to a
//!   source goes through stateless filters the kernel evaluates exactly
//!   ([`Ability::Filter`]: a `pcap` element with one program for both
//!   directions), at most [`MAX_PATHS`] paths;
//! - a filter or source is *resident* in the kernel (the daemon does not run
//!   it) when every active instance that reads it is a resident instance and
//!   no active flow delivers what it passes; otherwise the daemon runs it
//!   (and the kernel evaluates it again for the sinks below it, which is
//!   exact since it keeps no state);
//! - a `sampler` ([`Ability::Sampler`]) goes below with the kernel sinks it
//!   alone feeds ([`Plan::behind`]) when they are all that reads it, no
//!   active flow delivers what it passes, and its own paths are as a kernel
//!   sink's: it is then a kernel sink itself, running them on 1 in N.
//!
//! Everything else runs in the daemon, and [`Placed::why`] says why. The
//! daemon decides; a client never chooses. [`super::kernel`] turns the plan
//! into a program and falls back to the daemon where the kernel refuses it.
//!
//! [`kernel_clause`] is the other half: the clause a graph flow holds in the
//! ring's union program while it is active, so the kernel keeps what its
//! daemon-run first filters may want, and nothing for what runs below.

use netsift_graph::{FlowId, FlowSpec, InstanceId, Running};
use std::collections::{BTreeMap, BTreeSet};

pub(crate) use netsift_kernel::graphs::MAX_PATHS;

/// What an instance could do below the daemon, from what it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ability {
    /// The source: the packets of the socket the program sits under.
    Source,
    /// A stateless filter the kernel evaluates exactly.
    Filter,
    /// It passes no packet; what it does is only MBuf state.
    MbufOnly,
    /// A `sampler`: 1 in N of what reaches it, decided by a counter the
    /// kernel can keep exactly (an atomic add).
    Sampler,
    /// The daemon only, and why.
    Daemon(String),
}

/// Where an instance runs, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Placed {
    /// `kernel` (a socket filter), `xdp` (an AF_XDP source's XDP program) or
    /// `daemon`.
    pub(crate) runs: &'static str,
    /// Why there, as `netsift flow -d --graph` prints it.
    pub(crate) why: String,
}

/// The placement of a running graph.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    /// Every instance of the running graph.
    pub(crate) placed: BTreeMap<InstanceId, Placed>,
    /// The kernel sinks, in id order, each with its paths: the filter
    /// instances from a source down to it (an empty path: fed by the source).
    pub(crate) sinks: Vec<(InstanceId, Vec<Vec<InstanceId>>)>,
    /// Per sink of [`Plan::sinks`] that is a sampler, the kernel sinks it
    /// alone feeds (and every instance that reads it).
    pub(crate) behind: BTreeMap<InstanceId, Vec<InstanceId>>,
}

impl Plan {
    /// The instances the kernel runs and the daemon does not.
    pub(crate) fn resident(&self) -> BTreeSet<InstanceId> {
        self.placed
            .iter()
            .filter(|(_, p)| p.runs != "daemon")
            .map(|(id, _)| *id)
            .collect()
    }
}

/// The elements of `spec` nothing in it feeds: what the flow delivers.
fn last_elements(spec: &FlowSpec) -> impl Iterator<Item = usize> + '_ {
    (0..spec.filters.len()).filter(|&e| !spec.flow.edges.iter().any(|&(from, _)| from == e))
}

/// The paths from a source down to `id` through instances `ability` calls
/// filters, each in order from the top; an error names the instance in the
/// way, or says there are too many.
fn paths(
    running: &Running,
    id: InstanceId,
    ability: &dyn Fn(InstanceId) -> Ability,
) -> Result<Vec<Vec<InstanceId>>, String> {
    let Some(i) = running.instance(id) else {
        return Ok(Vec::new());
    };
    if i.upstream.is_empty() {
        return Ok(vec![Vec::new()]);
    }
    let mut out = Vec::new();
    for &u in &i.upstream {
        let class = running.instance(u).map_or("?", |i| i.class.name);
        match ability(u) {
            // A device passes what reaches it: nothing, when it is first,
            // else what a rule's filter in front of the graph passed.
            Ability::Source => out.extend(paths(running, u, ability)?),
            Ability::Filter => {
                // Upstream instances are older, so this ends; a flow is at most
                // 64 elements deep, and the count is bounded below.
                for mut p in paths(running, u, ability)? {
                    p.push(u);
                    out.push(p);
                }
            }
            Ability::MbufOnly | Ability::Sampler | Ability::Daemon(_) => {
                return Err(format!(
                    "upstream #{} ({class}) is not a filter the kernel evaluates, and a \
                     socket filter cannot hand verdicts down to it",
                    u.0
                ))
            }
        }
        if out.len() > MAX_PATHS {
            return Err(format!(
                "more than {MAX_PATHS} paths from the source, each evaluated in the kernel"
            ));
        }
    }
    Ok(out)
}

/// The paths from a source down to sampler `u`, if it can run below with
/// `sinks` (the kernel sinks it alone feeds) behind it: every instance that
/// reads it (`readers`) is one of them and no flow `delivers` what it passes.
fn sampler_paths(
    running: &Running,
    u: InstanceId,
    sinks: &[InstanceId],
    (readers, delivers): (
        &BTreeMap<InstanceId, BTreeSet<InstanceId>>,
        &BTreeSet<InstanceId>,
    ),
    ability: &dyn Fn(InstanceId) -> Ability,
    below: Result<&'static str, &str>,
) -> Result<Vec<Vec<InstanceId>>, String> {
    below.map_err(str::to_string)?;
    if delivers.contains(&u) {
        return Err("a flow takes what it passes".into());
    }
    let other = readers
        .get(&u)
        .and_then(|rs| rs.iter().find(|r| !sinks.contains(r)));
    if let Some(r) = other {
        return Err(format!("#{} reads it in the daemon", r.0));
    }
    paths(running, u, ability)
}

/// The plan for `running` with the flows `active` active, what each
/// instance can do (`ability`), and `below`: the source's kernel level to
/// place instances in (`kernel` or `xdp`), or the reason it has none.
pub(crate) fn plan(
    running: &Running,
    active: &BTreeSet<FlowId>,
    ability: &dyn Fn(InstanceId) -> Ability,
    below: Result<&'static str, &str>,
) -> Plan {
    let mut used = BTreeSet::new();
    let mut delivers = BTreeSet::new();
    let mut readers: BTreeMap<InstanceId, BTreeSet<InstanceId>> = BTreeMap::new();
    for f in active {
        let Some(rf) = running.flow(*f) else { continue };
        used.extend(rf.instances.iter().copied());
        delivers.extend(last_elements(&rf.spec).map(|e| rf.instances[e]));
        for &(from, to) in &rf.spec.flow.edges {
            readers
                .entry(rf.instances[from])
                .or_default()
                .insert(rf.instances[to]);
        }
    }
    let mut p = Plan::default();
    let mut why: BTreeMap<InstanceId, String> = BTreeMap::new();
    let mut behind: BTreeMap<InstanceId, Vec<InstanceId>> = BTreeMap::new();
    for &id in &used {
        if ability(id) != Ability::MbufOnly {
            continue;
        }
        // A sink a sampler alone feeds runs where the sampler's decision is.
        if let Some(&[u]) = running.instance(id).map(|i| &i.upstream[..]) {
            if ability(u) == Ability::Sampler {
                behind.entry(u).or_default().push(id);
                continue;
            }
        }
        let r = below
            .map_err(str::to_string)
            .and_then(|_| paths(running, id, ability));
        match r {
            Ok(ps) => p.sinks.push((id, ps)),
            Err(e) => {
                why.insert(id, e);
            }
        }
    }
    for (u, sinks) in behind {
        match sampler_paths(running, u, &sinks, (&readers, &delivers), ability, below) {
            Ok(ps) => {
                p.sinks.push((u, ps));
                p.behind.insert(u, sinks);
            }
            Err(e) => {
                for s in sinks {
                    why.insert(
                        s,
                        format!("upstream #{} (sampler) runs in the daemon: {e}", u.0),
                    );
                }
                why.insert(u, e);
            }
        }
    }
    p.sinks.sort_by_key(|(id, _)| *id);
    let mut resident: BTreeSet<InstanceId> = p.sinks.iter().map(|(id, _)| *id).collect();
    resident.extend(p.behind.values().flatten().copied());
    // Readers are newer than what they read: newest first, each decided
    // after its readers.
    for &id in used.iter().rev() {
        if resident.contains(&id) || !matches!(ability(id), Ability::Filter | Ability::Source) {
            continue;
        }
        let rs = readers.get(&id);
        let daemon_reader = rs.and_then(|rs| rs.iter().find(|r| !resident.contains(r)));
        if let Some(r) = daemon_reader {
            why.insert(id, format!("#{} reads it in the daemon", r.0));
        } else if delivers.contains(&id) {
            why.insert(id, "a flow takes what it passes".into());
        } else if rs.is_some_and(|rs| !rs.is_empty()) {
            resident.insert(id);
        }
    }
    for i in running.instances() {
        let id = i.id;
        let placed = if resident.contains(&id) {
            let level = below.unwrap_or("kernel");
            Placed {
                runs: level,
                why: resident_why(level, &ability(id)).into(),
            }
        } else if !used.contains(&id) {
            Placed {
                runs: "daemon",
                why: "no active flow uses it".into(),
            }
        } else {
            let why = match ability(id) {
                Ability::Daemon(w) => w,
                _ => why
                    .remove(&id)
                    .unwrap_or_else(|| "nothing in the kernel reads it".into()),
            };
            Placed {
                runs: "daemon",
                why,
            }
        };
        p.placed.insert(id, placed);
    }
    p
}

/// Why a resident instance that can do `what` runs at `level` (`kernel` or
/// `xdp`).
fn resident_why(level: &str, what: &Ability) -> &'static str {
    match (level, what) {
        ("xdp", Ability::MbufOnly) => {
            "only its MBuf changes: the graph's XDP program updates it before the redirect \
             decision, over the frames the interface receives (XDP sees no sent ones), and \
             no frame is redirected to the daemon for it"
        }
        ("xdp", Ability::Sampler) => {
            "only instances at XDP read it: the graph's XDP program counts each received \
             frame into its MBuf region atomically and runs them on 1 in N"
        }
        ("xdp", _) => {
            "only instances at XDP read it: the graph's XDP program evaluates it on each \
             received frame, its VLAN tags in place"
        }
        (_, Ability::MbufOnly) => {
            "only its MBuf changes: the graph's socket filter updates it, and no packet \
             is copied to user space for it"
        }
        (_, Ability::Sampler) => {
            "only instances in the kernel read it: the graph's socket filter counts each \
             packet into its MBuf region atomically and runs them on 1 in N"
        }
        (_, _) => "only instances in the kernel read it: the graph's socket filter evaluates it",
    }
}

/// The lowest level that could run instance `id` as a filter: `kernel` or
/// `daemon`. The source (the ring) and a `pcap` element fed only by such
/// elements could run in the union program under the ring, as a flow's
/// filter does (what [`plan`] puts in the kernel could run there too).
pub(crate) fn could_run(running: &Running, id: InstanceId) -> &'static str {
    let Some(i) = running.instance(id) else {
        return "daemon";
    };
    let kernel = match i.class.name {
        "device" => true,
        // Upstream instances are older, so this recursion ends; a flow is at
        // most 64 elements deep.
        "pcap" => i
            .upstream
            .iter()
            .all(|u| could_run(running, *u) == "kernel"),
        _ => false,
    };
    if kernel {
        "kernel"
    } else {
        "daemon"
    }
}

/// What a graph flow holds in the union program under the ring.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Clause {
    /// Nothing: everything it delivers and counts runs below the daemon.
    Nothing,
    /// Every packet.
    All,
    /// What one of these pcap expressions accepts.
    Any(Vec<String>),
}

/// The clause of `spec` while active, its elements for which `resident`
/// holds running in the kernel: the pcap expressions of its first filters
/// (the daemon-run elements fed only by its source) when every one of them
/// is a `pcap` element; every packet when some first filter is of another
/// class or a source delivers; nothing when every last element is resident.
pub(crate) fn kernel_clause(spec: &FlowSpec, resident: &dyn Fn(usize) -> bool) -> Clause {
    if last_elements(spec).all(resident) {
        return Clause::Nothing;
    }
    let is_source = |i: usize| spec.filters[i].class.name == "device";
    // A source that is a last element delivers every packet.
    if last_elements(spec).any(is_source) {
        return Clause::All;
    }
    let mut first = Vec::new();
    for (i, f) in spec.filters.iter().enumerate() {
        if is_source(i) || resident(i) || !spec.flow.upstream(i).all(is_source) {
            continue;
        }
        if f.class.name != "pcap" {
            return Clause::All;
        }
        first.push(match f.args.first() {
            Some(netsift_graph::class::Value::Text(t)) => t.clone(),
            Some(other) => other.to_string(),
            None => return Clause::All,
        });
    }
    if first.is_empty() {
        Clause::All
    } else {
        Clause::Any(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use netsift_graph::{Limits, Privilege};

    fn spec(text: &str) -> FlowSpec {
        FlowSpec::parse(text, Privilege::User, &Limits::default()).unwrap()
    }

    fn any(v: &[&str]) -> Clause {
        Clause::Any(v.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn the_kernel_keeps_what_the_first_daemon_filters_want() {
        let no = |_: usize| false;
        let s = spec("(device,e) -> ((pcap,udp) | (pcap,\"tcp\")) -> (sampler,2,4)");
        assert_eq!(kernel_clause(&s, &no), any(&["udp", "tcp"]));
        // Without a device the first filters are the ones fed by nothing.
        let s = spec("(pcap,udp) -> (sampler,2,4) -> (pcap,tcp)");
        assert_eq!(kernel_clause(&s, &no), any(&["udp"]));
        // A first filter of another class, or a device that is a last
        // element (it delivers every packet): the kernel keeps everything.
        for other in [
            "(device,e) -> (sampler,2,4)",
            "(device,e) | (pcap,udp)",
            "(device,e)",
        ] {
            assert_eq!(kernel_clause(&spec(other), &no), Clause::All, "{other}");
        }
        // What runs in the kernel needs no clause; a filter the daemon still
        // runs for a delivering element keeps its own.
        let s = spec("(device,e) -> (pcap,udp) -> (packetcount,,8)");
        assert_eq!(kernel_clause(&s, &|e| e > 0), Clause::Nothing);
        let s = spec("(device,e) -> (pcap,udp) -> ((packetcount,,8) | (pcap,\"port 53\"))");
        assert_eq!(kernel_clause(&s, &|e| e == 2), any(&["udp"]));
    }

    /// Abilities as the daemon gives them, by class.
    fn by_class(r: &Running) -> impl Fn(InstanceId) -> Ability + '_ {
        |id| match r.instance(id).map(|i| i.class.name) {
            Some("device") => Ability::Source,
            Some("pcap") => Ability::Filter,
            Some("packetcount" | "bytecount") => Ability::MbufOnly,
            _ => Ability::Daemon("not placed".into()),
        }
    }

    /// A running graph of `texts`, and their flows.
    fn running(texts: &[&str]) -> (Running, Vec<FlowId>) {
        let mut r = Running::new(Limits::default());
        let flows = texts
            .iter()
            .map(|t| r.instantiate(spec(t)).unwrap())
            .collect();
        (r, flows)
    }

    fn runs(r: &Running, p: &Plan, f: FlowId) -> Vec<&'static str> {
        let ids = &r.flow(f).unwrap().instances;
        ids.iter().map(|i| p.placed[i].runs).collect()
    }

    #[test]
    fn counters_behind_filters_go_below_and_what_the_daemon_reads_stays() {
        let (r, flows) = running(&[
            "(device,e) -> (pcap,udp) -> (packetcount,,8)",
            "(device,e) -> (pcap,udp) -> (pcap,\"port 53\")",
            "(device,e) -> (sampler,2,4) -> (bytecount,,8)",
        ]);
        let [a, b, c] = flows[..] else { panic!() };
        let ab = by_class(&r);
        let only_a: BTreeSet<FlowId> = [a].into();
        let p = plan(&r, &only_a, &ab, Ok("kernel"));
        assert_eq!(runs(&r, &p, a), ["kernel", "kernel", "kernel"]);
        assert_eq!(p.sinks.len(), 1);
        let udp = r.flow(a).unwrap().instances[1];
        assert_eq!(p.sinks[0].1, vec![vec![udp]]);
        // B reads the shared udp filter in the daemon: it runs there too, and
        // the kernel evaluates it again for A's counter.
        let p = plan(&r, &[a, b, c].into(), &ab, Ok("kernel"));
        assert_eq!(runs(&r, &p, a), ["daemon", "daemon", "kernel"]);
        assert_eq!(runs(&r, &p, b), ["daemon", "daemon", "daemon"]);
        assert!(
            p.placed[&udp].why.contains("reads it in the daemon"),
            "{p:?}"
        );
        // Behind a sampler a counter stays in the daemon, saying why.
        assert_eq!(runs(&r, &p, c), ["daemon", "daemon", "daemon"]);
        let count = r.flow(c).unwrap().instances[2];
        assert!(
            p.placed[&count].why.contains("(sampler) is not a filter"),
            "{p:?}"
        );
        // A sampler the kernel can keep: it and the counter it alone feeds
        // go below together.
        let with_sampler = |id: InstanceId| match r.instance(id).map(|i| i.class.name) {
            Some("sampler") => Ability::Sampler,
            _ => ab(id),
        };
        let p = plan(&r, &[c].into(), &with_sampler, Ok("xdp"));
        assert_eq!(runs(&r, &p, c), ["xdp", "xdp", "xdp"]);
        let sampler = r.flow(c).unwrap().instances[1];
        assert_eq!(p.sinks, vec![(sampler, vec![vec![]])]);
        assert_eq!(p.behind[&sampler], vec![count]);
        assert!(p.placed[&sampler].why.contains("1 in N"), "{p:?}");
        // No kernel level: nothing goes below, and the reason is given.
        let p = plan(&r, &only_a, &ab, Err("a capture file"));
        assert_eq!(runs(&r, &p, a), ["daemon", "daemon", "daemon"]);
        assert!(p.sinks.is_empty());
        let count = r.flow(a).unwrap().instances[2];
        assert_eq!(p.placed[&count].why, "a capture file");
        // A paused flow's instances run nowhere.
        let p = plan(&r, &BTreeSet::new(), &ab, Ok("kernel"));
        assert!(p.placed.values().all(|x| x.why == "no active flow uses it"));
    }

    #[test]
    fn a_sampler_goes_below_only_when_kernel_sinks_alone_read_it() {
        let (r, flows) = running(&[
            "(device,e) -> (pcap,udp) -> (sampler,3,4) -> (packetcount,,8)",
            "(device,e) -> (pcap,udp) -> (sampler,3,4) -> (pcap,\"port 53\")",
            "(device,e) -> (pcap,udp) -> (sampler,3,4)",
        ]);
        let [a, b, c] = flows[..] else { panic!() };
        let ab = |id: InstanceId| match r.instance(id).map(|i| i.class.name) {
            Some("sampler") => Ability::Sampler,
            _ => by_class(&r)(id),
        };
        let p = plan(&r, &[a].into(), &ab, Ok("kernel"));
        assert_eq!(runs(&r, &p, a), ["kernel"; 4]);
        let ids = &r.flow(a).unwrap().instances;
        assert_eq!(p.sinks, vec![(ids[2], vec![vec![ids[1]]])]);
        assert_eq!(p.behind[&ids[2]], vec![ids[3]]);
        // Another flow reads the sampler in the daemon, or takes what it
        // passes: it runs there, and so does the counter, saying why.
        for (other, said) in [(b, "reads it in the daemon"), (c, "a flow takes")] {
            let p = plan(&r, &[a, other].into(), &ab, Ok("kernel"));
            assert_eq!(runs(&r, &p, a), ["daemon"; 4], "{p:?}");
            assert!(p.sinks.is_empty() && p.behind.is_empty(), "{p:?}");
            assert!(p.placed[&ids[2]].why.contains(said), "{p:?}");
            let why = &p.placed[&ids[3]].why;
            assert!(why.contains("(sampler) runs in the daemon"), "{why}");
        }
    }

    #[test]
    fn a_pcap_prefix_could_run_in_the_kernel() {
        let (r, f) = running(&[
            "(device,e) -> (pcap,udp) -> (pcap,\"port 53\") -> (fpl,\"RETURN 1;\") -> (pcap,tcp)",
        ]);
        let ids = r.flow(f[0]).unwrap().instances.clone();
        let got: Vec<&str> = ids.iter().map(|i| could_run(&r, *i)).collect();
        assert_eq!(got, ["kernel", "kernel", "kernel", "daemon", "daemon"]);
    }
}
