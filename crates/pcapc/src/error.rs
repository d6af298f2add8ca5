//! The compiler's error type: what kind of fault, a message, and the span of the
//! filter text it is about.

use crate::syntax::ast::Span;
use std::fmt;

/// An error in a filter expression. `Display` prints the message, then the expression
/// with a caret line under the offending columns:
///
/// ```text
/// port number 70000 greater than maximum 65535
///   tcp port 70000
///            ^^^^^
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    span: Span,
    text: String,
}

/// What kind of fault an [`Error`] reports, for callers that act on it (a user
/// interface that offers help with the syntax, a tool that splits a large filter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The text is not a sentence of the filter language (libpcap's "syntax error",
    /// "illegal token", unbalanced parentheses, nesting past libpcap's parser).
    Syntax,
    /// The text parses but means nothing: an unknown name, a qualifier that does not
    /// apply, a number out of range, a constant division by zero, more registers than
    /// libpcap has. libpcap refuses these with the same message.
    Invalid,
    /// libpcap's optimiser proves that no packet can match ("expression rejects all
    /// packets"), and refuses the filter.
    RejectsAll,
    /// The filter is valid but past one of netsift's documented limits (passes,
    /// instructions, terms of a disjunction, a thread for deep nesting).
    TooLarge,
    /// libpcap compiles it, but netsift does not implement it (`gateway`, which
    /// needs host-name resolution).
    Unsupported,
}

impl Error {
    /// An [`ErrorKind::Invalid`] error about `span` of `text`.
    pub(crate) fn new(message: impl Into<String>, span: Span, text: &str) -> Error {
        let end = span.end.min(text.len());
        let start = span.start.min(end);
        Error {
            kind: ErrorKind::Invalid,
            message: message.into(),
            span: Span::new(start, end),
            text: text.to_string(),
        }
    }

    /// The same error, of kind `kind`.
    pub(crate) fn with_kind(mut self, kind: ErrorKind) -> Error {
        self.kind = kind;
        self
    }

    /// What kind of fault this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message alone, worded like libpcap's where libpcap has one.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Byte range of the filter text the error is about.
    pub fn span(&self) -> Span {
        self.span
    }

    /// 1-based column of the first offending character.
    pub fn column(&self) -> usize {
        self.text[..self.span.start].chars().count() + 1
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} (column {})", self.message, self.column())?;
        // Tabs and other control characters would shift the caret; show them as spaces.
        let shown: String = self
            .text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        writeln!(f, "  {shown}")?;
        let pad = self.text[..self.span.start].chars().count();
        let width = self.text[self.span.start..self.span.end]
            .chars()
            .count()
            .max(1);
        write!(f, "  {}{}", " ".repeat(pad), "^".repeat(width))
    }
}

impl std::error::Error for Error {}
