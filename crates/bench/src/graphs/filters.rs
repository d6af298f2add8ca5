//! FPL programs through each executor on one packet: the interpreter, the JIT
//! ([`super::jit`]), eBPF in the kernel ([`super::ebpf`]); for the Table 1
//! filter, libpcap's BPF interpreter and netsift's pcap engine on the same
//! filter and packet beside them (FFPF's rows 8 and 9: 185 against 740
//! cycles). Every executor's value on the packet is compared with the
//! interpreter's before anything is timed.

use super::ebpf::Kernel;
use super::jit;
use super::rounds::{alternate, timed, Sample};
use super::GraphsConfig;
use crate::multi::table1::{footnote_packet, FOOTNOTE_FILTER};
use crate::stats::Stat;
use netsift_engine::{Compiled, Scratch};
use netsift_fpl::externs::Externs;
use netsift_fpl::{compile, interp, Options, Program};
use netsift_testkit::frames::Frame;
use netsift_wire::LinkType;

/// The seeds' Table 1 filter in FPL.
pub const TABLE1_FPL: &str = include_str!("../../../fpl/examples/table1_udp.fpl");
/// The seeds' Figure 6: packets per TCP flow counted in MBuf.
pub const FIG6_FPL: &str = include_str!("../../../fpl/examples/fig6_flow_counts.fpl");

/// One program's figures, ns per packet.
#[derive(Clone, Debug)]
pub struct Executors {
    /// Which program, on which packet.
    pub name: &'static str,
    /// The reference interpreter.
    pub interp: Stat,
    /// The JIT, or why not.
    pub jit: Result<Stat, String>,
    /// eBPF less the empty program's test run, or why not.
    pub ebpf: Result<Stat, String>,
    /// The empty program's test run (what was subtracted).
    pub ebpf_floor: Option<Stat>,
    /// eBPF instructions loaded.
    pub ebpf_insns: Option<usize>,
}

/// The Table 1 filter's figures: its executors, and the pcap filter in
/// libpcap's BPF and in netsift's engine.
#[derive(Clone, Debug)]
pub struct Table1Filter {
    /// The FPL executors.
    pub fpl: Executors,
    /// libpcap's `pcap_offline_filter`.
    pub bpf: Stat,
    /// netsift's `Compiled::matches`.
    pub pcap: Stat,
}

/// `a - b` of two figures, min against the other's max, never below 0.
fn less(a: Stat, b: Stat) -> Stat {
    Stat {
        median: (a.median - b.median).max(0.0),
        min: (a.min - b.max).max(0.0),
        max: (a.max - b.min).max(0.0),
    }
}

fn fpl(src: &str) -> Result<Program, String> {
    compile(src, &Options::default(), &Externs::new()).map_err(|e| e.to_string())
}

/// A 1,514-byte TCP frame of one flow: what Figure 6 counts.
fn tcp_frame() -> Vec<u8> {
    Frame::default()
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2])
        .tcp(40000, 80, 0x10)
        .payload(&[0x5a; 1460])
        .build()
}

