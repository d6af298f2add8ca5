//! Errors point at the line and column of the fault, and the checks of §3.3.3
//! refuse what they must (and accept what they must not refuse).

use netsift_fpl::externs::{sum8, Externs};
use netsift_fpl::{compile, run, ErrorKind, Fault, Options, Verdict};

fn registry() -> Externs {
    let mut r = Externs::new();
    r.register(sum8());
    r
}

/// The error of `text`: (kind, line, column, the text under the caret).
fn error(text: &str, opts: &Options) -> (ErrorKind, usize, usize, String) {
    let e = compile(text, opts, &registry()).expect_err(text);
    let shown = e.to_string();
    assert!(
        shown.contains(&format!("line {}, column {}", e.line(), e.column())),
        "{shown}"
    );
    (
        e.kind(),
        e.line(),
        e.column(),
        text[e.span().start..e.span().end].to_string(),
    )
}

fn err(text: &str) -> (ErrorKind, usize, usize, String) {
    error(text, &Options::default())
}

#[test]
fn syntax_errors_point_at_the_token() {
    assert_eq!(
        err("R[0] = 1;\nIF (R[0] == 1) THEN\n  R[1] = 2;\n"),
        (ErrorKind::Syntax, 4, 1, String::new())
    );
    assert_eq!(err("R[0] = 1 +;"), (ErrorKind::Syntax, 1, 11, ";".into()));
    assert_eq!(
        err("R[0] = 1\nR[1] = 2;"),
        (ErrorKind::Syntax, 2, 1, "R".into())
    );
    assert_eq!(err("R[0] = @;"), (ErrorKind::Syntax, 1, 8, "@".into()));
    assert_eq!(
        err("  R[0] == 1;"),
        (ErrorKind::Syntax, 1, 3, "R[0] == 1".into())
    );
    assert_eq!(err("R[0] = PKT.Q;").0, ErrorKind::Invalid);
    assert_eq!(
        err("R[0] = 300.1.1.1;"),
        (ErrorKind::Syntax, 1, 8, "300.1.1.1".into())
    );
}

#[test]
fn names_and_registers() {
    assert_eq!(
        err("IF (PKT.IP_PROT == PROTO_TCP) THEN\nFI"),
        (ErrorKind::Invalid, 1, 5, "PKT.IP_PROT".into())
    );
    assert_eq!(
        err("R[0] = PKT.TRUE;"),
        (ErrorKind::Invalid, 1, 8, "PKT.TRUE".into())
    );
    assert_eq!(
        err("\n\tR[16] = 1;"),
        (ErrorKind::Invalid, 2, 4, "16".into())
    );
    assert_eq!(
        err("R[R[0]] = 1;"),
        (ErrorKind::Invalid, 1, 3, "R[0]".into())
    );
    assert_eq!(
        err("PKT.B[0] = 1;"),
        (ErrorKind::Invalid, 1, 1, "PKT.B[0]".into())
    );
    assert_eq!(err("BREAK;"), (ErrorKind::Invalid, 1, 1, "BREAK".into()));
    assert_eq!(err("R[0] = PKT.B[-1];").0, ErrorKind::Invalid);
    assert_eq!(
        err("R[0] = PKT.B[0].U8[1];"),
        (ErrorKind::Invalid, 1, 20, "1".into())
    );
    assert_eq!(err("R[0] = PKT.W[0].U32[0];").0, ErrorKind::Invalid);
    assert_eq!(err("R[0] = (R[1] + 1).U8[0];").0, ErrorKind::Invalid);
    assert_eq!(
        err("R[0] = HASH(0, 4, 0);"),
        (ErrorKind::Invalid, 1, 19, "0".into())
    );
    assert_eq!(
        err("R[0] = HASH(0, R[1], 4);"),
        (ErrorKind::Invalid, 1, 16, "R[1]".into())
    );
}

#[test]
fn extern_calls_are_checked_against_the_registry_and_mbuf() {
    let small = Options {
        mbuf_len: 64,
        ..Options::default()
    };
    assert_eq!(
        error("EXTERN(nope, 0, 0);", &small),
        (ErrorKind::Invalid, 1, 8, "nope".into())
    );
    assert_eq!(
        error("EXTERN(sum8, 0, 0);", &small).0,
        ErrorKind::Invalid,
        "names keep their case"
    );
    assert!(compile(
        "R[0] = EXTERN(SUM8, 56, 0) + EXTERN(\"SUM8\", 0, 56);",
        &small,
        &registry()
    )
    .is_ok());
    assert_eq!(
        error("EXTERN(SUM8, 57, 0);", &small),
        (ErrorKind::Unsafe, 1, 14, "57".into())
    );
    assert_eq!(
        error("EXTERN(SUM8, 0,\n  60);", &small),
        (ErrorKind::Unsafe, 2, 3, "60".into())
    );
    assert_eq!(error("EXTERN(SUM8, -8, 0);", &small).0, ErrorKind::Unsafe);
    assert_eq!(
        error("EXTERN(SUM8, R[0], 0);", &small).0,
        ErrorKind::Invalid
    );
}

