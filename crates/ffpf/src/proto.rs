//! The control protocol between `netsiftd` and its clients, shared by both
//! sides so that they cannot disagree.
//!
//! A client connects to the daemon's Unix `SOCK_SEQPACKET` socket. Each
//! message is one datagram (the socket keeps message boundaries, so no length
//! prefix is needed and a short read cannot split one) holding one JSON object
//! of at most [`MAX_MESSAGE`] bytes. A request is `{"id": N, "op": VERB,
//! ...fields}`; its reply carries the same `id` and `"reply": KIND`. A
//! reply to `instantiate` carries the flow's four buffer descriptors by
//! `SCM_RIGHTS` ([`crate::fdpass`]), in the order PBuf, IBuf, control page,
//! wake-up channel.
//!
//! JSON rather than a binary encoding: the messages are few (a handful per
//! flow's life, none per packet), a person can read them in `strace` output or
//! type them with `socat`, and serde names the field at fault in every decoding
//! error, which is the "what and where" a refusal must say. Versioning is the
//! `hello` verb's `version`; new optional fields can be added without a new
//! version because absent fields take defaults, while unknown fields are
//! refused (a client must not believe the daemon honoured a field it ignored).
//!
//! [`decode_request`] checks everything a request can get wrong before the
//! daemon acts on it: size, shape, verb, fields, and the bounds in
//! [`Request::validate`]. A request it refuses changes nothing.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The protocol version this crate speaks.
pub const VERSION: u32 = 1;

/// The daemon's control socket when no one names another.
pub const DEFAULT_SOCKET: &str = "/run/netsift.sock";

/// The largest message either side sends or accepts, in bytes; a longer one is
/// refused whole ([`ErrorCode::TooLarge`]).
pub const MAX_MESSAGE: usize = 16 * 1024;

/// The longest filter expression accepted, in bytes.
pub const MAX_FILTER: usize = 8 * 1024;

/// The longest graph text (`create`'s `graph`) accepted, in bytes.
pub const MAX_GRAPH: usize = 8 * 1024;

/// The longest source name accepted, in bytes.
pub const MAX_NAME: usize = 64;

/// The most IBuf entries a flow may ask for.
pub const MAX_IBUF_ENTRIES: u64 = 1 << 20;

/// The fewest IBuf entries a flow may ask for.
pub const MIN_IBUF_ENTRIES: u64 = 16;

/// The largest snap length (tcpdump's default and maximum).
pub const MAX_SNAPLEN: u32 = 262_144;

/// A flow's number, unique in one daemon's life.
pub type FlowNo = u64;

/// Which packets of an interface a flow takes by the way they went
/// (libpcap's `pcap_direction_t`, tcpdump's `-Q`): on the wire `"inout"`,
/// `"in"` or `"out"`, any other value refused. A packet is sent (`out`)
/// when the kernel handed it over as `PACKET_OUTGOING`, as libpcap decides
/// on Linux; a capture file's packets are all received.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Direction {
    /// Both (the default).
    #[default]
    #[serde(rename = "inout")]
    InOut,
    /// Received by the host.
    #[serde(rename = "in")]
    In,
    /// Sent by the host.
    #[serde(rename = "out")]
    Out,
}

impl Direction {
    /// Whether a packet sent by the host (`outgoing`) or received is taken.
    #[inline]
    pub fn takes(self, outgoing: bool) -> bool {
        match self {
            Direction::InOut => true,
            Direction::In => !outgoing,
            Direction::Out => outgoing,
        }
    }
}

