//! The JIT against the reference interpreter: random programs from
//! `netsift_fpl::gen` on random packets, MBufs and registers (the same result,
//! MBuf and registers afterwards, run after run), every operator on edge
//! values, each fault with the writes made before it, and what is special to
//! native code: a panicking external function, runs from several threads.
#![cfg(feature = "jit")]

use netsift_fpl::externs::{sum8, ExternFn, Externs};
use netsift_fpl::jit::{Jit, JitProgram};
use netsift_fpl::{
    compile, compile_with, define, gen, run, Fault, Options, Program, Registers, Verdict,
};
use proptest::prelude::*;
use std::sync::OnceLock;

fn jit() -> &'static Jit {
    static JIT: OnceLock<Jit> = OnceLock::new();
    JIT.get_or_init(|| Jit::new().expect("a Cranelift back end for this host"))
}

fn registry() -> Externs {
    let mut r = Externs::new();
    r.register(sum8());
    r
}

fn prog(text: &str, mbuf_len: usize) -> Program {
    let opts = Options {
        mbuf_len,
        ..Options::default()
    };
    compile(text, &opts, &registry()).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `program` through both executors from the same state, asserts they
/// agree on the verdict, MBuf and registers, and leaves the common state in
/// `mbuf` and `regs`.
fn agree(
    program: &Program,
    code: &JitProgram,
    packet: &[u8],
    mbuf: &mut [u8],
    regs: &mut Registers,
) -> Verdict {
    let (mut jmbuf, mut jregs) = (mbuf.to_vec(), *regs);
    let want = run(program, packet, mbuf, regs);
    let got = code.run(packet, &mut jmbuf, &mut jregs);
    assert_eq!(got, want, "verdict\n{program}\npacket {packet:02x?}");
    assert_eq!(jregs, *regs, "registers\n{program}");
    assert!(jmbuf == mbuf, "MBuf\n{program}");
    want
}

fn both(text: &str, packet: &[u8]) -> Verdict {
    let p = prog(text, 64);
    let code = jit().compile(&p).unwrap();
    agree(&p, &code, packet, &mut [0; 64], &mut [0; 16])
}

/// A packet: random bytes, half the time made to look like Ethernet, IPv4 and
/// TCP or UDP so that the macros' guards pass and the transport fields are read.
fn packet() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(any::<u8>(), 0..160),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(mut p, shaped, tcp)| {
            if shaped && p.len() >= 34 {
                p[12..14].copy_from_slice(&[8, 0]);
                p[14] = 0x45 + (p[14] & 1) * 2; // sometimes with options
                p[20] &= 0x40; // mostly not a fragment
                p[23] = if tcp { 6 } else { 17 };
            }
            p
        })
}

