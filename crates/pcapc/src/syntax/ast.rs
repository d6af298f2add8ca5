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
    /// Offset of the first byte.
    pub start: usize,
    /// Offset just past the last byte.
    pub end: usize,
}

impl Span {
    /// The span `[start, end)`.
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
    /// `a and b`, also written `a && b`.
    And(Box<Expr>, Box<Expr>),
    /// `a or b`, also written `a || b`.
    Or(Box<Expr>, Box<Expr>),
    /// `not a`, also written `!a`; the span is that of the `not` or `!`.
    Not(Box<Expr>, Span),
    /// A primitive: `host a`, `tcp`, `len > 100`, ...
    Prim(Primitive),
}

impl Expr {
    /// The text the expression covers, for errors to point at.
    pub fn span(&self) -> Span {
        match self {
            Expr::And(a, b) | Expr::Or(a, b) => a.span().to(b.span()),
            Expr::Not(e, s) => s.to(e.span()),
            Expr::Prim(p) => p.span,
        }
    }
}

/// A primitive, pcap-filter(7)'s unit of an expression (`host a`, `tcp`, `len > 100`),
/// and its text.
#[derive(Clone, Debug, PartialEq)]
pub struct Primitive {
    /// Which primitive, with its operands.
    pub kind: PrimKind,
    /// Its text, qualifiers included. An id that inherited its qualifiers
    /// (`b` in `host a or b`) covers only itself.
    pub span: Span,
}

/// Protocol qualifiers (`pname` in grammar.y). `ether`, `ppp`, `slip`, `fddi`, `tr` and
/// `wlan` all lex as `Link`, as in libpcap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Proto {
    /// None written: `host a`, `port 80`, a bare `broadcast`.
    Default,
    /// `link`, `ether`, `ppp`, `slip`, `fddi`, `tr` or `wlan`: the link layer.
    Link,
    /// `ip`: IPv4.
    Ip,
    /// `arp`.
    Arp,
    /// `rarp`.
    Rarp,
    /// `sctp`.
    Sctp,
    /// `tcp`.
    Tcp,
    /// `udp`.
    Udp,
    /// `icmp`: ICMP for IPv4.
    Icmp,
    /// `igmp`.
    Igmp,
    /// `igrp`: Cisco's IGRP.
    Igrp,
    /// `pim`.
    Pim,
    /// `vrrp`.
    Vrrp,
    /// `carp`: OpenBSD's CARP.
    Carp,
    /// `atalk`: AppleTalk.
    Atalk,
    /// `aarp`: AppleTalk ARP.
    Aarp,
    /// `decnet`.
    Decnet,
    /// `lat`: DEC LAT.
    Lat,
    /// `sca`: DEC SCA.
    Sca,
    /// `moprc`: DEC MOP remote console.
    Moprc,
    /// `mopdl`: DEC MOP dump/load.
    Mopdl,
    /// `ip6`: IPv6.
    Ip6,
    /// `icmp6`: ICMP for IPv6.
    Icmp6,
    /// `ah`: IPsec authentication header.
    Ah,
    /// `esp`: IPsec encapsulating security payload.
    Esp,
    /// `iso`: the OSI protocols.
    Iso,
    /// `esis` or `es-is`.
    Esis,
    /// `isis` or `is-is`.
    Isis,
    /// `l1`: IS-IS level 1.
    IsisL1,
    /// `l2`: IS-IS level 2.
    IsisL2,
    /// `iih`: IS-IS hello.
    IsisIih,
    /// `lsp`: IS-IS link state PDU.
    IsisLsp,
    /// `snp`: IS-IS sequence number PDU, complete or partial.
    IsisSnp,
    /// `psnp`: IS-IS partial sequence number PDU.
    IsisPsnp,
    /// `csnp`: IS-IS complete sequence number PDU.
    IsisCsnp,
    /// `clnp`.
    Clnp,
    /// `stp`: spanning tree.
    Stp,
    /// `ipx`.
    Ipx,
    /// `netbeui`.
    Netbeui,
    /// `radio`: the radio header (radiotap, AVS, Prism) before an 802.11 frame,
    /// as in `radio[0]`.
    Radio,
}

/// Direction qualifiers (`dqual`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// None written; where direction matters, libpcap takes either, as
    /// `src or dst` does.
    Default,
    /// `src`: the source.
    Src,
    /// `dst`: the destination.
    Dst,
    /// `src or dst` (or `dst or src`): either.
    Or,
    /// `src and dst` (or `dst and src`): both.
    And,
    /// `addr1`: the first address of an 802.11 header.
    Addr1,
    /// `addr2`: the second address of an 802.11 header.
    Addr2,
    /// `addr3`: the third address of an 802.11 header.
    Addr3,
    /// `addr4`: the fourth address of an 802.11 header.
    Addr4,
    /// `ra`: the 802.11 receiver address.
    Ra,
    /// `ta`: the 802.11 transmitter address.
    Ta,
}

