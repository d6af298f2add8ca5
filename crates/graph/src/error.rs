//! The crate's error type: what kind of fault, a message, and the span of the flow
//! text it is about, shown as pcapc's errors are (the message with its place, then
//! the offending line with a caret under the fault).

use crate::span::Span;
use std::fmt;

/// An error in a flow definition. `Display` prints the message and where it is,
/// then the line of the text with carets under the offending bytes:
///
/// ```text
/// expected ')' or ',' after an argument, found '-' (byte 13, column 14)
///   (device,eth0 -> (sampler,2,4)
///                ^
/// ```
///
/// One-line text gives the byte offset and the column; text of several lines gives
/// the line and the column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    span: Span,
    text: String,
}

/// What kind of fault an [`Error`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The text is not a sentence of the `ffpf-flow` syntax.
    Syntax,
    /// It parses, but an element means nothing: an unknown class, the wrong number
    /// or kind of arguments, an MBuf size the class does not allow, a source that
    /// is not first.
    Invalid,
    /// An element's class is for root only (`native`) and the caller is not root.
    Forbidden,
    /// Past one of the documented [`Limits`](crate::Limits): text length,
    /// nesting, elements in a graph, instances in the running graph.
    TooLarge,
}

impl Error {
    /// An error of `kind` about `span` of `text`; the span is clamped into the text.
    pub(crate) fn new(
        kind: ErrorKind,
        message: impl Into<String>,
        span: Span,
        text: &str,
    ) -> Error {
        let end = clamp_to_char(text, span.end.min(text.len()));
        let start = clamp_to_char(text, span.start.min(end));
        Error {
            kind,
            message: message.into(),
            span: Span::new(start, end),
            text: text.to_string(),
        }
    }

    /// What kind of fault this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message alone, without the place.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Byte range of the flow text the error is about.
    pub fn span(&self) -> Span {
        self.span
    }

    /// 1-based line of the first offending byte.
    pub fn line(&self) -> usize {
        self.text[..self.span.start].matches('\n').count() + 1
    }

    /// 1-based column (in characters, within its line) of the first offending byte.
    pub fn column(&self) -> usize {
        self.text[self.line_start()..self.span.start]
            .chars()
            .count()
            + 1
    }

    fn line_start(&self) -> usize {
        self.text[..self.span.start]
            .rfind('\n')
            .map_or(0, |i| i + 1)
    }
}

/// The largest char boundary of `text` at or below `at`, so slicing never panics.
fn clamp_to_char(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.text.contains('\n') {
            writeln!(
                f,
                "{} (line {}, column {})",
                self.message,
                self.line(),
                self.column()
            )?;
        } else {
            writeln!(
                f,
                "{} (byte {}, column {})",
                self.message,
                self.span.start,
                self.column()
            )?;
        }
        let start = self.line_start();
        let end = self.text[start..]
            .find('\n')
            .map_or(self.text.len(), |i| start + i);
        // Tabs and other control characters would shift the caret; show them as spaces.
        let shown: String = self.text[start..end]
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        writeln!(f, "  {shown}")?;
        let pad = self.text[start..self.span.start].chars().count();
        let width = self.text[self.span.start..self.span.end.min(end).max(self.span.start)]
            .chars()
            .count()
            .max(1);
        write!(f, "  {}{}", " ".repeat(pad), "^".repeat(width))
    }
}

impl std::error::Error for Error {}
