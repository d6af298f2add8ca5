//! Nesting as deep as libpcap's parser takes (9,995 parentheses, 9,996 `not`s): it
//! compiles, from a test thread's small stack, to the program the shallow form gives;
//! one level more than libpcap takes is refused with an error, not a crash.

use netsift_pcapc::compile;
use netsift_wire::LinkType;

fn listing(text: &str) -> String {
    compile(text, LinkType::EN10MB)
        .unwrap_or_else(|e| panic!("{e}"))
        .to_string()
}

#[test]
fn parentheses_as_deep_as_libpcap_takes() {
    let n = 9_995;
    let deep = format!("{}tcp port 80{}", "(".repeat(n), ")".repeat(n));
    assert_eq!(listing(&deep), listing("tcp port 80"));
}

#[test]
fn nots_as_deep_as_libpcap_takes() {
    // An even number of `not`s is the expression itself.
    let deep = format!("{}udp", "not ".repeat(9_996));
    assert_eq!(listing(&deep), listing("udp"));
    let odd = format!("{}udp", "not ".repeat(9_995));
    assert_eq!(listing(&odd), listing("not udp"));
}

#[test]
fn nested_ands_and_ors_compile() {
    // `(tcp or (udp and (tcp or (udp and ...))))`, 2,000 levels.
    let n = 1_000;
    let mut text = String::new();
    for _ in 0..n {
        text.push_str("(tcp or (udp and ");
    }
    text.push_str("icmp");
    text.push_str(&")".repeat(2 * n));
    let set = compile(&text, LinkType::EN10MB).unwrap_or_else(|e| panic!("{e}"));
    assert!(set.instruction_count() > 0);
}

#[test]
fn deeper_than_libpcap_is_an_error() {
    let n = 10_001;
    let deep = format!("{}tcp{}", "(".repeat(n), ")".repeat(n));
    let e = compile(&deep, LinkType::EN10MB).expect_err("too deep");
    assert!(e.to_string().contains("nests too deeply"), "{e}");
}
