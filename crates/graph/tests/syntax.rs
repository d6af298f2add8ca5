//! The ffpf-flow syntax: the issue's and the seeds' examples parse to the graphs
//! their prose describes, quoting works, and every error says where and what was
//! expected.

use netsift_graph::{ErrorKind, FlowSpec, Limits, Privilege};

fn parse(text: &str) -> Result<FlowSpec, netsift_graph::Error> {
    FlowSpec::parse(text, Privilege::User, &Limits::default())
}

/// The elements' class names and the edges, by element number.
fn shape(text: &str) -> (Vec<String>, Vec<(usize, usize)>) {
    let spec = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let names = spec
        .filters
        .iter()
        .map(|f| f.class.name.to_string())
        .collect();
    (names, spec.flow.edges)
}

#[test]
fn issue_example_splits_and_joins() {
    let (names, edges) = shape(
        r#"(device,eth0) | (device,eth1) -> (sampler,2,4) -> (fpl,"…") | (pcap,"tcp port 80") -> (bytecount,,8)"#,
    );
    assert_eq!(
        names,
        ["device", "device", "sampler", "fpl", "pcap", "bytecount"]
    );
    // Both devices feed the sampler, which feeds both filters, which both feed
    // the counter: '|' binds tighter than '->'.
    assert_eq!(edges, [(0, 2), (1, 2), (2, 3), (2, 4), (3, 5), (4, 5)]);
}

#[test]
fn seeds_command_parses_with_their_class_names() {
    // §2.3, with the elided programs filled in; `FPL-2` and `BPF` are aliases.
    let (names, edges) =
        shape("(device, eth0) -> (sampler,2,4) -> (BPF, \"1,6 0 0 65535\") -> (packetcount,,8)");
    assert_eq!(names, ["device", "sampler", "bpf", "packetcount"]);
    assert_eq!(edges, [(0, 1), (1, 2), (2, 3)]);
    let (names, _) = shape("(device,eth0) -> (FPL-2, \"...\") -> (bytecount,,8)");
    assert_eq!(names[1], "fpl");
}

#[test]
fn groups_change_the_binding() {
    // Without the group, (b) and (c) would both feed (d).
    let (_, edges) = shape("(pcap,a) | ((pcap,b) -> (pcap,c)) -> (bytecount)");
    assert_eq!(edges, [(0, 3), (1, 2), (2, 3)]);
    let (_, edges) = shape("((pcap,a) -> (pcap,b)) | (pcap,c)");
    assert_eq!(edges, [(0, 1)]);
    let (_, edges) = shape("(((pcap,a)))");
    assert!(edges.is_empty());
}

#[test]
fn arguments_and_mbuf_fields() {
    let spec = parse("(sampler,2,4) -> (bytecount,,8) -> (device,eth0)").unwrap_err();
    assert_eq!(
        spec.kind(),
        ErrorKind::Invalid,
        "a source must come first: {spec}"
    );
    let spec = parse("(sampler, 2 ,4) -> (bytecount,,8)").unwrap();
    assert_eq!(spec.filters[0].args[0], netsift_graph::class::Value::Int(2));
    assert_eq!(spec.filters[0].mbuf, 4);
    assert_eq!(spec.filters[1].mbuf, 8);
    let spec = parse("(packetcount) -> (bytecount,)").unwrap();
    assert_eq!((spec.filters[0].mbuf, spec.filters[1].mbuf), (8, 8));
}

