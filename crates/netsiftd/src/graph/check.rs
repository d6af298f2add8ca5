//! A graph flow checked whole for this daemon, before anything is
//! instantiated: `netsift_graph` parses it and checks it against the class
//! table (syntax, arguments, MBuf sizes, root-only classes), then every
//! element is built once as the daemon would run it ([`build`]: a pcap
//! expression compiled for the source, a BPF program parsed, an FPL program
//! compiled against its MBuf size, with the callable filters defined before
//! the flow), and what the daemon cannot run yet is
//! refused: `follow`, `native`, external-function classes standing alone
//! (FPL's `EXTERN` reaches them), and a `device` other than the flow's
//! source. A refusal names the element, its class and its byte offset.

use super::bpf::{self, Insn};
use crate::programs::Programs;
use netsift_ffpf::proto::{ErrorCode, Refusal};
use netsift_graph::class::Value;
use netsift_graph::{Callable, ErrorKind, FlowSpec, Limits, Privilege};

/// What an instance runs, built from its class and arguments.
pub(crate) enum Kind {
    /// `device`: the source's packets, all of them.
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
}

/// The external functions FPL's `EXTERN` may call in the daemon: the ones
/// that need no configuration (`netsift_externs::standard`, docs/externs.md).
/// Pattern sets (Aho-Corasick, substrings) need the administrator's files,
/// which the daemon does not take yet.
fn externs() -> netsift_fpl::externs::Externs {
    netsift_externs::standard()
}

fn text(args: &[Value]) -> &str {
    match args.first() {
        Some(Value::Text(s)) => s,
        _ => "",
    }
}

/// Builds what `class` with `args` and an MBuf of `mbuf` bytes, calling the
/// filters `calls` (an `fpl` element's), runs as, on a source called `source`
/// whose pcap expressions `pcap` compiles; the error says what is wrong with
/// the element (without its place, which the caller adds).
pub(crate) fn build(
    class: &str,
    args: &[Value],
    mbuf: u32,
    calls: &[Callable],
    source: &str,
    pcap: &dyn Fn(&str) -> Result<Programs, String>,
) -> Result<Kind, String> {
    match class {
        "device" => {
            if text(args) != source {
                return Err(format!(
                    "device {:?} is not this flow's source {source:?}; a graph flow reads \
                     the source it is created on (several devices in one graph are not built yet)",
                    text(args)
                ));
            }
            Ok(Kind::Source)
        }
        "pcap" => pcap(text(args)).map(|p| Kind::Pcap(Box::new(p))),
        "bpf" => bpf::parse(text(args)).map(Kind::Bpf),
        "fpl" => super::calls::compile(text(args), mbuf, calls, &externs())
            .map(|jit| Kind::Fpl(Box::new(jit), Box::default())),
        "sampler" => match args.first() {
            Some(Value::Int(n)) => u32::try_from(*n)
                .map(Kind::Sampler)
                .map_err(|_| format!("rate {n} is past 2^32-1")),
            _ => Err("a sampler needs its rate".into()),
        },
        "packetcount" => Ok(Kind::PacketCount),
        "bytecount" => Ok(Kind::ByteCount),
        "follow" | "native" => Err(format!(
            "class {class} is not built yet in the daemon (docs/daemon.md, \"Graph flows\")"
        )),
        other => Err(format!(
            "class {other} does not run as an element of its own yet; call it from an fpl \
             element with EXTERN"
        )),
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
    super::calls::define(&spec.callable, &externs()).map_err(|(k, m)| {
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
        build(f.class.name, &f.args, f.mbuf, &f.calls, source, pcap).map_err(fail)?;
    }
    Ok(spec)
}
