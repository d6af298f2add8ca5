//! Where each element of a running graph could run. Every instance runs in
//! the daemon for now; this records the lowest level that could take it, so
//! that placement (XDP, socket eBPF) can come without changing the protocol:
//! a source (`device`) is the kernel's ring, and a `pcap` element fed only by
//! the source, or by such elements, is a filter the kernel's union program
//! under the ring already holds (as a flow's filter is). Everything else
//! needs the daemon.
//!
//! [`kernel_clause`] is the other half: the clause a graph flow holds in the
//! union program while it is active, so the kernel keeps what its first
//! filters may want and no more.

use netsift_graph::{FlowSpec, InstanceId, Running};

/// The lowest level that could run instance `id`: `kernel` or `daemon`.
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

/// The pcap expressions of a graph's first filters (the elements fed only by
/// its source), when every one of them is a `pcap` element: the kernel may
/// drop what none of them accepts. `None` when some first filter is of
/// another class, a source is a last element, or there is no filter: the
/// kernel must keep every packet.
pub(crate) fn kernel_clause(spec: &FlowSpec) -> Option<Vec<String>> {
    let is_source = |i: usize| spec.filters[i].class.name == "device";
    // A source that is a last element delivers every packet.
    let feeds = |i: usize| spec.flow.edges.iter().any(|&(from, _)| from == i);
    if (0..spec.filters.len()).any(|i| is_source(i) && !feeds(i)) {
        return None;
    }
    let mut first = Vec::new();
    for (i, f) in spec.filters.iter().enumerate() {
        if is_source(i) || !spec.flow.upstream(i).all(is_source) {
            continue;
        }
        if f.class.name != "pcap" {
            return None;
        }
        first.push(f.args.first().map(|a| match a {
            netsift_graph::class::Value::Text(t) => t.clone(),
            other => other.to_string(),
        })?);
    }
    (!first.is_empty()).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use netsift_graph::{Limits, Privilege};

    fn spec(text: &str) -> FlowSpec {
        FlowSpec::parse(text, Privilege::User, &Limits::default()).unwrap()
    }

    #[test]
    fn the_kernel_keeps_what_the_first_pcap_filters_want() {
        let s = spec("(device,e) -> ((pcap,udp) | (pcap,\"tcp\")) -> (packetcount)");
        assert_eq!(kernel_clause(&s), Some(vec!["udp".into(), "tcp".into()]));
        // Without a device the first filters are the ones fed by nothing.
        let s = spec("(pcap,udp) -> (sampler,2,4) -> (pcap,tcp)");
        assert_eq!(kernel_clause(&s), Some(vec!["udp".into()]));
        // A first filter of another class, or a device that is a last
        // element (it delivers every packet): the kernel keeps everything.
        for other in [
            "(device,e) -> (sampler,2,4)",
            "(device,e) | (pcap,udp)",
            "(device,e)",
        ] {
            assert_eq!(kernel_clause(&spec(other)), None, "{other}");
        }
    }

    #[test]
    fn a_pcap_prefix_could_run_in_the_kernel() {
        let mut r = Running::new(Limits::default());
        let f = r
            .instantiate(spec("(device,e) -> (pcap,udp) -> (pcap,\"port 53\") -> (fpl,\"RETURN 1;\") -> (pcap,tcp)"))
            .unwrap();
        let ids = r.flow(f).unwrap().instances.clone();
        let got: Vec<&str> = ids.iter().map(|i| could_run(&r, *i)).collect();
        assert_eq!(got, ["kernel", "kernel", "kernel", "daemon", "daemon"]);
    }
}
