//! The client library: a connection to `netsiftd` and the flows made over it.
//!
//! The seeds' calls (FFPF §3) and ours:
//!
//! | FFPF | here |
//! |---|---|
//! | (open the device) | [`Client::connect`] (sends `hello`) |
//! | `flow_create` + `flow_populate` | [`Client::create`] → [`Flow`] |
//! | `flow_instantiate` | [`Flow::instantiate`] (maps the buffers) |
//! | `flow_activate` / `flow_pause` | [`Flow::activate`] / [`Flow::pause`] |
//! | `flow_close` | [`Flow::close`], or dropping the [`Flow`] |
//! | `filter_getnext_pkt`, `wait_for_n_pkts`, `filter_callback` | [`Flow::reader`] → [`FlowReader::getnext`], [`FlowReader::wait_for`], [`FlowReader::for_each`] |
//!
//! ```no_run
//! use netsift_ffpf::{Client, FlowSpec};
//! use std::time::Duration;
//!
//! let client = Client::connect("/run/netsift.sock")?;
//! let mut flow = client.create(&FlowSpec {
//!     source: "eth0".into(),
//!     filter: "tcp port 443".into(),
//!     ..FlowSpec::default()
//! })?;
//! flow.instantiate()?;
//! flow.activate()?;
//! let reader = flow.reader()?;
//! reader.for_each(1, Duration::from_secs(10), |p| {
//!     println!("{} bytes of {}", p.data.len(), p.wirelen);
//!     true
//! })?;
//! println!("{:?}", flow.stats()?);
//! # Ok::<(), netsift_ffpf::Error>(())
//! ```
//!
//! A [`Flow`] shares its connection with the [`Client`] that made it (one
//! request at a time, under a lock), so a program may hold many flows. The
//! buffers are read without the daemon: after `instantiate`, reading is loads
//! and stores in shared memory, and a system call only to sleep.
//!
//! The flow's snap length is applied here, on the copy handed out
//! ([`Flow::snaplen`], [`FlowReader::set_snaplen`]): a group stores each
//! packet once for all its flows, at the source's snap length.

use crate::error::Error;
use crate::fdpass;
use crate::proto::{self, Direction, FlowNo, FlowState, Reply, ReplyBody, Request};
use crate::reader::FlowReader;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

pub use crate::proto::{DaemonStats, FlowStats, GraphFlow, GraphInstance, SourceInfo};

/// The connection: one request at a time.
#[derive(Debug)]
struct Conn {
    sock: OwnedFd,
    next_id: u64,
    buf: Vec<u8>,
}

impl Conn {
    /// Sends `bytes` and waits for the reply to request `id`.
    fn exchange(&mut self, id: Option<u64>, bytes: &[u8]) -> Result<(Reply, Vec<OwnedFd>), Error> {
        fdpass::send(self.sock.as_fd(), bytes, &[])?;
        self.buf.resize(proto::MAX_MESSAGE + 1, 0);
        let got = fdpass::recv(self.sock.as_fd(), &mut self.buf)?;
        if got.len == 0 && !got.truncated {
            return Err(Error::protocol("the daemon closed the connection"));
        }
        if got.truncated {
            return Err(Error::protocol("a reply longer than the protocol allows"));
        }
        let reply = proto::decode_reply(&self.buf[..got.len]).map_err(Error::protocol)?;
        if id.is_some() && reply.id != id {
            return Err(Error::protocol(format!(
                "a reply to request {:?} while waiting for {id:?}",
                reply.id
            )));
        }
        Ok((reply, got.fds))
    }

    /// Sends `req`; its reply (a refusal as an error) and any descriptors.
    fn call(&mut self, req: &Request) -> Result<(ReplyBody, Vec<OwnedFd>), Error> {
        let id = self.next_id;
        self.next_id += 1;
        let (reply, fds) = self.exchange(Some(id), &proto::encode_request(id, req))?;
        match reply.body {
            ReplyBody::Error { code, what } => Err(Error::refused(code, what)),
            body => Ok((body, fds)),
        }
    }
}

