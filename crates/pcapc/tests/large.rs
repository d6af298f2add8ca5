//! Long disjunctions: the SET form (`netsift_pcapc::large`) takes 100,000 terms, keeps
//! the general pipeline's program while the values fit one instruction, and the limits
//! are errors with spans. Agreement with libpcap is `netsift-conformance`'s `large.rs`.
//!
//! Compile time is not timed here (benchmarks measure it); a quadratic step would make
//! the 100,000-term cases run for minutes.

use netsift_isa::insn::Opcode;
use netsift_isa::{set_key, PassSet};
use netsift_pcapc::MAX_PRIMS;
use netsift_pcapc::{compile, Error};
use netsift_wire::LinkType;

fn en10mb(text: &str) -> Result<PassSet, Error> {
    compile(text, LinkType::EN10MB)
}

fn dotted(i: u32) -> String {
    format!("10.{}.{}.{}", i >> 16 & 255, i >> 8 & 255, i & 255)
}

fn or_of(n: u32, term: impl Fn(u32) -> String) -> String {
    (1..=n).map(term).collect::<Vec<_>>().join(" or ")
}

/// The SET instructions of a set: (pass, opcode count field).
fn sets(set: &PassSet) -> Vec<(usize, u8)> {
    let mut out = Vec::new();
    for (i, p) in set.passes().iter().enumerate() {
        for insn in p.instructions() {
            let d = insn.decode();
            if d.opcode == Some(Opcode::Set) {
                assert_eq!(insn.p(1), 0, "one table");
                out.push((i, d.count));
            }
        }
    }
    out
}

#[test]
fn a_hundred_thousand_terms_compile_to_one_table() {
    let hosts = en10mb(&or_of(100_000, |i| format!("host {}", dotted(i)))).unwrap();
    assert_eq!(hosts.tables().len(), 1);
    assert_eq!(hosts.tables()[0].len(), 100_000);
    assert!(hosts.table_contains(0, set_key(0x0a01_86a0, 0)) == Some(true));
    assert!(hosts.table_contains(0, set_key(0x0a01_86a1, 0)) == Some(false));
    // IPv4 (src, then dst) and ARP/RARP (sender, then target): two-pair lookups.
    assert_eq!(sets(&hosts), vec![(0, 2), (1, 2)]);

    let ports = en10mb(&or_of(100_000, |i| format!("port {}", i % 65_536))).unwrap();
    assert_eq!(ports.tables()[0].len(), 65_536);
    assert_eq!(sets(&ports), vec![(0, 2), (1, 2)]);

    let nets = en10mb(&or_of(100_000, |i| format!("net {}/24", dotted(i << 8)))).unwrap();
    // Keys are the masked field; the prefix's host bits are 0 in every value.
    assert!(nets.table_contains(0, set_key(0x0a01_0200, 0)) == Some(true));
    assert!(nets.table_contains(0, set_key(0x0a01_0201, 0)) == Some(false));
    assert!(nets.to_string().contains("& 0xffffff00"));
}

#[test]
fn one_field_shapes_keep_one_group_of_passes() {
    let src = en10mb(&or_of(1000, |i| format!("src host {}", dotted(i)))).unwrap();
    assert_eq!(src.passes().len(), 2, "{src}");
    assert_eq!(sets(&src), vec![(0, 1), (1, 1)]);
    let tcp = en10mb(&or_of(1000, |i| format!("tcp dst port {i}"))).unwrap();
    assert_eq!(sets(&tcp), vec![(0, 1), (1, 1)], "{tcp}");
}

