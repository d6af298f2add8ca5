//! Runs expressions read from stdin (one a line) over captures, netsift against
//! libpcap, and prints the report: a tool for looking at one shape at a time.
//!
//! `cargo run --release -p netsift-conformance --example probe -- [LT|all] [corpus] [snap N]`
//! (default: every supported link type, the generated captures, packets as they are).
//! With `snap N` every packet is also cut to N captured bytes (its wire length kept),
//! as a capture with that snap length has it.

use netsift_conformance::*;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let lt_arg = args.first().cloned().unwrap_or_else(|| "all".into());
    let corpus = args.iter().any(|a| a == "corpus");
    let snap: Option<usize> = args
        .iter()
        .position(|a| a == "snap")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.parse().expect("a snap length"));
    let exprs: Vec<String> = std::io::stdin()
        .lines()
        .map(|l| l.expect("stdin"))
        .filter(|l| !l.trim().is_empty())
        .collect();
    let mut by_lt = if corpus {
        let dir = corpus_dir().expect("corpus");
        load_corpus_captures(&dir).by_linktype
    } else {
        generated_capture_data()
    };
    if let Some(n) = snap {
        for caps in by_lt.values_mut() {
            for c in caps.iter_mut() {
                for p in c.packets.iter_mut() {
                    p.data.truncate(n);
                }
            }
        }
    }
    let cmp = Comparison::new(&Netsift);
    let mut total = Report::new("probe", "netsift");
    for lt in LinkType::SUPPORTED {
        if lt_arg != "all" && lt.name() != Some(lt_arg.as_str()) {
            continue;
        }
        let caps: Vec<&CaptureData> = by_lt
            .get(&lt)
            .map(|v| v.iter().collect())
            .unwrap_or_default();
        let mut r = Report::new(&format!("probe {lt}"), "netsift");
        cmp.run(lt, &exprs, &caps, &mut r);
        total.merge(r);
    }
    println!("{}", total.render(40, 4));
    println!(
        "whole-packet mismatches: {}, short-packet mismatches: {}",
        total.mismatches - total.mismatches_short,
        total.mismatches_short
    );
    let mut full: Vec<(LinkType, &str)> = total
        .full_samples
        .iter()
        .map(|m| (m.linktype, m.expr.as_str()))
        .collect();
    full.dedup();
    for (lt, e) in full {
        println!("whole-packet mismatch: [{lt}] {e:?}");
    }
    for d in &total.candidate_accepts {
        println!(
            "libpcap refuses, netsift compiles: [{}] {:?}: {}",
            d.linktype, d.expr, d.message
        );
    }
    for d in &total.candidate_rejects {
        println!(
            "netsift refuses, libpcap compiles: [{}] {:?}: {}",
            d.linktype, d.expr, d.message
        );
    }
}
