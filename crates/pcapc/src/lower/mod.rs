//! Syntax tree → predicate tree, with libpcap's semantics.
//!
//! This step plays the part of libpcap's `gencode.c`: for each primitive it emits the
//! same loads and comparisons, in the same order, joined by the same and/or/not. The
//! order matters beyond the result: a load past the captured bytes rejects the packet
//! (as in BPF), so which loads run before a decision must match libpcap's.
//!
//! `Lowerer` holds the state libpcap keeps in `compiler_state_t` that changes as the
//! primitives are read left to right: the link-layer offsets that `vlan`, `mpls`,
//! `pppoes` and `geneve` shift, and the current link type.
//!
//! Submodules: `link` (link types, VLAN/MPLS/PPPoE/Geneve, LLC), `host` (addresses),
//! `port` (ports and port ranges), `proto` (protocol tests and protochain), `arith`
//! (`expr relop expr`), `names` (services, protocols, ethers, hosts, built-in tables).

mod arith;
mod host;
pub(crate) mod ir;
mod link;
mod names;
mod port;
mod proto;

use crate::syntax::ast::{self, AddrType, Expr, Id, PrimKind, Qual, Span};
use crate::Error;
use ir::{AnchorId, AnchorSpec, Cmp, Loc, Pred, Test, Tree};
use netsift_isa::{AnchorRule, Size};
use netsift_wire::LinkType;

/// libpcap's "abs offset": a constant plus an optional packet-dependent part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Off {
    pub var: AnchorId,
    pub k: u32,
}

impl Off {
    const fn at(k: u32) -> Off {
        Off { var: 0, k }
    }
}

/// Which offset a comparison is relative to (libpcap's `enum e_offrel`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rel {
    LinkHdr,
    Llc,
    PrevMplsHdr,
    LinkPl,
    LinkPlNoSnap,
    LinkType,
    TranIpv4,
    TranIpv6,
    /// The outermost VLAN tag that the kernel took out and the capture put back
    /// after the MAC addresses ([`Meta::tag_stripped`]); not libpcap's, whose
    /// kernel filter reads it from the socket.
    PutBackTag,
}

/// The link-layer framing in force, which `pppoes` changes to PPP. One variant per
/// way gencode treats a link type (NETANALYZER's are Ethernet after a pseudo-header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Link {
    En10mb,
    Raw,
    Ipv4,
    Ipv6,
    Null,
    Loop,
    Sll,
    Sll2,
    /// DLT_PPP itself (also after `pppoes`): the one PPP type `mpls` knows.
    Ppp,
    /// PPP_SERIAL and PPP_ETHER: PPP protocol numbers, no `mpls`.
    PppSerial,
    /// PPP_PPPD: PPP, with a direction byte for `inbound`/`outbound`.
    PppPppd,
    PppBsdos,
    CHdlc,
    Frelay,
    Slip,
    SlipBsdos,
    Enc,
    Pflog,
    Ipnet,
    /// A link type for which libpcap filters only lengths and raw `link[]` bytes.
    Opaque,
    Fddi,
    TokenRing,
    IpOverFc,
    /// ATM_RFC1483 and ATM_CLIP: the frame starts with LLC.
    AtmLlc,
    Sunatm,
    Arcnet,
    /// APPLE_IP_OVER_IEEE1394: an Ethertype at off_linktype (gen_linktype's default).
    Ieee1394,
    /// MTP2, MTP2_WITH_PHDR and ERF: no protocols, the MTP2/MTP3 fields.
    Mtp2,
    /// The JUNIPER_* types: any protocol is the capture header's magic number.
    Juniper,
    /// 802.11, bare or after a radiotap, PPI, AVS or Prism header.
    Wlan,
}

/// Options that change code generation the way libpcap's `pcap_t` does.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// The link type the packets start with.
    pub linktype: LinkType,
    /// `Some(swapped)` when compiling for a capture file being read (tcpdump `-r`):
    /// libpcap then matches the BSD loopback header in the file's byte order and
    /// accepts every OS's AF_INET6 value. `None` is `pcap_open_dead` (no file).
    pub savefile_swapped: Option<bool>,
    /// For a live capture whose link header has no direction or interface field
    /// (Ethernet, unlike `-i any`'s cooked header): what the socket says of the
    /// packets this program will see. `inbound`, `outbound` and `ifindex` are then
    /// constants of the program. `None`: gencode's test of the kernel's ancillary
    /// data, which offline filtering can never perform (libpcap's dead handle).
    pub meta: Option<Meta>,
}

