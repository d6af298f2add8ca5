//! Text to syntax tree: the scanner (`lexer`) and the parser, following libpcap's
//! scanner.l and grammar.y.

pub mod ast;
mod lexer;
mod parser;
pub(crate) mod stack;

pub(crate) use parser::parse_here;
pub use parser::{nesting_bound, parse, SHALLOW};