/// A request, by verb (`"op"`). The seeds' names (FFPF §3) are given with
/// each verb.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Request {
    /// The first request of a connection: the client's protocol version.
    Hello {
        /// The version the client speaks.
        version: u32,
    },
    /// The sources the daemon owns (interfaces, capture files).
    Sources,
    /// `flow_create` + `flow_populate`: a flow on `source` with a pcap
    /// filter, compiled and checked now; nothing is allocated or captured yet.
    Create {
        /// The source's name (an interface, or a file source's name).
        source: String,
        /// A pcap-filter(7) expression (empty: every packet).
        filter: String,
        /// The most bytes of each packet the client wants (default: all).
        #[serde(default)]
        snaplen: Option<u32>,
        /// Entries in the flow's IBuf (a power of two; default 4096).
        #[serde(default)]
        ibuf_entries: Option<u64>,
        /// Which direction's packets (default both); absent in requests
        /// of clients that predate it, which get both.
        #[serde(default, skip_serializing_if = "is_inout")]
        direction: Direction,
        /// A filter graph in the seeds' `ffpf-flow` syntax instead of a pcap
        /// filter (`filter` must then be empty): its elements run in the
        /// daemon, sharing every prefix with the graphs already running, and
        /// the packets its last elements pass reach the flow's IBuf. Absent
        /// in requests of clients that predate it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        graph: Option<String>,
        /// With `graph`: the element (0-based, in written order) whose
        /// instance's output the flow delivers, instead of its last
        /// elements'. Absent in requests of clients that predate it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        element: Option<u32>,
        /// Instead of `graph`: a running instance of `source`'s graph (its
        /// id, as the `graph` verb lists it) that a flow of the caller's
        /// class of rights uses; the flow delivers what it passes. Absent in
        /// requests of clients that predate it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        instance: Option<u64>,
    },
    /// `flow_instantiate`: authorise the flow, put it in its group, build its
    /// buffers; the reply carries their descriptors.
    Instantiate {
        /// The flow.
        flow: FlowNo,
    },
    /// `flow_activate`: packets start to arrive.
    Activate {
        /// The flow.
        flow: FlowNo,
    },
    /// `flow_pause`: packets stop arriving; the buffers stay.
    Pause {
        /// The flow.
        flow: FlowNo,
    },
    /// `flow_close`: the flow and its buffers go.
    Close {
        /// The flow.
        flow: FlowNo,
    },
    /// A flow's accounting.
    FlowStats {
        /// The flow.
        flow: FlowNo,
    },
    /// Replaces a flow's filter expression (in any state).
    SetFilter {
        /// The flow.
        flow: FlowNo,
        /// The new expression.
        filter: String,
    },
    /// Replaces the direction a flow takes (in any state; `pcap_setdirection`
    /// comes after the flow is created).
    SetDirection {
        /// The flow.
        flow: FlowNo,
        /// Which packets from now on.
        direction: Direction,
    },
    /// The daemon's own figures: sources, filter runs, groups, flows.
    DaemonStats,
    /// The running filter graph of `source` as far as the caller's rights
    /// see it: the flows of its class of rights and the instances they use.
    Graph {
        /// The source.
        source: String,
    },
    /// The MBuf of the instance that element `element` (0-based, in written
    /// order) of graph flow `flow` runs as; the reply carries one descriptor
    /// (a memfd sealed so that it maps read-only).
    Mbuf {
        /// The flow.
        flow: FlowNo,
        /// The element, 0-based.
        element: u32,
    },
}

/// Whether `d` is the default, which a request need not say (so a request
/// of a new client that asks for both directions reads as an old one's).
fn is_inout(d: &Direction) -> bool {
    *d == Direction::InOut
}