impl Target {
    /// A target for packets that start with `linktype`, as `pcap_open_dead` gives:
    /// no capture file and no socket metadata.
    pub fn new(linktype: LinkType) -> Target {
        Target {
            linktype,
            savefile_swapped: None,
            meta: None,
        }
    }

    /// The same target, compiling for a capture file being read whose byte order is
    /// `swapped` relative to this host (tcpdump `-r`).
    pub fn savefile_swapped(self, swapped: bool) -> Target {
        Target {
            savefile_swapped: Some(swapped),
            ..self
        }
    }

    /// The same target, compiling for a live socket that says `meta` of every packet
    /// the program will see.
    pub fn meta(self, meta: Meta) -> Target {
        Target {
            meta: Some(meta),
            ..self
        }
    }
}

/// What a live packet socket knows of a packet beside its bytes, where libpcap's
/// kernel filter reads it from the kernel's ancillary data (`SKF_AD_PKTTYPE`,
/// `SKF_AD_IFINDEX`). A capture compiles its filter once for each value it meets
/// (sent and received packets) and picks the program packet by packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    /// The packet was sent by this host (`PACKET_OUTGOING`).
    pub outgoing: bool,
    /// The interface it was captured on.
    pub ifindex: u32,
    /// The kernel took the packet's outermost VLAN tag out of its data before the
    /// filter (`skb->vlan_present`, `TP_STATUS_VLAN_VALID`), as it does to every
    /// tagged frame it receives. libpcap's kernel filter then reads the frame
    /// without the tag, and `vlan` at the outermost header tests the tag the socket
    /// keeps beside it (`SKF_AD_VLAN_TAG_PRESENT`, `SKF_AD_VLAN_TAG`). The program
    /// compiled for such packets reads the frame as it is delivered, the tag put
    /// back at bytes 12 to 15, and so reads what libpcap reads past byte 12 four
    /// bytes further on, and the length 4 bytes shorter. Ethernet only.
    pub tag_stripped: bool,
}

/// Bytes of an 802.1Q tag.
const TAG: u32 = 4;

pub(crate) struct Lowerer<'t> {
    pub text: &'t str,
    pub target: Target,
    pub anchors: Vec<AnchorSpec>,
    pub link: Link,
    /// libpcap's description of the link type in force, for errors.
    pub desc: &'static str,
    pub off_linkhdr: Off,
    pub off_linktype: Option<Off>,
    pub off_linkpl: Off,
    pub off_nl: u32,
    pub off_nl_nosnap: u32,
    pub label_stack_depth: u32,
    pub vlan_stack_depth: u32,
    /// After `geneve`: the anchor at the outer UDP header (the Geneve header is 8
    /// bytes further); libpcap's `is_geneve`.
    pub geneve_udp: Option<AnchorId>,
    /// libpcap's `no_optimize`: `geneve` and `protochain` turn its optimizer off, so
    /// the program runs every test as generated (see [`ir::Tree::Unoptimized`]).
    pub no_optimize: bool,
    /// Lowering for a program libpcap does not optimize: no optimizer-like folds.
    pub unopt: bool,
    /// The errors libpcap's optimizer would raise (a division by a computed 0, say),
    /// one a relation, in order: they are decided once lowering is over, and only if
    /// the filter is optimized, as libpcap raises them after gencode, not at all with
    /// `geneve`/`protochain`, and only in a relation its first round leaves reachable
    /// (see [`OptError`]).
    pub opt_errors: Vec<OptError>,
    /// Relations with a side only the optimizer's second round knows is constant
    /// (see [`Computed`]).
    pub computed: Vec<Computed>,
    /// The first such error of the relation being lowered.
    pub rel_error: Option<(Error, bool)>,
    /// Scratch registers libpcap holds for the rest of the filter (three for each
    /// `geneve` so far); an arithmetic relation has the other ones of its 16.
    pub regs_held: u32,
    /// Span of the primitive being lowered, for errors.
    pub span: Span,
    /// Primitives lowered so far (a relation that is the first may set PFLOG's
    /// payload offset, see `pflog_clobber`).
    pub prims_done: u32,
    /// Whether a primitive has used PFLOG's variable payload offset yet (libpcap has
    /// then given it a register).
    pub pflog_payload_used: bool,
    /// The value a first relation left in the register PFLOG's payload offset will
    /// get, if nothing allocates one before (see `pflog_clobber`); kept once the
    /// payload is used at that value.
    pub pflog_pending: Option<u32>,
    /// Whether a first relation stores into that register, whatever its value:
    /// libpcap's optimiser then drops the prologue's store and its load as dead.
    pub pflog_clobbered: bool,
    /// After `lane` on SunATM: where the ATM pseudo-header was (libpcap's
    /// off_prevlinkhdr), for gen_prevlinkhdr_check.
    pub prev_linkhdr: Option<Off>,
    /// On 802.11: which variable offsets have a register yet.
    pub wlan_regs: link::WlanRegs,
    /// Where in the expression the lowering is: the chains of `and`s or `or`s and
    /// the `not`s above the primitive being lowered (see `link::Step`).
    pub path: Vec<link::Step>,
    /// Chains of `and`s or `or`s met so far, to tell them apart in `path`.
    pub chains: u32,
}

