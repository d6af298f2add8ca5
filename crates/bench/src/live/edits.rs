//! The edit experiment: the filter changes every few milliseconds while a known
//! packet stream flows, and every packet is accounted for.
//!
//! The stream is UDP from 10.0.0.2 port 40000, each datagram carrying its sequence
//! number, to destination ports spread over 2000-3999. Filter [`FILTER_A`] takes
//! ports 2000-2999 and [`FILTER_B`] ports 2500-3499, so a quarter of the packets
//! match both, a quarter only A, a quarter only B and a quarter neither (which
//! packet is which is decided by libpcap's own verdicts on the frames, not by this
//! arithmetic). The filter alternates A, B, A, … during the replay. Whatever the
//! timing of an edit, a packet that matches both must be delivered and a packet
//! that matches neither must not:
//!
//! - **lost**: matched both A and B but was not delivered;
//! - **leaked**: matched neither but was delivered.
//!
//! Packets that match only one filter may go either way, depending on which filter
//! was in force when they were filtered. The kernel's drop count of the same ring
//! is reported beside, so a loss from overload is not taken for a loss from an edit.
//!
//! Contenders, each on its own replay of the same stream at the same rate:
//!
//! - netsift: an in-process [`Ring`] on the capturing end, filtered with a live set
//!   ([`netsift_engine::live`]); another thread edits the set through the
//!   [`Writer`](netsift_engine::live::Writer): it adds the next filter's clause,
//!   then deletes the current one. Each step is published atomically, so a packet
//!   sees A, A or B, or B: never neither.
//! - libpcap: a live `pcap_t` on the same end, `pcap_setfilter` with the other
//!   precompiled program between `pcap_dispatch` calls at the same period.
//!
//! The replay makes an edit every few milliseconds, so a window of a few
//! nanoseconds around an edit is rarely hit. [`stress`] looks for one directly:
//! the same two filters swapped back to back, as fast as the writer can, while
//! another thread filters one packet of each class over and over, in memory.

use super::netns::{self, Netns};
use super::replay::{tcpreplay, Rate, Sent};
use super::Stop;
use crate::gen::packet::{udp_frame, Host, IpFields};
use crate::gen::trace::TRACE_START_NS;
use crate::GenPacket;
use netsift_capture::{Config, Ring};
use netsift_engine::Scratch;
use netsift_kernel::codegen::Env;
use netsift_kernel::placed::PlacedClauses;
use netsift_oracle::live::Live;
use netsift_wire::LinkType;
use std::net::Ipv4Addr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// The first filter.
pub const FILTER_A: &str = "udp dst portrange 2000-2999";
/// The second filter: overlaps half of A.
pub const FILTER_B: &str = "udp dst portrange 2500-3499";
/// The stream's source port, which marks its packets.
const SPORT: u16 = 40_000;
/// Where the sequence number sits: after Ethernet, IPv4 and UDP headers.
const SEQ_AT: usize = 14 + 20 + 8;

/// The stream and which filter accepts which packet.
pub struct Stream {
    /// The datagrams in sequence-number order, ready to write to a pcap.
    pub packets: Vec<GenPacket>,
    /// Per sequence number: accepted by A, by B.
    pub in_a: Vec<bool>,
    /// Per sequence number: accepted by B (libpcap's verdict of [`FILTER_B`]).
    pub in_b: Vec<bool>,
}

