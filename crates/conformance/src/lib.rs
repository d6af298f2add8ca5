//! Differential testing of netsift against libpcap.
//!
//! The pieces:
//! - [`corpus_dir`] finds the shared capture and filter corpus (or says it is missing);
//! - [`load_corpus_captures`] reads every corpus capture with libpcap (through
//!   [`netsift_oracle::Capture`], so netsift's own reader is not under test here),
//!   grouped by link type;
//! - [`synth`] makes synthetic packets for every supported link type and
//!   [`generated_captures`] a fixed set of them;
//! - [`exprgen`] makes random filter expressions;
//! - [`Comparison`] compiles expressions with both libpcap and a [`Candidate`]
//!   (normally [`Netsift`]), runs them over captures and collects every disagreement
//!   into a [`Report`] that renders readably;
//! - [`sample`] builds the README's `samples/sample.pcap`.
//!
//! # Running
//!
//! ```text
//! cargo test -p netsift-conformance                    # everything (a few seconds)
//! cargo test -p netsift-conformance --test corpus -- --nocapture
//! NETSIFT_SEED=0x1234 cargo test -p netsift-conformance --test random -- --nocapture
//! cargo run -p netsift-conformance --bin mksample      # rewrite samples/sample.pcap
//! ```
//!
//! Environment: `NETSIFT_CORPUS` (corpus directory), `CI=true` (a missing corpus
//! fails), `NETSIFT_SEED` and `NETSIFT_RANDOM_SCALE` (random test),
//! `NETSIFT_REPORT_DIR` (where full reports go; default `$TMPDIR/netsift-conformance`).
//!
//! Verdicts compare libpcap's return value (nonzero = accept) with netsift's boolean.
//! Packets on which libpcap has no defined verdict (its `protochain` loop never ends,
//! or its program reads scratch memory it never stored on that path) are skipped and
//! counted; see [`netsift_oracle::Filter::try_run`].

#![forbid(unsafe_code)]

pub mod exprgen;
pub mod sample;
pub mod synth;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

pub use netsift_oracle::{Capture, Filter, OwnedPacket};
pub use netsift_wire::LinkType;

// ---------------------------------------------------------------------------------
// Corpus discovery and loading
// ---------------------------------------------------------------------------------

/// The shared corpus: `$NETSIFT_CORPUS` if set, else
/// `$CARGO_MANIFEST_DIR/../../../shared/corpus`, if that directory exists.
pub fn corpus_dir() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("NETSIFT_CORPUS") {
        let p = PathBuf::from(p);
        return p.is_dir().then_some(p);
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    p.is_dir().then_some(p)
}

/// Where [`corpus_dir`] looks, for messages.
pub fn corpus_dir_candidate() -> PathBuf {
    match std::env::var_os("NETSIFT_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
    }
}

/// Whether we run in CI (`CI=true`).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// [`corpus_dir`], but a missing corpus panics in CI (the corpus must be used
/// there) and prints a note elsewhere.
pub fn require_corpus() -> Option<PathBuf> {
    match corpus_dir() {
        Some(d) => Some(d),
        None if in_ci() => panic!(
            "corpus not found at {} and CI=true: the conformance tests must run on the \
             corpus in CI (set NETSIFT_CORPUS or check out shared/ beside the repository)",
            corpus_dir_candidate().display()
        ),
        None => {
            println!(
                "corpus not found at {}; using generated captures",
                corpus_dir_candidate().display()
            );
            None
        }
    }
}

/// A capture held in memory.
#[derive(Clone, Debug)]
pub struct CaptureData {
    /// `tcpdump/foo.pcap`, `libpcap/bar.pcapng` or `gen-EN10MB-mixed`.
    pub name: String,
    /// The capture's link type, as libpcap reports it (mapped from DLT to LINKTYPE).
    pub linktype: LinkType,
    /// Every packet libpcap read, in file order.
    pub packets: Vec<OwnedPacket>,
    /// libpcap's error if reading stopped early (the packets before it are kept).
    pub read_error: Option<String>,
}

/// The corpus captures, read by libpcap.
#[derive(Debug, Default)]
pub struct CorpusCaptures {
    /// Captures of link types the filter compiler handles, by link type, sorted by
    /// name.
    pub by_linktype: BTreeMap<LinkType, Vec<CaptureData>>,
    /// Captures of link types netsift does not support: (name, link type).
    pub unsupported: Vec<(String, LinkType)>,
    /// Files libpcap could not open: (name, message).
    pub unreadable: Vec<(String, String)>,
}

impl CorpusCaptures {
    /// The captures of link type `lt`, sorted by name; empty if there are none.
    pub fn captures(&self, lt: LinkType) -> &[CaptureData] {
        self.by_linktype.get(&lt).map(Vec::as_slice).unwrap_or(&[])
    }

    /// How many captures of supported link types were read, over all link types.
    pub fn total_captures(&self) -> usize {
        self.by_linktype.values().map(Vec::len).sum()
    }

    /// How many packets those captures hold in all.
    pub fn total_packets(&self) -> usize {
        self.by_linktype
            .values()
            .flatten()
            .map(|c| c.packets.len())
            .sum()
    }
}

/// Reads one capture file fully with libpcap.
pub fn read_capture(path: &Path, name: &str) -> Result<CaptureData, String> {
    let mut cap = Capture::open(path)?;
    let linktype = cap.linktype();
    let (packets, read_error) = cap.read_all();
    Ok(CaptureData {
        name: name.to_string(),
        linktype,
        packets,
        read_error,
    })
}

/// Reads every `*.pcap`/`*.pcapng` under `corpus/pcaps/{tcpdump,libpcap}` with
/// libpcap, keeping the packets of supported link types.
pub fn load_corpus_captures(corpus: &Path) -> CorpusCaptures {
    let mut out = CorpusCaptures::default();
    for sub in ["tcpdump", "libpcap"] {
        let dir = corpus.join("pcaps").join(sub);
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension()
                    .is_some_and(|e| e == "pcap" || e == "pcapng" || e == "cap")
            })
            .collect();
        files.sort();
        for path in files {
            let name = format!("{sub}/{}", path.file_name().unwrap().to_string_lossy());
            match Capture::open(&path) {
                Err(e) => out.unreadable.push((name, e)),
                Ok(cap) if !cap.linktype().is_filtered() => {
                    out.unsupported.push((name, cap.linktype()));
                }
                Ok(mut cap) => {
                    let linktype = cap.linktype();
                    let (packets, read_error) = cap.read_all();
                    out.by_linktype
                        .entry(linktype)
                        .or_default()
                        .push(CaptureData {
                            name,
                            linktype,
                            packets,
                            read_error,
                        });
                }
            }
        }
    }
    out
}