#[test]
fn loop_bounds_are_derived_or_defaulted_and_enforced() {
    let opts = Options {
        max_loop_bound: 1000,
        loop_bound: 100,
        ..Options::default()
    };
    // Derived: 1000 iterations is allowed, 1001 is not.
    assert!(compile(
        "FOR (R[1] = 0; R[1] < 1000; R[1]++) ROF",
        &opts,
        &registry()
    )
    .is_ok());
    assert!(compile(
        "FOR (R[1] = 2000; R[1] > 0; R[1] -= 2) ROF",
        &opts,
        &registry()
    )
    .is_ok());
    assert_eq!(
        error("FOR (R[1] = 0; R[1] <= 1000; R[1]++) ROF", &opts).0,
        ErrorKind::Unsafe
    );
    assert_eq!(
        error(
            "R[0] = 1;\n  FOR (R[1] = 2002; R[1] > 0; R[1] -= 2) ROF",
            &opts
        ),
        (
            ErrorKind::Unsafe,
            2,
            3,
            "FOR (R[1] = 2002; R[1] > 0; R[1] -= 2) ROF".into()
        )
    );
    let counts = |text: &str, packet: &[u8]| {
        let p = compile(text, &opts, &registry()).unwrap();
        let mut regs = [0; 16];
        (run(&p, packet, &mut [0; 64], &mut regs), regs[2])
    };
    // A constant conjunct bounds a test that is not constant.
    assert_eq!(
        counts(
            "FOR (R[1] = 0; R[1] < PKT.B[0] && R[1] < 500; R[1]++) R[2]++; ROF",
            &[255]
        )
        .1,
        255
    );
    // The default bound (100) holds a loop whose count is not derivable: past it, a fault.
    assert_eq!(
        counts(
            "FOR (R[1] = 0; R[1] < PKT.B[0]; R[1]++) R[2]++; ROF RETURN 1;",
            &[100]
        ),
        (Verdict::Return(1), 100)
    );
    assert_eq!(
        counts(
            "FOR (R[1] = 0; R[1] < PKT.B[0]; R[1]++) R[2]++; ROF RETURN 1;",
            &[101]
        ),
        (Verdict::Fault(Fault::LoopBound), 100)
    );
    // A counter the body assigns is not trusted; BREAK leaves early.
    assert_eq!(
        counts(
            "FOR (R[1] = 0; R[1] < 5; R[1]++) R[1] = 0; R[2]++; ROF",
            &[]
        )
        .0,
        Verdict::Fault(Fault::LoopBound)
    );
    assert_eq!(
        counts(
            "FOR (;;) R[2]++; IF R[2] == 7 THEN BREAK; FI ROF RETURN R[2];",
            &[]
        )
        .0,
        Verdict::Return(7)
    );
}

#[test]
fn worst_case_cost_is_bounded() {
    let opts = Options {
        max_cost: 50_000,
        ..Options::default()
    };
    let nested = "FOR (R[1] = 0; R[1] < 100; R[1]++)\n  FOR (R[2] = 0; R[2] < 100; R[2]++)\n    R[3] += PKT.B[R[2]];\n  ROF\nROF";
    assert_eq!(
        error(nested, &opts),
        (ErrorKind::Unsafe, 1, 1, nested.into())
    );
    let inner = "FOR (R[1] = 0; R[1] < 2; R[1]++)\n  FOR (R[2] = 0; R[2] < 60000; R[2]++) ROF\nROF";
    assert_eq!(
        error(inner, &opts).1,
        2,
        "the inner loop alone is too costly"
    );
    let p = compile(
        "FOR (R[1] = 0; R[1] < 100; R[1]++) R[3] += PKT.B[R[1]]; ROF",
        &opts,
        &registry(),
    )
    .unwrap();
    assert!(p.cost() > 100 && p.cost() < 50_000, "{}", p.cost());
}

#[test]
fn display_shows_the_line_and_a_caret() {
    let e = compile(
        "R[0] = 1;\nIF (PKT.IP_PROT == 6) THEN FI",
        &Options::default(),
        &registry(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown name `IP_PROT` (line 2, column 5)\n  IF (PKT.IP_PROT == 6) THEN FI\n      ^^^^^^^^^^^"
    );
}

/// The messages docs/fpl.md quotes, word for word.
#[test]
fn documented_messages() {
    let small = Options {
        mbuf_len: 64,
        max_loop_bound: 1000,
        max_cost: 50_000,
        ..Options::default()
    };
    let msg = |text: &str| {
        compile(text, &small, &registry())
            .unwrap_err()
            .message()
            .to_string()
    };
    assert_eq!(
        msg("IF 1 THEN"),
        "expected `FI`, found the end of the program"
    );
    assert_eq!(
        msg("R[16] = 1;"),
        "no register R[16]: registers are R[0] to R[15]"
    );
    assert_eq!(
        msg("EXTERN(SUM8, 57, 0);"),
        "EXTERN `SUM8` reads its input in 8 bytes at MBuf offset 57, outside the 64-byte MBuf"
    );
    assert_eq!(
        msg("FOR (R[1] = 0; R[1] <= 1000; R[1]++) ROF"),
        "loop may run 1001 times (its header allows that), more than the limit of 1000"
    );
    assert_eq!(
        msg("FOR (R[1] = 0; R[1] < 100; R[1]++) FOR (R[2] = 0; R[2] < 100; R[2]++) R[3] += PKT.B[R[2]]; ROF ROF"),
        "the program may perform 91206 operations by the end of this statement, more than the limit of 50000"
    );
    assert_eq!(
        msg("R[0] = PKT.B[0].U8[1];"),
        "U8[1] selects past the 8-bit value (its U8 fields are 0 to 0)"
    );
}