impl Stream {
    /// `n` datagrams, sequence numbers 0..n, with libpcap's verdicts of A and B.
    pub fn new(n: usize) -> Result<Stream, String> {
        let src = Host::from_ip(Ipv4Addr::new(10, 0, 0, 2));
        let dst = Host::from_ip(Ipv4Addr::new(10, 0, 0, 1));
        // A stride coprime to 2000, so neighbouring packets fall in different classes.
        let packets: Vec<GenPacket> = (0..n as u32)
            .map(|seq| {
                let port = 2000 + (seq as u64 * 37 % 2000) as u16;
                let ip = IpFields {
                    ident: seq as u16,
                    ttl: 64,
                    dont_frag: false,
                };
                let data = udp_frame(src, dst, SPORT, port, ip, &seq.to_be_bytes());
                GenPacket {
                    ts_ns: TRACE_START_NS + seq as u64 * 1000,
                    orig_len: data.len() as u32,
                    data,
                }
            })
            .collect();
        let verdicts = |expr| -> Result<Vec<bool>, String> {
            let f = netsift_oracle::Filter::compile(LinkType::EN10MB, expr)?;
            Ok(packets
                .iter()
                .map(|p| f.accepts(&p.data, p.orig_len))
                .collect())
        };
        let in_a = verdicts(FILTER_A)?;
        let in_b = verdicts(FILTER_B)?;
        Ok(Stream {
            packets,
            in_a,
            in_b,
        })
    }

    /// Packets that match both filters, and neither.
    pub fn classes(&self) -> (u64, u64) {
        let both = self.in_a.iter().zip(&self.in_b).filter(|(a, b)| **a && **b);
        let neither = self
            .in_a
            .iter()
            .zip(&self.in_b)
            .filter(|(a, b)| !**a && !**b);
        (both.count() as u64, neither.count() as u64)
    }
}

/// The sequence number of one of the stream's frames.
fn seq_of(frame: &[u8]) -> Option<u32> {
    let ours = frame.len() >= SEQ_AT + 4
        && frame[12..14] == [0x08, 0x00]
        && frame[23] == 17
        && frame[26..30] == [10, 0, 0, 2]
        && frame[34..36] == SPORT.to_be_bytes();
    ours.then(|| u32::from_be_bytes([frame[42], frame[43], frame[44], frame[45]]))
}

/// One contender's run.
#[derive(Clone, Debug)]
pub struct EditRun {
    /// The contender's name: `netsift`, `netsift-kernel` or `libpcap`.
    pub contender: &'static str,
    /// What tcpreplay reported sending.
    pub sent: Sent,
    /// Filter changes made during the replay.
    pub edits: u64,
    /// Packets of the stream delivered (once each).
    pub delivered: u64,
    /// Packets matching both filters that were not delivered (must be 0).
    pub lost: u64,
    /// Packets matching neither filter that were delivered (must be 0).
    pub leaked: u64,
    /// Packets delivered more than once (always expected to be 0).
    pub duplicates: u64,
    /// The ring's "dropped by kernel".
    pub dropped: u64,
}

/// Counts lost, leaked and duplicated packets of the delivered sequence numbers.
fn account(s: &Stream, delivered: &[u32]) -> (u64, u64, u64, u64) {
    let mut seen = vec![false; s.in_a.len()];
    let mut dup = 0;
    for &q in delivered {
        match seen.get_mut(q as usize) {
            Some(true) => dup += 1,
            Some(x) => *x = true,
            None => {}
        }
    }
    let (mut lost, mut leaked, mut got) = (0, 0, 0);
    for ((&a, &b), &d) in s.in_a.iter().zip(&s.in_b).zip(&seen) {
        got += d as u64;
        lost += (a && b && !d) as u64;
        leaked += (!a && !b && d) as u64;
    }
    (got, lost, leaked, dup)
}

impl EditRun {
    /// The run's figures from the sequence numbers it delivered.
    fn new(
        contender: &'static str,
        stream: &Stream,
        seqs: &[u32],
        sent: Sent,
        edits: u64,
        dropped: u64,
    ) -> EditRun {
        let (delivered, lost, leaked, duplicates) = account(stream, seqs);
        EditRun {
            contender,
            sent,
            edits,
            delivered,
            lost,
            leaked,
            duplicates,
            dropped,
        }
    }
}