fn lock(c: &Mutex<Conn>) -> MutexGuard<'_, Conn> {
    // A panic while holding the lock leaves at worst a reply unread, which
    // the id check then reports.
    c.lock().unwrap_or_else(|e| e.into_inner())
}

fn unexpected(verb: &str, body: &ReplyBody) -> Error {
    Error::protocol(format!("`{verb}` answered with {body:?}"))
}

/// A connection to `netsiftd`.
#[derive(Debug, Clone)]
pub struct Client {
    conn: Arc<Mutex<Conn>>,
    software: String,
}

/// What [`Client::create`] makes a flow of.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowSpec {
    /// The source's name (an interface, or a file source).
    pub source: String,
    /// A pcap-filter(7) expression (empty: every packet).
    pub filter: String,
    /// The most bytes of each packet wanted (`None`: all the source keeps).
    pub snaplen: Option<u32>,
    /// Entries in the flow's IBuf (a power of two; `None`: the daemon's default).
    pub ibuf_entries: Option<u64>,
    /// Which direction's packets (default both; see [`Direction`]).
    pub direction: Direction,
    /// A filter graph in `ffpf-flow` syntax instead of `filter` (which must
    /// then be empty): see docs/daemon.md, "Graph flows".
    pub graph: Option<String>,
    /// With `graph`: the element (0-based, in written order) whose output
    /// the flow delivers (`None`: its last elements').
    pub element: Option<u32>,
    /// Instead of `graph` and `filter`: a running instance of the source's
    /// graph (an id [`Client::graph`] lists) whose output the flow delivers.
    pub instance: Option<u64>,
}

/// The running graph of a source as the daemon shows it to this client.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GraphView {
    /// This client's class of rights' graph flows.
    pub flows: Vec<GraphFlow>,
    /// The instances they use, oldest first.
    pub instances: Vec<GraphInstance>,
    /// The same as Graphviz DOT.
    pub dot: String,
}

/// A filter instance's MBuf, mapped read-only: what the filter keeps (a
/// counter, FPL's `MEM[]`) read while it runs.
#[derive(Debug)]
pub struct MbufView {
    map: crate::shm::RoMapping,
    size: usize,
    instance: u64,
}

impl MbufView {
    /// Its size in bytes, as the element asked.
    pub fn len(&self) -> usize {
        self.size
    }

    /// Whether it is empty (never: elements without MBuf have none to map).
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// The instance it belongs to.
    pub fn instance(&self) -> u64 {
        self.instance
    }

    /// The native-endian `u64` at `off` (8-aligned, inside the MBuf), as
    /// `packetcount` and `bytecount` keep their counts at 0.
    pub fn u64(&self, off: usize) -> Option<u64> {
        (off.is_multiple_of(8) && off.checked_add(8)? <= self.size).then(|| self.map.load_u64(off))
    }

    /// The native-endian `u32` at `off` (4-aligned, inside the MBuf), as
    /// `sampler` keeps its counter at 0.
    pub fn u32(&self, off: usize) -> Option<u32> {
        (off.is_multiple_of(4) && off.checked_add(4)? <= self.size).then(|| self.map.load_u32(off))
    }

    /// A copy of the whole MBuf (each 64-bit word loaded once; words written
    /// meanwhile may be of different moments).
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.size + 8);
        let _ = self.map.copy_words(0, self.size, &mut out);
        out.truncate(self.size);
        out
    }
}

/// The daemon's socket a client uses: `given` (a `--socket` flag), else
/// `NETSIFT_SOCKET`, else [`proto::DEFAULT_SOCKET`]. Every client (`netsift
/// flow`, the drop-in libpcap, the extcap program) resolves it this way.
pub fn socket_path(given: Option<&Path>) -> PathBuf {
    given
        .map(Path::to_path_buf)
        .or_else(|| {
            std::env::var_os("NETSIFT_SOCKET")
                .filter(|s| !s.is_empty())
                .map(PathBuf::from)
        })
        .unwrap_or_else(|| PathBuf::from(proto::DEFAULT_SOCKET))
}

