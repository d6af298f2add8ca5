//! Compiles many random expressions with both compilers (no packets) and lists where
//! one refuses and the other compiles: the refusal half of the random test, on deeper
//! expressions than its mix has.
//!
//! `cargo run --release -p netsift-conformance --example refusal_scan -- SEED N DEPTH`
//! (N expressions a link type, each `DEPTH` levels deep at most; defaults 1, 2000, 5).

use netsift_conformance::exprgen::ExprGen;
use netsift_conformance::synth::Rng;
use netsift_conformance::LinkType;
use netsift_oracle::Filter;

fn main() {
    if std::env::args().nth(1).as_deref() == Some("-") {
        // `- LT`: each line of stdin, for that link type: both outcomes.
        let lt = std::env::args()
            .nth(2)
            .and_then(|n| {
                LinkType::SUPPORTED
                    .into_iter()
                    .find(|l| l.name() == Some(n.as_str()))
            })
            .expect("a supported link type name");
        for line in std::io::stdin().lines() {
            let e = line.expect("stdin");
            let l = Filter::compile(lt, &e).err().unwrap_or_else(|| "ok".into());
            let n = netsift_pcapc::compile(&e, lt)
                .err()
                .map(|m| m.to_string().lines().next().unwrap_or("").to_string())
                .unwrap_or_else(|| "ok".into());
            println!(
                "{}\t{l}\t{n}\t{e}",
                if (l == "ok") == (n == "ok") {
                    "same"
                } else {
                    "DIFF"
                }
            );
        }
        return;
    }
    let arg = |i: usize, default: u64| -> u64 {
        std::env::args()
            .nth(i)
            .map(|s| s.parse().expect("a number"))
            .unwrap_or(default)
    };
    let (seed, n, depth) = (arg(1, 1), arg(2, 2000) as usize, arg(3, 5) as u32);
    let (mut both, mut differ) = (0usize, 0usize);
    for lt in LinkType::SUPPORTED {
        let mut g = ExprGen::new(seed ^ Rng::seed_from_str(lt.name().unwrap_or("?")), lt);
        for _ in 0..n {
            let e = g.expr(depth);
            let libpcap = Filter::compile(lt, &e);
            let netsift = netsift_pcapc::compile(&e, lt);
            match (&libpcap, &netsift) {
                (Ok(_), Ok(_)) | (Err(_), Err(_)) => both += 1,
                (Err(m), Ok(_)) => {
                    differ += 1;
                    println!("[{lt}] libpcap refuses ({m}), netsift compiles: {e}");
                }
                (Ok(_), Err(m)) => {
                    differ += 1;
                    let m = m.to_string();
                    let m = m.lines().next().unwrap_or("");
                    println!("[{lt}] netsift refuses ({m}), libpcap compiles: {e}");
                }
            }
        }
    }
    println!("refusal_scan: seed {seed}, depth {depth}: {both} agree, {differ} differ");
}