fn registers() -> impl Strategy<Value = Registers> {
    prop::array::uniform16(prop_oneof![
        4 => -3i64..48,
        1 => any::<i64>(),
    ])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    /// The property test of issue 25: every random program that compiles runs
    /// alike in both executors, on the packet and on cut copies, with MBufs
    /// smaller and larger than the one it was checked against.
    #[test]
    fn random_programs_agree(
        choices in prop::collection::vec(any::<u8>(), 0..256),
        packet in packet(),
        mbuf_len in prop_oneof![Just(256usize), Just(0), 0usize..320],
        fill in any::<u8>(),
        mut regs in registers(),
    ) {
        let text = gen::program(&choices);
        let opts = Options { mbuf_len: 256, ..Options::default() };
        let Ok(program) = compile(&text, &opts, &registry()) else { return Ok(()) };
        let code = jit().compile(&program).unwrap();
        let mut mbuf: Vec<u8> = (0..mbuf_len).map(|i| fill.wrapping_mul(i as u8)).collect();
        for cut in [packet.len(), packet.len() / 2, packet.len(), 0] {
            agree(&program, &code, &packet[..cut], &mut mbuf, &mut regs);
        }
    }

    /// The same for programs that call filters (`gen::calling`): the filters
    /// defined, the caller compiled against them, MBufs around its size.
    #[test]
    fn random_calling_programs_agree(
        choices in prop::collection::vec(any::<u8>(), 0..256),
        packet in packet(),
        mbuf_len in prop_oneof![Just(gen::CALLER_MBUF), Just(0), 0usize..600],
        fill in any::<u8>(),
        mut regs in registers(),
    ) {
        let drawn = gen::calling(&choices);
        let Ok(filters) = define(&drawn.definitions(), &Options::default(), &registry()) else {
            return Ok(());
        };
        let opts = Options { mbuf_len: gen::CALLER_MBUF, ..Options::default() };
        let Ok(program) = compile_with(&drawn.program, &opts, &registry(), &filters) else {
            return Ok(());
        };
        let code = jit().compile(&program).unwrap();
        let mut mbuf: Vec<u8> = (0..mbuf_len).map(|i| fill.wrapping_mul(i as u8)).collect();
        for cut in [packet.len(), packet.len() / 2, packet.len(), 0] {
            agree(&program, &code, &packet[..cut], &mut mbuf, &mut regs);
        }
    }

    #[test]
    fn operators_agree(a in any::<i64>(), b in prop_oneof![any::<i64>(), -2i64..70], op in 0..16usize) {
        const OPS: [&str; 16] = [
            "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "==", "!=", "<", "<=", ">", ">=",
        ];
        let p = prog(&format!("RETURN R[3] {} R[4];", OPS[op]), 0);
        let code = jit().compile(&p).unwrap();
        let mut regs: Registers = [0; 16];
        (regs[3], regs[4]) = (a, b);
        agree(&p, &code, &[], &mut [], &mut regs);
    }
}

#[test]
fn operators_at_the_edges() {
    let edges = [
        0,
        1,
        -1,
        2,
        -7,
        63,
        64,
        65,
        i64::MIN,
        i64::MAX,
        i64::MIN + 1,
    ];
    for op in [
        "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "==", "!=", "<", "<=", ">", ">=", "&&",
        "||",
    ] {
        let p = prog(&format!("RETURN R[0] {op} R[1];"), 0);
        let code = jit().compile(&p).unwrap();
        for a in edges {
            for b in edges {
                let mut regs: Registers = [0; 16];
                (regs[0], regs[1]) = (a, b);
                agree(&p, &code, &[], &mut [], &mut regs);
            }
        }
    }
    for op in ["-", "!", "~"] {
        let p = prog(&format!("RETURN {op}R[0];"), 0);
        let code = jit().compile(&p).unwrap();
        for a in edges {
            agree(&p, &code, &[], &mut [], &mut [a; 16]);
        }
    }
}

#[test]
fn loads_and_their_bounds() {
    let pkt: Vec<u8> = (0..40).map(|i| 0xf0 ^ i).collect();
    for (text, want) in [
        ("RETURN PKT.B[0];", Verdict::Return(0xf0)),
        ("RETURN PKT.W[38];", Verdict::Return(0xd6d7)),
        ("RETURN PKT.DW[36];", Verdict::Return(0xd4d5d6d7)),
        ("RETURN PKT.W[39];", Verdict::Fault(Fault::PacketBounds)),
        ("RETURN PKT.DW[37];", Verdict::Fault(Fault::PacketBounds)),
        ("RETURN PKT.B[40];", Verdict::Fault(Fault::PacketBounds)),
        (
            "RETURN PKT.B[R[0] - 1];",
            Verdict::Fault(Fault::PacketBounds),
        ),
        ("RETURN PKT.DW[R[0] + 36];", Verdict::Return(0xd4d5d6d7)),
        (
            "RETURN PKT.DW[R[0] + 37];",
            Verdict::Fault(Fault::PacketBounds),
        ),
        (
            "RETURN PKT.B[R[0] + 0x7fffffffffffffff];",
            Verdict::Fault(Fault::PacketBounds),
        ),
        (
            "RETURN PKT.W[0].U8[1] + PKT.B[2].S4[0];",
            Verdict::Return(0xf1 - 1),
        ),
        (
            "RETURN PKT.DW[0].U1[R[0] + 32];",
            Verdict::Fault(Fault::Selector),
        ),
        ("RETURN PKT.DW[0].S2[R[0] + 15];", Verdict::Return(-1)),
        (
            "RETURN R[0].U32[R[0] - 1];",
            Verdict::Fault(Fault::Selector),
        ),
    ] {
        assert_eq!(both(text, &pkt), want, "{text}");
    }
    for len in 0..6 {
        for text in [
            "RETURN PKT.DW[R[0] + 1];",
            "RETURN PKT.W[1];",
            "RETURN PKT.B[3];",
        ] {
            both(text, &pkt[..len]);
        }
    }
}