/// The seed of [`generated_captures`].
pub const GENERATED_SEED: u64 = 0x6e65_7473_6966_7401;

/// The link types beyond the first eight that the filter compiler handles
/// ([`LinkType::filtered_more`]), or those of them named in `NETSIFT_LINKTYPES`
/// (comma-separated libpcap names), to run a few while working on them.
pub fn more_linktypes() -> Vec<LinkType> {
    let only = std::env::var("NETSIFT_LINKTYPES").unwrap_or_default();
    let only: Vec<&str> = only
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    LinkType::filtered_more()
        .filter(|lt| {
            only.is_empty()
                || only
                    .iter()
                    .any(|o| lt.name().is_some_and(|n| n.eq_ignore_ascii_case(o)))
        })
        .collect()
}

/// [`synth::captures_for`] for `lt`, as [`CaptureData`].
pub fn generated_capture_data_for(lt: LinkType) -> Vec<CaptureData> {
    synth::captures_for(lt, GENERATED_SEED)
        .into_iter()
        .map(|(name, linktype, packets)| CaptureData {
            name,
            linktype,
            packets,
            read_error: None,
        })
        .collect()
}

/// A deterministic set of synthetic captures for every supported link type.
pub fn generated_captures() -> Vec<(String, LinkType, Vec<OwnedPacket>)> {
    LinkType::SUPPORTED
        .iter()
        .flat_map(|&lt| synth::captures_for(lt, GENERATED_SEED))
        .collect()
}

/// [`generated_captures`] as [`CaptureData`], grouped by link type.
pub fn generated_capture_data() -> BTreeMap<LinkType, Vec<CaptureData>> {
    let mut m: BTreeMap<LinkType, Vec<CaptureData>> = BTreeMap::new();
    for (name, linktype, packets) in generated_captures() {
        m.entry(linktype).or_default().push(CaptureData {
            name,
            linktype,
            packets,
            read_error: None,
        });
    }
    m
}

/// [`synth::snapped_captures_for`] for every supported link type, as [`CaptureData`]
/// grouped by link type (same seed as [`generated_captures`]).
pub fn snapped_capture_data() -> BTreeMap<LinkType, Vec<CaptureData>> {
    let mut m: BTreeMap<LinkType, Vec<CaptureData>> = BTreeMap::new();
    for lt in LinkType::SUPPORTED {
        for (name, linktype, packets) in synth::snapped_captures_for(lt, GENERATED_SEED) {
            m.entry(linktype).or_default().push(CaptureData {
                name,
                linktype,
                packets,
                read_error: None,
            });
        }
    }
    m
}

// ---------------------------------------------------------------------------------
// Filter lists
// ---------------------------------------------------------------------------------

