//! Guards: filters a flow's packets must pass before they reach an element.
//!
//! - [`FlowSpec::behind`] puts a filter in front of a whole flow, as a new
//!   first element that feeds every element nothing else feeds (the daemon's
//!   policy filter: whatever the client wrote, no element sees a packet the
//!   filter rejects; and flows behind the same filter share it as a prefix).
//! - [`Flow::unguarded_path`] decides whether *every* path into an element
//!   passes an element of a given kind, and if not, gives one that does not:
//!   the check behind "only downstream of a filter that restricts to F".

use crate::class::{self, Value};
use crate::spec::{Filter, FlowSpec};
use crate::syntax::ast::{Element, Field};
use crate::syntax::lower::Flow;
use crate::Span;

impl Flow {
    /// A path from an element nothing feeds to element `target` (its
    /// indices in order, `target` last) on which no element before `target`
    /// satisfies `guard`; `None` when every such path has one. An element
    /// nothing feeds is its own path: nothing guards it.
    ///
    /// Elements are in topological order (edges go forwards), so one pass
    /// decides it for every element: `guarded[i]` holds when `i` has
    /// upstream and each upstream element satisfies `guard` or is guarded.
    pub fn unguarded_path(
        &self,
        target: usize,
        guard: impl Fn(usize) -> bool,
    ) -> Option<Vec<usize>> {
        let n = self.elements.len().min(target + 1);
        let mut guarded = vec![false; n];
        for i in 0..n {
            let mut up = self.upstream(i).peekable();
            guarded[i] = up.peek().is_some() && up.all(|u| guard(u) || guarded[u]);
        }
        if guarded.get(target).copied().unwrap_or(true) {
            return None;
        }
        // Walk back through upstream elements that neither guard nor are
        // guarded; one always exists until an element nothing feeds.
        let mut path = vec![target];
        let mut at = target;
        while let Some(u) = self.upstream(at).find(|&u| !guard(u) && !guarded[u]) {
            path.push(u);
            at = u;
        }
        path.reverse();
        Some(path)
    }
}

impl FlowSpec {
    /// This flow behind the pcap expression `filter`: a `(pcap,"filter")`
    /// element becomes element 0 and feeds every element that nothing fed
    /// (a source included: it passes on what reaches it). Element `i` as
    /// written becomes element `i + 1`, and [`FlowSpec::prefix`] counts the
    /// elements put in front. The flow's text stays the client's.
    pub fn behind(&self, filter: &str) -> FlowSpec {
        let pcap = class::lookup("pcap").expect("the class table has pcap");
        let field = |text: &str, quoted| Field {
            text: text.to_string(),
            quoted,
            span: Span::new(0, 0),
        };
        let guard = Element {
            fields: vec![field("pcap", false), field(filter, true)],
            span: Span::new(0, 0),
        };
        let mut flow = self.flow.clone();
        let roots: Vec<usize> = (0..flow.elements.len())
            .filter(|&i| flow.upstream(i).next().is_none())
            .collect();
        flow.elements.insert(0, guard);
        for e in &mut flow.edges {
            *e = (e.0 + 1, e.1 + 1);
        }
        flow.edges.extend(roots.iter().map(|&r| (0, r + 1)));
        flow.edges.sort_unstable();
        let mut filters = self.filters.clone();
        filters.insert(
            0,
            Filter {
                class: pcap,
                args: vec![Value::Text(filter.to_string())],
                mbuf: 0,
                calls: Vec::new(),
            },
        );
        FlowSpec {
            flow,
            filters,
            prefix: self.prefix + 1,
            callable: self.callable.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{FlowSpec, Limits, Privilege, Running};

    fn spec(text: &str) -> FlowSpec {
        FlowSpec::parse(text, Privilege::User, &Limits::default()).unwrap()
    }

    #[test]
    fn a_guard_must_be_on_every_path() {
        // 0 device; 1 pcap a; 2 sampler; 3 pcap b; 4 count (fed by 1 and 3).
        let s =
            spec("(device,e) -> (pcap,\"a\") | ((sampler,2,4) -> (pcap,\"b\")) -> (packetcount)");
        let f = &s.flow;
        let pcap = |i: usize| s.filters[i].class.name == "pcap";
        assert_eq!(f.unguarded_path(4, pcap), None, "both paths pass a pcap");
        assert_eq!(f.unguarded_path(2, pcap), Some(vec![0, 2]));
        assert_eq!(
            f.unguarded_path(0, pcap),
            Some(vec![0]),
            "a root is unguarded"
        );
        let only_a = |i: usize| i == 1;
        assert_eq!(f.unguarded_path(4, only_a), Some(vec![0, 2, 3, 4]));
        // A guard on the target itself does not count.
        assert_eq!(f.unguarded_path(1, pcap), Some(vec![0, 1]));
    }

    #[test]
    fn behind_a_filter_every_root_reads_it_and_flows_share_it() {
        let a = spec("(device,e) -> (pcap,\"tcp\") | (pcap,\"udp\")").behind("net 10");
        assert_eq!(a.prefix, 1);
        assert_eq!(a.flow.edges, vec![(0, 1), (1, 2), (1, 3)]);
        assert_eq!(a.filters[0].class.name, "pcap");
        assert_eq!(a.flow.elements[0].fields[1].text, "net 10");
        let b = spec("(pcap,\"tcp\") | (sampler,2,4)").behind("net 10");
        assert_eq!(b.flow.edges, vec![(0, 1), (0, 2)], "two roots, one guard");
        assert_eq!(b.flow.unguarded_path(2, |i| i == 0), None);
        let mut running = Running::new(Limits::default());
        running.instantiate(a.clone()).unwrap();
        running.instantiate(b).unwrap();
        // The guard runs once for both; `(pcap,"tcp")` behind the device and
        // behind the guard are different instances.
        assert_eq!(running.instance_count(), 6);
        let c = spec("(device,e) -> (pcap,\"tcp\") | (pcap,\"udp\")").behind("net 10");
        running.instantiate(c).unwrap();
        assert_eq!(
            running.instance_count(),
            6,
            "the same flow shares everything"
        );
        assert_eq!(a.flow.text, "(device,e) -> (pcap,\"tcp\") | (pcap,\"udp\")");
    }
}
