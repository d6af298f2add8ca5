//! `netsift-bench kernel`: netsift's filters as generated eBPF in the kernel,
//! beside libpcap's classic programs in the kernel and netsift's user-space batch
//! engine (docs/BENCHMARKS.md, `kernel`).
//!
//! Per-packet cost, on the six static filters of the Swift paper over the static
//! trace: both kernel programs are loaded as `SCHED_CLS` and run by
//! `BPF_PROG_TEST_RUN` (whose test runs start at the MAC header, as classic loads
//! expect), each packet `repeat` times, the kernel timing the runs itself (no
//! system call in the figure). The two run side by side, packet by packet (which
//! goes first turns), so that the shared machine's drifts fall on both alike: the
//! ratio reported is the median of the runs' paired ratios. libpcap's program is `pcap_compile -O`'s, translated
//! to eBPF one instruction for one as the kernel's `bpf_convert_filter` does
//! (`netsift_kernel::classic`, checked against libpcap on the corpus by
//! `conformance/tests/kernel.rs`). The batch engine filters the same packets in
//! memory. Before anything is timed, every packet's verdict from both kernel
//! programs is compared with libpcap's (netsift's `UNSURE` answers, which user space
//! would decide, are counted, not compared).
//!
//! The XDP level runs the same filter as an XDP program (`--place xdp`): its figure
//! is the filter and, for an accepted packet, the copy into the ring buffer
//! (drained between packets, untimed), the whole of what it costs per received
//! frame. A repeated XDP test run switches the kernel's XDP dispatcher to the
//! program and back, a `synchronize_rcu` each (milliseconds), so XDP runs once per
//! test run; the kernel's clock reads around one run then weigh more, so the socket
//! program is also timed once per test run (`ebpf_once`), the figure to set the XDP
//! one against.
//!
//! Update cost: inserting (then deleting) a fresh key in a SET's hash map holding 1
//! or 100,000 keys, swapping a loaded program onto a socket (`SO_ATTACH_BPF`), and
//! beside them libpcap's `pcap_setfilter` on a live handle.
//!
//! Updates without a system call ([`mapped`]): an insert into a SET table in
//! memory shared with the kernel (`netsift_kernel::table`) holding 1 to 100,000
//! keys, beside one `bpf(2)` map write in the same run; and the per-packet cost
//! of the shared table's probe over the hash map lookup it replaces, paired.
//!
//! Last, what the kernel's following is for ([`ftp`]): Swift's FTP capture
//! experiment live over a veth pair, data packets missed per data connection at
//! several FTP rates beside 500 kpps of background, for `netsift --follow ftp
//! --place kernel` (announcements read by the kernel program), `--place user`,
//! and libpcap recompiling its filter on every announcement; kernel drops beside.
//! It needs CAP_NET_ADMIN and tcpreplay, and is skipped without them (an error
//! under `CI=true`).

pub mod ftp;
pub mod mapped;
pub mod svg;

use crate::gen::trace::{seeds_filters, trace, TraceConfig};
use crate::stats::{percentile, Stat};
use anyhow::{anyhow, bail, Context, Result};
use netsift_engine::{BatchScratch, Compiled};
use netsift_kernel::classic::{translate, Classic};
use netsift_kernel::codegen::{generate, Env, ACCEPT, UNSURE, XDP_STATS};
use netsift_kernel::ringbuf::RingBuf;
use netsift_kernel::sys::{Map, MapKind, ProgKind, Program};
use netsift_wire::LinkType;
use std::time::Instant;