/// `filters/accept-<LT>.txt`: one expression a line (an empty line is the empty
/// expression, which accepts everything). Missing file: empty list.
pub fn read_accept_list(corpus: &Path, lt: LinkType) -> Vec<String> {
    let Some(name) = lt.name() else {
        return Vec::new();
    };
    let path = corpus.join("filters").join(format!("accept-{name}.txt"));
    std::fs::read_to_string(path)
        .map(|s| s.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

/// `filters/reject-<LT>.tsv`: (expression, the message libpcap gave when the list was
/// recorded).
pub fn read_reject_list(corpus: &Path, lt: LinkType) -> Vec<(String, String)> {
    let Some(name) = lt.name() else {
        return Vec::new();
    };
    let path = corpus.join("filters").join(format!("reject-{name}.tsv"));
    std::fs::read_to_string(path)
        .map(|s| {
            s.lines()
                .filter(|l| !l.is_empty())
                .map(|l| match l.split_once('\t') {
                    Some((e, m)) => (e.to_string(), m.to_string()),
                    None => (l.to_string(), String::new()),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// One line of `filters/apply.tsv`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApplyLine {
    /// 1-based line number in `apply.tsv`, for messages.
    pub line: usize,
    /// File name under `pcaps/libpcap/`.
    pub capture: String,
    /// The filter expression libpcap applied.
    pub expr: String,
    /// The recorded return value of libpcap's program, per packet.
    pub results: Vec<u32>,
}

/// `filters/apply.tsv`: `capture<TAB>expression<TAB>r1,r2,...`.
pub fn read_apply_table(corpus: &Path) -> Result<Vec<ApplyLine>, String> {
    let path = corpus.join("filters").join("apply.tsv");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (i, l) in text.lines().enumerate() {
        if l.is_empty() {
            continue;
        }
        let mut f = l.splitn(3, '\t');
        let (Some(c), Some(e), Some(r)) = (f.next(), f.next(), f.next()) else {
            return Err(format!("apply.tsv line {}: not three fields: {l:?}", i + 1));
        };
        let results = if r.is_empty() {
            Vec::new()
        } else {
            r.split(',')
                .map(|x| x.trim().parse::<u32>())
                .collect::<Result<Vec<_>, _>>()
                .map_err(|err| format!("apply.tsv line {}: {err}: {r:?}", i + 1))?
        };
        out.push(ApplyLine {
            line: i + 1,
            capture: c.to_string(),
            expr: e.to_string(),
            results,
        });
    }
    Ok(out)
}

/// A few expressions per link type for runs without the corpus.
pub fn builtin_expressions(lt: LinkType) -> Vec<String> {
    let mut v: Vec<&str> = vec![
        "",
        "ip",
        "ip6",
        "tcp",
        "udp",
        "icmp",
        "icmp6",
        "igmp",
        "sctp",
        "tcp port 80",
        "udp port 53",
        "port 22 or port 443",
        "tcp portrange 1-1023",
        "src host 10.0.0.1",
        "dst host 192.168.1.1",
        "host 10.0.0.1 and host 10.0.0.2",
        "net 10.0.0.0/8",
        "src net 192.168.1",
        "ip6 host fe80::1",
        "ip6 net 2001:db8::/32",
        "tcp[tcpflags] & tcp-syn != 0",
        "tcp[13] & 0x12 = 0x12",
        "icmp[icmptype] = icmp-echo",
        "icmp6[icmp6type] = icmp6-echo",
        "ip[6:2] & 0x1fff != 0",
        "ip proto 47",
        "ip6 proto 58",
        "ip multicast",
        "ip6 multicast",
        "less 64",
        "greater 200",
        "len > 100 and len < 600",
        "not ip and not ip6",
        "udp port 4789",
        "udp port 6081",
        "(tcp or udp) and not port 53",
        "ip[0] & 0xf != 5",
        "tcp[((tcp[12] & 0xf0) >> 2)] = 0x47",
        "protochain 6",
        // Negative indexes: a constant one is folded into the load's offset, a
        // computed one wraps with the IPv4 header length (IndexMode in netsift-isa).
        "ip[-4] != 0",
        "udp[-4] != 0",
        "tcp[-20] = 0x45",
        "udp[-ip[9]] > 3",
        "tcp[-(ip[0] & 0xf) * 4] = ip[0]",
        "icmp6[-2:2] != 0",
        // Longer than one ARITH slot (CONT slots follow), and libpcap's register edge.
        "ip[0]+ip[1]+ip[2]+ip[3]+ip[4]+ip[5]+ip[6]+ip[7]+ip[8]+ip[9] > 1000",
        "(tcp[12]>>4)*4 + (ip[0]&0xf)*4 + 20 + ip[2:2] * 3 - udp[4:2] / 2 % 7 > 5000",
        "(ip[0]+ip[1]+ip[2]+ip[3]+ip[4]+ip[5]+ip[6]+ip[7]+ip[8] > 500 and tcp) or \
         (ip[0]+ip[1]+ip[2]+ip[3]+ip[4]+ip[5]+ip[6]+ip[7]+ip[8] > 600 and udp)",
        "ip[0]+(ip[1]+(ip[2]+(ip[3]+(ip[4]+(ip[5]+(ip[6]+(ip[7]+(ip[8]+(ip[9]+(ip[10]+\
         (ip[11]+(ip[12]+(ip[13]+ip[14]))))))))))))) > 300",
        "udp[8:4] ^ udp[12:4] ^ udp[16:4] ^ udp[20:4] ^ udp[24:4] ^ udp[28:4] != 0x12345678",
    ];
    if lt == LinkType::EN10MB || lt == LinkType::LINUX_SLL || lt == LinkType::LINUX_SLL2 {
        v.extend_from_slice(&[
            "arp",
            "rarp",
            "arp host 10.0.0.1",
            "pppoes",
            "pppoes 0x1234 and ip",
            "stp",
            "llc",
            "iso",
            "ether proto 0x88cc",
        ]);
    }
    if lt == LinkType::EN10MB {
        v.extend_from_slice(&[
            "broadcast",
            "multicast",
            "ether host 00:11:22:33:44:55",
            "ether src 02:00:00:00:00:01",
            "ether dst ff:ff:ff:ff:ff:ff",
            "vlan",
            "vlan 100",
            "vlan and vlan 10",
            "vlan and tcp port 80",
            "mpls",
            "mpls 16 and ip",
            "geneve",
            "geneve 11 and tcp",
            "llc s",
            "llc u",
        ]);
    }
    if lt == LinkType::LINUX_SLL || lt == LinkType::LINUX_SLL2 {
        v.extend_from_slice(&["inbound", "outbound"]);
    }
    if lt == LinkType::LINUX_SLL2 {
        v.push("ifindex 2");
    }
    v.into_iter().map(str::to_string).collect()
}

// ---------------------------------------------------------------------------------
// The thing compared with libpcap
// ---------------------------------------------------------------------------------

/// A filter implementation compared with libpcap.
pub trait Candidate: Sync {
    /// A compiled filter, made once per expression and run over every packet of the
    /// captures.
    type Program;
    /// Per-thread mutable state a program needs to run (made by `new_scratch`).
    type Scratch;
    /// The name used for this candidate in reports.
    fn name(&self) -> &'static str;
    /// Fresh scratch state; each worker thread makes its own, and a panic replaces it.
    fn new_scratch(&self) -> Self::Scratch;
    /// `Err` is the message to show (for netsift: the error's `Display`, with caret).
    fn compile(&self, lt: LinkType, expr: &str) -> Result<Self::Program, String>;
    /// Whether `prog` accepts the packet whose captured bytes are `data` and whose
    /// length on the wire is `wire_len`.
    fn matches(
        &self,
        prog: &Self::Program,
        scratch: &mut Self::Scratch,
        data: &[u8],
        wire_len: u32,
    ) -> bool;
    /// Whether the last `matches` ended on a load past the captured bytes.
    fn faulted(&self, _scratch: &Self::Scratch) -> bool {
        false
    }
    /// Verdicts for a whole capture at once, for candidates that filter batches;
    /// `None` (the default) means one `matches` call per packet.
    fn verdicts(
        &self,
        _prog: &Self::Program,
        _scratch: &mut Self::Scratch,
        _packets: &[OwnedPacket],
    ) -> Option<Vec<bool>> {
        None
    }
}

/// netsift: `netsift_pcapc::compile` + `netsift_engine::matches`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Netsift;

impl Candidate for Netsift {
    type Program = netsift_engine::Compiled;
    type Scratch = netsift_engine::Scratch;

    fn faulted(&self, scratch: &Self::Scratch) -> bool {
        scratch.faulted()
    }

    fn name(&self) -> &'static str {
        "netsift"
    }

    fn new_scratch(&self) -> Self::Scratch {
        netsift_engine::Scratch::new()
    }

    fn compile(&self, lt: LinkType, expr: &str) -> Result<Self::Program, String> {
        netsift_pcapc::compile(expr, lt)
            .map(netsift_engine::Compiled::new)
            .map_err(|e| e.to_string())
    }

    fn matches(
        &self,
        prog: &Self::Program,
        scratch: &mut Self::Scratch,
        data: &[u8],
        wire_len: u32,
    ) -> bool {
        prog.matches(scratch, data, wire_len)
    }
}

/// netsift's batch engine: the same compiled program as [`Netsift`], run by
/// `Compiled::filter_many` over each capture, `LANES` packets at a time.
#[derive(Clone, Copy, Debug, Default)]
pub struct NetsiftBatch;

impl Candidate for NetsiftBatch {
    type Program = netsift_engine::Compiled;
    type Scratch = netsift_engine::BatchScratch;

    fn name(&self) -> &'static str {
        "netsift-batch"
    }

    fn new_scratch(&self) -> Self::Scratch {
        netsift_engine::BatchScratch::new()
    }

    fn compile(&self, lt: LinkType, expr: &str) -> Result<Self::Program, String> {
        Netsift.compile(lt, expr)
    }

    fn matches(
        &self,
        prog: &Self::Program,
        scratch: &mut Self::Scratch,
        data: &[u8],
        wire_len: u32,
    ) -> bool {
        prog.filter_batch(scratch, &[data], &[wire_len]) & 1 != 0
    }

    fn verdicts(
        &self,
        prog: &Self::Program,
        scratch: &mut Self::Scratch,
        packets: &[OwnedPacket],
    ) -> Option<Vec<bool>> {
        let data: Vec<&[u8]> = packets.iter().map(|p| p.data.as_slice()).collect();
        let wire: Vec<u32> = packets.iter().map(|p| p.wire_len).collect();
        let mut out = Vec::with_capacity(packets.len());
        prog.filter_many(scratch, &data, &wire, &mut out);
        Some(out)
    }
}

/// netsift's live path: the expression added by `netsift_swift::Swift::add` as a
/// second clause (after one that matches no packet of the corpus), evaluated by the
/// live reader.
#[derive(Clone, Copy, Debug, Default)]
pub struct NetsiftLive;

impl Candidate for NetsiftLive {
    type Program = (netsift_swift::Swift, netsift_engine::live::Reader);
    type Scratch = netsift_engine::Scratch;

    fn faulted(&self, scratch: &Self::Scratch) -> bool {
        scratch.faulted()
    }

    fn name(&self) -> &'static str {
        "netsift-live"
    }

    fn new_scratch(&self) -> Self::Scratch {
        netsift_engine::Scratch::new()
    }

    fn compile(&self, lt: LinkType, expr: &str) -> Result<Self::Program, String> {
        let (mut swift, reader) = netsift_swift::Swift::open(lt);
        // Wire lengths in the corpus stay far below this, so the verdict is the
        // expression's; the clause occupies the first slots, so the expression's
        // passes are relocated.
        swift
            .add("greater 4000000000")
            .map_err(|e| format!("decoy clause: {e}"))?;
        swift.add(expr).map_err(|e| e.to_string())?;
        Ok((swift, reader))
    }

    fn matches(
        &self,
        prog: &Self::Program,
        scratch: &mut Self::Scratch,
        data: &[u8],
        wire_len: u32,
    ) -> bool {
        prog.1.matches(scratch, data, wire_len)
    }
}

/// libpcap compared with itself: the harness's own self-test (must never disagree).
#[derive(Clone, Copy, Debug, Default)]
pub struct LibpcapItself;

impl Candidate for LibpcapItself {
    type Program = Filter;
    type Scratch = ();

    fn name(&self) -> &'static str {
        "libpcap"
    }

    fn new_scratch(&self) {}

    fn compile(&self, lt: LinkType, expr: &str) -> Result<Filter, String> {
        Filter::compile(lt, expr)
    }

    fn matches(&self, prog: &Filter, _: &mut (), data: &[u8], wire_len: u32) -> bool {
        prog.accepts(data, wire_len)
    }
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic)".to_string()
    }
}

