//! The scanner: filter text to [`Token`]s, following libpcap's scanner.l.
//!
//! libpcap's scanner is a flex program, so it picks, at each position, the rule with the
//! *longest* match, and among equally long matches the rule written first. The rules that
//! compete are, in scanner.l's order: the keywords, the operators, `$xx` (ARCnet), the MAC
//! forms, numbers, dotted numbers, IPv6 addresses, the "bogus Ethernet address" rule, the
//! symbolic constants (`icmp-echo`, `tcp-syn`, ...), names, and `\escaped` names. [`lex`]
//! measures every rule's longest match with a small matcher per rule and keeps the winner,
//! which reproduces flex's choices exactly: `1.2.3.4` is an address but `1.2.3.4.5` a name,
//! `001122334455` a MAC address, `0x1G` a name, `1-1023` a name (for `portrange`),
//! `tcp-syn` the number 2 and `tcp-synx` a name.
//!
//! Invariants: every span lies on `char` boundaries of the text (so errors can slice it),
//! scanning never panics and never backtracks more than a bounded amount per token, and the
//! token list always ends with [`TokKind::Eof`] or, at the first bad token, with a
//! [`TokKind::Error`] carrying libpcap's message for it.

use super::ast::{Span, Telco};
use std::sync::OnceLock;

/// A keyword of the filter language. Several spellings map to one keyword, as in
/// scanner.l (`ether`, `ppp`, ... are all [`Kw::Link`]; `&&` is [`Kw::And`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kw {
    Dst,
    Src,
    Link,
    Arp,
    Rarp,
    Ip,
    Sctp,
    Tcp,
    Udp,
    Icmp,
    Igmp,
    Igrp,
    Pim,
    Vrrp,
    Carp,
    Radio,
    Ip6,
    Icmp6,
    Ah,
    Esp,
    Atalk,
    Aarp,
    Decnet,
    Lat,
    Sca,
    Moprc,
    Mopdl,
    Iso,
    Esis,
    Isis,
    L1,
    L2,
    Iih,
    Lsp,
    Snp,
    Csnp,
    Psnp,
    Clnp,
    Stp,
    Ipx,
    Netbeui,
    Host,
    Net,
    Mask,
    Port,
    Portrange,
    Proto,
    Protochain,
    Gateway,
    Type,
    Subtype,
    Dir,
    Addr1,
    Addr2,
    Addr3,
    Addr4,
    Ra,
    Ta,
    Less,
    Greater,
    Byte,
    Broadcast,
    Multicast,
    And,
    Or,
    /// `not` and `!`.
    Not,
    Len,
    Inbound,
    Outbound,
    Ifindex,
    Vlan,
    Mpls,
    Pppoed,
    Pppoes,
    Geneve,
    /// Newer than libpcap 1.10.3 (libpcap 1.11 has it); accepted so the corpus parses.
    Vxlan,
    Llc,
    /// An ATM or SS7 primitive's keyword (`lane`, `vpi`, `fisu`, `sio`, ...).
    Telco(Telco),
    PfIfname,
    PfRset,
    PfRnr,
    PfSrnr,
    PfReason,
    PfAction,
}

