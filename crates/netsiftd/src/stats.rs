//! The figures the `flow_stats` and `daemon_stats` requests return, read from
//! the groups' counters (which the writer keeps) and the clients' control
//! pages (which they report, untrusted).

use crate::rights::Class;
use crate::sources::{lock, Source};
use netsift_ffpf::proto::{DaemonStats, FlowNo, FlowState, FlowStats, SourceStats};
use netsift_ffpf::FlowId;
use std::collections::BTreeMap;

/// What [`flow`] reads of a flow.
pub(crate) struct FlowView<'a> {
    pub(crate) no: FlowNo,
    pub(crate) source: &'a str,
    pub(crate) filter: &'a str,
    pub(crate) state: FlowState,
    pub(crate) class: &'a Class,
    pub(crate) member: Option<FlowId>,
}

/// A flow's accounting.
pub(crate) fn flow(sources: &BTreeMap<String, Source>, f: FlowView<'_>) -> FlowStats {
    let mut out = FlowStats {
        flow: f.no,
        state: Some(f.state),
        source: f.source.to_string(),
        filter: f.filter.to_string(),
        ..FlowStats::default()
    };
    let (Some(id), Some(s)) = (f.member, sources.get(f.source)) else {
        return out;
    };
    let d = lock(&s.dispatch);
    let Some(g) = d.groups.get(f.class) else {
        return out;
    };
    if let Some(c) = g.group.counters(id) {
        out.accepted = c.writer.accepted;
        out.pbuf_full = c.writer.pbuf_full;
        out.ibuf_full = c.writer.ibuf_full;
        out.written = c.written;
        out.read = c.read;
        out.detached = c.detached;
    }
    if let Some(r) = g.group.reported(id) {
        out.delivered = r.delivered;
        out.overwritten = r.overwritten;
        out.invalid = r.invalid;
    }
    out
}

/// The daemon's figures.
pub(crate) fn daemon(
    connections: u64,
    flows: u64,
    sources: &BTreeMap<String, Source>,
) -> DaemonStats {
    let sources = sources
        .iter()
        .map(|(name, s)| {
            let running = s.running();
            let d = lock(&s.dispatch);
            SourceStats {
                name: name.clone(),
                kind: s.kind().into(),
                running,
                finished: d.counters.finished,
                batches: d.counters.batches,
                packets: d.counters.packets,
                filter_runs: d.counters.filter_runs,
                distinct_filters: d.distinct_filters(),
                kernel_clauses: s.kernel_clauses(),
                groups: d.groups.len() as u64,
                flows: d.flows(),
                stored: d.counters.stored,
                kernel_dropped: s.kernel_dropped(),
            }
        })
        .collect();
    DaemonStats {
        connections,
        flows,
        sources,
    }
}