// ---------------------------------------------------------------------------------
// Reports
// ---------------------------------------------------------------------------------

/// One packet on which the verdicts differ.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// The link type the expression was compiled for.
    pub linktype: LinkType,
    /// The filter expression.
    pub expr: String,
    /// The name of the capture the packet came from (as in [`CaptureData::name`]).
    pub capture: String,
    /// The packet's 0-based position in that capture.
    pub index: usize,
    /// The return value of libpcap's program (0 = reject).
    pub libpcap: u32,
    /// The candidate's verdict (true = accept).
    pub netsift: bool,
    /// The packet's length on the wire.
    pub wire_len: u32,
    /// The packet's captured bytes.
    pub data: Vec<u8>,
    /// Either side's verdict came from a load past the captured bytes: the two
    /// programs ran their loads in a different order (see `Report::mismatches_short`).
    pub short: bool,
}

impl Mismatch {
    fn line(&self, candidate: &str) -> String {
        format!(
            "[{}] {:?} on {} #{}: libpcap {} ({}), {candidate} {} (caplen {}, wire {})",
            self.linktype,
            self.expr,
            self.capture,
            self.index,
            if self.libpcap != 0 {
                "ACCEPT"
            } else {
                "reject"
            },
            self.libpcap,
            if self.netsift { "ACCEPT" } else { "reject" },
            self.data.len(),
            self.wire_len
        )
    }
}

/// Per-expression disagreement counts.
#[derive(Clone, Debug)]
pub struct ExprTally {
    /// Packets on which the two sides disagree under this expression.
    pub mismatches: u64,
    /// The candidate accepts, libpcap rejects.
    pub false_accepts: u64,
    /// The candidate rejects, libpcap accepts.
    pub false_rejects: u64,
    /// Packets counted for this expression: [`Report::record`] starts it at 0 and
    /// does not add to it; [`Report::merge`] sums it.
    pub packets: u64,
    /// The captures in which at least one mismatch was found.
    pub captures: BTreeSet<String>,
    /// The first mismatch recorded for this expression, shown as its example.
    pub first: Mismatch,
}

/// An expression one side compiled and the other refused.
#[derive(Clone, Debug)]
pub struct CompileDiff {
    /// The link type the expression was compiled for.
    pub linktype: LinkType,
    /// The filter expression.
    pub expr: String,
    /// The refusing side's message.
    pub message: String,
    /// Extra context (the corpus's recorded message, ...).
    pub note: String,
}

