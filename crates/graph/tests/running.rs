//! Instantiation with prefix merging: the seeds' §2.3 flows share what the paper
//! says they share; random flows instantiated and closed in any order leave
//! nothing behind; two elements run as one instance exactly when their class,
//! arguments, MBuf size and everything upstream are the same.

use netsift_graph::{ErrorKind, FlowId, FlowSpec, Limits, Privilege, Running};
use proptest::prelude::*;
use std::collections::BTreeMap;

fn spec(text: &str) -> FlowSpec {
    FlowSpec::parse(text, Privilege::User, &Limits::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// How many instances of `class` run.
fn count(running: &Running, class: &str) -> usize {
    running
        .instances()
        .filter(|i| i.class.name == class)
        .count()
}

// The seeds' §2.3 command, with a BPF program each where the paper elides them.
const TCP: &str = "4,40 0 0 12,21 0 1 2048,6 0 0 262144,6 0 0 0";
const ALL: &str = "1,6 0 0 65535";

#[test]
fn seeds_flows_share_the_sampler_not_the_filters() {
    // Figure 3: one sampler in two flows, two BPF instances. Both flows here read
    // eth0 and eth1, so the sampler's input is the same.
    let mut running = Running::new(Limits::default());
    let a = format!("(device,eth0) | (device,eth1) -> (sampler,2,4) -> (FPL-2, \"...\") | (BPF, \"{TCP}\") -> (bytecount,,8)");
    let b = format!(
        "(device,eth0) | (device,eth1) -> (sampler,2,4) -> (BPF, \"{ALL}\") -> (packetcount,,8)"
    );
    let fa = running.instantiate(spec(&a)).unwrap();
    let fb = running.instantiate(spec(&b)).unwrap();
    assert_eq!(
        (count(&running, "device"), count(&running, "sampler")),
        (2, 1)
    );
    assert_eq!((count(&running, "bpf"), count(&running, "fpl")), (2, 1));
    let sampler = running
        .instances()
        .find(|i| i.class.name == "sampler")
        .unwrap();
    assert_eq!(sampler.refs, 2);
    assert_eq!(running.downstream(sampler.id).count(), 3);
    assert_eq!(running.instance_count(), 8);
    // Closing one flow leaves the other whole.
    assert_eq!(running.close(fa).unwrap().len(), 3); // fpl, bpf, bytecount
    assert_eq!(running.instance_count(), 5);
    assert_eq!(running.flow(fb).unwrap().instances.len(), 5);
    assert!(running.close(fa).is_none());
    running.close(fb);
    assert!(running.is_empty());
}

#[test]
fn seeds_command_verbatim_shares_only_the_device() {
    // As printed, the second flow reads eth0 alone. Its sampler must not be the
    // first flow's, which also samples eth1's packets: only the device is shared.
    let mut running = Running::new(Limits::default());
    running
        .instantiate(spec(&format!("(device,eth0) | (device,eth1) -> (sampler,2,4) -> (FPL-2, \"...\") | (BPF, \"{TCP}\") -> (bytecount,,8)")))
        .unwrap();
    running
        .instantiate(spec(&format!(
            "(device, eth0) -> (sampler,2,4) -> (BPF, \"{ALL}\") -> (packetcount,,8)"
        )))
        .unwrap();
    assert_eq!(
        (count(&running, "device"), count(&running, "sampler")),
        (2, 2)
    );
    let shared: Vec<_> = running
        .instances()
        .filter(|i| i.refs > 1)
        .map(|i| i.class.name)
        .collect();
    assert_eq!(shared, ["device"]);
}

#[test]
fn limits_refuse_and_change_nothing() {
    let small = Limits {
        max_instances: 4,
        max_flows: 2,
        ..Limits::default()
    };
    let mut running = Running::new(small);
    running
        .instantiate(spec("(device,eth0) -> (pcap,tcp) -> (bytecount)"))
        .unwrap();
    let before = netsift_graph::to_dot(&running);
    let e = running
        .instantiate(spec("(device,eth0) -> (pcap,udp) -> (bytecount)"))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TooLarge);
    assert!(
        e.message()
            .contains("needs 2 new filter instances and 3 run already, past the limit of 4"),
        "{e}"
    );
    assert_eq!(netsift_graph::to_dot(&running), before);
    // Sharing needs no new instance, so it fits.
    running
        .instantiate(spec("(device,eth0) -> (pcap,tcp)"))
        .unwrap();
    let e = running.instantiate(spec("(device,eth0)")).unwrap_err();
    assert!(e.message().contains("2 flows run already"), "{e}");
}

#[test]
fn ids_are_deterministic_and_never_reused() {
    let run = || {
        let mut r = Running::new(Limits::default());
        let a = r.instantiate(spec("(device,eth0) -> (pcap,tcp)")).unwrap();
        r.close(a);
        r.instantiate(spec("(device,eth0) -> (pcap,tcp)")).unwrap();
        r
    };
    let (r1, r2) = (run(), run());
    assert_eq!(netsift_graph::to_dot(&r1), netsift_graph::to_dot(&r2));
    let ids: Vec<u64> = r1.instances().map(|i| i.id.0).collect();
    assert_eq!(ids, [3, 4]);
}

/// A flow built from a few leaves so that random flows share a lot.
fn flow_text() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(vec![
        "(sampler,2,4)",
        "(sampler,3,4)",
        "(pcap,\"tcp\")",
        "(pcap,\"udp\")",
        "(bytecount,,8)",
        "(packetcount)",
        "(fpl,\"R[0]=1\")",
    ])
    .prop_map(str::to_string);
    let body = leaf.prop_recursive(3, 12, 3, |inner| {
        (prop::collection::vec(inner, 2..4), any::<bool>()).prop_map(|(parts, chain)| {
            let sep = if chain { " -> " } else { " | " };
            let parts: Vec<String> = parts.iter().map(|p| format!("({p})")).collect();
            parts.join(sep)
        })
    });
    let devices = prop::sample::select(vec![
        "",
        "(device,eth0) -> ",
        "(device,eth1) -> ",
        "(device,eth0) | (device,eth1) -> ",
    ]);
    (devices, body).prop_map(|(d, b)| format!("{d}({b})"))
}