/// What to run.
#[derive(Clone, Debug)]
pub struct KernelConfig {
    /// Packets of the static trace (each test-run `repeat` times).
    pub packets: usize,
    /// Test runs of each packet, timed together by the kernel.
    pub repeat: u32,
    /// Timed passes over the packets; medians are reported.
    pub runs: usize,
    /// Keys in the big map of the update measurement.
    pub big_map: u32,
    /// Updates timed at each map size.
    pub updates: usize,
    /// The live FTP experiment.
    pub ftp: ftp::FtpLiveConfig,
    /// Map sizes (followed connections) of the update curve.
    pub curve: Vec<u32>,
    /// The edit experiment with the clauses in the kernel: stream packets (0:
    /// not run), replayed at this rate, a filter change every `edit_period`.
    pub edit_packets: usize,
    /// Replay rate of the edit experiment's stream, packets per second.
    pub edit_rate: u64,
    /// Time between two filter changes in the edit experiment.
    pub edit_period: std::time::Duration,
}

impl KernelConfig {
    /// `--quick`: well under a minute.
    pub fn quick() -> KernelConfig {
        KernelConfig {
            packets: 2_000,
            repeat: 50,
            runs: 3,
            big_map: 100_000,
            updates: 2_000,
            ftp: ftp::FtpLiveConfig::quick(),
            curve: vec![1, 100, 10_000, 100_000],
            edit_packets: 200_000,
            edit_rate: 200_000,
            edit_period: std::time::Duration::from_millis(2),
        }
    }

    /// The full run.
    pub fn full() -> KernelConfig {
        KernelConfig {
            packets: 20_000,
            repeat: 100,
            runs: 5,
            big_map: 100_000,
            updates: 20_000,
            ftp: ftp::FtpLiveConfig::full(),
            curve: vec![1, 10, 100, 1_000, 10_000, 100_000],
            edit_packets: 1_500_000,
            edit_rate: 200_000,
            edit_period: std::time::Duration::from_millis(2),
        }
    }
}

/// One filter's per-packet figures, ns.
#[derive(Clone, Debug)]
pub struct FilterRow {
    /// 1-6, as in the paper's Table 5.
    pub id: u32,
    /// netsift's eBPF time over libpcap's, per run, measured packet by packet
    /// side by side.
    pub ratio: Stat,
    /// netsift's generated eBPF in the kernel.
    pub ebpf: Stat,
    /// libpcap's classic program in the kernel.
    pub bpf: Stat,
    /// netsift's batch engine in user space.
    pub batch: Stat,
    /// netsift's XDP program: the filter, and the copy of an accepted packet (one
    /// run per test run).
    pub xdp: Stat,
    /// netsift's socket program, one run per test run (the XDP figure's baseline).
    pub ebpf_once: Stat,
    /// eBPF instructions: netsift's, and libpcap's translated program's.
    pub insns: (usize, usize),
    /// Whether netsift's program decides every packet itself.
    pub exact: bool,
    /// Packets netsift's program answered unsure (user space decides them).
    pub unsure: usize,
}

/// Latency percentiles, ns.
#[derive(Clone, Copy, Debug, Default)]
pub struct Latency {
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
}

impl Latency {
    /// The percentiles of some samples.
    fn of(mut ns: Vec<f64>) -> Latency {
        ns.sort_by(f64::total_cmp);
        Latency {
            p50: percentile(&ns, 50.0),
            p99: percentile(&ns, 99.0),
        }
    }
}

/// Everything `kernel` measures.
#[derive(Clone, Debug)]
pub struct KernelReport {
    /// Per filter.
    pub filters: Vec<FilterRow>,
    /// A map insert with one key in the map.
    pub update_at_1: Latency,
    /// A map insert with [`KernelConfig::big_map`] keys in the map.
    pub update_at_big: Latency,
    /// `SO_ATTACH_BPF` of an already loaded program.
    pub swap: Latency,
    /// libpcap's `pcap_setfilter` on a live handle (a drop-all filter, a drain of
    /// the socket, then the new filter), two compiled filters in turn.
    pub setfilter: Latency,
    /// Packets in the trace sample.
    pub packets: usize,
    /// The live FTP experiment.
    pub ftp: ftp::FtpOutcome,
    /// A map insert against the keys already in the map (followed connections).
    pub curve: Vec<(u32, Latency)>,
    /// `add_param` on a program with operand sets in a shared table
    /// (`Env::params`): stores, no system call.
    pub param: Latency,
    /// The edit experiment with the clauses in the kernel (`None`: skipped, with
    /// why).
    pub edits: Result<crate::live::edits::EditRun, String>,
    /// An insert into a shared table against the keys it holds (the curve's
    /// sizes).
    pub mapped_curve: Vec<(u32, Latency)>,
    /// An insert into a shared table holding 1 key.
    pub mapped_at_1: Latency,
    /// An insert into a shared table holding [`KernelConfig::big_map`] keys.
    pub mapped_at_big: Latency,
    /// One `bpf(2)` map write (an array map's word).
    pub syscall: Latency,
    /// Per packet: the shared table's probe, the hash map lookup, and their
    /// ratio, over runs.
    pub probe: (Stat, Stat, Stat),
    /// Keys held in the per-packet comparison.
    pub probe_keys: u32,
}

