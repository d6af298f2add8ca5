//! The parser on the cases that decide whether it is libpcap's grammar: and/or with equal
//! precedence, qualifier inheritance, arithmetic precedence (including `%` and `^`, which
//! grammar.y leaves without one), every primitive form, the scanner's number and address
//! forms, error messages and spans, and the nesting limits.

use netsift_pcapc::syntax::ast::*;
use netsift_pcapc::syntax::parse;

/// Renders an expression compactly: boolean nodes and arithmetic fully parenthesised,
/// qualified primitives as their non-default qualifiers and the id
/// (`tcp port 80 or 443` is `(tcp port 80 or tcp port 443)`).
pub fn show(e: &Expr) -> String {
    match e {
        Expr::And(a, b) => format!("({} and {})", show(a), show(b)),
        Expr::Or(a, b) => format!("({} or {})", show(a), show(b)),
        Expr::Not(a, _) => format!("(not {})", show(a)),
        Expr::Prim(p) => show_prim(&p.kind),
    }
}

fn show_prim(k: &PrimKind) -> String {
    match k {
        PrimKind::Qualified { qual, id, .. } => {
            let mut parts = Vec::new();
            if qual.proto != Proto::Default {
                parts.push(format!("{:?}", qual.proto).to_lowercase());
            }
            match qual.dir {
                Dir::Default => {}
                Dir::Or => parts.push("src or dst".into()),
                Dir::And => parts.push("src and dst".into()),
                d => parts.push(format!("{d:?}").to_lowercase()),
            }
            if qual.addr != AddrType::Default {
                parts.push(format!("{:?}", qual.addr).to_lowercase());
            }
            parts.push(show_id(id));
            parts.join(" ")
        }
        PrimKind::ProtoAbbrev(p) => format!("{p:?}").to_lowercase(),
        PrimKind::Relation { op, lhs, rhs } => {
            let op = match op {
                RelOp::Gt => ">",
                RelOp::Ge => ">=",
                RelOp::Eq => "=",
                RelOp::Le => "<=",
                RelOp::Lt => "<",
                RelOp::Ne => "!=",
            };
            format!("{} {op} {}", show_arith(lhs), show_arith(rhs))
        }
        other => format!("{other:?}"),
    }
}

fn show_id(id: &Id) -> String {
    match id {
        Id::Num(n) => n.to_string(),
        Id::Name(s) | Id::Dotted(s) | Id::Ip6(s) | Id::Mac(s) => s.clone(),
        Id::DottedPrefix(s, n) | Id::Ip6Prefix(s, n) => format!("{s}/{n}"),
        Id::DottedMask(s, m) => format!("{s} mask {m}"),
    }
}

fn show_arith(a: &Arith) -> String {
    match a {
        Arith::Num(n, _) => n.to_string(),
        Arith::Len(_) => "len".into(),
        Arith::Load {
            proto, index, size, ..
        } => {
            let p = format!("{proto:?}").to_lowercase();
            if *size == 1 {
                format!("{p}[{}]", show_arith(index))
            } else {
                format!("{p}[{}:{size}]", show_arith(index))
            }
        }
        Arith::Neg(x, _) => format!("(-{})", show_arith(x)),
        Arith::Bin(op, l, r) => {
            let op = match op {
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Mul => "*",
                BinOp::Div => "/",
                BinOp::Mod => "%",
                BinOp::And => "&",
                BinOp::Or => "|",
                BinOp::Xor => "^",
                BinOp::Shl => "<<",
                BinOp::Shr => ">>",
            };
            format!("({} {op} {})", show_arith(l), show_arith(r))
        }
    }
}

/// Parses and renders, panicking with the error if the text does not parse.
pub fn p(text: &str) -> String {
    match parse(text) {
        Ok(Some(e)) => show(&e),
        Ok(None) => "<empty>".into(),
        Err(e) => panic!("{text:?} did not parse:\n{e}"),
    }
}

/// The error message for text that must not parse.
pub fn err(text: &str) -> String {
    match parse(text) {
        Ok(e) => panic!("{text:?} parsed but should not: {e:?}"),
        Err(e) => e.message().to_string(),
    }
}

/// The error's byte span for text that must not parse.
pub fn err_span(text: &str) -> (usize, usize) {
    match parse(text) {
        Ok(e) => panic!("{text:?} parsed but should not: {e:?}"),
        Err(e) => (e.span().start, e.span().end),
    }
}

