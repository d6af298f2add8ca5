//! A graph flow checked whole for this daemon, before anything is
//! instantiated: `netsift_graph` parses it and checks it against the class
//! table (syntax, arguments, MBuf sizes, root-only classes), then every
//! element is built once as the daemon would run it ([`build`]: a pcap
//! expression compiled for the source, a BPF program parsed, an FPL program
//! compiled against its MBuf size against the daemon's external functions
//! (`Env`), with the callable filters defined before the flow, a follower
//! made, an external function's searcher built, a `native` object loaded).
//! Which sources a `device` may name (the daemon's, the caller's rights) is
//! `flows.rs`'s to check. A refusal names the element, its class and its byte
//! offset.

use super::bpf::{self, Insn};
use super::externs::External;
use super::follow::Follow;
use super::native::Native;
use crate::programs::Programs;
use netsift_ffpf::proto::{ErrorCode, Refusal};
use netsift_graph::class::Value;
use netsift_graph::{Callable, ErrorKind, FlowSpec, Limits, Privilege};
use netsift_wire::LinkType;

/// What an instance runs, built from its class and arguments.
pub(crate) enum Kind {
    /// `device`: its source's packets, all of them.
    Source,
    /// `pcap`: netsift's compiler and engine.
    Pcap(Box<Programs>),
    /// `bpf`: classic BPF, interpreted.
    Bpf(Vec<Insn>),
    /// `fpl`: the program compiled to native code by FPL's JIT (which agrees
    /// with the interpreter on every program and packet its tests draw), run
    /// over the instance's MBuf and registers.
    Fpl(
        Box<netsift_fpl::jit::JitProgram>,
        Box<netsift_fpl::Registers>,
    ),
    /// `sampler`: passes the `rate`-th packet of every `rate`.
    Sampler(u32),
    /// `packetcount`: counts, passes none.
    PacketCount,
    /// `bytecount`: counts bytes on the wire, passes none.
    ByteCount,
    /// `follow`: a protocol follower's exact verdict (`graph/follow.rs`).
    Follow(Box<Follow>),
    /// An external function standing alone (`graph/externs.rs`).
    External(Box<External>),
    /// `native`: a root-owned shared object's C filter (`graph/native.rs`).
    Native(Box<Native>),
}

/// What elements are built against besides their own text: the source's
/// link type (a follower and the payload searches find the TCP/UDP segment
/// with it) and the external functions FPL's `EXTERN` may call, the
/// standard ones plus the administrator's pattern sets (`--patterns`,
/// docs/externs.md).
pub(crate) struct Env<'a> {
    /// The source's link type.
    pub(crate) linktype: LinkType,
    /// The daemon's external functions.
    pub(crate) externs: &'a netsift_externs::Library,
}

fn text(args: &[Value]) -> &str {
    match args.first() {
        Some(Value::Text(s)) => s,
        _ => "",
    }
}

/// Builds what `class` with `args` and an MBuf of `mbuf` bytes, calling the
/// filters `calls` (an `fpl` element's), runs as, in a graph whose pcap
/// expressions `pcap` compiles (for the flow's source, `_source`), in `env`;
/// the error says what is wrong with the element (without its place, which
/// the caller adds).
pub(crate) fn build(
    class: &str,
    args: &[Value],
    mbuf: u32,
    calls: &[Callable],
    _source: &str,
    pcap: &dyn Fn(&str) -> Result<Programs, String>,
    env: &Env<'_>,
) -> Result<Kind, String> {
    match class {
        "device" => Ok(Kind::Source),
        "pcap" => pcap(text(args)).map(|p| Kind::Pcap(Box::new(p))),
        "bpf" => bpf::parse(text(args)).map(Kind::Bpf),
        "fpl" => super::calls::compile(text(args), mbuf, calls, &env.externs.registry())
            .map(|jit| Kind::Fpl(Box::new(jit), Box::default())),
        "sampler" => match args.first() {
            Some(Value::Int(n)) => u32::try_from(*n)
                .map(Kind::Sampler)
                .map_err(|_| format!("rate {n} is past 2^32-1")),
            _ => Err("a sampler needs its rate".into()),
        },
        "packetcount" => Ok(Kind::PacketCount),
        "bytecount" => Ok(Kind::ByteCount),
        "follow" => Follow::new(text(args), env.linktype).map(|f| Kind::Follow(Box::new(f))),
        "native" => Native::open(text(args), mbuf).map(|n| Kind::Native(Box::new(n))),
        other => {
            External::new(other, args, mbuf, env.linktype).map(|e| Kind::External(Box::new(e)))
        }
    }
}

/// Parses and checks `text` as a graph flow on `source` for a caller with
/// `privilege`: the whole graph, before anything is made. `verb` names the
/// request in refusals.
pub(crate) fn check(
    verb: &str,
    text: &str,
    privilege: Privilege,
    source: &str,
    pcap: &dyn Fn(&str) -> Result<Programs, String>,
    env: &Env<'_>,
) -> Result<FlowSpec, Refusal> {
    let spec = FlowSpec::parse(text, privilege, &Limits::default()).map_err(|e| {
        let code = match e.kind() {
            ErrorKind::Forbidden => ErrorCode::Denied,
            ErrorKind::TooLarge => ErrorCode::Limit,
            _ => ErrorCode::Filter,
        };
        Refusal::new(code, format!("`{verb}`: graph: {e}"))
    })?;
    // The callable filters, each once, even those no element calls.
    super::calls::define(&spec.callable, &env.externs.registry()).map_err(|(k, m)| {
        let d = &spec.flow.definitions[k];
        Refusal::new(
            ErrorCode::Filter,
            format!(
                "`{verb}`: graph: definition `{}` (fpl) at byte {}: {m}",
                d.name, d.name_span.start
            ),
        )
    })?;
    for (i, (f, e)) in spec.filters.iter().zip(&spec.flow.elements).enumerate() {
        let fail = |m: String| {
            Refusal::new(
                ErrorCode::Filter,
                format!(
                    "`{verb}`: graph: element {} ({}) at byte {}: {m}",
                    i + 1,
                    f.class.name,
                    e.span.start
                ),
            )
        };
        build(f.class.name, &f.args, f.mbuf, &f.calls, source, pcap, env).map_err(fail)?;
    }
    Ok(spec)
}
