//! The pcap filter language compiled to netsift PassSets.
//!
//! The pipeline is a chain of named steps, each a function you can test alone:
//! text → [`syntax::parse`] (syntax tree with spans) → [`lower`] (boolean tree of field
//! predicates with libpcap's semantics) → [`normal`] (negations pushed to the leaves,
//! constants folded) → [`select`] (instructions, SIMD packing, passes and sharing).
//! The compiler never runs the engine and never looks at packets.

mod error;
mod facts;
mod keep;
mod lead;
pub mod lower;
pub mod normal;
mod prune;
mod pullup;
pub mod select;
mod stack;
pub mod syntax;

pub use error::Error;
pub use lower::Target;

use netsift_isa::PassSet;
use netsift_wire::LinkType;
use syntax::ast::Span;

/// Compiles `text` for `linktype`, as `pcap_compile` on a `pcap_open_dead` handle does.
pub fn compile(text: &str, linktype: LinkType) -> Result<PassSet, Error> {
    compile_for(
        text,
        Target {
            linktype,
            savefile_swapped: None,
        },
    )
}

/// Compiles `text` for a target; use `savefile_swapped: Some(..)` when filtering a
/// capture file, as tcpdump `-r` does.
pub fn compile_for(text: &str, target: Target) -> Result<PassSet, Error> {
    stack::sized_for(text, || compile_here(text, target))
}

fn compile_here(text: &str, target: Target) -> Result<PassSet, Error> {
    let expr = syntax::parse_here(text)?;
    let (tree, anchors) = lower::lower(expr.as_ref(), text, target)?;
    let nnf = normal::simplify(normal::normalize(tree));
    let whole = Span::new(0, text.len());
    select::select(&nnf, &anchors).map_err(|e| match e {
        select::SelectError::RejectsAll => {
            Error::new("expression rejects all packets", whole, text)
        }
        select::SelectError::TooBig(m) => Error::new(m, whole, text),
    })
}