/// Everything one comparison run found.
#[derive(Debug, Default)]
pub struct Report {
    /// Which run this is (e.g. `random on corpus EN10MB`); the summary starts with it.
    pub title: String,
    /// The candidate's [`Candidate::name`], used in messages.
    pub candidate: String,
    /// Expressions both sides compiled and that were run.
    pub expressions: usize,
    /// The distinct (link type, expression) pairs that were run.
    pub expr_set: BTreeSet<(LinkType, String)>,
    /// The names of the captures the expressions were run over.
    pub captures: BTreeSet<String>,
    /// Packet verdicts compared (one per expression and packet with a defined verdict).
    pub packets: u64,
    /// Skipped: the installed libpcap rejects them (and so, fine, does the candidate).
    pub libpcap_rejects: Vec<CompileDiff>,
    /// Failures: libpcap compiles them, the candidate refuses.
    pub candidate_rejects: Vec<CompileDiff>,
    /// libpcap refuses, the candidate compiles (a failure for the reject lists, a note
    /// for random expressions).
    pub candidate_accepts: Vec<CompileDiff>,
    /// The candidate panicked.
    pub panics: Vec<String>,
    /// Packets skipped because libpcap has no defined verdict on them: its program
    /// loops forever (`protochain`) or reads scratch memory it never stored on that
    /// path (`geneve or ...`); the first few are described in `no_verdict_samples`.
    pub no_verdict: u64,
    /// Descriptions of the first 20 of those packets.
    pub no_verdict_samples: Vec<String>,
    /// Packets on which libpcap and the candidate disagree, over all expressions.
    pub mismatches: u64,
    /// Of `mismatches`, those where netsift's or libpcap's verdict came from a load
    /// past the captured bytes: the packet is too short for some test, and the verdict
    /// depends on which loads each program runs before deciding.
    pub mismatches_short: u64,
    /// The first mismatches where neither side ran out of bytes (they matter most).
    pub full_samples: Vec<Mismatch>,
    /// The first mismatches, in order.
    pub samples: Vec<Mismatch>,
    /// Disagreements tallied per (link type, expression).
    pub by_expr: BTreeMap<(LinkType, String), ExprTally>,
    /// Things skipped with a reason, and other notes printed with the report.
    pub notes: Vec<String>,
    /// Extra failures found by the caller (e.g. a reject-list line the candidate
    /// compiled).
    pub failures: Vec<String>,
}

/// How many mismatches a [`Report`] keeps in `samples`.
pub const MAX_SAMPLES: usize = 500;

impl Report {
    /// An empty report titled `title` for the candidate named `candidate`.
    pub fn new(title: &str, candidate: &str) -> Report {
        Report {
            title: title.to_string(),
            candidate: candidate.to_string(),
            ..Report::default()
        }
    }

    /// Counts one mismatching packet.
    pub fn record(&mut self, m: Mismatch) {
        self.mismatches += 1;
        if m.short {
            self.mismatches_short += 1;
        } else if self.full_samples.len() < MAX_SAMPLES {
            self.full_samples.push(m.clone());
        }
        let key = (m.linktype, m.expr.clone());
        let t = self.by_expr.entry(key).or_insert_with(|| ExprTally {
            mismatches: 0,
            false_accepts: 0,
            false_rejects: 0,
            packets: 0,
            captures: BTreeSet::new(),
            first: m.clone(),
        });
        t.mismatches += 1;
        if m.netsift {
            t.false_accepts += 1;
        } else {
            t.false_rejects += 1;
        }
        t.captures.insert(m.capture.clone());
        if self.samples.len() < MAX_SAMPLES {
            self.samples.push(m);
        }
    }

    /// Adds another report's findings (for merging per-thread or per-link-type runs).
    pub fn merge(&mut self, o: Report) {
        self.expressions += o.expressions;
        self.expr_set.extend(o.expr_set);
        self.captures.extend(o.captures);
        self.packets += o.packets;
        self.libpcap_rejects.extend(o.libpcap_rejects);
        self.candidate_rejects.extend(o.candidate_rejects);
        self.candidate_accepts.extend(o.candidate_accepts);
        self.panics.extend(o.panics);
        self.no_verdict += o.no_verdict;
        for v in o.no_verdict_samples {
            if self.no_verdict_samples.len() < 20 {
                self.no_verdict_samples.push(v);
            }
        }
        self.mismatches += o.mismatches;
        self.mismatches_short += o.mismatches_short;
        self.full_samples.extend(o.full_samples);
        for m in o.samples {
            if self.samples.len() < MAX_SAMPLES {
                self.samples.push(m);
            }
        }
        for (k, t) in o.by_expr {
            match self.by_expr.get_mut(&k) {
                None => {
                    self.by_expr.insert(k, t);
                }
                Some(mine) => {
                    mine.mismatches += t.mismatches;
                    mine.false_accepts += t.false_accepts;
                    mine.false_rejects += t.false_rejects;
                    mine.packets += t.packets;
                    mine.captures.extend(t.captures);
                }
            }
        }
        self.notes.extend(o.notes);
        self.failures.extend(o.failures);
    }

    /// Whether anything failed (mismatches, candidate refusals, panics, failures).
    pub fn failed(&self) -> bool {
        self.mismatches > 0
            || !self.candidate_rejects.is_empty()
            || !self.panics.is_empty()
            || !self.failures.is_empty()
    }

    /// The one-line summary.
    pub fn summary(&self) -> String {
        format!(
            "{}: {} expressions x {} captures, {} packet verdicts compared, {} mismatches \
             ({} expressions), {} expressions {} refuses, {} expressions skipped (installed \
             libpcap rejects them), {} panics, {} other failures, {} packet verdicts skipped \
             (libpcap's is undefined)",
            self.title,
            self.expressions,
            self.captures.len(),
            self.packets,
            self.mismatches,
            self.by_expr.len(),
            self.candidate_rejects.len(),
            self.candidate,
            self.libpcap_rejects.len(),
            self.panics.len(),
            self.failures.len(),
            self.no_verdict
        )
    }

    /// The expressions with the most mismatching packets first.
    pub fn top_expressions(&self) -> Vec<(&(LinkType, String), &ExprTally)> {
        let mut v: Vec<_> = self.by_expr.iter().collect();
        v.sort_by(|a, b| b.1.mismatches.cmp(&a.1.mismatches).then(a.0.cmp(b.0)));
        v
    }

