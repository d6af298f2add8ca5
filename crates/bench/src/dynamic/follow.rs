//! An announcement's two halves, timed apart: real FTP `227` replies go through
//! [`Follower::judge`] on tracked control connections, while another thread filters
//! with the follower's live set.
//!
//! * **Edit**: the live set's change for the announced listener through the update
//!   API (two `add_param`s in pass mode, a table insert with SET), publish
//!   included: what the seeds' Table 2 times. The tracker's edit clock
//!   ([`Follower::time_edits`]) measures it inside the call.
//! * **Bookkeeping**: the rest of the same `judge` call: the base filter's verdict,
//!   the control connection's tracking, the parse, conntrack's rules, the
//!   expectation table and its caps, and the endpoint's reference count.
//!
//! The state holds `c` data connections: `c` tracked control connections, each with
//! one flow (announced, then opened by its client), spread over ten servers as in
//! [`super::latency_series`]. A timed announcement names a port no flow uses, on
//! control connection `r mod c`; an untimed one on the same connection then names
//! that connection's own flow listener, which replaces the timed expectation
//! (conntrack's one unused expectation per FTP control connection) and takes it
//! out of the live set. So every timed call makes exactly one listener edit, and
//! the next timed call on that connection only drops a reference.

use super::contender::FilterSide;
use super::{percentile, with_filtering};
use netsift_follow::{Config, Follower, Mode, Protocol};
use netsift_testkit::frames::Frame;
use netsift_wire::LinkType;
use std::net::Ipv4Addr;
use std::time::Instant;

const SYN: u8 = 0x02;
const SYN_ACK: u8 = 0x12;
const PSH_ACK: u8 = 0x18;
const CLIENT_PORT: u16 = 50_000;

/// One point of a two-halves series.
#[derive(Clone, Copy, Debug)]
pub struct FollowPoint {
    /// Data connections (flows) the follower holds.
    pub connections: usize,
    /// The live-set edit, ns.
    pub edit_p50_ns: f64,
    /// The live-set edit, 99th percentile, ns.
    pub edit_p99_ns: f64,
    /// The follower's bookkeeping around it (the rest of `judge`), ns.
    pub bookkeeping_p50_ns: f64,
    /// The bookkeeping, 99th percentile, ns.
    pub bookkeeping_p99_ns: f64,
    /// Tracker edits per timed announcement (2 in pass mode, 1 with SET).
    pub edits_per_announcement: f64,
}

/// Server and client of control connection `k`, and its flow's listener port.
fn conn(k: usize) -> (Ipv4Addr, Ipv4Addr, u16) {
    let server = Ipv4Addr::from(0x0a01_0001 + (k % 10) as u32);
    let client = Ipv4Addr::from(0x0a02_0001 + k as u32);
    (server, client, 1024 + (k / 10) as u16)
}

fn tcp(src: Ipv4Addr, sport: u16, dst: Ipv4Addr, dport: u16, flags: u8, payload: &[u8]) -> Vec<u8> {
    Frame::ethernet([0; 6], [0; 6])
        .ipv4(src, dst)
        .tcp(sport, dport, flags)
        .payload(payload)
        .build()
}

/// The server's `227` reply on control connection `k` announcing `port`.
fn reply_227(k: usize, port: u16) -> Vec<u8> {
    let (server, client, _) = conn(k);
    let [a, b, c, d] = server.octets();
    let text = format!(
        "227 Entering Passive Mode ({a},{b},{c},{d},{},{})\r\n",
        port >> 8,
        port & 0xff
    );
    tcp(server, 21, client, CLIENT_PORT, PSH_ACK, text.as_bytes())
}

/// A follower judging packets in packet time, one microsecond apart.
struct Driver {
    follower: Follower,
    ts: u64,
}

impl Driver {
    fn judge(&mut self, frame: &[u8]) -> Result<(), String> {
        self.ts += 1_000;
        let (_, edits) = self.follower.judge(frame, frame.len() as u32, self.ts);
        edits.map_err(|e| e.to_string())
    }

    fn edits(&self) -> u64 {
        self.follower.stats().tracker.edits
    }

    /// Control connection `k`, tracked, with one flow to its listener.
    fn connect(&mut self, k: usize) -> Result<(), String> {
        let (server, client, port) = conn(k);
        self.judge(&tcp(client, CLIENT_PORT, server, 21, SYN, b""))?;
        self.judge(&tcp(server, 21, client, CLIENT_PORT, SYN_ACK, b""))?;
        self.judge(&reply_227(k, port))?;
        self.judge(&tcp(client, 40_000, server, port, SYN, b""))
    }
}

/// The two halves at each connection count in `counts` (ascending), `reps` timed
/// announcements each after as many untimed ones, in `mode`, with a thread
/// filtering `packets` through the follower's live set the whole time.
pub fn follow_series(
    mode: Mode,
    counts: &[usize],
    reps: usize,
    packets: &[(Vec<u8>, u32)],
) -> Result<Vec<FollowPoint>, String> {
    let (mut follower, reader) = Follower::new(
        LinkType::EN10MB,
        &[Protocol::Ftp],
        None,
        mode,
        Config::default(),
    )
    .map_err(|e| e.to_string())?;
    follower.time_edits(true);
    let mut d = Driver { follower, ts: 0 };
    let side = FilterSide::Netsift(reader);
    with_filtering(&side, packets, || {
        let mut points = Vec::new();
        let mut have = 0;
        for &c in counts {
            while have < c {
                d.connect(have)?;
                have += 1;
            }
            if d.follower.state_sizes()[1] != c {
                return Err(format!(
                    "the follower holds {} flows, not {c}",
                    d.follower.state_sizes()[1]
                ));
            }
            let mut edit = Vec::with_capacity(reps);
            let mut book = Vec::with_capacity(reps);
            let mut edits = 0;
            // The first pass warms the caches and the live set's spares up.
            for timed in [false, true] {
                for r in 0..reps {
                    let k = r % c;
                    let announce = reply_227(k, 65_535 - (r % 400) as u16);
                    let undo = reply_227(k, conn(k).2);
                    let (clock, count) = (d.follower.tracker().edit_time(), d.edits());
                    let start = Instant::now();
                    d.judge(&announce)?;
                    let total = start.elapsed();
                    let e = d.follower.tracker().edit_time() - clock;
                    if timed {
                        edit.push(e.as_nanos() as f64);
                        book.push(total.saturating_sub(e).as_nanos() as f64);
                        edits += d.edits() - count;
                    }
                    d.judge(&undo)?;
                }
            }
            edit.sort_by(f64::total_cmp);
            book.sort_by(f64::total_cmp);
            points.push(FollowPoint {
                connections: c,
                edit_p50_ns: percentile(&edit, 50.0),
                edit_p99_ns: percentile(&edit, 99.0),
                bookkeeping_p50_ns: percentile(&book, 50.0),
                bookkeeping_p99_ns: percentile(&book, 99.0),
                edits_per_announcement: edits as f64 / reps.max(1) as f64,
            });
        }
        Ok(points)
    })
}