/// What [`stress`] counted.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stress {
    /// Filter changes made, back to back, while packets were filtered.
    pub edits: u64,
    /// Packets filtered (half match both filters, half neither).
    pub evaluations: u64,
    /// Packets matching both that were rejected.
    pub lost: u64,
    /// Packets matching neither that were accepted.
    pub leaked: u64,
}

/// Swaps A and B in a live set (add the new clause, delete the old) back to back
/// for `time`, while another thread filters a packet that matches both and one
/// that matches neither.
pub fn stress(stream: &Stream, time: Duration) -> Result<Stress, String> {
    let pick = |both: bool| {
        let i = (0..stream.in_a.len())
            .find(|&i| stream.in_a[i] == both && stream.in_b[i] == both)
            .ok_or("the stream lacks a packet of each class")?;
        Ok::<_, String>(stream.packets[i].data.clone())
    };
    let (both, neither) = (pick(true)?, pick(false)?);
    let compile =
        |e| netsift_pcapc::compile(e, LinkType::EN10MB).map_err(|err| format!("{e:?}: {err}"));
    let sets = [compile(FILTER_A)?, compile(FILTER_B)?];
    let (mut writer, reader) = netsift_engine::live::new();
    let mut current = writer.add_clause(&sets[0]).map_err(|e| e.to_string())?;
    let done = Arc::new(AtomicBool::new(false));
    let filtering = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut scratch = Scratch::new();
            let mut out = Stress::default();
            while !done.load(Ordering::Relaxed) {
                // A session per 64 packets, as the capture loop pins one per block.
                let view = reader.session();
                for _ in 0..32 {
                    out.lost += !view.matches(&mut scratch, &both, both.len() as u32) as u64;
                    out.leaked += view.matches(&mut scratch, &neither, neither.len() as u32) as u64;
                }
                out.evaluations += 64;
            }
            out
        })
    };
    let end = Instant::now() + time;
    let mut edits = 0u64;
    let result = (|| {
        while Instant::now() < end {
            let added = writer
                .add_clause(&sets[(edits as usize + 1) % 2])
                .map_err(|e| e.to_string())?;
            writer.del_clause(&current).map_err(|e| e.to_string())?;
            current = added;
            edits += 1;
        }
        Ok::<_, String>(())
    })();
    done.store(true, Ordering::Relaxed);
    let mut out = filtering
        .join()
        .map_err(|_| "the filtering thread panicked")?;
    result?;
    out.edits = edits;
    Ok(out)
}

/// What both runs share.
pub struct Setup<'a> {
    /// The namespaces and veth pair the stream is replayed over.
    pub net: &'a Netns,
    /// The edit stream's pcap, as tcpreplay plays it.
    pub trace: &'a Path,
    /// The same stream in memory, with the filters' verdicts to account against.
    pub stream: &'a Stream,
    /// The replay rate.
    pub rate: Rate,
    /// Time between two filter changes.
    pub period: Duration,
    /// Ring size in bytes, the same for both.
    pub buffer: usize,
    /// Set by a signal; the replay and the capture threads watch it to stop early.
    pub stop: &'a Stop,
}

/// How long captures keep reading after the replay ends.
const DRAIN: Duration = Duration::from_millis(300);

/// Waits for the capture thread to say it is listening.
fn wait_ready(rx: &mpsc::Receiver<()>) -> Result<(), String> {
    rx.recv_timeout(Duration::from_secs(10))
        .map_err(|_| "the capture thread did not start".to_string())
}

/// netsift: a ring filtered by a live set, edited from another thread.
pub fn netsift(s: &Setup<'_>) -> Result<EditRun, String> {
    run_netsift(s, false)
}

/// netsift with the clauses in the kernel too (`--control --place kernel`): an
/// eBPF program of the clauses under the ring drops what none of them accepts.
/// An edit is ordered so the kernel always accepts a superset of the live set:
/// the added clause's program is generated and swapped in (`SO_ATTACH_BPF`)
/// before user space publishes it, and the removed clause is switched off in the
/// kernel (one map write) after user space has dropped it.
pub fn netsift_kernel(s: &Setup<'_>) -> Result<EditRun, String> {
    run_netsift(s, true)
}

