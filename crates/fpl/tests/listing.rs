//! A program's listing compiles back to the same checked IR: the parser, the
//! lowering and the listing agree on every construct `gen` draws and on the
//! seeds' examples.

use netsift_fpl::externs::{sum8, Call, ExternFn, Externs};
use netsift_fpl::{compile, gen, Options};
use proptest::prelude::*;

fn registry() -> Externs {
    let mut r = Externs::new();
    r.register(sum8());
    r.register(ExternFn::new(
        "GetDynTCPDPortFromRTSP",
        0,
        0,
        |_: Call<'_>| 0,
    ));
    r
}

fn round_trip(text: &str) {
    let opts = Options {
        mbuf_len: 256,
        ..Options::default()
    };
    let Ok(p) = compile(text, &opts, &registry()) else {
        return;
    };
    let listed = p.to_string();
    let q = compile(&listed, &opts, &registry())
        .unwrap_or_else(|e| panic!("{text}\n---\n{listed}\n---\n{e}"));
    assert_eq!(p.body(), q.body(), "{text}\n---\n{listed}");
    assert_eq!(p.cost(), q.cost());
    assert_eq!(listed, q.to_string());
}

#[test]
fn examples_round_trip() {
    for text in [
        include_str!("../examples/fig6_flow_counts.fpl"),
        include_str!("../examples/fig7_rtsp_ports.fpl"),
        include_str!("../examples/table1_udp.fpl"),
        "R[0] = -9223372036854775807 - 1; R[1] = PKT.W[R[0] & 7].S4[R[2] & 3]; RETURN;",
    ] {
        round_trip(text);
    }
    let p = compile(
        include_str!("../examples/fig7_rtsp_ports.fpl"),
        &Options::default(),
        &registry(),
    )
    .unwrap();
    assert!(
        p.to_string()
            .contains("FOR (R[1] = 0; (R[1] < R[0]); R[1] += 1) // bound 2048"),
        "{p}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn generated_programs_round_trip(seed in prop::collection::vec(any::<u8>(), 0..200)) {
        round_trip(&gen::program(&seed));
    }
}
