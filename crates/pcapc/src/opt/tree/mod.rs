//! libpcap's optimiser approximated on the normal form: what its jump threading
//! folds (`fold`, with `thread` for where threading leads past a test and
//! `dead_tests` for tests whose both outcomes lead the same way), what `opt_root`
//! keeps of the root block (`root`), and what its pull-ups reorder (`pullup`).
//!
//! These are heuristics over the tree rather than a replay of the flow graph: each
//! looks at the paths of the normal form, which a flow graph shares and this tree
//! does not, and each is bounded by the caller's [`Budget`].

mod dead_tests;
pub(crate) mod fold;
mod pullup;
pub(crate) mod root;
mod thread;

use crate::nnf::Nnf;
use crate::opt::budget::{Budget, Fuel};

/// Folds tests whose outcome earlier tests on the same path already decide, as
/// libpcap's optimizer does with its per-path value numbering: `tcp and udp` is
/// false, `not (icmp[0] = 1 and pim[0] = 2)` is true. A folded test's load is dropped,
/// which is what libpcap's optimizer does too. Then `opt_root`'s handling of the
/// root block, and last, a later test of the value just loaded moves in front where
/// libpcap's pullups move it.
pub(crate) fn simplify(n: Nnf, budget: &Budget) -> Nnf {
    let mut fuel = Fuel::new(budget);
    let folded = fold::fold_root(n, &mut fuel);
    pullup::pullup(root::settle_root(folded), budget)
}