fn prim_spans(text: &str) -> Vec<(usize, usize)> {
    fn walk(e: &Expr, out: &mut Vec<(usize, usize)>) {
        match e {
            Expr::And(a, b) | Expr::Or(a, b) => {
                walk(a, out);
                walk(b, out);
            }
            Expr::Not(a, _) => walk(a, out),
            Expr::Prim(p) => out.push((p.span.start, p.span.end)),
        }
    }
    let mut out = Vec::new();
    if let Ok(Some(e)) = parse(text) {
        walk(&e, &mut out);
    }
    out
}

#[test]
fn empty_expression() {
    assert_eq!(parse("").unwrap(), None);
    assert_eq!(parse(" \t\r\n ").unwrap(), None);
}

#[test]
fn and_or_have_equal_precedence_and_associate_left() {
    assert_eq!(p("tcp and udp or icmp"), "((tcp and udp) or icmp)");
    assert_eq!(p("tcp or udp and icmp"), "((tcp or udp) and icmp)");
    assert_eq!(
        p("tcp && udp || icmp && igmp"),
        "(((tcp and udp) or icmp) and igmp)"
    );
    assert_eq!(p("tcp or (udp and icmp)"), "(tcp or (udp and icmp))");
}

#[test]
fn not_binds_tighter_than_and_or() {
    assert_eq!(p("not tcp and udp"), "((not tcp) and udp)");
    assert_eq!(p("! tcp or not not udp"), "((not tcp) or (not (not udp)))");
    assert_eq!(p("not (tcp and udp)"), "(not (tcp and udp))");
}

#[test]
fn bare_ids_inherit_qualifiers() {
    assert_eq!(p("host a or b"), "(host a or host b)");
    assert_eq!(p("host a and not b"), "(host a and (not host b))");
    assert_eq!(
        p("src host 1.2.3.4 or 1.2.3.5"),
        "(src host 1.2.3.4 or src host 1.2.3.5)"
    );
    assert_eq!(
        p("tcp port 80 or 443 or udp"),
        "((tcp port 80 or tcp port 443) or udp)"
    );
    assert_eq!(
        p("tcp dst port 80 and 8080"),
        "(tcp dst port 80 and tcp dst port 8080)"
    );
    assert_eq!(
        p("isis proto 0x12 or 0x14"),
        "(isis proto 18 or isis proto 20)"
    );
    assert_eq!(p("decnet dst not 1.1"), "(not decnet dst 1.1)");
    assert_eq!(p("link host not $c0"), "(not link host $c0)");
    // Inheritance reaches past a term that is a `head id`, not past any other term.
    assert_eq!(p("host a or host b or c"), "((host a or host b) or host c)");
    assert_eq!(
        p("port 53 or host a or b"),
        "((port 53 or host a) or host b)"
    );
}

#[test]
fn parenthesised_ids_share_the_qualifiers() {
    assert_eq!(p("tcp port (80 or 443)"), "(tcp port 80 or tcp port 443)");
    assert_eq!(p("host (a or b and c)"), "((host a or host b) and host c)");
    assert_eq!(p("host (a or (b or c))"), "(host a or (host b or host c))");
    assert_eq!(p("host (not a or b)"), "((not host a) or host b)");
    assert_eq!(p("host a and (b or c)"), "(host a and (host b or host c))");
    assert_eq!(p("port ((80))"), "port 80");
    assert_eq!(p("port ((80) or 443)"), "(port 80 or port 443)");
    // `(` after a qualifier opens ids only: no expression, no nested id group.
    assert!(err("host (tcp)").starts_with("syntax error"));
    assert!(err("host ((1.2.3.4))").starts_with("syntax error"));
}

#[test]
fn a_parenthesised_expression_hands_on_what_preceded_it() {
    // grammar.y: `rterm: paren expr ')'` takes the qualifiers from before the `(`.
    assert_eq!(
        p("host 1.2.3.4 or (tcp) or 1.2.3.5"),
        "((host 1.2.3.4 or tcp) or host 1.2.3.5)"
    );
    assert_eq!(
        p("host a or not (tcp) or b"),
        "((host a or (not tcp)) or host b)"
    );
    assert!(err("(host 1.2.3.4) or 1.2.3.5").starts_with("syntax error in filter expression"));
}

