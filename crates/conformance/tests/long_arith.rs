//! Long arithmetic relations (an ARITH head and CONT slots) and libpcap's register
//! limit, netsift against libpcap: random deep expressions over the generated
//! captures of every supported link type and, when the corpus is there, its captures
//! of that link type.
//!
//! `NETSIFT_SEED=<n>` replays a run.

use std::collections::HashSet;

use netsift_conformance::exprgen::ExprGen;
use netsift_conformance::synth::Rng;
use netsift_conformance::*;

const DEFAULT_SEED: u64 = 0x6e73_2026_a417;

#[test]
fn long_arithmetic() {
    let seed = seed_from_env(DEFAULT_SEED);
    println!("long arithmetic: seed {seed:#x} (NETSIFT_SEED={seed:#x} reproduces this run)");
    let corpus = require_corpus().map(|d| load_corpus_captures(&d));
    let generated = generated_capture_data();
    let cmp = Comparison::new(&Netsift);
    let mut total = Report::new("long arithmetic", "netsift");
    let (mut chained, mut refused_regs) = (0usize, 0usize);
    for lt in LinkType::SUPPORTED {
        let mut g = ExprGen::new(seed ^ Rng::seed_from_str(lt.name().unwrap_or("?")), lt);
        let mut seen = HashSet::new();
        let mut exprs = Vec::new();
        while exprs.len() < 60 {
            let e = g.long_relation();
            if seen.insert(e.clone()) {
                exprs.push(e);
            }
        }
        for e in &exprs {
            match netsift_pcapc::compile(e, lt) {
                Ok(set) => {
                    let cont = set
                        .passes()
                        .iter()
                        .flat_map(|p| p.instructions())
                        .any(|i| i.decode().opcode == Some(netsift_isa::Opcode::ArithCont));
                    chained += cont as usize;
                }
                Err(err) if err.to_string().contains("too many registers") => refused_regs += 1,
                Err(_) => {}
            }
        }
        let mut caps: Vec<&CaptureData> = generated[&lt].iter().collect();
        if let Some(c) = &corpus {
            caps.extend(c.captures(lt));
        }
        let mut r = Report::new(&format!("long arithmetic {lt}"), "netsift");
        cmp.run(lt, &exprs, &caps, &mut r);
        println!("{}", r.summary());
        total.merge(r);
    }
    println!("{}", total.render(30, 10));
    println!(
        "long arithmetic: {chained} expressions compiled to ARITH + CONT slots, {refused_regs} \
         refused for libpcap's register limit"
    );
    assert!(
        !total.failed()
            && total.mismatches == 0
            && total.candidate_accepts.is_empty()
            && total.candidate_rejects.is_empty(),
        "{}\nrerun with NETSIFT_SEED={seed:#x}",
        total.summary()
    );
    // The test is about chains: most expressions must need one.
    assert!(
        chained > 100,
        "only {chained} expressions needed CONT slots"
    );
}
