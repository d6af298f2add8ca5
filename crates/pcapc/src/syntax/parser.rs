//! The parser: tokens to the syntax tree of [`super::ast`], accepting exactly what
//! libpcap's grammar.y accepts.
//!
//! grammar.y is an LALR(1) grammar, and a few of its choices are only made after the
//! fact: after `and`, a `(` may open a parenthesised expression, a parenthesised list of
//! ids (`host a and (b or c)`), a parenthesised number or an arithmetic group; a `not` may
//! negate a term or an id; a number may be an id (`port 80 or 443`) or start a comparison
//! (`80 = tcp[0]`). This recursive-descent parser follows the grammar's contexts and, where
//! the grammar defers the choice, parses the union and decides from what it found
//! ([`Group`], [`Kind`]).
//!
//! # Qualifier inheritance
//!
//! libpcap passes qualifiers along the parser stack (`$<blk>0.q`): a bare id after `and`
//! or `or` takes the qualifiers of the term before it, `not` and `(` hand on the
//! qualifiers of what precedes them, a parenthesised expression passes on the qualifiers
//! from before its `(` (so in `host a or (tcp) or b`, `b` is a host), and a term that is
//! not `head id` (`tcp`, `len > 100`, `vlan`, ...) passes on none, so that `tcp or 80` is
//! an error ("syntax error in filter expression"). [`Q`] is that value; `None` is
//! libpcap's `qerr`.
//!
//! # Arithmetic
//!
//! grammar.y gives `|` `&` `<<`/`>>` `+`/`-` `*`/`/` and unary minus the usual
//! precedences, but none to `%` and `^`, so bison resolves every conflict involving them
//! by shifting: they bind their left neighbour as tightly as possible and take all the
//! rest of the arithmetic expression as their right operand (`1 * 2 % 3 + 4` is
//! `1 * (2 % (3 + 4))`). [`Parser::arith_ops`] is a shift-reduce loop with exactly that
//! table.
//!
//! # Limits
//!
//! Nesting (parentheses, `not`, loads inside loads) is bounded by [`MAX_NEST`], as deep
//! as libpcap's parser goes (its bison stack of 10,000 entries takes 9,995 parentheses
//! or 9,996 `not`s), and the depth of the tree by [`MAX_DEPTH`]; both give "expression
//! nests too deeply". Every step of the pipeline recurses on the tree, so [`parse`]
//! and [`crate::compile_for`] run text whose [`nesting_bound`] exceeds [`SHALLOW`] on
//! a thread with a stack sized for these limits (`syntax/stack.rs`). A long run of one operator
//! (`host a or host b or ...`, thousands of terms) is built as a balanced tree, which the
//! operator's associativity makes equivalent and which keeps source order.

mod p80211;

use super::ast::*;
use super::lexer::{lex, Kw, TokKind, Token};
use crate::{Error, ErrorKind};

/// Deepest nesting of parentheses, `not`s and loads that the parser follows
/// (libpcap's, see the module notes).
const MAX_NEST: usize = 10_000;
/// Deepest tree the parser builds (counting `And`, `Or`, `Not` and arithmetic nodes).
const MAX_DEPTH: usize = 20_000;
/// Expressions nested at most this deep are compiled on the caller's stack.
pub const SHALLOW: usize = 100;

/// An upper bound of the nesting of `text` (parentheses, brackets, `not` and `!`),
/// without parsing it: the deepest bracket nesting plus every `not` or `!`.
pub fn nesting_bound(text: &str) -> usize {
    let (mut depth, mut deepest, mut nots) = (0usize, 0usize, 0usize);
    let b = text.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b']' => depth = depth.saturating_sub(1),
            b'!' => nots += 1,
            b'n' if b[i..].starts_with(b"not") => nots += 1,
            _ => {}
        }
    }
    deepest + nots
}
/// Runs of the same boolean operator up to this length keep libpcap's left-deep shape.
const MAX_LEFT_RUN: usize = 64;

const TOO_DEEP: &str = "expression nests too deeply";

/// Parses filter text. `Ok(None)` is the empty expression, which accepts every packet.
/// Deeply nested text is parsed on a thread with a stack sized for 10,000 levels
/// (`syntax/stack.rs`), so no input overflows the caller's stack.
pub fn parse(text: &str) -> Result<Option<Expr>, Error> {
    super::stack::sized_for(text, || parse_here(text))
}

/// [`parse`] on the caller's stack: for callers already on a stack sized for `text`.
pub(crate) fn parse_here(text: &str) -> Result<Option<Expr>, Error> {
    let mut p = Parser {
        text,
        toks: lex(text),
        pos: 0,
        nest: 0,
    };
    if p.peek() == &TokKind::Eof {
        return Ok(None);
    }
    let (first, q, _) = p.term(None)?;
    let (e, _) = p.expr_tail(first, q)?;
    if p.peek() != &TokKind::Eof {
        return Err(p.unexpected("'and', 'or' or the end of the expression"));
    }
    Ok(Some(e.e))
}

/// The qualifiers handed on to the next bare id; `None` is libpcap's `qerr` (none).
type Q = Option<Qual>;

/// A subtree and its depth.
struct E {
    e: Expr,
    d: usize,
}

/// An arithmetic subtree, its depth, and whether it is a bare number (`pnum` in grammar.y:
/// `80` or `((80))`), which some contexts accept where other arithmetic is an error.
struct A {
    a: Arith,
    d: usize,
    pnum: bool,
}

/// What a term-or-id position turned out to hold.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Term,
    Id,
}

/// What a parenthesised group turned out to hold.
enum Group {
    /// `( expr )`.
    Expr(E),
    /// `( pid )`: ids joined by `and`/`or`, sharing the qualifiers from before the `(`.
    Pid(E),
    /// `( pnum )`, or `( narth )` when `A::pnum` is false.
    Arith(A),
}

/// Which readings of a parenthesised group the context allows.
#[derive(Clone, Copy)]
struct Allow {
    expr: bool,
    pid: bool,
    pnum: bool,
    narth: bool,
}

impl Allow {
    /// The group's first item may itself be a group; which readings can it have?
    fn inner(self) -> Allow {
        Allow {
            expr: self.expr,
            pid: false,
            pnum: true,
            narth: self.expr || self.narth,
        }
    }
}

#[derive(Clone, Copy)]
enum Op {
    Bin(BinOp),
    Neg(Span),
}

struct Parser<'t> {
    text: &'t str,
    toks: Vec<Token>,
    pos: usize,
    nest: usize,
}

impl<'t> Parser<'t> {
    // ----- tokens -----

    fn tok(&self, k: usize) -> &Token {
        // The list always ends with Eof or an Error token, which is never consumed.
        let last = self.toks.len().saturating_sub(1);
        &self.toks[(self.pos + k).min(last)]
    }

