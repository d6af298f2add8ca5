//! Swift's FTP capture experiment, live over a veth pair: data packets missed per
//! data connection when the filter must open for each data connection an FTP
//! control connection announces, with background traffic beside.
//!
//! # Contenders
//!
//! 1. `netsift -i RX --follow ftp --place kernel -w OUT`: the kernel program holds
//!    the follower's first stage and reads FTP announcements itself
//!    (`netsift_kernel::follow`), so a data connection's first packets pass before
//!    user space has seen the 227 reply.
//! 2. `netsift -i RX --follow ftp --place user -w OUT`: the kernel passes every
//!    packet and the follower decides in user space, in ring order; it can miss
//!    only what the ring drops.
//! 3. libpcap recompiling its filter (FTPCap-LSF of the seeds): a live handle in
//!    this process (10 ms block timeout, as the edit experiment's; tcpdump's is
//!    1 s) reading 64 packets a `pcap_dispatch`; every 227/229/PORT/EPRT line in a
//!    captured port-21 segment (IPv4, `netsift_follow::ftp::announcements`) that
//!    names a new (address, port) rebuilds the whole expression
//!    ([`LibpcapUpdater::expression`]: `(ip and tcp port ftp) or (ip host X and
//!    (tcp port Y or ...))`), compiles it and calls `pcap_setfilter` (which sets a
//!    drop-all filter, drains the socket, then sets the new one). Ports are never
//!    removed, as in the seeds' model.
//!
//! Every contender gets the same ring size (`-B`, `pcap_set_buffer_size`). The
//! trace and the captures are files in /dev/shm (the temporary directory where
//! there is none), so no disk writeback competes with the replay.
//!
//! # Workload and rates
//!
//! [`ftp_workload`] with the configuration's servers, transfers and durations.
//! A rate is "R packets per second of FTP (control and data) with B of
//! background", B = 500k. tcpreplay's `--pps` sends the trace's packets evenly,
//! whatever their time stamps, so what sets the FTP rate is the trace's mix: the
//! FTP-only workload is generated first, N_f packets ending at T (the larger of
//! its last packet and the configured duration, the span the generator spreads
//! background over), then the same workload (the FTP packets come from their own
//! random streams, so they are the same bytes) with `background_pps` =
//! N_f·B/R / T, about N_f·B/R background packets, and the whole trace is
//! replayed at R + B packets per second: FTP then goes at (R + B)·N_f/N, which
//! is R to within the background's random count. The trace's time is
//! compressed by R·T/N_f: a 20 ms round trip between a 227 and its data SYN
//! becomes well under a millisecond at the higher rates. FTP packets are not
//! spread evenly over the trace (bursts at each transfer's start), so R is a
//! mean. tcpreplay may not reach R + B; the achieved total rate is reported.
//!
//! # Counting
//!
//! A data packet is missed when the ground truth has it as `Data(k)` and the
//! capture does not hold it. Captured frames are matched to the trace by their
//! bytes; identical frames (a multiset per frame, within one connection, since a
//! frame's addresses and ports name its connection) are matched in trace order,
//! so a repeated frame counts once per copy. Missed per connection is all missed
//! data packets over the number of data connections; beside it, the Swift paper's
//! figure, the data packets of a connection before its first captured one
//! ([`FtpWorkload::missed_packets`]), and the kernel's drop count (netsift's
//! closing "dropped by kernel", `pcap_stats` for libpcap), so a ring overflowing
//! under load is not taken for the follower being late. A background packet in
//! any capture is an error: no FTP filter may match one.
//!
//! Without CAP_NET_ADMIN and CAP_SYS_ADMIN (or `ip`, `tcpreplay`, or the `netsift`
//! binary) the experiment says so and is skipped, unless `CI=true`, where that is
//! an error.

