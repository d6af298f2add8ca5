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
pub mod select;
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

/// Stack for compiling an expression nested deeper than [`syntax::SHALLOW`]: the
/// deepest the parser accepts (10,000 levels) recursing through every step. Only the
/// pages a compile touches are ever committed.
const DEEP_STACK: usize = 1 << 30;

/// Compiles `text` for a target; use `savefile_swapped: Some(..)` when filtering a
/// capture file, as tcpdump `-r` does.
pub fn compile_for(text: &str, target: Target) -> Result<PassSet, Error> {
    if syntax::nesting_bound(text) <= syntax::SHALLOW {
        return compile_here(text, target);
    }
    // Deep nesting (libpcap takes up to 10,000 levels): every step recurses on the
    // tree, so the compile gets a thread with a stack sized for the deepest.
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name("pcapc-deep".into())
            .stack_size(DEEP_STACK)
            .spawn_scoped(s, || compile_here(text, target));
        match worker {
            Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            Err(e) => Err(Error::new(
                format!("expression nests too deeply for this machine: no thread for it ({e})"),
                Span::new(0, text.len()),
                text,
            )),
        }
    })
}

fn compile_here(text: &str, target: Target) -> Result<PassSet, Error> {
    let expr = syntax::parse(text)?;
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
