//! Named filters compiled into a [`Filters`] set in the order their calls
//! need: a definition is compiled after every definition it calls, against
//! the MBuf size it declares (the window its callers give it). Before anything
//! is compiled the names are checked (well-formed, distinct, not a registered
//! function's) and the calls between definitions are read from the syntax
//! trees, so that a cycle is refused at the call that closes it.

use super::lower::Lowerer;
use super::Options;
use crate::calls::Filters;
use crate::error::{Error, ErrorKind, Span};
use crate::externs::Registry;
use crate::syntax::ast::{self, ExprKind, StmtKind};
use std::fmt;
use std::sync::Arc;

/// A filter to make callable: its name, its FPL text and its MBuf size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Definition<'a> {
    /// The name `EXTERN` calls it by: a letter or `_`, then letters, digits
    /// and `_`.
    pub name: &'a str,
    /// Its program.
    pub text: &'a str,
    /// Its MBuf size in bytes: the window of its callers' MBuf it runs on.
    pub mbuf_len: usize,
}

/// Why a set of definitions was refused: which one, and the error in its
/// text (with its line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefineError {
    /// The index of the definition at fault.
    pub index: usize,
    /// Its name.
    pub name: String,
    /// What is wrong, where in its text.
    pub error: Error,
}

impl fmt::Display for DefineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "filter `{}`: {}", self.name, self.error)
    }
}

impl std::error::Error for DefineError {}