#[test]
fn quoted_arguments_hold_commas_parentheses_and_quotes() {
    let spec = parse(r#"(pcap, "port (22 or 80), \"x\" \\ ip proto \udp" , )"#).unwrap();
    let netsift_graph::class::Value::Text(t) = &spec.filters[0].args[0] else {
        panic!("a string")
    };
    assert_eq!(t, r#"port (22 or 80), "x" \ ip proto \udp"#);
    let spec = parse(r#"(aho_corasick,"a,b","c)",)"#).unwrap();
    assert_eq!(spec.filters[0].args.len(), 2);
}

/// The error for `text`, checked to point at `byte` with `kind`.
fn error_at(text: &str, byte: usize, kind: ErrorKind, says: &str) -> String {
    let e = parse(text).expect_err(text);
    let shown = e.to_string();
    assert_eq!(e.kind(), kind, "{shown}");
    assert_eq!(e.span().start, byte, "{shown}");
    assert!(shown.contains(says), "{shown:?} should say {says:?}");
    shown
}

#[test]
fn syntax_errors_say_where_and_what() {
    let shown = error_at(
        "(device,eth0 -> (sampler,2,4)",
        16,
        ErrorKind::Syntax,
        "expected ')' to close the element opened at byte 0 (quote an argument that holds '('), found '('",
    );
    assert!(shown.contains("(byte 16, column 17)"), "{shown}");
    assert!(shown.ends_with("\n                  ^"), "{shown:?}");
    error_at(
        "",
        0,
        ErrorKind::Syntax,
        "expected '(' to start an element or a group, found the end",
    );
    error_at(
        "(device,eth0) ->",
        16,
        ErrorKind::Syntax,
        "found the end of the flow",
    );
    error_at(
        "(device,eth0) (x)",
        14,
        ErrorKind::Syntax,
        "expected '->', '|' or the end",
    );
    error_at(
        "(,eth0)",
        1,
        ErrorKind::Syntax,
        "expected a filter class name",
    );
    error_at(
        "(\"pcap\",x)",
        1,
        ErrorKind::Syntax,
        "expected a filter class name",
    );
    error_at("(pcap,\"tcp", 6, ErrorKind::Syntax, "unterminated string");
    error_at(
        "(pcap,\"tcp\" x)",
        12,
        ErrorKind::Syntax,
        "expected ')' or ','",
    );
    error_at(
        "(pcap,tc\"p\")",
        8,
        ErrorKind::Syntax,
        "quote the whole argument",
    );
    error_at(
        "((pcap,a) -> (pcap,b)",
        21,
        ErrorKind::Syntax,
        "to close the group opened at byte 0",
    );
    error_at("(pcap,a) - (pcap,b)", 9, ErrorKind::Syntax, "found '-'");
}

#[test]
fn multi_line_errors_give_line_and_column() {
    let shown = error_at(
        "(device,eth0)\n  -> (sampler,0,4)",
        28,
        ErrorKind::Invalid,
        "element 2 (sampler): argument 1 (rate) must be a whole number from 1",
    );
    assert!(shown.contains("(line 2, column 15)"), "{shown}");
    assert!(shown.contains("\n    -> (sampler,0,4)\n"), "{shown:?}");
}

#[test]
fn limits_are_errors_not_crashes() {
    let small = Limits {
        max_text: 200,
        max_depth: 3,
        max_elements: 4,
        max_args: 2,
        ..Limits::default()
    };
    let p = |t: &str| FlowSpec::parse(t, Privilege::User, &small).map(|_| ());
    // Three groups around the element are allowed, four are not.
    assert!(p("((((pcap,a))))").is_ok());
    let e = p("(((((pcap,a)))))").unwrap_err();
    assert_eq!((e.kind(), e.span().start), (ErrorKind::TooLarge, 3), "{e}");
    let five = "(pcap,a) -> (pcap,b) -> (pcap,c) -> (pcap,d) -> (pcap,e)";
    let e = p(five).unwrap_err();
    assert_eq!((e.kind(), e.span().start), (ErrorKind::TooLarge, 48), "{e}");
    assert_eq!(
        p(&"(pcap,a)|".repeat(30)).unwrap_err().kind(),
        ErrorKind::TooLarge
    );
    assert_eq!(
        p("(aho_corasick,a,b,c,)").unwrap_err().kind(),
        ErrorKind::TooLarge
    );
    // Deep nesting at the default limit is refused without touching the stack.
    let deep = format!("{}(pcap,a){}", "(".repeat(100_000), ")".repeat(100_000));
    let e = FlowSpec::parse(
        &deep,
        Privilege::User,
        &Limits {
            max_text: 1 << 20,
            ..Limits::default()
        },
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TooLarge);
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    fn soup() -> impl Strategy<Value = String> {
        let token = prop::sample::select(vec![
            "(",
            ")",
            ",",
            "->",
            "|",
            "\"",
            "\\",
            " ",
            "\n",
            "device",
            "eth0",
            "sampler",
            "2",
            "4",
            "pcap",
            "tcp port 80",
            "bytecount",
            "é",
            "-",
            ">",
            "",
        ]);
        prop::collection::vec(token, 0..40).prop_map(|t| t.concat())
    }

    proptest! {
        #[test]
        fn on_token_soup(text in soup()) {
            if let Err(e) = parse(&text) {
                // The span is inside the text and on character boundaries.
                let s = e.span();
                prop_assert!(s.start <= s.end && s.end <= text.len());
                prop_assert!(text.is_char_boundary(s.start) && text.is_char_boundary(s.end));
                let _ = e.to_string();
            }
        }

        #[test]
        fn on_any_string(text in any::<String>()) {
            let _ = parse(&text).map_err(|e| e.to_string());
        }
    }
}
