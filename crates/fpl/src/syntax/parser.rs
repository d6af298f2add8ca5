//! The parser: tokens to a syntax tree, by recursive descent for statements and
//! precedence climbing for expressions (C's precedence, see docs/fpl.md).
//! Nesting is bounded by [`MAX_DEPTH`] so no input can exhaust the stack here
//! or in the recursive passes after it.

use super::ast::{Expr, ExprKind, Stmt, StmtKind, Width};
use super::lexer::{lex, Tok, Token};
use crate::error::{Error, ErrorKind, Span};
use crate::ops::{BinOp, UnOp};

/// The deepest expression tree, or statement nesting, the parser accepts.
pub(crate) const MAX_DEPTH: u32 = 200;

/// Parses a whole program.
pub(crate) fn parse_program(text: &str) -> Result<Vec<Stmt>, Error> {
    let mut p = Parser::new(text)?;
    let body = p.stmts()?;
    match p.peek() {
        Tok::Eof => Ok(body),
        _ => Err(p.unexpected("a statement")),
    }
}

/// Parses one expression (a macro's definition).
pub(crate) fn parse_expr(text: &str) -> Result<Expr, Error> {
    let mut p = Parser::new(text)?;
    let e = p.expr()?;
    match p.peek() {
        Tok::Eof => Ok(e),
        _ => Err(p.unexpected("the end of the expression")),
    }
}

/// The parser of the next tighter level.
type Level<'t> = fn(&mut Parser<'t>) -> Result<Expr, Error>;

struct Parser<'t> {
    text: &'t str,
    toks: Vec<Token>,
    pos: usize,
    nesting: u32,
}

/// Binary operators by precedence level, loosest first (`&&` and `||` are
/// levels 0 and 1 and built as short-circuit nodes).
const LEVELS: [&[(&str, BinOp)]; 8] = [
    &[("|", BinOp::BitOr)],
    &[("^", BinOp::BitXor)],
    &[("&", BinOp::BitAnd)],
    &[("==", BinOp::Eq), ("!=", BinOp::Ne)],
    &[
        ("<", BinOp::Lt),
        ("<=", BinOp::Le),
        (">", BinOp::Gt),
        (">=", BinOp::Ge),
    ],
    &[("<<", BinOp::Shl), (">>", BinOp::Shr)],
    &[("+", BinOp::Add), ("-", BinOp::Sub)],
    &[("*", BinOp::Mul), ("/", BinOp::Div), ("%", BinOp::Rem)],
];

const ASSIGN: [(&str, Option<BinOp>); 11] = [
    ("=", None),
    ("+=", Some(BinOp::Add)),
    ("-=", Some(BinOp::Sub)),
    ("*=", Some(BinOp::Mul)),
    ("/=", Some(BinOp::Div)),
    ("%=", Some(BinOp::Rem)),
    ("<<=", Some(BinOp::Shl)),
    (">>=", Some(BinOp::Shr)),
    ("&=", Some(BinOp::BitAnd)),
    ("^=", Some(BinOp::BitXor)),
    ("|=", Some(BinOp::BitOr)),
];

/// Words that end a statement list.
const ENDERS: [&str; 3] = ["FI", "ELSE", "ROF"];