    /// A readable report. `max_lines` bounds each list; `hex` is how many mismatches
    /// get a hex dump.
    pub fn render(&self, max_lines: usize, hex: usize) -> String {
        let mut s = String::new();
        let cand = &self.candidate;
        let _ = writeln!(s, "{}", self.summary());
        for n in &self.notes {
            let _ = writeln!(s, "  note: {n}");
        }
        if !self.failures.is_empty() {
            let _ = writeln!(s, "\n== {} failures", self.failures.len());
            for f in self.failures.iter().take(max_lines) {
                let _ = writeln!(s, "  {f}");
            }
            more(&mut s, self.failures.len(), max_lines);
        }
        if !self.panics.is_empty() {
            let _ = writeln!(s, "\n== {} panicked", cand);
            for p in self.panics.iter().take(max_lines) {
                let _ = writeln!(s, "  {p}");
            }
            more(&mut s, self.panics.len(), max_lines);
        }
        if !self.candidate_rejects.is_empty() {
            let _ = writeln!(
                s,
                "\n== {} expressions libpcap compiles but {cand} refuses",
                self.candidate_rejects.len()
            );
            for d in self.candidate_rejects.iter().take(max_lines) {
                let msg = d.message.replace('\n', "\n      ");
                let _ = writeln!(s, "  [{}] {:?}\n      {msg}", d.linktype, d.expr);
            }
            more(&mut s, self.candidate_rejects.len(), max_lines);
        }
        if !self.candidate_accepts.is_empty() {
            let _ = writeln!(
                s,
                "\n== {} expressions the installed libpcap refuses but {cand} compiles",
                self.candidate_accepts.len()
            );
            for d in self.candidate_accepts.iter().take(max_lines) {
                let _ = writeln!(
                    s,
                    "  [{}] {:?}: libpcap: {}{}",
                    d.linktype,
                    d.expr,
                    d.message,
                    if d.note.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", d.note)
                    }
                );
            }
            more(&mut s, self.candidate_accepts.len(), max_lines);
        }
        if self.mismatches > 0 {
            let top = self.top_expressions();
            let _ = writeln!(
                s,
                "\n== mismatching expressions ({} expressions, {} packets), most first; \
                 +acc = {cand} accepts what libpcap rejects, +rej = the reverse",
                top.len(),
                self.mismatches
            );
            for ((lt, e), t) in top.iter().take(max_lines) {
                let _ = writeln!(
                    s,
                    "  {:>6} pkts (+acc {}, +rej {}) in {} captures  [{lt}] {e:?}",
                    t.mismatches,
                    t.false_accepts,
                    t.false_rejects,
                    t.captures.len()
                );
            }
            more(&mut s, top.len(), max_lines);
            let _ = writeln!(s, "\n== first mismatches");
            for m in self.samples.iter().take(max_lines) {
                let _ = writeln!(s, "  {}", m.line(cand));
            }
            more(&mut s, self.mismatches as usize, max_lines);
            let _ = writeln!(s, "\n== one example packet for each of the top expressions");
            for ((lt, e), t) in top.iter().take(hex) {
                let _ = writeln!(s, "  {}", t.first.line(cand));
                let _ = writeln!(s, "{}", hexdump(&t.first.data, "      "));
                if let Ok(f) = Filter::compile(*lt, e) {
                    let prog = f.dump();
                    let lines: Vec<&str> = prog.lines().collect();
                    let _ = writeln!(s, "    libpcap's program ({} insns):", lines.len());
                    for l in lines.iter().take(40) {
                        let _ = writeln!(s, "      {l}");
                    }
                    if lines.len() > 40 {
                        let _ = writeln!(s, "      ...");
                    }
                }
            }
        }
        if self.no_verdict > 0 {
            let _ = writeln!(
                s,
                "\n== {} packet verdicts skipped: libpcap has no defined verdict. Loops: its \
                 protochain code sets X to the AH length instead of adding it, and can loop \
                 forever. UninitializedMemory: the program reads a scratch slot it never \
                 stored on that path (`geneve` followed by `or`), so the result is stack \
                 garbage. SlotReuse: defined, but read as a Geneve offset out of a slot an \
                 arithmetic relation stored (libpcap's register reuse, not reproduced)",
                self.no_verdict
            );
            for v in self.no_verdict_samples.iter().take(max_lines.min(10)) {
                let _ = writeln!(s, "  {v}");
            }
        }
        if !self.libpcap_rejects.is_empty() {
            let _ = writeln!(
                s,
                "\n== {} expressions skipped: the installed libpcap ({}) rejects them",
                self.libpcap_rejects.len(),
                netsift_oracle::lib_version()
            );
            for d in self.libpcap_rejects.iter().take(max_lines) {
                let _ = writeln!(s, "  [{}] {:?}: {}", d.linktype, d.expr, d.message);
            }
            more(&mut s, self.libpcap_rejects.len(), max_lines);
        }
        s
    }

    /// Writes the full report (no list limits) to `dir/<file>` and returns the path.
    pub fn write_full(&self, dir: &Path, file: &str) -> Option<PathBuf> {
        let path = dir.join(file);
        std::fs::create_dir_all(dir).ok()?;
        std::fs::write(&path, self.render(usize::MAX, 50)).ok()?;
        Some(path)
    }
}

fn more(s: &mut String, total: usize, shown: usize) {
    if total > shown {
        let _ = writeln!(s, "  ... and {} more", total - shown);
    }
}

/// A hex dump in 16-byte lines with offsets, like `tcpdump -xx`.
pub fn hexdump(data: &[u8], indent: &str) -> String {
    if data.is_empty() {
        return format!("{indent}(no captured bytes)");
    }
    let mut s = String::new();
    for (i, chunk) in data.chunks(16).enumerate() {
        if i > 0 {
            s.push('\n');
        }
        let _ = write!(s, "{indent}0x{:04x}: ", i * 16);
        for (j, pair) in chunk.chunks(2).enumerate() {
            if j > 0 {
                s.push(' ');
            }
            for b in pair {
                let _ = write!(s, "{b:02x}");
            }
        }
    }
    s
}

// ---------------------------------------------------------------------------------
// Running comparisons
// ---------------------------------------------------------------------------------

/// Expressions compiled by both sides, ready to run.
struct Compiled<P> {
    expr: String,
    oracle: Filter,
    cand: P,
}

