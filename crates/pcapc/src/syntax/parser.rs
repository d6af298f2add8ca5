//! The parser (to be written).
use super::ast::Expr;
use crate::Error;

/// Parses filter text. `Ok(None)` is the empty expression, which accepts every packet.
pub fn parse(text: &str) -> Result<Option<Expr>, Error> {
    let _ = text;
    todo!()
}