impl Request {
    /// The verb's name on the wire.
    pub fn verb(&self) -> &'static str {
        match self {
            Request::Hello { .. } => "hello",
            Request::Sources => "sources",
            Request::Create { .. } => "create",
            Request::Instantiate { .. } => "instantiate",
            Request::Activate { .. } => "activate",
            Request::Pause { .. } => "pause",
            Request::Close { .. } => "close",
            Request::FlowStats { .. } => "flow_stats",
            Request::SetFilter { .. } => "set_filter",
            Request::SetDirection { .. } => "set_direction",
            Request::DaemonStats => "daemon_stats",
            Request::Graph { .. } => "graph",
            Request::Mbuf { .. } => "mbuf",
        }
    }

    /// Checks the fields' bounds; the refusal names the field.
    pub fn validate(&self) -> Result<(), Refusal> {
        let bad = |what: String| Err(Refusal::new(ErrorCode::BadField, what));
        let filter_ok = |f: &str| {
            if f.len() > MAX_FILTER {
                bad(format!(
                    "field `filter`: {} bytes, at most {MAX_FILTER}",
                    f.len()
                ))
            } else if f.contains('\0') {
                bad("field `filter`: holds a NUL byte".into())
            } else {
                Ok(())
            }
        };
        match self {
            Request::Create {
                source,
                filter,
                snaplen,
                ibuf_entries,
                graph,
                element,
                instance,
                ..
            } => {
                if source.is_empty() || source.len() > MAX_NAME {
                    return bad(format!(
                        "field `source`: {} bytes, 1 to {MAX_NAME}",
                        source.len()
                    ));
                }
                filter_ok(filter)?;
                if let Some(g) = graph {
                    if g.len() > MAX_GRAPH {
                        return bad(format!(
                            "field `graph`: {} bytes, at most {MAX_GRAPH}",
                            g.len()
                        ));
                    }
                    if g.contains('\0') {
                        return bad("field `graph`: holds a NUL byte".into());
                    }
                    if !filter.is_empty() {
                        return bad("field `filter`: must be empty with `graph` (the graph's \
                             pcap elements are its filters)"
                            .into());
                    }
                }
                if element.is_some() && graph.is_none() {
                    return bad("field `element`: only with `graph` (an `instance` is one \
                         element already)"
                        .into());
                }
                if instance.is_some() {
                    if graph.is_some() {
                        return bad("field `instance`: not with `graph` (name the element \
                             with `element`)"
                            .into());
                    }
                    if !filter.is_empty() {
                        return bad("field `filter`: must be empty with `instance` (the \
                             instance is the filter)"
                            .into());
                    }
                }
                if let Some(s) = snaplen {
                    if *s == 0 || *s > MAX_SNAPLEN {
                        return bad(format!("field `snaplen`: {s}, 1 to {MAX_SNAPLEN}"));
                    }
                }
                if let Some(n) = ibuf_entries {
                    if !n.is_power_of_two() || !(MIN_IBUF_ENTRIES..=MAX_IBUF_ENTRIES).contains(n) {
                        return bad(format!(
                            "field `ibuf_entries`: {n}, a power of two from \
                             {MIN_IBUF_ENTRIES} to {MAX_IBUF_ENTRIES}"
                        ));
                    }
                }
                Ok(())
            }
            Request::SetFilter { filter, .. } => filter_ok(filter),
            Request::Graph { source } if source.is_empty() || source.len() > MAX_NAME => bad(
                format!("field `source`: {} bytes, 1 to {MAX_NAME}", source.len()),
            ),
            _ => Ok(()),
        }
    }
}

/// Why a request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Not a JSON object, or not UTF-8.
    Malformed,
    /// Longer than [`MAX_MESSAGE`].
    TooLarge,
    /// A verb the daemon does not know.
    UnknownVerb,
    /// A field missing, unknown, of the wrong type, or out of bounds.
    BadField,
    /// `hello` with a version the daemon does not speak, or a request before
    /// `hello`.
    Version,
    /// No source of that name.
    NoSuchSource,
    /// No flow of that number on this connection.
    NoSuchFlow,
    /// The verb does not apply in the flow's state (activating a flow not
    /// instantiated).
    BadState,
    /// The filter expression does not compile for the source, or the source
    /// cannot run it.
    Filter,
    /// The client's rights do not allow it.
    Denied,
    /// A limit of the daemon (flows per connection, connections).
    Limit,
    /// The daemon failed (a system call, a capture that would not open).
    Internal,
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = serde_json::to_value(self).ok();
        let s = s.as_ref().and_then(|v| v.as_str()).unwrap_or("?");
        f.write_str(s)
    }
}

