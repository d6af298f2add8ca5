//! A checked program written back as FPL text (`Display` for [`Program`]), for
//! `-d` listings and tests: macros expanded, constants folded, every operation
//! in parentheses, each loop's bound in a comment. Compiled again with the same
//! options and registry, the text gives the same IR (tests/listing.rs checks
//! that), as long as its parentheses stay within the parser's nesting limit.

use crate::hir::{Expr, Place, Program, Stmt, Width};
use std::fmt::{self, Write};

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        block(self, &self.body, 0, &mut out);
        f.write_str(&out)
    }
}

fn block(p: &Program, body: &[Stmt], indent: usize, out: &mut String) {
    for s in body {
        out.push_str(&"  ".repeat(indent));
        stmt(p, s, indent, out);
        out.push('\n');
    }
}

/// A statement without its `;` (the caller adds one where the grammar wants it).
fn simple(p: &Program, s: &Stmt, out: &mut String) {
    match s {
        Stmt::Assign { target, op, value } => {
            match target {
                Place::Reg(r) => {
                    let _ = write!(out, "R[{r}]");
                }
                Place::Mem(i) => {
                    out.push_str("MEM[");
                    expr(p, i, out);
                    out.push(']');
                }
            }
            let _ = write!(out, " {}= ", op.map_or("", |op| op.symbol()));
            expr(p, value, out);
        }
        Stmt::Eval(e) => expr(p, e, out),
        // Only assignments and calls stand in a loop header; anything else is
        // written as a statement of its own.
        other => stmt(p, other, 0, out),
    }
}

fn stmt(p: &Program, s: &Stmt, indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent);
    match s {
        Stmt::Assign { .. } | Stmt::Eval(_) => {
            simple(p, s, out);
            out.push(';');
        }
        Stmt::If { cond, then, els } => {
            out.push_str("IF ");
            expr(p, cond, out);
            out.push_str(" THEN\n");
            block(p, then, indent + 1, out);
            if !els.is_empty() {
                let _ = writeln!(out, "{pad}ELSE");
                block(p, els, indent + 1, out);
            }
            let _ = write!(out, "{pad}FI");
        }
        Stmt::Loop(l) => {
            out.push_str("FOR (");
            l.init.iter().for_each(|s| simple(p, s, out));
            out.push_str("; ");
            if let Some(c) = &l.cond {
                expr(p, c, out);
            }
            out.push_str("; ");
            l.step.iter().for_each(|s| simple(p, s, out));
            let _ = writeln!(out, ") // bound {}", l.bound);
            block(p, &l.body, indent + 1, out);
            let _ = write!(out, "{pad}ROF");
        }
        Stmt::Break => out.push_str("BREAK;"),
        Stmt::Return(e) => {
            out.push_str("RETURN ");
            expr(p, e, out);
            out.push(';');
        }
    }
}

fn expr(p: &Program, e: &Expr, out: &mut String) {
    match e {
        Expr::Const(v) if *v < 0 => {
            // `-9223372036854775808` reads back as i64::MIN: the literal wraps, and so does `-`.
            let _ = write!(out, "(-{})", v.unsigned_abs());
        }
        Expr::Const(v) => {
            let _ = write!(out, "{v}");
        }
        Expr::Reg(r) => {
            let _ = write!(out, "R[{r}]");
        }
        Expr::Mem(i) => wrapped(p, "MEM[", i, "]", out),
        Expr::Load { width, offset } => {
            let w = match width {
                Width::Byte => "PKT.B[",
                Width::Word => "PKT.W[",
                Width::DWord => "PKT.DW[",
            };
            wrapped(p, w, offset, "]", out);
        }
        Expr::Field {
            base,
            bits,
            signed,
            index,
            ..
        } => {
            wrapped(p, "(", base, ")", out);
            let _ = write!(out, ".{}{bits}", if *signed { 'S' } else { 'U' });
            wrapped(p, "[", index, "]", out);
        }
        Expr::Unary(op, a) => {
            let sym = match op {
                crate::ops::UnOp::Neg => "(-",
                crate::ops::UnOp::Not => "(!",
                crate::ops::UnOp::BitNot => "(~",
            };
            wrapped(p, sym, a, ")", out);
        }
        Expr::Binary(op, a, b) => binary(p, op.symbol(), a, b, out),
        Expr::And(a, b) => binary(p, "&&", a, b, out),
        Expr::Or(a, b) => binary(p, "||", a, b, out),
        Expr::Hash { start, len, size } => {
            wrapped(p, "HASH(", start, "", out);
            let _ = write!(out, ", {len}, {size})");
        }
        Expr::Extern {
            func,
            input,
            output,
        } => {
            let name = p.externs.get(*func).map_or("?", |f| f.name());
            let _ = write!(out, "EXTERN(\"{name}\", {input}, {output})");
        }
        Expr::Call {
            filter,
            input,
            output,
        } => {
            let name = p.filters.get(*filter).map_or("?", |f| f.name.as_str());
            let _ = write!(out, "EXTERN(\"{name}\", {input}, {output})");
        }
    }
}

fn wrapped(p: &Program, open: &str, e: &Expr, close: &str, out: &mut String) {
    out.push_str(open);
    expr(p, e, out);
    out.push_str(close);
}

fn binary(p: &Program, sym: &str, a: &Expr, b: &Expr, out: &mut String) {
    out.push('(');
    expr(p, a, out);
    let _ = write!(out, " {sym} ");
    expr(p, b, out);
    out.push(')');
}