#[test]
fn ids_with_nothing_to_inherit_are_errors() {
    assert!(err("tcp or 80").starts_with("syntax error in filter expression"));
    assert!(err("tcp or foo").starts_with("syntax error in filter expression"));
    assert!(err("less 10 or 1.2.3.4").starts_with("syntax error in filter expression"));
    assert!(err("tcp[0] = 1 or 80").starts_with("syntax error in filter expression"));
    assert_eq!(err("tcp or 10.0.0.0/8"), "Mask syntax for networks only");
    assert_eq!(
        err("tcp or 10.0.0.0 mask 255.0.0.0"),
        "Mask syntax for networks only"
    );
    assert_eq!(err("tcp or ::1"), "invalid qualifier against IPv6 address");
    assert_eq!(
        err("tcp or ab:cd:ef:00:00:01"),
        "Ethernet address used in non-ether expression"
    );
    assert_eq!(
        err("tcp or $1"),
        "ARCnet address used in non-arc expression"
    );
    assert_eq!(err_span("tcp or 80"), (7, 9));
    // A first id has no default qualifiers at all.
    for text in ["1.2.3.4", "80", "foo", "(80)", "not 80", "\\tcp"] {
        assert!(err(text).starts_with("syntax error"), "{text}");
    }
}

#[test]
fn arithmetic_precedence() {
    assert_eq!(p("1 + 2 * 3 = 7"), "(1 + (2 * 3)) = 7");
    assert_eq!(p("1 - 2 - 3 = 0"), "((1 - 2) - 3) = 0");
    assert_eq!(p("8 / 4 / 2 = 1"), "((8 / 4) / 2) = 1");
    assert_eq!(
        p("1 | 2 & 3 << 4 + 5 * 6 = 0"),
        "(1 | (2 & (3 << (4 + (5 * 6))))) = 0"
    );
    assert_eq!(
        p("1 * 2 + 3 << 4 & 5 | 6 = 0"),
        "(((((1 * 2) + 3) << 4) & 5) | 6) = 0"
    );
    assert_eq!(p("1 << 2 >> 3 = 0"), "((1 << 2) >> 3) = 0");
    assert_eq!(p("-1 * 2 = 0"), "((-1) * 2) = 0");
    assert_eq!(p("- -len = 0"), "(-(-len)) = 0");
    assert_eq!(p("len - -1 = 0"), "(len - (-1)) = 0");
    assert_eq!(p("(1 + 2) * 3 = 9"), "((1 + 2) * 3) = 9");
}

#[test]
fn modulo_and_xor_have_no_precedence_in_grammar_y() {
    // bison resolves every conflict on `%` and `^` by shifting.
    assert_eq!(p("1 * 2 % 3 + 4 = 0"), "(1 * (2 % (3 + 4))) = 0");
    assert_eq!(p("1 % 2 * 3 = 0"), "(1 % (2 * 3)) = 0");
    assert_eq!(p("1 ^ 2 | 3 = 0"), "(1 ^ (2 | 3)) = 0");
    assert_eq!(p("1 | 2 ^ 3 & 4 = 0"), "(1 | (2 ^ (3 & 4))) = 0");
    assert_eq!(p("1 % 2 % 3 = 0"), "(1 % (2 % 3)) = 0");
    assert_eq!(p("-1 % 2 = 0"), "(-(1 % 2)) = 0");
}

#[test]
fn packet_loads_and_comparisons() {
    assert_eq!(p("tcp[13] & 2 != 0"), "(tcp[13] & 2) != 0");
    assert_eq!(
        p("ip[2:2] - ((ip[0]&0xf)<<2) > 40"),
        "(ip[2:2] - ((ip[0] & 15) << 2)) > 40"
    );
    assert_eq!(
        p("tcp[((tcp[12]&0xf0)>>2):4] = 0x47455420"),
        "tcp[((tcp[12] & 240) >> 2):4] = 1195725856"
    );
    assert_eq!(
        p("(vrrp[0] & 0xf0) >> 4 == 3"),
        "((vrrp[0] & 240) >> 4) = 3"
    );
    assert_eq!(p("icmp[icmptype] == icmp-echo"), "icmp[0] = 8");
    assert_eq!(
        p("tcp[tcpflags] & (tcp-syn|tcp-ack) != 0"),
        "(tcp[13] & (2 | 16)) != 0"
    );
    assert_eq!(
        p("ether[0] >= 1 and len <= 100"),
        "(link[0] >= 1 and len <= 100)"
    );
    assert_eq!(p("ip6[6] < 58 || length > 1"), "(ip6[6] < 58 or len > 1)");
    assert_eq!(p("80 = tcp[2:2]"), "80 = tcp[2:2]");
    assert_eq!(p("host a and 1 + 1 = 2"), "(host a and (1 + 1) = 2)");
    assert_eq!(p("host a and (1) + 1 = 2"), "(host a and (1 + 1) = 2)");
    assert_eq!(err("link[0:3] != 0"), "data size must be 1, 2, or 4");
    assert_eq!(err_span("link[0:3] != 0"), (7, 8));
    assert!(err("link[0:-1] != 0").starts_with("syntax error"));
    assert!(err("tcp[0]").starts_with("syntax error"));
    assert!(err("1 = 2 = 3").starts_with("syntax error"));
}