pub(crate) type LResult<T> = Result<T, Error>;

/// An error libpcap's optimizer raises in an arithmetic relation's block, when its
/// value numbering knows an operand (`opt_stmt`, `fold_op`). It does so only in its
/// second round (`do_stmts`), so only if the block is still reachable after the first
/// round's jump threading: `ip[8] >> (4 - 0x7e) != ip6[41]` on Ethernet loses the
/// relation's block (an IPv4 packet is not IPv6) and is refused as rejecting all
/// packets, and with `or udp` after it compiles.
#[derive(Clone, Debug)]
pub(crate) struct OptError {
    /// The relation's test as lowered (`None` if it folded to a constant, then the
    /// error is raised whatever the graph: no block of the tree stands for it).
    pub rel: Option<Pred>,
    pub error: Error,
    /// Raised a pass later (a division by a known 0 of a value it does not know:
    /// opt_stmt makes it `div #0`, and refuses that when it next looks at the
    /// block), so only if the block is still reachable once the second round's
    /// first pass has decided the comparisons of computed constants
    /// ([`ir::Pred::Known`]).
    pub late: bool,
}

/// A relation a side of which is a constant netsift folded (`len == (1 + 1)`, `ip[0] =
/// -1`) but libpcap's first round does not: with `do_stmts` off, opt_stmt folds no
/// arithmetic, so the jump compares with X holding a value it does not know (opt_peep
/// turns `jeq x` into `jeq #k` only for a number the text gives). fold_edge then
/// decides it only by an identical test, never by an equality with another constant:
/// `len == (1 + 1) and len == 3` compiles, `len == 2 and len == 3` is refused.
#[derive(Clone, Debug)]
pub(crate) struct Computed {
    pub rel: Pred,
    /// Whether the left side is one (the accumulator then holds a value no other
    /// test compares).
    pub lhs: bool,
}

/// What lowering tells the optimizer's models besides the tree.
#[derive(Clone, Debug, Default)]
pub(crate) struct OptInfo {
    pub errors: Vec<OptError>,
    pub computed: Vec<Computed>,
    /// An always-true test of the loads libpcap puts before the root block's own
    /// (insert_compute_vloffsets), which the optimiser keeps at the new root.
    pub prologue: Option<Pred>,
}

/// Lowers a parsed expression for `target`. `None` (the empty expression) accepts all.
/// Also returns the optimizer's errors, for `opt::optimizer_error`.
pub(crate) fn lower(
    expr: Option<&Expr>,
    text: &str,
    target: Target,
) -> Result<(Tree, Vec<AnchorSpec>, OptInfo), Error> {
    let mut lw = Lowerer::new(text, target)?;
    let tree = match expr {
        None => Tree::Const(true),
        // The empty expression never reaches libpcap's finish_parse.
        Some(e) => {
            let t = lw.expr(e)?;
            lw.finish(t)
        }
    };
    if !lw.no_optimize {
        let prologue = lw.pflog_prologue();
        let info = OptInfo {
            errors: lw.opt_errors,
            computed: lw.computed,
            prologue,
        };
        return Ok((tree, lw.anchors, info));
    }
    // libpcap will not optimize this filter: lower it again without the folds that
    // stand in for its optimizer, from the first primitive on.
    let mut lw = Lowerer::new(text, target)?;
    lw.unopt = true;
    let tree = match expr {
        None => Tree::Const(true),
        // The empty expression never reaches libpcap's finish_parse.
        Some(e) => {
            let t = lw.expr(e)?;
            lw.finish(t)
        }
    };
    Ok((
        Tree::Unoptimized(Box::new(ir::keep_constants(tree))),
        lw.anchors,
        OptInfo::default(),
    ))
}