/// A loaded program for `SCHED_CLS` test runs.
fn load(name: &str, insns: &[netsift_kernel::asm::Insn]) -> Result<Program> {
    Program::load(ProgKind::SchedCls, name, insns).map_err(|e| anyhow!("{e}"))
}

/// Mean kernel-timed ns per run of `a` and of `b` over `pkts`: each packet is
/// test-run `repeat` times by one and then the other (which goes first turns with
/// the packet and with `turn`), so that a drift of the shared machine's speed
/// falls on both alike and their ratio is a paired figure.
fn per_packet_paired(
    a: &Program,
    b: &Program,
    pkts: &[Vec<u8>],
    repeat: u32,
    turn: usize,
) -> Result<(f64, f64)> {
    let (mut ta, mut tb) = (0f64, 0f64);
    let run = |p: &Program, f: &[u8]| -> Result<f64> {
        Ok(f64::from(
            p.test_run(f, repeat)
                .map_err(|e| anyhow!("{e}"))?
                .duration_ns,
        ))
    };
    for (i, f) in pkts.iter().enumerate() {
        if (i + turn).is_multiple_of(2) {
            ta += run(a, f)?;
            tb += run(b, f)?;
        } else {
            tb += run(b, f)?;
            ta += run(a, f)?;
        }
    }
    let n = pkts.len().max(1) as f64;
    Ok((ta / n, tb / n))
}

/// Mean kernel-timed ns per run over `pkts`, `repeat` test runs of one run each, draining the XDP
/// program's ring buffer (untimed) after each packet's runs.
fn per_packet_once(
    p: &Program,
    mut ring: Option<&mut RingBuf>,
    pkts: &[Vec<u8>],
    repeat: u32,
) -> Result<f64> {
    let mut total = 0f64;
    for f in pkts {
        for _ in 0..repeat.max(1) {
            total += f64::from(p.test_run(f, 1).map_err(|e| anyhow!("{e}"))?.duration_ns);
        }
        if let Some(r) = ring.as_deref_mut() {
            r.drain(|_| {});
        }
    }
    Ok(total / (pkts.len() as f64 * f64::from(repeat.max(1))))
}