impl<'t> Parser<'t> {
    fn new(text: &'t str) -> Result<Parser<'t>, Error> {
        Ok(Parser {
            text,
            toks: lex(text)?,
            pos: 0,
            nesting: 0,
        })
    }

    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    fn peek_at(&self, n: usize) -> &Tok {
        &self.toks[(self.pos + n).min(self.toks.len() - 1)].tok
    }

    fn span(&self) -> Span {
        self.toks[self.pos].span
    }

    fn prev_end(&self) -> usize {
        self.pos.checked_sub(1).map_or(0, |i| self.toks[i].span.end)
    }

    fn bump(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    /// Steps back over `tok`, which [`Parser::bump`] returned (it does not move
    /// past the end, so there is nothing to step back over then).
    fn back(&mut self, tok: &Tok) {
        if *tok != Tok::Eof {
            self.pos -= 1;
        }
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s.eq_ignore_ascii_case(w))
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        let hit = self.is_punct(p);
        if hit {
            self.bump();
        }
        hit
    }

    fn expect_punct(&mut self, p: &str) -> Result<Span, Error> {
        if self.is_punct(p) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(&format!("`{p}`")))
        }
    }

    fn expect_word(&mut self, w: &str) -> Result<Span, Error> {
        if self.is_word(w) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(&format!("`{w}`")))
        }
    }

    fn unexpected(&self, wanted: &str) -> Error {
        let found = match self.peek() {
            Tok::Eof => "the end of the program".to_string(),
            Tok::Int(_) => "a number".to_string(),
            Tok::Str(_) => "a string".to_string(),
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Punct(p) => format!("`{p}`"),
        };
        Error::new(
            ErrorKind::Syntax,
            format!("expected {wanted}, found {found}"),
            self.span(),
            self.text,
        )
    }

    fn nest(&mut self) -> Result<(), Error> {
        self.nesting += 1;
        if self.nesting > MAX_DEPTH {
            return Err(Error::new(
                ErrorKind::Syntax,
                format!("nesting deeper than {MAX_DEPTH} levels"),
                self.span(),
                self.text,
            ));
        }
        Ok(())
    }

    fn stmts(&mut self) -> Result<Vec<Stmt>, Error> {
        let mut out = Vec::new();
        loop {
            if matches!(self.peek(), Tok::Eof) || ENDERS.iter().any(|w| self.is_word(w)) {
                return Ok(out);
            }
            if self.eat_punct(";") {
                continue;
            }
            self.nest()?;
            let s = self.stmt();
            self.nesting -= 1;
            out.push(s?);
        }
    }

    fn stmt(&mut self) -> Result<Stmt, Error> {
        let start = self.span().start;
        let kind = if self.is_word("IF") {
            self.bump();
            let cond = self.expr()?;
            self.expect_word("THEN")?;
            let then = self.stmts()?;
            let els = if self.is_word("ELSE") {
                self.bump();
                self.stmts()?
            } else {
                Vec::new()
            };
            self.expect_word("FI")?;
            StmtKind::If { cond, then, els }
        } else if self.is_word("FOR") {
            self.bump();
            self.expect_punct("(")?;
            let init = if self.is_punct(";") {
                None
            } else {
                Some(Box::new(self.simple()?))
            };
            self.expect_punct(";")?;
            let cond = if self.is_punct(";") {
                None
            } else {
                Some(self.expr()?)
            };
            self.expect_punct(";")?;
            let step = if self.is_punct(")") {
                None
            } else {
                Some(Box::new(self.simple()?))
            };
            self.expect_punct(")")?;
            let body = self.stmts()?;
            self.expect_word("ROF")?;
            StmtKind::For {
                init,
                cond,
                step,
                body,
            }
        } else if self.is_word("BREAK") {
            self.bump();
            self.terminator()?;
            StmtKind::Break
        } else if self.is_word("RETURN") {
            self.bump();
            let value = if self.at_terminator() {
                None
            } else {
                Some(self.expr()?)
            };
            self.terminator()?;
            StmtKind::Return(value)
        } else {
            let s = self.simple()?;
            self.terminator()?;
            return Ok(s);
        };
        // The span ends at the statement's last token, not at its `;`.
        let mut last = self.pos.saturating_sub(1);
        if self.toks[last].tok == Tok::Punct(";") && last > 0 {
            last -= 1;
        }
        Ok(Stmt {
            kind,
            span: Span::new(start, self.toks[last].span.end.max(start)),
        })
    }

    fn at_terminator(&self) -> bool {
        self.is_punct(";")
            || matches!(self.peek(), Tok::Eof)
            || ENDERS.iter().any(|w| self.is_word(w))
    }

    /// A simple statement ends with `;`, which may be left out before `FI`,
    /// `ELSE`, `ROF` and the end of the program.
    fn terminator(&mut self) -> Result<(), Error> {
        if self.eat_punct(";") || self.at_terminator() {
            Ok(())
        } else {
            Err(self.unexpected("`;`"))
        }
    }

    /// An assignment, `++`/`--`, or an `EXTERN` call.
    fn simple(&mut self) -> Result<Stmt, Error> {
        let start = self.span().start;
        for (p, delta) in [("++", 1), ("--", -1)] {
            if self.eat_punct(p) {
                let target = self.unary()?;
                let span = Span::new(start, target.span.end);
                return Ok(Stmt {
                    kind: StmtKind::Step { target, delta },
                    span,
                });
            }
        }
        let target = self.expr()?;
        for (p, delta) in [("++", 1), ("--", -1)] {
            if self.eat_punct(p) {
                let span = Span::new(start, self.prev_end());
                return Ok(Stmt {
                    kind: StmtKind::Step { target, delta },
                    span,
                });
            }
        }
        for (p, op) in ASSIGN {
            if self.eat_punct(p) {
                let value = self.expr()?;
                let span = Span::new(start, value.span.end);
                return Ok(Stmt {
                    kind: StmtKind::Assign { target, op, value },
                    span,
                });
            }
        }
        if matches!(target.kind, ExprKind::Extern { .. }) {
            let span = target.span;
            return Ok(Stmt {
                kind: StmtKind::Eval(target),
                span,
            });
        }
        if self.is_punct(";") || self.at_terminator() {
            return Err(Error::new(
                ErrorKind::Syntax,
                "an expression alone is not a statement (assign it, or call EXTERN)",
                target.span,
                self.text,
            ));
        }
        Err(self.unexpected("an assignment operator, `++` or `--`"))
    }

    fn expr(&mut self) -> Result<Expr, Error> {
        self.logic(true)
    }

    /// `||` (when `or`) over `&&` over the binary levels.
    fn logic(&mut self, or: bool) -> Result<Expr, Error> {
        let (sym, next): (&str, Level<'_>) = if or {
            ("||", |p| p.logic(false))
        } else {
            ("&&", |p| p.binary(0))
        };
        let mut lhs = next(self)?;
        while self.eat_punct(sym) {
            let rhs = next(self)?;
            let span = lhs.span.to(rhs.span);
            let kind = if or {
                ExprKind::Or(Box::new(lhs), Box::new(rhs))
            } else {
                ExprKind::And(Box::new(lhs), Box::new(rhs))
            };
            lhs = self.node(kind, span)?;
        }
        Ok(lhs)
    }

    fn binary(&mut self, level: usize) -> Result<Expr, Error> {
        let Some(ops) = LEVELS.get(level) else {
            return self.unary();
        };
        let mut lhs = self.binary(level + 1)?;
        'outer: loop {
            for (sym, op) in ops.iter() {
                if self.eat_punct(sym) {
                    let rhs = self.binary(level + 1)?;
                    let span = lhs.span.to(rhs.span);
                    lhs = self.node(ExprKind::Binary(*op, Box::new(lhs), Box::new(rhs)), span)?;
                    continue 'outer;
                }
            }
            return Ok(lhs);
        }
    }

    /// Builds a node, refusing one deeper than [`MAX_DEPTH`].
    fn node(&self, kind: ExprKind, span: Span) -> Result<Expr, Error> {
        let e = Expr::new(kind, span);
        if e.depth > MAX_DEPTH {
            return Err(Error::new(
                ErrorKind::Syntax,
                format!("expression nested deeper than {MAX_DEPTH} levels"),
                span,
                self.text,
            ));
        }
        Ok(e)
    }

    fn unary(&mut self) -> Result<Expr, Error> {
        let start = self.span();
        for (sym, op) in [
            ("!", Some(UnOp::Not)),
            ("~", Some(UnOp::BitNot)),
            ("-", Some(UnOp::Neg)),
            ("+", None),
        ] {
            if self.eat_punct(sym) {
                self.nest()?;
                let e = self.unary();
                self.nesting -= 1;
                let e = e?;
                let span = start.to(e.span);
                return match op {
                    Some(op) => self.node(ExprKind::Unary(op, Box::new(e)), span),
                    None => Ok(e),
                };
            }
        }
        let mut e = self.primary()?;
        // Selectors: `.U8[m]`, `.S1[m]`, …, any number of them.
        while self.is_punct(".") {
            let Some((signed, bits)) = self.selector_word(1) else {
                self.bump();
                return Err(self.unexpected("a selector such as `U8` or `S16`"));
            };
            self.bump();
            self.bump();
            let index = self.bracketed()?;
            let span = e.span.to(Span::new(start.start, self.prev_end()));
            e = self.node(
                ExprKind::Select {
                    base: Box::new(e),
                    signed,
                    bits,
                    index: Box::new(index),
                },
                span,
            )?;
        }
        Ok(e)
    }

    /// `U<bits>` or `S<bits>` at token `n` ahead, as (signed, bits).
    fn selector_word(&self, n: usize) -> Option<(bool, u8)> {
        let Tok::Ident(w) = self.peek_at(n) else {
            return None;
        };
        let signed = match w.as_bytes().first()? {
            b'U' | b'u' => false,
            b'S' | b's' => true,
            _ => return None,
        };
        let bits: u8 = w[1..].parse().ok()?;
        matches!(bits, 1 | 2 | 4 | 8 | 16 | 32).then_some((signed, bits))
    }

    fn bracketed(&mut self) -> Result<Expr, Error> {
        self.expect_punct("[")?;
        self.nest()?;
        let e = self.expr();
        self.nesting -= 1;
        let e = e?;
        self.expect_punct("]")?;
        Ok(e)
    }

    fn primary(&mut self) -> Result<Expr, Error> {
        let t = self.bump();
        let start = t.span;
        let kind = match t.tok {
            Tok::Int(v) => ExprKind::Int(v),
            Tok::Punct("(") => {
                self.nest()?;
                let e = self.expr();
                self.nesting -= 1;
                let mut e = e?;
                self.expect_punct(")")?;
                e.span = start.to(Span::new(start.start, self.prev_end()));
                return Ok(e);
            }
            Tok::Ident(w) => return self.named(w, start),
            tok => {
                self.back(&tok);
                return Err(self.unexpected("an expression"));
            }
        };
        Ok(Expr::new(kind, start))
    }

    /// What follows a name: `PKT.…`, `R[…]`, `MEM[…]`, `HASH(…)`, `EXTERN(…)`,
    /// or a bare macro or constant.
    fn named(&mut self, w: String, start: Span) -> Result<Expr, Error> {
        let upper = w.to_ascii_uppercase();
        let kind = match upper.as_str() {
            "PKT" => {
                self.expect_punct(".")?;
                let Tok::Ident(field) = self.peek().clone() else {
                    return Err(self.unexpected("`B`, `W`, `DW` or a field name after `PKT.`"));
                };
                self.bump();
                let width = match field.to_ascii_uppercase().as_str() {
                    "B" => Some(Width::Byte),
                    "W" => Some(Width::Word),
                    "DW" => Some(Width::DWord),
                    _ => None,
                };
                match width {
                    Some(width) if self.is_punct("[") => {
                        ExprKind::Pkt(width, Box::new(self.bracketed()?))
                    }
                    _ => ExprKind::Field(field),
                }
            }
            "R" if self.is_punct("[") => ExprKind::Reg(Box::new(self.bracketed()?)),
            "MEM" | "M" if self.is_punct("[") => ExprKind::Mem(Box::new(self.bracketed()?)),
            "HASH" => {
                self.expect_punct("(")?;
                let a = self.expr()?;
                self.expect_punct(",")?;
                let b = self.expr()?;
                self.expect_punct(",")?;
                let c = self.expr()?;
                self.expect_punct(")")?;
                ExprKind::Hash(Box::new([a, b, c]))
            }
            "EXTERN" => {
                self.expect_punct("(")?;
                let name_tok = self.bump();
                let name = match name_tok.tok {
                    Tok::Ident(s) | Tok::Str(s) => s,
                    tok => {
                        self.back(&tok);
                        return Err(self.unexpected("an external function's name"));
                    }
                };
                self.expect_punct(",")?;
                let input = Box::new(self.expr()?);
                self.expect_punct(",")?;
                let output = Box::new(self.expr()?);
                self.expect_punct(")")?;
                ExprKind::Extern {
                    name,
                    name_span: name_tok.span,
                    input,
                    output,
                }
            }
            "IF" | "THEN" | "ELSE" | "FI" | "FOR" | "ROF" | "BREAK" | "RETURN" => {
                // The keyword was a real token, so the parser moved past it.
                self.pos -= 1;
                return Err(self.unexpected("an expression"));
            }
            _ => ExprKind::Name(w),
        };
        let span = start.to(Span::new(start.start, self.prev_end()));
        self.node(kind, span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_is_cs() {
        let e = parse_expr("1 + 2 * 3 == 7 && 1 | 2 ^ 3 & 4").unwrap();
        let ExprKind::And(l, r) = e.kind else {
            panic!("{e:?}")
        };
        assert!(matches!(l.kind, ExprKind::Binary(BinOp::Eq, _, _)));
        assert!(matches!(r.kind, ExprKind::Binary(BinOp::BitOr, _, _)));
    }

    #[test]
    fn statements() {
        let p = parse_program(
            "IF (PKT.IP_PROTO == PROTO_TCP) THEN R[0] = Hash(26, 12, 256); MEM[R[0]]++; FI \
             FOR (R[1] = 0; R[1] < 4; R[1]++) BREAK; ROF RETURN 1",
        )
        .unwrap();
        assert_eq!(p.len(), 3);
        assert!(matches!(p[1].kind, StmtKind::For { .. }));
    }

    #[test]
    fn empty_and_cut_inputs() {
        assert!(parse_expr("").is_err());
        assert!(parse_program("R[0] =").is_err());
        assert!(parse_program("EXTERN(").is_err());
        assert!(parse_program("").unwrap().is_empty());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("R[0] = {}1{};", "(".repeat(5000), ")".repeat(5000));
        assert!(parse_program(&deep).is_err());
        let long = format!("R[0] = 1{};", " + 1".repeat(5000));
        assert!(parse_program(&long).is_err());
        let neg = format!("R[0] = {}1;", "-".repeat(5000));
        assert!(parse_program(&neg).is_err());
        let ifs = format!("{}{}", "IF 1 THEN ".repeat(5000), "FI ".repeat(5000));
        assert!(parse_program(&ifs).is_err());
    }
}
