//! `netsift-bench static`: the hand-written Opt-C filters and the ablation transforms
//! give libpcap's verdicts on every packet of generated traces, and a small run
//! reports every field. (No timing is asserted.)

use netsift_bench::gen::trace::{seeds_filters, trace, TraceConfig};
use netsift_bench::gen::GenPacket;
use netsift_bench::static_bench::ablation::{no_hierarchy, no_simd, no_simd_no_hierarchy};
use netsift_bench::static_bench::{self, optc, Packets, StaticConfig};
use netsift_engine::Scratch;
use netsift_isa::insn::Opcode;
use netsift_isa::{PassKind, PassSet, MAX_INSNS};
use netsift_oracle::Filter;
use netsift_wire::LinkType;

fn gen(packets: usize, snaplen: u32, seed: u64) -> Vec<GenPacket> {
    trace(&TraceConfig {
        packets,
        snaplen,
        seed,
        ..TraceConfig::default()
    })
}

/// Every packet of `t`, plus the first 300 cut at every length up to 80 bytes (so the
/// out-of-bounds paths of every load are taken).
fn cases(t: &[GenPacket]) -> Vec<(Vec<u8>, u32)> {
    let mut v: Vec<(Vec<u8>, u32)> = t.iter().map(|p| (p.data.clone(), p.orig_len)).collect();
    for p in t.iter().take(300) {
        for n in 0..=p.data.len().min(80) {
            v.push((p.data[..n].to_vec(), p.orig_len));
        }
    }
    v
}

#[test]
fn opt_c_agrees_with_libpcap_on_every_packet() {
    for (snaplen, packets) in [(75, 200_000), (65535, 60_000)] {
        let t = gen(packets, snaplen, 11);
        let cases = cases(&t);
        for (id, expr) in seeds_filters() {
            let bpf = Filter::compile(LinkType::EN10MB, &expr).expect("libpcap compiles");
            let f = optc::filter(id).expect("six filters");
            let mut accepted = 0;
            for (i, (d, w)) in cases.iter().enumerate() {
                let want = bpf.run_libpcap(d, *w) != 0;
                accepted += usize::from(want);
                assert_eq!(
                    f(d, *w),
                    want,
                    "filter {id}, snaplen {snaplen}, case {i} ({} bytes): {:02x?}",
                    d.len(),
                    &d[..d.len().min(80)]
                );
            }
            assert!(accepted > 0, "filter {id} accepts nothing");
        }
    }
}

fn verdicts(set: &PassSet, cases: &[(Vec<u8>, u32)]) -> Vec<bool> {
    let mut s = Scratch::new();
    // Decoded once: `netsift_engine::matches` decodes the set at every call.
    let c = netsift_engine::Compiled::new(set.clone());
    cases
        .iter()
        .map(|(d, w)| c.matches(&mut s, d, *w))
        .collect()
}

fn has_simd(set: &PassSet) -> bool {
    set.passes().iter().any(|p| {
        p.instructions()
            .iter()
            .any(|i| i.operand_slots().is_some_and(|(_, _, n, _)| n > 1))
    })
}

fn check_structure(set: &PassSet, expr: &str) {
    for (i, p) in set.passes().iter().enumerate() {
        assert!(p.len() <= MAX_INSNS, "{expr}: pass {i} too long");
        if let Some(q) = p.parent {
            assert!((q as usize) < i, "{expr}: pass {i} has a later parent");
        }
        for insn in p.instructions() {
            if insn.decode().opcode == Some(Opcode::Group) {
                let (f, c) = (insn.p(1) as usize, insn.p(2) as usize);
                assert!(f > i && f + c <= set.passes().len(), "{expr}: GROUP range");
                for j in f..f + c {
                    assert_eq!(set.passes()[j].kind, PassKind::Sub, "{expr}: GROUP range");
                }
            }
        }
    }
}

