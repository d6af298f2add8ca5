//! The syntax tree of one flow definition, with byte spans into its text.

pub use crate::span::Span;

/// One comma-separated field of an element, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// The field's text: without its quotes and with `\"` and `\\` unescaped if it
    /// was quoted, else with the white space around it trimmed.
    pub text: String,
    /// Whether it was written in double quotes.
    pub quoted: bool,
    /// Where it is (the quotes included).
    pub span: Span,
}

/// An element `(class,args,mbufsize)`: its fields, the class name first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Element {
    /// The fields in order; never empty, and the first is an unquoted, non-empty
    /// class name.
    pub fields: Vec<Field>,
    /// From its `(` to its `)`.
    pub span: Span,
}

impl Element {
    /// The class name as written.
    pub fn class(&self) -> &Field {
        &self.fields[0]
    }
}

/// A callable filter defined before the flow, `name = (class,args,mbufsize);`:
/// not a stage of the flow, but a filter FPL's `EXTERN(name, in, out)` calls
/// with the caller's MBuf (the seeds' filter calls, Figure 2b).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    /// The name `EXTERN` calls it by.
    pub name: String,
    /// Where the name is.
    pub name_span: Span,
    /// The filter.
    pub element: Element,
}

/// A flow expression. Grouping parentheses leave no node of their own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// One filter.
    Element(Element),
    /// `a -> b -> …`: every sink of each part connects to every source of the next
    /// (two parts or more).
    Chain(Vec<Expr>),
    /// `a | b | …`: the parts side by side (two parts or more).
    Parallel(Vec<Expr>),
}
