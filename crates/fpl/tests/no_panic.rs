//! No text panics the compiler and no compiled program panics the interpreter,
//! whatever the packet and whatever MBuf it is given (the fuzz target `fpl`
//! does the same for longer).

use netsift_fpl::externs::{sum8, Externs};
use netsift_fpl::{compile, gen, run, Options};
use proptest::prelude::*;

fn registry() -> Externs {
    let mut r = Externs::new();
    r.register(sum8());
    r
}

/// Tokens of FPL and a few that are not.
const VOCAB: [&str; 40] = [
    "IF", "THEN", "ELSE", "FI", "FOR", "ROF", "BREAK", "RETURN", "EXTERN", "HASH", "PKT", ".", "B",
    "W", "DW", "U8", "S1", "R", "MEM", "[", "]", "(", ")", ";", ",", "=", "+=", "++", "<<", "&&",
    "!", "-", "0", "7", "65535", "IP_PROTO", "SUM8", "\"SUM8\"", "'A'", "@",
];

fn exercise(text: &str, packet: &[u8], mbuf_len: usize) {
    let opts = Options {
        mbuf_len: 256,
        ..Options::default()
    };
    if let Ok(p) = compile(text, &opts, &registry()) {
        let mut mbuf = vec![0u8; mbuf_len];
        let mut regs = [0i64; 16];
        for _ in 0..3 {
            run(&p, packet, &mut mbuf, &mut regs);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn token_soup(words in prop::collection::vec(0..VOCAB.len(), 0..60), packet in prop::collection::vec(any::<u8>(), 0..80)) {
        let text: Vec<&str> = words.iter().map(|&i| VOCAB[i]).collect();
        exercise(&text.join(" "), &packet, 256);
    }

    #[test]
    fn any_text(text in ".{0,200}", packet in prop::collection::vec(any::<u8>(), 0..80)) {
        exercise(&text, &packet, 256);
    }

    #[test]
    fn generated_programs(seed in prop::collection::vec(any::<u8>(), 0..200), packet in prop::collection::vec(any::<u8>(), 0..120), mbuf_len in 0usize..300) {
        exercise(&gen::program(&seed), &packet, mbuf_len);
    }
}

/// Most generated programs must compile, or the generator tests nothing past the parser.
#[test]
fn generated_programs_mostly_compile() {
    let opts = Options {
        mbuf_len: 256,
        ..Options::default()
    };
    let mut ok = 0;
    for i in 0..1000u32 {
        let seed: Vec<u8> = (0..200u32)
            .map(|j| (i.wrapping_mul(2_654_435_761).wrapping_add(j * 40_503) >> 13) as u8)
            .collect();
        let text = gen::program(&seed);
        match compile(&text, &opts, &registry()) {
            Ok(_) => ok += 1,
            Err(e) => assert_ne!(e.kind(), netsift_fpl::ErrorKind::Syntax, "{text}\n{e}"),
        }
    }
    assert!(ok > 800, "{ok} of 1000 compiled");
}

/// The deepest program the parser accepts runs on a test thread's 2 MiB stack:
/// statements nested as far as allowed around the deepest expression allowed.
#[test]
fn deepest_accepted_program_runs() {
    let levels = 190;
    let chain = format!("R[1]{}", " + PKT.B[0]".repeat(190));
    let text = format!(
        "{}R[0] = {chain}; RETURN R[0];{}",
        "IF PKT.B[0] THEN ".repeat(levels),
        " FI".repeat(levels)
    );
    let opts = Options {
        mbuf_len: 256,
        ..Options::default()
    };
    let p = compile(&text, &opts, &registry()).unwrap_or_else(|e| panic!("{e}"));
    let v = run(&p, &[1], &mut [0; 256], &mut [0; 16]);
    assert_eq!(v.value(), 190);
    let wrapped = text.replace(
        &chain,
        &format!("{}{chain}{}", "(".repeat(20), ")".repeat(20)),
    );
    let e = compile(&wrapped, &opts, &registry()).unwrap_err();
    assert!(
        e.message().contains("nesting deeper than 200"),
        "parentheses count too: {e}"
    );
    let listed = p.to_string();
    assert!(listed.len() > text.len());
}

#[test]
fn programs_are_send_and_sync() {
    fn shared<T: Send + Sync>(_: &T) {}
    shared(&compile("RETURN 1;", &Options::default(), &registry()).unwrap());
}