/// The keyword spellings of scanner.l. Matching is case-sensitive, as in flex.
const KEYWORDS: &[(&str, Kw)] = &[
    ("dst", Kw::Dst),
    ("src", Kw::Src),
    ("link", Kw::Link),
    ("ether", Kw::Link),
    ("ppp", Kw::Link),
    ("slip", Kw::Link),
    ("fddi", Kw::Link),
    ("tr", Kw::Link),
    ("wlan", Kw::Link),
    ("arp", Kw::Arp),
    ("rarp", Kw::Rarp),
    ("ip", Kw::Ip),
    ("sctp", Kw::Sctp),
    ("tcp", Kw::Tcp),
    ("udp", Kw::Udp),
    ("icmp", Kw::Icmp),
    ("igmp", Kw::Igmp),
    ("igrp", Kw::Igrp),
    ("pim", Kw::Pim),
    ("vrrp", Kw::Vrrp),
    ("carp", Kw::Carp),
    ("radio", Kw::Radio),
    ("ip6", Kw::Ip6),
    ("icmp6", Kw::Icmp6),
    ("ah", Kw::Ah),
    ("esp", Kw::Esp),
    ("atalk", Kw::Atalk),
    ("aarp", Kw::Aarp),
    ("decnet", Kw::Decnet),
    ("lat", Kw::Lat),
    ("sca", Kw::Sca),
    ("moprc", Kw::Moprc),
    ("mopdl", Kw::Mopdl),
    ("iso", Kw::Iso),
    ("esis", Kw::Esis),
    ("es-is", Kw::Esis),
    ("isis", Kw::Isis),
    ("is-is", Kw::Isis),
    ("l1", Kw::L1),
    ("l2", Kw::L2),
    ("iih", Kw::Iih),
    ("lsp", Kw::Lsp),
    ("snp", Kw::Snp),
    ("csnp", Kw::Csnp),
    ("psnp", Kw::Psnp),
    ("clnp", Kw::Clnp),
    ("stp", Kw::Stp),
    ("ipx", Kw::Ipx),
    ("netbeui", Kw::Netbeui),
    ("host", Kw::Host),
    ("net", Kw::Net),
    ("mask", Kw::Mask),
    ("port", Kw::Port),
    ("portrange", Kw::Portrange),
    ("proto", Kw::Proto),
    ("protochain", Kw::Protochain),
    ("gateway", Kw::Gateway),
    ("type", Kw::Type),
    ("subtype", Kw::Subtype),
    ("direction", Kw::Dir),
    ("dir", Kw::Dir),
    ("address1", Kw::Addr1),
    ("addr1", Kw::Addr1),
    ("address2", Kw::Addr2),
    ("addr2", Kw::Addr2),
    ("address3", Kw::Addr3),
    ("addr3", Kw::Addr3),
    ("address4", Kw::Addr4),
    ("addr4", Kw::Addr4),
    ("ra", Kw::Ra),
    ("ta", Kw::Ta),
    ("less", Kw::Less),
    ("greater", Kw::Greater),
    ("byte", Kw::Byte),
    ("broadcast", Kw::Broadcast),
    ("multicast", Kw::Multicast),
    ("and", Kw::And),
    ("&&", Kw::And),
    ("or", Kw::Or),
    ("||", Kw::Or),
    ("not", Kw::Not),
    ("len", Kw::Len),
    ("length", Kw::Len),
    ("inbound", Kw::Inbound),
    ("outbound", Kw::Outbound),
    ("ifindex", Kw::Ifindex),
    ("vlan", Kw::Vlan),
    ("mpls", Kw::Mpls),
    ("pppoed", Kw::Pppoed),
    ("pppoes", Kw::Pppoes),
    ("geneve", Kw::Geneve),
    ("vxlan", Kw::Vxlan),
    ("lane", Kw::Telco(Telco::Lane)),
    ("llc", Kw::Llc),
    ("metac", Kw::Telco(Telco::Metac)),
    ("bcc", Kw::Telco(Telco::Bcc)),
    ("oam", Kw::Telco(Telco::Oam)),
    ("oamf4", Kw::Telco(Telco::Oamf4)),
    ("oamf4ec", Kw::Telco(Telco::Oamf4ec)),
    ("oamf4sc", Kw::Telco(Telco::Oamf4sc)),
    ("sc", Kw::Telco(Telco::Sc)),
    ("ilmic", Kw::Telco(Telco::Ilmic)),
    ("vpi", Kw::Telco(Telco::Vpi)),
    ("vci", Kw::Telco(Telco::Vci)),
    ("connectmsg", Kw::Telco(Telco::Connectmsg)),
    ("metaconnect", Kw::Telco(Telco::Metaconnect)),
    ("on", Kw::PfIfname),
    ("ifname", Kw::PfIfname),
    ("rset", Kw::PfRset),
    ("ruleset", Kw::PfRset),
    ("rnr", Kw::PfRnr),
    ("rulenum", Kw::PfRnr),
    ("srnr", Kw::PfSrnr),
    ("subrulenum", Kw::PfSrnr),
    ("reason", Kw::PfReason),
    ("action", Kw::PfAction),
    ("fisu", Kw::Telco(Telco::Fisu)),
    ("lssu", Kw::Telco(Telco::Lssu)),
    ("lsu", Kw::Telco(Telco::Lssu)),
    ("msu", Kw::Telco(Telco::Msu)),
    ("hfisu", Kw::Telco(Telco::Hfisu)),
    ("hlssu", Kw::Telco(Telco::Hlssu)),
    ("hmsu", Kw::Telco(Telco::Hmsu)),
    ("sio", Kw::Telco(Telco::Sio)),
    ("opc", Kw::Telco(Telco::Opc)),
    ("dpc", Kw::Telco(Telco::Dpc)),
    ("sls", Kw::Telco(Telco::Sls)),
    ("hsio", Kw::Telco(Telco::Hsio)),
    ("hopc", Kw::Telco(Telco::Hopc)),
    ("hdpc", Kw::Telco(Telco::Hdpc)),
    ("hsls", Kw::Telco(Telco::Hsls)),
];