use crate::dynamic::contender::LibpcapUpdater;
use crate::gen::ftp::{ftp_workload, Class, FtpConfig, FtpWorkload};
use crate::live::contenders::{capture, DRAIN};
use crate::live::netns::{self, missing_privilege, Netns};
use crate::live::replay::{tcpreplay, Rate, Sent};
use crate::live::Stop;
use anyhow::{anyhow, bail, Context, Result};
use netsift_follow::ftp::announcements;
use netsift_follow::segment::segment;
use netsift_oracle::live::Live;
use netsift_wire::LinkType;
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Background packets per second beside the FTP traffic (the 500 kpps).
pub const BACKGROUND_PPS: u64 = 500_000;
/// The FTP rate the JSON line reports (the quick run's only rate).
pub const HEADLINE_PPS: u64 = 555_000;
/// The FTP control port.
const FTP: u16 = 21;

/// What to run.
#[derive(Clone, Debug)]
pub struct FtpLiveConfig {
    /// The `netsift` binary; without it the experiment is skipped (an error under
    /// `CI=true`).
    pub netsift: Option<PathBuf>,
    /// The FTP part of the workload (its `background_pps` is set per rate).
    pub workload: FtpConfig,
    /// FTP packets per second, one replay each per contender and run.
    pub rates: Vec<u64>,
    /// Background packets per second beside them.
    pub background_pps: u64,
    /// Replays per (rate, contender); figures are summed over them.
    pub runs: usize,
    /// Ring size of every contender, KiB.
    pub buffer_kib: usize,
}

impl FtpLiveConfig {
    /// 100 transfers (10 servers × 10), 555 kpps of FTP with 500 kpps of
    /// background, once: about 0.2 M FTP packets, a third of a second of replay.
    pub fn quick() -> FtpLiveConfig {
        FtpLiveConfig {
            workload: FtpConfig {
                transfers: 10,
                ..FtpLiveConfig::full().workload
            },
            rates: vec![HEADLINE_PPS],
            runs: 1,
            ..FtpLiveConfig::full()
        }
    }

    /// 200 transfers (10 servers × 20, the paper's concurrency) at 100k, 250k and
    /// 555k FTP packets per second, each with 500 kpps of background, three runs.
    pub fn full() -> FtpLiveConfig {
        FtpLiveConfig {
            netsift: None,
            workload: FtpConfig {
                servers: 10,
                transfers: 20,
                // Connections long enough that a replay lasts a few tenths of a
                // second at the top rate: a burst of 160, then 200 segments/s.
                rate_pps: 200,
                ..FtpConfig::default()
            },
            rates: vec![100_000, 250_000, HEADLINE_PPS],
            background_pps: BACKGROUND_PPS,
            runs: 3,
            buffer_kib: 4096,
        }
    }
}

/// One of the three captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contender {
    /// `netsift --follow ftp --place kernel`.
    Kernel,
    /// `netsift --follow ftp --place user`.
    User,
    /// libpcap, recompiling on every announcement.
    Libpcap,
}

impl Contender {
    /// In report order.
    pub const ALL: [Contender; 3] = [Contender::Kernel, Contender::User, Contender::Libpcap];

    /// The contender's label in the report table.
    pub fn name(self) -> &'static str {
        match self {
            Contender::Kernel => "netsift --place kernel",
            Contender::User => "netsift --place user",
            Contender::Libpcap => "libpcap recompiling",
        }
    }

    /// The prefix of its JSON fields.
    fn key(self) -> &'static str {
        match self {
            Contender::Kernel => "kernel",
            Contender::User => "user",
            Contender::Libpcap => "libpcap",
        }
    }
}

/// One contender at one rate, summed over the runs.
#[derive(Clone, Debug, Default)]
pub struct FtpRow {
    /// FTP packets per second asked for.
    pub ftp_pps: u64,
    /// Achieved total packets per second of each replay (tcpreplay's count).
    pub achieved_pps: Vec<f64>,
    /// Packets tcpreplay could not send.
    pub failed: u64,
    /// Data connections over the runs.
    pub connections: u64,
    /// Data packets sent over the runs.
    pub data_packets: u64,
    /// Data packets not captured.
    pub missed: u64,
    /// Data packets before each connection's first captured one.
    pub missed_head: u64,
    /// Control packets not captured.
    pub control_missed: u64,
    /// The kernel's drop count.
    pub dropped: u64,
    /// Packets written.
    pub captured: u64,
    /// Captured frames not in the trace (none expected).
    pub unknown: u64,
    /// libpcap: recompiles.
    pub updates: u64,
    /// libpcap: each recompile's cost (compile and setfilter), µs.
    pub update_us: Vec<f64>,
}

