//! What each construct means, as docs/fpl.md states it, checked through the
//! reference interpreter: operators (folded at compile time and computed at run
//! time alike), loads and their bounds, selectors, MBuf slots, evaluation
//! order, short-circuits, loops, `RETURN`, `HASH`, macros over IP options, and
//! what a fault keeps.

use netsift_fpl::externs::{sum8, ExternFn, Externs};
use netsift_fpl::{compile, run, Fault, Options, Program, Registers, Verdict};
use netsift_testkit::frames::Frame;
use proptest::prelude::*;
use std::sync::{Arc, Mutex};

fn prog(text: &str) -> Program {
    let mut r = Externs::new();
    r.register(sum8());
    compile(
        text,
        &Options {
            mbuf_len: 64,
            ..Options::default()
        },
        &r,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn eval(text: &str, packet: &[u8]) -> Verdict {
    run(&prog(text), packet, &mut [0; 64], &mut [0; 16])
}

const OPS: [&str; 16] = [
    "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "==", "!=", "<", "<=", ">", ">=",
];

/// The documented result of `a op b`, written out again here.
fn model(op: &str, a: i64, b: i64) -> i64 {
    let (wa, wb) = (i128::from(a), i128::from(b));
    let wrap = |v: i128| v as i64;
    match op {
        "+" => wrap(wa + wb),
        "-" => wrap(wa - wb),
        "*" => wrap(wa * wb),
        "/" if b == 0 => 0,
        "/" => wrap(wa / wb),
        "%" if b == 0 => a,
        "%" => wrap(wa % wb),
        "<<" => ((a as u64) << (b & 63)) as i64,
        ">>" => a >> (b & 63),
        "&" => a & b,
        "|" => a | b,
        "^" => a ^ b,
        "==" => (a == b) as i64,
        "!=" => (a != b) as i64,
        "<" => (a < b) as i64,
        "<=" => (a <= b) as i64,
        ">" => (a > b) as i64,
        ">=" => (a >= b) as i64,
        _ => unreachable!(),
    }
}

fn interesting() -> impl Strategy<Value = i64> {
    prop_oneof![
        any::<i64>(),
        -3i64..70,
        Just(i64::MIN),
        Just(i64::MAX),
        Just(0),
        Just(-1)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn operators_fold_and_run_alike(a in interesting(), b in interesting(), op in 0..OPS.len()) {
        let op = OPS[op];
        let folded = prog(&format!("RETURN ({a}) {op} ({b});"));
        let mut regs: Registers = [0; 16];
        regs[3] = a;
        regs[4] = b;
        let at_run = prog(&format!("RETURN R[3] {op} R[4];"));
        let want = Verdict::Return(model(op, a, b));
        prop_assert_eq!(run(&folded, &[], &mut [], &mut [0; 16]), want);
        prop_assert_eq!(run(&at_run, &[], &mut [], &mut regs), want);
    }
}

#[test]
fn unary_and_logic() {
    assert_eq!(
        eval("RETURN -(-9223372036854775807 - 1);", &[]),
        Verdict::Return(i64::MIN)
    );
    assert_eq!(eval("RETURN !0 + !5 + ~0;", &[]), Verdict::Return(0));
    assert_eq!(eval("RETURN 3 && 4;", &[]), Verdict::Return(1));
    assert_eq!(
        eval("RETURN 1 + 2 * 3 << 1 == 14 && 1 | 2 ^ 3 & 1 == 3;", &[]),
        Verdict::Return(1)
    );
    // Short-circuits keep a guard's load from running.
    assert_eq!(eval("RETURN 0 && PKT.B[1000];", &[]), Verdict::Return(0));
    assert_eq!(
        eval("RETURN PKT.B[0] || PKT.B[1000];", &[1]),
        Verdict::Return(1)
    );
    assert_eq!(
        eval("RETURN PKT.B[0] || PKT.B[1000];", &[0]),
        Verdict::Fault(Fault::PacketBounds)
    );
    assert_eq!(
        eval("RETURN 'A' + 192.168.1.3 - 0xc0a80103;", &[]),
        Verdict::Return(65)
    );
}

#[test]
fn loads_are_big_endian_and_bounds_checked() {
    let p = [0x12, 0x34, 0x56, 0x78, 0x9a];
    assert_eq!(eval("RETURN PKT.B[4];", &p), Verdict::Return(0x9a));
    assert_eq!(eval("RETURN PKT.W[3];", &p), Verdict::Return(0x789a));
    assert_eq!(eval("RETURN PKT.DW[1];", &p), Verdict::Return(0x3456_789a));
    assert_eq!(
        eval("RETURN PKT.B[5];", &p),
        Verdict::Fault(Fault::PacketBounds)
    );
    assert_eq!(
        eval("RETURN PKT.W[4];", &p),
        Verdict::Fault(Fault::PacketBounds)
    );
    assert_eq!(
        eval("RETURN PKT.DW[2];", &p),
        Verdict::Fault(Fault::PacketBounds)
    );
    assert_eq!(
        eval("RETURN PKT.B[PKT.B[0] - 19];", &p),
        Verdict::Fault(Fault::PacketBounds),
        "negative at run time"
    );
    assert_eq!(
        eval("RETURN PKT.B[PKT.B[0] - 17];", &p),
        Verdict::Return(0x34),
        "computed offset"
    );
    assert_eq!(
        eval("RETURN PKT.B[-9223372036854775807 - 1 + PKT.B[0]];", &p),
        Verdict::Fault(Fault::PacketBounds)
    );
    assert!(!eval("RETURN PKT.B[5];", &p).accepts(), "a fault rejects");
}

#[test]
fn selectors() {
    let p = [0xf1, 0x80, 0x00, 0x01];
    assert_eq!(
        eval(
            "RETURN PKT.W[0].U8[0] == PKT.B[0] && PKT.W[0].U8[1] == PKT.B[1];",
            &p
        ),
        Verdict::Return(1)
    );
    assert_eq!(eval("RETURN PKT.B[0].U4[0];", &p), Verdict::Return(0xf));
    assert_eq!(eval("RETURN PKT.B[0].S4[0];", &p), Verdict::Return(-1));
    assert_eq!(eval("RETURN PKT.B[0].U1[7];", &p), Verdict::Return(1));
    assert_eq!(
        eval("RETURN PKT.B[1].U1[0] + PKT.B[1].U1[1];", &p),
        Verdict::Return(1)
    );
    assert_eq!(eval("RETURN PKT.DW[0].U16[1];", &p), Verdict::Return(1));
    assert_eq!(
        eval("RETURN PKT.DW[0].S16[0].U8[0];", &p),
        Verdict::Return(0xf1)
    );
    assert_eq!(
        eval("RETURN PKT.B[0].U1[PKT.B[3] + 6];", &p),
        Verdict::Return(1),
        "index computed at run time"
    );
    assert_eq!(
        eval("RETURN PKT.B[0].U1[PKT.B[3] + 7];", &p),
        Verdict::Fault(Fault::Selector)
    );
    assert_eq!(
        eval("R[5] = -2; RETURN R[5].U32[0] + R[5].S8[7];", &[]),
        Verdict::Return(0xffff_ffff - 2)
    );
}

#[test]
fn mbuf_slots_and_registers_persist() {
    let p = prog("MEM[1] += 3; MEM[7]--; R[2]++; RETURN MEM[1];");
    let mut mbuf = [0u8; 64];
    let mut regs = [0; 16];
    assert_eq!(run(&p, &[], &mut mbuf, &mut regs), Verdict::Return(3));
    assert_eq!(run(&p, &[], &mut mbuf, &mut regs), Verdict::Return(6));
    assert_eq!(regs[2], 2);
    assert_eq!(
        &mbuf[8..16],
        &6i64.to_le_bytes(),
        "slot 1 is bytes 8..16, little-endian"
    );
    assert_eq!(
        &mbuf[56..64],
        &(-2i64).to_le_bytes(),
        "the last slot of 64 bytes"
    );
    assert_eq!(
        eval("RETURN MEM[8];", &[]),
        Verdict::Fault(Fault::MemBounds)
    );
    assert_eq!(
        eval("RETURN MEM[-1];", &[]),
        Verdict::Fault(Fault::MemBounds)
    );
    assert_eq!(
        eval("RETURN MEM[2305843009213693952];", &[]),
        Verdict::Fault(Fault::MemBounds),
        "8i overflows"
    );
    // A fault keeps what was written before it.
    let p = prog("MEM[0] = 9; R[0] = 4; RETURN PKT.B[0];");
    let (mut mbuf, mut regs) = ([0u8; 64], [0; 16]);
    assert_eq!(
        run(&p, &[], &mut mbuf, &mut regs),
        Verdict::Fault(Fault::PacketBounds)
    );
    assert_eq!((mbuf[0], regs[0]), (9, 4));
    // A smaller MBuf than checked against: the run checks the slice it is given.
    assert_eq!(
        run(&p, &[1], &mut [0; 4], &mut [0; 16]),
        Verdict::Fault(Fault::MemBounds)
    );
    let e = prog("RETURN EXTERN(SUM8, 56, 0);");
    assert_eq!(
        run(&e, &[], &mut [1; 40], &mut [0; 16]),
        Verdict::Fault(Fault::ExternBounds)
    );
    assert_eq!(run(&e, &[], &mut [1; 64], &mut [0; 16]), Verdict::Return(8));
}

#[test]
fn assignment_evaluates_the_value_then_the_index_once() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut r = Externs::new();
    for (name, value) in [("A", 1), ("B", 2)] {
        let log = Arc::clone(&log);
        r.register(ExternFn::new(name, 0, 0, move |_| {
            log.lock().unwrap().push(name);
            value
        }));
    }
    let p = compile(
        "MEM[EXTERN(A, 0, 0)] += EXTERN(B, 0, 0) + 40; RETURN MEM[1];",
        &Options::default(),
        &r,
    )
    .unwrap();
    let mut mbuf = vec![0u8; 4096];
    mbuf[8] = 5;
    assert_eq!(run(&p, &[], &mut mbuf, &mut [0; 16]), Verdict::Return(47));
    assert_eq!(*log.lock().unwrap(), ["B", "A"]);
}

#[test]
fn control_flow() {
    assert_eq!(
        eval("R[0] = 1;", &[]),
        Verdict::Return(0),
        "the end returns 0"
    );
    assert_eq!(eval("RETURN; RETURN 5;", &[]), Verdict::Return(0));
    assert_eq!(
        eval("IF PKT.B[0] THEN RETURN 1; ELSE RETURN 2; FI", &[0]),
        Verdict::Return(2)
    );
    // BREAK leaves only the innermost loop; RETURN leaves everything.
    let nested = "FOR (R[1] = 0; R[1] < 3; R[1]++)
                    FOR (R[2] = 0; R[2] < 10; R[2]++)
                      IF R[2] == 2 THEN BREAK; FI
                      R[3]++;
                    ROF
                  ROF
                  RETURN R[3] * 100 + R[1];";
    assert_eq!(eval(nested, &[]), Verdict::Return(603));
    assert_eq!(
        eval(
            "FOR (R[1] = 0; R[1] < 9; R[1]++) IF R[1] == 4 THEN RETURN R[1]; FI ROF",
            &[]
        ),
        Verdict::Return(4)
    );
    // Figure 8C of NIC-FIX: count the 'A's of a packet.
    let count_a = "FOR (R[1] = 0; R[1] < 20 && R[1] < PKT.B[0]; R[1]++) IF PKT.B[R[1]] == 'A' THEN R[2]++; FI ROF RETURN R[2];";
    assert_eq!(eval(count_a, b"\x08AxAAyA?A"), Verdict::Return(4));
}

#[test]
fn hash_is_fnv1a_modulo_size() {
    let p = [9, b'a', b'b', 0];
    let mut h: u32 = 0x811c_9dc5;
    for b in b"ab" {
        h = (h ^ u32::from(*b)).wrapping_mul(0x0100_0193);
    }
    assert_eq!(
        eval("RETURN HASH(1, 2, 1000);", &p),
        Verdict::Return(i64::from(h % 1000))
    );
    assert_eq!(
        eval("RETURN HASH(PKT.B[3] + 1, 2, 7);", &p),
        Verdict::Return(i64::from(h % 7)),
        "start computed at run time"
    );
    assert_eq!(
        eval("RETURN HASH(3, 2, 7);", &p),
        Verdict::Fault(Fault::PacketBounds)
    );
    assert_eq!(
        eval("RETURN HASH(4, 0, 7);", &p),
        Verdict::Return(i64::from(0x811c_9dc5u32 % 7))
    );
}

#[test]
fn transport_macros_follow_ip_options() {
    let plain = Frame::default()
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2])
        .tcp(1234, 80, 2)
        .build();
    // The same frame with four bytes of IP options (NOPs): IHL 6, total length + 4.
    let mut opts = plain[..34].to_vec();
    opts.extend_from_slice(&[1, 1, 1, 1]);
    opts.extend_from_slice(&plain[34..]);
    opts[14] = 0x46;
    let total = u16::from_be_bytes([opts[16], opts[17]]) + 4;
    opts[16..18].copy_from_slice(&total.to_be_bytes());
    let text = "RETURN PKT.TCP_SPORT * 100000 + TCP_DPORT;";
    assert_eq!(eval(text, &plain), Verdict::Return(123_400_080));
    assert_eq!(eval(text, &opts), Verdict::Return(123_400_080));
    assert_eq!(
        eval(
            "RETURN IP_HLEN + IP_VERSION + TCP_HLEN + (TCP_FLAGS & TH_SYN);",
            &opts
        ),
        Verdict::Return(24 + 4 + 20 + 2)
    );
}
