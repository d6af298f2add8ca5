//! The random test's expressions over the shared corpus's captures instead of the
//! generated ones: real packets, many cut short by a snap length, against libpcap.
//!
//! `cargo run --release -p netsift-conformance --example random_on_corpus -- SEED N`
//! runs N expressions a link type (default seed 77, N 200) and writes the full report
//! to `/tmp/netsift-conformance/random-on-corpus.txt`.

use netsift_conformance::exprgen::ExprGen;
use netsift_conformance::synth::Rng;
use netsift_conformance::*;
use std::collections::HashSet;

fn main() {
    let arg = |i: usize, default: u64| -> u64 {
        std::env::args()
            .nth(i)
            .map(|s| s.parse().expect("a number"))
            .unwrap_or(default)
    };
    let (seed, n) = (arg(1, 77), arg(2, 200) as usize);
    let Some(dir) = corpus_dir() else {
        eprintln!("no corpus at {}", corpus_dir_candidate().display());
        std::process::exit(2);
    };
    let corpus = load_corpus_captures(&dir);
    let cmp = Comparison::new(&Netsift);
    let mut total = Report::new("random on corpus", "netsift");
    for lt in LinkType::SUPPORTED {
        let caps: Vec<&CaptureData> = corpus.captures(lt).iter().collect();
        if caps.is_empty() {
            continue;
        }
        let mut g = ExprGen::new(seed ^ Rng::seed_from_str(lt.name().unwrap_or("?")), lt);
        let mut seen = HashSet::new();
        let mut exprs = Vec::with_capacity(n);
        while exprs.len() < n {
            let e = g.next_expr();
            if seen.insert(e.clone()) {
                exprs.push(e);
            }
        }
        let mut r = Report::new(&format!("random on corpus {lt}"), "netsift");
        cmp.run(lt, &exprs, &caps, &mut r);
        println!("{}", r.summary());
        total.merge(r);
    }
    println!("{}", total.render(30, 10));
    if let Some(p) = total.write_full(&report_dir(), "random-on-corpus.txt") {
        println!("full report: {}", p.display());
    }
}
