//! Prefix merging, modelled in process: six flows, each a pcap prefix (`tcp
//! port 80`, netsift's compiler and engine) followed by an FPL filter of its
//! own, over the static trace with whole frames.
//!
//! - *independent*: every flow runs its prefix and, where that accepts, its
//!   FPL filter: six prefix runs and up to six FPL runs a packet;
//! - *shared*: the prefix runs once a packet and its verdict is fanned out to
//!   the six FPL filters, which is what the daemon's prefix merging does for
//!   graphs that share `(pcap,"tcp port 80")`;
//! - *one flow*: one prefix and one FPL filter, the yardstick of the issue's
//!   target (six flows with a common prefix at most 1.5 times one flow).
//!
//! This is the in-process model of the mechanism, not the daemon: no graph is
//! instantiated, no buffer is written. Every flow's accept count must be the
//! same in both arrangements before anything is timed.

use super::rounds::{alternate, Sample};
use super::GraphsConfig;
use crate::gen::trace::{trace, TraceConfig};
use crate::stats::Stat;
use netsift_engine::{Compiled, Scratch};
use netsift_fpl::externs::Externs;
use netsift_fpl::{compile, interp, Options, Program, Registers};
use netsift_wire::LinkType;
use std::time::Instant;

/// The prefix every flow starts with.
pub const PREFIX: &str = "tcp port 80";

/// The six flows' FPL filters, after the prefix. `tcp port 80` also takes
/// IPv6 frames, whose fields are not where FPL's IPv4 macros read, so each
/// filter first checks the EtherType, as a pcap filter would.
pub const FLOWS: [&str; 6] = [
    "RETURN (PKT.TCP_FLAGS & TH_SYN) != 0;",
    "RETURN (PKT.TCP_FLAGS & TH_FIN) != 0;",
    "RETURN PKT.IP_LEN > 1000;",
    "RETURN PKT.TCP_DPORT == 80;",
    "RETURN PKT.IP_TTL < 64;",
    // Figure 6's counter.
    "R[0] = HASH(26, 12, 256); MEM[R[0]]++; RETURN TRUE;",
];

/// A flow's FPL text, its `body` after the EtherType check.
fn source(body: &str) -> String {
    format!("IF (PKT.ETH_TYPE != ETH_P_IP) THEN RETURN FALSE; FI\n{body}")
}

/// ns per packet of each arrangement.
#[derive(Clone, Debug)]
pub struct Prefix {
    /// Six flows, the prefix run once.
    pub shared: Stat,
    /// Six flows, each its own prefix.
    pub independent: Stat,
    /// One flow (the first).
    pub one: Stat,
    /// Packets of the trace.
    pub packets: usize,
    /// Packets the prefix accepts.
    pub prefix_accepts: u64,
    /// Each flow's accepted packets.
    pub accepts: [u64; 6],
}

impl Prefix {
    /// shared / independent, medians.
    pub fn ratio(&self) -> f64 {
        self.shared.median / self.independent.median.max(1e-9)
    }

    /// six shared / one flow, medians.
    pub fn over_one(&self) -> f64 {
        self.shared.median / self.one.median.max(1e-9)
    }
}

/// One flow's FPL filter with its own MBuf and registers.
struct Flow {
    program: Program,
    mbuf: Vec<u8>,
    regs: Registers,
}

impl Flow {
    fn run(&mut self, packet: &[u8]) -> bool {
        interp::run(&self.program, packet, &mut self.mbuf, &mut self.regs).accepts()
    }
}

fn flows() -> Result<Vec<Flow>, String> {
    FLOWS
        .iter()
        .map(|body| {
            let src = source(body);
            let program = compile(&src, &Options::default(), &Externs::new())
                .map_err(|e| format!("{src}: {e}"))?;
            let mbuf = vec![0; program.mbuf_len()];
            Ok(Flow {
                program,
                mbuf,
                regs: [0; 16],
            })
        })
        .collect()
}

/// The packets: captured bytes and length on the wire.
type Trace = [(Vec<u8>, u32)];

/// Runs the flows over `trace` with the prefix shared or not; counts each
/// flow's accepts into `counts`.
fn pass(
    prefix: &Compiled,
    scratch: &mut Scratch,
    flows: &mut [Flow],
    trace: &Trace,
    shared: bool,
    counts: &mut [u64],
) {
    for (p, wire) in trace {
        if shared {
            if prefix.matches(scratch, p, *wire) {
                for (f, c) in flows.iter_mut().zip(counts.iter_mut()) {
                    *c += u64::from(f.run(p));
                }
            }
        } else {
            for (f, c) in flows.iter_mut().zip(counts.iter_mut()) {
                if prefix.matches(scratch, p, *wire) {
                    *c += u64::from(f.run(p));
                }
            }
        }
    }
}

/// Times the three arrangements over the generated trace.
pub fn run(cfg: &GraphsConfig) -> Result<Prefix, String> {
    let tc = TraceConfig {
        packets: cfg.trace_packets,
        snaplen: 1514,
        ..TraceConfig::default()
    };
    let trace: Vec<(Vec<u8>, u32)> = trace(&tc)
        .into_iter()
        .map(|g| (g.data, g.orig_len))
        .collect();
    let set =
        netsift_pcapc::compile(PREFIX, LinkType::EN10MB).map_err(|e| format!("{PREFIX}: {e}"))?;
    let prefix = Compiled::new(set);
    let mut scratch = Scratch::new();
    let prefix_accepts = trace
        .iter()
        .filter(|(p, w)| prefix.matches(&mut scratch, p, *w))
        .count() as u64;
    let (mut a, mut b) = ([0u64; 6], [0u64; 6]);
    pass(&prefix, &mut scratch, &mut flows()?, &trace, true, &mut a);
    pass(&prefix, &mut scratch, &mut flows()?, &trace, false, &mut b);
    if a != b {
        return Err(format!(
            "shared and independent flows disagree: {a:?} against {b:?}"
        ));
    }
    let per_packet = trace.len().max(1) as f64;
    let arrangement = |n: usize, shared: bool| -> Result<Sample<'_>, String> {
        let mut flows = flows()?;
        flows.truncate(n);
        let (prefix, trace) = (&prefix, &trace);
        let mut scratch = Scratch::new();
        let mut counts = vec![0u64; n];
        Ok(Box::new(move || {
            let t = Instant::now();
            pass(prefix, &mut scratch, &mut flows, trace, shared, &mut counts);
            Ok(t.elapsed().as_nanos() as f64 / per_packet)
        }))
    };
    let mut cs = vec![
        arrangement(6, true)?,
        arrangement(6, false)?,
        arrangement(1, true)?,
    ];
    let s = alternate(cfg.runs, &mut cs)?;
    Ok(Prefix {
        shared: s[0],
        independent: s[1],
        one: s[2],
        packets: trace.len(),
        prefix_accepts,
        accepts: a,
    })
}