/// Runs the experiment.
pub fn run(cfg: &KernelConfig) -> Result<KernelReport> {
    let g = trace(&TraceConfig {
        packets: cfg.packets,
        ..TraceConfig::default()
    });
    // A test run refuses an IPv4/IPv6 frame too short for its header; the trace's
    // 75-byte snapshots all hold one, but keep the rule explicit.
    let pkts: Vec<(Vec<u8>, u32)> = g
        .iter()
        .filter(|p| p.data.len() >= 54)
        .map(|p| (p.data.clone(), p.orig_len))
        .collect();
    if pkts.is_empty() {
        bail!("no packets");
    }
    let frames: Vec<Vec<u8>> = pkts.iter().map(|(d, _)| d.clone()).collect();
    let mut filters = Vec::new();
    for (id, expr) in seeds_filters() {
        let set = netsift_pcapc::compile(&expr, LinkType::EN10MB)
            .map_err(|e| anyhow!("filter {id}: {e}"))?;
        let gen = generate(&set, Env::TEST_RUN).map_err(|e| anyhow!("filter {id}: {e}"))?;
        let ours = load("netsift", &gen.insns).with_context(|| format!("filter {id}"))?;
        let lib = netsift_oracle::Filter::compile(LinkType::EN10MB, &expr)
            .map_err(|e| anyhow!("filter {id}: libpcap: {e}"))?;
        let classic: Vec<Classic> = lib
            .insns()
            .iter()
            .map(|i| Classic {
                code: i.code,
                jt: i.jt,
                jf: i.jf,
                k: i.k,
            })
            .collect();
        let theirs_insns = translate(&classic).map_err(|e| anyhow!("filter {id}: {e}"))?;
        let theirs = load("libpcap", &theirs_insns).with_context(|| format!("filter {id}"))?;
        let mut ring = RingBuf::create(4 << 20).map_err(|e| anyhow!("{e}"))?;
        let stats =
            Map::create(MapKind::PerCpuArray, 4, 8, XDP_STATS).map_err(|e| anyhow!("{e}"))?;
        let xgen = generate(&set, Env::xdp(ring.map().fd(), stats.fd(), 262_144))
            .map_err(|e| anyhow!("filter {id}: {e}"))?;
        let xdp = Program::load(ProgKind::Xdp, "netsift", &xgen.insns)
            .map_err(|e| anyhow!("filter {id}: XDP: {e}"))?;
        // Verdicts first: both kernel programs against libpcap on every packet.
        let mut unsure = 0;
        for (k, (d, wire)) in pkts.iter().enumerate() {
            let want = lib.run(d, *wire) != 0;
            let got = ours.test_run(d, 1).map_err(|e| anyhow!("{e}"))?.retval;
            match got {
                UNSURE => unsure += 1,
                ACCEPT | 0 if (got == ACCEPT) == want => {}
                _ => bail!("filter {id}: packet {k}: netsift's kernel program answered {got:#x}, libpcap {want}"),
            }
            let theirs_got = theirs.test_run(d, 1).map_err(|e| anyhow!("{e}"))?.retval != 0;
            if theirs_got != want {
                bail!("filter {id}: packet {k}: the translated libpcap program disagrees with libpcap");
            }
        }
        let compiled = Compiled::new(set);
        let mut scratch = BatchScratch::new();
        let data: Vec<&[u8]> = pkts.iter().map(|(d, _)| d.as_slice()).collect();
        let wire: Vec<u32> = pkts.iter().map(|(_, w)| *w).collect();
        let (mut e, mut b, mut u) = (Vec::new(), Vec::new(), Vec::new());
        let (mut x, mut e1) = (Vec::new(), Vec::new());
        let mut ratios = Vec::new();
        // One run per test run costs a system call each: a tenth of the repeats.
        let once = (cfg.repeat / 10).max(1);
        for run in 0..cfg.runs {
            // The contenders' order turns from run to run, so drifts hit all alike.
            for turn in 0..4 {
                match (run + turn) % 4 {
                    0 => {
                        // The two kernel programs side by side, packet by packet.
                        let (ns_ours, ns_theirs) =
                            per_packet_paired(&ours, &theirs, &frames, cfg.repeat, run)?;
                        e.push(ns_ours);
                        b.push(ns_theirs);
                        ratios.push(ns_ours / ns_theirs.max(1e-9));
                    }
                    1 => x.push(per_packet_once(&xdp, Some(&mut ring), &frames, once)?),
                    2 => e1.push(per_packet_once(&ours, None, &frames, once)?),
                    _ => {
                        let reps = cfg.repeat.max(1);
                        let t = Instant::now();
                        let mut kept = 0u64;
                        for _ in 0..reps {
                            for (d, w) in data.chunks(32).zip(wire.chunks(32)) {
                                kept += u64::from(
                                    compiled.filter_batch(&mut scratch, d, w).count_ones(),
                                );
                            }
                        }
                        std::hint::black_box(kept);
                        u.push(t.elapsed().as_nanos() as f64 / (reps as f64 * data.len() as f64));
                    }
                }
            }
        }
        filters.push(FilterRow {
            id,
            ratio: Stat::of(&ratios).unwrap_or_default(),
            ebpf: Stat::of(&e).unwrap_or_default(),
            bpf: Stat::of(&b).unwrap_or_default(),
            batch: Stat::of(&u).unwrap_or_default(),
            xdp: Stat::of(&x).unwrap_or_default(),
            ebpf_once: Stat::of(&e1).unwrap_or_default(),
            insns: (gen.insns.len(), theirs_insns.len()),
            exact: gen.exact,
            unsure,
        });
    }
    let curve = cfg
        .curve
        .iter()
        .map(|&n| map_updates(n, cfg.updates).map(|l| (n, l)))
        .collect::<Result<Vec<_>>>()?;
    let mapped_curve = cfg
        .curve
        .iter()
        .map(|&n| mapped::updates(n, cfg.updates).map(|l| (n, l)))
        .collect::<Result<Vec<_>>>()?;
    // The no-system-call figures beside the bpf(2) ones, before the live
    // experiments (whose teardown leaves the machine busy for a while).
    let (update_at_1, update_at_big) = (
        map_updates(1, cfg.updates)?,
        map_updates(cfg.big_map, cfg.updates)?,
    );
    let (mapped_at_1, mapped_at_big) = (
        mapped::updates(1, cfg.updates)?,
        mapped::updates(cfg.big_map, cfg.updates)?,
    );
    let syscall = mapped::syscall_updates(cfg.updates)?;
    let probe_keys = 10_000;
    let probes = mapped::probe_over_hash(probe_keys, cfg.packets.min(2_000), cfg.repeat, cfg.runs)?;
    let ratios: Vec<f64> = probes.iter().map(|(m, h)| m / h.max(1e-9)).collect();
    let ms: Vec<f64> = probes.iter().map(|p| p.0).collect();
    let hs: Vec<f64> = probes.iter().map(|p| p.1).collect();
    Ok(KernelReport {
        filters,
        update_at_1,
        update_at_big,
        swap: swaps(cfg.updates)?,
        setfilter: setfilters(cfg.updates.min(2_000))?,
        packets: pkts.len(),
        ftp: ftp::run(&cfg.ftp)?,
        curve,
        param: param_updates(cfg.updates)?,
        edits: kernel_edits(cfg)?,
        mapped_curve,
        mapped_at_1,
        mapped_at_big,
        syscall,
        probe: (
            Stat::of(&ms).unwrap_or_default(),
            Stat::of(&hs).unwrap_or_default(),
            Stat::of(&ratios).unwrap_or_default(),
        ),
        probe_keys,
    })
}

