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
/// first eight, a ratchet as [`SHORT_BUDGET`]: 37, all on PPP_BSDOS IPv6 frames cut at
/// 18 to 27 bytes (its header is 24) under two expressions, `not (udp[49] >= 576 || udp
/// src or dst portrange 123-65535 and udp[2:2] <= 65534 || sctp[17] <= 0x36)` (17) and
/// `(ip[9] & vrrp[2:2]) < ip[12] || sctp or src and dst port 21 or not 21 or ...` (20).
/// libpcap's optimised program accepts an IPv6 frame on its link type alone (`jeq
/// #0x57`). The replay reaches the same flow graph, but reading it back as a tree
/// (`opt/to_tree.rs`) copies shared code at every split, and these graphs (54 and 105
/// blocks) need more copies than `Budget::read_copies` allows (16 a block; 64 is not
/// enough either): the compiler falls back to gencode's order, exact on whole packets,
/// which loads the IPv6 header first and rejects the cut frame. Closing it needs a
/// reader that shares code instead of copying it, not a larger budget.
///
/// The 47 more the link types of the second tranche brought, on ARCNET cut frames
/// under `not icmp[0x14] = icmp6[link[21:2]]`, are gone: the replay walked its
/// pullup chains along the fragment test's own branches, where libpcap's `jset`
/// block has them the other way round, and pulled `icmp6`'s link type test up
/// beside the IPv4 ones, which decided it (`pcapc/tests/short_loads.rs`). The 624
/// under `ip6 protochain` on the Juniper types whose payload offset libpcap leaves
/// unset are gone too: its first load's wrapped offset is modelled (`protochain_far`).
const SHORT_BUDGET_MORE: u64 = 37;

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
            total.mismatches_short <= SHORT_BUDGET_MORE,
            "more short-packet mismatches than the budget ({SHORT_BUDGET_MORE})\n{}\n{again}",
            total.summary()
        );
    }
}
