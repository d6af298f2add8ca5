//! The pcap filter language compiled to netsift PassSets.
//!
//! [`compile`] and [`compile_for`] are the whole interface; [`syntax::parse`] gives the
//! syntax tree alone. Inside, the pipeline is a chain of named steps (docs/compiler.md): text → `syntax::parse` (syntax tree with spans) → `lower` (boolean tree of field
//! predicates with libpcap's semantics) → `opt` (libpcap's optimiser replayed on the
//! flow graph gencode builds — dominators, jump threading, pull-ups — and the program
//! it leaves read back as a normal form, `nnf`; its limits in one `opt::Budget` passed
//! in here) → `select` (instructions, SIMD packing, passes and sharing). `normal` gives
//! the normal form of a tree libpcap does not optimise; `large` takes long flat
//! disjunctions to SET lookups.
//! The intermediate forms are not public. The compiler never runs the engine and never
//! looks at packets.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod error;
mod fasthash;
mod large;
mod lower;
mod micro;
mod nnf;
mod normal;
mod opt;
mod select;
pub mod syntax;

pub use error::{Error, ErrorKind};
pub use large::MAX_PRIMS;
pub use lower::{link_fields, Meta, Target};
pub use select::reject_all;

use netsift_isa::PassSet;
use netsift_wire::LinkType;
use syntax::ast::Span;

/// Compiles `text` for `linktype`, as `pcap_compile` on a `pcap_open_dead` handle does.
pub fn compile(text: &str, linktype: LinkType) -> Result<PassSet, Error> {
    compile_for(text, Target::new(linktype))
}

/// Compiles `text` for a target; use [`Target::savefile_swapped`] when filtering a
/// capture file, as tcpdump `-r` does.
pub fn compile_for(text: &str, target: Target) -> Result<PassSet, Error> {
    syntax::stack::sized_for(text, || compile_here(text, target))
}

fn compile_here(text: &str, target: Target) -> Result<PassSet, Error> {
    let expr = syntax::parse_here(text)?;
    let general = |e: Option<&syntax::ast::Expr>| compile_tree(e, text, target);
    let Some(expr) = expr else {
        return general(None);
    };
    let out = large::compile(&expr, text, &general);
    large::dismantle(expr);
    out
}

/// The general pipeline on a parsed tree.
fn compile_tree(
    expr: Option<&syntax::ast::Expr>,
    text: &str,
    target: Target,
) -> Result<PassSet, Error> {
    let (tree, anchors, info) = lower::lower(expr, text, target)?;
    let budget = opt::Budget::DEFAULT;
    if let Some(e) = opt::optimizer_error(&tree, &info, &budget) {
        return Err(e);
    }
    let whole = Span::new(0, text.len());
    let rejects_all = || {
        Error::new("expression rejects all packets", whole, text).with_kind(ErrorKind::RejectsAll)
    };
    // libpcap refuses a filter when its optimizer finds no path to acceptance, which
    // depends on where its flow graph loses facts, not on whether a packet can match
    // (see `opt::rejects`): decide that on the tree as generated, before any folding.
    let libpcap_refuses = opt::rejects_all(&tree, &info.computed, &budget);
    if libpcap_refuses == Some(true) {
        return Err(rejects_all());
    }
    // libpcap's optimiser, replayed on the flow graph gencode builds, read back as
    // the normal form of the program it leaves. A filter libpcap does not optimize,
    // or a graph past the budget, keeps every test in the order generated.
    let optimized = match &tree {
        lower::ir::Tree::Unoptimized(_) => None,
        t => opt::optimize(t, &info.computed, &budget),
    };
    // The loads libpcap puts before the first test run first whatever the tests do.
    let first = |n| opt::keep_prologue(info.prologue.clone(), n);
    let selected = match optimized.map(|n| select::select(&first(n), &anchors)) {
        // Where libpcap's program shares code that the normal form copies, the copies
        // can outgrow the pass set; gencode's order (exact on whole packets) is linear.
        None | Some(Err(select::SelectError::TooBig(_))) => {
            select::select(&first(normal::normalize(tree)), &anchors)
        }
        Some(s) => s,
    };
    match selected {
        Ok(set) => Ok(set),
        // netsift proved that no packet matches, but libpcap's optimizer could not:
        // it builds a program whose accepting return no packet reaches (a short one
        // faults first, which rejects too). So does this one.
        Err(select::SelectError::RejectsAll) if libpcap_refuses == Some(false) => {
            Ok(select::reject_all())
        }
        // Too big for the analysis: the normal form's verdict stands.
        Err(select::SelectError::RejectsAll) => Err(rejects_all()),
        Err(select::SelectError::TooBig(m)) => {
            Err(Error::new(m, whole, text).with_kind(ErrorKind::TooLarge))
        }
    }
}