/// Times `program` on `packet` through every executor, with `extra`
/// contenders in the same rounds; their figures come back after the
/// program's.
fn executors<'a>(
    cfg: &GraphsConfig,
    name: &'static str,
    source: &str,
    packet: &'a [u8],
    extra: Vec<Sample<'a>>,
) -> Result<(Executors, Vec<Stat>), String> {
    let program = fpl(source).map_err(|e| format!("{name}: {e}"))?;
    let mbuf_len = program.mbuf_len();
    let want = interp::run(&program, packet, &mut vec![0; mbuf_len], &mut [0; 16]).value();
    let kernel =
        Kernel::load(&program, source, cfg.ebpf_repeat).and_then(|k| match k.value(packet)? {
            v if v == want => Ok(k),
            v => Err(format!("{name}: eBPF returned {v}, the interpreter {want}")),
        });
    let mut jit = jit::compile(&program).and_then(|mut f| {
        match f(packet, &mut vec![0; mbuf_len], &mut [0; 16]) {
            v if v == want => Ok(f),
            v => Err(format!(
                "{name}: the JIT returned {v}, the interpreter {want}"
            )),
        }
    });
    let n = cfg.ops(2_000_000);
    let (mut mbuf, mut regs) = (vec![0u8; mbuf_len], [0i64; 16]);
    let mut cs: Vec<Sample<'_>> = vec![timed(n, || {
        interp::run(&program, packet, &mut mbuf, &mut regs).value()
    })];
    let (mut jmbuf, mut jregs) = (vec![0u8; mbuf_len], [0i64; 16]);
    if let Ok(f) = jit.as_mut() {
        cs.push(timed(n, move || f(packet, &mut jmbuf, &mut jregs)));
    }
    if let Ok(k) = &kernel {
        cs.extend(k.samples(packet));
    }
    let extras = extra.len();
    cs.extend(extra);
    let figures = alternate(cfg.runs, &mut cs)?;
    drop(cs);
    let mut figures = figures.into_iter();
    let interp = figures.next().unwrap_or_default();
    let jit = jit.map(|_| figures.next().unwrap_or_default());
    let (ebpf, ebpf_floor, ebpf_insns) = match &kernel {
        Ok(k) => {
            let raw = figures.next().unwrap_or_default();
            let floor = figures.next().unwrap_or_default();
            (Ok(less(raw, floor)), Some(floor), Some(k.insns()))
        }
        Err(why) => (Err(why.clone()), None, None),
    };
    let rest: Vec<Stat> = figures.collect();
    debug_assert_eq!(rest.len(), extras);
    let e = Executors {
        name,
        interp,
        jit,
        ebpf,
        ebpf_floor,
        ebpf_insns,
    };
    Ok((e, rest))
}

/// The Table 1 filter on its 1,514-byte matching frame: FPL's executors,
/// libpcap's BPF and netsift's engine, all in one set of rounds.
pub fn table1(cfg: &GraphsConfig) -> Result<Table1Filter, String> {
    let pkt = footnote_packet();
    let wire = pkt.len() as u32;
    let set = netsift_pcapc::compile(FOOTNOTE_FILTER, LinkType::EN10MB)
        .map_err(|e| format!("{FOOTNOTE_FILTER}: {e}"))?;
    let engine = Compiled::new(set);
    let bpf = netsift_oracle::Filter::compile(LinkType::EN10MB, FOOTNOTE_FILTER)?;
    let mut scratch = Scratch::new();
    if !engine.matches(&mut scratch, &pkt, wire) || !bpf.accepts(&pkt, wire) {
        return Err("netsift's engine or libpcap rejects the Table 1 frame".into());
    }
    let n = cfg.ops(2_000_000);
    let p: &[u8] = &pkt;
    let extra: Vec<Sample<'_>> = vec![
        timed(n, || bpf.accepts(p, wire)),
        timed(n, move || engine.matches(&mut scratch, p, wire)),
    ];
    let name = "Table 1 filter, 1514-byte matching UDP frame";
    let (fpl, rest) = executors(cfg, name, TABLE1_FPL, p, extra)?;
    if fpl.interp.median == 0.0 {
        return Err("the Table 1 filter was not timed".into());
    }
    Ok(Table1Filter {
        fpl,
        bpf: rest.first().copied().unwrap_or_default(),
        pcap: rest.get(1).copied().unwrap_or_default(),
    })
}

/// Figure 6's counter on a 1,514-byte TCP frame, through FPL's executors.
pub fn fig6(cfg: &GraphsConfig) -> Result<Executors, String> {
    let pkt = tcp_frame();
    let name = "Figure 6 flow counter, 1514-byte TCP frame";
    executors(cfg, name, FIG6_FPL, &pkt, Vec::new()).map(|(e, _)| e)
}