#[test]
fn ablation_transforms_keep_every_verdict() {
    let mut exprs: Vec<String> = seeds_filters().into_iter().map(|(_, e)| e).collect();
    // More shapes: several SIMD instructions in one pass, children, negations, groups.
    exprs.extend(
        [
            "port (22 or 80 or 25 or 443 or 53)",
            "tcp port (80 or 443) and host (10.0.0.80 or 10.0.0.53 or 192.168.2.10)",
            "not port (53 or 123 or 137) and (src net 192.168.2.0/24 or dst net 10.0.0.0/8)",
            "vlan and ip",
            "(tcp or udp) and (port 53 or port 80) and not host (192.168.2.10 or 192.168.2.11)",
            "ip6 and tcp port (22 or 80 or 443)",
            "arp or icmp or (udp and port (123 or 161 or 514))",
            "host (10.0.0.25 or 10.0.0.53 or 10.0.0.80 or 10.0.0.143 or 10.1.3.7 or 10.0.0.22 or 10.0.1.10 or 10.20.0.5) and tcp",
        ]
        .map(String::from),
    );
    for (snaplen, packets) in [(75, 150_000), (65535, 40_000)] {
        let t = gen(packets, snaplen, 5);
        let cases: Vec<(Vec<u8>, u32)> = t.iter().map(|p| (p.data.clone(), p.orig_len)).collect();
        for expr in &exprs {
            let set = netsift_pcapc::compile(expr, LinkType::EN10MB).expect("compiles");
            let a = no_simd(&set).expect("fits");
            let b = no_simd_no_hierarchy(&set).expect("fits");
            assert!(!has_simd(&a) && !has_simd(&b), "{expr}: SIMD left");
            assert!(
                b.passes()
                    .iter()
                    .all(|p| p.parent.is_none() && p.instructions().iter().all(|i| !i.copied())),
                "{expr}: hierarchy left"
            );
            assert_eq!(no_hierarchy(&a), b);
            check_structure(&a, expr);
            check_structure(&b, expr);
            let want = verdicts(&set, &cases);
            for (name, s) in [("no SIMD", &a), ("no SIMD, no hierarchy", &b)] {
                let got = verdicts(s, &cases);
                let bad = want.iter().zip(&got).position(|(x, y)| x != y);
                assert!(
                    bad.is_none(),
                    "{expr} ({name}, snaplen {snaplen}): packet {} differs\n{set}\n{s}",
                    bad.unwrap_or(0)
                );
            }
            assert!(want.iter().any(|&v| v), "{expr}: accepts nothing");
        }
    }
}

#[test]
fn no_simd_of_filter_5_is_six_passes_sharing_a_prefix() {
    let (_, expr) = seeds_filters().remove(4);
    let set = netsift_pcapc::compile(&expr, LinkType::EN10MB).expect("compiles");
    let a = no_simd(&set).expect("fits");
    let roots: Vec<_> = a
        .passes()
        .iter()
        .filter(|p| p.kind == PassKind::Root)
        .collect();
    assert_eq!(roots.len(), 6, "{a}");
    for p in &roots[1..] {
        assert_eq!(p.parent, Some(0), "{a}");
        let copied = p.instructions().iter().filter(|i| i.copied()).count();
        assert_eq!(copied, p.len() - 1, "the shared prefix is copied: {a}");
    }
}

#[test]
fn a_small_run_reports_every_field() {
    let t = gen(20_000, 75, 2);
    let p = Packets::from_gen(&t);
    let cfg = StaticConfig {
        runs: 2,
        exec_sample: 2_000,
        only: Vec::new(),
    };
    let r = static_bench::run(&p, &cfg, |_| {}).expect("runs");
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(r.packets, 20_000);
    assert_eq!(r.filters.len(), 6);
    for f in &r.filters {
        assert_eq!(f.engines.len(), static_bench::ENGINES.len());
        for e in &f.engines {
            assert!(e.all.median > 0.0 && e.all.min <= e.all.median && e.all.median <= e.all.max);
        }
        assert!(f.bpf_insns > 0);
    }
    assert_eq!(r.filters[0].accept_ratio, 1.0);
    assert_eq!(r.filters[0].bpf_insns, 1);
    assert_eq!(r.filters[0].netsift_insns, 0);
    assert_eq!(r.filters[5].bpf_insns, 95, "the paper's count for filter 6");
    let j = r.json();
    assert!(j.starts_with("{\"packets\":20000,") && !j.contains('\n'));
    for key in [
        "\"filters\":[{\"id\":1,\"expr\":\"\",",
        "\"id\":6,",
        "\"netsift_ns\":",
        "\"bpf_ns\":",
        "\"optc_ns\":",
        "\"netsift_nosimd_ns\":",
        "\"netsift_nosimd_nohier_ns\":",
        "\"netsift_insns\":",
        "\"bpf_insns\":",
        "\"accept_ratio\":",
        "\"netsift_worst_ns\":",
        "\"netsift_pkt_min_ns\":",
        "\"netsift_scalar_worst_ns\":",
    ] {
        assert!(j.contains(key), "{key} missing from {j}");
    }
    assert_eq!(j.matches("\"netsift_ns\":").count(), 6);
    let tables = r.tables();
    assert!(tables.contains("| 6 |") && tables.contains("Table 7"));
    let svg = static_bench::svg::figure10(&r, "test machine");
    assert!(svg.starts_with("<svg") && svg.matches("<rect").count() > 30);
}