#[test]
fn qualifier_heads() {
    assert_eq!(p("src or dst host a"), "src or dst host a");
    assert_eq!(
        p("dst and src net 10.0.0.0/8"),
        "src and dst net 10.0.0.0/8"
    );
    assert_eq!(p("ip src 10.0.0.2"), "ip src 10.0.0.2");
    assert_eq!(p("ether proto \\ip6"), "link proto ip6");
    assert_eq!(p("ip protochain 17"), "ip protochain 17");
    assert_eq!(p("gateway foo"), "gateway foo");
    assert_eq!(p("addr1 foo or ra bar"), "(addr1 foo or ra bar)");
    assert_eq!(p("tcp portrange 1-1023"), "tcp portrange 1-1023");
    assert_eq!(p("net 192.168 mask 255.255"), "net 192.168 mask 255.255");
    assert_eq!(
        p("ip dst net 172.17.89.30 / 32"),
        "ip dst net 172.17.89.30/32"
    );
    assert_eq!(p("ip6 net ff00::/8"), "ip6 net ff00::/8");
    assert_eq!(p("decnet host 50.764"), "decnet host 50.764");
    for text in [
        "src proto 1",
        "dst protochain \\tcp",
        "src or 1.2.3.4",
        "src gateway a",
        "tcp portrange 23-",
    ] {
        assert!(err(text).starts_with("syntax error"), "{text}");
    }
    assert!(err("net 10 mask 255.0.0.0").starts_with("syntax error"));
    assert!(err("net 10/8").starts_with("syntax error"));
    assert!(err("net 10.0.0.0 mask 255").starts_with("syntax error"));
}

#[test]
fn qualified_primitive_values() {
    let Some(Expr::Prim(prim)) = parse("ip6 src or dst net fe80::/10").unwrap() else {
        panic!()
    };
    let PrimKind::Qualified { qual, id, id_span } = prim.kind else {
        panic!()
    };
    assert_eq!(
        qual,
        Qual {
            proto: Proto::Ip6,
            dir: Dir::Or,
            addr: AddrType::Net
        }
    );
    assert_eq!(id, Id::Ip6Prefix("fe80::".into(), 10));
    assert_eq!((id_span.start, id_span.end), (19, 28));
    assert_eq!((prim.span.start, prim.span.end), (0, 28));
    let Some(Expr::Prim(prim)) = parse("ip proto \\tcp").unwrap() else {
        panic!()
    };
    assert!(matches!(prim.kind, PrimKind::Qualified { id: Id::Name(ref s), .. } if s == "tcp"));
}