/// A refused request: the code and what was wrong, said where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The request's id, if it could be read.
    pub id: Option<u64>,
    /// Why.
    pub code: ErrorCode,
    /// What was wrong, and where.
    pub what: String,
}

impl Refusal {
    /// A refusal without an id yet.
    pub fn new(code: ErrorCode, what: impl Into<String>) -> Refusal {
        Refusal {
            id: None,
            code,
            what: what.into(),
        }
    }

    /// Its reply.
    pub fn reply(&self) -> Reply {
        Reply {
            id: self.id,
            body: ReplyBody::Error {
                code: self.code,
                what: self.what.clone(),
            },
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.what, self.code)
    }
}

/// A flow's place in its life cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowState {
    /// Created and populated: the filter compiles; no buffers.
    Created,
    /// Authorised, in a group, with buffers; not receiving.
    Instantiated,
    /// Receiving packets.
    Active,
    /// Not receiving; the buffers and what is in them stay.
    Paused,
}

/// A source the daemon owns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceInfo {
    /// Its name, as `create` names it.
    pub name: String,
    /// `ring` (an interface) or `file` (a capture file played).
    pub kind: String,
    /// The link type of its packets (a LINKTYPE_ number).
    pub linktype: u32,
    /// The most bytes of a packet it captures.
    pub snaplen: u32,
}

/// A flow's accounting. `accepted` counts the packets its filter accepted
/// while it was active; each is delivered or dropped for a reason, so once
/// its reader has caught up `delivered + overwritten + invalid + pbuf_full +
/// ibuf_full == accepted`. The reader's counts are what its client reports in
/// its control page (untrusted: shown, never used by the daemon).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowStats {
    /// The flow.
    pub flow: FlowNo,
    /// Its state.
    pub state: Option<FlowState>,
    /// Its source.
    pub source: String,
    /// Its filter expression.
    pub filter: String,
    /// Packets its filter accepted.
    pub accepted: u64,
    /// Dropped: no room in PBuf (slow-reader preference).
    pub pbuf_full: u64,
    /// Dropped: no room in its IBuf (slow-reader preference).
    pub ibuf_full: u64,
    /// IBuf entries written.
    pub written: u64,
    /// The reader's position as the daemon last clamped it.
    pub read: u64,
    /// Detached from the slow-reader preference for stalling.
    pub detached: bool,
    /// Reported by the client: delivered.
    pub delivered: u64,
    /// Reported by the client: lost to overwriting (fast-reader preference).
    pub overwritten: u64,
    /// Reported by the client: refused as invalid.
    pub invalid: u64,
}

/// One source's figures.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceStats {
    /// Its name.
    pub name: String,
    /// `ring`, `xdp` (an AF_XDP source, `--copy zero`) or `file`.
    pub kind: String,
    /// Whether its capture (or playback) runs.
    pub running: bool,
    /// A file source played to its end (`--play once`).
    pub finished: bool,
    /// Batches dispatched to flows.
    pub batches: u64,
    /// Packets in those batches.
    pub packets: u64,
    /// Filter runs over batches: one per distinct active filter per batch.
    pub filter_runs: u64,
    /// Distinct filter expressions of its active flows now.
    pub distinct_filters: u64,
    /// Clauses in the kernel's program (the union of the active filters).
    pub kernel_clauses: u64,
    /// Flow groups now.
    pub groups: u64,
    /// Flows now (any state past `created`).
    pub flows: u64,
    /// Packets stored in its groups' PBufs (one copy per group).
    pub stored: u64,
    /// An AF_XDP source (`kind` `xdp`, zero copy): frames the kernel
    /// received for its socket but dropped before the daemon saw them, as no
    /// frame of the UMEM was free (`XDP_STATISTICS`: a slow reader holding
    /// the frames back under slow-reader preference). Sent = `packets` +
    /// this, exactly.
    #[serde(default)]
    pub kernel_dropped: u64,
}

/// The daemon's figures.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DaemonStats {
    /// Connections open now.
    pub connections: u64,
    /// Flows now, in every state.
    pub flows: u64,
    /// Per source.
    pub sources: Vec<SourceStats>,
}

