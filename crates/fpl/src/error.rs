//! The compiler's error type: what kind of fault, a message, and the span of the
//! source it is about, shown with its line, column and a caret line as the pcap
//! compiler's errors are.

use std::fmt;

/// A byte range `start..end` of the program text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// The range `start..end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// What kind of fault an [`Error`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The text is not a sentence of FPL: a bad token, a missing `FI`, an
    /// operator where an operand belongs.
    Syntax,
    /// The text parses but means nothing: an unknown name or external function,
    /// a register past `R[15]`, a selector that does not fit its field, `BREAK`
    /// outside a loop, a value out of range.
    Invalid,
    /// A check of §3.3.3 failed: an `EXTERN` argument outside MBuf, a loop bound
    /// or the program's worst-case cost past the limits in [`crate::Options`].
    Unsafe,
}

/// An error in an FPL program. `Display` prints the message with its line and
/// column, then the line with a caret under the offending columns:
///
/// ```text
/// unknown name `IP_PROT` (line 2, column 9)
///   IF (PKT.IP_PROT == PROTO_TCP) THEN
///           ^^^^^^^
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    span: Span,
    text: String,
}

impl Error {
    /// An error of `kind` about `span` of `text` (clamped to the text).
    pub(crate) fn new(
        kind: ErrorKind,
        message: impl Into<String>,
        span: Span,
        text: &str,
    ) -> Error {
        let mut end = span.end.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let mut start = span.start.min(end);
        while !text.is_char_boundary(start) {
            start -= 1;
        }
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

    /// The message alone.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Byte range of the program text the error is about.
    pub fn span(&self) -> Span {
        self.span
    }

    /// 1-based line of the first offending character.
    pub fn line(&self) -> usize {
        self.text[..self.span.start].matches('\n').count() + 1
    }

    /// 1-based column (in characters) of the first offending character.
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

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} (line {}, column {})",
            self.message,
            self.line(),
            self.column()
        )?;
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
        let pad = self.column() - 1;
        // A span running past its line is underlined to the line's end.
        let width = self.text[self.span.start..self.span.end.min(end).max(self.span.start)]
            .chars()
            .count()
            .max(1);
        write!(f, "  {}{}", " ".repeat(pad), "^".repeat(width))
    }
}

impl std::error::Error for Error {}