#[test]
fn other_primitives() {
    let k = |text: &str| match parse(text) {
        Ok(Some(Expr::Prim(p))) => p.kind,
        other => panic!("{text}: {other:?}"),
    };
    assert_eq!(k("less 100"), PrimKind::Less(100));
    assert_eq!(k("greater 0x10"), PrimKind::Greater(16));
    assert_eq!(
        k("byte 1 & 2"),
        PrimKind::Byte {
            index: 1,
            op: ByteOp::And,
            value: 2
        }
    );
    assert_eq!(
        k("byte 8 == 5"),
        PrimKind::Byte {
            index: 8,
            op: ByteOp::Eq,
            value: 5
        }
    );
    assert_eq!(
        k("byte 8 | 255"),
        PrimKind::Byte {
            index: 8,
            op: ByteOp::Or,
            value: 255
        }
    );
    assert_eq!(k("inbound"), PrimKind::Inbound);
    assert_eq!(k("outbound"), PrimKind::Outbound);
    assert_eq!(k("ifindex 3"), PrimKind::Ifindex(3));
    assert_eq!(k("vlan"), PrimKind::Vlan(None));
    assert_eq!(k("vlan 10"), PrimKind::Vlan(Some(10)));
    assert_eq!(k("vlan ((10))"), PrimKind::Vlan(Some(10)));
    assert_eq!(k("mpls 3"), PrimKind::Mpls(Some(3)));
    assert_eq!(k("pppoed"), PrimKind::Pppoed);
    assert_eq!(k("pppoes 0x3b"), PrimKind::Pppoes(Some(0x3b)));
    assert_eq!(k("geneve"), PrimKind::Geneve(None));
    assert_eq!(k("broadcast"), PrimKind::Broadcast(Proto::Default));
    assert_eq!(k("ip broadcast"), PrimKind::Broadcast(Proto::Ip));
    assert_eq!(k("ether multicast"), PrimKind::Multicast(Proto::Link));
    assert_eq!(k("es-is"), PrimKind::ProtoAbbrev(Proto::Esis));
    assert_eq!(k("is-is"), PrimKind::ProtoAbbrev(Proto::Isis));
    assert_eq!(k("l1"), PrimKind::ProtoAbbrev(Proto::IsisL1));
    assert_eq!(k("llc"), PrimKind::Llc(Llc::Any));
    assert_eq!(k("llc I"), PrimKind::Llc(Llc::I));
    assert_eq!(k("llc s"), PrimKind::Llc(Llc::S));
    assert_eq!(k("llc u"), PrimKind::Llc(Llc::U));
    assert_eq!(k("llc rnr"), PrimKind::Llc(Llc::SSubtype("rnr".into())));
    assert_eq!(k("llc RR"), PrimKind::Llc(Llc::SSubtype("rr".into())));
    assert_eq!(k("llc sabme"), PrimKind::Llc(Llc::USubtype("sabme".into())));
    assert_eq!(k("vxlan 5"), PrimKind::Unsupported("vxlan 5".into()));
    // 802.11: names become the frame control's bits as libpcap's grammar does.
    let wlan = |value, mask| PrimKind::P80211Type { value, mask };
    assert_eq!(k("wlan type mgt subtype beacon"), wlan(0x80, 0xfc));
    assert_eq!(k("type data"), wlan(0x08, 0x0c));
    assert_eq!(k("type ctl subtype ACK"), wlan(0xd4, 0xfc));
    assert_eq!(k("subtype qos-data"), wlan(0x88, 0xfc));
    assert_eq!(k("subtype data"), wlan(0x08, 0xfc));
    assert_eq!(k("type 4 subtype 0xb0"), wlan(0xb4, 0xfc));
    assert_eq!(k("dir tods"), PrimKind::P80211Dir(1));
    assert_eq!(k("direction 7"), PrimKind::P80211Dir(7));
    assert!(err("type foo").contains("unknown 802.11 type name \"foo\""));
    assert!(err("type 0x10").contains("invalid 802.11 type value 0x10"));
    assert!(err("type mgt subtype 0x0f").contains("invalid 802.11 subtype value 0x0f"));
    assert!(err("type data subtype beacon").contains("unknown 802.11 subtype name \"beacon\""));
    assert!(err("type 12 subtype ack").contains("unknown 802.11 type"));
    assert!(err("subtype foo").contains("unknown 802.11 type name"));
    assert!(err("dir nowhere").contains("unknown 802.11 direction"));
    assert_eq!(
        k("vpi (1 or 2)"),
        PrimKind::Telco(Telco::Vpi, vec![(RelOp::Eq, 1), (RelOp::Eq, 2)])
    );
    assert_eq!(
        k("dpc != 0"),
        PrimKind::Telco(Telco::Dpc, vec![(RelOp::Ne, 0)])
    );
    assert_eq!(
        k("hsls 3"),
        PrimKind::Telco(Telco::Hsls, vec![(RelOp::Eq, 3)])
    );
    assert_eq!(k("lane"), PrimKind::Telco(Telco::Lane, vec![]));
    assert_eq!(k("hmsu"), PrimKind::Telco(Telco::Hmsu, vec![]));
    assert_eq!(k("on eth0"), PrimKind::Pf(Pf::Ifname("eth0".into())));
    assert_eq!(k("rset r1"), PrimKind::Pf(Pf::Ruleset("r1".into())));
    assert_eq!(k("rulenum 0x10"), PrimKind::Pf(Pf::Rnr(16)));
    assert_eq!(k("srnr 7"), PrimKind::Pf(Pf::Srnr(7)));
    // Reason and action names are pf's numbers, looked up ignoring case.
    assert_eq!(k("action pass"), PrimKind::Pf(Pf::Action(0)));
    assert_eq!(k("action BLOCK"), PrimKind::Pf(Pf::Action(1)));
    assert_eq!(k("reason short"), PrimKind::Pf(Pf::Reason(3)));
    assert_eq!(k("reason 300"), PrimKind::Pf(Pf::Reason(300)));
    // libpcap 1.10 accepts a byte value above 255 (newer versions refuse it).
    assert!(matches!(
        k("byte 1 = 256"),
        PrimKind::Byte { value: 256, .. }
    ));
    assert_eq!(err("llc foo"), "unknown LLC type name \"foo\"");
    for text in [
        "byte 1 != 2",
        "byte 1 << 2",
        "pppoed 1234",
        "vlan any",
        "vlan (10 + 1)",
        "less (10)",
        "vpi (1 and 2)",
        "sio",
    ] {
        assert!(err(text).starts_with("syntax error"), "{text}");
    }
}