impl Client {
    /// Connects to the daemon's socket at `path` and says `hello`.
    pub fn connect(path: impl AsRef<Path>) -> Result<Client, Error> {
        let sock = crate::seqpacket::connect(path.as_ref())?;
        let conn = Arc::new(Mutex::new(Conn {
            sock,
            next_id: 1,
            buf: Vec::new(),
        }));
        let req = Request::Hello {
            version: proto::VERSION,
        };
        let (body, _) = lock(&conn).call(&req)?;
        let ReplyBody::Hello { software, .. } = body else {
            return Err(unexpected("hello", &body));
        };
        Ok(Client { conn, software })
    }

    /// The daemon's name and version, as it said in `hello`.
    pub fn software(&self) -> &str {
        &self.software
    }

    /// The sources the daemon owns.
    pub fn sources(&self) -> Result<Vec<SourceInfo>, Error> {
        match lock(&self.conn).call(&Request::Sources)?.0 {
            ReplyBody::Sources { sources } => Ok(sources),
            b => Err(unexpected("sources", &b)),
        }
    }

    /// The daemon's figures.
    pub fn daemon_stats(&self) -> Result<DaemonStats, Error> {
        match lock(&self.conn).call(&Request::DaemonStats)?.0 {
            ReplyBody::DaemonStats(s) => Ok(s),
            b => Err(unexpected("daemon_stats", &b)),
        }
    }

    /// The running filter graph of `source`, as far as this client's rights
    /// see it.
    pub fn graph(&self, source: &str) -> Result<GraphView, Error> {
        let req = Request::Graph {
            source: source.into(),
        };
        match lock(&self.conn).call(&req)?.0 {
            ReplyBody::Graph {
                flows,
                instances,
                dot,
                ..
            } => Ok(GraphView {
                flows,
                instances,
                dot,
            }),
            b => Err(unexpected("graph", &b)),
        }
    }

    /// `flow_create` + `flow_populate`: a flow whose filter compiled for its
    /// source; not yet instantiated.
    pub fn create(&self, spec: &FlowSpec) -> Result<Flow, Error> {
        let req = Request::Create {
            source: spec.source.clone(),
            filter: spec.filter.clone(),
            snaplen: spec.snaplen,
            ibuf_entries: spec.ibuf_entries,
            direction: spec.direction,
            graph: spec.graph.clone(),
            element: spec.element,
            instance: spec.instance,
        };
        match lock(&self.conn).call(&req)?.0 {
            ReplyBody::Created {
                flow,
                linktype,
                snaplen,
            } => Ok(Flow {
                conn: Arc::clone(&self.conn),
                no: flow,
                linktype,
                snaplen,
                state: Some(FlowState::Created),
                reader: None,
            }),
            b => Err(unexpected("create", &b)),
        }
    }

    /// Sends `bytes` as they are (a request, or anything) and returns the
    /// reply whatever its id: for tests and diagnostics of the protocol.
    pub fn send_raw(&self, bytes: &[u8]) -> Result<Reply, Error> {
        Ok(lock(&self.conn).exchange(None, bytes)?.0)
    }
}

/// A flow: made by [`Client::create`], closed by [`Flow::close`] or on drop.
#[derive(Debug)]
pub struct Flow {
    conn: Arc<Mutex<Conn>>,
    no: FlowNo,
    linktype: u32,
    snaplen: u32,
    state: Option<FlowState>,
    reader: Option<FlowReader>,
}

impl Flow {
    /// Its number at the daemon.
    pub fn number(&self) -> FlowNo {
        self.no
    }

    /// The link type of its packets (a LINKTYPE_ number).
    pub fn linktype(&self) -> u32 {
        self.linktype
    }

    /// The most bytes of each packet its reader hands out (see the module
    /// docs).
    pub fn snaplen(&self) -> u32 {
        self.snaplen
    }

    /// Its state, as the daemon last said (`None`: closed).
    pub fn state(&self) -> Option<FlowState> {
        self.state
    }

    fn done(&mut self, verb: &str, req: Request) -> Result<(), Error> {
        match lock(&self.conn).call(&req)?.0 {
            ReplyBody::Done { state, .. } => {
                self.state = state;
                Ok(())
            }
            b => Err(unexpected(verb, &b)),
        }
    }