/// The symbolic constants of scanner.l, which lex as numbers.
const CONSTANTS: &[(&str, u32)] = &[
    ("icmptype", 0),
    ("icmpcode", 1),
    ("icmp-echoreply", 0),
    ("icmp-unreach", 3),
    ("icmp-sourcequench", 4),
    ("icmp-redirect", 5),
    ("icmp-echo", 8),
    ("icmp-routeradvert", 9),
    ("icmp-routersolicit", 10),
    ("icmp-timxceed", 11),
    ("icmp-paramprob", 12),
    ("icmp-tstamp", 13),
    ("icmp-tstampreply", 14),
    ("icmp-ireq", 15),
    ("icmp-ireqreply", 16),
    ("icmp-maskreq", 17),
    ("icmp-maskreply", 18),
    ("icmp6type", 0),
    ("icmp6code", 1),
    ("icmp6-destinationunreach", 1),
    ("icmp6-packettoobig", 2),
    ("icmp6-timeexceeded", 3),
    ("icmp6-parameterproblem", 4),
    ("icmp6-echo", 128),
    ("icmp6-echoreply", 129),
    ("icmp6-multicastlistenerquery", 130),
    ("icmp6-multicastlistenerreportv1", 131),
    ("icmp6-multicastlistenerdone", 132),
    ("icmp6-routersolicit", 133),
    ("icmp6-routeradvert", 134),
    ("icmp6-neighborsolicit", 135),
    ("icmp6-neighboradvert", 136),
    ("icmp6-redirect", 137),
    ("icmp6-routerrenum", 138),
    ("icmp6-nodeinformationquery", 139),
    ("icmp6-nodeinformationresponse", 140),
    ("icmp6-ineighbordiscoverysolicit", 141),
    ("icmp6-ineighbordiscoveryadvert", 142),
    ("icmp6-multicastlistenerreportv2", 143),
    ("icmp6-homeagentdiscoveryrequest", 144),
    ("icmp6-homeagentdiscoveryreply", 145),
    ("icmp6-mobileprefixsolicit", 146),
    ("icmp6-mobileprefixadvert", 147),
    ("icmp6-certpathsolicit", 148),
    ("icmp6-certpathadvert", 149),
    ("icmp6-multicastrouteradvert", 151),
    ("icmp6-multicastroutersolicit", 152),
    ("icmp6-multicastrouterterm", 153),
    ("tcpflags", 13),
    ("tcp-fin", 0x01),
    ("tcp-syn", 0x02),
    ("tcp-rst", 0x04),
    ("tcp-push", 0x08),
    ("tcp-ack", 0x10),
    ("tcp-urg", 0x20),
    ("tcp-ece", 0x40),
    ("tcp-cwr", 0x80),
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TokKind {
    Kw(Kw),
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Colon,
    LBracket,
    RBracket,
    LParen,
    RParen,
    Amp,
    Pipe,
    Caret,
    Lt,
    Gt,
    /// `=` and `==`.
    Eq,
    Ge,
    Le,
    Ne,
    Shl,
    Shr,
    /// `NUM`: a number or a symbolic constant, already converted.
    Num(u32),
    /// `ID`: a name, or an escaped keyword without its backslash.
    Id(String),
    /// `HID`: two to four dotted numbers.
    Hid(String),
    /// `HID6`: an IPv6 address that passed validation.
    Hid6(String),
    /// `EID`: a MAC address in one of scanner.l's forms.
    Eid(String),
    /// `AID`: an ARCnet address `$xx`, with the `$`.
    Aid(String),
    /// A token libpcap's scanner refuses; the message is libpcap's.
    Error(String),
    Eof,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: TokKind,
    pub span: Span,
}

/// Scans the whole text. The result ends with `Eof`, or with the first `Error` token
/// (scanning stops there, as libpcap stops at the first bad token it reads).
pub(crate) fn lex(text: &str) -> Vec<Token> {
    let b = text.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    loop {
        while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\r' | b'\n') {
            i += 1;
        }
        if i >= b.len() {
            toks.push(Token {
                kind: TokKind::Eof,
                span: Span::new(b.len(), b.len()),
            });
            return toks;
        }
        let (kind, len) = next_token(text, i);
        let end = i + len;
        let is_error = matches!(kind, TokKind::Error(_));
        toks.push(Token {
            kind,
            span: Span::new(i, end),
        });
        if is_error {
            return toks;
        }
        i = end;
    }
}

