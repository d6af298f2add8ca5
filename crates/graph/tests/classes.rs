//! The class table: every class the issue names is in it once, and each element's
//! arguments and MBuf size are checked with an error that names the element, its
//! position and the field.

use netsift_graph::class::{self, check_bpf, Role, Value, CLASSES};
use netsift_graph::{ErrorKind, FlowSpec, Limits, Privilege};

fn parse_as(text: &str, who: Privilege) -> Result<FlowSpec, netsift_graph::Error> {
    FlowSpec::parse(text, who, &Limits::default())
}

fn parse(text: &str) -> Result<FlowSpec, netsift_graph::Error> {
    parse_as(text, Privilege::User)
}

#[test]
fn the_table_holds_every_class_once() {
    for name in [
        "device",
        "pcap",
        "bpf",
        "fpl",
        "sampler",
        "packetcount",
        "bytecount",
        "follow",
        "native",
        "aho_corasick",
        "memmem",
        "hash",
        "checksum",
        "dynport",
        "topn",
    ] {
        assert!(class::lookup(name).is_some(), "{name}");
        assert_eq!(
            class::lookup(&name.to_uppercase()).map(|c| c.name),
            Some(name)
        );
    }
    let mut names: Vec<&str> = CLASSES
        .iter()
        .flat_map(|c| c.aliases.iter().copied().chain([c.name]))
        .collect();
    let all = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), all, "a name or alias is in the table twice");
    assert!(CLASSES
        .iter()
        .filter(|c| c.root_only)
        .all(|c| c.name == "native"));
    assert_eq!(CLASSES.iter().filter(|c| c.role == Role::Source).count(), 1);
    assert!(CLASSES.iter().filter(|c| c.role == Role::External).count() >= 5);
}

/// The error for `text`: its kind, the byte it points at, and words it says.
fn refused(text: &str, kind: ErrorKind, byte: usize, says: &str) {
    let e = parse(text).expect_err(text);
    let shown = e.to_string();
    assert_eq!((e.kind(), e.span().start), (kind, byte), "{shown}");
    assert!(shown.contains(says), "{shown:?} should say {says:?}");
}

#[test]
fn argument_errors_name_the_element_and_field() {
    use ErrorKind::Invalid;
    refused("(device,eth0) -> (sampler,0,4)", Invalid, 26, "element 2 (sampler): argument 1 (rate) must be a whole number from 1 to 4294967295, found \"0\"");
    refused("(sampler,x)", Invalid, 9, "found \"x\"");
    refused("(sampler,-1)", Invalid, 9, "element 1 (sampler)");
    refused(
        "(sampler)",
        Invalid,
        0,
        "sampler takes 1 argument(s), missing its rate",
    );
    refused(
        "(sampler,2,8)",
        Invalid,
        11,
        "MBuf of 8 bytes; sampler allows exactly 4",
    );
    refused("(bytecount,,4)", Invalid, 12, "bytecount allows exactly 8");
    refused("(fpl,\"R[0]=1\",2000000)", Invalid, 14, "from 0 to 1048576");
    refused(
        "(pcap,tcp,x)",
        Invalid,
        10,
        "the MBuf size must be a number of bytes, found \"x\"",
    );
    refused("(pcap,tcp,\"0\")", Invalid, 10, "must be a number");
    refused(
        "(packetcount,7,8)",
        Invalid,
        13,
        "packetcount takes 0 argument(s), found 1",
    );
    refused(
        "(pcap,a,b,0)",
        Invalid,
        8,
        "pcap takes 1 argument(s), found 2",
    );
    refused(
        "(aho_corasick,\"a\",\"b\")",
        Invalid,
        18,
        "end with a comma, as (aho_corasick,\"a\",\"b\",)",
    );
    refused(
        "(fpl,\"\")",
        Invalid,
        5,
        "argument 1 (program) must not be empty",
    );
    refused(
        "(device,\"eth0/x\")",
        Invalid,
        8,
        "must be an interface name",
    );
    refused(
        "(device,abcdefghijklmnop)",
        Invalid,
        8,
        "must be an interface name",
    );
    refused(
        "(follow,ssh)",
        Invalid,
        8,
        "must be one of ftp, sip, rtsp, found \"ssh\"",
    );
    refused("(topn,2000)", Invalid, 6, "from 1 to 1024");
    refused(
        "(topn,10,100)",
        Invalid,
        9,
        "MBuf of 100 bytes; topn allows from 168 to 1048576",
    );
    refused(
        "(pcap,a) -> (frobnicate,1)",
        Invalid,
        13,
        "element 2 (frobnicate): unknown filter class \"frobnicate\"; the classes are device, pcap",
    );
    refused(
        "(pcap,a) | (device,eth0) -> (device,eth1)",
        Invalid,
        28,
        "element 3 (device): a source takes no input, but element 1 feeds it",
    );
}