#[test]
fn repeats_are_dropped_and_small_lists_are_unchanged() {
    // 100,000 times one host is that host.
    let same = en10mb(&vec!["host 10.0.0.1"; 100_000].join(" or ")).unwrap();
    assert_eq!(same, en10mb("host 10.0.0.1").unwrap());
    // Values that fit one EQ2 (5 addresses, 10 ports) keep the EQ2 form; one more
    // would have split them over passes, and takes a table instead.
    let hosts = |n| or_of(n, |i| format!("host {}", dotted(i)));
    let ports = |n| or_of(n, |i| format!("port {i}"));
    assert!(en10mb(&hosts(5)).unwrap().tables().is_empty());
    assert!(en10mb(&ports(10)).unwrap().tables().is_empty());
    assert_eq!(en10mb(&hosts(6)).unwrap().tables()[0].len(), 6);
    assert_eq!(en10mb(&ports(11)).unwrap().tables()[0].len(), 11);
    // Repeats count once: 300 terms of 5 values are the 5-value EQ2 form.
    let repeated = (0..300)
        .map(|i| format!("host {}", dotted(1 + i % 5)))
        .collect::<Vec<_>>()
        .join(" or ");
    assert_eq!(en10mb(&repeated).unwrap(), en10mb(&hosts(5)).unwrap());
    // One EQ holds 7 addresses: `src host` (one group of passes a value) too.
    let src = |n| or_of(n, |i| format!("src host {}", dotted(i)));
    assert!(en10mb(&src(7)).unwrap().tables().is_empty());
    assert_eq!(en10mb(&src(8)).unwrap().tables()[0].len(), 8);
    // A net of value 0 breaks libpcap's src-then-dst run (its optimiser makes a
    // `jset` of it): a SET form before it, the zero net alone, a SET form after it.
    let mut nets: Vec<String> = (1..=20)
        .map(|i| format!("net {}/24", dotted(i << 8)))
        .collect();
    assert_eq!(en10mb(&nets.join(" or ")).unwrap().tables().len(), 1);
    nets[10] = "net 0.0.0.0/24".into();
    let split = en10mb(&nets.join(" or ")).unwrap();
    let sizes: Vec<usize> = split.tables().iter().map(|t| t.len()).collect();
    assert_eq!(sizes, vec![10, 9]);
    let alone = en10mb("net 0.0.0.0/24").unwrap();
    assert_eq!(split.passes().len(), 4 + alone.passes().len(), "{split}");
    assert_eq!(
        split.passes()[2..2 + alone.passes().len()],
        alone.passes()[..]
    );
    // Mixed shapes are the general pipeline's.
    let mixed = or_of(300, |i| {
        if i % 2 == 0 {
            format!("port {i}")
        } else {
            format!("host {}", dotted(i))
        }
    });
    assert!(en10mb(&mixed).unwrap().tables().is_empty());
}

#[test]
fn limits_are_errors_with_spans() {
    // Past MAX_PRIMS primitives the general pipeline refuses, pointing at the first
    // primitive past the limit.
    let pairs = or_of(MAX_PRIMS as u32 / 2 + 1, |i| {
        format!("host {} and port {i}", dotted(i))
    });
    let e = en10mb(&pairs).unwrap_err();
    assert!(e.message().contains("too large"), "{}", e.message());
    let last = pairs.rfind("host").unwrap();
    assert_eq!(e.span().start, last, "{}", e.message());
    // A value libpcap refuses is reported at its term, as in a short list.
    let mut ports: Vec<String> = (1..=400).map(|p| format!("port {p}")).collect();
    ports[200] = "port 70000".into();
    let text = ports.join(" or ");
    let e = en10mb(&text).unwrap_err();
    let alone = en10mb("port 70000").unwrap_err();
    assert_eq!(e.message(), alone.message());
    assert_eq!(&text[e.span().start..e.span().end], "70000");
    // And a bad net in a long list: libpcap's "non-network bits set".
    let mut nets: Vec<String> = (1..=400)
        .map(|i| format!("net {}/24", dotted(i << 8)))
        .collect();
    nets[300] = "net 10.1.2.3/24".into();
    let e = en10mb(&nets.join(" or ")).unwrap_err();
    assert_eq!(
        e.message(),
        en10mb("net 10.1.2.3/24").unwrap_err().message()
    );
}

#[test]
fn lists_inside_other_operators() {
    // The templates are the whole text with three values in the list's place.
    let ports = (1..=100_000u32)
        .map(|p| (p % 65_536).to_string())
        .collect::<Vec<_>>()
        .join(" or ");
    let tcp = en10mb(&format!("tcp and port ({ports})")).unwrap();
    assert_eq!(tcp.tables()[0].len(), 65_536);
    assert_eq!(sets(&tcp).len(), 2, "{tcp}");
    let hosts = (1..=20).map(dotted).collect::<Vec<_>>().join(" or ");
    let ip = en10mb(&format!("ip and host ({hosts})")).unwrap();
    assert_eq!(ip.tables()[0].len(), 20);
    // Under a `not` the list stays with the general pipeline, whose negated runs the
    // batch engine fuses (the seeds' filter 6): no table.
    let not = en10mb(&format!("not host ({hosts})")).unwrap();
    assert!(not.tables().is_empty());
    let raw = compile(&format!("not host ({hosts})"), LinkType::RAW).unwrap();
    assert!(raw.tables().is_empty());
    let f6 = en10mb(&format!(
        "ip and (not tcp port (80 or 25) and not ip host ({hosts}))"
    ));
    assert!(f6.unwrap().tables().is_empty());
    // Values that fit one EQ2 stay there, as before.
    let small = en10mb("tcp and port (1 or 2 or 3 or 4 or 5 or 6 or 7 or 8 or 9 or 10)");
    assert!(small.unwrap().tables().is_empty());
}