/// The rules of scanner.l that compete by match length, in scanner.l's order (earlier wins
/// a tie).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Rule {
    Keyword,
    Op1,
    Op2,
    Aid,
    Mac,
    Num,
    Hid,
    Hid6,
    BogusMac,
    Constant,
    Id,
    Escaped,
}

fn next_token(text: &str, i: usize) -> (TokKind, usize) {
    let b = text.as_bytes();
    let mut best: Option<(usize, Rule)> = None;
    let mut offer = |len: Option<usize>, rule: Rule| {
        if let Some(len) = len.filter(|&l| l > 0) {
            // Rules are offered in scanner.l order, so only a strictly longer match wins.
            if best.is_none_or(|(l, _)| len > l) {
                best = Some((len, rule));
            }
        }
    };
    // Every keyword and constant but `&&` and `||` is made of name characters and ends in
    // a letter or digit, so it can only win as the whole of the name rule's match.
    let id = id_len(b, i);
    let word = id.and_then(|l| text.get(i..i + l)).unwrap_or("");
    let keyword = match b.get(i..i + 2) {
        Some(b"&&" | b"||") => Some(2),
        _ => lookup(KEYWORDS, word).map(|_| word.len()),
    };
    offer(keyword, Rule::Keyword);
    offer(op1(b[i]).map(|_| 1), Rule::Op1);
    offer(op2(b, i).map(|_| 2), Rule::Op2);
    offer(aid_len(b, i), Rule::Aid);
    offer(mac_len(b, i), Rule::Mac);
    offer(num_len(b, i), Rule::Num);
    offer(hid_len(b, i), Rule::Hid);
    offer(v6_len(b, i), Rule::Hid6);
    offer(bogus_mac_len(b, i), Rule::BogusMac);
    offer(lookup(CONSTANTS, word).map(|_| word.len()), Rule::Constant);
    offer(id, Rule::Id);
    offer(escaped_len(b, i), Rule::Escaped);

    let Some((len, rule)) = best else {
        // flex's `.` rule: any other character is a lexical error. Cover the whole
        // character so the span stays on char boundaries.
        let len = text[i..].chars().next().map_or(1, char::len_utf8);
        return (TokKind::Error(syntax_error_at(&text[i..i + len])), len);
    };
    let s = &text[i..i + len];
    let kind = match rule {
        Rule::Keyword => {
            lookup(KEYWORDS, s).map_or(TokKind::Error("syntax error".into()), TokKind::Kw)
        }
        Rule::Op1 => op1(b[i]).unwrap_or(TokKind::Eof),
        Rule::Op2 => op2(b, i).unwrap_or(TokKind::Eof),
        Rule::Aid => TokKind::Aid(s.to_string()),
        Rule::Mac => TokKind::Eid(s.to_string()),
        Rule::Num => match stou(s) {
            Ok(n) => TokKind::Num(n),
            Err(e) => TokKind::Error(e.to_string()),
        },
        Rule::Hid => TokKind::Hid(s.to_string()),
        Rule::Hid6 => {
            if valid_ipv6(s) {
                TokKind::Hid6(s.to_string())
            } else {
                TokKind::Error(format!("invalid IPv6 address {s}"))
            }
        }
        Rule::BogusMac => {
            // libpcap reports only the matched prefix (`ab:cd:ef:` of `ab:cd:ef:0g:00:00`);
            // point at the whole would-be address instead.
            let mut end = i + len;
            while end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b':') {
                end += 1;
            }
            return (TokKind::Error("invalid Ethernet address".into()), end - i);
        }
        Rule::Constant => {
            lookup(CONSTANTS, s).map_or(TokKind::Error("syntax error".into()), TokKind::Num)
        }
        Rule::Id => TokKind::Id(s.to_string()),
        Rule::Escaped => TokKind::Id(s[1..].to_string()),
    };
    (kind, len)
}

