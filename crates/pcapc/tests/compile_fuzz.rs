//! The whole compiler on random input: token soup built from the language's words
//! and random bytes, for every supported link type. It must return Ok or an Error
//! whose span lies inside the text; it must never panic.

use netsift_pcapc::compile;
use netsift_wire::LinkType;

mod common;
use common::Rng;

const WORDS: &[&str] = &[
    "host",
    "net",
    "port",
    "portrange",
    "src",
    "dst",
    "or",
    "and",
    "not",
    "(",
    ")",
    "tcp",
    "udp",
    "ip",
    "ip6",
    "arp",
    "rarp",
    "icmp",
    "icmp6",
    "vlan",
    "mpls",
    "pppoes",
    "pppoed",
    "geneve",
    "ether",
    "link",
    "proto",
    "protochain",
    "broadcast",
    "multicast",
    "less",
    "greater",
    "len",
    "byte",
    "[",
    "]",
    ":",
    "+",
    "-",
    "*",
    "/",
    "%",
    "&",
    "|",
    "^",
    "<<",
    ">>",
    "=",
    "!=",
    "<",
    ">",
    "<=",
    ">=",
    "0",
    "1",
    "2",
    "4",
    "80",
    "65535",
    "70000",
    "4294967295",
    "10.0.0.1",
    "192.168/16",
    "::1",
    "fe80::/10",
    "aa:bb:cc:dd:ee:ff",
    "\\tcp",
    "mask",
    "255.255.0.0",
    "inbound",
    "outbound",
    "ifindex",
    "llc",
    "iso",
    "isis",
    "l1",
    "stp",
    "decnet",
    "1.2",
    "sctp",
    "esp",
    "ah",
    "gateway",
    "tcpflags",
    "tcp-syn",
    "icmptype",
    "domain",
    "25-53",
    "http",
];

fn check(text: &str) {
    for lt in LinkType::SUPPORTED {
        if let Err(e) = compile(text, lt) {
            let s = e.span();
            assert!(
                s.start <= s.end && s.end <= text.len(),
                "{text:?}: span {s:?}"
            );
            assert!(!e.message().is_empty());
        }
    }
}

#[test]
fn token_soup_never_panics() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..6000 {
        let n = 1 + r.below(14);
        let text: Vec<&str> = (0..n).map(|_| WORDS[r.below(WORDS.len())]).collect();
        check(&text.join(" "));
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut r = Rng(42);
    for _ in 0..3000 {
        let n = r.below(40);
        let bytes: Vec<u8> = (0..n).map(|_| (r.next() & 0x7f) as u8).collect();
        check(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn large_expressions_compile() {
    // 2000 alternatives (beyond what distribution can flatten) and 300 nested levels of
    // or-inside-and must compile, not overflow the stack or the pass limit.
    let big: Vec<String> = (0..2000)
        .map(|i| format!("tcp port {}", i % 65536))
        .collect();
    assert!(compile(&big.join(" or "), LinkType::EN10MB).is_ok());
    let ands: Vec<String> = (0..300)
        .map(|i| format!("(port {i} or host 10.0.{}.{})", i / 250, i % 250))
        .collect();
    compile(&ands.join(" and "), LinkType::EN10MB).expect("and of 300 ors");
}
