//! Prints the compiled program of many expressions, one block per (link type,
//! expression), so that two builds of pcapc can be compared byte for byte: a change
//! meant only to make compilation faster must leave this output unchanged.
//!
//! The expressions are every line of the corpus accept lists (compiled for every
//! supported link type, not only their own, so error paths are covered too) and
//! `random.rs`'s generated expressions for each link type (same seeds, COUNT of
//! them per link type, default 3000).
//!
//! Usage: `cargo run --release -p netsift-conformance --example compile_dump [COUNT] > out.txt`
//! on each build, then `cmp` the two files. With `-` as the argument it compiles the
//! lines of stdin instead, for EN10MB (for hand-picked shapes such as `compile_bench`'s).

use std::collections::HashSet;

use netsift_conformance::exprgen::ExprGen;
use netsift_conformance::synth::Rng;
use netsift_conformance::{corpus_dir, read_accept_list};
use netsift_wire::LinkType;

/// `random.rs`'s default seed, so the generated expressions include the ones it tests.
const SEED: u64 = 0x6e73_2024_0001;

fn dump(lt: LinkType, expr: &str) {
    let name = lt.name().unwrap_or("?");
    match netsift_pcapc::compile(expr, lt) {
        Ok(set) => println!("== {name} {expr:?}\n{set}"),
        Err(e) => println!("== {name} {expr:?}\nerror: {e}"),
    }
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("-") {
        for line in std::io::stdin().lines() {
            dump(LinkType::EN10MB, &line.expect("stdin"));
        }
        return;
    }
    let count: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3000);
    let mut corpus_exprs = Vec::new();
    if let Some(root) = corpus_dir() {
        for lt in LinkType::SUPPORTED {
            corpus_exprs.extend(read_accept_list(&root, lt));
        }
    }
    let mut seen = HashSet::new();
    corpus_exprs.retain(|e| seen.insert(e.clone()));
    for lt in LinkType::SUPPORTED {
        for e in &corpus_exprs {
            dump(lt, e);
        }
        let mut g = ExprGen::new(SEED ^ Rng::seed_from_str(lt.name().unwrap_or("?")), lt);
        for _ in 0..count {
            dump(lt, &g.next_expr());
        }
    }
}