fn syntax_error_at(s: &str) -> String {
    if s.chars().all(|c| c.is_ascii_graphic()) {
        format!("syntax error: unexpected character '{s}'")
    } else {
        format!("syntax error: unexpected character {:?}", s)
    }
}

fn lookup<T: Copy>(table: &[(&str, T)], s: &str) -> Option<T> {
    table.iter().find(|(k, _)| *k == s).map(|(_, v)| *v)
}

fn op1(c: u8) -> Option<TokKind> {
    Some(match c {
        b'+' => TokKind::Plus,
        b'-' => TokKind::Minus,
        b'*' => TokKind::Star,
        b'/' => TokKind::Slash,
        b'%' => TokKind::Percent,
        b':' => TokKind::Colon,
        b'[' => TokKind::LBracket,
        b']' => TokKind::RBracket,
        b'!' => TokKind::Kw(Kw::Not),
        b'<' => TokKind::Lt,
        b'>' => TokKind::Gt,
        b'(' => TokKind::LParen,
        b')' => TokKind::RParen,
        b'&' => TokKind::Amp,
        b'|' => TokKind::Pipe,
        b'^' => TokKind::Caret,
        b'=' => TokKind::Eq,
        _ => return None,
    })
}

fn op2(b: &[u8], i: usize) -> Option<TokKind> {
    Some(match b.get(i..i + 2)? {
        b">=" => TokKind::Ge,
        b"<=" => TokKind::Le,
        b"!=" => TokKind::Ne,
        b"==" => TokKind::Eq,
        b"<<" => TokKind::Shl,
        b">>" => TokKind::Shr,
        _ => return None,
    })
}

fn is_hex(b: &[u8], i: usize) -> bool {
    b.get(i).is_some_and(u8::is_ascii_hexdigit)
}

fn is_digit(b: &[u8], i: usize) -> bool {
    b.get(i).is_some_and(u8::is_ascii_digit)
}

/// Length of the run of hex digits at `i`, at most `max`.
fn hex_run(b: &[u8], i: usize, max: usize) -> usize {
    let mut n = 0;
    while n < max && is_hex(b, i + n) {
        n += 1;
    }
    n
}

/// `{N}`: `[0-9]+|(0X|0x)[0-9A-Fa-f]+`. Returns the end of the decimal reading and the
/// end of the hex reading (either may be absent). Every use of `{N}` in scanner.l is
/// followed by `.` or ends the pattern, so these two greedy ends are all that can matter.
fn n_ends(b: &[u8], i: usize) -> [Option<usize>; 2] {
    let mut dec = i;
    while is_digit(b, dec) {
        dec += 1;
    }
    let hex =
        if b.get(i) == Some(&b'0') && matches!(b.get(i + 1), Some(b'x' | b'X')) && is_hex(b, i + 2)
        {
            Some(i + 2 + hex_run(b, i + 2, usize::MAX))
        } else {
            None
        };
    [(dec > i).then_some(dec), hex]
}

fn num_len(b: &[u8], i: usize) -> Option<usize> {
    n_ends(b, i).into_iter().flatten().max().map(|e| e - i)
}

/// `({N}\.{N})|({N}\.{N}\.{N})|({N}\.{N}\.{N}\.{N})`.
fn hid_len(b: &[u8], i: usize) -> Option<usize> {
    let mut ends: Vec<usize> = n_ends(b, i).into_iter().flatten().collect();
    let mut best = None;
    for _part in 2..=4 {
        let mut next = Vec::new();
        for e in ends {
            if b.get(e) == Some(&b'.') {
                next.extend(n_ends(b, e + 1).into_iter().flatten());
            }
        }
        if let Some(m) = next.iter().max() {
            best = Some(m - i);
        }
        ends = next;
    }
    best
}

/// `${B}`: an ARCnet address.
fn aid_len(b: &[u8], i: usize) -> Option<usize> {
    if b[i] != b'$' {
        return None;
    }
    let n = hex_run(b, i + 1, 2);
    (n > 0).then_some(1 + n)
}