/// A filter instance of a running graph, as the `graph` verb shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphInstance {
    /// Its id (never reused while the daemon runs).
    pub id: u64,
    /// Its class.
    pub class: String,
    /// Its arguments, in canonical form.
    pub args: Vec<String>,
    /// Its MBuf size in bytes.
    pub mbuf: u32,
    /// The instances that feed it.
    pub upstream: Vec<u64>,
    /// The caller's flows that use it.
    pub flows: Vec<FlowNo>,
    /// Flows that use it, the caller's and others' (one counts once).
    pub refs: u64,
    /// Where it runs: `kernel` (in the graph's socket filter under the
    /// source's interface, which the daemon generates), `xdp` (in the XDP
    /// program of an AF_XDP source, before its redirect decision) or
    /// `daemon`.
    pub runs: String,
    /// The lowest level that could run it: where it runs when that is below
    /// the daemon (`kernel`, `xdp`), else `kernel` (a pcap prefix, which the
    /// union program under the source's ring already holds, or the source
    /// itself) or `daemon`.
    pub could_run: String,
    /// Why it runs where it does (empty from daemons before placement).
    #[serde(default)]
    pub why: String,
    /// Packets that reached it (its runs) while it was active.
    pub seen: u64,
    /// Packets it passed on.
    pub passed: u64,
}

/// A graph flow, as the `graph` verb shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphFlow {
    /// The flow.
    pub flow: FlowNo,
    /// Its graph as given.
    pub text: String,
    /// The instance each element runs as, in written order.
    pub instances: Vec<u64>,
}

/// A reply: the request's id (absent when the request's could not be read)
/// and what it says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reply {
    /// The id of the request it answers.
    pub id: Option<u64>,
    /// What it says.
    #[serde(flatten)]
    pub body: ReplyBody,
}

/// What a reply says, by kind (`"reply"`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum ReplyBody {
    /// To `hello`.
    Hello {
        /// The version the daemon speaks.
        version: u32,
        /// The daemon's name and version.
        software: String,
    },
    /// To `sources`.
    Sources {
        /// The sources.
        sources: Vec<SourceInfo>,
    },
    /// To `create`.
    Created {
        /// The new flow's number.
        flow: FlowNo,
        /// The link type of its packets.
        linktype: u32,
        /// The most bytes of each packet it will get.
        snaplen: u32,
    },
    /// To `instantiate`; four descriptors come with it.
    Instantiated {
        /// The flow.
        flow: FlowNo,
        /// Its group's number (flows with equal rights on one source share it).
        group: u64,
        /// `slow` or `fast` reader preference.
        policy: String,
    },
    /// To `activate`, `pause`, `close` and `set_filter`: done.
    Done {
        /// The flow.
        flow: FlowNo,
        /// Its state now (`None`: closed).
        state: Option<FlowState>,
    },
    /// To `flow_stats`.
    FlowStats(FlowStats),
    /// To `daemon_stats`.
    DaemonStats(DaemonStats),
    /// To `graph`.
    Graph {
        /// The source.
        source: String,
        /// The caller's graph flows on it.
        flows: Vec<GraphFlow>,
        /// The instances they use, oldest first.
        instances: Vec<GraphInstance>,
        /// The same as Graphviz DOT, drawn as the seeds' Figure 3.
        dot: String,
    },
    /// To `mbuf`; one descriptor comes with it.
    Mbuf {
        /// The flow.
        flow: FlowNo,
        /// The element.
        element: u32,
        /// The instance it runs as.
        instance: u64,
        /// The MBuf's size in bytes.
        size: u32,
    },
    /// The request was refused and changed nothing.
    Error {
        /// Why.
        code: ErrorCode,
        /// What was wrong, and where.
        what: String,
    },
}