/// `add_param` of a fresh port on `tcp port 80`'s program with operand maps (the
/// value removed again, untimed).
fn param_updates(n: usize) -> Result<Latency> {
    let set =
        netsift_pcapc::compile("tcp port 80", LinkType::EN10MB).map_err(|e| anyhow!("{e}"))?;
    let g = generate(&set, Env::socket(262_144).with_params()).map_err(|e| anyhow!("{e}"))?;
    // A port test: the set's last operand instruction.
    let (pass, insn, _) = set
        .operand_sites()
        .last()
        .ok_or_else(|| anyhow!("tcp port 80 has no operand set"))?;
    let ns: Vec<f64> = (0..n as u32)
        .map(|i| {
            let v = 1000 + i % 60_000;
            let t = Instant::now();
            let r = g.add_param(0, pass, insn, v);
            let d = t.elapsed().as_nanos() as f64;
            r.and_then(|()| g.del_param(0, pass, insn, v)).map(|_| d)
        })
        .collect::<Result<_, _>>()
        .map_err(|e| anyhow!("{e}"))?;
    Ok(Latency::of(ns))
}

/// The live edit experiment with the clauses in the kernel
/// (`live::kernel_edits`); `Err` with why where it cannot run, which under
/// `CI=true` is a failure.
fn kernel_edits(cfg: &KernelConfig) -> Result<Result<crate::live::edits::EditRun, String>> {
    if cfg.edit_packets == 0 {
        return Ok(Err("not asked for".into()));
    }
    let stop = crate::live::Stop::on_signals().map_err(|e| anyhow!("{e}"))?;
    let dir = std::path::Path::new("/dev/shm");
    let dir = if dir.is_dir() {
        dir.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    match crate::live::kernel_edits(
        cfg.edit_packets,
        crate::live::replay::Rate::Pps(cfg.edit_rate),
        cfg.edit_period,
        4096 * 1024,
        &dir,
        &stop,
    ) {
        Ok(r) => Ok(Ok(r)),
        Err(why) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            bail!("the kernel edit experiment cannot run under CI: {why}")
        }
        Err(why) => {
            eprintln!("kernel edit experiment skipped: {why}");
            Ok(Err(why))
        }
    }
}