/// Compiles expressions with libpcap and a candidate and runs them over captures.
pub struct Comparison<'c, C: Candidate> {
    /// The implementation compared with libpcap.
    pub candidate: &'c C,
    /// Worker threads (default: available parallelism, at most 4).
    pub threads: usize,
}

impl<'c, C: Candidate> Comparison<'c, C> {
    /// A comparison of `candidate` on as many threads as the machine has cores,
    /// at most 4.
    pub fn new(candidate: &'c C) -> Self {
        let threads = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(4);
        Comparison { candidate, threads }
    }

    /// Compiles `expr` on both sides. libpcap refusing: recorded in
    /// `libpcap_rejects` (and `candidate_accepts` if the candidate compiles it).
    /// Candidate refusing or panicking: recorded as a failure.
    fn compile_both(
        &self,
        lt: LinkType,
        expr: &str,
        r: &mut Report,
    ) -> Option<Compiled<C::Program>> {
        let oracle = Filter::compile(lt, expr);
        let cand = catch_unwind(AssertUnwindSafe(|| self.candidate.compile(lt, expr)));
        let cand = match cand {
            Ok(c) => c,
            Err(p) => {
                r.panics.push(format!(
                    "[{lt}] compile {expr:?}: panicked: {}",
                    panic_text(p)
                ));
                return None;
            }
        };
        match (oracle, cand) {
            (Ok(oracle), Ok(cand)) => Some(Compiled {
                expr: expr.to_string(),
                oracle,
                cand,
            }),
            (Err(msg), c) => {
                if c.is_ok() {
                    r.candidate_accepts.push(CompileDiff {
                        linktype: lt,
                        expr: expr.to_string(),
                        message: msg.clone(),
                        note: String::new(),
                    });
                }
                r.libpcap_rejects.push(CompileDiff {
                    linktype: lt,
                    expr: expr.to_string(),
                    message: msg,
                    note: String::new(),
                });
                None
            }
            (Ok(_), Err(msg)) => {
                r.candidate_rejects.push(CompileDiff {
                    linktype: lt,
                    expr: expr.to_string(),
                    message: msg,
                    note: String::new(),
                });
                None
            }
        }
    }

    /// Runs one compiled expression over the captures.
    fn run_one(
        &self,
        lt: LinkType,
        c: &Compiled<C::Program>,
        captures: &[&CaptureData],
        scratch: &mut C::Scratch,
        r: &mut Report,
    ) {
        r.expressions += 1;
        r.expr_set.insert((lt, c.expr.clone()));
        'caps: for cap in captures {
            let batch = match catch_unwind(AssertUnwindSafe(|| {
                self.candidate.verdicts(&c.cand, scratch, &cap.packets)
            })) {
                Ok(v) => v,
                Err(e) => {
                    r.panics.push(format!(
                        "[{lt}] verdicts {:?} on {}: panicked: {}",
                        c.expr,
                        cap.name,
                        panic_text(e)
                    ));
                    *scratch = self.candidate.new_scratch();
                    continue 'caps;
                }
            };
            for (i, p) in cap.packets.iter().enumerate() {
                let want = match c.oracle.try_run(&p.data, p.wire_len) {
                    Ok(v) => v,
                    Err(why) => {
                        r.no_verdict += 1;
                        if r.no_verdict_samples.len() < 20 {
                            r.no_verdict_samples
                                .push(format!("[{lt}] {:?} on {} #{i}: {why:?}", c.expr, cap.name));
                        }
                        continue;
                    }
                };
                let got = match &batch {
                    Some(v) => Ok(v[i]),
                    None => catch_unwind(AssertUnwindSafe(|| {
                        self.candidate
                            .matches(&c.cand, scratch, &p.data, p.wire_len)
                    })),
                };
                r.packets += 1;
                match got {
                    Ok(got) => {
                        if got != (want != 0) {
                            let oob = netsift_oracle::bpf::interpret_traced(
                                c.oracle.insns(),
                                &p.data,
                                p.wire_len,
                                1 << 24,
                            )
                            .is_ok_and(|(_, oob)| oob);
                            let short = oob || self.candidate.faulted(scratch);
                            r.record(Mismatch {
                                short,
                                linktype: lt,
                                expr: c.expr.clone(),
                                capture: cap.name.clone(),
                                index: i,
                                libpcap: want,
                                netsift: got,
                                wire_len: p.wire_len,
                                data: p.data.clone(),
                            });
                        }
                    }
                    Err(e) => {
                        r.panics.push(format!(
                            "[{lt}] matches {:?} on {} #{i}: panicked: {}\n{}",
                            c.expr,
                            cap.name,
                            panic_text(e),
                            hexdump(&p.data, "      ")
                        ));
                        *scratch = self.candidate.new_scratch();
                        break 'caps;
                    }
                }
            }
        }
    }

    /// Compiles each expression once (both sides) and runs it over every packet of
    /// every capture, in `threads` threads; merges the findings into `report`.
    pub fn run(
        &self,
        lt: LinkType,
        exprs: &[String],
        captures: &[&CaptureData],
        report: &mut Report,
    ) {
        for c in captures {
            report.captures.insert(c.name.clone());
        }
        let threads = self.threads.max(1).min(exprs.len().max(1));
        let work = |chunk: &[String]| -> Report {
            let mut r = Report::new(&report.title, &report.candidate);
            let mut scratch = self.candidate.new_scratch();
            for e in chunk {
                if let Some(c) = self.compile_both(lt, e, &mut r) {
                    self.run_one(lt, &c, captures, &mut scratch, &mut r);
                }
            }
            r
        };
        if threads <= 1 {
            let r = work(exprs);
            report.merge(r);
            return;
        }
        // Interleave expressions over the threads so slow ones spread out, then merge
        // in a fixed order (results do not depend on scheduling).
        let chunks: Vec<Vec<String>> = (0..threads)
            .map(|t| exprs.iter().skip(t).step_by(threads).cloned().collect())
            .collect();
        let parts: Vec<Report> = std::thread::scope(|s| {
            let hs: Vec<_> = chunks.iter().map(|ch| s.spawn(|| work(ch))).collect();
            hs.into_iter()
                .map(|h| h.join().expect("comparison worker panicked"))
                .collect()
        });
        for p in parts {
            report.merge(p);
        }
    }

    /// Compiles `expr` with the candidate only and reports whether it compiled
    /// (`Ok(())`) or its message; panics count as refusals with the panic text.
    pub fn candidate_compiles(&self, lt: LinkType, expr: &str) -> Result<(), String> {
        match catch_unwind(AssertUnwindSafe(|| self.candidate.compile(lt, expr))) {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(m)) => Err(m),
            Err(p) => Err(format!("PANIC: {}", panic_text(p))),
        }
    }

    /// Candidate verdicts for every packet of a capture.
    pub fn candidate_verdicts(
        &self,
        lt: LinkType,
        expr: &str,
        packets: &[OwnedPacket],
    ) -> Result<Vec<bool>, String> {
        let prog = catch_unwind(AssertUnwindSafe(|| self.candidate.compile(lt, expr)))
            .map_err(|p| format!("PANIC: {}", panic_text(p)))??;
        let mut scratch = self.candidate.new_scratch();
        let mut out = Vec::with_capacity(packets.len());
        for (i, p) in packets.iter().enumerate() {
            let v = catch_unwind(AssertUnwindSafe(|| {
                self.candidate
                    .matches(&prog, &mut scratch, &p.data, p.wire_len)
            }))
            .map_err(|e| format!("PANIC on packet #{i}: {}", panic_text(e)))?;
            out.push(v);
        }
        Ok(out)
    }
}