/// `{MAC}`: `B:B:B:B:B:B`, `B-B-B-B-B-B`, `B.B.B.B.B.B`, `B2.B2.B2`, `B2B2B2`, where `B` is
/// one or two hex digits and `B2` four.
fn mac_len(b: &[u8], i: usize) -> Option<usize> {
    let mut best = None;
    for sep in [b':', b'-', b'.'] {
        let mut p = i;
        let mut ok = true;
        for g in 0..6 {
            let n = hex_run(b, p, 2);
            if n == 0 {
                ok = false;
                break;
            }
            p += n;
            if g < 5 {
                if b.get(p) != Some(&sep) {
                    ok = false;
                    break;
                }
                p += 1;
            }
        }
        if ok {
            best = best.max(Some(p - i));
        }
    }
    // B2.B2.B2
    if hex_run(b, i, 4) == 4
        && b.get(i + 4) == Some(&b'.')
        && hex_run(b, i + 5, 4) == 4
        && b.get(i + 9) == Some(&b'.')
        && hex_run(b, i + 10, 4) == 4
    {
        best = best.max(Some(14));
    }
    // B2B2B2
    if hex_run(b, i, 12) == 12 {
        best = best.max(Some(12));
    }
    best
}

/// `{B}:+({B}:+)+`: something that starts like a colon-separated MAC address but is not one
/// (and not an IPv6 address either, which the longest-match rule settles).
fn bogus_mac_len(b: &[u8], i: usize) -> Option<usize> {
    let mut p = i;
    let mut groups = 0;
    let mut last_end = None;
    loop {
        let n = hex_run(b, p, 2);
        if n == 0 || b.get(p + n) != Some(&b':') {
            break;
        }
        p += n;
        while b.get(p) == Some(&b':') {
            p += 1;
        }
        groups += 1;
        if groups >= 2 {
            last_end = Some(p);
        }
    }
    last_end.map(|e| e - i)
}

/// A piece of one of scanner.l's IPv6 patterns.
#[derive(Clone, Copy)]
enum V6Piece {
    /// `{W}`: one to four hex digits.
    Group,
    Colon,
    /// `{N}\.{N}\.{N}\.{N}`.
    V4,
}

/// scanner.l's `{V6}`: eight groups; seven or fewer groups with one `::` anywhere among
/// them; six groups and a dotted quad; five or fewer groups with one `::` and a dotted quad.
fn v6_patterns() -> Vec<Vec<V6Piece>> {
    use V6Piece::*;
    let groups = |n: usize| -> Vec<V6Piece> {
        let mut v = Vec::new();
        for k in 0..n {
            if k > 0 {
                v.push(Colon);
            }
            v.push(Group);
        }
        v
    };
    let mut pats = Vec::new();
    pats.push(groups(8));
    for total in 0..=7 {
        for left in 0..=total {
            let mut p = groups(left);
            p.extend([Colon, Colon]);
            p.extend(groups(total - left));
            pats.push(p);
        }
    }
    let mut p = groups(6);
    p.extend([Colon, V4]);
    pats.push(p);
    for total in 0..=5 {
        for left in 0..=total {
            let mut p = groups(left);
            p.extend([Colon, Colon]);
            p.extend(groups(total - left));
            if total > left {
                p.push(Colon);
            }
            p.push(V4);
            pats.push(p);
        }
    }
    pats
}

fn v6_len(b: &[u8], i: usize) -> Option<usize> {
    static PATTERNS: OnceLock<Vec<Vec<V6Piece>>> = OnceLock::new();
    // Cheap filter: every pattern starts with `:` or with a group followed by `:`.
    if b.get(i + hex_run(b, i, 4)) != Some(&b':') {
        return None;
    }
    let mut best = None;
    for pat in PATTERNS.get_or_init(v6_patterns) {
        let mut ends = vec![i];
        for piece in pat {
            let mut next = Vec::new();
            for &e in &ends {
                match piece {
                    V6Piece::Group => {
                        let n = hex_run(b, e, 4);
                        if n > 0 {
                            next.push(e + n);
                        }
                    }
                    V6Piece::Colon => {
                        if b.get(e) == Some(&b':') {
                            next.push(e + 1);
                        }
                    }
                    V6Piece::V4 => {
                        let mut parts: Vec<usize> = n_ends(b, e).into_iter().flatten().collect();
                        for _ in 1..4 {
                            let mut more = Vec::new();
                            for p in parts {
                                if b.get(p) == Some(&b'.') {
                                    more.extend(n_ends(b, p + 1).into_iter().flatten());
                                }
                            }
                            parts = more;
                        }
                        next.extend(parts);
                    }
                }
            }
            ends = next;
            if ends.is_empty() {
                break;
            }
        }
        if let Some(m) = ends.into_iter().max() {
            best = best.max(Some(m - i));
        }
    }
    best
}

