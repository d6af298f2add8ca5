//! The parser against the shared filter corpus (`shared/corpus/filters`, beside the
//! project): every expression libpcap accepts parses, and every expression it refuses for
//! a syntax, number or address reason is refused here with libpcap's message. Expressions
//! refused for a meaning reason ("port number 70000 greater than maximum 65535") are the
//! lowering's to refuse, so they must parse.

use netsift_pcapc::syntax::ast::{Expr, PrimKind};
use netsift_pcapc::syntax::parse;
use std::path::PathBuf;

fn corpus_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/filters");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!(
            "note: {} is absent; skipping the corpus checks",
            dir.display()
        );
        None
    }
}

fn files(dir: &PathBuf, prefix: &str, ext: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read corpus dir")
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().to_string();
        if name.starts_with(prefix) && name.ends_with(ext) {
            out.push((
                name,
                std::fs::read_to_string(e.path()).expect("read corpus file"),
            ));
        }
    }
    out
}

/// Messages libpcap gives from its scanner or grammar, which the parser must reproduce.
fn is_parser_message(msg: &str) -> bool {
    msg == "can't parse filter expression: syntax error"
        || msg.starts_with("number ")
        || msg.starts_with("octal number ")
        || msg.starts_with("decimal number ")
        || msg.starts_with("hexadecimal number ")
        || msg.starts_with("invalid IPv6 address ")
        || msg == "invalid Ethernet address"
        || msg == "data size must be 1, 2, or 4"
}

#[test]
fn accepted_expressions_parse() {
    let Some(dir) = corpus_dir() else { return };
    let mut count = 0;
    let mut failures = Vec::new();
    for (name, text) in files(&dir, "accept-", ".txt") {
        for line in text.lines() {
            count += 1;
            match parse(line) {
                Ok(None) => assert!(line.trim().is_empty(), "{name}: {line:?} parsed as empty"),
                Ok(Some(_)) => {}
                Err(e) => failures.push(format!("{name}: {line:?}\n{e}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(count > 400, "only {count} expressions found");
}

#[test]
fn newer_syntax_in_the_corpus_is_kept_as_unsupported() {
    // libpcap 1.10.3 does not know `vxlan` (newer libpcap does); it parses so the lowering
    // can report it.
    let Some(dir) = corpus_dir() else { return };
    let mut seen = 0;
    for (_, text) in files(&dir, "accept-", ".txt") {
        for line in text.lines().filter(|l| l.contains("vxlan")) {
            seen += 1;
            let Ok(Some(e)) = parse(line) else {
                panic!("{line:?} did not parse")
            };
            let mut stack = vec![&e];
            let mut unsupported = 0;
            while let Some(e) = stack.pop() {
                match e {
                    Expr::And(a, b) | Expr::Or(a, b) => stack.extend([&**a, &**b]),
                    Expr::Not(a, _) => stack.push(a),
                    Expr::Prim(p) => {
                        if let PrimKind::Unsupported(t) = &p.kind {
                            assert!(t.starts_with("vxlan"), "{t}");
                            unsupported += 1;
                        }
                    }
                }
            }
            assert!(unsupported > 0, "{line:?}");
        }
    }
    println!("{seen} corpus expressions use vxlan");
}

#[test]
fn rejected_expressions_fail_for_the_same_reason() {
    let Some(dir) = corpus_dir() else { return };
    let mut parser_errors = 0;
    let mut later_errors = 0;
    let mut failures = Vec::new();
    for (name, text) in files(&dir, "reject-", ".tsv") {
        for line in text.lines().filter(|l| !l.is_empty()) {
            let Some((expr, msg)) = line.split_once('\t') else {
                continue;
            };
            let got = parse(expr);
            if is_parser_message(msg) {
                parser_errors += 1;
                let want = msg
                    .strip_prefix("can't parse filter expression: ")
                    .unwrap_or(msg);
                match &got {
                    Err(e) if e.message().starts_with(want) => {}
                    _ => failures.push(format!("{name}: {expr:?}: want {msg:?}, got {got:?}")),
                }
            } else {
                later_errors += 1;
                if let Err(e) = &got {
                    failures.push(format!(
                        "{name}: {expr:?}: libpcap's {msg:?} is for the lowering, but:\n{e}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        parser_errors >= 50 && later_errors >= 50,
        "{parser_errors} parser, {later_errors} later errors"
    );
}
