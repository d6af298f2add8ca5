//! The running graph as Graphviz DOT, drawn as the seeds' Figure 3: the flows as
//! their users gave them (ovals, one cluster per flow), the filter instances they
//! run as (circles; one used by several flows is drawn bold and filled, with the
//! flows that share it), and the classes the instances are made from (boxes).
//!
//! Node names: `f<flow>e<element>` for an element, `i<id>` for an instance and
//! `c_<class>` for a class. Edges: between elements of a flow and between
//! instances, solid (packets flow along them); element to its instance, dashed;
//! instance to its class, dotted.

use crate::running::{FlowId, Instance, InstanceId, Running, RunningFlow};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Renders `running` as a DOT digraph.
pub fn to_dot(running: &Running) -> String {
    to_dot_with(running, |f| Some(f.0))
}

/// Renders the part of `running` that `label` shows: the flows it gives a
/// number for (drawn under that number: a daemon's own flow numbers) and the
/// instances they use; other flows and instances only they use are left out,
/// and the sharing shown is among the flows drawn.
pub fn to_dot_with(running: &Running, label: impl Fn(FlowId) -> Option<u64>) -> String {
    let mut out = String::from("digraph ffpf {\n  rankdir=TB;\n  node [fontname=\"Helvetica\"];\n");
    let shown: Vec<(u64, &RunningFlow)> = running
        .flows()
        .filter_map(|(id, f)| Some((label(id)?, f)))
        .collect();
    for (n, flow) in &shown {
        let fid = FlowId(*n);
        let text = &flow.spec.flow.text;
        let _ = writeln!(out, "  subgraph cluster_flow{} {{", fid.0);
        let _ = writeln!(out, "    label=\"{}: {}\";", fid, escape(text));
        for (e, element) in flow.spec.flow.elements.iter().enumerate() {
            let written = text.get(element.span.start..element.span.end).unwrap_or("");
            let _ = writeln!(
                out,
                "    \"f{}e{e}\" [shape=oval, label=\"{}\"];",
                fid.0,
                escape(written)
            );
        }
        for (from, to) in &flow.spec.flow.edges {
            let _ = writeln!(out, "    \"f{0}e{from}\" -> \"f{0}e{to}\";", fid.0);
        }
        out.push_str("  }\n");
    }
    out.push_str("  subgraph cluster_instances {\n    label=\"filter instances\";\n");
    // The flows of each instance, gathered once: asking each flow per instance
    // would cost instances × flows × elements.
    let mut users: BTreeMap<InstanceId, BTreeSet<u64>> = BTreeMap::new();
    for (n, flow) in &shown {
        for id in &flow.instances {
            users.entry(*id).or_default().insert(*n);
        }
    }
    let drawn: Vec<&Instance> = running
        .instances()
        .filter(|i| users.contains_key(&i.id))
        .collect();
    for i in &drawn {
        let flows = users.get(&i.id).cloned().unwrap_or_default();
        let _ = writeln!(out, "    \"i{}\" [{}];", i.id.0, instance_attrs(i, &flows));
    }
    for i in &drawn {
        for up in &i.upstream {
            let _ = writeln!(out, "    \"i{}\" -> \"i{}\";", up.0, i.id.0);
        }
    }
    out.push_str("  }\n  subgraph cluster_classes {\n    label=\"filter classes\";\n");
    let classes: BTreeSet<&str> = drawn.iter().map(|i| i.class.name).collect();
    for c in &classes {
        let _ = writeln!(out, "    \"c_{c}\" [shape=box, label=\"{c}\"];");
    }
    out.push_str("  }\n");
    for (n, flow) in &shown {
        for (e, id) in flow.instances.iter().enumerate() {
            let _ = writeln!(out, "  \"f{n}e{e}\" -> \"i{}\" [style=dashed];", id.0);
        }
    }
    for i in &drawn {
        let _ = writeln!(
            out,
            "  \"i{}\" -> \"c_{}\" [style=dotted];",
            i.id.0, i.class.name
        );
    }
    out.push_str("}\n");
    out
}

fn instance_attrs(i: &Instance, flows: &BTreeSet<u64>) -> String {
    let mut label = format!("{} {}", i.class.name, i.id);
    for a in &i.args {
        let _ = write!(label, "\n{a}");
    }
    if i.mbuf > 0 {
        let _ = write!(label, "\nMBuf {}", i.mbuf);
    }
    if !i.calls.is_empty() {
        let names: Vec<&str> = i.calls.iter().map(|c| c.name.as_str()).collect();
        let _ = write!(label, "\nmay call {}", names.join(", "));
    }
    let mut attrs = String::from("shape=circle");
    if flows.len() > 1 {
        let flows: Vec<String> = flows.iter().map(u64::to_string).collect();
        let _ = write!(label, "\nshared: flows {}", flows.join(", "));
        attrs.push_str(", style=\"bold,filled\", fillcolor=\"lightblue\"");
    }
    format!("{attrs}, label=\"{}\"", escape(&label))
}

/// `text` as the inside of a DOT string: quotes and backslashes escaped, line
/// breaks as `\n`, other control characters dropped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}
