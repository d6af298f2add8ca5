//! The running graph: filter instances, each with its own id (that will own an
//! IBuf and an MBuf), and the flows that use them.
//!
//! **Prefix merging.** Instantiating a flow walks its elements in written order
//! (a topological order, see [`lower`](crate::syntax)) and gives each the instance
//! with the same key — class, arguments, MBuf size, the filters it may call and
//! the set of upstream *instances* — if one runs, else a new one. Because the key holds the upstream
//! instances, which were themselves found by key, two instances are merged exactly
//! when everything upstream of them is the same: a shared prefix runs once, and two
//! filters fed by different streams are never joined.
//!
//! **Reference counts.** An instance counts the flows that use it (a flow that
//! names the same instance twice counts once). Closing a flow drops its counts and
//! removes the instances left at zero. Every flow that uses an instance also uses
//! all of its upstream, so an instance's count is never more than its upstream's
//! and removal never leaves an edge dangling.
//!
//! Ids are handed out in increasing order and never reused, so the same calls give
//! the same ids, and a reader holding a closed instance's id cannot mistake another
//! for it. An instance is always newer than its upstream.

use crate::class::{Class, Value};
use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::span::Span;
use crate::spec::{Callable, FlowSpec};
use std::collections::BTreeMap;
use std::fmt;

/// A filter instance's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstanceId(pub u64);

/// A running flow's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlowId(pub u64);

impl fmt::Display for InstanceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

impl fmt::Display for FlowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "flow {}", self.0)
    }
}

/// A filter instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// Its id.
    pub id: InstanceId,
    /// Its class.
    pub class: &'static Class,
    /// Its arguments.
    pub args: Vec<Value>,
    /// Its MBuf size in bytes.
    pub mbuf: u32,
    /// The filters its program may call ([`crate::Filter::calls`]).
    pub calls: Vec<Callable>,
    /// The instances that feed it, sorted, without duplicates; empty for one that
    /// reads the daemon's default source (or is a source).
    pub upstream: Vec<InstanceId>,
    /// How many running flows use it.
    pub refs: usize,
}

/// A running flow: its definition and the instance each element runs as.
#[derive(Clone, Debug)]
pub struct RunningFlow {
    /// The definition it was instantiated from.
    pub spec: FlowSpec,
    /// `instances[i]` runs element `i`.
    pub instances: Vec<InstanceId>,
}

/// What makes two instances one.
type Key = (
    &'static str,
    Vec<Value>,
    u32,
    Vec<Callable>,
    Vec<InstanceId>,
);

/// Every running flow and the filter instances they share.
#[derive(Debug)]
pub struct Running {
    limits: Limits,
    instances: BTreeMap<InstanceId, Instance>,
    index: BTreeMap<Key, InstanceId>,
    flows: BTreeMap<FlowId, RunningFlow>,
    next_instance: u64,
    next_flow: u64,
}

impl Running {
    /// An empty running graph that keeps `limits`.
    pub fn new(limits: Limits) -> Running {
        Running {
            limits,
            instances: BTreeMap::new(),
            index: BTreeMap::new(),
            flows: BTreeMap::new(),
            next_instance: 1,
            next_flow: 1,
        }
    }

    /// Instantiates `spec`, reusing every instance it shares with the running
    /// flows. Past [`Limits::max_flows`] or [`Limits::max_instances`] it is refused
    /// and nothing changes.
    pub fn instantiate(&mut self, spec: FlowSpec) -> Result<FlowId, Error> {
        let too_large = |m: String| {
            let whole = Span::new(0, spec.flow.text.len());
            Err(Error::new(ErrorKind::TooLarge, m, whole, &spec.flow.text))
        };
        if self.flows.len() >= self.limits.max_flows {
            return too_large(format!(
                "{} flows run already, the limit",
                self.limits.max_flows
            ));
        }
        let (map, new) = self.plan(&spec);
        if self.instances.len() + new.len() > self.limits.max_instances {
            return too_large(format!(
                "this flow needs {} new filter instances and {} run already, past the limit of {}",
                new.len(),
                self.instances.len(),
                self.limits.max_instances
            ));
        }
        self.next_instance += new.len() as u64;
        for (key, instance) in new {
            self.index.insert(key, instance.id);
            self.instances.insert(instance.id, instance);
        }
        let mut distinct = map.clone();
        distinct.sort_unstable();
        distinct.dedup();
        for id in distinct {
            if let Some(i) = self.instances.get_mut(&id) {
                i.refs += 1;
            }
        }
        let id = FlowId(self.next_flow);
        self.next_flow += 1;
        let flow = RunningFlow {
            spec,
            instances: map,
        };
        self.flows.insert(id, flow);
        Ok(id)
    }

