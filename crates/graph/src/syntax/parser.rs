//! A recursive-descent parser for the `ffpf-flow` syntax (grammar in
//! `docs/graphs.md`). `|` binds tighter than `->`, as the seeds' example needs:
//! `(device,eth0) | (device,eth1) -> (sampler,2,4)` feeds both devices to the
//! sampler. Recursion is bounded by [`Limits::max_depth`], elements by
//! [`Limits::max_elements`]; every error names the byte where the parser stopped
//! and what it expected there.

use super::ast::{Definition, Element, Expr, Field};
use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::span::Span;

/// Parses `text` as the definitions of callable filters, then one flow
/// expression.
pub(crate) fn parse_expr(text: &str, limits: &Limits) -> Result<(Vec<Definition>, Expr), Error> {
    if text.len() > limits.max_text {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!(
                "flow text of {} bytes is longer than the limit of {}",
                text.len(),
                limits.max_text
            ),
            Span::new(limits.max_text, text.len()),
            text,
        ));
    }
    let mut p = Parser {
        text,
        pos: 0,
        depth: 0,
        elements: 0,
        limits,
    };
    let mut definitions = Vec::new();
    while let Some(d) = p.definition()? {
        definitions.push(d);
    }
    let expr = p.chain()?;
    p.skip_ws();
    if p.pos < text.len() {
        return Err(p.expected("'->', '|' or the end of the flow"));
    }
    Ok((definitions, expr))
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
    elements: usize,
    limits: &'a Limits,
}