/// An element's identity by the merging rule, computed without the running graph:
/// its class, arguments and MBuf size, and the identities upstream of it.
fn identities(spec: &FlowSpec) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for (i, f) in spec.filters.iter().enumerate() {
        let mut up: Vec<String> = spec.flow.upstream(i).map(|u| ids[u].clone()).collect();
        up.sort();
        up.dedup();
        ids.push(format!(
            "{}{:?}/{}<{}>",
            f.class.name,
            f.args,
            f.mbuf,
            up.join(";")
        ));
    }
    ids
}

/// Checks the running graph against the identities of its flows' elements.
fn check(running: &Running) -> Result<(), TestCaseError> {
    let mut by_identity: BTreeMap<String, u64> = BTreeMap::new();
    let mut refs: BTreeMap<u64, std::collections::BTreeSet<FlowId>> = BTreeMap::new();
    for (fid, flow) in running.flows() {
        for (i, (ident, id)) in identities(&flow.spec)
            .into_iter()
            .zip(&flow.instances)
            .enumerate()
        {
            // Same identity, same instance; a different one, a different instance.
            let seen = *by_identity.entry(ident).or_insert(id.0);
            prop_assert_eq!(seen, id.0);
            let inst = running.instance(*id).expect("a flow's instance runs");
            let mut up: Vec<_> = flow
                .spec
                .flow
                .upstream(i)
                .map(|u| flow.instances[u])
                .collect();
            up.sort();
            up.dedup();
            prop_assert_eq!(&inst.upstream, &up);
            prop_assert_eq!(&inst.args, &flow.spec.filters[i].args);
            refs.entry(id.0).or_default().insert(fid);
        }
    }
    prop_assert_eq!(
        by_identity.len(),
        running.instance_count(),
        "an instance for each identity, no more"
    );
    for inst in running.instances() {
        prop_assert_eq!(inst.refs, refs.get(&inst.id.0).map_or(0, |s| s.len()));
        for up in &inst.upstream {
            prop_assert!(running.instance(*up).is_some(), "dangling upstream");
            prop_assert!(up < &inst.id, "an instance is newer than its upstream");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn closing_in_any_order_leaves_nothing(
        texts in prop::collection::vec(flow_text(), 1..8),
        order in any::<prop::sample::Index>(),
    ) {
        let mut running = Running::new(Limits::default());
        let mut ids = Vec::new();
        for t in &texts {
            ids.push(running.instantiate(spec(t)).unwrap());
            check(&running)?;
        }
        // A permutation of the flows from one random index, rotated and shuffled.
        let mut rest = ids;
        while !rest.is_empty() {
            let next = rest.remove(order.index(rest.len()));
            prop_assert!(running.close(next).is_some());
            check(&running)?;
        }
        prop_assert!(running.is_empty());
    }

    #[test]
    fn merging_matches_the_rule_when_interleaved(
        ops in prop::collection::vec((flow_text(), any::<bool>(), any::<prop::sample::Index>()), 1..16),
    ) {
        let mut running = Running::new(Limits::default());
        let mut open: Vec<FlowId> = Vec::new();
        for (text, close, which) in ops {
            if close && !open.is_empty() {
                let id = open.remove(which.index(open.len()));
                running.close(id);
            } else {
                open.push(running.instantiate(spec(&text)).unwrap());
            }
            check(&running)?;
        }
        for id in open {
            running.close(id);
        }
        prop_assert!(running.is_empty());
    }
}

#[test]
fn fills_to_the_default_limits_and_refuses_past_them() {
    let limits = Limits::default();
    let mut running = Running::new(limits);
    let mut flows = Vec::new();
    // Each flow shares the device and adds four instances of its own.
    let mut n = 0;
    while running.instance_count() + 4 <= limits.max_instances && flows.len() < limits.max_flows {
        let text = format!(
            "(device,eth0) -> (pcap,\"port {n}\") -> (sampler,2) -> (pcap,x) -> (bytecount)"
        );
        flows.push(running.instantiate(spec(&text)).unwrap());
        n += 1;
    }
    assert_eq!(running.instance_count(), 1 + 4 * flows.len());
    let e = running
        .instantiate(spec(
            "(device,eth0) -> (pcap,\"port 99999\") -> (sampler,2) -> (pcap,x) -> (bytecount)",
        ))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TooLarge, "{e}");
    let dot = netsift_graph::to_dot(&running);
    assert!(dot.contains("shared: flows 1, 2, 3"));
    for f in flows.into_iter().rev() {
        running.close(f);
    }
    assert!(running.is_empty());
}
