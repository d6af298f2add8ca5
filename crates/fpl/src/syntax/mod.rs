//! FPL text to a syntax tree with spans: the lexer ([`lexer`]) and the parser
//! ([`parser`]) over the tree types of [`ast`]. Nothing here resolves a name or
//! checks a bound; that is [`crate::check`]'s job.

pub(crate) mod ast;
pub(crate) mod lexer;
pub(crate) mod parser;