impl Parser<'_> {
    /// `name = element ;`, if the text goes on with a name (a flow starts
    /// with `(`).
    fn definition(&mut self) -> Result<Option<Definition>, Error> {
        self.skip_ws();
        let start = self.pos;
        let len = self
            .rest()
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(self.rest().len());
        if len == 0 {
            return Ok(None);
        }
        let name = &self.text[start..start + len];
        let name_span = Span::new(start, start + len);
        self.pos += len;
        self.skip_ws();
        if self.peek() != Some(b'=') {
            // Not a definition: the flow's own error says what was expected.
            self.pos = start;
            return Ok(None);
        }
        if name.as_bytes()[0].is_ascii_digit() {
            return Err(self.error(
                ErrorKind::Syntax,
                "a filter's name starts with a letter or '_'",
                name_span,
            ));
        }
        self.pos += 1;
        self.skip_ws();
        let open = self.pos;
        if self.peek() != Some(b'(') {
            return Err(self.expected("'(' to start the element a name defines"));
        }
        self.pos += 1;
        let element = self.element(open)?;
        self.skip_ws();
        if self.peek() != Some(b';') {
            return Err(self.expected("';' to end the definition"));
        }
        self.pos += 1;
        Ok(Some(Definition {
            name: name.to_string(),
            name_span,
            element,
        }))
    }

    fn chain(&mut self) -> Result<Expr, Error> {
        self.list("->", Parser::parallel, Expr::Chain)
    }

    fn parallel(&mut self) -> Result<Expr, Error> {
        self.list("|", Parser::term, Expr::Parallel)
    }

    /// `part { sep part }`, one node for two parts or more.
    fn list(
        &mut self,
        sep: &str,
        part: fn(&mut Self) -> Result<Expr, Error>,
        node: fn(Vec<Expr>) -> Expr,
    ) -> Result<Expr, Error> {
        let mut parts = vec![part(self)?];
        loop {
            self.skip_ws();
            if !self.rest().starts_with(sep) {
                break;
            }
            self.pos += sep.len();
            parts.push(part(self)?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            node(parts)
        })
    }

    /// An element, or a parenthesised group: after `(`, a second `(` opens a group.
    fn term(&mut self) -> Result<Expr, Error> {
        self.skip_ws();
        let open = self.pos;
        if self.peek() != Some(b'(') {
            return Err(self.expected("'(' to start an element or a group"));
        }
        self.pos += 1;
        self.skip_ws();
        if self.peek() != Some(b'(') {
            return self.element(open).map(Expr::Element);
        }
        if self.depth >= self.limits.max_depth {
            let limit = self.limits.max_depth;
            return Err(self.too_large(
                open,
                format!("groups nested deeper than the limit of {limit}"),
            ));
        }
        self.depth += 1;
        let inner = self.chain()?;
        self.depth -= 1;
        self.skip_ws();
        if self.peek() != Some(b')') {
            return Err(self.expected(&format!("')' to close the group opened at byte {open}")));
        }
        self.pos += 1;
        Ok(inner)
    }

    /// The fields of an element whose `(` is at `open`, up to its `)`.
    fn element(&mut self, open: usize) -> Result<Element, Error> {
        self.elements += 1;
        if self.elements > self.limits.max_elements {
            let limit = self.limits.max_elements;
            return Err(self.too_large(open, format!("more than {limit} elements in one flow")));
        }
        let mut fields = Vec::new();
        loop {
            let field = self.field(open)?;
            if fields.is_empty() && (field.quoted || field.text.is_empty()) {
                return Err(self.error(
                    ErrorKind::Syntax,
                    "expected a filter class name after '('",
                    field.span,
                ));
            }
            fields.push(field);
            // The class, the arguments and the MBuf size.
            if fields.len() > self.limits.max_args + 2 {
                return Err(self.error(
                    ErrorKind::TooLarge,
                    format!(
                        "more than {} arguments in one element",
                        self.limits.max_args
                    ),
                    Span::new(open, self.pos),
                ));
            }
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b')') => {
                    self.pos += 1;
                    let span = Span::new(open, self.pos);
                    return Ok(Element { fields, span });
                }
                _ => return Err(self.expected("')' or ',' after an argument")),
            }
        }
    }

    /// One field of the element whose `(` is at `open`.
    fn field(&mut self, open: usize) -> Result<Field, Error> {
        self.skip_ws();
        if self.peek() == Some(b'"') {
            return self.quoted();
        }
        let start = self.pos;
        let len = self
            .rest()
            .find([',', '(', ')', '"'])
            .unwrap_or(self.rest().len());
        self.pos += len;
        match self.peek() {
            Some(b'(') => {
                // Most often a `)` left out; else an argument that needs quotes.
                return Err(self.expected(&format!(
                    "')' to close the element opened at byte {open} (quote an argument that holds '(')"
                )));
            }
            Some(b'"') => return Err(self.expected("')' or ','; quote the whole argument")),
            _ => {}
        }
        let raw = &self.text[start..self.pos];
        let text = raw.trim_end_matches(is_ws);
        Ok(Field {
            text: text.to_string(),
            quoted: false,
            span: Span::new(start, start + text.len()),
        })
    }

    /// A double-quoted field: `\"` is a quote and `\\` a backslash; any other
    /// backslash stays as written, so pcap's `ip proto \udp` needs no doubling.
    fn quoted(&mut self) -> Result<Field, Error> {
        let start = self.pos;
        self.pos += 1;
        let mut text = String::new();
        let mut chars = self.text[self.pos..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += i + 1;
                    return Ok(Field {
                        text,
                        quoted: true,
                        span: Span::new(start, self.pos),
                    });
                }
                '\\' => match chars.clone().next() {
                    Some((_, e @ ('"' | '\\'))) => {
                        chars.next();
                        text.push(e);
                    }
                    _ => text.push('\\'),
                },
                c => text.push(c),
            }
        }
        Err(self.error(
            ErrorKind::Syntax,
            "unterminated string: expected '\"' before the end of the flow",
            Span::new(start, self.text.len()),
        ))
    }

    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start_matches(is_ws).len();
    }

    /// "expected WHAT, found X" at the current position.
    fn expected(&self, what: &str) -> Error {
        let (found, width) = match self.rest().chars().next() {
            None => ("the end of the flow".to_string(), 0),
            Some(c) => (format!("{c:?}"), c.len_utf8()),
        };
        self.error(
            ErrorKind::Syntax,
            format!("expected {what}, found {found}"),
            Span::new(self.pos, self.pos + width),
        )
    }

    /// A limit passed at the `(` at `open`.
    fn too_large(&self, open: usize, message: String) -> Error {
        self.error(ErrorKind::TooLarge, message, Span::new(open, open + 1))
    }

    fn error(&self, kind: ErrorKind, message: impl Into<String>, span: Span) -> Error {
        Error::new(kind, message, span, self.text)
    }
}

fn is_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}