    fn peek(&self) -> &TokKind {
        &self.tok(0).kind
    }

    fn peek_at(&self, k: usize) -> &TokKind {
        &self.tok(k).kind
    }

    fn span(&self) -> Span {
        self.tok(0).span
    }

    fn bump(&mut self) -> Token {
        let t = self.tok(0).clone();
        if !matches!(t.kind, TokKind::Eof | TokKind::Error(_)) {
            self.pos += 1;
        }
        t
    }

    /// End offset of the last consumed token.
    fn prev_end(&self) -> usize {
        match self.pos.checked_sub(1).and_then(|i| self.toks.get(i)) {
            Some(t) => t.span.end,
            None => 0,
        }
    }

    fn peek_kw(&self) -> Option<Kw> {
        match self.peek() {
            TokKind::Kw(k) => Some(*k),
            _ => None,
        }
    }

    fn eat_kw(&mut self, kw: Kw) -> bool {
        if self.peek_kw() == Some(kw) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn err(&self, msg: impl Into<String>, span: Span) -> Error {
        Error::new(msg, span, self.text).with_kind(ErrorKind::Syntax)
    }

    /// The error for the current token when `expected` was wanted. A token the scanner
    /// refused reports the scanner's message, as libpcap does.
    fn unexpected(&self, expected: &str) -> Error {
        let t = self.tok(0);
        match &t.kind {
            TokKind::Error(m) => self.err(m.clone(), t.span),
            TokKind::Eof => self.err(
                format!("syntax error: expected {expected}, but the expression ends here"),
                t.span,
            ),
            _ => {
                let s = self.text.get(t.span.start..t.span.end).unwrap_or("?");
                self.err(
                    format!("syntax error: expected {expected}, found '{s}'"),
                    t.span,
                )
            }
        }
    }

    fn expect(&mut self, kind: &TokKind, expected: &str) -> Result<Token, Error> {
        if self.peek() == kind {
            Ok(self.bump())
        } else {
            Err(self.unexpected(expected))
        }
    }

    fn expect_num(&mut self, expected: &str) -> Result<(u32, Span), Error> {
        match self.peek() {
            TokKind::Num(n) => {
                let n = *n;
                Ok((n, self.bump().span))
            }
            _ => Err(self.unexpected(expected)),
        }
    }

    fn enter(&mut self) -> Result<(), Error> {
        self.nest += 1;
        if self.nest > MAX_NEST {
            return Err(self.err(TOO_DEEP, self.span()));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.nest = self.nest.saturating_sub(1);
    }

    // ----- tree building -----

    fn depth_ok(&self, d: usize, span: Span) -> Result<usize, Error> {
        if d > MAX_DEPTH {
            Err(self.err(TOO_DEEP, span))
        } else {
            Ok(d)
        }
    }

    fn prim(kind: PrimKind, span: Span) -> E {
        E {
            e: Expr::Prim(Primitive { kind, span }),
            d: 1,
        }
    }

    fn not(&self, s: Span, x: E) -> Result<E, Error> {
        let d = self.depth_ok(x.d + 1, s)?;
        Ok(E {
            e: Expr::Not(Box::new(x.e), s),
            d,
        })
    }

    fn bool_op(&self, and: bool, l: E, r: E, op_span: Span) -> Result<E, Error> {
        let d = self.depth_ok(l.d.max(r.d) + 1, op_span)?;
        let (l, r) = (Box::new(l.e), Box::new(r.e));
        Ok(E {
            e: if and { Expr::And(l, r) } else { Expr::Or(l, r) },
            d,
        })
    }

    /// `first op x op y ...`, left-associative as in grammar.y. A run of one operator
    /// longer than [`MAX_LEFT_RUN`] is built balanced (same meaning, same order).
    fn chain(&self, first: E, rest: Vec<(bool, Span, E)>) -> Result<E, Error> {
        let mut acc = first;
        let mut rest = rest.into_iter().peekable();
        while let Some((and, span, x)) = rest.next() {
            let mut run = vec![(span, x)];
            while rest.peek().is_some_and(|(a, _, _)| *a == and) {
                if let Some((_, s, y)) = rest.next() {
                    run.push((s, y));
                }
            }
            if run.len() <= MAX_LEFT_RUN {
                for (s, y) in run {
                    acc = self.bool_op(and, acc, y, s)?;
                }
            } else {
                let span = run[0].0;
                let b = self.balanced(and, run)?;
                acc = self.bool_op(and, acc, b, span)?;
            }
        }
        Ok(acc)
    }

    fn balanced(&self, and: bool, mut items: Vec<(Span, E)>) -> Result<E, Error> {
        if items.len() == 1 {
            if let Some((_, x)) = items.pop() {
                return Ok(x);
            }
        }
        let right = items.split_off(items.len() / 2);
        let span = right.first().map(|(s, _)| *s).unwrap_or_default();
        let l = self.balanced(and, items)?;
        let r = self.balanced(and, right)?;
        self.bool_op(and, l, r, span)
    }

    // ----- expressions -----

    /// `expr: term | expr and term | expr and id | expr or term | expr or id`, after its
    /// first term. `q` is what the last term or id hands on.
    fn expr_tail(&mut self, first: E, mut q: Q) -> Result<(E, Q), Error> {
        let mut rest = Vec::new();
        loop {
            let and = match self.peek_kw() {
                Some(Kw::And) => true,
                Some(Kw::Or) => false,
                _ => break,
            };
            let op = self.bump().span;
            let (x, q2, _) = self.term_or_id(q)?;
            q = q2;
            rest.push((and, op, x));
        }
        Ok((self.chain(first, rest)?, q))
    }

    // The functions on the recursive paths (terms, ids, groups, `not`) are kept small and
    // dispatch to helpers, so that each nesting level costs little stack even unoptimised.

    /// `term: rterm | not term`, where no bare id may stand (the start of an expression,
    /// after `not` there, after a group's `(`). `q` is the value of the symbol before.
    fn term(&mut self, q: Q) -> Result<(E, Q, Kind), Error> {
        match self.peek() {
            TokKind::Kw(Kw::Not) => self.not_term(q),
            TokKind::LParen => self.paren_term(q, false),
            _ => self.rterm_term(),
        }
    }

    fn not_term(&mut self, q: Q) -> Result<(E, Q, Kind), Error> {
        let s = self.bump().span;
        self.enter()?;
        let (x, q2, _) = self.term(q)?;
        self.leave();
        Ok((self.not(s, x)?, q2, Kind::Term))
    }

    fn rterm_term(&mut self) -> Result<(E, Q, Kind), Error> {
        let (x, q2) = self.rterm()?;
        Ok((x, q2, Kind::Term))
    }

    /// After `and`/`or`: a term, or a bare id that inherits `q`.
    fn term_or_id(&mut self, q: Q) -> Result<(E, Q, Kind), Error> {
        match self.peek() {
            TokKind::Kw(Kw::Not) => self.not_term_or_id(q),
            k if is_id_token(k) => self.nid_item(q),
            TokKind::Num(_) if !starts_arith_continuation(self.peek_at(1)) => self.num_item(q),
            TokKind::LParen => self.paren_term(q, true),
            _ => self.rterm_term(),
        }
    }

    fn not_term_or_id(&mut self, q: Q) -> Result<(E, Q, Kind), Error> {
        let s = self.bump().span;
        self.enter()?;
        let (x, q2, kind) = self.term_or_id(q)?;
        self.leave();
        Ok((self.not(s, x)?, q2, kind))
    }

    fn nid_item(&mut self, q: Q) -> Result<(E, Q, Kind), Error> {
        Ok((self.nid(q, None)?, q, Kind::Id))
    }

    /// `id: pnum` for a number token.
    fn num_item(&mut self, q: Q) -> Result<(E, Q, Kind), Error> {
        let (n, span) = self.expect_num("a number")?;
        Ok((self.num_id(q, n, span, span.start)?, q, Kind::Id))
    }

    fn num_id(&self, q: Q, n: u32, span: Span, start: usize) -> Result<E, Error> {
        self.qualify(q, Id::Num(n), span, start, IdSort::Plain)
    }

    /// A `(` where a term (and, if `id_ok`, an id) may stand.
    fn paren_term(&mut self, q: Q, id_ok: bool) -> Result<(E, Q, Kind), Error> {
        let start = self.span().start;
        let allow = Allow {
            expr: true,
            pid: id_ok,
            pnum: true,
            narth: true,
        };
        let g = self.group(allow, q)?;
        self.after_paren_term(g, q, id_ok, start)
    }

    fn after_paren_term(
        &mut self,
        g: Group,
        q: Q,
        id_ok: bool,
        start: usize,
    ) -> Result<(E, Q, Kind), Error> {
        match g {
            // rterm: paren expr ')' hands on the qualifiers from before the `(`.
            Group::Expr(e) => Ok((e, q, Kind::Term)),
            Group::Pid(e) => Ok((e, q, Kind::Id)),
            Group::Arith(A {
                a: Arith::Num(n, span),
                pnum: true,
                ..
            }) if id_ok && !starts_arith_continuation(self.peek()) => {
                Ok((self.num_id(q, n, span, span.start)?, q, Kind::Id))
            }
            Group::Arith(a) => Ok((self.relation(start, a)?, None, Kind::Term)),
        }
    }

    /// `( ... )` with the readings `allow` permits. `q` is the value of the symbol before
    /// the `(`, which grammar.y's `paren` hands on to what is inside.
    fn group(&mut self, allow: Allow, q: Q) -> Result<Group, Error> {
        self.expect(&TokKind::LParen, "'('")?;
        self.enter()?;
        let g = self.group_content(allow, q)?;
        if self.peek() != &TokKind::RParen {
            return Err(self.group_unclosed(&g));
        }
        self.bump();
        self.leave();
        Ok(g)
    }

    fn group_unclosed(&self, g: &Group) -> Error {
        self.unexpected(match g {
            Group::Expr(_) => "'and', 'or' or ')'",
            Group::Pid(_) => {
                "'and', 'or' or ')' (inside parentheses after a qualifier only ids may follow)"
            }
            Group::Arith(_) => "an arithmetic operator, a comparison or ')'",
        })
    }

    fn group_content(&mut self, allow: Allow, q: Q) -> Result<Group, Error> {
        let start = self.span().start;
        match self.peek() {
            TokKind::Num(_) => self.group_num(allow, q, start),
            TokKind::LParen => self.group_nested(allow, q, start),
            TokKind::Kw(Kw::Not) if allow.expr || allow.pid => self.group_not(allow, q),
            k if allow.pid && is_id_token(k) => self.group_nid(q),
            _ if (allow.narth || allow.expr) && self.starts_narth() => {
                self.group_arith(allow, q, start)
            }
            _ if allow.expr => self.group_rterm(),
            // A protocol name must start a load here; the error is at what follows it.
            TokKind::Kw(k) if allow.narth && pname(*k).is_some() => {
                self.group_arith(allow, q, start)
            }
            _ => Err(self.unexpected(if allow.pid {
                "an address, a name or a number"
            } else {
                "a number or an arithmetic expression"
            })),
        }
    }

    fn group_num(&mut self, allow: Allow, q: Q, start: usize) -> Result<Group, Error> {
        let (n, span) = self.expect_num("a number")?;
        let a = A {
            a: Arith::Num(n, span),
            d: 1,
            pnum: true,
        };
        self.group_after_arith(allow, q, a, start)
    }

    fn group_nested(&mut self, allow: Allow, q: Q, start: usize) -> Result<Group, Error> {
        // The inner `(`'s value is the outer one's, which is `q`.
        match self.group(allow.inner(), q)? {
            Group::Expr(e) => self.group_expr_tail(e, q),
            Group::Arith(a) => self.group_after_arith(allow, q, a, start),
            Group::Pid(_) => Err(self.err("syntax error", Span::new(start, self.prev_end()))),
        }
    }

    fn group_not(&mut self, allow: Allow, q: Q) -> Result<Group, Error> {
        let s = self.bump().span;
        self.enter()?;
        let (x, q2, kind) = if allow.expr && allow.pid {
            self.term_or_id(q)?
        } else if allow.expr {
            self.term(q)?
        } else {
            (self.id(q, None)?, q, Kind::Id)
        };
        self.leave();
        let x = self.not(s, x)?;
        match kind {
            Kind::Term => self.group_expr_tail(x, q2),
            Kind::Id => self.group_pid_tail(x, q),
        }
    }

    fn group_nid(&mut self, q: Q) -> Result<Group, Error> {
        let x = self.nid(q, None)?;
        self.group_pid_tail(x, q)
    }

    fn group_arith(&mut self, allow: Allow, q: Q, start: usize) -> Result<Group, Error> {
        let a = self.arith()?;
        self.group_after_arith(allow, q, a, start)
    }

    fn group_rterm(&mut self) -> Result<Group, Error> {
        let (x, q2) = self.rterm()?;
        self.group_expr_tail(x, q2)
    }

    /// Inside a group, after an arithmetic operand `a`.
    fn group_after_arith(
        &mut self,
        allow: Allow,
        q: Q,
        a: A,
        start: usize,
    ) -> Result<Group, Error> {
        let next = self.peek().clone();
        if next == TokKind::RParen && ((a.pnum && allow.pnum) || (!a.pnum && allow.narth)) {
            return Ok(Group::Arith(a));
        }
        if a.pnum && allow.pid && matches!(next, TokKind::Kw(Kw::And | Kw::Or)) {
            let (n, span) = match a.a {
                Arith::Num(n, s) => (n, s),
                _ => (0, Span::new(start, self.prev_end())),
            };
            let first = self.qualify(q, Id::Num(n), span, span.start, IdSort::Plain)?;
            return self.group_pid_tail(first, q);
        }
        if allow.narth || allow.expr {
            let a = if is_binop(&next).is_some() {
                self.arith_ops(Some(a))?
            } else {
                a
            };
            if self.peek() == &TokKind::RParen && allow.narth && !a.pnum {
                return Ok(Group::Arith(a));
            }
            if allow.expr && relop(self.peek()).is_some() {
                let r = self.relation(start, a)?;
                return self.group_expr_tail(r, None);
            }
        }
        Err(self.unexpected(if allow.expr {
            "an arithmetic operator or a comparison"
        } else if allow.pid {
            "'and', 'or' or ')'"
        } else {
            "an arithmetic operator or ')'"
        }))
    }

    fn group_expr_tail(&mut self, first: E, q: Q) -> Result<Group, Error> {
        let (e, _) = self.expr_tail(first, q)?;
        Ok(Group::Expr(e))
    }

    /// `pid: nid | qid and id | qid or id`: every id shares `q`.
    fn group_pid_tail(&mut self, first: E, q: Q) -> Result<Group, Error> {
        let mut rest = Vec::new();
        loop {
            let and = match self.peek_kw() {
                Some(Kw::And) => true,
                Some(Kw::Or) => false,
                _ => break,
            };
            let op = self.bump().span;
            let x = self.id(q, None)?;
            rest.push((and, op, x));
        }
        Ok(Group::Pid(self.chain(first, rest)?))
    }

    // ----- ids -----

    /// `id: nid | pnum | paren pid ')'`, inheriting `q`. `head` is where the qualifiers
    /// written right before it start, to include them in the primitive's span.
    fn id(&mut self, q: Q, head: Option<usize>) -> Result<E, Error> {
        match self.peek() {
            TokKind::Kw(Kw::Not) => self.not_id(q),
            k if is_id_token(k) => self.nid(q, head),
            TokKind::Num(_) => {
                let (n, span) = self.expect_num("a number")?;
                self.num_id(q, n, span, head.unwrap_or(span.start))
            }
            TokKind::LParen => self.paren_id(q),
            _ => {
                Err(self
                    .unexpected("a host, network, port or protocol (a name, number or address)"))
            }
        }
    }

    fn not_id(&mut self, q: Q) -> Result<E, Error> {
        let s = self.bump().span;
        self.enter()?;
        let x = self.id(q, None)?;
        self.leave();
        self.not(s, x)
    }

    fn paren_id(&mut self, q: Q) -> Result<E, Error> {
        let start = self.span().start;
        let allow = Allow {
            expr: false,
            pid: true,
            pnum: true,
            narth: false,
        };
        match self.group(allow, q)? {
            Group::Pid(e) => Ok(e),
            Group::Arith(A {
                a: Arith::Num(n, span),
                ..
            }) => self.num_id(q, n, span, span.start),
            _ => Err(self.err("syntax error", Span::new(start, self.prev_end()))),
        }
    }

    /// The `nid` alternatives that start with an address or name token.
    fn nid(&mut self, q: Q, head: Option<usize>) -> Result<E, Error> {
        let t = self.bump();
        let start = head.unwrap_or(t.span.start);
        let (id, sort) = match t.kind {
            TokKind::Id(s) => (Id::Name(s), IdSort::Plain),
            TokKind::Hid(s) => match self.peek_kw() {
                _ if self.peek() == &TokKind::Slash => {
                    self.bump();
                    let (n, _) = self.expect_num("a prefix length after '/'")?;
                    (Id::DottedPrefix(s, n), IdSort::Mask)
                }
                Some(Kw::Mask) => {
                    self.bump();
                    match self.peek().clone() {
                        TokKind::Hid(m) => {
                            self.bump();
                            (Id::DottedMask(s, m), IdSort::Mask)
                        }
                        _ => return Err(self.unexpected("a dotted netmask after 'mask'")),
                    }
                }
                _ => (Id::Dotted(s), IdSort::Plain),
            },
            TokKind::Hid6(s) => {
                if self.peek() == &TokKind::Slash {
                    self.bump();
                    let (n, _) = self.expect_num("a prefix length after '/'")?;
                    (Id::Ip6Prefix(s, n), IdSort::Ip6)
                } else {
                    (Id::Ip6(s), IdSort::Ip6)
                }
            }
            TokKind::Eid(s) => (Id::Mac(s), IdSort::Mac),
            // The syntax tree has no ARCnet variant: `$xx` is kept with its `$` as a Mac.
            TokKind::Aid(s) => (Id::Mac(s), IdSort::Arcnet),
            _ => return Err(self.err("syntax error", t.span)),
        };
        let id_span = Span::new(t.span.start, self.prev_end());
        self.qualify(q, id, id_span, start, sort)
    }

    /// A qualified primitive, or libpcap's error for an id that has no qualifiers to
    /// inherit (`tcp or 80`), which libpcap reports from its code generator.
    fn qualify(&self, q: Q, id: Id, id_span: Span, start: usize, sort: IdSort) -> Result<E, Error> {
        let Some(qual) = q else {
            let msg = match sort {
                IdSort::Plain => {
                    let s = self.text.get(id_span.start..id_span.end).unwrap_or("");
                    format!(
                        "syntax error in filter expression: '{s}' has no qualifier to inherit \
                         from the term before it (write e.g. 'host {s}' or 'port {s}')"
                    )
                }
                IdSort::Mask => "Mask syntax for networks only".to_string(),
                IdSort::Ip6 => "invalid qualifier against IPv6 address".to_string(),
                IdSort::Mac => "Ethernet address used in non-ether expression".to_string(),
                IdSort::Arcnet => "ARCnet address used in non-arc expression".to_string(),
            };
            return Err(self.err(msg, id_span));
        };
        let span = Span::new(start.min(id_span.start), id_span.end);
        Ok(Self::prim(PrimKind::Qualified { qual, id, id_span }, span))
    }

    // ----- rterm -----

    /// The `rterm` alternatives that do not start with `(` or `not`. Returns what the
    /// term hands on: the head's qualifiers for `head id`, none otherwise.
    fn rterm(&mut self) -> Result<(E, Q), Error> {
        let start = self.span().start;
        let Some(kw) = self.peek_kw() else {
            return match self.peek() {
                TokKind::Num(_) | TokKind::Minus => {
                    let a = self.arith()?;
                    Ok((self.relation(start, a)?, None))
                }
                TokKind::Id(_)
                | TokKind::Hid(_)
                | TokKind::Hid6(_)
                | TokKind::Eid(_)
                | TokKind::Aid(_) => Err(self.unexpected_bare_id()),
                _ => Err(self.unexpected("a primitive (e.g. 'host', 'port', 'tcp', 'len')")),
            };
        };
        if let Some(proto) = pname(kw) {
            self.bump();
            return self.after_pname(proto, start);
        }
        if is_head_start(kw)
            || matches!(
                kw,
                Kw::Broadcast | Kw::Multicast | Kw::Type | Kw::Subtype | Kw::Dir
            )
        {
            return self.after_pqual(Proto::Default, start);
        }
        match kw {
            Kw::Len => {
                let a = self.arith()?;
                Ok((self.relation(start, a)?, None))
            }
            Kw::Less | Kw::Greater => self.length_prim(kw, start),
            Kw::Byte => self.byte_prim(start),
            Kw::Inbound | Kw::Outbound | Kw::Ifindex | Kw::Pppoed => self.meta_prim(kw, start),
            Kw::Vlan | Kw::Mpls | Kw::Pppoes | Kw::Geneve | Kw::Vxlan => self.encap_prim(kw, start),
            Kw::Llc => self.llc_prim(start),
            _ => self.link_prim(kw, start),
        }
    }

    /// The primitive `kind`, spanning from `start` to the last token taken.
    fn finish_prim(&self, kind: PrimKind, start: usize) -> Result<(E, Q), Error> {
        Ok((Self::prim(kind, Span::new(start, self.prev_end())), None))
    }

    /// `less N` or `greater N` (`kw` is the keyword, not yet taken).
    fn length_prim(&mut self, kw: Kw, start: usize) -> Result<(E, Q), Error> {
        self.bump();
        let less = kw == Kw::Less;
        let (n, _) = self.expect_num(if less {
            "a length after 'less'"
        } else {
            "a length after 'greater'"
        })?;
        let kind = if less {
            PrimKind::Less(n)
        } else {
            PrimKind::Greater(n)
        };
        self.finish_prim(kind, start)
    }

    /// `byte N op V` (`byte` not yet taken).
    fn byte_prim(&mut self, start: usize) -> Result<(E, Q), Error> {
        self.bump();
        let (index, _) = self.expect_num("a byte offset after 'byte'")?;
        let op = match self.peek() {
            TokKind::Amp => ByteOp::And,
            TokKind::Pipe => ByteOp::Or,
            TokKind::Lt => ByteOp::Lt,
            TokKind::Gt => ByteOp::Gt,
            TokKind::Eq => ByteOp::Eq,
            _ => return Err(self.unexpected("one of '&', '|', '<', '>', '=' after 'byte N'")),
        };
        self.bump();
        // libpcap 1.10 accepts values above 255 here (they never match a byte);
        // newer versions refuse them. netsift follows the installed 1.10.
        let (value, _) = self.expect_num("a byte value")?;
        self.finish_prim(PrimKind::Byte { index, op, value }, start)
    }

    /// What the capture knows beside the bytes: `inbound`, `outbound`,
    /// `ifindex N`, and `pppoed` (`kw` not yet taken).
    fn meta_prim(&mut self, kw: Kw, start: usize) -> Result<(E, Q), Error> {
        self.bump();
        let kind = match kw {
            Kw::Inbound => PrimKind::Inbound,
            Kw::Outbound => PrimKind::Outbound,
            Kw::Ifindex => {
                let (n, _) = self.expect_num("an interface index after 'ifindex'")?;
                PrimKind::Ifindex(n)
            }
            _ => PrimKind::Pppoed,
        };
        self.finish_prim(kind, start)
    }

    /// An encapsulation with an optional number: `vlan`, `mpls`, `pppoes`,
    /// `geneve`, and `vxlan`, which netsift does not implement (`kw` not yet taken).
    fn encap_prim(&mut self, kw: Kw, start: usize) -> Result<(E, Q), Error> {
        self.bump();
        let n = match self.peek() {
            TokKind::Num(_) | TokKind::LParen => Some(self.pnum()?),
            _ => None,
        };
        let kind = match kw {
            Kw::Vlan => PrimKind::Vlan(n),
            Kw::Mpls => PrimKind::Mpls(n),
            Kw::Pppoes => PrimKind::Pppoes(n),
            Kw::Geneve => PrimKind::Geneve(n),
            _ => PrimKind::Unsupported(self.slice(start)),
        };
        self.finish_prim(kind, start)
    }

    /// `llc`, alone or with an LLC type name (`llc` not yet taken).
    fn llc_prim(&mut self, start: usize) -> Result<(E, Q), Error> {
        self.bump();
        let llc = match self.peek().clone() {
            TokKind::Id(name) => {
                let span = self.bump().span;
                llc_kind(&name)
                    .ok_or_else(|| self.err(format!("unknown LLC type name \"{name}\""), span))?
            }
            TokKind::Kw(Kw::PfRnr) => {
                self.bump();
                Llc::SSubtype("rnr".into())
            }
            _ => Llc::Any,
        };
        self.finish_prim(PrimKind::Llc(llc), start)
    }

    /// The primitives of particular link types: pf logs, ATM, MTP2/MTP3, whose
    /// arguments are checked here; lowering refuses them on other link types
    /// (`kw` not yet taken). Any other keyword cannot start a primitive.
    fn link_prim(&mut self, kw: Kw, start: usize) -> Result<(E, Q), Error> {
        if matches!(
            kw,
            Kw::PfIfname | Kw::PfRset | Kw::PfRnr | Kw::PfSrnr | Kw::PfReason | Kw::PfAction
        ) {
            self.bump();
            let pf = self.pf_arg(kw)?;
            return self.finish_prim(PrimKind::Pf(pf), start);
        }
        let Kw::Telco(t) = kw else {
            return Err(self.unexpected("a primitive (e.g. 'host', 'port', 'tcp', 'len')"));
        };
        self.bump();
        let values = if t.has_value() {
            self.field_value()?
        } else {
            Vec::new()
        };
        self.finish_prim(PrimKind::Telco(t, values), start)
    }

    /// The argument of a pflog primitive; reason and action names are looked up
    /// here, as libpcap's grammar does whatever the link type.
    fn pf_arg(&mut self, kw: Kw) -> Result<Pf, Error> {
        let t = self.tok(0);
        let (name, num) = match t.kind.clone() {
            TokKind::Id(s) => (Some(s), None),
            TokKind::Num(n) => (None, Some(n)),
            _ => (None, None),
        };
        let pf = match (kw, name, num) {
            (Kw::PfIfname, Some(s), _) => Pf::Ifname(s),
            (Kw::PfRset, Some(s), _) => Pf::Ruleset(s),
            (Kw::PfRnr, _, Some(n)) => Pf::Rnr(n),
            (Kw::PfSrnr, _, Some(n)) => Pf::Srnr(n),
            (Kw::PfReason, _, Some(n)) => Pf::Reason(n),
            (Kw::PfReason, Some(s), _) => match pf_lookup(PF_REASONS, &s) {
                Some(v) => Pf::Reason(v),
                None => return Err(self.err(format!("unknown PF reason \"{s}\""), t.span)),
            },
            (Kw::PfAction, Some(s), _) => match pf_lookup(PF_ACTIONS, &s) {
                Some(v) => Pf::Action(v),
                None => return Err(self.err(format!("unknown PF action \"{s}\""), t.span)),
            },
            (Kw::PfRnr | Kw::PfSrnr, _, _) => return Err(self.unexpected("a rule number")),
            (Kw::PfReason, _, _) => return Err(self.unexpected("a reason name or number")),
            _ => return Err(self.unexpected("a name")),
        };
        self.bump();
        Ok(pf)
    }

    /// A bare id where only a term may stand, like `1.2.3.4` alone: libpcap has no
    /// default qualifiers for a first id.
    fn unexpected_bare_id(&self) -> Error {
        let t = self.tok(0);
        let s = self.text.get(t.span.start..t.span.end).unwrap_or("");
        self.err(
            format!("syntax error: '{s}' needs a qualifier before it, such as 'host', 'net', 'port' or 'proto'"),
            t.span,
        )
    }

    fn slice(&self, start: usize) -> String {
        self.text
            .get(start..self.prev_end())
            .unwrap_or("")
            .to_string()
    }

    /// After a protocol name: a load (`tcp[...]`), qualifiers, `broadcast`/`multicast`,
    /// an 802.11 form, or the protocol on its own.
    fn after_pname(&mut self, proto: Proto, start: usize) -> Result<(E, Q), Error> {
        if self.peek() == &TokKind::LBracket {
            let a = self.load(proto, start)?;
            let a = self.arith_ops(Some(a))?;
            return Ok((self.relation(start, a)?, None));
        }
        match self.peek_kw() {
            Some(kw)
                if is_head_start(kw)
                    || matches!(
                        kw,
                        Kw::Broadcast | Kw::Multicast | Kw::Type | Kw::Subtype | Kw::Dir
                    ) =>
            {
                self.after_pqual(proto, start)
            }
            _ => Ok((
                Self::prim(
                    PrimKind::ProtoAbbrev(proto),
                    Span::new(start, self.prev_end()),
                ),
                None,
            )),
        }
    }

    /// After `pqual` (possibly empty): `head id`, `broadcast`, `multicast`, or `p80211`.
    fn after_pqual(&mut self, proto: Proto, start: usize) -> Result<(E, Q), Error> {
        let prim = |p: &mut Self, kind| -> Result<(E, Q), Error> {
            Ok((Self::prim(kind, Span::new(start, p.prev_end())), None))
        };
        match self.peek_kw() {
            Some(Kw::Broadcast) => {
                self.bump();
                prim(self, PrimKind::Broadcast(proto))
            }
            Some(Kw::Multicast) => {
                self.bump();
                prim(self, PrimKind::Multicast(proto))
            }
            Some(Kw::Type | Kw::Subtype | Kw::Dir) => {
                let kind = self.p80211()?;
                prim(self, kind)
            }
            _ => {
                let qual = self.head(proto)?;
                let x = self.id(Some(qual), Some(start))?;
                Ok((x, Some(qual)))
            }
        }
    }

    /// `head` after its `pqual`: `dqual [aqual]`, `aqual`, `proto`, `protochain`, `gateway`.
    fn head(&mut self, proto: Proto) -> Result<Qual, Error> {
        let kw = self.peek_kw();
        let dir = match kw {
            Some(Kw::Src) | Some(Kw::Dst) => {
                self.bump();
                let (this, other) = if kw == Some(Kw::Src) {
                    (Kw::Src, Kw::Dst)
                } else {
                    (Kw::Dst, Kw::Src)
                };
                let combined = match self.peek_kw() {
                    Some(Kw::Or) => Some(Dir::Or),
                    Some(Kw::And) => Some(Dir::And),
                    _ => None,
                };
                match combined {
                    Some(d) => {
                        self.bump();
                        if !self.eat_kw(other) {
                            let o = if other == Kw::Dst { "dst" } else { "src" };
                            return Err(self.unexpected(&format!("'{o}'")));
                        }
                        d
                    }
                    None if this == Kw::Src => Dir::Src,
                    None => Dir::Dst,
                }
            }
            Some(Kw::Addr1) => self.bump_ret(Dir::Addr1),
            Some(Kw::Addr2) => self.bump_ret(Dir::Addr2),
            Some(Kw::Addr3) => self.bump_ret(Dir::Addr3),
            Some(Kw::Addr4) => self.bump_ret(Dir::Addr4),
            Some(Kw::Ra) => self.bump_ret(Dir::Ra),
            Some(Kw::Ta) => self.bump_ret(Dir::Ta),
            _ => Dir::Default,
        };
        let addr = match self.peek_kw() {
            Some(Kw::Host) => self.bump_ret(AddrType::Host),
            Some(Kw::Net) => self.bump_ret(AddrType::Net),
            Some(Kw::Port) => self.bump_ret(AddrType::Port),
            Some(Kw::Portrange) => self.bump_ret(AddrType::Portrange),
            Some(Kw::Proto) if dir == Dir::Default => self.bump_ret(AddrType::Proto),
            Some(Kw::Protochain) if dir == Dir::Default => self.bump_ret(AddrType::Protochain),
            Some(Kw::Gateway) if dir == Dir::Default => self.bump_ret(AddrType::Gateway),
            _ if dir != Dir::Default => AddrType::Default,
            _ => return Err(self.unexpected("a qualifier")),
        };
        Ok(Qual { proto, dir, addr })
    }

    fn bump_ret<T>(&mut self, v: T) -> T {
        self.bump();
        v
    }

    /// `pnum: NUM | paren pnum ')'`.
    fn pnum(&mut self) -> Result<u32, Error> {
        if self.peek() == &TokKind::LParen {
            self.bump();
            self.enter()?;
            let n = self.pnum()?;
            self.expect(&TokKind::RParen, "')'")?;
            self.leave();
            Ok(n)
        } else {
            Ok(self.expect_num("a number")?.0)
        }
    }

    /// `atmvalue`/`mtp3value`: `NUM`, `relop NUM`, or `( NUM or NUM ... )`.
    fn field_value(&mut self) -> Result<Vec<(RelOp, u32)>, Error> {
        let mut v = Vec::new();
        match self.peek() {
            TokKind::Num(n) => {
                v.push((RelOp::Eq, *n));
                self.bump();
            }
            k if relop(k).is_some() => {
                let op = relop(k).unwrap_or(RelOp::Eq);
                self.bump();
                v.push((op, self.expect_num("a number")?.0));
            }
            TokKind::LParen => {
                self.bump();
                v.push((RelOp::Eq, self.expect_num("a number")?.0));
                while self.eat_kw(Kw::Or) {
                    v.push((RelOp::Eq, self.expect_num("a number after 'or'")?.0));
                }
                self.expect(&TokKind::RParen, "'or' or ')'")?;
            }
            _ => return Err(self.unexpected("a number or a comparison")),
        }
        Ok(v)
    }

    // ----- arithmetic -----

    /// `arth relop arth`, given the left side's start and its first operand.
    fn relation(&mut self, start: usize, lhs: A) -> Result<E, Error> {
        let lhs = if is_binop(self.peek()).is_some() {
            self.arith_ops(Some(lhs))?
        } else {
            lhs
        };
        let Some(op) = relop(self.peek()) else {
            return Err(self.unexpected(
                "a comparison ('=', '!=', '<', '<=', '>', '>=') or an arithmetic operator",
            ));
        };
        self.bump();
        let rhs = self.arith()?;
        let d = self.depth_ok(lhs.d.max(rhs.d) + 1, Span::new(start, self.prev_end()))?;
        let mut e = Self::prim(
            PrimKind::Relation {
                op,
                lhs: lhs.a,
                rhs: rhs.a,
            },
            Span::new(start, self.prev_end()),
        );
        e.d = d;
        Ok(e)
    }

    /// Whether the current token starts an arithmetic expression that is not a bare number.
    fn starts_narth(&self) -> bool {
        match self.peek() {
            TokKind::Minus | TokKind::Kw(Kw::Len) => true,
            TokKind::Kw(k) => pname(*k).is_some() && self.peek_at(1) == &TokKind::LBracket,
            _ => false,
        }
    }

    fn arith(&mut self) -> Result<A, Error> {
        self.arith_ops(None)
    }

    /// A shift-reduce loop with grammar.y's operator table (see the module docs); `first`
    /// is an operand already parsed.
    fn arith_ops(&mut self, first: Option<A>) -> Result<A, Error> {
        let mut operands: Vec<A> = Vec::new();
        let mut ops: Vec<Op> = Vec::new();
        let mut pending = first;
        loop {
            let operand = match pending.take() {
                Some(a) => a,
                None => self.arith_operand(&mut ops)?,
            };
            operands.push(operand);
            let Some(la) = is_binop(self.peek()) else {
                break;
            };
            while let Some(&top) = ops.last() {
                if !reduces_before(top, la) {
                    break;
                }
                ops.pop();
                self.reduce(top, &mut operands)?;
            }
            ops.push(Op::Bin(la));
            self.bump();
        }
        while let Some(top) = ops.pop() {
            self.reduce(top, &mut operands)?;
        }
        match operands.pop() {
            Some(a) if operands.is_empty() => Ok(a),
            _ => Err(self.err("syntax error", self.span())),
        }
    }

    fn reduce(&self, op: Op, operands: &mut Vec<A>) -> Result<(), Error> {
        let here = Span::new(self.span().start, self.span().end);
        match op {
            Op::Neg(s) => {
                let x = operands.pop().ok_or_else(|| self.err("syntax error", s))?;
                let span = s.to(x.a.span());
                let d = self.depth_ok(x.d + 1, span)?;
                operands.push(A {
                    a: Arith::Neg(Box::new(x.a), span),
                    d,
                    pnum: false,
                });
            }
            Op::Bin(b) => {
                let r = operands
                    .pop()
                    .ok_or_else(|| self.err("syntax error", here))?;
                let l = operands
                    .pop()
                    .ok_or_else(|| self.err("syntax error", here))?;
                let d = self.depth_ok(l.d.max(r.d) + 1, l.a.span().to(r.a.span()))?;
                operands.push(A {
                    a: Arith::Bin(b, Box::new(l.a), Box::new(r.a)),
                    d,
                    pnum: false,
                });
            }
        }
        Ok(())
    }

    /// An operand and the unary minuses before it (pushed on `ops`).
    fn arith_operand(&mut self, ops: &mut Vec<Op>) -> Result<A, Error> {
        while self.peek() == &TokKind::Minus {
            let s = self.bump().span;
            ops.push(Op::Neg(s));
        }
        self.arith_primary()
    }

    fn arith_primary(&mut self) -> Result<A, Error> {
        let leaf = |a, pnum| A { a, d: 1, pnum };
        match *self.peek() {
            TokKind::Num(n) => {
                let s = self.bump().span;
                Ok(leaf(Arith::Num(n, s), true))
            }
            TokKind::Kw(Kw::Len) => {
                let s = self.bump().span;
                Ok(leaf(Arith::Len(s), false))
            }
            TokKind::Kw(k) if pname(k).is_some() => self.load_after_pname(k),
            TokKind::LParen => self.arith_group(),
            _ => Err(self.unexpected("a number, 'len', a packet load like 'ip[0]', or '('")),
        }
    }

    fn load_after_pname(&mut self, k: Kw) -> Result<A, Error> {
        let start = self.bump().span.start;
        self.load(pname(k).unwrap_or(Proto::Default), start)
    }

    /// `paren pnum ')'` or `paren narth ')'` inside arithmetic.
    fn arith_group(&mut self) -> Result<A, Error> {
        let start = self.span().start;
        let allow = Allow {
            expr: false,
            pid: false,
            pnum: true,
            narth: true,
        };
        match self.group(allow, None)? {
            Group::Arith(a) => Ok(a),
            _ => Err(self.err("syntax error", Span::new(start, self.prev_end()))),
        }
    }

    /// `pname '[' arth ']'` or `pname '[' arth ':' NUM ']'`, after the protocol name.
    fn load(&mut self, proto: Proto, start: usize) -> Result<A, Error> {
        self.expect(&TokKind::LBracket, "'[' after the protocol name")?;
        self.enter()?;
        let index = self.arith()?;
        let mut size = 1;
        if self.peek() == &TokKind::Colon {
            self.bump();
            let (n, s) = self.expect_num("a size (1, 2 or 4) after ':'")?;
            if !matches!(n, 1 | 2 | 4) {
                return Err(self.err("data size must be 1, 2, or 4", s));
            }
            size = n as u8;
        }
        self.expect(&TokKind::RBracket, "']' or ':' and a size")?;
        self.leave();
        let span = Span::new(start, self.prev_end());
        let d = self.depth_ok(index.d + 1, span)?;
        Ok(A {
            a: Arith::Load {
                proto,
                index: Box::new(index.a),
                size,
                span,
            },
            d,
            pnum: false,
        })
    }
}

/// Which error an id without qualifiers gets (libpcap's code generator words them apart).
#[derive(Clone, Copy)]
enum IdSort {
    Plain,
    Mask,
    Ip6,
    Mac,
    Arcnet,
}

/// `ID`, `HID`, `HID6`, `EID`, `AID`: the tokens that start an `nid`.
fn is_id_token(k: &TokKind) -> bool {
    matches!(
        k,
        TokKind::Id(_) | TokKind::Hid(_) | TokKind::Hid6(_) | TokKind::Eid(_) | TokKind::Aid(_)
    )
}

/// Whether the token after a number makes the number the start of a comparison.
fn starts_arith_continuation(k: &TokKind) -> bool {
    is_binop(k).is_some() || relop(k).is_some()
}

fn is_binop(k: &TokKind) -> Option<BinOp> {
    Some(match k {
        TokKind::Plus => BinOp::Add,
        TokKind::Minus => BinOp::Sub,
        TokKind::Star => BinOp::Mul,
        TokKind::Slash => BinOp::Div,
        TokKind::Percent => BinOp::Mod,
        TokKind::Amp => BinOp::And,
        TokKind::Pipe => BinOp::Or,
        TokKind::Caret => BinOp::Xor,
        TokKind::Shl => BinOp::Shl,
        TokKind::Shr => BinOp::Shr,
        _ => return None,
    })
}

fn relop(k: &TokKind) -> Option<RelOp> {
    Some(match k {
        TokKind::Gt => RelOp::Gt,
        TokKind::Ge => RelOp::Ge,
        TokKind::Eq => RelOp::Eq,
        TokKind::Le => RelOp::Le,
        TokKind::Lt => RelOp::Lt,
        TokKind::Ne => RelOp::Ne,
        _ => return None,
    })
}

/// grammar.y's `%left` levels; `%` and `^` have none.
fn precedence(op: Op) -> Option<u8> {
    match op {
        Op::Neg(_) => Some(6),
        Op::Bin(b) => match b {
            BinOp::Or => Some(1),
            BinOp::And => Some(2),
            BinOp::Shl | BinOp::Shr => Some(3),
            BinOp::Add | BinOp::Sub => Some(4),
            BinOp::Mul | BinOp::Div => Some(5),
            BinOp::Mod | BinOp::Xor => None,
        },
    }
}

/// Whether bison reduces `top` before shifting `la`: only when both have a precedence and
/// `top`'s is at least `la`'s (all levels are left-associative); every other conflict is
/// resolved by shifting.
fn reduces_before(top: Op, la: BinOp) -> bool {
    match (precedence(top), precedence(Op::Bin(la))) {
        (Some(t), Some(l)) => t >= l,
        _ => false,
    }
}

/// `pname`: the protocol qualifiers.
fn pname(kw: Kw) -> Option<Proto> {
    Some(match kw {
        Kw::Link => Proto::Link,
        Kw::Ip => Proto::Ip,
        Kw::Arp => Proto::Arp,
        Kw::Rarp => Proto::Rarp,
        Kw::Sctp => Proto::Sctp,
        Kw::Tcp => Proto::Tcp,
        Kw::Udp => Proto::Udp,
        Kw::Icmp => Proto::Icmp,
        Kw::Igmp => Proto::Igmp,
        Kw::Igrp => Proto::Igrp,
        Kw::Pim => Proto::Pim,
        Kw::Vrrp => Proto::Vrrp,
        Kw::Carp => Proto::Carp,
        Kw::Atalk => Proto::Atalk,
        Kw::Aarp => Proto::Aarp,
        Kw::Decnet => Proto::Decnet,
        Kw::Lat => Proto::Lat,
        Kw::Sca => Proto::Sca,
        Kw::Mopdl => Proto::Mopdl,
        Kw::Moprc => Proto::Moprc,
        Kw::Ip6 => Proto::Ip6,
        Kw::Icmp6 => Proto::Icmp6,
        Kw::Ah => Proto::Ah,
        Kw::Esp => Proto::Esp,
        Kw::Iso => Proto::Iso,
        Kw::Esis => Proto::Esis,
        Kw::Isis => Proto::Isis,
        Kw::L1 => Proto::IsisL1,
        Kw::L2 => Proto::IsisL2,
        Kw::Iih => Proto::IsisIih,
        Kw::Lsp => Proto::IsisLsp,
        Kw::Snp => Proto::IsisSnp,
        Kw::Psnp => Proto::IsisPsnp,
        Kw::Csnp => Proto::IsisCsnp,
        Kw::Clnp => Proto::Clnp,
        Kw::Stp => Proto::Stp,
        Kw::Ipx => Proto::Ipx,
        Kw::Netbeui => Proto::Netbeui,
        Kw::Radio => Proto::Radio,
        _ => return None,
    })
}

/// Keywords that start a `head` after its (possibly empty) `pqual`.
fn is_head_start(kw: Kw) -> bool {
    matches!(
        kw,
        Kw::Src
            | Kw::Dst
            | Kw::Addr1
            | Kw::Addr2
            | Kw::Addr3
            | Kw::Addr4
            | Kw::Ra
            | Kw::Ta
            | Kw::Host
            | Kw::Net
            | Kw::Port
            | Kw::Portrange
            | Kw::Proto
            | Kw::Protochain
            | Kw::Gateway
    )
}

/// `llc ID`: the names grammar.y knows, compared without case as libpcap does.
fn llc_kind(name: &str) -> Option<Llc> {
    let lower = name.to_ascii_lowercase();
    Some(match lower.as_str() {
        "i" => Llc::I,
        "s" => Llc::S,
        "u" => Llc::U,
        "rr" | "rnr" | "rej" => Llc::SSubtype(lower),
        "ui" | "ua" | "disc" | "dm" | "sabme" | "test" | "xid" | "frmr" => Llc::USubtype(lower),
        _ => return None,
    })
}

/// pf's reasons for logging (`PFRES_*`), as libpcap names them on Linux.
const PF_REASONS: &[(&str, u32)] = &[
    ("match", 0),
    ("bad-offset", 1),
    ("fragment", 2),
    ("short", 3),
    ("normalize", 4),
    ("memory", 5),
    ("bad-timestamp", 6),
    ("congestion", 7),
    ("ip-option", 8),
    ("proto-cksum", 9),
    ("state-mismatch", 10),
    ("state-insert", 11),
    ("state-limit", 12),
    ("src-limit", 13),
    ("synproxy", 14),
];

/// pf's rule actions (`PF_*`), as libpcap names them on Linux.
const PF_ACTIONS: &[(&str, u32)] = &[
    ("pass", 0),
    ("accept", 0),
    ("drop", 1),
    ("block", 1),
    ("scrub", 2),
    ("noscrub", 3),
    ("nat", 4),
    ("nonat", 5),
    ("binat", 6),
    ("nobinat", 7),
    ("rdr", 8),
    ("nordr", 9),
    ("synproxy-drop", 10),
];

/// libpcap's str2tok: a name of `table`, ignoring case.
fn pf_lookup(table: &[(&str, u32)], name: &str) -> Option<u32> {
    table
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|&(_, v)| v)
}