    /// The instance of each element, and the instances to create (with no
    /// references yet), without changing anything.
    fn plan(&self, spec: &FlowSpec) -> (Vec<InstanceId>, Vec<(Key, Instance)>) {
        let mut map: Vec<InstanceId> = Vec::with_capacity(spec.filters.len());
        let mut new: Vec<(Key, Instance)> = Vec::new();
        for (i, filter) in spec.filters.iter().enumerate() {
            let mut upstream: Vec<InstanceId> = spec.flow.upstream(i).map(|u| map[u]).collect();
            upstream.sort_unstable();
            upstream.dedup();
            let key: Key = (
                filter.class.name,
                filter.args.clone(),
                filter.mbuf,
                filter.calls.clone(),
                upstream,
            );
            let found = self
                .index
                .get(&key)
                .copied()
                .or_else(|| new.iter().find(|(k, _)| *k == key).map(|(_, n)| n.id));
            let id = found.unwrap_or_else(|| {
                let id = InstanceId(self.next_instance + new.len() as u64);
                let instance = Instance {
                    id,
                    class: filter.class,
                    args: filter.args.clone(),
                    mbuf: filter.mbuf,
                    calls: filter.calls.clone(),
                    upstream: key.4.clone(),
                    refs: 0,
                };
                new.push((key, instance));
                id
            });
            map.push(id);
        }
        (map, new)
    }

    /// Closes `flow`: drops its references and removes the instances no other
    /// flow uses, which it returns downstream first. `None` if no such flow runs.
    pub fn close(&mut self, flow: FlowId) -> Option<Vec<InstanceId>> {
        let mut ids = self.flows.remove(&flow)?.instances;
        ids.sort_unstable();
        ids.dedup();
        let mut removed = Vec::new();
        // Newest first: an instance is newer than its upstream.
        for id in ids.into_iter().rev() {
            let Some(i) = self.instances.get_mut(&id) else {
                continue;
            };
            i.refs = i.refs.saturating_sub(1);
            if i.refs == 0 {
                if let Some(i) = self.instances.remove(&id) {
                    self.index
                        .remove(&(i.class.name, i.args, i.mbuf, i.calls, i.upstream));
                }
                removed.push(id);
            }
        }
        Some(removed)
    }

    /// The instances, oldest first.
    pub fn instances(&self) -> impl Iterator<Item = &Instance> {
        self.instances.values()
    }

    /// The instance with this id.
    pub fn instance(&self, id: InstanceId) -> Option<&Instance> {
        self.instances.get(&id)
    }

    /// The instances that `id` feeds.
    pub fn downstream(&self, id: InstanceId) -> impl Iterator<Item = InstanceId> + '_ {
        self.instances
            .values()
            .filter(move |i| i.upstream.contains(&id))
            .map(|i| i.id)
    }

    /// The running flows, oldest first.
    pub fn flows(&self) -> impl Iterator<Item = (FlowId, &RunningFlow)> {
        self.flows.iter().map(|(id, f)| (*id, f))
    }

    /// The running flow with this id.
    pub fn flow(&self, id: FlowId) -> Option<&RunningFlow> {
        self.flows.get(&id)
    }

    /// Whether no flow runs and no instance is left.
    pub fn is_empty(&self) -> bool {
        self.flows.is_empty() && self.instances.is_empty() && self.index.is_empty()
    }

    /// How many instances run.
    pub fn instance_count(&self) -> usize {
        self.instances.len()
    }
}