#[test]
fn mbuf_slots_and_faults_keep_earlier_writes() {
    let text = "R[1] = 5; MEM[2] = -2; MEM[R[2]] += 7; R[3] = 9; RETURN MEM[2];";
    let p = prog(text, 64);
    let code = jit().compile(&p).unwrap();
    for (len, slot) in [
        (64, 2),
        (24, 2),
        (23, 2),
        (16, 1),
        (64, 7),
        (64, 8),
        (64, -1),
    ] {
        let mut regs: Registers = [0; 16];
        regs[2] = slot;
        let mut mbuf = vec![3u8; len];
        let v = agree(&p, &code, &[], &mut mbuf, &mut regs);
        let fits = (0..len as i64 / 8).contains(&slot) && len >= 24;
        assert_eq!(v.value() != 0, fits, "MBuf {len}, slot {slot}: {v:?}");
    }
}

#[test]
fn loops_break_return_and_bounds() {
    for text in [
        "FOR (R[1] = 0; R[1] < 10; R[1]++) R[2] += R[1]; ROF RETURN R[2];",
        "FOR (R[1] = 0; R[1] < 10; R[1]++) IF (R[1] == 4) THEN BREAK; FI R[2]++; ROF RETURN R[2] * 100 + R[1];",
        "FOR (R[1] = 0; R[1] < 3; R[1]++) FOR (R[2] = 0; R[2] < 5; R[2]++) IF (R[2] == R[1]) THEN BREAK; FI R[3]++; ROF ROF RETURN R[3];",
        "FOR (R[1] = 0; R[1] < 10; R[1]++) FOR (R[2] = 0; ; R[2]++) IF (R[2] == 7) THEN RETURN R[1] + R[2]; FI ROF ROF",
        "FOR (R[1] = 0; R[1] < R[0]; R[1]++) MEM[R[1] & 7]++; ROF RETURN 1;",
        "FOR (;;) R[5]++; ROF RETURN 1;",
        "FOR (R[1] = 0; ; R[1]++) RETURN 4; ROF RETURN 1;",
        "FOR (R[1] = 0; R[1] < 9; R[1] += 2) MEM[0] += R[1]; ROF",
    ] {
        for r0 in [0, 5, 2048, 2049, -1] {
            let p = prog(text, 64);
            let code = jit().compile(&p).unwrap();
            agree(&p, &code, &[], &mut [0; 64], &mut [r0; 16]);
        }
    }
    assert_eq!(
        both("FOR (;;) R[5]++; ROF RETURN 1;", &[]),
        Verdict::Fault(Fault::LoopBound)
    );
}

#[test]
fn hash_is_the_interpreters() {
    let pkt: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(37)).collect();
    for text in [
        "RETURN HASH(26, 12, 256);",
        "RETURN HASH(R[0], 0, 1);",
        "RETURN HASH(R[0] + 60, 4, 4294967295);",
        "RETURN HASH(R[0] + 61, 4, 7);",
        "RETURN HASH(R[0] - 1, 1, 7);",
        "RETURN HASH(0, 64, 1000);",
        "RETURN HASH(0, 65, 1000);",
    ] {
        both(text, &pkt);
    }
    assert_eq!(
        both("RETURN HASH(R[0] + 61, 4, 7);", &pkt),
        Verdict::Fault(Fault::PacketBounds)
    );
}

