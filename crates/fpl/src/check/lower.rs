//! The walk from syntax tree to checked IR. Each node is resolved and checked
//! as it is lowered, and constant operands are folded (with [`crate::ops`], the
//! same arithmetic the executors use), so that what must be a constant (a
//! register number, an `EXTERN` offset, a `HASH` length) may be written as a
//! constant expression. A macro is expanded by parsing its definition and
//! lowering that in place; errors inside it point at the use.

use super::{cost, loops, Options};
use crate::calls::{Filters, RESULT_BYTES};
use crate::error::{Error, ErrorKind, Span};
use crate::externs::Registry;
use crate::hir::{Callee, Expr, Loop, Place, Program, Stmt, NUM_REGS};
use crate::macros::{self, MacroKind};
use crate::ops::BinOp;
use crate::syntax::ast::{self, ExprKind, StmtKind};

/// The most bytes one `HASH` may cover.
pub(crate) const MAX_HASH_LEN: i64 = 65_535;
/// Macros may use macros, this deep.
const MAX_MACRO_DEPTH: u32 = 8;

pub(crate) struct Lowerer<'a> {
    text: &'a str,
    opts: &'a Options,
    registry: &'a dyn Registry,
    filters: &'a Filters,
    externs: Vec<crate::externs::ExternFn>,
    callees: Vec<Callee>,
    /// The program's call depth so far.
    depth: u32,
    loops: u32,
    macro_depth: u32,
}