#[test]
fn scanner_numbers() {
    assert_eq!(p("port 0x50"), "port 80");
    assert_eq!(p("port 0X50"), "port 80");
    assert_eq!(p("port 0120"), "port 80");
    assert_eq!(p("port 4294967295"), "port 4294967295");
    assert_eq!(p("ip dst 0025404254436"), "ip dst 2886818078");
    assert_eq!(err("08"), "number 08 contains non-octal digit");
    assert_eq!(
        err("0040000000000"),
        "octal number 0040000000000 overflows 32 bits"
    );
    assert_eq!(
        err("003777777777778"),
        "octal number 003777777777778 overflows 32 bits"
    );
    assert_eq!(
        err("00377777777778"),
        "number 00377777777778 contains non-octal digit"
    );
    assert_eq!(
        err("4294967296"),
        "decimal number 4294967296 overflows 32 bits"
    );
    assert_eq!(
        err("0x100000000"),
        "hexadecimal number 0x100000000 overflows 32 bits"
    );
    assert_eq!(
        err("0X100000000"),
        "hexadecimal number 0X100000000 overflows 32 bits"
    );
    assert_eq!(err_span("tcp port 08"), (9, 11));
    // `0x1G` and `1-1023` are names, as in flex's longest match.
    assert_eq!(p("port 0x1G"), "port 0x1G");
}

#[test]
fn scanner_addresses() {
    assert_eq!(
        p("ether src host ab-cd-ef-00-00-02"),
        "link src host ab-cd-ef-00-00-02"
    );
    assert_eq!(
        p("ether dst host abcd.ef00.0003"),
        "link dst host abcd.ef00.0003"
    );
    assert_eq!(
        p("ether src or dst host ab.CD.ef.0.0.1"),
        "link src or dst host ab.CD.ef.0.0.1"
    );
    assert_eq!(p("ether host 001122334455"), "link host 001122334455");
    assert_eq!(
        p("ether host 01:80:c2:00:00:00"),
        "link host 01:80:c2:00:00:00"
    );
    assert_eq!(
        p("ip6 dst fe80::7788:99ff:254.170.187.204/128"),
        "ip6 dst fe80::7788:99ff:254.170.187.204/128"
    );
    assert_eq!(p("ip6 host ::0.0.0.1"), "ip6 host ::0.0.0.1");
    assert_eq!(p("host 1.2.3.4.5"), "host 1.2.3.4.5");
    assert_eq!(p("ip dst host 0xac11591e"), "ip dst host 2886818078");
    assert_eq!(
        err("ip6 host fe80::256.20.30.40"),
        "invalid IPv6 address fe80::256.20.30.40"
    );
    assert_eq!(err_span("ip6 host fe80::256.20.30.40"), (9, 27));
    assert!(err("ip6 host fe80:0:0:0:0:0:0:0:0").starts_with("syntax error"));
    assert_eq!(err_span("ip6 host fe80:0:0:0:0:0:0:0:0"), (27, 28));
    assert_eq!(err("ether ab:cd:ef:0g:00:00"), "invalid Ethernet address");
    assert_eq!(err_span("ether ab:cd:ef:0g:00:00"), (6, 23));
    assert_eq!(err("host ab:cd:ef"), "invalid Ethernet address");
}