/// `[A-Za-z0-9]([-_.A-Za-z0-9]*[.A-Za-z0-9])?`.
fn id_len(b: &[u8], i: usize) -> Option<usize> {
    if !b[i].is_ascii_alphanumeric() {
        return None;
    }
    let mut j = i + 1;
    while j < b.len() && (b[j].is_ascii_alphanumeric() || matches!(b[j], b'-' | b'_' | b'.')) {
        j += 1;
    }
    while j > i + 1 && matches!(b[j - 1], b'-' | b'_') {
        j -= 1;
    }
    Some(j - i)
}

/// `"\\"[^ !()\n\t]+`: a backslash-escaped name (typically a keyword used as a name).
fn escaped_len(b: &[u8], i: usize) -> Option<usize> {
    if b[i] != b'\\' {
        return None;
    }
    let mut j = i + 1;
    while j < b.len() && !matches!(b[j], b' ' | b'!' | b'(' | b')' | b'\n' | b'\t') {
        j += 1;
    }
    (j > i + 1).then_some(j - i)
}

/// The base a numeral is written in, for [`NumberError`]'s message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Radix {
    Octal,
    Decimal,
    Hex,
}

/// Why a numeral is not a 32-bit number; `Display` gives libpcap's wording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum NumberError {
    /// A digit the numeral's base does not have.
    BadDigit(Radix, String),
    /// The value does not fit 32 bits.
    Overflow(Radix, String),
}

impl std::fmt::Display for NumberError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = |r: &Radix, long: bool| match (r, long) {
            (Radix::Octal, _) => "octal",
            (Radix::Decimal, _) => "decimal",
            (Radix::Hex, true) => "hexadecimal",
            (Radix::Hex, false) => "hex",
        };
        match self {
            NumberError::BadDigit(r, s) => {
                write!(f, "number {s} contains non-{} digit", name(r, false))
            }
            NumberError::Overflow(r, s) => {
                write!(f, "{} number {s} overflows 32 bits", name(r, true))
            }
        }
    }
}

/// libpcap's `stou`: decimal, octal (leading `0`) or hex (`0x`), at most 32 bits. The
/// digits are checked left to right, so `003777777777778` overflows before its `8` is seen.
pub(crate) fn stou(s: &str) -> Result<u32, NumberError> {
    let b = s.as_bytes();
    let mut n: u32 = 0;
    let bad = |r| NumberError::BadDigit(r, s.to_string());
    let over = |r| NumberError::Overflow(r, s.to_string());
    if b.len() > 2 && b[0] == b'0' && matches!(b[1], b'x' | b'X') {
        for &c in &b[2..] {
            let d = (c as char).to_digit(16).ok_or_else(|| bad(Radix::Hex))?;
            if n > 0x0FFF_FFFF {
                return Err(over(Radix::Hex));
            }
            n = (n << 4) | d;
        }
    } else if b.first() == Some(&b'0') {
        for &c in &b[1..] {
            let d = match c {
                b'0'..=b'7' => u32::from(c - b'0'),
                _ => return Err(bad(Radix::Octal)),
            };
            if n > 0o3777777777 {
                return Err(over(Radix::Octal));
            }
            n = (n << 3) | d;
        }
    } else {
        for &c in b {
            let d = (c as char)
                .to_digit(10)
                .ok_or_else(|| bad(Radix::Decimal))?;
            n = n
                .checked_mul(10)
                .and_then(|m| m.checked_add(d))
                .ok_or_else(|| over(Radix::Decimal))?;
        }
    }
    Ok(n)
}