impl<'a> Lowerer<'a> {
    pub(crate) fn new(
        text: &'a str,
        opts: &'a Options,
        registry: &'a dyn Registry,
        filters: &'a Filters,
    ) -> Lowerer<'a> {
        Lowerer {
            text,
            opts,
            registry,
            filters,
            externs: Vec::new(),
            callees: Vec::new(),
            depth: 0,
            loops: 0,
            macro_depth: 0,
        }
    }

    pub(crate) fn program(mut self, body: &[ast::Stmt]) -> Result<Program, Error> {
        let body = self.stmts(body)?;
        let cost = cost::stmts(&body, &self.callees);
        Ok(Program {
            body,
            externs: self.externs,
            filters: self.callees,
            mbuf_len: self.opts.mbuf_len,
            cost,
            depth: self.depth,
        })
    }

    fn err(&self, kind: ErrorKind, message: impl Into<String>, span: Span) -> Error {
        Error::new(kind, message, span, self.text)
    }

    /// Lowers a statement list, refusing it where its running cost passes the limit.
    fn stmts(&mut self, body: &[ast::Stmt]) -> Result<Vec<Stmt>, Error> {
        let mut out = Vec::with_capacity(body.len());
        let mut total = 0u64;
        for s in body {
            let lowered = self.stmt(s)?;
            total = total.saturating_add(cost::stmt(&lowered, &self.callees));
            if total > self.opts.max_cost {
                return Err(self.err(
                    ErrorKind::Unsafe,
                    format!(
                        "the program may perform {} operations by the end of this statement, more than the limit of {}",
                        fmt_cost(total),
                        self.opts.max_cost
                    ),
                    s.span,
                ));
            }
            out.push(lowered);
        }
        Ok(out)
    }

    fn stmt(&mut self, s: &ast::Stmt) -> Result<Stmt, Error> {
        Ok(match &s.kind {
            StmtKind::Assign { target, op, value } => {
                let value = self.expr(value, None)?;
                Stmt::Assign {
                    target: self.place(target)?,
                    op: *op,
                    value,
                }
            }
            StmtKind::Step { target, delta } => Stmt::Assign {
                target: self.place(target)?,
                op: Some(BinOp::Add),
                value: Expr::Const(*delta),
            },
            StmtKind::If { cond, then, els } => Stmt::If {
                cond: self.expr(cond, None)?,
                then: self.stmts(then)?,
                els: self.stmts(els)?,
            },
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => self.for_loop(
                s.span,
                init.as_deref(),
                cond.as_ref(),
                step.as_deref(),
                body,
            )?,
            StmtKind::Break if self.loops == 0 => {
                return Err(self.err(ErrorKind::Invalid, "BREAK outside a FOR loop", s.span))
            }
            StmtKind::Break => Stmt::Break,
            StmtKind::Return(v) => Stmt::Return(match v {
                Some(v) => self.expr(v, None)?,
                None => Expr::Const(0),
            }),
            StmtKind::Eval(e) => Stmt::Eval(self.expr(e, None)?),
        })
    }

    fn for_loop(
        &mut self,
        span: Span,
        init: Option<&ast::Stmt>,
        cond: Option<&ast::Expr>,
        step: Option<&ast::Stmt>,
        body: &[ast::Stmt],
    ) -> Result<Stmt, Error> {
        let init = init
            .map(|s| self.stmt(s))
            .transpose()?
            .into_iter()
            .collect::<Vec<_>>();
        let cond = cond.map(|c| self.expr(c, None)).transpose()?;
        let step = step
            .map(|s| self.stmt(s))
            .transpose()?
            .into_iter()
            .collect::<Vec<_>>();
        self.loops += 1;
        let body = self.stmts(body);
        self.loops -= 1;
        let body = body?;
        let derived = loops::derive(&init, cond.as_ref(), &step, &body);
        let bound = derived.unwrap_or(u128::from(self.opts.loop_bound));
        if bound > u128::from(self.opts.max_loop_bound) {
            let how = if derived.is_some() {
                "its header allows"
            } else {
                "the default loop bound is"
            };
            return Err(self.err(
                ErrorKind::Unsafe,
                format!(
                    "loop may run {bound} times ({how} that), more than the limit of {}",
                    self.opts.max_loop_bound
                ),
                span,
            ));
        }
        // Within max_loop_bound, a u32.
        Ok(Stmt::Loop(Loop {
            init,
            cond,
            step,
            body,
            bound: bound as u32,
        }))
    }

    fn place(&mut self, target: &ast::Expr) -> Result<Place, Error> {
        match &target.kind {
            ExprKind::Reg(n) => Ok(Place::Reg(self.register(n)?)),
            ExprKind::Mem(i) => Ok(Place::Mem(self.expr(i, None)?)),
            ExprKind::Pkt(..) | ExprKind::Field(_) => Err(self.err(
                ErrorKind::Invalid,
                "the packet is read-only: assign to R[n] or MEM[i]",
                target.span,
            )),
            _ => Err(self.err(
                ErrorKind::Invalid,
                "only R[n] and MEM[i] can be assigned",
                target.span,
            )),
        }
    }

    fn register(&mut self, n: &ast::Expr) -> Result<u8, Error> {
        let (v, span) = self.constant(n, "a register number")?;
        match u8::try_from(v) {
            Ok(r) if usize::from(r) < NUM_REGS => Ok(r),
            _ => Err(self.err(
                ErrorKind::Invalid,
                format!(
                    "no register R[{v}]: registers are R[0] to R[{}]",
                    NUM_REGS - 1
                ),
                span,
            )),
        }
    }

    /// Lowers `e`, which must fold to a constant.
    fn constant(&mut self, e: &ast::Expr, what: &str) -> Result<(i64, Span), Error> {
        match self.expr(e, None)? {
            Expr::Const(v) => Ok((v, e.span)),
            _ => Err(self.err(
                ErrorKind::Invalid,
                format!("{what} must be a constant"),
                e.span,
            )),
        }
    }

    /// Lowers an expression; `site` is the macro use being expanded, where
    /// errors point.
    fn expr(&mut self, e: &ast::Expr, site: Option<Span>) -> Result<Expr, Error> {
        let at = site.unwrap_or(e.span);
        let sub = |l: &mut Self, x: &ast::Expr| l.expr(x, site).map(Box::new);
        Ok(match &e.kind {
            ExprKind::Int(v) => Expr::Const(*v),
            ExprKind::Name(name) => self.expand(name, at, false)?,
            ExprKind::Field(name) => self.expand(name, at, true)?,
            ExprKind::Pkt(width, offset) => {
                let offset = sub(self, offset)?;
                if let Expr::Const(v) = *offset {
                    if v < 0 {
                        return Err(self.err(
                            ErrorKind::Invalid,
                            format!("packet offset {v} is before the packet"),
                            at,
                        ));
                    }
                }
                Expr::Load {
                    width: *width,
                    offset,
                }
            }
            ExprKind::Reg(n) => Expr::Reg(self.register(n)?),
            ExprKind::Mem(i) => Expr::Mem(sub(self, i)?),
            ExprKind::Select {
                base,
                signed,
                bits,
                index,
            } => self.select(base, *signed, *bits, index, site)?,
            ExprKind::Unary(op, a) => match self.expr(a, site)? {
                Expr::Const(v) => Expr::Const(op.apply(v)),
                a => Expr::Unary(*op, Box::new(a)),
            },
            ExprKind::Binary(op, a, b) => match (self.expr(a, site)?, self.expr(b, site)?) {
                (Expr::Const(x), Expr::Const(y)) => Expr::Const(op.apply(x, y)),
                (a, b) => Expr::Binary(*op, Box::new(a), Box::new(b)),
            },
            ExprKind::And(a, b) => match (self.expr(a, site)?, self.expr(b, site)?) {
                (Expr::Const(x), Expr::Const(y)) => Expr::Const(i64::from(x != 0 && y != 0)),
                (a, b) => Expr::And(Box::new(a), Box::new(b)),
            },
            ExprKind::Or(a, b) => match (self.expr(a, site)?, self.expr(b, site)?) {
                (Expr::Const(x), Expr::Const(y)) => Expr::Const(i64::from(x != 0 || y != 0)),
                (a, b) => Expr::Or(Box::new(a), Box::new(b)),
            },
            ExprKind::Hash(args) => {
                let start = sub(self, &args[0])?;
                let (len, len_at) = self.constant(&args[1], "HASH's length")?;
                let (size, size_at) = self.constant(&args[2], "HASH's table size")?;
                if !(0..=MAX_HASH_LEN).contains(&len) {
                    return Err(self.err(
                        ErrorKind::Invalid,
                        format!("HASH length {len} is not in 0..={MAX_HASH_LEN}"),
                        site.unwrap_or(len_at),
                    ));
                }
                let Ok(size) = u32::try_from(size).map_err(|_| ()).and_then(|s| {
                    if s == 0 {
                        Err(())
                    } else {
                        Ok(s)
                    }
                }) else {
                    return Err(self.err(
                        ErrorKind::Invalid,
                        format!("HASH table size {size} is not in 1..={}", u32::MAX),
                        site.unwrap_or(size_at),
                    ));
                };
                Expr::Hash {
                    start,
                    len: len as u32,
                    size,
                }
            }
            ExprKind::Extern {
                name,
                name_span,
                input,
                output,
            } => self.external(name, *name_span, input, output)?,
        })
    }

    fn expand(&mut self, name: &str, at: Span, as_field: bool) -> Result<Expr, Error> {
        let Some(m) = macros::lookup(name) else {
            return Err(self.err(ErrorKind::Invalid, format!("unknown name `{name}`"), at));
        };
        if as_field && m.kind != MacroKind::Field {
            return Err(self.err(
                ErrorKind::Invalid,
                format!("`{name}` is a constant, not a packet field"),
                at,
            ));
        }
        if self.macro_depth >= MAX_MACRO_DEPTH {
            return Err(self.err(
                ErrorKind::Invalid,
                format!("macro `{name}` nests too deeply"),
                at,
            ));
        }
        let def = crate::syntax::parser::parse_expr(m.definition).map_err(|e| {
            self.err(
                ErrorKind::Invalid,
                format!("macro `{}` is malformed: {}", m.name, e.message()),
                at,
            )
        })?;
        self.macro_depth += 1;
        let out = self.expr(&def, Some(at));
        self.macro_depth -= 1;
        out
    }

    fn select(
        &mut self,
        base: &ast::Expr,
        signed: bool,
        bits: u8,
        index: &ast::Expr,
        site: Option<Span>,
    ) -> Result<Expr, Error> {
        let at = site.unwrap_or(base.span);
        let lowered = self.expr(base, site)?;
        let base_bits = match &lowered {
            Expr::Load { width, .. } => 8 * width.bytes() as u8,
            Expr::Reg(_) | Expr::Mem(_) => 64,
            Expr::Field { bits, .. } => *bits,
            _ => {
                return Err(self.err(
                    ErrorKind::Invalid,
                    "a selector applies to a packet load, a register, a memory slot or another selector",
                    at,
                ))
            }
        };
        let kind = if signed { 'S' } else { 'U' };
        if bits > base_bits {
            return Err(self.err(
                ErrorKind::Invalid,
                format!("{kind}{bits} does not fit in a {base_bits}-bit value"),
                at,
            ));
        }
        let index_at = site.unwrap_or(index.span);
        let index = self.expr(index, site)?;
        if let Expr::Const(m) = index {
            let fields = i64::from(base_bits / bits);
            if !(0..fields).contains(&m) {
                return Err(self.err(
                    ErrorKind::Invalid,
                    format!("{kind}{bits}[{m}] selects past the {base_bits}-bit value (its {kind}{bits} fields are 0 to {})", fields - 1),
                    index_at,
                ));
            }
        }
        Ok(Expr::Field {
            base: Box::new(lowered),
            base_bits,
            bits,
            signed,
            index: Box::new(index),
        })
    }

    fn external(
        &mut self,
        name: &str,
        name_span: Span,
        input: &ast::Expr,
        output: &ast::Expr,
    ) -> Result<Expr, Error> {
        if let Some(p) = self.filters.get(name) {
            return self.filter_call(name, p.clone(), name_span, input, output);
        }
        let Some(f) = self.registry.lookup(name) else {
            return Err(self.err(
                ErrorKind::Invalid,
                if self.filters.is_empty() {
                    format!("no external function `{name}` is registered")
                } else {
                    format!("no external function `{name}` is registered and no filter of that name is defined")
                },
                name_span,
            ));
        };
        let input = self.region(name, input, "reads its input", f.input_len())?;
        let output = self.region(name, output, "writes its output", f.output_len())?;
        let func = match self.externs.iter().position(|g| g.name() == f.name()) {
            Some(i) => i,
            None => {
                self.externs.push(f);
                self.externs.len() - 1
            }
        };
        Ok(Expr::Extern {
            func,
            input,
            output,
        })
    }

    /// `EXTERN(name, input, output)` of the filter `p`: its window and result
    /// inside MBuf, its depth within the limit.
    fn filter_call(
        &mut self,
        name: &str,
        p: std::sync::Arc<Program>,
        name_span: Span,
        input: &ast::Expr,
        output: &ast::Expr,
    ) -> Result<Expr, Error> {
        let depth = p.call_depth().saturating_add(1);
        if depth > self.opts.max_call_depth {
            return Err(self.err(
                ErrorKind::Unsafe,
                format!(
                    "calling filter `{name}` nests filter calls {depth} deep, more than the limit of {}",
                    self.opts.max_call_depth
                ),
                name_span,
            ));
        }
        let window = p.mbuf_len();
        let input = self.region(name, input, "(a filter) runs on its MBuf", window)?;
        let output = self.region(name, output, "(a filter) writes its result", RESULT_BYTES)?;
        self.depth = self.depth.max(depth);
        let filter = match self.callees.iter().position(|c| c.name == name) {
            Some(i) => i,
            None => {
                self.callees.push(Callee {
                    name: name.to_string(),
                    program: p,
                });
                self.callees.len() - 1
            }
        };
        Ok(Expr::Call {
            filter,
            input,
            output,
        })
    }

    /// An `EXTERN` offset: a constant whose region of `len` bytes lies in MBuf.
    fn region(&mut self, name: &str, e: &ast::Expr, does: &str, len: usize) -> Result<u32, Error> {
        let (off, span) = self.constant(e, "an EXTERN offset")?;
        let mbuf = self.opts.mbuf_len;
        match usize::try_from(off) {
            Ok(o) if o.checked_add(len).is_some_and(|end| end <= mbuf) && u32::try_from(o).is_ok() => Ok(o as u32),
            _ => Err(self.err(
                ErrorKind::Unsafe,
                format!("EXTERN `{name}` {does} in {len} bytes at MBuf offset {off}, outside the {mbuf}-byte MBuf"),
                span,
            )),
        }
    }
}

fn fmt_cost(c: u64) -> String {
    if c == u64::MAX {
        "more than 2^64".to_string()
    } else {
        c.to_string()
    }
}
