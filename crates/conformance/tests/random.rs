//! Random filter expressions (from `netsift_conformance::exprgen`) over the synthetic
//! captures of every supported link type, netsift against libpcap.
//!
//! Seeded and reproducible: the seed is printed; `NETSIFT_SEED=<n>` overrides it,
//! `NETSIFT_RANDOM_SCALE=<factor>` scales the number of expressions (default 1.0:
//! about 3,400 expressions). The captures are the generated ones and, per link type,
//! three more cut by a snap length of 40 to 96 bytes (`synth::snapped_captures_for`).

use std::collections::HashSet;

use netsift_conformance::exprgen::ExprGen;
use netsift_conformance::synth::Rng;
use netsift_conformance::*;

const DEFAULT_SEED: u64 = 0x6e73_2024_0001;

/// Mismatches allowed for the default seed where one side's verdict came from a load
/// past the captured bytes: a ratchet, to be lowered as the emulation improves, never
/// raised. On a packet too short for some test, libpcap's verdict depends on which
/// loads its *optimiser* leaves before a decision (jump threading, pull-ups, dead-test
/// removal over whole paths); netsift replays that optimiser on libpcap's flow graph
/// and reads its program off the result (crates/pcapc/src/opt/). Every other packet
/// must agree exactly, whatever the seed. (82 -> 41 -> 27 -> 14 with tree heuristics
/// for the tests libpcap keeps and drops and for its pull-ups; then the generator
/// widened and snapped captures joined, 3; 3 -> 2 with a per-protocol merge of port
/// pairs; 2 -> 0 when the heuristics gave way to the replayed flow graph, which also
/// took the other seeds from 59 short mismatches in all to 1; that one, seed 5's, went
/// when `inbound` was lowered with libpcap's polarity, which its pull-ups depend on.)
const SHORT_BUDGET: u64 = 0;

