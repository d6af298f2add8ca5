//! Room on the stack for deep nesting.
//!
//! libpcap's parser takes up to 10,000 levels of parentheses or `not`s, and every
//! step of netsift's pipeline (parser, lowering, normal form, selection) recurses on
//! the tree. Text nested deeper than [`SHALLOW`] (a bound found by a scan of its
//! characters, without parsing) therefore runs on a thread of its own whose stack is
//! sized for the deepest input the parser accepts; everything else runs on the
//! caller's stack, at no extra cost.

use super::ast::Span;
use super::{nesting_bound, SHALLOW};
use crate::{Error, ErrorKind};

/// Stack for the deepest input: 10,000 levels through every step. Only the pages a
/// run touches are ever committed.
const DEEP_STACK: usize = 1 << 30;

/// Runs `f` (which works on `text`) on the caller's stack if `text` is shallow,
/// else on a thread with a [`DEEP_STACK`]-byte stack. A panic in `f` is passed on.
pub(crate) fn sized_for<T: Send>(
    text: &str,
    f: impl FnOnce() -> Result<T, Error> + Send,
) -> Result<T, Error> {
    if nesting_bound(text) <= SHALLOW {
        return f();
    }
    std::thread::scope(|s| {
        match std::thread::Builder::new()
            .name("pcapc-deep".into())
            .stack_size(DEEP_STACK)
            .spawn_scoped(s, f)
        {
            Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            Err(e) => Err(Error::new(
                format!("expression nests too deeply for this machine: no thread for it ({e})"),
                Span::new(0, text.len()),
                text,
            )
            .with_kind(ErrorKind::TooLarge)),
        }
    })
}
