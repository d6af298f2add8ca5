//! Callable filters defined before a flow (`name = (fpl,"…",size);`, the
//! seeds' filter calls): they parse with their names and spans, every `fpl`
//! element may call them and carries them in its instance key (so flows with
//! different definitions never share an `fpl` instance, and equal ones do),
//! and bad definitions are refused with their position.

use netsift_graph::{Callable, ErrorKind, FlowSpec, Limits, Privilege, Running};

fn parse(text: &str) -> Result<FlowSpec, netsift_graph::Error> {
    FlowSpec::parse(text, Privilege::User, &Limits::default())
}

const FIG2B: &str = "count = (fpl, \"MEM[0]++;\", 8);\n\
                     top = (FPL-2, \"RETURN MEM[0];\", 16) ;\n\
                     (device,eth0) -> (pcap,tcp) -> (fpl,\"RETURN EXTERN(count, 0, 8);\",16)";

#[test]
fn definitions_come_before_the_flow_and_fpl_elements_may_call_them() {
    let spec = parse(FIG2B).unwrap();
    let want = [
        Callable {
            name: "count".into(),
            program: "MEM[0]++;".into(),
            mbuf: 8,
        },
        Callable {
            name: "top".into(),
            program: "RETURN MEM[0];".into(),
            mbuf: 16,
        },
    ];
    assert_eq!(spec.callable, want);
    let d = &spec.flow.definitions[1];
    assert_eq!(
        (d.name.as_str(), &FIG2B[d.name_span.start..d.name_span.end]),
        ("top", "top")
    );
    // Three elements, not five: definitions are not stages of the flow.
    assert_eq!(spec.filters.len(), 3);
    assert_eq!(spec.flow.edges, [(0, 1), (1, 2)]);
    assert!(spec.filters[..2].iter().all(|f| f.calls.is_empty()));
    assert_eq!(spec.filters[2].calls, want);
}

#[test]
fn fpl_instances_are_shared_only_with_the_same_definitions() {
    let mut running = Running::new(Limits::default());
    let a = running.instantiate(parse(FIG2B).unwrap()).unwrap();
    let b = running.instantiate(parse(FIG2B).unwrap()).unwrap();
    assert_eq!(
        running.instance_count(),
        3,
        "the same text shares every instance"
    );
    let other = FIG2B.replace("MEM[0]++;", "MEM[0] += 2;");
    let c = running.instantiate(parse(&other).unwrap()).unwrap();
    // device and pcap shared; the caller's text is the same but what it calls
    // is not.
    assert_eq!(running.instance_count(), 4);
    let fpl = |f| running.flow(f).unwrap().instances[2];
    assert_eq!(fpl(a), fpl(b));
    assert_ne!(fpl(a), fpl(c));
    let i = running.instance(fpl(c)).unwrap();
    assert_eq!(i.calls[0].program, "MEM[0] += 2;");
    // The DOT drawing names what an instance may call.
    let dot = netsift_graph::to_dot(&running);
    assert_eq!(dot.matches("\\nmay call count, top").count(), 2, "{dot}");
    for f in [a, b, c] {
        running.close(f);
    }
    assert!(running.is_empty());
}

#[test]
fn bad_definitions_say_where() {
    let cases = [
        (
            "a = (fpl,\"RETURN 1;\",8);\na = (fpl,\"RETURN 2;\",8);\n(device,eth0)",
            ErrorKind::Invalid,
            (2, 1),
            "definition `a`: the name is defined twice (first at byte 0)",
        ),
        (
            "calls = (pcap,\"tcp\"); (device,eth0)",
            ErrorKind::Invalid,
            (1, 10),
            "definition `calls`: class pcap cannot be called; only fpl filters are callable",
        ),
        (
            "a = (fpl,\"RETURN 1;\",8) (device,eth0)",
            ErrorKind::Syntax,
            (1, 25),
            "expected ';' to end the definition, found '('",
        ),
        (
            "a = fpl; (device,eth0)",
            ErrorKind::Syntax,
            (1, 5),
            "expected '(' to start the element a name defines, found 'f'",
        ),
        (
            "9a = (fpl,\"RETURN 1;\",8); (device,eth0)",
            ErrorKind::Syntax,
            (1, 1),
            "a filter's name starts with a letter or '_'",
        ),
        (
            "a = (fpl,\"RETURN 1;\",2000000); (device,eth0)",
            ErrorKind::Invalid,
            (1, 22),
            "definition `a`: MBuf of 2000000 bytes",
        ),
        (
            "a = (fpl,\"\",8); (device,eth0)",
            ErrorKind::Invalid,
            (1, 10),
            "definition `a`: argument 1 (program)",
        ),
        (
            "a = (fpl,\"RETURN 1;\",8);",
            ErrorKind::Syntax,
            (1, 25),
            "expected '(' to start an element or a group, found the end",
        ),
    ];
    for (text, kind, (line, column), want) in cases {
        let e = parse(text).unwrap_err();
        assert_eq!(
            (e.kind(), e.line(), e.column()),
            (kind, line, column),
            "{text}: {e}"
        );
        assert!(e.to_string().contains(want), "{text}: {e}");
    }
    // A flow without definitions reads as before, `=` or not.
    let e = parse("device,eth0").unwrap_err();
    assert!(
        e.to_string().contains("expected '(' to start an element"),
        "{e}"
    );
}