/// `NETSIFT_RANDOM_SCALE`, 1.0 by default.
fn scale() -> f64 {
    std::env::var("NETSIFT_RANDOM_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0)
}

/// Fails on a refusal, panic or failure, and on a mismatch with every load inside the
/// packet; returns the rerun hint for the short-packet check.
fn assert_whole_agree(total: &Report, seed: u64) -> String {
    let again = format!("seed {seed:#x}: rerun with NETSIFT_SEED={seed:#x}");
    assert!(
        total.candidate_rejects.is_empty() && total.panics.is_empty() && total.failures.is_empty(),
        "{}\n{again}",
        total.summary()
    );
    assert_eq!(
        total.mismatches - total.mismatches_short,
        0,
        "mismatches with every load inside the packet\n{}\n{again}",
        total.summary()
    );
    again
}

fn count_for(lt: LinkType) -> usize {
    match lt {
        LinkType::EN10MB => 1200,
        LinkType::LINUX_SLL | LinkType::LINUX_SLL2 => 400,
        _ => 280,
    }
}

#[test]
fn random_expressions() {
    let seed = seed_from_env(DEFAULT_SEED);
    let scale = scale();
    println!("random: seed {seed:#x} (NETSIFT_SEED={seed:#x} reproduces this run), scale {scale}");
    let generated = generated_capture_data();
    let snapped = snapped_capture_data();
    let cmp = Comparison::new(&Netsift);
    let mut total = Report::new("random", "netsift");
    for lt in LinkType::SUPPORTED {
        let n = ((count_for(lt) as f64) * scale).round().max(1.0) as usize;
        let mut g = ExprGen::new(seed ^ Rng::seed_from_str(lt.name().unwrap_or("?")), lt);
        let mut seen = HashSet::new();
        let mut exprs = Vec::with_capacity(n);
        let mut tries = 0;
        while exprs.len() < n && tries < n * 10 {
            tries += 1;
            let e = g.next_expr();
            if seen.insert(e.clone()) {
                exprs.push(e);
            }
        }
        let caps: Vec<&CaptureData> = generated[&lt].iter().chain(&snapped[&lt]).collect();
        let mut r = Report::new(&format!("random {lt}"), "netsift");
        cmp.run(lt, &exprs, &caps, &mut r);
        println!("{}", r.summary());
        total.merge(r);
    }
    if !total.candidate_accepts.is_empty() {
        total.notes.push(format!(
            "{} expressions the installed libpcap refuses were compiled by netsift (not a \
             failure here: listed for review)",
            total.candidate_accepts.len()
        ));
    }
    println!("{}", total.render(50, 10));
    let report = total.write_full(&report_dir(), "random.txt");
    if let Some(p) = &report {
        println!("full report: {}", p.display());
    }
    let full = total.mismatches - total.mismatches_short;
    println!(
        "random: {full} mismatches with every load inside the packet, {} where a load ran past the captured bytes (budget {} for the default seed)",
        total.mismatches_short, SHORT_BUDGET
    );
    for m in &total.full_samples {
        println!(
            "  not short: [{}] {:?} on {} #{}: libpcap {}, netsift {} (caplen {}, wire {}) {}",
            m.linktype,
            m.expr,
            m.capture,
            m.index,
            m.libpcap,
            m.netsift,
            m.data.len(),
            m.wire_len,
            m.data
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        );
    }
    let again = assert_whole_agree(&total, seed);
    if seed == DEFAULT_SEED {
        // Written so that it reads the same when the budget is 0, as it is now.
        assert!(
            total.mismatches_short.saturating_sub(SHORT_BUDGET) == 0,
            "more short-packet mismatches than the budget\n{}\n{again}",
            total.summary()
        );
    }
}

/// Short-packet mismatches allowed for the default seed on the link types beyond the
/// first eight, a ratchet as [`SHORT_BUDGET`]: 0. The last 37 were on PPP_BSDOS IPv6
/// frames cut at 18 to 27 bytes under two expressions, `not (udp[49] >= 576 || udp
/// src or dst portrange 123-65535 and udp[2:2] <= 65534 || sctp[17] <= 0x36)` (17) and
/// `(ip[9] & vrrp[2:2]) < ip[12] || sctp or src and dst port 21 or not 21 or ...` (20),
/// which libpcap's optimised program accepts on the link type alone (`jeq #0x57`).
/// The replay reached the same flow graph, but reading it back as a tree copied shared
/// code at every split, past `Budget::read_copies`, and the compiler fell back to
/// gencode's order, which loads the IPv6 header first. Now, past the budget, each
/// region is read once and named from every way to it (`opt/to_tree/share.rs`, laid
/// out as a group; `pcapc/tests/short_loads.rs`).
///
/// The 47 more the link types of the second tranche brought, on ARCNET cut frames
/// under `not icmp[0x14] = icmp6[link[21:2]]`, are gone: the replay walked its
/// pullup chains along the fragment test's own branches, where libpcap's `jset`
/// block has them the other way round, and pulled `icmp6`'s link type test up
/// beside the IPv4 ones, which decided it (`pcapc/tests/short_loads.rs`). The 624
/// under `ip6 protochain` on the Juniper types whose payload offset libpcap leaves
/// unset are gone too: its first load's wrapped offset is modelled (`protochain_far`).
const SHORT_BUDGET_MORE: u64 = 0;

/// The same generator over the link types beyond the first eight that filter more than
/// lengths (`NETSIFT_LINKTYPES` narrows them), 200 expressions each (scaled), over
/// their generated frames: every packet must agree, but for the short-packet budget.
#[test]
fn random_expressions_more() {
    let seed = seed_from_env(DEFAULT_SEED);
    let scale = scale();
    let cmp = Comparison::new(&Netsift);
    let mut total = Report::new("random (more link types)", "netsift");
    for lt in more_linktypes() {
        // Only length tests compile on the others: nothing for a generator to find.
        if Filter::compile(lt, "ip").is_err() {
            continue;
        }
        let n = (200.0 * scale).round().max(1.0) as usize;
        let mut g = ExprGen::new(seed ^ Rng::seed_from_str(lt.name().unwrap_or("?")), lt);
        let mut seen = HashSet::new();
        let exprs: Vec<String> = (0..n * 10)
            .map(|_| g.next_expr())
            .filter(|e| seen.insert(e.clone()))
            .take(n)
            .collect();
        let caps = generated_capture_data_for(lt);
        let caps: Vec<&CaptureData> = caps.iter().collect();
        let mut r = Report::new(&format!("random {lt}"), "netsift");
        cmp.run(lt, &exprs, &caps, &mut r);
        println!("{}", r.summary());
        total.merge(r);
    }
    println!("{}", total.render(30, 10));
    let again = assert_whole_agree(&total, seed);
    if seed == DEFAULT_SEED {
        assert!(
            total.mismatches_short.saturating_sub(SHORT_BUDGET_MORE) == 0,
            "more short-packet mismatches than the budget ({SHORT_BUDGET_MORE})\n{}\n{again}",
            total.summary()
        );
    }
}

/// Frames cut short on which the random test once disagreed because the optimised
/// graph was too big to read back as a tree and netsift kept gencode's order: now read
/// with shared code (`pcapc/src/opt/to_tree/share.rs`), each must get libpcap's
/// verdict (which accepts every one: its program decides them before the loads
/// gencode's order runs first).
#[test]
fn cut_frames_decided_before_the_shared_code() {
    let cases: [(LinkType, &str, &str, u32); 4] = [
        // The default seed's 37, on PPP_BSDOS IPv6 frames.
        (
            LinkType::PPP_BSDOS,
            "not (udp[49] >= 576 || udp src or dst portrange 123-65535 and udp[2:2] <= 65534 \
             || sctp[17] <= 0x36)",
            "016e5048530057338c5a671e8264c7b05a72527f159075d3",
            24,
        ),
        (
            LinkType::PPP_BSDOS,
            "(ip[9] & vrrp[2:2]) < ip[12] || sctp or src and dst port 21 or not 21 or not \
             ip[6:2] & 0x1fff = 0 && (src and dst host 255.255.255.255 or not 192.168.1.2) \
             or (icmp)",
            "016e5048530057338c5a671e8264c7b05a72527f159075d3",
            24,
        ),
        // Seed 3's 23 and seed 4's 22.
        (
            LinkType::ARCNET_LINUX,
            "(host 10.1.2.3 or not 172.16.5.4 && tcp port 21 || rarp src or dst host \
             10.0.0.4) or (!sctp port 123)",
            "d4008a4fd6d450",
            36,
        ),
        (
            LinkType::ARCNET,
            "((tcp[tcpflags] == tcp-cwr) || (tcp[13] & 145 != 0)) or (host 192.168.2.7 or \
             net 0.0.0.0/0)",
            "d400d6c14e71000108000604000802000000000002e000",
            34,
        ),
    ];
    for (lt, expr, hex, wire_len) in cases {
        agree_on_one(lt, expr, hex, wire_len, true);
    }
}

/// On PPI, libpcap tests the per-packet link type (802.11) in front of the filter
/// only if gencode's link type is still PPI at the end (gen_ppi_dlt_check in
/// finish_parse): `geneve` and `pppoes` replace it (PUSH_LINKHDR), so with either
/// anywhere in the filter a PPI frame of Ethernet (DLT 1) is not rejected up front.
/// (Seed 3's 71 whole-packet mismatches, under the first expression.)
#[test]
fn ppi_link_type_test_goes_after_geneve_or_pppoes() {
    let frame =
        "00002000010000006d79c7d6303fd1bbca754716deb12022b84adf9cdad39fe850c481600200000000\
                 0102000000000100000c07ac0159dd";
    for (expr, libpcap_accepts) in [
        ("len < 0x14 and (geneve 11) or (greater 14)", true),
        ("len < 0x14 and pppoes or greater 14", true),
        ("len < 0x14 and ip or greater 14", false),
    ] {
        agree_on_one(LinkType::PPI, expr, frame, 56, libpcap_accepts);
    }
}

/// Checks that libpcap accepts (or rejects) the one frame `hex` of `wire_len` bytes
/// on the wire under `expr`, and that netsift gives the same verdict.
fn agree_on_one(lt: LinkType, expr: &str, hex: &str, wire_len: u32, libpcap_accepts: bool) {
    let hex: String = hex.split_whitespace().collect();
    let data: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
        .collect();
    let libpcap = Filter::compile(lt, expr).expect("libpcap compiles it");
    assert_eq!(
        libpcap.accepts(&data, wire_len),
        libpcap_accepts,
        "libpcap 1.10.3's verdict: [{lt}] {expr}"
    );
    let cap = CaptureData {
        name: format!("one-{lt}"),
        linktype: lt,
        packets: vec![OwnedPacket {
            data,
            wire_len,
            ts_sec: 0,
            ts_usec: 0,
        }],
        read_error: None,
    };
    let mut r = Report::new("one frame", "netsift");
    Comparison::new(&Netsift).run(lt, &[expr.to_string()], &[&cap], &mut r);
    assert_eq!((r.packets, r.mismatches), (1, 0), "{}", r.render(5, 5));
}

/// On PFLOG, once a primitive uses the payload offset, libpcap's program loads the
/// header's length byte before any test (insert_compute_vloffsets), so a capture of
/// no bytes is rejected even where a length test alone would accept it; not where
/// a first relation stored into that offset's register before any read of it, or
/// the optimised program reads no offset computed from it (the store is dead and
/// the optimiser removes it with its load), nor where no test needs the offset.
/// (Seed 3's 23, under the first expression.)
#[test]
fn pflog_length_byte_loads_before_any_test() {
    for (expr, libpcap_accepts) in [
        (
            "(greater 40 or ip[6:2] & 0x1fff = 0) || (icmp6[icmp6type] = icmp6-echoreply \
             and ! host 172.16.5.4)",
            false,
        ),
        ("greater 40 or tcp", false),
        ("len > 60 or tcp", true),
        ("greater 40 or ifname eth0", true),
        // The optimiser leaves no test of the payload (seed 6): the store is dead.
        (
            "(len < 0x5dc) and (! udp[0:2] <= 21 || ip or not (!tcp portrange 1024-4789))",
            true,
        ),
        // Not optimized: the load is the root block's first statement.
        ("greater 40 or geneve", false),
    ] {
        agree_on_one(LinkType::PFLOG, expr, "", 92, libpcap_accepts);
    }
}

/// A constant index on a header whose offset libpcap measures per packet (PFLOG's
/// payload): libpcap folds it into the load's constant only where X already holds
/// that offset (after `icmp6`'s next-header test), so `icmp6[-44]` wraps there and
/// faults; elsewhere it is added in X with the offset, so `ip6[-44]` reads the pflog
/// header 44 bytes before the payload. (Seed 8's 301, under `0x80 > ip[-44]`.)
#[test]
fn pflog_constant_index_wraps_where_libpcap_adds_it() {
    // A pflog header of 61 bytes (payload at 64), IPv6, ICMPv6 echo request.
    let frame = format!(
        "3d0a{}6000000000083a40{}01{}028000000000000000",
        "00".repeat(62),
        "00".repeat(15),
        "00".repeat(15)
    );
    for (expr, libpcap_accepts) in [
        ("icmp6[-44] >= 0", false),
        ("icmp6[-4] >= 0", true),
        ("0x80 > ip6[-44]", true),
    ] {
        agree_on_one(LinkType::PFLOG, expr, &frame, 112, libpcap_accepts);
    }
}
