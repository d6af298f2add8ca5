//! Static filtering speed: netsift's interpreter beside libpcap's BPF interpreter
//! (`pcap_offline_filter` on the program `pcap_compile -O` produced), in one process,
//! on the same packets held in memory.
//!
//! The packets are every EN10MB packet of the corpus (or the generated captures when the
//! corpus is absent), repeated to at least 200 000. Each contender filters the whole set
//! ROUNDS times; the table gives ns/packet as median [min, max] over rounds, and the
//! ratio libpcap/netsift of the medians (above 1: netsift is faster).
//!
//! Usage: `cargo run --release -p netsift-conformance --bin filter_bench [ROUNDS]`.

#![forbid(unsafe_code)]

use netsift_conformance::{corpus_dir, generated_captures, load_corpus_captures};
use netsift_oracle::{Filter, OwnedPacket};
use netsift_wire::LinkType;
use std::time::Instant;

const EXPRS: &[&str] = &[
    "ip",
    "tcp port 80",
    "host 192.168.1.1",
    "port (22 or 80 or 25 or 443 or 53)",
    "tcp[13] & 2 != 0",
    "udp and not port 53 and src net 10.0.0.0/8",
    "vlan and ip",
    "not (arp or icmp)",
    "ip6 and tcp portrange 1-1023",
];

fn packets() -> (Vec<OwnedPacket>, String) {
    let mut pkts = Vec::new();
    let source;
    if let Some(dir) = corpus_dir() {
        let c = load_corpus_captures(&dir);
        for cap in c.by_linktype.get(&LinkType::EN10MB).into_iter().flatten() {
            pkts.extend(cap.packets.iter().cloned());
        }
        source = format!("{} EN10MB corpus packets", pkts.len());
    } else {
        for (_, lt, p) in generated_captures() {
            if lt == LinkType::EN10MB {
                pkts.extend(p);
            }
        }
        source = format!("{} generated EN10MB packets (corpus not found)", pkts.len());
    }
    let base = pkts.len().max(1);
    while !pkts.is_empty() && pkts.len() < 200_000 {
        let more: Vec<_> = pkts[..base].to_vec();
        pkts.extend(more);
    }
    (pkts, source)
}

fn stats(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(|a, b| a.total_cmp(b));
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(11);
    let (pkts, source) = packets();
    println!("# filter_bench: {} packets in memory ({source}), {rounds} rounds; ns/packet median [min, max]", pkts.len());
    println!("| expression | netsift | libpcap BPF | libpcap/netsift | accepted |");
    println!("|---|---|---|---|---|");
    for e in EXPRS {
        let set = netsift_engine::Compiled::new(
            netsift_pcapc::compile(e, LinkType::EN10MB).expect("netsift compiles"),
        );
        let bpf = Filter::compile(LinkType::EN10MB, e).expect("libpcap compiles");
        let mut scratch = netsift_engine::Scratch::new();
        let (mut tn, mut tl) = (Vec::new(), Vec::new());
        let (mut an, mut al) = (0usize, 0usize);
        for _ in 0..rounds {
            let t = Instant::now();
            an = pkts
                .iter()
                .filter(|p| set.matches(&mut scratch, &p.data, p.wire_len))
                .count();
            tn.push(t.elapsed().as_nanos() as f64 / pkts.len() as f64);
            let t = Instant::now();
            al = pkts
                .iter()
                .filter(|p| bpf.run_libpcap(&p.data, p.wire_len) != 0)
                .count();
            tl.push(t.elapsed().as_nanos() as f64 / pkts.len() as f64);
        }
        let (n, nlo, nhi) = stats(tn);
        let (l, llo, lhi) = stats(tl);
        let agree = if an == al {
            format!("{an}")
        } else {
            format!("{an} vs libpcap {al} (DIFFERENT)")
        };
        println!("| `{e}` | {n:.1} [{nlo:.1}, {nhi:.1}] | {l:.1} [{llo:.1}, {lhi:.1}] | {:.2}x | {agree} |", l / n);
    }
}
