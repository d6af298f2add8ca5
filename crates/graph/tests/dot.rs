//! The DOT picture of a running graph, read back as nodes and edges: the flows as
//! given (ovals), the instances (circles, shared ones marked), the classes
//! (boxes), and the edges between them. Rendered to SVG where Graphviz is.

use netsift_graph::{to_dot, FlowSpec, Limits, Privilege, Running};
use netsift_testkit::require;
use netsift_testkit::skip::Need;
use std::collections::{BTreeMap, BTreeSet};

/// Nodes (name to attribute text) and edges (from, to, attribute text) of the
/// DOT this crate writes: one statement a line, names quoted.
struct Dot {
    nodes: BTreeMap<String, String>,
    edges: BTreeSet<(String, String, String)>,
}

fn read(dot: &str) -> Dot {
    let mut d = Dot {
        nodes: BTreeMap::new(),
        edges: BTreeSet::new(),
    };
    for line in dot.lines().map(str::trim) {
        let Some(stmt) = line.strip_prefix('"').and_then(|l| l.strip_suffix(';')) else {
            continue;
        };
        let (name, rest) = stmt.split_once('"').unwrap();
        let attrs = |r: &str| {
            r.trim()
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_string()
        };
        if let Some(to) = rest.trim_start().strip_prefix("-> \"") {
            let (to, rest) = to.split_once('"').unwrap();
            d.edges.insert((name.into(), to.into(), attrs(rest)));
        } else {
            d.nodes.insert(name.into(), attrs(rest));
        }
    }
    d
}

fn figure3() -> Running {
    let mut running = Running::new(Limits::default());
    for text in [
        "(device,eth0) | (device,eth1) -> (sampler,2,4) -> (fpl,\"...\") | (pcap,\"tcp port 80\") -> (bytecount,,8)",
        "(device,eth0) | (device,eth1) -> (sampler,2,4) -> (pcap,\"udp\") -> (packetcount,,8)",
    ] {
        let spec = FlowSpec::parse(text, Privilege::User, &Limits::default()).unwrap();
        running.instantiate(spec).unwrap();
    }
    running
}

#[test]
fn figure3_nodes_and_edges() {
    let running = figure3();
    let d = read(&to_dot(&running));
    let shape = |s: &str| {
        d.nodes
            .iter()
            .filter(|(_, a)| a.contains(&format!("shape={s}")))
            .count()
    };
    // 6 + 5 elements as given, 8 instances, 6 classes.
    assert_eq!((shape("oval"), shape("circle"), shape("box")), (11, 8, 6));
    assert_eq!(d.nodes.len(), 25);
    // Shared: both devices and the sampler, marked with the flows that share them.
    let shared: Vec<&String> = d
        .nodes
        .iter()
        .filter(|(_, a)| a.contains("shared: flows 1, 2"))
        .map(|(n, _)| n)
        .collect();
    assert_eq!(shared, ["i1", "i2", "i3"]);
    assert!(d.nodes["i3"].contains("style=\"bold,filled\""));
    // Flow 1's edges as written, the instances' data edges, and the links from
    // element to instance and from instance to class.
    for (a, b) in [
        ("f1e0", "f1e2"),
        ("f1e1", "f1e2"),
        ("f1e2", "f1e3"),
        ("f1e2", "f1e4"),
        ("f1e3", "f1e5"),
        ("f1e4", "f1e5"),
    ] {
        assert!(
            d.edges.contains(&(a.into(), b.into(), String::new())),
            "{a} -> {b}"
        );
    }
    let data: BTreeSet<(&str, &str)> = d
        .edges
        .iter()
        .filter(|e| e.2.is_empty() && e.0.starts_with('i'))
        .map(|e| (e.0.as_str(), e.1.as_str()))
        .collect();
    let want: BTreeSet<(&str, &str)> = [
        ("i1", "i3"),
        ("i2", "i3"),
        ("i3", "i4"),
        ("i3", "i5"),
        ("i4", "i6"),
        ("i5", "i6"),
        ("i3", "i7"),
        ("i7", "i8"),
    ]
    .into();
    assert_eq!(data, want);
    let dashed = |from: &str| {
        d.edges
            .iter()
            .find(|e| e.0 == from && e.2 == "style=dashed")
            .map(|e| e.1.clone())
    };
    assert_eq!(dashed("f1e2").as_deref(), Some("i3"));
    assert_eq!(
        dashed("f2e2").as_deref(),
        Some("i3"),
        "both flows' samplers are one instance"
    );
    assert_ne!(
        dashed("f1e4"),
        dashed("f2e3"),
        "different pcap filters are two instances"
    );
    assert!(d
        .edges
        .contains(&("i3".into(), "c_sampler".into(), "style=dotted".into())));
    assert_eq!(d.edges.iter().filter(|e| e.2 == "style=dotted").count(), 8);
    // Every edge's ends are nodes.
    for (a, b, _) in &d.edges {
        assert!(
            d.nodes.contains_key(a) && d.nodes.contains_key(b),
            "{a} -> {b}"
        );
    }
}

#[test]
fn labels_escape_quotes_and_line_breaks() {
    let mut running = Running::new(Limits::default());
    let text = "(pcap,\"a \\\"b\\\" \\\\c\")\n-> (bytecount)";
    running
        .instantiate(FlowSpec::parse(text, Privilege::User, &Limits::default()).unwrap())
        .unwrap();
    let dot = to_dot(&running);
    assert!(
        dot.contains(r#"label="flow 1: (pcap,\"a \\\"b\\\" \\\\c\")\n-> (bytecount)";"#),
        "{dot}"
    );
    assert!(
        dot.contains(r#"label="pcap #1\n\"a \\\"b\\\" \\\\c\"""#),
        "{dot}"
    );
    assert_eq!(read(&dot).nodes.len(), 6);
}

#[test]
fn renders_to_svg_with_graphviz() {
    require!(Need::Command("dot"));
    let mut child = std::process::Command::new("dot")
        .arg("-Tsvg")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(to_dot(&figure3()).as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = String::from_utf8(out.stdout).unwrap();
    assert!(svg.contains("<svg") && svg.contains("sampler #3"), "{svg}");
    assert_eq!(svg.matches("class=\"node\"").count(), 25);
}