/// A link type's framing and offsets, as libpcap's init_linktype sets them: the
/// link header, the link-type field and the link payload; `None` for a link type
/// the compiler does not know.
fn link_offsets(linktype: LinkType) -> Option<(Link, u32, Option<u32>, u32)> {
    Some(match linktype {
        LinkType::EN10MB => (Link::En10mb, 0, Some(12), 14),
        LinkType::RAW => (Link::Raw, 0, None, 0),
        LinkType::IPV4 => (Link::Ipv4, 0, None, 0),
        LinkType::IPV6 => (Link::Ipv6, 0, None, 0),
        LinkType::NULL => (Link::Null, 0, Some(0), 4),
        LinkType::LOOP => (Link::Loop, 0, Some(0), 4),
        LinkType::LINUX_SLL => (Link::Sll, 0, Some(14), 16),
        LinkType::LINUX_SLL2 => (Link::Sll2, 0, Some(0), 20),
        LinkType::PPP => (Link::Ppp, 0, Some(2), 4),
        LinkType::PPP_SERIAL => (Link::PppSerial, 0, Some(2), 4),
        LinkType::PPP_ETHER => (Link::PppSerial, 0, Some(6), 8),
        LinkType::PPP_PPPD => (Link::PppPppd, 0, Some(2), 4),
        LinkType::PPP_BSDOS => (Link::PppBsdos, 0, Some(5), 24),
        LinkType::C_HDLC => (Link::CHdlc, 0, Some(2), 4),
        LinkType::FRELAY => (Link::Frelay, 0, None, 0),
        LinkType::SLIP => (Link::Slip, 0, None, 16),
        LinkType::SLIP_BSDOS => (Link::SlipBsdos, 0, None, 24),
        LinkType::ENC => (Link::Enc, 0, Some(0), 12),
        LinkType::IPNET => (Link::Ipnet, 0, Some(1), 24),
        LinkType::PFLOG => (Link::Pflog, 0, Some(0), 0),
        LinkType::NETANALYZER => (Link::En10mb, 4, Some(16), 18),
        LinkType::NETANALYZER_TRANSPARENT => (Link::En10mb, 12, Some(24), 26),
        LinkType::FDDI => (Link::Fddi, 0, Some(13), 13),
        LinkType::IEEE802 => (Link::TokenRing, 0, Some(14), 14),
        LinkType::IP_OVER_FC => (Link::IpOverFc, 0, Some(16), 16),
        LinkType::ATM_RFC1483 => (Link::AtmLlc, 0, Some(0), 0),
        LinkType::ATM_CLIP => (Link::AtmLlc, 0, Some(0), 0),
        LinkType::SUNATM => (Link::Sunatm, 0, Some(4), 4),
        LinkType::ARCNET => (Link::Arcnet, 0, Some(2), 6),
        LinkType::ARCNET_LINUX => (Link::Arcnet, 0, Some(4), 8),
        LinkType::APPLE_IP_OVER_IEEE1394 => (Link::Ieee1394, 0, Some(16), 18),
        LinkType::MTP2 => (Link::Mtp2, 0, None, 0),
        LinkType::MTP2_WITH_PHDR => (Link::Mtp2, 0, None, 0),
        LinkType::ERF => (Link::Mtp2, 0, None, 0),
        LinkType::IEEE802_11 => (Link::Wlan, 0, Some(24), 0),
        LinkType::IEEE802_11_RADIO => (Link::Wlan, 0, Some(24), 0),
        LinkType::IEEE802_11_RADIO_AVS => (Link::Wlan, 0, Some(24), 0),
        LinkType::PRISM_HEADER => (Link::Wlan, 0, Some(24), 0),
        LinkType::PPI => (Link::Wlan, 0, Some(24), 0),
        other if link::juniper_init(other).is_some() => link::juniper_init(other)?,
        other if link::opaque_label(other).is_some() => (Link::Opaque, 0, None, 0),
        _ => return None,
    })
}