/// Insert latency of a fresh key into a hash map already holding `held` keys (the
/// key is deleted again, untimed, so the map's size stays put).
fn map_updates(held: u32, n: usize) -> Result<Latency> {
    let map = Map::create(MapKind::Hash, 8, 1, held + 16).map_err(|e| anyhow!("{e}"))?;
    for k in 0..held {
        map.update(&u64::from(k).to_ne_bytes(), &[1])
            .map_err(|e| anyhow!("{e}"))?;
    }
    let ns: Vec<f64> = (0..n as u64)
        .map(|i| {
            let key = (1u64 << 40 | i).to_ne_bytes();
            let t = Instant::now();
            let r = map.update(&key, &[1]);
            let d = t.elapsed().as_nanos() as f64;
            r.and_then(|()| map.delete(&key)).map(|_| d)
        })
        .collect::<Result<_, _>>()
        .map_err(|e| anyhow!("{e}"))?;
    Ok(Latency::of(ns))
}

/// `pcap_setfilter` of one of two compiled filters in turn, on a live handle on
/// the loopback interface (tcpdump's way of changing a running filter).
fn setfilters(n: usize) -> Result<Latency> {
    let mut live = netsift_oracle::live::Live::open("lo", 2 << 20, 100).map_err(|e| anyhow!(e))?;
    let a = live.compile("tcp port 80").map_err(|e| anyhow!(e))?;
    let b = live.compile("udp port 53").map_err(|e| anyhow!(e))?;
    let ns: Vec<f64> = (0..n)
        .map(|i| {
            let t = Instant::now();
            live.set_filter(if i % 2 == 0 { a } else { b })
                .map(|()| t.elapsed().as_nanos() as f64)
        })
        .collect::<Result<_, _>>()
        .map_err(|e| anyhow!(e))?;
    Ok(Latency::of(ns))
}

/// `SO_ATTACH_BPF` of one of two loaded programs in turn onto a packet socket.
fn swaps(n: usize) -> Result<Latency> {
    let set =
        netsift_pcapc::compile("tcp port 80", LinkType::EN10MB).map_err(|e| anyhow!("{e}"))?;
    let other =
        netsift_pcapc::compile("udp port 53", LinkType::EN10MB).map_err(|e| anyhow!("{e}"))?;
    let progs = [set, other]
        .iter()
        .map(|s| {
            let g = generate(s, Env::socket(262_144)).map_err(|e| anyhow!("{e}"))?;
            Program::load(ProgKind::SocketFilter, "swap", &g.insns).map_err(|e| anyhow!("{e}"))
        })
        .collect::<Result<Vec<_>>>()?;
    // SAFETY: a plain socket(2) call; the descriptor is owned below.
    let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW, 0) };
    if fd < 0 {
        bail!("a packet socket: {}", std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned and nothing else owns it.
    let sock = unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) };
    let raw = std::os::fd::AsRawFd::as_raw_fd(&sock);
    let ns: Vec<f64> = (0..n)
        .map(|i| {
            let t = Instant::now();
            let r = progs[i % 2].attach(raw);
            r.map(|()| t.elapsed().as_nanos() as f64)
        })
        .collect::<Result<_, _>>()
        .map_err(|e| anyhow!("{e}"))?;
    Ok(Latency::of(ns))
}

