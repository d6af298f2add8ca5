//! Randomised robustness of the scanner and parser: token soup, mutated expressions,
//! random characters and random bytes (seeded, so failures reproduce) must never panic,
//! and every result must carry spans inside the text on character boundaries.

use netsift_pcapc::syntax::ast::{Arith, Expr, PrimKind, Span};
use netsift_pcapc::syntax::parse;

mod common;
use common::Rng;

const VOCAB: &[&str] = &[
    "(",
    ")",
    "(",
    ")",
    "not",
    "!",
    "and",
    "or",
    "&&",
    "||",
    "host",
    "net",
    "port",
    "portrange",
    "proto",
    "protochain",
    "gateway",
    "src",
    "dst",
    "mask",
    "tcp",
    "udp",
    "ip",
    "ip6",
    "ether",
    "link",
    "arp",
    "icmp",
    "isis",
    "decnet",
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
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "0",
    "1",
    "80",
    "255",
    "256",
    "0x10",
    "017",
    "08",
    "4294967296",
    "0x100000000",
    "1.2.3.4",
    "10.0/8",
    "192.168",
    "fe80::1",
    "::",
    "::1/128",
    "fe80::256.1.2.3",
    "ab:cd:ef:00:00:01",
    "ab-cd-ef-00-00-01",
    "abcd.ef00.0001",
    "ab:cd:",
    "$1",
    "$",
    "foo",
    "1-1023",
    "\\tcp",
    "\\",
    "len",
    "length",
    "less",
    "greater",
    "byte",
    "vlan",
    "mpls",
    "pppoed",
    "pppoes",
    "geneve",
    "vxlan",
    "broadcast",
    "multicast",
    "inbound",
    "outbound",
    "ifindex",
    "llc",
    "i",
    "rnr",
    "type",
    "subtype",
    "dir",
    "mgt",
    "vpi",
    "vci",
    "opc",
    "dpc",
    "lane",
    "fisu",
    "on",
    "reason",
    "action",
    "icmp-echo",
    "tcp-syn",
    "tcpflags",
    "é",
    "@",
    "#",
];

const SEEDS: &[&str] = &[
    "tcp port 80 or 443",
    "host a and not (b or c)",
    "ip[2:2] - ((ip[0]&0xf)<<2) > 40",
    "tcp[((tcp[12]&0xf0)>>2):4] = 0x47455420",
    "ether src or dst host ab:cd:ef:00:00:01 and vlan 10",
    "ip6 net fe80::/10 or ip net 10.0.0.0 mask 255.0.0.0",
    "not (udp and (port 53 or portrange 1-1023)) and less 100",
    "icmp[icmptype] == icmp-echo && ip6[6] != 58",
    "vpi (1 or 2) or dpc >= 3 or wlan type mgt subtype beacon",
    "(vrrp[0] & 0xf0) >> 4 == 3 or byte 8 & 5 or llc rnr",
];

fn check_span(text: &str, s: Span, what: &str) {
    assert!(
        s.start <= s.end && s.end <= text.len(),
        "{what} span {s:?} outside {text:?}"
    );
    assert!(
        text.is_char_boundary(s.start) && text.is_char_boundary(s.end),
        "{what} span {s:?} splits a character of {text:?}"
    );
}

fn check_arith(text: &str, a: &Arith) {
    check_span(text, a.span(), "arith");
    match a {
        Arith::Load { index, .. } => check_arith(text, index),
        Arith::Neg(x, _) => check_arith(text, x),
        Arith::Bin(_, l, r) => {
            check_arith(text, l);
            check_arith(text, r);
        }
        Arith::Num(..) | Arith::Len(_) => {}
    }
}

fn check(text: &str) {
    match parse(text) {
        Ok(None) => assert!(
            text.trim_matches([' ', '\t', '\r', '\n']).is_empty(),
            "{text:?}"
        ),
        Ok(Some(e)) => {
            let mut stack = vec![&e];
            while let Some(e) = stack.pop() {
                check_span(text, e.span(), "expr");
                match e {
                    Expr::And(a, b) | Expr::Or(a, b) => stack.extend([&**a, &**b]),
                    Expr::Not(a, _) => stack.push(a),
                    Expr::Prim(p) => match &p.kind {
                        PrimKind::Qualified { id_span, .. } => check_span(text, *id_span, "id"),
                        PrimKind::Relation { lhs, rhs, .. } => {
                            check_arith(text, lhs);
                            check_arith(text, rhs);
                        }
                        _ => {}
                    },
                }
            }
        }
        Err(e) => {
            assert!(!e.message().is_empty(), "{text:?}");
            check_span(text, e.span(), "error");
            // Display slices the text at the span: it must not panic either.
            let shown = e.to_string();
            assert!(shown.contains('^'), "{shown}");
        }
    }
}

#[test]
fn token_soup_never_panics() {
    let mut rng = Rng(0x5eed_0001);
    let seps = [" ", " ", " ", "", "\t", "  "];
    for _ in 0..4000 {
        let n = 1 + rng.below(16);
        let mut s = String::new();
        for _ in 0..n {
            s.push_str(rng.pick(VOCAB));
            s.push_str(rng.pick(&seps));
        }
        check(&s);
    }
}

#[test]
fn mutated_expressions_never_panic() {
    let mut rng = Rng(0x5eed_0002);
    for _ in 0..4000 {
        let mut toks: Vec<&str> = rng.pick(SEEDS).split(' ').collect();
        for _ in 0..1 + rng.below(3) {
            let i = rng.below(toks.len() + 1);
            match rng.below(3) {
                0 if toks.len() > 1 => {
                    toks.remove(i.min(toks.len() - 1));
                }
                1 => toks.insert(i, rng.pick(VOCAB)),
                _ => {
                    let i = i.min(toks.len() - 1);
                    toks[i] = rng.pick(VOCAB);
                }
            }
        }
        check(&toks.join(" "));
        check(&toks.concat());
    }
}

#[test]
fn random_characters_never_panic() {
    let mut rng = Rng(0x5eed_0003);
    let chars: Vec<char> = "0123456789abcdefxX:.-/$\\ ()[]!&|=<>+*%^gG_é\t\n\u{0}"
        .chars()
        .collect();
    for _ in 0..4000 {
        let n = rng.below(40);
        let s: String = (0..n).map(|_| chars[rng.below(chars.len())]).collect();
        check(&s);
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(0x5eed_0004);
    for _ in 0..4000 {
        let n = rng.below(64);
        let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
        check(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn random_deep_nesting_never_overflows() {
    let mut rng = Rng(0x5eed_0005);
    let openers = ["(", "not ", "!", "ip[", "-", "host (", "1 + ("];
    for _ in 0..200 {
        let n = rng.below(5000);
        let mut s = String::new();
        for _ in 0..n {
            s.push_str(rng.pick(&openers));
        }
        s.push_str(rng.pick(&["tcp", "1", "1 = 1", "a", ""]));
        check(&s);
    }
}
