//! The compiler's error type: a message, and the span of the filter text it is about.

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
    message: String,
    span: Span,
    text: String,
}

impl Error {
    pub fn new(message: impl Into<String>, span: Span, text: &str) -> Error {
        let end = span.end.min(text.len());
        let start = span.start.min(end);
        Error {
            message: message.into(),
            span: Span::new(start, end),
            text: text.to_string(),
        }
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