/// A request as bytes on the wire.
pub fn encode_request(id: u64, req: &Request) -> Vec<u8> {
    let mut v = serde_json::to_value(req).unwrap_or_default();
    if let Some(m) = v.as_object_mut() {
        m.insert("id".into(), id.into());
    }
    serde_json::to_vec(&v).unwrap_or_default()
}

/// Reads and checks a request: size, JSON, `id`, verb, fields, bounds. The
/// refusal carries the id when it could be read.
pub fn decode_request(bytes: &[u8]) -> Result<(u64, Request), Refusal> {
    if bytes.len() > MAX_MESSAGE {
        return Err(Refusal::new(
            ErrorCode::TooLarge,
            format!(
                "a message of {} bytes or more: at most {MAX_MESSAGE}",
                bytes.len()
            ),
        ));
    }
    let v: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| Refusal::new(ErrorCode::Malformed, format!("not JSON: {e}")))?;
    let serde_json::Value::Object(mut m) = v else {
        return Err(Refusal::new(
            ErrorCode::Malformed,
            "the message is not a JSON object",
        ));
    };
    let id = match m.remove("id") {
        Some(serde_json::Value::Number(n)) if n.as_u64().is_some() => n.as_u64(),
        Some(other) => {
            return Err(Refusal::new(
                ErrorCode::BadField,
                format!("field `id`: {other} is not a whole number from 0 to 2^64-1"),
            ))
        }
        None => return Err(Refusal::new(ErrorCode::BadField, "missing field `id`")),
    };
    let with_id = |mut r: Refusal| {
        r.id = id;
        r
    };
    let verb = match m.get("op") {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(with_id(Refusal::new(
                ErrorCode::BadField,
                format!("field `op`: {other} is not a verb name"),
            )))
        }
        None => {
            return Err(with_id(Refusal::new(
                ErrorCode::BadField,
                "missing field `op`",
            )))
        }
    };
    let req: Request = serde_json::from_value(serde_json::Value::Object(m)).map_err(|e| {
        let text = e.to_string();
        // An unknown variant is an unknown verb only if it is the verb's: a
        // field's (`direction`) is a bad field.
        let code = if text.starts_with(&format!("unknown variant `{verb}`")) {
            ErrorCode::UnknownVerb
        } else {
            ErrorCode::BadField
        };
        with_id(Refusal::new(code, format!("`{verb}`: {text}")))
    })?;
    req.validate()
        .map_err(|r| with_id(Refusal::new(r.code, format!("`{verb}`: {}", r.what))))?;
    Ok((id.unwrap_or_default(), req))
}

/// A reply as bytes on the wire.
pub fn encode_reply(reply: &Reply) -> Vec<u8> {
    serde_json::to_vec(reply).unwrap_or_default()
}