#[test]
fn scanner_keywords_and_escapes() {
    assert_eq!(p("tcp and not udp"), p("tcp && ! udp"));
    assert_eq!(p("host \\host"), "host host");
    assert_eq!(
        p("ether proto \\arp or \\rarp"),
        "(link proto arp or link proto rarp)"
    );
    assert_eq!(
        p("ppp[0] = 1 or slip[0] = 1 or fddi[0] = 1 or tr[0] = 1 or wlan[0] = 1"),
        "((((link[0] = 1 or link[0] = 1) or link[0] = 1) or link[0] = 1) or link[0] = 1)"
    );
    assert!(err("TCP").starts_with("syntax error"));
    assert!(err("tcp @").starts_with("syntax error"));
    assert!(err("host \\").starts_with("syntax error"));
    assert!(err("host é").starts_with("syntax error"));
}

#[test]
fn error_spans_point_at_the_offending_token() {
    assert_eq!(err_span("tcp portrange 23-"), (16, 17));
    assert_eq!(err_span("host"), (4, 4));
    assert_eq!(err_span("tcp or "), (7, 7));
    assert_eq!(err_span("(tcp"), (4, 4));
    assert_eq!(err_span("tcp )"), (4, 5));
    assert_eq!(err_span("vlan any"), (5, 8));
    assert!(err("tcp or").contains("ends"));
    let e = parse("tcp port 80 and and").unwrap_err();
    assert_eq!(e.column(), 17);
    assert!(e.to_string().contains("                ^^^"), "{e}");
}

#[test]
fn primitive_spans() {
    assert_eq!(prim_spans("tcp port 80 or 443"), vec![(0, 11), (15, 18)]);
    assert_eq!(
        prim_spans("not ip[0] = 1 and vlan 10"),
        vec![(4, 13), (18, 25)]
    );
    assert_eq!(prim_spans("host (a or b)"), vec![(6, 7), (11, 12)]);
    let Some(Expr::Not(_, s)) = parse("  not tcp").unwrap() else {
        panic!()
    };
    assert_eq!((s.start, s.end), (2, 5));
}

#[test]
fn nesting_is_bounded() {
    let deep = "(".repeat(100_000);
    assert_eq!(err(&deep), "expression nests too deeply");
    let nots = "not ".repeat(100_000) + "tcp";
    assert_eq!(err(&nots), "expression nests too deeply");
    let arith = "1+".repeat(100_000) + "1 = 1";
    assert_eq!(err(&arith), "expression nests too deeply");
    let negs = "-".repeat(100_000) + "1 = 1";
    assert_eq!(err(&negs), "expression nests too deeply");
    let loads = "ip[".repeat(100_000);
    assert_eq!(err(&loads), "expression nests too deeply");
    let mixed = "tcp and udp or ".repeat(50_000) + "tcp";
    assert_eq!(err(&mixed), "expression nests too deeply");
    let ids = format!("host a and {}b{}", "(".repeat(100_000), ")".repeat(100_000));
    assert_eq!(err(&ids), "expression nests too deeply");
    // Moderate nesting is fine.
    let ok = format!("{}tcp{}", "(".repeat(99), ")".repeat(99));
    assert_eq!(p(&ok), "tcp");
}

#[test]
fn long_runs_of_one_operator_parse_and_keep_order() {
    let n = 20_000;
    let text = (0..n)
        .map(|i| format!("host h{i}"))
        .collect::<Vec<_>>()
        .join(" or ");
    let e = parse(&text).unwrap().unwrap();
    let mut names = Vec::new();
    let mut stack = vec![&e];
    while let Some(e) = stack.pop() {
        match e {
            Expr::Or(a, b) => {
                stack.push(b);
                stack.push(a);
            }
            Expr::Prim(Primitive {
                kind:
                    PrimKind::Qualified {
                        id: Id::Name(s), ..
                    },
                ..
            }) => names.push(s.clone()),
            other => panic!("unexpected node {other:?}"),
        }
    }
    assert_eq!(names, (0..n).map(|i| format!("h{i}")).collect::<Vec<_>>());
    // Short runs keep libpcap's left-deep shape.
    assert_eq!(
        p("host a or b or c or d"),
        "(((host a or host b) or host c) or host d)"
    );
    // Inheritance runs through the whole chain.
    let ports = (0..5000)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(" or ");
    assert!(parse(&format!("tcp port {ports}")).is_ok());
}
