//! The read-back that shares code instead of copying it: libpcap's program is a
//! graph, and where threading leaves code that many ways reach (a split on a first
//! test below another, again and again), copying it for each way grows with the
//! number of ways, not of blocks. Read so, each region is one node (`Nnf::Shared`),
//! named from every way to it; a node named once is put back in place, so the result
//! is the tree the copying reader makes wherever that one fits its budget.

use crate::fasthash::FastMap;
use crate::nnf::{dual, join, Nnf, Shared};
use std::rc::Rc;

/// A region's reading as a node other ways can name: ANDs and ORs only (a literal
/// or a constant is as small as its name).
pub(super) fn name(n: Nnf) -> Nnf {
    match n {
        n @ (Nnf::And(_) | Nnf::Or(_)) => Nnf::Shared(Shared {
            node: Rc::new(n),
            neg: false,
        }),
        n => n,
    }
}

/// `n` with every node named from one place only put back there.
pub(super) fn unshare(n: Nnf) -> Nnf {
    let mut names = FastMap::default();
    count(&n, &mut names);
    rebuild(&n, &names, &mut FastMap::default())
}

/// How many places name each node; each node's own names counted once.
fn count(n: &Nnf, names: &mut FastMap<*const Nnf, u32>) {
    match n {
        Nnf::And(v) | Nnf::Or(v) => v.iter().for_each(|x| count(x, names)),
        Nnf::Unoptimized(x) => count(x, names),
        Nnf::Shared(s) => {
            let k = names.entry(Rc::as_ptr(&s.node)).or_insert(0);
            *k += 1;
            if *k == 1 {
                count(&s.node, names);
            }
        }
        Nnf::Const(_) | Nnf::Lit(..) => {}
    }
}

/// `n` rebuilt with nodes named once in place; each node named more often rebuilt
/// once (`done`, by the old node) and named from each place again.
fn rebuild(
    n: &Nnf,
    names: &FastMap<*const Nnf, u32>,
    done: &mut FastMap<*const Nnf, Rc<Nnf>>,
) -> Nnf {
    match n {
        Nnf::And(v) => join(v.iter().map(|x| rebuild(x, names, done)).collect(), true),
        Nnf::Or(v) => join(v.iter().map(|x| rebuild(x, names, done)).collect(), false),
        Nnf::Unoptimized(x) => Nnf::Unoptimized(Box::new(rebuild(x, names, done))),
        Nnf::Shared(s) => {
            let p = Rc::as_ptr(&s.node);
            if names.get(&p).copied().unwrap_or(0) <= 1 {
                let inner = rebuild(&s.node, names, done);
                return if s.neg { dual(&inner) } else { inner };
            }
            let node = match done.get(&p) {
                Some(r) => r.clone(),
                None => {
                    let r = Rc::new(rebuild(&s.node, names, done));
                    done.insert(p, r.clone());
                    r
                }
            };
            Nnf::Shared(Shared { node, neg: s.neg })
        }
        n => n.clone(),
    }
}
