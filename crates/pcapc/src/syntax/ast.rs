//! The syntax tree of a pcap filter expression, as libpcap's grammar (grammar.y) shapes it.
//!
//! The parser resolves everything that is purely syntactic: qualifier inheritance
//! (`host a or b` gives `b` the qualifiers of `a`), keyword escapes (`\tcp`), number
//! bases and their range checks, and the symbolic constants (`icmp-echo`, `tcp-syn`,
//! `icmptype`, ...). It resolves no names (hosts, services, protocols): that is the
//! lowering's job, because libpcap decides what a name means from its qualifiers.
//!
//! Every node carries a [`Span`] of byte offsets into the filter text so that errors
//! found later can point at the column.

/// A half-open byte range `[start, end)` into the filter text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }
    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// A boolean filter expression. `And`/`Or` keep source order: left is evaluated first,
/// which matters because `vlan`, `mpls`, `pppoes` and `geneve` shift the offsets of
/// every primitive that follows them in the text.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>, Span),
    Prim(Primitive),
}

impl Expr {
    pub fn span(&self) -> Span {
        match self {
            Expr::And(a, b) | Expr::Or(a, b) => a.span().to(b.span()),
            Expr::Not(e, s) => s.to(e.span()),
            Expr::Prim(p) => p.span,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Primitive {
    pub kind: PrimKind,
    pub span: Span,
}

/// Protocol qualifiers (`pname` in grammar.y). `ether`, `ppp`, `slip`, `fddi`, `tr` and
/// `wlan` all lex as `Link`, as in libpcap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Proto {
    Default,
    Link,
    Ip,
    Arp,
    Rarp,
    Sctp,
    Tcp,
    Udp,
    Icmp,
    Igmp,
    Igrp,
    Pim,
    Vrrp,
    Carp,
    Atalk,
    Aarp,
    Decnet,
    Lat,
    Sca,
    Moprc,
    Mopdl,
    Ip6,
    Icmp6,
    Ah,
    Esp,
    Iso,
    Esis,
    Isis,
    IsisL1,
    IsisL2,
    IsisIih,
    IsisLsp,
    IsisSnp,
    IsisPsnp,
    IsisCsnp,
    Clnp,
    Stp,
    Ipx,
    Netbeui,
    Radio,
}

/// Direction qualifiers (`dqual`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    Default,
    Src,
    Dst,
    /// `src or dst`
    Or,
    /// `src and dst`
    And,
    Addr1,
    Addr2,
    Addr3,
    Addr4,
    Ra,
    Ta,
}

/// Address-type qualifiers (`aqual`, plus `proto`, `protochain`, `gateway`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddrType {
    Default,
    Host,
    Net,
    Port,
    Portrange,
    Proto,
    Protochain,
    Gateway,
}

/// The three qualifiers of a primitive, after inheritance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Qual {
    pub proto: Proto,
    pub dir: Dir,
    pub addr: AddrType,
}

impl Qual {
    pub const DEFAULT: Qual = Qual {
        proto: Proto::Default,
        dir: Dir::Default,
        addr: AddrType::Default,
    };
}

/// The operand of a qualified primitive, as the scanner classified it.
#[derive(Clone, Debug, PartialEq)]
pub enum Id {
    /// `NUM`: a number already converted from decimal, octal (`0...`) or hex (`0x...`).
    Num(u32),
    /// `ID`: a name (host, service, protocol, ...), or a keyword escaped with `\`
    /// (the backslash removed).
    Name(String),
    /// `HID`: a dotted IPv4-style address of one to four parts (`10`, `192.168`, `1.2.3.4`)
    /// kept as text because its meaning depends on the qualifier (`net 192.168` vs `host`),
    /// or a DECnet address `50.764`.
    Dotted(String),
    /// `HID / NUM`: `192.168/16`.
    DottedPrefix(String, u32),
    /// `HID mask HID`: `192.168 mask 255.255`.
    DottedMask(String, String),
    /// `HID6`: an IPv6 address, text as written.
    Ip6(String),
    /// `HID6 / NUM`.
    Ip6Prefix(String, u32),
    /// `EID`: a MAC address as written (`ab:cd:..`, `ab-cd-..`, `abcd.ef00.0003`, `ab.CD.ef.0.0.1`).
    Mac(String),
}

/// `relop`/`irelop`: comparison of two arithmetic expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelOp {
    Gt,
    Ge,
    Eq,
    Le,
    Lt,
    Ne,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

/// An arithmetic expression (`arth`).
#[derive(Clone, Debug, PartialEq)]
pub enum Arith {
    Num(u32, Span),
    /// `len` / `length`: the packet's wire length.
    Len(Span),
    /// `proto[index]` or `proto[index:size]`; `size` is 1, 2 or 4 (checked by the parser:
    /// "data size must be 1, 2, or 4").
    Load {
        proto: Proto,
        index: Box<Arith>,
        size: u8,
        span: Span,
    },
    Neg(Box<Arith>, Span),
    Bin(BinOp, Box<Arith>, Box<Arith>),
}

impl Arith {
    pub fn span(&self) -> Span {
        match self {
            Arith::Num(_, s) | Arith::Len(s) | Arith::Neg(_, s) => *s,
            Arith::Load { span, .. } => *span,
            Arith::Bin(_, a, b) => a.span().to(b.span()),
        }
    }
}

/// `byte N op M` operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByteOp {
    And,
    Or,
    Lt,
    Gt,
    Eq,
}

/// `llc` forms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Llc {
    Any,
    I,
    S,
    U,
    /// An S-format subtype name: `rr`, `rnr`, `rej`.
    SSubtype(String),
    /// A U-format subtype name: `ui`, `ua`, `disc`, `dm`, `sabme`, `test`, `xid`, `frmr`.
    USubtype(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum PrimKind {
    /// `head id` and an `id` that inherited qualifiers: `host 1.2.3.4`, `tcp port 80`,
    /// `ip proto \tcp`, `ether src ab:cd:..`, a bare `10.0.0.1` (all defaults).
    Qualified {
        qual: Qual,
        id: Id,
        id_span: Span,
    },
    /// A protocol name on its own: `tcp`, `ip6`, `arp`, `l1`, ...
    ProtoAbbrev(Proto),
    /// `arth relop arth`.
    Relation {
        op: RelOp,
        lhs: Arith,
        rhs: Arith,
    },
    /// `[pqual] broadcast`.
    Broadcast(Proto),
    /// `[pqual] multicast`.
    Multicast(Proto),
    Less(u32),
    Greater(u32),
    /// `byte N op M`; the parser checks M <= 255.
    Byte {
        index: u32,
        op: ByteOp,
        value: u32,
    },
    Inbound,
    Outbound,
    Ifindex(u32),
    Vlan(Option<u32>),
    Mpls(Option<u32>),
    Pppoed,
    Pppoes(Option<u32>),
    Geneve(Option<u32>),
    Llc(Llc),
    /// Anything libpcap's grammar accepts that no supported link type can use
    /// (ATM, MTP2/3, pf, 802.11 type/subtype/dir); the text is kept for the error.
    Unsupported(String),
}