/// Reads a reply; the error says what was wrong with it.
pub fn decode_reply(bytes: &[u8]) -> Result<Reply, String> {
    serde_json::from_slice(bytes).map_err(|e| format!("a reply that is not one: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> Refusal {
        decode_request(text.as_bytes()).unwrap_err()
    }

    #[test]
    fn requests_round_trip() {
        let reqs = [
            Request::Hello { version: 1 },
            Request::Sources,
            Request::Create {
                source: "eth0".into(),
                filter: "tcp port 80".into(),
                snaplen: Some(96),
                ibuf_entries: None,
                direction: Direction::InOut,
                graph: None,
                element: None,
                instance: None,
            },
            Request::Create {
                source: "eth0".into(),
                filter: String::new(),
                snaplen: None,
                ibuf_entries: None,
                direction: Direction::Out,
                graph: Some("(device,eth0) -> (packetcount)".into()),
                element: Some(0),
                instance: None,
            },
            Request::Graph {
                source: "eth0".into(),
            },
            Request::Mbuf {
                flow: 7,
                element: 2,
            },
            Request::Activate { flow: 7 },
            Request::SetDirection {
                flow: 7,
                direction: Direction::In,
            },
            Request::SetFilter {
                flow: 7,
                filter: "udp".into(),
            },
            Request::DaemonStats,
        ];
        for (i, r) in reqs.iter().enumerate() {
            let bytes = encode_request(i as u64, r);
            assert_eq!(decode_request(&bytes), Ok((i as u64, r.clone())), "{r:?}");
        }
    }

    /// An old client's `create` (no `direction`) takes both directions; a
    /// direction that is not one of the three names is refused, said where.
    #[test]
    fn direction_is_optional_and_strict() {
        let (_, r) = decode_request(br#"{"id":1,"op":"create","source":"a","filter":""}"#).unwrap();
        assert!(matches!(
            r,
            Request::Create {
                direction: Direction::InOut,
                ..
            }
        ));
        // Asking for both says nothing on the wire, as an old client's request.
        let bytes = encode_request(1, &r);
        assert!(!String::from_utf8_lossy(&bytes).contains("direction"));
        let (_, r) =
            decode_request(br#"{"id":1,"op":"create","source":"a","filter":"","direction":"in"}"#)
                .unwrap();
        assert!(matches!(
            r,
            Request::Create {
                direction: Direction::In,
                ..
            }
        ));
        for bad in [r#""IN""#, r#""both""#, "1", "null", r#"["in"]"#] {
            let text =
                format!(r#"{{"id":2,"op":"create","source":"a","filter":"","direction":{bad}}}"#);
            let r = refused(&text);
            assert_eq!((r.id, r.code), (Some(2), ErrorCode::BadField), "{bad}: {r}");
            assert!(r.what.contains("create"), "{r}");
        }
        let r = refused(r#"{"id":3,"op":"set_direction","flow":1}"#);
        assert!(r.what.contains("missing field `direction`"), "{r}");
        let r = refused(r#"{"id":4,"op":"set_direction","flow":1,"direction":"sideways"}"#);
        assert!(r.what.contains("sideways"), "{r}");
        assert!([true, false].iter().all(|&o| Direction::InOut.takes(o)));
        assert!(Direction::In.takes(false) && !Direction::In.takes(true));
        assert!(Direction::Out.takes(true) && !Direction::Out.takes(false));
    }

    /// `graph` is optional (an old client's `create` has none) and checked:
    /// with a graph the pcap filter must be empty; its size and bytes are
    /// bounded.
    #[test]
    fn graph_is_optional_and_strict() {
        let (_, r) =
            decode_request(br#"{"id":1,"op":"create","source":"a","filter":"udp"}"#).unwrap();
        assert!(matches!(r, Request::Create { graph: None, .. }));
        assert!(!String::from_utf8_lossy(&encode_request(1, &r)).contains("graph"));
        let ok = r#"{"id":1,"op":"create","source":"a","filter":"","graph":"(pcap,udp)"}"#;
        assert!(decode_request(ok.as_bytes()).is_ok());
        let r =
            refused(r#"{"id":2,"op":"create","source":"a","filter":"tcp","graph":"(pcap,udp)"}"#);
        assert_eq!(r.code, ErrorCode::BadField);
        assert!(
            r.what.contains("`filter`") && r.what.contains("graph"),
            "{r}"
        );
        let r = refused(r#"{"id":3,"op":"create","source":"a","filter":"","graph":7}"#);
        assert!(r.what.contains("create"), "{r}");
        let big = format!(
            r#"{{"id":4,"op":"create","source":"a","filter":"","graph":"{}"}}"#,
            "x".repeat(MAX_GRAPH + 1)
        );
        assert!(refused(&big).what.contains("`graph`"));
        let r = refused(r#"{"id":5,"op":"graph","source":""}"#);
        assert!(r.what.contains("`source`"), "{r}");
        let r = refused(r#"{"id":6,"op":"mbuf","flow":1}"#);
        assert!(r.what.contains("missing field `element`"), "{r}");
    }

    /// `element` and `instance` are optional (old clients send neither) and
    /// each goes only where it means something: an element of a graph, an
    /// instance instead of a graph or a filter.
    #[test]
    fn element_and_instance_are_optional_and_strict() {
        let (_, r) = decode_request(br#"{"id":1,"op":"create","source":"a","filter":""}"#).unwrap();
        assert!(matches!(
            r,
            Request::Create {
                element: None,
                instance: None,
                ..
            }
        ));
        let text = String::from_utf8_lossy(&encode_request(1, &r)).into_owned();
        assert!(
            !text.contains("element") && !text.contains("instance"),
            "{text}"
        );
        let ok =
            r#"{"id":1,"op":"create","source":"a","filter":"","graph":"(pcap,udp)","element":0}"#;
        assert!(decode_request(ok.as_bytes()).is_ok());
        let ok = r#"{"id":1,"op":"create","source":"a","filter":"","instance":4}"#;
        let (_, r) = decode_request(ok.as_bytes()).unwrap();
        assert!(matches!(
            r,
            Request::Create {
                instance: Some(4),
                ..
            }
        ));
        assert_eq!(decode_request(&encode_request(1, &r)).unwrap().1, r);
        for (bad, field) in [
            (r#""filter":"","element":1"#, "`element`"),
            (r#""filter":"","element":-1,"graph":"(pcap,udp)""#, "u32"),
            (
                r#""filter":"","instance":4,"graph":"(pcap,udp)""#,
                "`instance`",
            ),
            (r#""filter":"udp","instance":4"#, "`filter`"),
            (r#""filter":"","instance":"x""#, "u64"),
        ] {
            let r = refused(&format!(r#"{{"id":2,"op":"create","source":"a",{bad}}}"#));
            assert_eq!(r.code, ErrorCode::BadField, "{bad}: {r}");
            assert!(r.what.contains(field), "{bad}: {r}");
        }
    }

    #[test]
    fn replies_round_trip() {
        let r = Reply {
            id: Some(3),
            body: ReplyBody::FlowStats(FlowStats {
                flow: 2,
                accepted: 9,
                ..FlowStats::default()
            }),
        };
        assert_eq!(decode_reply(&encode_reply(&r)), Ok(r));
        let e = Refusal::new(ErrorCode::NoSuchFlow, "flow 9").reply();
        assert_eq!(decode_reply(&encode_reply(&e)), Ok(e));
    }

    #[test]
    fn bad_requests_say_what_and_where() {
        let r = refused("{\"id\":1,\"op\":\"frobnicate\"}");
        assert_eq!((r.id, r.code), (Some(1), ErrorCode::UnknownVerb));
        assert!(r.what.contains("frobnicate"), "{r}");
        let r = refused("{\"id\":2,\"op\":\"activate\",\"flow\":\"x\"}");
        assert_eq!((r.id, r.code), (Some(2), ErrorCode::BadField));
        assert!(
            r.what.contains("activate") && r.what.contains("string"),
            "{r}"
        );
        let r = refused("{\"id\":3,\"op\":\"activate\",\"flow\":1,\"extra\":0}");
        assert!(r.what.contains("unknown field `extra`"), "{r}");
        let r = refused("{\"id\":4,\"op\":\"create\",\"filter\":\"\"}");
        assert!(r.what.contains("missing field `source`"), "{r}");
        let r = refused(
            "{\"id\":5,\"op\":\"create\",\"source\":\"a\",\"filter\":\"\",\"ibuf_entries\":100}",
        );
        assert!(r.what.contains("ibuf_entries"), "{r}");
        let r = refused("[1,2]");
        assert_eq!((r.id, r.code), (None, ErrorCode::Malformed));
        let r = refused("{\"op\":\"sources\"}");
        assert!(r.what.contains("`id`"), "{r}");
        let r = refused("{\"id\":-1,\"op\":\"sources\"}");
        assert!(r.what.contains("`id`"), "{r}");
        let big = vec![b' '; MAX_MESSAGE + 1];
        assert_eq!(
            refused(std::str::from_utf8(&big).unwrap()).code,
            ErrorCode::TooLarge
        );
        let r = refused("\u{1}\u{2}garbage");
        assert_eq!(r.code, ErrorCode::Malformed);
    }
}
