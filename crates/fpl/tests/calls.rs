//! Filter calls (`EXTERN` of another filter, docs/fpl.md "Filter calls"):
//! what a callee sees (its window of the caller's MBuf, registers of its own,
//! its result at `out`), the compile-time checks with their line and column
//! (a missing callee, a window or result outside MBuf, cycles, depth, cost,
//! a callee's own calls), and the JIT against the interpreter on all of it and
//! on programs `gen::calling` draws.

use netsift_fpl::externs::{sum8, Externs};
use netsift_fpl::jit::Jit;
use netsift_fpl::{
    compile_with, define, gen, run, Definition, ErrorKind, Fault, Filters, Options, Program,
    Registers, Verdict,
};
use std::sync::OnceLock;

fn jit() -> &'static Jit {
    static JIT: OnceLock<Jit> = OnceLock::new();
    JIT.get_or_init(|| Jit::new().expect("a Cranelift back end"))
}

fn registry() -> Externs {
    let mut r = Externs::new();
    r.register(sum8());
    r
}

fn opts(mbuf_len: usize) -> Options {
    Options {
        mbuf_len,
        ..Options::default()
    }
}

/// A definition: name, text, MBuf size.
type Def<'a> = (&'a str, &'a str, usize);

/// `defs` compiled, or the error's text.
fn filters(defs: &[Def<'_>]) -> Result<Filters, String> {
    let defs: Vec<_> = defs
        .iter()
        .map(|&(name, text, mbuf_len)| Definition {
            name,
            text,
            mbuf_len,
        })
        .collect();
    define(&defs, &Options::default(), &registry()).map_err(|e| e.to_string())
}

fn caller(text: &str, mbuf_len: usize, defs: &[Def<'_>]) -> Program {
    let f = filters(defs).unwrap_or_else(|e| panic!("{e}"));
    compile_with(text, &opts(mbuf_len), &registry(), &f).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `p` by the interpreter and the JIT from the same state; they must
/// agree on the verdict, MBuf and registers. The interpreter's state stays.
fn both(p: &Program, packet: &[u8], mbuf: &mut [u8], regs: &mut Registers) -> Verdict {
    let (mut jmbuf, mut jregs) = (mbuf.to_vec(), *regs);
    let v = run(p, packet, mbuf, regs);
    let j = jit()
        .compile(p)
        .unwrap()
        .run(packet, &mut jmbuf, &mut jregs);
    assert_eq!(j, v, "verdict\n{p}");
    assert_eq!(jregs, *regs, "registers\n{p}");
    assert!(jmbuf == mbuf, "MBuf\n{p}");
    v
}

fn slot(mbuf: &[u8], i: usize) -> i64 {
    i64::from_le_bytes(mbuf[8 * i..8 * i + 8].try_into().unwrap())
}

#[test]
fn a_callee_runs_on_its_window_with_registers_of_its_own() {
    // The callee counts in its MEM[0], returns its R[0] (0: its own) plus
    // MEM[1] and the packet's first byte, and sets R[1], which is its own.
    let inc = "MEM[0]++; R[1] = 77; RETURN R[0] + MEM[1] + PKT.B[0];";
    let p = caller(
        "R[0] = 5; R[2] = EXTERN(inc, 16, 48); R[3] = EXTERN(inc, 32, 56); RETURN R[1];",
        64,
        &[("inc", inc, 16)],
    );
    assert_eq!((p.filters().len(), p.call_depth()), (1, 1));
    let mut mbuf = vec![0u8; 64];
    mbuf[24..32].copy_from_slice(&100i64.to_le_bytes()); // the first window's MEM[1]
    let mut regs = [0; 16];
    for n in 1..=3 {
        assert_eq!(both(&p, &[9], &mut mbuf, &mut regs), Verdict::Return(0));
        // Slots 2 and 4: each window's counter; 6 and 7: the results.
        assert_eq!([2, 3, 4, 6, 7].map(|i| slot(&mbuf, i)), [n, 100, n, 109, 9]);
        assert_eq!(&regs[..4], &[5, 0, 109, 9]);
    }
    assert_eq!(slot(&mbuf, 0) + slot(&mbuf, 1), 0, "outside the windows");
}

#[test]
fn a_callee_fault_is_its_result_0_and_the_caller_goes_on() {
    // The callee reads past its 16-byte window (MEM[2]) on packets whose first
    // byte is 1, and past the packet on empty ones.
    let p = caller(
        "R[0] = EXTERN(f, 0, 16); MEM[3] = 7; RETURN R[0] + 1;",
        32,
        &[("f", "MEM[0] = 3; RETURN MEM[PKT.B[0] * 2] + 10;", 16)],
    );
    let mut regs = [0; 16];
    for (packet, result) in [(&[0u8][..], 14), (&[1], 1), (&[], 1)] {
        let mut mbuf = vec![0u8; 32];
        assert_eq!(
            both(&p, packet, &mut mbuf, &mut regs),
            Verdict::Return(result)
        );
        // The callee's write before its fault stays, as a caller's does.
        assert_eq!([0, 2, 3].map(|i| slot(&mbuf, i)), [3, result - 1, 7]);
    }
}

#[test]
fn regions_past_the_runs_mbuf_fault_in_the_caller() {
    let p = caller(
        "MEM[0] = 1; RETURN EXTERN(f, 8, 24) + 1;",
        32,
        &[("f", "RETURN 5;", 16)],
    );
    let mut regs = [0; 16];
    // Checked against 32 bytes; a run with less faults before the call.
    for len in [0, 8, 16, 24, 31] {
        let mut mbuf = vec![0u8; len];
        let want = if len < 8 {
            Fault::MemBounds
        } else {
            Fault::ExternBounds
        };
        assert_eq!(both(&p, &[], &mut mbuf, &mut regs), Verdict::Fault(want));
    }
    let mut mbuf = vec![0u8; 32];
    assert_eq!(both(&p, &[], &mut mbuf, &mut regs), Verdict::Return(6));
    assert_eq!(slot(&mbuf, 3), 5);
}

#[test]
fn calls_nest_and_a_shared_callee_is_compiled_once() {
    let defs = [
        ("leaf", "MEM[0] += 1; RETURN MEM[0];", 8),
        (
            "mid",
            "R[0] = EXTERN(leaf, 0, 8); RETURN R[0] * 10 + EXTERN(leaf, 0, 8);",
            16,
        ),
        (
            "top",
            "RETURN EXTERN(mid, 0, 16) + EXTERN(leaf, 0, 24);",
            32,
        ),
    ];
    let p = caller("RETURN EXTERN(top, 8, 0);", 40, &defs);
    assert_eq!(p.call_depth(), 3);
    let mut mbuf = vec![0u8; 40];
    let mut regs = [0; 16];
    // leaf's counter at byte 8: mid sees 1 then 2 (12), top's own call 3.
    assert_eq!(both(&p, &[], &mut mbuf, &mut regs), Verdict::Return(15));
    assert_eq!([0, 1, 2, 3, 4].map(|i| slot(&mbuf, i)), [15, 3, 2, 12, 3]);
}

#[test]
fn errors_point_at_the_call() {
    let f = filters(&[("win", "RETURN MEM[0];", 16)]).unwrap();
    let err = |text: &str, mbuf| compile_with(text, &opts(mbuf), &registry(), &f).unwrap_err();
    let e = err("R[0] = 1;\n  R[1] = EXTERN(nope, 0, 8);", 64);
    assert_eq!(
        (e.kind(), e.line(), e.column()),
        (ErrorKind::Invalid, 2, 17)
    );
    assert!(
        e.to_string().contains(
            "no external function `nope` is registered and no filter of that name is defined"
        ),
        "{e}"
    );
    let e = err("R[1] = EXTERN(win, 56, 0);", 64);
    assert_eq!((e.kind(), e.line(), e.column()), (ErrorKind::Unsafe, 1, 20));
    assert!(
        e.to_string()
            .contains("EXTERN `win` (a filter) runs on its MBuf in 16 bytes at MBuf offset 56, outside the 64-byte MBuf"),
        "{e}"
    );
    let e = err("EXTERN(\"win\", 0, 60);", 64);
    assert_eq!((e.kind(), e.column()), (ErrorKind::Unsafe, 18));
    assert!(
        e.to_string().contains("writes its result in 8 bytes"),
        "{e}"
    );
    let e = err("EXTERN(win, 0 - 8, 0);", 64);
    assert_eq!(e.kind(), ErrorKind::Unsafe);
    assert!(err("EXTERN(win, R[0], 0);", 64)
        .to_string()
        .contains("must be a constant"));
}

#[test]
fn definitions_are_checked_and_ordered() {
    // Callees may come after their callers in the list.
    let f = filters(&[
        ("a", "RETURN EXTERN(b, 0, 8) + 1;", 16),
        ("b", "RETURN 41;", 8),
    ])
    .unwrap();
    assert_eq!(f.names().collect::<Vec<_>>(), ["a", "b"]);
    let cases: [(&[Def<'_>], &str); 7] = [
        (
            &[("a", "RETURN EXTERN(b, 0, 8);", 16), ("b", "R[0] = 1;\nEXTERN(a, 0, 8);", 16)],
            "filter `b`: filter calls form a cycle: a → b → a (line 2, column 8)",
        ),
        (&[("self", "EXTERN(self, 0, 8);", 16)], "filter `self`: filter calls form a cycle: self → self (line 1, column 8)"),
        (&[("a", "RETURN 1;", 8), ("a", "RETURN 2;", 8)], "filter `a`: is defined twice (definitions 1 and 2)"),
        (&[("SUM8", "RETURN 1;", 8)], "has the name of a registered external function"),
        (&[("1x", "RETURN 1;", 8)], "is not a filter name"),
        // A callee may call only registered functions.
        (&[("a", "\n EXTERN(system, 0, 0);", 8)], "filter `a`: no external function `system` is registered (line 2, column 9)"),
        (&[("big", "RETURN EXTERN(small, 0, 8);", 16), ("small", "RETURN MEM[2];", 24)],
         "filter `big`: EXTERN `small` (a filter) runs on its MBuf in 24 bytes at MBuf offset 0, outside the 16-byte MBuf"),
    ];
    for (defs, want) in cases {
        let e = filters(defs).unwrap_err();
        assert!(e.contains(want), "{e}\nwanted: {want}");
    }
}

#[test]
fn depth_and_cost_include_the_callees() {
    // A chain f0 <- f1 <- … : f(k) calls f(k-1).
    let texts: Vec<String> = (0..10)
        .map(|k| match k {
            0 => "RETURN 1;".to_string(),
            k => format!("RETURN EXTERN(f{}, 0, 0);", k - 1),
        })
        .collect();
    let names: Vec<String> = (0..10).map(|k| format!("f{k}")).collect();
    let defs: Vec<_> = (0..8)
        .map(|k| (names[k].as_str(), texts[k].as_str(), 8))
        .collect();
    let f = filters(&defs).unwrap();
    assert_eq!(f.get("f7").unwrap().call_depth(), 7);
    let p = compile_with("RETURN EXTERN(f7, 0, 0);", &opts(8), &registry(), &f).unwrap();
    assert_eq!(p.call_depth(), 8);
    assert_eq!(both(&p, &[], &mut [0; 8], &mut [0; 16]), Verdict::Return(1));
    let defs: Vec<_> = (0..10)
        .map(|k| (names[k].as_str(), texts[k].as_str(), 8))
        .collect();
    let e = filters(&defs).unwrap_err();
    assert!(e.contains("filter `f9`: calling filter `f8` nests filter calls 9 deep, more than the limit of 8 (line 1, column 15)"), "{e}");

    // A loop of 1000 calls of a 1000-step callee: a million operations, more
    // than a smaller limit, refused at the loop.
    let f = filters(&[(
        "spin",
        "FOR (R[0] = 0; R[0] < 1000; R[0]++) R[1] += R[0]; ROF RETURN R[1];",
        8,
    )])
    .unwrap();
    let spin = f.get("spin").unwrap().cost();
    let p = compile_with("RETURN EXTERN(spin, 0, 0);", &opts(8), &registry(), &f).unwrap();
    assert!(
        p.cost() > spin && p.cost() < spin + 10,
        "{} {spin}",
        p.cost()
    );
    let text = "R[2] = 0;\nFOR (R[0] = 0; R[0] < 1000; R[0]++) R[1] = EXTERN(spin, 0, 0); ROF";
    let small = Options {
        mbuf_len: 8,
        max_cost: 1_000_000,
        ..Options::default()
    };
    let e = compile_with(text, &small, &registry(), &f).unwrap_err();
    assert_eq!((e.kind(), e.line(), e.column()), (ErrorKind::Unsafe, 2, 1));
    assert_eq!(
        both(
            &compile_with("RETURN EXTERN(spin, 0, 0);", &opts(8), &registry(), &f).unwrap(),
            &[],
            &mut [0; 8],
            &mut [0; 16]
        ),
        Verdict::Return(499_500)
    );
}

#[test]
fn the_listing_names_the_callee_and_compiles_back() {
    let defs = [("inc", "MEM[0]++; RETURN MEM[0];", 8)];
    let p = caller("R[0] = EXTERN(inc, 8, 0) + 1;", 16, &defs);
    let listed = p.to_string();
    assert!(listed.contains("EXTERN(\"inc\", 8, 0)"), "{listed}");
    let q = caller(&listed, 16, &defs);
    assert_eq!((p.body(), p.cost()), (q.body(), q.cost()));
}

/// `gen::calling` programs: the filters defined, the caller compiled, both
/// executors run from the same state on random packets and MBufs of every
/// size around the one checked against, state kept from run to run.
#[test]
fn generated_calling_programs_agree() {
    let mut rng = 0x2b2b_2b2b_2b2b_2b2bu64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let (mut compiled, mut calls) = (0, 0);
    for _ in 0..1500 {
        let choices: Vec<u8> = (0..160).map(|_| next() as u8).collect();
        let drawn = gen::calling(&choices);
        let Ok(f) = define(&drawn.definitions(), &Options::default(), &registry()) else {
            continue;
        };
        let Ok(p) = compile_with(&drawn.program, &opts(gen::CALLER_MBUF), &registry(), &f) else {
            continue;
        };
        compiled += 1;
        // The listing names the callees and compiles back to the same IR.
        let listed = compile_with(&p.to_string(), &opts(gen::CALLER_MBUF), &registry(), &f)
            .unwrap_or_else(|e| panic!("{p}\n{e}"));
        assert_eq!(listed.body(), p.body());
        calls += usize::from(!p.filters().is_empty());
        let code = jit().compile(&p).unwrap();
        let mbuf_len = [0, 64, 300, gen::CALLER_MBUF, 600][(next() % 5) as usize];
        let mut mbuf: Vec<u8> = (0..mbuf_len).map(|_| next() as u8).collect();
        let mut regs = [0i64; 16].map(|_| (next() % 64) as i64);
        let (mut jmbuf, mut jregs) = (mbuf.clone(), regs);
        for _ in 0..4 {
            let mut packet: Vec<u8> = (0..next() % 80).map(|_| next() as u8).collect();
            if packet.len() > 34 && next() % 2 == 0 {
                packet[12..14].copy_from_slice(&[8, 0]);
                packet[14] = 0x45;
                packet[23] = [6, 17][(next() % 2) as usize];
            }
            let v = run(&p, &packet, &mut mbuf, &mut regs);
            let j = code.run(&packet, &mut jmbuf, &mut jregs);
            assert_eq!(j, v, "{drawn:#?}\n{p}");
            assert_eq!(jregs, regs, "{drawn:#?}");
            assert!(jmbuf == mbuf, "{drawn:#?}");
        }
    }
    // The generator must reach the executors, and with calls.
    eprintln!("{compiled} of 1500 compiled, {calls} calling a filter");
    assert!(
        compiled > 600 && calls > 500,
        "{compiled} compiled, {calls} with calls"
    );
}