/// Compiles `defs` into callable filters, each against `options` with its own
/// MBuf size and calling only registered functions and the other
/// definitions. Refused: a malformed, repeated or registered name, a text
/// that does not compile, calls that form a cycle or nest past
/// [`Options::max_call_depth`].
pub fn define(
    defs: &[Definition<'_>],
    options: &Options,
    registry: &dyn Registry,
) -> Result<Filters, DefineError> {
    let fail = |index: usize, error: Error| DefineError {
        index,
        name: defs[index].name.to_string(),
        error,
    };
    let at_start = |index: usize, msg: String| {
        fail(
            index,
            Error::new(ErrorKind::Invalid, msg, Span::new(0, 0), defs[index].text),
        )
    };
    for (i, d) in defs.iter().enumerate() {
        if !is_name(d.name) {
            return Err(at_start(
                i,
                format!(
                    "{:?} is not a filter name: a letter or `_`, then letters, digits and `_`",
                    d.name
                ),
            ));
        }
        if let Some(j) = defs[..i].iter().position(|e| e.name == d.name) {
            return Err(at_start(
                i,
                format!("is defined twice (definitions {} and {})", j + 1, i + 1),
            ));
        }
        if registry.lookup(d.name).is_some() {
            return Err(at_start(
                i,
                "has the name of a registered external function".into(),
            ));
        }
    }
    let trees = defs
        .iter()
        .enumerate()
        .map(|(i, d)| crate::syntax::parser::parse_program(d.text).map_err(|e| fail(i, e)))
        .collect::<Result<Vec<_>, _>>()?;
    let calls: Vec<Vec<(usize, Span)>> = trees
        .iter()
        .map(|t| {
            let mut names = Vec::new();
            stmts(t, &mut names);
            names
                .into_iter()
                .filter_map(|(n, s)| defs.iter().position(|d| d.name == n).map(|j| (j, s)))
                .collect()
        })
        .collect();
    let order = order(&calls).map_err(|(i, span, cycle)| {
        let path: Vec<_> = cycle.iter().map(|&j| defs[j].name).collect();
        fail(
            i,
            Error::new(
                ErrorKind::Unsafe,
                format!("filter calls form a cycle: {}", path.join(" → ")),
                span,
                defs[i].text,
            ),
        )
    })?;
    let mut filters = Filters::new();
    for i in order {
        let d = &defs[i];
        let opts = Options {
            mbuf_len: d.mbuf_len,
            ..options.clone()
        };
        let p = Lowerer::new(d.text, &opts, registry, &filters)
            .program(&trees[i])
            .map_err(|e| fail(i, e))?;
        filters.insert(d.name, Arc::new(p));
    }
    Ok(filters)
}

/// Whether `s` is a filter name.
fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The definitions in an order where each comes after those it calls
/// (`calls[i]`: whom `i` calls, and where); or a cycle, as the definition and
/// call closing it and the names around it.
fn order(calls: &[Vec<(usize, Span)>]) -> Result<Vec<usize>, (usize, Span, Vec<usize>)> {
    // 0: not seen, 1: on the path, 2: done. Iterative, so that a long chain
    // of definitions cannot exhaust the stack.
    let mut state = vec![0u8; calls.len()];
    let mut out = Vec::with_capacity(calls.len());
    for root in 0..calls.len() {
        if state[root] != 0 {
            continue;
        }
        let mut path: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = 1;
        while let Some(top) = path.last_mut() {
            let i = top.0;
            match calls[i].get(top.1) {
                Some(&(j, span)) => {
                    top.1 += 1;
                    match state[j] {
                        0 => {
                            state[j] = 1;
                            path.push((j, 0));
                        }
                        1 => {
                            let from = path.iter().position(|&(k, _)| k == j).unwrap_or(0);
                            let mut cycle: Vec<usize> =
                                path[from..].iter().map(|&(k, _)| k).collect();
                            cycle.push(j);
                            return Err((i, span, cycle));
                        }
                        _ => {}
                    }
                }
                None => {
                    state[i] = 2;
                    out.push(i);
                    path.pop();
                }
            }
        }
    }
    Ok(out)
}

/// Every `EXTERN` name in `body`, with its span.
fn stmts(body: &[ast::Stmt], out: &mut Vec<(String, Span)>) {
    for s in body {
        match &s.kind {
            StmtKind::Assign { target, value, .. } => {
                expr(target, out);
                expr(value, out);
            }
            StmtKind::Step { target, .. } => expr(target, out),
            StmtKind::If { cond, then, els } => {
                expr(cond, out);
                stmts(then, out);
                stmts(els, out);
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                for s in init.iter().chain(step) {
                    stmts(std::slice::from_ref(s), out);
                }
                if let Some(c) = cond {
                    expr(c, out);
                }
                stmts(body, out);
            }
            StmtKind::Break | StmtKind::Return(None) => {}
            StmtKind::Return(Some(e)) | StmtKind::Eval(e) => expr(e, out),
        }
    }
}

fn expr(e: &ast::Expr, out: &mut Vec<(String, Span)>) {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Name(_) | ExprKind::Field(_) => {}
        ExprKind::Pkt(_, a) | ExprKind::Reg(a) | ExprKind::Mem(a) | ExprKind::Unary(_, a) => {
            expr(a, out)
        }
        ExprKind::Select {
            base: a, index: b, ..
        }
        | ExprKind::Binary(_, a, b)
        | ExprKind::And(a, b)
        | ExprKind::Or(a, b) => {
            expr(a, out);
            expr(b, out);
        }
        ExprKind::Hash(args) => args.iter().for_each(|a| expr(a, out)),
        ExprKind::Extern {
            name,
            name_span,
            input,
            output,
        } => {
            out.push((name.clone(), *name_span));
            expr(input, out);
            expr(output, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::order;
    use crate::error::Span;

    #[test]
    fn callees_come_first_and_cycles_are_found() {
        let s = Span::new(0, 1);
        assert_eq!(
            order(&[vec![(1, s)], vec![(2, s)], vec![]]),
            Ok(vec![2, 1, 0])
        );
        assert_eq!(
            order(&[vec![], vec![(0, s)], vec![(0, s), (1, s)]]),
            Ok(vec![0, 1, 2])
        );
        let (at, _, cycle) = order(&[vec![(1, s)], vec![(2, s)], vec![(1, s)]]).unwrap_err();
        assert_eq!((at, cycle), (2, vec![1, 2, 1]));
        assert_eq!(order(&[vec![(0, s)]]).unwrap_err().2, vec![0, 0]);
    }
}