#[test]
fn native_is_for_root_only() {
    let text = "(device,eth0) -> (native,\"/usr/lib/netsift/f.so\",64)";
    let e = parse_as(text, Privilege::User).unwrap_err();
    assert_eq!(
        (e.kind(), e.span().start),
        (ErrorKind::Forbidden, 18),
        "{e}"
    );
    assert!(e
        .message()
        .contains("element 2 (native): class native is for root only"));
    let spec = parse_as(text, Privilege::Root).unwrap();
    assert_eq!(spec.filters[1].mbuf, 64);
    let e = parse_as("(native,f.so)", Privilege::Root).unwrap_err();
    assert!(e.message().contains("must be an absolute path"), "{e}");
}

#[test]
fn values_are_canonical() {
    let a = parse("(follow,FTP) -> (bpf,\"1\n6 0 0 65535\n\")").unwrap();
    let b = parse("(follow, ftp) -> (bpf,\"1, 6  0 0   65535\")").unwrap();
    assert_eq!(a.filters, b.filters);
    assert_eq!(a.filters[1].args, [Value::Text("1,6 0 0 65535".into())]);
    // Per-entry MBuf sizes default to the table's size.
    let t = parse("(topn,10) -> (hash,256)").unwrap();
    assert_eq!(
        (t.filters[0].mbuf, t.filters[1].mbuf),
        (8 + 16 * 10, 256 * 8)
    );
}

#[test]
fn bpf_programs_must_run_safely() {
    // `tcpdump -ddd ip`: ldh [12]; jeq #0x800 jt 2 jf 3; ret #262144; ret #0.
    let ip = "4\n40 0 0 12\n21 0 1 2048\n6 0 0 262144\n6 0 0 0\n";
    assert_eq!(
        check_bpf(ip).unwrap(),
        "4,40 0 0 12,21 0 1 2048,6 0 0 262144,6 0 0 0"
    );
    for (bad, says) in [
        ("", "instruction count"),
        ("0", "instruction count"),
        ("4097", "instruction count"),
        ("2,6 0 0 1", "has 1 instructions, not its count of 2"),
        ("1,6 0 0 1,6 0 0 1", "more instructions than its count"),
        ("1,6 0 0", "four numbers"),
        ("1,6 0 0 1 2", "four numbers"),
        ("1,70000 0 0 1", "four numbers"),
        ("2,21 0 1 2048,6 0 0 0", "jumps past the end"),
        ("2,5 0 0 1,6 0 0 0", "jumps past the end"),
        ("1,40 0 0 12", "must end with a return"),
    ] {
        let e = check_bpf(bad).expect_err(bad);
        assert!(e.contains(says), "{bad:?}: {e:?} should say {says:?}");
    }
}

#[test]
fn docs_list_every_class() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/graphs.md"))
        .expect("docs/graphs.md");
    for c in CLASSES {
        let row = format!(
            "| `{}` | {} |",
            c.name,
            format!("{:?}", c.role).to_lowercase()
        );
        assert!(doc.contains(&row), "docs/graphs.md has no row {row:?}");
    }
}