    /// `flow_instantiate`: the daemon authorises the flow and builds its
    /// buffers; they are mapped here, checked, and read through
    /// [`Flow::reader`].
    pub fn instantiate(&mut self) -> Result<(), Error> {
        let (body, fds) = lock(&self.conn).call(&Request::Instantiate { flow: self.no })?;
        let ReplyBody::Instantiated { .. } = body else {
            return Err(unexpected("instantiate", &body));
        };
        let [pbuf, ibuf, control, wake]: [OwnedFd; 4] = fds.try_into().map_err(|v: Vec<_>| {
            Error::protocol(format!(
                "`instantiate` came with {} descriptors, not 4",
                v.len()
            ))
        })?;
        let mut reader = FlowReader::from_fds(pbuf, ibuf, control, wake)?;
        reader.set_snaplen(self.snaplen);
        self.reader = Some(reader);
        self.state = Some(FlowState::Instantiated);
        Ok(())
    }

    /// `flow_activate`: packets start to arrive.
    pub fn activate(&mut self) -> Result<(), Error> {
        self.done("activate", Request::Activate { flow: self.no })
    }

    /// `flow_pause`: packets stop arriving; what is in the buffers stays.
    pub fn pause(&mut self) -> Result<(), Error> {
        self.done("pause", Request::Pause { flow: self.no })
    }

    /// Replaces the flow's filter expression; an expression that does not
    /// compile is refused and the old one stays.
    pub fn set_filter(&mut self, filter: &str) -> Result<(), Error> {
        self.done(
            "set_filter",
            Request::SetFilter {
                flow: self.no,
                filter: filter.into(),
            },
        )
    }

    /// Takes only the packets of `direction` from now on (tcpdump's `-Q`,
    /// which libpcap applies after the handle is activated).
    pub fn set_direction(&mut self, direction: Direction) -> Result<(), Error> {
        self.done(
            "set_direction",
            Request::SetDirection {
                flow: self.no,
                direction,
            },
        )
    }

    /// The flow's accounting, as the daemon keeps it.
    pub fn stats(&self) -> Result<FlowStats, Error> {
        match lock(&self.conn)
            .call(&Request::FlowStats { flow: self.no })?
            .0
        {
            ReplyBody::FlowStats(s) => Ok(s),
            b => Err(unexpected("flow_stats", &b)),
        }
    }

    /// The MBuf of the instance that element `element` (0-based, in written
    /// order) of this graph flow runs as, mapped read-only (after
    /// [`Flow::instantiate`]).
    pub fn mbuf(&self, element: u32) -> Result<MbufView, Error> {
        let req = Request::Mbuf {
            flow: self.no,
            element,
        };
        let (body, fds) = lock(&self.conn).call(&req)?;
        let ReplyBody::Mbuf { size, instance, .. } = body else {
            return Err(unexpected("mbuf", &body));
        };
        let [fd]: [OwnedFd; 1] = fds.try_into().map_err(|v: Vec<_>| {
            Error::protocol(format!("`mbuf` came with {} descriptors, not 1", v.len()))
        })?;
        let size = size as usize;
        // Whole words: the daemon publishes an MBuf a word at a time.
        let map = crate::shm::RoMapping::new(fd.as_fd(), size.div_ceil(8) * 8)?;
        Ok(MbufView {
            map,
            size,
            instance,
        })
    }

    /// The reader of its buffers (after [`Flow::instantiate`]).
    pub fn reader(&mut self) -> Result<&mut FlowReader, Error> {
        self.reader
            .as_mut()
            .ok_or_else(|| Error::invalid(format!("flow {}: not instantiated", self.no)))
    }

    /// `flow_close`: the daemon removes the flow and frees its buffers (this
    /// side's mappings go with the [`Flow`]).
    pub fn close(mut self) -> Result<(), Error> {
        self.close_now()
    }

    fn close_now(&mut self) -> Result<(), Error> {
        if self.state.is_none() {
            return Ok(());
        }
        self.state = None;
        lock(&self.conn).call(&Request::Close { flow: self.no })?;
        Ok(())
    }
}

impl Drop for Flow {
    fn drop(&mut self) {
        // A daemon that is gone has closed the flow already.
        let _ = self.close_now();
    }
}