/// Address-type qualifiers (`aqual`, plus `proto`, `protochain`, `gateway`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddrType {
    /// None written (`src a`, `ether dst ab:cd:..`): taken as `host`, as libpcap does.
    Default,
    /// `host`: a host, by name or address.
    Host,
    /// `net`: a network (`net 10`, `net 10.0.0.0/8`, `net 10.0 mask 255.255`).
    Net,
    /// `port`: a TCP, UDP or SCTP port, by number or service name.
    Port,
    /// `portrange`: a range of ports, `1-1023` (which lexes as a name).
    Portrange,
    /// `proto`: a protocol carried by the qualifying one (`ip proto 6`,
    /// `ether proto \ip`).
    Proto,
    /// `protochain`: a protocol found anywhere in the IPv4/IPv6 header chain.
    Protochain,
    /// `gateway`: the packet used the host as a gateway (its link address,
    /// but neither IP address, is the host's).
    Gateway,
}

/// The three qualifiers of a primitive, after inheritance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Qual {
    /// `pqual`: `tcp` in `tcp dst port 80`.
    pub proto: Proto,
    /// `dqual`: `dst` in `tcp dst port 80`.
    pub dir: Dir,
    /// `aqual`: `port` in `tcp dst port 80`.
    pub addr: AddrType,
}

impl Qual {
    /// All three unwritten. No parsed primitive carries it: a `head` names a
    /// direction or an address type, and a bare id inherits a `head`'s qualifiers.
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
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `=` or `==`.
    Eq,
    /// `<=`.
    Le,
    /// `<`.
    Lt,
    /// `!=`.
    Ne,
}

/// Binary arithmetic operators, on unsigned 32-bit values as in BPF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Mod,
    /// `&`.
    And,
    /// `|`.
    Or,
    /// `^`.
    Xor,
    /// `<<`.
    Shl,
    /// `>>`.
    Shr,
}

/// An arithmetic expression (`arth`).
#[derive(Clone, Debug, PartialEq)]
pub enum Arith {
    /// A number, converted as [`Id::Num`] is.
    Num(u32, Span),
    /// `len` / `length`: the packet's wire length.
    Len(Span),
    /// `proto[index]` or `proto[index:size]`; `size` is 1, 2 or 4 (checked by the parser:
    /// "data size must be 1, 2, or 4").
    Load {
        /// The protocol whose header `index` counts from (`tcp` in `tcp[13]`).
        proto: Proto,
        /// Byte offset into that header.
        index: Box<Arith>,
        /// Bytes loaded, in network order: 1 unless `:2` or `:4` is written.
        size: u8,
        /// From the protocol name to the `]`.
        span: Span,
    },
    /// `-a`; the span runs from the `-` to the end of `a`.
    Neg(Box<Arith>, Span),
    /// `a op b`.
    Bin(BinOp, Box<Arith>, Box<Arith>),
}

impl Arith {
    /// The text the expression covers, for errors to point at.
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
    /// `&`: the byte ANDed with `M` is not zero (but see [`PrimKind::Byte`]).
    And,
    /// `|`: the byte ORed with `M` is not zero (but see [`PrimKind::Byte`]).
    Or,
    /// `<`.
    Lt,
    /// `>`.
    Gt,
    /// `=` or `==`.
    Eq,
}

/// `llc` forms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Llc {
    /// `llc` alone: any 802.2 LLC frame.
    Any,
    /// `llc i`: an information (I-format) frame.
    I,
    /// `llc s`: a supervisory (S-format) frame.
    S,
    /// `llc u`: an unnumbered (U-format) frame.
    U,
    /// An S-format subtype name: `rr`, `rnr`, `rej`.
    SSubtype(String),
    /// A U-format subtype name: `ui`, `ua`, `disc`, `dm`, `sabme`, `test`, `xid`, `frmr`.
    USubtype(String),
}