/// Where the fields of `linktype` lie, for the `-d` listing to write the values
/// compared with them as a tcpdump user reads them (`netsift_isa::LinkFields`).
pub fn link_fields(linktype: LinkType) -> Option<netsift_isa::LinkFields> {
    let (link, _, ethertype, payload) = link_offsets(linktype)?;
    // An EtherType only where the link-type field holds one.
    let ethernet = matches!(link, Link::En10mb | Link::Sll | Link::Sll2);
    Some(netsift_isa::LinkFields {
        ethertype: ethertype.filter(|_| ethernet),
        network: payload,
        ethertype_name: |t| netsift_wire::ethernet::EtherType(t).name(),
        proto_name: |p| netsift_wire::ip::IpProtocol(p).name(),
    })
}

impl<'t> Lowerer<'t> {
    fn new(text: &'t str, target: Target) -> LResult<Lowerer<'t>> {
        let whole = Span::new(0, text.len());
        // (framing, link header, link-type field, link payload): init_linktype.
        let Some((link, off_linkhdr, off_linktype, off_linkpl)) = link_offsets(target.linktype)
        else {
            return Err(Error::new(
                format!(
                    "link type {} is not supported by the filter compiler",
                    target.linktype
                ),
                whole,
                text,
            ));
        };
        let mut lw = Lowerer {
            text,
            target,
            anchors: vec![AnchorSpec {
                rule: AnchorRule::Const,
                parent: 0,
                offset: 0,
            }],
            link,
            desc: target.linktype.description().unwrap_or("?"),
            off_linkhdr: Off::at(off_linkhdr),
            off_linktype: off_linktype.map(Off::at),
            off_linkpl: Off::at(off_linkpl),
            off_nl: link::nl_offsets(link, target.linktype).0,
            off_nl_nosnap: link::nl_offsets(link, target.linktype).1,
            label_stack_depth: 0,
            vlan_stack_depth: 0,
            geneve_udp: None,
            no_optimize: false,
            unopt: false,
            opt_errors: Vec::new(),
            computed: Vec::new(),
            rel_error: None,
            regs_held: 0,
            span: Span::new(0, text.len()),
            prims_done: 0,
            pflog_payload_used: false,
            pflog_pending: None,
            pflog_clobbered: false,
            prev_linkhdr: None,
            wlan_regs: link::WlanRegs::default(),
            path: Vec::new(),
            chains: 0,
        };
        if link == Link::Pflog {
            lw.pflog_offsets();
        }
        if link == Link::Wlan {
            lw.wlan_offsets();
        }
        if lw.stripped_tag() {
            // The frame has the tag put back where the kernel read none: every
            // field past the MAC addresses is 4 bytes further on.
            lw.off_linkpl.k += TAG;
            if let Some(o) = lw.off_linktype.as_mut() {
                o.k += TAG;
            }
        }
        Ok(lw)
    }

    /// What a link type adds around the whole filter (libpcap's finish_parse).
    fn finish(&mut self, tree: Tree) -> Tree {
        if self.wlan_target() {
            return self.wlan_finish(tree);
        }
        // Unoptimized, the prologue's loads are the root block's first statements
        // (optimized, `OptInfo::prologue` puts them before the optimiser's root).
        match self.pflog_prologue() {
            Some(p) if self.unopt => Tree::and(Tree::Atom(p), tree),
            _ => tree,
        }
    }

    pub(crate) fn err<T>(&self, msg: impl Into<String>) -> LResult<T> {
        Err(Error::new(msg, self.span, self.text))
    }

    pub(crate) fn err_at<T>(&self, msg: impl Into<String>, span: Span) -> LResult<T> {
        Err(Error::new(msg, span, self.text))
    }

    /// Interns an anchor.
    pub(crate) fn anchor(&mut self, rule: AnchorRule, parent: AnchorId, offset: u32) -> AnchorId {
        let spec = AnchorSpec {
            rule,
            parent,
            offset,
        };
        if let Some(i) = self.anchors.iter().position(|a| *a == spec) {
            return i;
        }
        self.anchors.push(spec);
        self.anchors.len() - 1
    }

    /// The anchor computed from the packet (a header libpcap measures per packet and
    /// keeps in a register) that `a` is a constant offset from; 0 (the packet's
    /// start) where `a` is a constant offset however it is reached.
    pub(crate) fn measured(&self, mut a: AnchorId) -> AnchorId {
        for _ in 0..self.anchors.len() {
            match self.anchors.get(a) {
                Some(spec) if a != 0 && spec.rule == AnchorRule::Const => a = spec.parent,
                _ => return a,
            }
        }
        a
    }

    fn expr(&mut self, e: &Expr) -> LResult<Tree> {
        Ok(match e {
            Expr::And(..) | Expr::Or(..) => {
                // A chain `a and b and c ...` nests down the left; walk it with a loop
                // so that a long chain cannot exhaust the stack.
                let is_and = matches!(e, Expr::And(..));
                let mut rights = Vec::new();
                let mut cur = e;
                while let (Expr::And(l, r), true) | (Expr::Or(l, r), false) = (cur, is_and) {
                    rights.push(&**r);
                    cur = l;
                }
                self.chains += 1;
                let chain = self.chains;
                let mut parts = Vec::with_capacity(rights.len() + 1);
                for (idx, part) in std::iter::once(cur)
                    .chain(rights.into_iter().rev())
                    .enumerate()
                {
                    self.path.push(link::Step::Chain {
                        chain,
                        and: is_and,
                        idx,
                    });
                    let t = self.expr(part);
                    self.path.pop();
                    parts.push(t?);
                }
                if is_and {
                    Tree::And(parts)
                } else {
                    Tree::Or(parts)
                }
            }
            Expr::Not(a, _) => {
                self.path.push(link::Step::Not);
                let t = self.expr(a);
                self.path.pop();
                Tree::not(t?)
            }
            Expr::Prim(p) => {
                self.span = p.span;
                let t = self.prim(&p.kind)?;
                self.prims_done += 1;
                t
            }
        })
    }

    fn prim(&mut self, k: &PrimKind) -> LResult<Tree> {
        match k {
            PrimKind::Qualified { qual, id, id_span } => self.qualified(*qual, id, *id_span),
            PrimKind::ProtoAbbrev(p) => self.proto_abbrev(*p),
            PrimKind::Relation { op, lhs, rhs } => self.relation(*op, lhs, rhs),
            PrimKind::Broadcast(p) => self.broadcast(*p),
            PrimKind::Multicast(p) => self.multicast(*p),
            PrimKind::Less(n) => Ok(Tree::not(Tree::Atom(Pred::Len(Test::Gt(
                self.len_as_read(*n),
            ))))),
            PrimKind::Greater(n) => Ok(Tree::Atom(Pred::Len(Test::Ge(self.len_as_read(*n))))),
            PrimKind::Byte { index, op, value } => self.byteop(*index, *op, *value),
            PrimKind::Inbound => self.inbound(true),
            PrimKind::Outbound => self.inbound(false),
            PrimKind::Ifindex(i) => self.ifindex(*i),
            PrimKind::Vlan(v) => self.vlan(*v),
            PrimKind::Mpls(v) => self.mpls(*v),
            PrimKind::Pppoed => self.pppoed(),
            PrimKind::Pppoes(v) => self.pppoes(*v),
            PrimKind::Geneve(v) => self.geneve(*v),
            PrimKind::Llc(l) => self.llc(l),
            PrimKind::Pf(pf) => self.pf(pf),
            PrimKind::Telco(t, v) => self.telco(*t, v),
            PrimKind::P80211Type { value, mask } => self.p80211_type(*value, *mask),
            PrimKind::P80211Dir(d) => self.p80211_dir(*d),
            PrimKind::Unsupported(text) => self.err(format!(
                "'{text}' is not supported on link type {}",
                self.target.linktype
            )),
        }
    }

    /// `head id`: dispatches on the kind of operand like libpcap's gen_ncode,
    /// gen_scode, gen_mcode, gen_mcode6 and gen_ecode.
    fn qualified(&mut self, q: Qual, id: &Id, id_span: Span) -> LResult<Tree> {
        match id {
            Id::Num(v) => self.ncode(None, *v, q, id_span),
            Id::Dotted(s) => {
                if matches!(q.addr, AddrType::Port) {
                    return self.err_at("'port' modifier applied to ip host", id_span);
                }
                if matches!(q.addr, AddrType::Portrange) {
                    return self.err_at("'portrange' modifier applied to ip host", id_span);
                }
                if matches!(q.addr, AddrType::Proto) {
                    return self.err_at("'proto' modifier applied to ip host", id_span);
                }
                if matches!(q.addr, AddrType::Protochain) {
                    return self.err_at("'protochain' modifier applied to ip host", id_span);
                }
                self.ncode(Some(s), 0, q, id_span)
            }
            Id::DottedPrefix(s, len) => self.mcode(s, None, *len, q, id_span),
            Id::DottedMask(s, m) => self.mcode(s, Some(m), 0, q, id_span),
            Id::Ip6(s) => self.mcode6(s, 128, q, id_span),
            Id::Ip6Prefix(s, len) => self.mcode6(s, *len, q, id_span),
            Id::Mac(s) => self.ecode(s, q, id_span),
            Id::Name(s) => self.scode(s, q, id_span),
        }
    }

    // ---- the comparison builders of gencode.c ----

    /// The location `offset` bytes from `rel`.
    pub(crate) fn loc(&mut self, rel: Rel, offset: u32) -> LResult<Loc> {
        if self.link == Link::Pflog && !matches!(rel, Rel::LinkHdr | Rel::LinkType) {
            self.pflog_payload_use();
        }
        if self.link == Link::Wlan {
            self.wlan_use(rel)?;
        }
        let base = match rel {
            Rel::LinkHdr => self.off_linkhdr,
            Rel::Llc => self.off_linkpl,
            Rel::PrevMplsHdr => Off {
                var: self.off_linkpl.var,
                k: self.off_linkpl.k.wrapping_add(self.off_nl).wrapping_sub(4),
            },
            Rel::LinkPl => Off {
                var: self.off_linkpl.var,
                k: self.off_linkpl.k.wrapping_add(self.off_nl),
            },
            Rel::LinkPlNoSnap => Off {
                var: self.off_linkpl.var,
                k: self.off_linkpl.k.wrapping_add(self.off_nl_nosnap),
            },
            Rel::LinkType => match self.off_linktype {
                Some(o) => o,
                None => return self.err("link-layer type field not available on this link type"),
            },
            Rel::TranIpv4 => {
                let nl = self.off_linkpl.k.wrapping_add(self.off_nl);
                let a = self.anchor(AnchorRule::Ipv4Payload, self.off_linkpl.var, nl);
                Off { var: a, k: 0 }
            }
            Rel::TranIpv6 => Off {
                var: self.off_linkpl.var,
                k: self.off_linkpl.k.wrapping_add(self.off_nl).wrapping_add(40),
            },
            Rel::PutBackTag => Off {
                var: self.off_linkhdr.var,
                k: self.off_linkhdr.k + 12,
            },
        };
        // Past the MAC addresses of a frame whose tag was put back (`ether[12]`,
        // `byte 14`), libpcap's kernel filter reads what lies 4 bytes further on.
        let offset = if rel == Rel::LinkHdr && self.stripped_tag() && offset >= 12 {
            offset.wrapping_add(TAG)
        } else {
            offset
        };
        Ok(Loc {
            anchor: base.var,
            off: base.k.wrapping_add(offset),
        })
    }

    /// Whether the program is for packets whose outermost VLAN tag the kernel
    /// took out and the capture put back ([`Meta::tag_stripped`]), and the offsets
    /// in force are still those of the outermost Ethernet header.
    pub(crate) fn stripped_tag(&self) -> bool {
        self.tag_put_back() && self.off_linkhdr == Off::at(0)
    }

    /// Whether the program reads Ethernet frames with a tag put back that the
    /// kernel took out ([`Meta::tag_stripped`]).
    fn tag_put_back(&self) -> bool {
        self.target.meta.is_some_and(|m| m.tag_stripped) && self.target.linktype == LinkType::EN10MB
    }

    /// The length `n` of a `len` comparison as the program reads it: 4 bytes more
    /// on a frame whose stripped tag was put back ([`Meta::tag_stripped`]).
    pub(crate) fn len_as_read(&self, n: u32) -> u32 {
        if self.tag_put_back() {
            n.saturating_add(TAG)
        } else {
            n
        }
    }

    pub(crate) fn ncmp(
        &mut self,
        rel: Rel,
        offset: u32,
        size: Size,
        mask: u32,
        test: Test,
    ) -> LResult<Tree> {
        let mask = mask & size.max();
        if mask == 0 && !self.unopt {
            // `(f & 0) == v` does not depend on the packet; libpcap's optimizer folds it
            // and drops the load, so a short packet is not rejected by it either.
            return Ok(Tree::Const(match test {
                Test::Eq(v) => v == 0,
                Test::Gt(_) => false,
                Test::Ge(v) => v == 0,
            }));
        }
        let loc = self.loc(rel, offset)?;
        if let Some(t) = self.wlan_dyn_cmp(rel, loc, size, mask, test) {
            return Ok(t);
        }
        Ok(Tree::Atom(Pred::Cmp(Cmp {
            loc,
            size,
            mask,
            test,
        })))
    }
    pub(crate) fn cmp(&mut self, rel: Rel, offset: u32, size: Size, v: u32) -> LResult<Tree> {
        self.ncmp(rel, offset, size, u32::MAX, Test::Eq(v))
    }
    pub(crate) fn mcmp(
        &mut self,
        rel: Rel,
        offset: u32,
        size: Size,
        v: u32,
        mask: u32,
    ) -> LResult<Tree> {
        self.ncmp(rel, offset, size, mask, Test::Eq(v))
    }
    pub(crate) fn cmp_gt(&mut self, rel: Rel, offset: u32, size: Size, v: u32) -> LResult<Tree> {
        self.ncmp(rel, offset, size, u32::MAX, Test::Gt(v))
    }
    pub(crate) fn cmp_ge(&mut self, rel: Rel, offset: u32, size: Size, v: u32) -> LResult<Tree> {
        self.ncmp(rel, offset, size, u32::MAX, Test::Ge(v))
    }
    pub(crate) fn cmp_lt(&mut self, rel: Rel, offset: u32, size: Size, v: u32) -> LResult<Tree> {
        Ok(Tree::not(self.cmp_ge(rel, offset, size, v)?))
    }
    pub(crate) fn cmp_le(&mut self, rel: Rel, offset: u32, size: Size, v: u32) -> LResult<Tree> {
        Ok(Tree::not(self.cmp_gt(rel, offset, size, v)?))
    }
    /// `f & mask != 0` (BPF's jset).
    pub(crate) fn jset(&mut self, rel: Rel, offset: u32, size: Size, mask: u32) -> LResult<Tree> {
        Ok(Tree::not(self.mcmp(rel, offset, size, 0, mask)?))
    }

    /// Compares `bytes` at `offset`, as libpcap's gen_bcmp: 4-byte words from the end,
    /// then a 2-byte and a 1-byte remainder.
    pub(crate) fn bcmp(&mut self, rel: Rel, offset: u32, bytes: &[u8]) -> LResult<Tree> {
        let mut parts = Vec::new();
        let mut size = bytes.len();
        while size >= 4 {
            let p = &bytes[size - 4..size];
            parts.push(self.cmp(
                rel,
                offset + size as u32 - 4,
                Size::B4,
                u32::from_be_bytes([p[0], p[1], p[2], p[3]]),
            )?);
            size -= 4;
        }
        while size >= 2 {
            let p = &bytes[size - 2..size];
            parts.push(self.cmp(
                rel,
                offset + size as u32 - 2,
                Size::B2,
                u16::from_be_bytes([p[0], p[1]]) as u32,
            )?);
            size -= 2;
        }
        if size > 0 {
            parts.push(self.cmp(rel, offset, Size::B1, bytes[0] as u32)?);
        }
        Ok(Tree::and_all(parts))
    }
}

pub(crate) use ast::Dir as D;
pub(crate) use ast::Proto as P;
/// Helper so that submodules can name the syntax-tree types briefly.
pub(crate) use ast::{ByteOp, Llc, RelOp};