impl KernelReport {
    /// The human-readable table.
    pub fn table(&self) -> String {
        let mut s = format!(
            "per packet, ns (median [min, max]) over {} packets of the static trace:\n\
             filter  netsift eBPF (kernel)   libpcap BPF (kernel)    netsift batch (user)    eBPF, 1 run/test run    XDP (+copy), 1 run      eBPF/BPF  insns (ours/theirs)  unsure\n",
            self.packets
        );
        for r in &self.filters {
            let f = |x: &Stat| format!("{:6.1} [{:.1}, {:.1}]", x.median, x.min, x.max);
            s.push_str(&format!(
                "{:>6}  {:<22}  {:<22}  {:<22}  {:<22}  {:<22} {:>6.2}  {:>8} / {:<8}  {}{}\n",
                r.id,
                f(&r.ebpf),
                f(&r.bpf),
                f(&r.batch),
                f(&r.ebpf_once),
                f(&r.xdp),
                r.ratio.median,
                r.insns.0,
                r.insns.1,
                r.unsure,
                if r.exact { "" } else { " (not exact)" }
            ));
        }
        s.push_str(&format!(
            "map insert: p50 {:.0} ns, p99 {:.0} ns at 1 key; p50 {:.0} ns, p99 {:.0} ns at {} keys\n\
             program swap (SO_ATTACH_BPF): p50 {:.0} ns, p99 {:.0} ns\n\
             libpcap pcap_setfilter: p50 {:.0} ns, p99 {:.0} ns\n",
            self.update_at_1.p50,
            self.update_at_1.p99,
            self.update_at_big.p50,
            self.update_at_big.p99,
            100_000,
            self.swap.p50,
            self.swap.p99,
            self.setfilter.p50,
            self.setfilter.p99
        ));
        let curve: Vec<String> = self
            .curve
            .iter()
            .map(|(n, l)| format!("{n}: p50 {:.0} / p99 {:.0}", l.p50, l.p99))
            .collect();
        s.push_str(&format!(
            "map insert against keys held, ns: {}\n\
             add_param (shared-table store): p50 {:.0} ns, p99 {:.0} ns\n",
            curve.join("; "),
            self.param.p50,
            self.param.p99
        ));
        let mcurve: Vec<String> = self
            .mapped_curve
            .iter()
            .map(|(n, l)| format!("{n}: p50 {:.0} / p99 {:.0}", l.p50, l.p99))
            .collect();
        s.push_str(&format!(
            "shared-table insert (no system call): p50 {:.0} ns, p99 {:.0} ns at 1 key; p50 {:.0} ns, p99 {:.0} ns at {} keys\n\
             shared-table insert against keys held, ns: {}\n\
             one bpf(2) map write: p50 {:.0} ns, p99 {:.0} ns ({:.0}x the shared-table insert at 1 key)\n\
             per packet, {} keys held: shared-table probe {:.1} ns, hash map lookup {:.1} ns, ratio {:.3} [{:.3}, {:.3}]\n",
            self.mapped_at_1.p50,
            self.mapped_at_1.p99,
            self.mapped_at_big.p50,
            self.mapped_at_big.p99,
            100_000,
            mcurve.join("; "),
            self.syscall.p50,
            self.syscall.p99,
            self.syscall.p50 / self.mapped_at_1.p50.max(1e-9),
            self.probe_keys,
            self.probe.0.median,
            self.probe.1.median,
            self.probe.2.median,
            self.probe.2.min,
            self.probe.2.max,
        ));
        match &self.edits {
            Ok(e) => s.push_str(&format!(
                "edits with the clauses in the kernel: {} edits, {} sent ({:.0} pps), {} delivered, lost {}, leaked {}, duplicates {}, dropped by kernel {}\n",
                e.edits,
                e.sent.packets,
                e.sent.pps(),
                e.delivered,
                e.lost,
                e.leaked,
                e.duplicates,
                e.dropped
            )),
            Err(why) => s.push_str(&format!("edits with the clauses in the kernel: skipped ({why})\n")),
        }
        s.push('\n');
        s.push_str(&self.ftp.table());
        s
    }