impl FtpRow {
    /// Missed data packets per data connection.
    pub fn missed_per_conn(&self) -> f64 {
        self.missed as f64 / self.connections.max(1) as f64
    }

    /// The median rate the sender reached over the runs, packets per second: a
    /// missed-packet figure means little without the rate it was measured at.
    pub fn reached_pps(&self) -> Option<f64> {
        let mut v = self.achieved_pps.clone();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied()
    }
}

/// What the experiment found, or why it did not run.
#[derive(Clone, Debug)]
pub enum FtpOutcome {
    /// The experiment ran; its rows and traces.
    Ran(FtpReport),
    /// The experiment could not run here: the missing privilege or netsift binary.
    Skipped(String),
}

/// The rows, per rate in the configured order, contenders in [`Contender::ALL`]
/// order.
#[derive(Clone, Debug)]
pub struct FtpReport {
    /// One row per (rate, contender).
    pub rows: Vec<(Contender, FtpRow)>,
    /// Per rate: packets, FTP packets, data connections of the trace.
    pub traces: Vec<(u64, usize, usize, usize)>,
    /// Background packets per second replayed beside the FTP trace.
    pub background_pps: u64,
    /// Ring size every contender was given, KiB.
    pub buffer_kib: usize,
    /// Replays per (rate, contender) that the rows sum (at least 1).
    pub runs: usize,
    /// Wall-clock time of the whole experiment, seconds.
    pub seconds: f64,
}