#[test]
fn extern_calls_get_checked_regions() {
    let text = "MEM[1] = 0x0102030405060708; R[0] = EXTERN(SUM8, 8, 16); RETURN R[0] + MEM[2];";
    let p = prog(text, 64);
    let code = jit().compile(&p).unwrap();
    for len in [64, 24, 23, 16, 0] {
        let mut mbuf = vec![0u8; len];
        let v = agree(&p, &code, &[], &mut mbuf, &mut [0; 16]);
        let want = if len >= 24 {
            Verdict::Return(72)
        } else if len >= 16 {
            Verdict::Fault(Fault::ExternBounds)
        } else {
            Verdict::Fault(Fault::MemBounds)
        };
        assert_eq!(v, want, "MBuf of {len}");
    }
}

#[test]
#[should_panic(expected = "external function panicked")]
fn a_panicking_extern_panics_in_run() {
    let mut r = Externs::new();
    r.register(ExternFn::new("BOOM", 0, 0, |_| {
        panic!("external function panicked")
    }));
    let p = compile(
        "R[0] = 1; EXTERN(BOOM, 0, 0); RETURN 2;",
        &Options::default(),
        &r,
    )
    .unwrap();
    let code = jit().compile(&p).unwrap();
    code.run(&[], &mut [0; 64], &mut [0; 16]);
}

#[test]
fn runs_from_many_threads() {
    let p = prog(
        "IF (PKT.B[0] == 7) THEN MEM[0]++; RETURN PKT.W[1]; FI RETURN 0;",
        64,
    );
    let code = jit().compile(&p).unwrap();
    std::thread::scope(|s| {
        for t in 0..4u8 {
            let code = &code;
            s.spawn(move || {
                let mut mbuf = [0u8; 64];
                for i in 0..1000u16 {
                    let [hi, lo] = i.to_be_bytes();
                    let v = code.run(&[7 - t % 2, hi, lo], &mut mbuf, &mut [0; 16]);
                    let want = if t % 2 == 0 { i64::from(i) } else { 0 };
                    assert_eq!(v, Verdict::Return(want));
                }
                let n = i64::from_le_bytes(mbuf[..8].try_into().unwrap());
                assert_eq!(n, if t % 2 == 0 { 1000 } else { 0 });
            });
        }
    });
}

/// 3,000 generated programs from a fixed sequence, so that a failure replays
/// without proptest's state, on a shaped packet; and that most of them compile,
/// or the property test above would prove little.
#[test]
fn many_generated_programs_agree() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let opts = Options {
        mbuf_len: 256,
        ..Options::default()
    };
    let (mut compiled, mut faulted, mut accepted) = (0, 0, 0);
    for _ in 0..3000 {
        let choices: Vec<u8> = (0..200).map(|_| next() as u8).collect();
        let mut packet: Vec<u8> = (0..next() % 120).map(|_| next() as u8).collect();
        if packet.len() >= 34 {
            packet[12..15].copy_from_slice(&[8, 0, 0x45]);
            packet[20] = 0;
            packet[23] = 6;
        }
        let text = gen::program(&choices);
        let Ok(program) = compile(&text, &opts, &registry()) else {
            continue;
        };
        compiled += 1;
        let code = jit().compile(&program).unwrap();
        let mut mbuf = vec![1u8; 256];
        let mut regs: Registers = [0; 16];
        for _ in 0..3 {
            match agree(&program, &code, &packet, &mut mbuf, &mut regs) {
                Verdict::Fault(_) => faulted += 1,
                v => accepted += usize::from(v.accepts()),
            }
        }
    }
    eprintln!("{compiled} programs compiled; {faulted} faulting runs, {accepted} accepting");
    assert!(compiled > 2000, "only {compiled} of 3000 compiled");
    assert!(faulted > 100 && accepted > 100);
}