fn run_netsift(s: &Setup<'_>, in_kernel: bool) -> Result<EditRun, String> {
    let compile =
        |e| netsift_pcapc::compile(e, LinkType::EN10MB).map_err(|err| format!("{e:?}: {err}"));
    let sets = [compile(FILTER_A)?, compile(FILTER_B)?];
    let (mut writer, reader) = netsift_engine::live::new();
    let mut current = writer.add_clause(&sets[0]).map_err(|e| e.to_string())?;
    let (sock_tx, sock_rx) = mpsc::channel();
    let replaying = Arc::new(AtomicBool::new(true));
    let capturing = Arc::new(AtomicBool::new(true));
    let (ready_tx, ready_rx) = mpsc::channel();
    let mut cfg = Config::new(&s.net.veth_b);
    cfg.buffer_size = s.buffer;
    let cap = {
        let capturing = capturing.clone();
        let stop = s.stop.clone();
        netns::spawn_in(&s.net.b, move || {
            let mut ring = Ring::open(&cfg).map_err(|e| e.to_string())?;
            if in_kernel {
                let sock = std::os::fd::AsFd::as_fd(&ring)
                    .try_clone_to_owned()
                    .map_err(|e| e.to_string())?;
                let _ = sock_tx.send(sock);
            }
            let _ = ready_tx.send(());
            let mut scratch = Scratch::new();
            let mut seqs = Vec::new();
            loop {
                let block = ring
                    .next_block(Duration::from_millis(10))
                    .map_err(|e| e.to_string())?;
                let Some(block) = block else {
                    if !capturing.load(Ordering::Acquire) || stop.is_set() {
                        break;
                    }
                    continue;
                };
                // One pinned view per block: each packet sees every clause either
                // before or after any edit running beside it.
                let view = reader.session();
                for f in block.frames() {
                    if view.matches(&mut scratch, f.data, f.wire_len) {
                        seqs.extend(seq_of(f.data));
                    }
                }
            }
            Ok((seqs, ring.stats().map_err(|e| e.to_string())?.dropped))
        })
    };
    wait_ready(&ready_rx)?;
    let mut kernel = if in_kernel {
        let sock = sock_rx
            .recv_timeout(Duration::from_secs(10))
            .map_err(|_| "the capture thread did not hand its socket over".to_string())?;
        let mut k = PlacedClauses::new(vec![sock], Env::socket(65_535));
        k.install(&[(0, &sets[0], false)])
            .map_err(|e| e.to_string())?;
        Some(k)
    } else {
        None
    };
    let editor = {
        let replaying = replaying.clone();
        let period = s.period;
        std::thread::spawn(move || -> Result<u64, String> {
            let mut edits = 0u64;
            let mut next = Instant::now() + period;
            while replaying.load(Ordering::Acquire) {
                std::thread::sleep(next.saturating_duration_since(Instant::now()));
                next += period;
                // The new filter first, then the old one goes: at every instant the
                // set holds A, A or B, or B. The kernel widens before user space
                // and narrows after it.
                let (old, new) = (edits as usize % 2, (edits as usize + 1) % 2);
                if let Some(k) = &mut kernel {
                    k.install(&[(old, &sets[old], false), (new, &sets[new], false)])
                        .map_err(|e| e.to_string())?;
                }
                let added = writer.add_clause(&sets[new]).map_err(|e| e.to_string())?;
                writer.del_clause(&current).map_err(|e| e.to_string())?;
                if let Some(k) = &kernel {
                    k.disable(old).map_err(|e| e.to_string())?;
                }
                current = added;
                edits += 1;
            }
            Ok(edits)
        })
    };
    let sent = tcpreplay(s.net, s.trace, (s.rate, 1), s.stop);
    replaying.store(false, Ordering::Release);
    let edits = editor.join().map_err(|_| "the editor panicked")?;
    std::thread::sleep(DRAIN);
    capturing.store(false, Ordering::Release);
    let (seqs, dropped) = cap.join().map_err(|_| "the capture thread panicked")??;
    let (sent, edits) = (sent?, edits?);
    let name = if in_kernel {
        "netsift-kernel"
    } else {
        "netsift"
    };
    Ok(EditRun::new(name, s.stream, &seqs, sent, edits, dropped))
}