/// Removes the experiment's files, also on an error.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the experiment, or says why it cannot.
pub fn run(cfg: &FtpLiveConfig) -> Result<FtpOutcome> {
    let netsift = match (missing_privilege(), &cfg.netsift) {
        (None, Some(n)) => n.clone(),
        (why, _) => {
            let why = why.unwrap_or_else(|| {
                "no netsift binary beside netsift-bench (cargo build --release -p netsift)".into()
            });
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                bail!("the live FTP experiment cannot run under CI: {why}");
            }
            eprintln!("kernel ftp: skipped: {why}");
            return Ok(FtpOutcome::Skipped(why));
        }
    };
    let t0 = Instant::now();
    // Signals are caught from here on only, so a Ctrl-C during the other
    // measurements still ends the process at once.
    let stop = Stop::on_signals().context("installing signal handlers")?;
    // In memory where there is a /dev/shm: a trace of a gigabyte or more written
    // to disk would be written back during the replays, on the same two cores.
    let shm = Path::new("/dev/shm");
    let root = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let dir = TempDir(root.join(format!("netsift-kernel-ftp-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).with_context(|| format!("creating {}", dir.0.display()))?;
    let net = netns::new().map_err(|e| anyhow!("making the veth pair: {e}"))?;
    let mut rows: Vec<(Contender, FtpRow)> = Vec::new();
    let mut traces = Vec::new();
    for (k, &ftp_pps) in cfg.rates.iter().enumerate() {
        let w = workload(cfg, ftp_pps)?;
        let st = w.stats();
        let trace = dir.0.join(format!("ftp-{ftp_pps}.pcap"));
        let f = std::fs::File::create(&trace)
            .with_context(|| format!("creating {}", trace.display()))?;
        w.write_pcap(std::io::BufWriter::new(f))
            .and_then(|mut b| std::io::Write::flush(&mut b))
            .with_context(|| format!("writing {}", trace.display()))?;
        let truth = Truth::new(&w);
        eprintln!(
            "kernel ftp: {} kpps FTP + {} kpps background: {} packets ({} FTP, {} data in {} connections, {} background; {} data frames repeat another)",
            ftp_pps / 1000,
            cfg.background_pps / 1000,
            st.packets,
            st.control + st.data,
            st.data,
            st.connections,
            st.background,
            truth.repeated_data
        );
        traces.push((ftp_pps, st.packets, st.control + st.data, st.connections));
        let rate = Rate::Pps(ftp_pps + cfg.background_pps);
        let mut sums: Vec<FtpRow> = Contender::ALL
            .iter()
            .map(|_| FtpRow {
                ftp_pps,
                ..FtpRow::default()
            })
            .collect();
        for r in 0..cfg.runs.max(1) {
            for i in 0..Contender::ALL.len() {
                let at = (i + r + k) % Contender::ALL.len();
                let c = Contender::ALL[at];
                let one = match c {
                    Contender::Kernel | Contender::User => {
                        let out = dir.0.join("capture.pcap");
                        let res = run_netsift(&net, &netsift, cfg, c, &trace, &out, rate, &stop)
                            .and_then(|(sent, dropped)| {
                                let mut tally = truth.tally();
                                tally.read(&out)?;
                                tally.finish(c, sent, dropped)
                            });
                        let _ = std::fs::remove_file(&out);
                        res
                    }
                    Contender::Libpcap => run_libpcap(&net, cfg, &trace, rate, &stop, &truth),
                }
                .with_context(|| format!("{} at {} kpps of FTP", c.name(), ftp_pps / 1000))?;
                eprintln!(
                    "kernel ftp: run {}/{}, {} kpps FTP, {}: {:.0} pps, missed {} of {} data packets ({:.2}/conn), {} before the first, dropped {}{}",
                    r + 1,
                    cfg.runs.max(1),
                    ftp_pps / 1000,
                    c.name(),
                    one.achieved_pps.first().copied().unwrap_or(0.0),
                    one.missed,
                    one.data_packets,
                    one.missed_per_conn(),
                    one.missed_head,
                    one.dropped,
                    if c == Contender::Libpcap {
                        format!(", {} recompiles", one.updates)
                    } else {
                        String::new()
                    }
                );
                sums[at].add(&one);
            }
        }
        rows.extend(Contender::ALL.iter().copied().zip(sums));
        let _ = std::fs::remove_file(&trace);
    }
    Ok(FtpOutcome::Ran(FtpReport {
        rows,
        traces,
        background_pps: cfg.background_pps,
        buffer_kib: cfg.buffer_kib,
        runs: cfg.runs.max(1),
        seconds: t0.elapsed().as_secs_f64(),
    }))
}

/// The trace for `ftp_pps` of FTP beside the configured background (the
/// arithmetic is in the module's comment).
fn workload(cfg: &FtpLiveConfig, ftp_pps: u64) -> Result<FtpWorkload> {
    if ftp_pps == 0 {
        bail!("an FTP rate must be positive");
    }
    let bare = FtpConfig {
        background_pps: 0,
        ..cfg.workload.clone()
    };
    let ftp = ftp_workload(&bare).context("the FTP workload")?;
    let last = ftp
        .packets
        .last()
        .map_or(0, |p| p.ts_ns.saturating_sub(bare.epoch_ns));
    let span_ns = last.max(bare.duration_ns).max(1);
    let background =
        ftp.packets.len() as u128 * u128::from(cfg.background_pps) / u128::from(ftp_pps);
    let background_pps = (background * 1_000_000_000 / u128::from(span_ns)) as u64;
    ftp_workload(&FtpConfig {
        background_pps,
        ..bare
    })
    .context("the FTP workload with background")
}

/// The trace's frames by their bytes.
struct Truth<'a> {
    w: &'a FtpWorkload,
    /// Frame bytes to group; a group lists the indices of identical frames in
    /// trace order.
    groups: HashMap<&'a [u8], usize>,
    members: Vec<Vec<usize>>,
    /// Data frames identical to an earlier frame.
    repeated_data: usize,
}

impl<'a> Truth<'a> {
    fn new(w: &'a FtpWorkload) -> Truth<'a> {
        let mut groups = HashMap::with_capacity(w.packets.len());
        let mut members: Vec<Vec<usize>> = Vec::with_capacity(w.packets.len());
        let mut repeated_data = 0;
        for (i, p) in w.packets.iter().enumerate() {
            let g = *groups.entry(p.data.as_slice()).or_insert_with(|| {
                members.push(Vec::new());
                members.len() - 1
            });
            if !members[g].is_empty() && matches!(w.truth[i], Class::Data(_)) {
                repeated_data += 1;
            }
            members[g].push(i);
        }
        Truth {
            w,
            groups,
            members,
            repeated_data,
        }
    }

    fn tally(&self) -> Tally<'_, 'a> {
        Tally {
            truth: self,
            used: vec![0; self.members.len()],
            accepted: vec![false; self.w.packets.len()],
            captured: 0,
            unknown: 0,
        }
    }
}

/// One capture matched against the trace.
struct Tally<'t, 'a> {
    truth: &'t Truth<'a>,
    /// Per group, how many of its frames were captured.
    used: Vec<usize>,
    accepted: Vec<bool>,
    captured: u64,
    unknown: u64,
}

impl Tally<'_, '_> {
    /// One captured frame.
    fn add(&mut self, frame: &[u8]) {
        self.captured += 1;
        match self.truth.groups.get(frame) {
            Some(&g) if self.used[g] < self.truth.members[g].len() => {
                self.accepted[self.truth.members[g][self.used[g]]] = true;
                self.used[g] += 1;
            }
            _ => self.unknown += 1,
        }
    }

    /// Every frame of a capture file.
    fn read(&mut self, path: &Path) -> Result<()> {
        let mut r = netsift_pcapio::open(path).map_err(|e| anyhow!("{}: {e}", path.display()))?;
        while let Some(p) = r
            .next_packet()
            .map_err(|e| anyhow!("{}: {e}", path.display()))?
        {
            self.add(p.data);
        }
        Ok(())
    }

    /// The row of one replay; an error if a background packet was captured.
    fn finish(self, c: Contender, sent: Sent, dropped: u64) -> Result<FtpRow> {
        let w = self.truth.w;
        let mut row = FtpRow {
            achieved_pps: vec![sent.pps()],
            failed: sent.failed,
            connections: w.connections.len() as u64,
            dropped,
            captured: self.captured,
            unknown: self.unknown,
            ..FtpRow::default()
        };
        let mut leaked = 0;
        for (class, &ok) in w.truth.iter().zip(&self.accepted) {
            match class {
                Class::Data(_) => {
                    row.data_packets += 1;
                    row.missed += u64::from(!ok);
                }
                Class::Control(_) => row.control_missed += u64::from(!ok),
                Class::Background => leaked += u64::from(ok),
            }
        }
        if leaked > 0 {
            bail!(
                "{} captured {leaked} background packets, which no FTP filter matches",
                c.name()
            );
        }
        row.missed_head = w
            .missed_packets(&self.accepted)
            .iter()
            .map(|&m| u64::from(m))
            .sum();
        Ok(row)
    }
}

impl FtpRow {
    /// Adds another run's figures.
    fn add(&mut self, o: &FtpRow) {
        self.achieved_pps.extend(&o.achieved_pps);
        self.failed += o.failed;
        self.connections += o.connections;
        self.data_packets += o.data_packets;
        self.missed += o.missed;
        self.missed_head += o.missed_head;
        self.control_missed += o.control_missed;
        self.dropped += o.dropped;
        self.captured += o.captured;
        self.unknown += o.unknown;
        self.updates += o.updates;
        self.update_us.extend(&o.update_us);
    }
}

/// `netsift -i RX --follow ftp --place kernel|user -w out` on one replay: what
/// was sent and the kernel's drop count.
#[allow(clippy::too_many_arguments)]
fn run_netsift(
    net: &Netns,
    netsift: &Path,
    cfg: &FtpLiveConfig,
    c: Contender,
    trace: &Path,
    out: &Path,
    rate: Rate,
    stop: &Stop,
) -> Result<(Sent, u64)> {
    let place = if c == Contender::Kernel {
        "kernel"
    } else {
        "user"
    };
    let args: Vec<String> = [
        "-i",
        &net.veth_b,
        "-B",
        &cfg.buffer_kib.to_string(),
        "--follow",
        "ftp",
        "--place",
        place,
        "-w",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([out.display().to_string()])
    .collect();
    let f = capture(net, netsift, &args, c.name(), trace, rate, stop).map_err(|e| anyhow!(e))?;
    // The contender must be what its name says: the first stage in the kernel,
    // reading announcements there, or nothing in the kernel.
    let in_kernel = f.stderr.contains("FTP announcements read in the kernel");
    if in_kernel != (c == Contender::Kernel) {
        bail!(
            "netsift placed {} in the kernel: {}",
            if in_kernel {
                "the follower"
            } else {
                "no follower"
            },
            f.stderr.trim()
        );
    }
    if let Some(l) = f.stderr.lines().find(|l| l.starts_with("followed:")) {
        eprintln!("kernel ftp: {}: {l}", c.name());
    }
    let dropped = f
        .count(c.name(), "packets dropped by kernel")
        .map_err(|e| anyhow!(e))?;
    Ok((f.sent, dropped))
}

/// The (address, port) listeners a captured frame announces: 227/229 replies
/// from port 21 and PORT/EPRT commands to it, IPv4 (a 229's address is the
/// replying server's).
fn announced(frame: &[u8]) -> impl Iterator<Item = (Ipv4Addr, u16)> + '_ {
    segment(LinkType::EN10MB, frame)
        .filter(|s| s.proto == 6 && (s.sport == FTP || s.dport == FTP))
        .into_iter()
        .flat_map(|s| {
            announcements(s.payload).filter_map(move |a| match (a.addr, s.src) {
                (Some(IpAddr::V4(at)), _) => Some((at, a.port)),
                (None, IpAddr::V4(server)) if s.sport == FTP => Some((server, a.port)),
                _ => None,
            })
        })
}

/// libpcap recompiling its filter on every announcement it captures, on one
/// replay.
fn run_libpcap(
    net: &Netns,
    cfg: &FtpLiveConfig,
    trace: &Path,
    rate: Rate,
    stop: &Stop,
    truth: &Truth<'_>,
) -> Result<FtpRow> {
    let capturing = Arc::new(AtomicBool::new(true));
    let (ready_tx, ready_rx) = mpsc::channel();
    let cap = {
        let capturing = capturing.clone();
        let (dev, buffer, stop) = (net.veth_b.clone(), cfg.buffer_kib * 1024, stop.clone());
        netns::spawn_in(&net.b, move || {
            let mut updater = LibpcapUpdater::new(false)?;
            let mut p = Live::open(&dev, buffer, 10)?;
            let first = p.compile(&updater.expression())?;
            p.set_filter(first)?;
            let _ = ready_tx.send(());
            let (mut frames, mut found) = (Vec::new(), Vec::new());
            let mut update_us = Vec::new();
            loop {
                let n = p.dispatch(64, &mut |d: &[u8]| {
                    found.extend(announced(d));
                    frames.push(d.to_vec());
                })?;
                let mut changed = false;
                for (at, port) in found.drain(..) {
                    changed |= updater.add(at, port);
                }
                if changed {
                    let t = Instant::now();
                    let prog = p.compile(&updater.expression())?;
                    p.set_filter(prog)?;
                    update_us.push(t.elapsed().as_secs_f64() * 1e6);
                }
                if n == 0 {
                    if !capturing.load(Ordering::Acquire) || stop.is_set() {
                        break;
                    }
                    p.wait(10);
                }
            }
            Ok((frames, p.dropped()?, update_us, updater.expression()))
        })
    };
    let ready = ready_rx.recv_timeout(Duration::from_secs(10));
    let sent = match ready {
        Ok(()) => {
            tcpreplay(net, trace, (rate, 1), stop).and_then(|s| stop.sleep(DRAIN).map(|()| s))
        }
        Err(_) => Err("the libpcap capture thread did not start".into()),
    };
    capturing.store(false, Ordering::Release);
    let (frames, dropped, update_us, expr) = cap
        .join()
        .map_err(|_| anyhow!("the libpcap capture thread panicked"))?
        .map_err(|e| anyhow!(e))?;
    let sent = sent.map_err(|e| anyhow!(e))?;
    // The classic program's size: over the kernel's 4096 instructions libpcap
    // would filter in user space instead.
    let insns = netsift_oracle::Filter::compile(LinkType::EN10MB, &expr)
        .map(|f| f.insns().len())
        .unwrap_or(0);
    eprintln!("kernel ftp: libpcap's last filter: {insns} classic instructions");
    let mut tally = truth.tally();
    frames.iter().for_each(|f| tally.add(f));
    let mut row = tally.finish(Contender::Libpcap, sent, dropped)?;
    row.updates = update_us.len() as u64;
    row.update_us = update_us;
    Ok(row)
}

impl FtpOutcome {
    /// The rows of `c` at `ftp_pps`.
    fn row(&self, c: Contender, ftp_pps: u64) -> Option<&FtpRow> {
        let FtpOutcome::Ran(r) = self else {
            return None;
        };
        r.rows
            .iter()
            .find(|(k, row)| *k == c && row.ftp_pps == ftp_pps)
            .map(|(_, row)| row)
    }

    /// The FTP rate the JSON line reports: [`HEADLINE_PPS`] if it ran, else the
    /// highest.
    fn headline(&self) -> Option<u64> {
        let FtpOutcome::Ran(r) = self else {
            return None;
        };
        let rates = r.traces.iter().map(|t| t.0);
        if rates.clone().any(|p| p == HEADLINE_PPS) {
            Some(HEADLINE_PPS)
        } else {
            rates.max()
        }
    }

    /// The tables, one per rate.
    pub fn table(&self) -> String {
        let r = match self {
            FtpOutcome::Skipped(why) => return format!("live FTP capture: skipped: {why}\n"),
            FtpOutcome::Ran(r) => r,
        };
        let mut s = format!(
            "live FTP capture over a veth pair (Swift's FTPCap): {} kpps of background beside the FTP rate, -B {} KiB, {} run{} per rate; {:.1} s\n",
            r.background_pps / 1000,
            r.buffer_kib,
            r.runs,
            if r.runs == 1 { "" } else { "s, figures summed" },
            r.seconds
        );
        for &(ftp_pps, packets, ftp, conns) in &r.traces {
            s.push_str(&format!(
                "\n{} kpps FTP + {} kpps background (replayed at {} pps: {packets} packets, {ftp} FTP, {conns} data connections):\n\
                 contender                achieved pps  data conns  data pkts  missed  missed/conn  before 1st/conn  kernel drops\n",
                ftp_pps / 1000,
                r.background_pps / 1000,
                ftp_pps + r.background_pps
            ));
            for c in Contender::ALL {
                let Some(row) = self.row(c, ftp_pps) else {
                    continue;
                };
                let pps = crate::stats::Stat::of(&row.achieved_pps).unwrap_or_default();
                let mut note = String::new();
                if row.control_missed > 0 {
                    note.push_str(&format!("  {} control missed", row.control_missed));
                }
                if row.unknown > 0 {
                    note.push_str(&format!("  {} unknown frames", row.unknown));
                }
                if row.failed > 0 {
                    note.push_str(&format!("  {} not sent", row.failed));
                }
                if c == Contender::Libpcap {
                    let us = crate::stats::Stat::of(&row.update_us).unwrap_or_default();
                    note.push_str(&format!(
                        "  {} recompiles, median {:.0} µs",
                        row.updates, us.median
                    ));
                }
                s.push_str(&format!(
                    "{:<23}  {:>12.0}  {:>10}  {:>9}  {:>6}  {:>11.2}  {:>15.2}  {:>12}{note}\n",
                    c.name(),
                    pps.median,
                    row.connections,
                    row.data_packets,
                    row.missed,
                    row.missed_per_conn(),
                    row.missed_head as f64 / row.connections.max(1) as f64,
                    row.dropped
                ));
            }
        }
        s
    }

    /// The JSON fields (without braces): missed data packets per connection,
    /// kernel drops and the rate the sender reached (`kernel_ftp_pps`,
    /// `user_ftp_pps`, `libpcap_ftp_pps`) of each contender at the headline rate
    /// (null if skipped).
    pub fn json_fields(&self) -> String {
        let rate = self.headline();
        let mut f = vec![format!(
            "\"ftp_pps\":{}",
            rate.map_or("null".into(), |r| r.to_string())
        )];
        for c in Contender::ALL {
            let row = rate.and_then(|r| self.row(c, r));
            f.push(format!(
                "\"{}_missed_per_conn\":{}",
                c.key(),
                row.map_or("null".into(), |r| format!("{:.3}", r.missed_per_conn()))
            ));
            f.push(format!(
                "\"{}_ftp_dropped\":{}",
                c.key(),
                row.map_or("null".into(), |r| r.dropped.to_string())
            ));
            f.push(format!(
                "\"{}_ftp_pps\":{}",
                c.key(),
                row.and_then(FtpRow::reached_pps)
                    .map_or("null".into(), |p| format!("{p:.0}"))
            ));
        }
        f.join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_background_share_follows_the_rates() {
        let cfg = FtpLiveConfig {
            workload: FtpConfig {
                servers: 2,
                transfers: 3,
                duration_ns: 1_000_000_000,
                burst_segments: 10,
                rate_pps: 50,
                ..FtpConfig::default()
            },
            ..FtpLiveConfig::quick()
        };
        let w = workload(&cfg, 250_000).unwrap();
        let st = w.stats();
        let ftp = (st.control + st.data) as f64;
        // 500k beside 250k: twice as many background packets as FTP ones.
        let ratio = st.background as f64 / ftp;
        assert!((ratio - 2.0).abs() < 0.1, "background/FTP = {ratio}");
        assert!(workload(&cfg, 0).is_err());
    }

    #[test]
    fn captures_are_matched_by_their_bytes() {
        let cfg = FtpLiveConfig {
            workload: FtpConfig {
                servers: 1,
                transfers: 2,
                duration_ns: 1_000_000_000,
                burst_segments: 10,
                rate_pps: 0,
                ..FtpConfig::default()
            },
            ..FtpLiveConfig::quick()
        };
        let w = workload(&cfg, 555_000).unwrap();
        let truth = Truth::new(&w);
        // Everything but the first data packet of transfer 0, and a stranger.
        let mut t = truth.tally();
        let first = w.connections[0].first_data_index;
        for (i, p) in w.packets.iter().enumerate() {
            if i != first && w.truth[i] != Class::Background {
                t.add(&p.data);
            }
        }
        t.add(b"not in the trace");
        let row = t.finish(Contender::Kernel, Sent::default(), 0).unwrap();
        assert_eq!((row.missed, row.missed_head, row.unknown), (1, 1, 1));
        assert_eq!(row.connections, 2);
        // A background packet is an error.
        let mut t = truth.tally();
        let bg = w
            .truth
            .iter()
            .position(|c| *c == Class::Background)
            .unwrap();
        t.add(&w.packets[bg].data);
        assert!(t.finish(Contender::User, Sent::default(), 0).is_err());
    }

    #[test]
    fn reads_announcements_from_port_21_only() {
        let w = ftp_workload(&FtpConfig {
            servers: 1,
            transfers: 1,
            burst_segments: 1,
            rate_pps: 0,
            ..FtpConfig::default()
        })
        .unwrap();
        let c = &w.connections[0];
        let all: Vec<_> = w.packets.iter().flat_map(|p| announced(&p.data)).collect();
        assert_eq!(all, vec![(c.server, c.port)]);
    }
}
