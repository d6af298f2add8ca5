//! Flow definitions in the ffpf-flow syntax, on arbitrary bytes: the parser and
//! the class checks give a flow or an error whose span lies inside the text, never
//! a panic; the flows that parse (NUL separates several) are instantiated into one
//! running graph with small limits, drawn as DOT, and closed in an order the input
//! picks, after which nothing is left.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netsift_graph::{to_dot, FlowSpec, Limits, Privilege, Running};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let who = if mode & 1 == 1 {
        Privilege::Root
    } else {
        Privilege::User
    };
    let limits = Limits {
        max_depth: 8,
        max_elements: 16,
        max_instances: 24,
        max_flows: 6,
        ..Limits::default()
    };
    let text = String::from_utf8_lossy(rest);
    let mut running = Running::new(limits);
    let mut open = Vec::new();
    for part in text.split('\0') {
        match FlowSpec::parse(part, who, &limits) {
            Ok(spec) => {
                assert_eq!(spec.filters.len(), spec.flow.elements.len());
                if let Ok(id) = running.instantiate(spec) {
                    open.push(id);
                }
            }
            Err(e) => {
                let s = e.span();
                assert!(s.start <= s.end && s.end <= part.len(), "{e:?}");
                let _ = e.to_string();
            }
        }
    }
    assert!(running.instance_count() <= limits.max_instances);
    let dot = to_dot(&running);
    assert!(dot.starts_with("digraph ffpf {") && dot.ends_with("}\n"));
    // Close in the order the first byte's upper bits pick.
    let mut pick = (mode >> 1) as usize;
    while !open.is_empty() {
        let id = open.remove(pick % open.len());
        assert!(running.close(id).is_some());
        pick = pick / 2 + 1;
    }
    assert!(running.is_empty());
});
