//! The `ffpf-flow` syntax: text to a syntax tree ([`ast`]) with spans
//! (`parser`), then to a flow's graph of elements and edges ([`lower`]).

pub mod ast;
pub mod lower;
mod parser;

pub(crate) use parser::parse_expr;