/// What a primitive is, by the form of its text.
#[derive(Clone, Debug, PartialEq)]
pub enum PrimKind {
    /// `head id` and an `id` that inherited qualifiers: `host 1.2.3.4`, `tcp port 80`,
    /// `ip proto \tcp`, `ether src ab:cd:..`, and `b` in `host a or b`. An id with nothing
    /// to inherit (a bare `10.0.0.1` first) is a syntax error, as in libpcap.
    Qualified {
        /// The qualifiers, written or inherited.
        qual: Qual,
        /// The operand.
        id: Id,
        /// The operand's text alone.
        id_span: Span,
    },
    /// A protocol name on its own: `tcp`, `ip6`, `arp`, `l1`, ...
    ProtoAbbrev(Proto),
    /// `arth relop arth`: `len > 100`, `tcp[13] & 2 != 0`.
    Relation {
        /// The comparison.
        op: RelOp,
        /// Left of the comparison.
        lhs: Arith,
        /// Right of the comparison.
        rhs: Arith,
    },
    /// `[pqual] broadcast`.
    Broadcast(Proto),
    /// `[pqual] multicast`.
    Multicast(Proto),
    /// `less N`: the packet is at most `N` bytes long.
    Less(u32),
    /// `greater N`: the packet is at least `N` bytes long.
    Greater(u32),
    /// `byte N op M`. As in libpcap 1.10, `M` may exceed 255, and `&` and `|` load no
    /// byte: they test the value libpcap's program last loaded (see the lowering).
    Byte {
        /// `N`, counted from the start of the link-layer header.
        index: u32,
        /// How the byte is tested.
        op: ByteOp,
        /// `M`.
        value: u32,
    },
    /// `inbound`: a packet the capturing host received.
    Inbound,
    /// `outbound`: a packet the capturing host sent.
    Outbound,
    /// `ifindex N`: captured on the interface with index `N`.
    Ifindex(u32),
    /// `vlan [ID]`: an 802.1Q tag, with that VLAN ID if given.
    Vlan(Option<u32>),
    /// `mpls [LABEL]`: an MPLS label stack entry, with that label if given.
    Mpls(Option<u32>),
    /// `pppoed`: a PPPoE discovery packet.
    Pppoed,
    /// `pppoes [ID]`: a PPPoE session packet, of that session if given.
    Pppoes(Option<u32>),
    /// `geneve [VNI]`: a Geneve packet (UDP port 6081), with that VNI if given.
    Geneve(Option<u32>),
    /// `llc [TYPE]`: an 802.2 LLC frame, of that type if given.
    Llc(Llc),
    /// A pflog header field (`on`/`ifname`, `ruleset`, `rnr`, `srnr`, `reason`,
    /// `action`), names already turned into numbers.
    Pf(Pf),
    /// An ATM or SS7 primitive (`atmtype`, `atmmultitype`, `atmfield atmvalue`,
    /// `mtp2type`, `mtp3field mtp3value`), with its field's tests, or-ed: a number
    /// is `= N`, a parenthesised list `(N or M ...)` one `=` each.
    Telco(Telco, Vec<(RelOp, u32)>),
    /// `type T [subtype S]`, `subtype S`: the 802.11 frame control's first byte
    /// under `mask` (names already turned into numbers).
    P80211Type {
        /// The type and subtype bits wanted.
        value: u32,
        /// The bits compared: the type's, and the subtype's if given.
        mask: u32,
    },
    /// `dir D`: the 802.11 frame control's direction bits.
    P80211Dir(u32),
    /// Anything libpcap's grammar accepts that no supported link type can use
    /// (`vxlan`, which is newer than libpcap 1.10); the text is kept for the error.
    Unsupported(String),
}

/// The ATM (SunATM) and SS7 (MTP2, MTP3) primitives, by keyword.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Telco {
    Lane,
    Metac,
    Bcc,
    Oamf4ec,
    Oamf4sc,
    Sc,
    Ilmic,
    Oam,
    Oamf4,
    Connectmsg,
    Metaconnect,
    Vpi,
    Vci,
    Fisu,
    Lssu,
    Msu,
    Hfisu,
    Hlssu,
    Hmsu,
    Sio,
    Opc,
    Dpc,
    Sls,
    Hsio,
    Hopc,
    Hdpc,
    Hsls,
}

impl Telco {
    /// Whether a value follows the keyword (a field, not an abbreviation).
    pub fn has_value(self) -> bool {
        use Telco::*;
        matches!(
            self,
            Vpi | Vci | Sio | Opc | Dpc | Sls | Hsio | Hopc | Hdpc | Hsls
        )
    }

    /// The keyword, for errors.
    pub fn name(self) -> &'static str {
        use Telco::*;
        match self {
            Lane => "lane",
            Metac => "metac",
            Bcc => "bcc",
            Oamf4ec => "oamf4ec",
            Oamf4sc => "oamf4sc",
            Sc => "sc",
            Ilmic => "ilmic",
            Oam => "oam",
            Oamf4 => "oamf4",
            Connectmsg => "connectmsg",
            Metaconnect => "metaconnect",
            Vpi => "vpi",
            Vci => "vci",
            Fisu => "fisu",
            Lssu => "lssu",
            Msu => "msu",
            Hfisu => "hfisu",
            Hlssu => "hlssu",
            Hmsu => "hmsu",
            Sio => "sio",
            Opc => "opc",
            Dpc => "dpc",
            Sls => "sls",
            Hsio => "hsio",
            Hopc => "hopc",
            Hdpc => "hdpc",
            Hsls => "hsls",
        }
    }
}

/// A pflog primitive (libpcap's `pfvar`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pf {
    /// `on NAME`, `ifname NAME`: the interface the rule matched on.
    Ifname(String),
    /// `ruleset NAME`, `rset NAME`: the anchor (ruleset) name.
    Ruleset(String),
    /// `rnr N`, `rulenum N`: the rule number.
    Rnr(u32),
    /// `srnr N`, `subrulenum N`: the subrule number.
    Srnr(u32),
    /// `reason R`: why pf logged the packet (a number or a name such as `match`).
    Reason(u32),
    /// `action A`: what the rule did (`pass`, `block`, `nat`, ...).
    Action(u32),
}