    /// The plots: per-packet cost, and update latency against connections.
    pub fn svgs(&self) -> [(&'static str, String); 2] {
        [
            ("kernel-per-packet.svg", svg::per_packet(&self.filters)),
            (
                "kernel-updates.svg",
                svg::updates(&self.curve, &self.mapped_curve, self.swap, self.setfilter),
            ),
        ]
    }

    /// One JSON object (the `--json` last line).
    pub fn json(&self) -> String {
        let filters: Vec<String> = self
            .filters
            .iter()
            .map(|r| {
                format!(
                    "{{\"id\":{},\"ebpf_ns\":{:.2},\"batch_ns\":{:.2},\"bpf_ns\":{:.2},\"xdp_ns\":{:.2},\"ebpf_once_ns\":{:.2},\"ebpf_over_bpf\":{:.3}}}",
                    r.id, r.ebpf.median, r.batch.median, r.bpf.median, r.xdp.median, r.ebpf_once.median, r.ratio.median
                )
            })
            .collect();
        // Skipped: null, not a 0 that would read as measured.
        let edit = |f: fn(&crate::live::edits::EditRun) -> u64| match &self.edits {
            Ok(e) => f(e).to_string(),
            Err(_) => "null".to_string(),
        };
        let curve: Vec<String> = self
            .curve
            .iter()
            .map(|(n, l)| {
                format!(
                    "{{\"keys\":{n},\"p50_ns\":{:.0},\"p99_ns\":{:.0}}}",
                    l.p50, l.p99
                )
            })
            .collect();
        format!(
            "{{\"kernel_update_ns_p50_at_1\":{:.0},\"kernel_update_ns_p99_at_1\":{:.0},\
             \"kernel_update_ns_p50_at_100000\":{:.0},\"kernel_update_ns_p99_at_100000\":{:.0},\
             \"swap_ns_p50\":{:.0},\"libpcap_setfilter_ns_p50\":{:.0},\"param_ns_p50\":{:.0},\
             \"mapped_update_ns_p50_at_1\":{:.0},\"mapped_update_ns_p50_at_100000\":{:.0},\
             \"mapped_update_ns_p99_at_100000\":{:.0},\"syscall_update_ns_p50\":{:.0},\
             \"mapped_probe_ns\":{:.2},\"hash_probe_ns\":{:.2},\"mapped_probe_over_hash\":{:.3},\
             \"edits\":{},\"edit_lost\":{},\"edit_leaked\":{},\"edit_dropped\":{},\
             \"update_curve\":[{}],\"packets\":{},{},\"filters\":[{}]}}",
            self.update_at_1.p50,
            self.update_at_1.p99,
            self.update_at_big.p50,
            self.update_at_big.p99,
            self.swap.p50,
            self.setfilter.p50,
            self.param.p50,
            self.mapped_at_1.p50,
            self.mapped_at_big.p50,
            self.mapped_at_big.p99,
            self.syscall.p50,
            self.probe.0.median,
            self.probe.1.median,
            self.probe.2.median,
            edit(|e| e.edits),
            edit(|e| e.lost),
            edit(|e| e.leaked),
            edit(|e| e.dropped),
            curve.join(","),
            self.packets,
            self.ftp.json_fields(),
            filters.join(",")
        )
    }
}