/// Whether an address that matched scanner.l's `{V6}` is one `inet_pton` accepts. The
/// pattern already fixes the shape (group count, one `::`, up to four hex digits a group),
/// so what is left is the embedded IPv4 part: four decimal octets of at most 255, without
/// leading zeros, as glibc's `inet_pton` wants.
fn valid_ipv6(s: &str) -> bool {
    if !s.contains('.') {
        return true;
    }
    let v4 = s.rsplit(':').next().unwrap_or("");
    let parts: Vec<&str> = v4.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|c| c.is_ascii_digit())
                && !(p.len() > 1 && p.starts_with('0'))
                && p.parse::<u16>().is_ok_and(|v| v <= 255)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<TokKind> {
        lex(s).into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn longest_match_choices() {
        use TokKind::*;
        assert_eq!(kinds("1.2.3.4"), vec![Hid("1.2.3.4".into()), Eof]);
        assert_eq!(kinds("1.2.3.4.5"), vec![Id("1.2.3.4.5".into()), Eof]);
        assert_eq!(kinds("192.168."), vec![Id("192.168.".into()), Eof]);
        assert_eq!(kinds("001122334455"), vec![Eid("001122334455".into()), Eof]);
        assert_eq!(kinds("0x1G"), vec![Id("0x1G".into()), Eof]);
        assert_eq!(kinds("0x1F"), vec![Num(31), Eof]);
        assert_eq!(kinds("1-1023"), vec![Id("1-1023".into()), Eof]);
        assert_eq!(kinds("23-"), vec![Num(23), Minus, Eof]);
        assert_eq!(kinds("tcp-syn"), vec![Num(2), Eof]);
        assert_eq!(kinds("tcp-synx"), vec![Id("tcp-synx".into()), Eof]);
        assert_eq!(kinds("es-is"), vec![Kw(super::Kw::Esis), Eof]);
        assert_eq!(kinds("\\tcp"), vec![Id("tcp".into()), Eof]);
        assert_eq!(kinds("$c0"), vec![Aid("$c0".into()), Eof]);
        assert_eq!(
            kinds("fe80::1/64"),
            vec![Hid6("fe80::1".into()), Slash, Num(64), Eof]
        );
        assert_eq!(kinds("::"), vec![Hid6("::".into()), Eof]);
        assert_eq!(
            kinds("ab:cd:ef:01:02:03:04:05"),
            vec![Hid6("ab:cd:ef:01:02:03:04:05".into()), Eof]
        );
        assert_eq!(
            kinds("ab:cd:ef:01:02:03"),
            vec![Eid("ab:cd:ef:01:02:03".into()), Eof]
        );
        assert_eq!(
            kinds("a&&b||!c"),
            vec![
                Id("a".into()),
                Kw(super::Kw::And),
                Id("b".into()),
                Kw(super::Kw::Or),
                Kw(super::Kw::Not),
                Id("c".into()),
                Eof
            ]
        );
        assert_eq!(
            kinds("== = != <= >= << >>"),
            vec![Eq, Eq, Ne, Le, Ge, Shl, Shr, Eof]
        );
    }

    #[test]
    fn number_errors() {
        assert_eq!(
            stou("08").map_err(|e| e.to_string()),
            Err("number 08 contains non-octal digit".into())
        );
        assert_eq!(
            stou("0040000000000").map_err(|e| e.to_string()),
            Err("octal number 0040000000000 overflows 32 bits".into())
        );
        assert_eq!(
            stou("003777777777778").map_err(|e| e.to_string()),
            Err("octal number 003777777777778 overflows 32 bits".into())
        );
        assert_eq!(
            stou("00377777777778").map_err(|e| e.to_string()),
            Err("number 00377777777778 contains non-octal digit".into())
        );
        assert_eq!(
            stou("4294967296").map_err(|e| e.to_string()),
            Err("decimal number 4294967296 overflows 32 bits".into())
        );
        assert_eq!(stou("4294967295").map_err(|e| e.to_string()), Ok(u32::MAX));
        assert_eq!(
            stou("0x100000000").map_err(|e| e.to_string()),
            Err("hexadecimal number 0x100000000 overflows 32 bits".into())
        );
        assert_eq!(
            stou("0X00000000FFFFFFFF").map_err(|e| e.to_string()),
            Ok(u32::MAX)
        );
        assert_eq!(
            stou("037777777777").map_err(|e| e.to_string()),
            Ok(u32::MAX)
        );
        assert_eq!(stou("0").map_err(|e| e.to_string()), Ok(0));
    }

    #[test]
    fn ipv6_validation() {
        assert!(valid_ipv6("fe80::7788:99ff:254.170.187.204"));
        assert!(!valid_ipv6("fe80::256.20.30.40"));
        assert!(!valid_ipv6("::01.2.3.4"));
        assert!(!valid_ipv6("::0x1.2.3.4"));
        assert!(valid_ipv6("::0.0.0.1"));
    }

    #[test]
    fn spans_are_char_boundaries() {
        let t = lex("host é");
        let last = t.last().map(|t| t.span).unwrap_or_default();
        assert_eq!(last, Span::new(5, 7));
    }
}