/// Where the tests write full reports: `$NETSIFT_REPORT_DIR`, else the system temp
/// directory's `netsift-conformance`.
pub fn report_dir() -> PathBuf {
    std::env::var_os("NETSIFT_REPORT_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("netsift-conformance"))
}

/// The random seed: `$NETSIFT_SEED` (decimal or 0x-hex) or `default`.
pub fn seed_from_env(default: u64) -> u64 {
    match std::env::var("NETSIFT_SEED") {
        Ok(s) => {
            let s = s.trim();
            let parsed = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                u64::from_str_radix(h, 16)
            } else {
                s.parse()
            };
            parsed.unwrap_or_else(|_| panic!("NETSIFT_SEED={s:?} is not a number"))
        }
        Err(_) => default,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hexdump_format() {
        let d: Vec<u8> = (0..20).collect();
        let h = hexdump(&d, "  ");
        assert_eq!(
            h,
            "  0x0000: 0001 0203 0405 0607 0809 0a0b 0c0d 0e0f\n  0x0010: 1011 1213"
        );
        assert_eq!(hexdump(&[], ""), "(no captured bytes)");
        assert_eq!(hexdump(&[0xab], ""), "0x0000: ab");
    }

    #[test]
    fn generated_captures_cover_every_linktype() {
        let g = generated_captures();
        for lt in LinkType::SUPPORTED {
            let n: usize = g.iter().filter(|c| c.1 == lt).map(|c| c.2.len()).sum();
            assert!(n >= 500, "{lt}: {n}");
        }
    }

    /// The harness finds no difference between libpcap and itself, and every
    /// generated packet is looked at.
    #[test]
    fn libpcap_agrees_with_itself() {
        let caps = generated_capture_data();
        let cmp = Comparison::new(&LibpcapItself);
        let mut report = Report::new("self-test", "libpcap");
        for lt in LinkType::SUPPORTED {
            let c: Vec<&CaptureData> = caps[&lt].iter().collect();
            let mut exprs = builtin_expressions(lt);
            exprs.push("tcp port 70000".into());
            cmp.run(lt, &exprs, &c, &mut report);
        }
        assert!(!report.failed(), "{}", report.render(20, 2));
        assert_eq!(report.mismatches, 0);
        assert!(report.packets > 100_000);
        assert!(report
            .libpcap_rejects
            .iter()
            .any(|d| d.expr == "tcp port 70000"));
        assert!(report.candidate_accepts.is_empty());
    }

    /// A deliberately wrong candidate is caught, reported per expression, with hex.
    #[test]
    fn a_wrong_candidate_is_reported() {
        struct Inverted;
        impl Candidate for Inverted {
            type Program = Filter;
            type Scratch = ();
            fn name(&self) -> &'static str {
                "inverted"
            }
            fn new_scratch(&self) {}
            fn compile(&self, lt: LinkType, expr: &str) -> Result<Filter, String> {
                if expr == "udp" {
                    return Err("no udp today".into());
                }
                if expr == "icmp" {
                    panic!("boom");
                }
                Filter::compile(lt, expr)
            }
            fn matches(&self, f: &Filter, _: &mut (), d: &[u8], w: u32) -> bool {
                let v = f.accepts(d, w);
                if f.expr() == "tcp port 80" {
                    !v
                } else {
                    v
                }
            }
        }
        let caps = generated_capture_data();
        let c: Vec<&CaptureData> = caps[&LinkType::EN10MB].iter().collect();
        let mut report = Report::new("wrong", "inverted");
        let exprs: Vec<String> = ["tcp port 80", "udp", "icmp", "ip"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        Comparison::new(&Inverted).run(LinkType::EN10MB, &exprs, &c, &mut report);
        assert!(report.failed());
        assert_eq!(report.expressions, 2);
        assert_eq!(report.by_expr.len(), 1);
        assert_eq!(report.candidate_rejects.len(), 1);
        assert_eq!(report.panics.len(), 1);
        let n: u64 = c.iter().map(|c| c.packets.len() as u64).sum();
        assert_eq!(report.mismatches, n);
        let text = report.render(5, 1);
        assert!(text.contains("\"tcp port 80\""), "{text}");
        assert!(text.contains("0x0000: "), "{text}");
        assert!(text.contains("no udp today"), "{text}");
        assert!(text.contains("libpcap's program"), "{text}");
    }

    #[test]
    fn corpus_lists_parse() {
        let Some(dir) = corpus_dir() else {
            return;
        };
        let acc = read_accept_list(&dir, LinkType::EN10MB);
        assert!(acc.len() > 100);
        let rej = read_reject_list(&dir, LinkType::EN10MB);
        assert!(rej.iter().all(|(e, _)| !e.is_empty()));
        let apply = read_apply_table(&dir).unwrap();
        assert!(!apply.is_empty());
        assert!(apply.iter().all(|a| !a.capture.is_empty()));
    }

    #[test]
    fn seed_parsing() {
        if std::env::var_os("NETSIFT_SEED").is_none() {
            assert_eq!(seed_from_env(5), 5);
        }
    }
}