/// libpcap: `pcap_setfilter` between `pcap_dispatch` calls, on the capture thread.
pub fn libpcap(s: &Setup<'_>) -> Result<EditRun, String> {
    let replaying = Arc::new(AtomicBool::new(true));
    let capturing = Arc::new(AtomicBool::new(true));
    let (ready_tx, ready_rx) = mpsc::channel();
    let cap = {
        let (replaying, capturing) = (replaying.clone(), capturing.clone());
        let (dev, buffer, period, stop) =
            (s.net.veth_b.clone(), s.buffer, s.period, s.stop.clone());
        netns::spawn_in(&s.net.b, move || {
            // The same 10 ms block timeout as netsift's ring.
            let mut p = Live::open(&dev, buffer, 10)?;
            let progs = [p.compile(FILTER_A)?, p.compile(FILTER_B)?];
            p.set_filter(progs[0])?;
            let _ = ready_tx.send(());
            let mut seqs = Vec::new();
            let mut edits = 0u64;
            let mut next = Instant::now() + period;
            loop {
                // A few packets per call, so that edits keep to the period: a whole
                // ring block (-1) holds several milliseconds of packets.
                let n = p.dispatch(64, &mut |d: &[u8]| seqs.extend(seq_of(d)))?;
                if n == 0 {
                    p.wait(10);
                }
                if replaying.load(Ordering::Acquire) {
                    if Instant::now() >= next {
                        next += period;
                        p.set_filter(progs[(edits as usize + 1) % 2])?;
                        edits += 1;
                    }
                } else if n == 0 && !capturing.load(Ordering::Acquire) || stop.is_set() {
                    break;
                }
            }
            Ok((seqs, edits, p.dropped()?))
        })
    };
    wait_ready(&ready_rx)?;
    let sent = tcpreplay(s.net, s.trace, (s.rate, 1), s.stop);
    replaying.store(false, Ordering::Release);
    std::thread::sleep(DRAIN);
    capturing.store(false, Ordering::Release);
    let (seqs, edits, dropped) = cap.join().map_err(|_| "the capture thread panicked")??;
    let sent = sent?;
    Ok(EditRun::new(
        "libpcap", s.stream, &seqs, sent, edits, dropped,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stream_has_four_classes_and_its_numbers_read_back() {
        let s = Stream::new(4000).unwrap();
        let (both, neither) = s.classes();
        assert_eq!((both, neither), (1000, 1000));
        let only_a = s.in_a.iter().zip(&s.in_b).filter(|(a, b)| **a && !**b);
        assert_eq!(only_a.count(), 1000);
        for (i, p) in s.packets.iter().enumerate().step_by(97) {
            assert_eq!(seq_of(&p.data), Some(i as u32));
        }
        // Everything delivered: nothing lost, every "neither" leaked, no duplicate.
        let all: Vec<u32> = (0..4000).collect();
        assert_eq!(account(&s, &all), (4000, 0, 1000, 0));
        // Nothing delivered: every "both" lost.
        assert_eq!(
            account(&s, &[7, 7]),
            (
                1,
                1000 - s.in_a[7] as u64 * s.in_b[7] as u64,
                !(s.in_a[7] || s.in_b[7]) as u64,
                1
            )
        );
    }
}
