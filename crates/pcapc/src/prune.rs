//! Tests deep inside one child of an OR (dually: of an AND) whose two outcomes lead
//! the same way once the tests before them held.
//!
//! `normal::simp_or` cuts a conjunction of an OR once a prefix of it held and the rest
//! of the OR is then sure to hold. libpcap's optimizer does the same at any depth,
//! because `opt_j` (optimize.c) threads every edge past the tests its dominators
//! decide, and a test whose two edges then reach the same block (`JT == JF`) goes,
//! bottom-up. In `port 25 or udp`, `port 25` is, per IP version, `(ip proto 132 and
//! ports) or (ip proto 6 and ports) or (ip proto 17 and ports)`. Once `ip proto 17`
//! held, the port tests' true edges accept, and their false edges run out of that
//! OR into `udp`, whose tests the path decides true: both reach the accepting
//! return, so the port tests (and the fragment test) go and `ip proto 17` accepts
//! at once. Once `ip proto 132` held, the false edges run through `ip proto 6` and
//! `ip proto 17`, which the path decides false, and on into the rest; if that is
//! decided too, the same happens to the SCTP port tests.
//!
//! So for every conjunction inside the child (every disjunction, dually) this finds
//! the shortest prefix after which both ways out of it reach the same outcome of the
//! enclosing OR through tests the path decides, and drops the rest of it. On a packet
//! long enough for every load nothing changes (the dropped tests could not change the
//! outcome); on a shorter one their loads no longer run, as in libpcap's program.

use crate::facts::Facts;
use crate::keep::walk;
use crate::normal::{burn, learn_all, learn_fail, Nnf};

/// The rest of an enclosing list, run when the child being looked at goes its
/// continuing way (holds in an AND, fails in an OR).
struct Frame<'a> {
    rest: &'a [Nnf],
    is_and: bool,
}

/// `c`, a child of an OR (`top_is_and` false) or an AND followed by `tail` there,
/// with the tests that cannot change the outcome where they stand dropped. `facts`
/// hold where `c` starts.
pub(crate) fn prune(c: &Nnf, facts: &Facts, tail: &[Nnf], top_is_and: bool) -> Nnf {
    if tail.is_empty() {
        return c.clone();
    }
    let mut frames = vec![Frame {
        rest: tail,
        is_and: top_is_and,
    }];
    node(c, facts, &mut frames)
}

fn node<'a>(n: &'a Nnf, f: &Facts, frames: &mut Vec<Frame<'a>>) -> Nnf {
    let (v, is_and) = match n {
        Nnf::And(v) => (v, true),
        Nnf::Or(v) => (v, false),
        n => return n.clone(),
    };
    let mut fa = f.clone();
    let mut out = Vec::with_capacity(v.len());
    for k in 0..v.len() {
        // With the first `k` children gone the continuing way, does it matter how
        // this list ends? (Not asked before any child: the list's first test stays,
        // as the cut in `normal::simp_or` keeps it.)
        if k > 0 && burn(1) {
            let held = finish(frames, true, &fa);
            if held.is_some() && held == finish(frames, false, &fa) {
                break;
            }
        }
        frames.push(Frame {
            rest: &v[k + 1..],
            is_and,
        });
        let x = node(&v[k], &fa, frames);
        frames.pop();
        if is_and {
            learn_all(&x, &mut fa);
        } else {
            learn_fail(&x, &mut fa);
        }
        // A list cut down to one child of the other kind joins its parent's list.
        match x {
            Nnf::And(w) if is_and => out.extend(w),
            Nnf::Or(w) if !is_and => out.extend(w),
            x => out.push(x),
        }
    }
    match out.len() {
        1 => out.pop().expect("one"),
        _ if is_and => Nnf::And(out),
        _ => Nnf::Or(out),
    }
}

/// The outcome of the outermost list when the innermost one ends `b`, on a path
/// with facts `f`, if those facts decide every test on the way (as threading
/// would move the edge past them).
fn finish(frames: &[Frame], mut b: bool, f: &Facts) -> Option<bool> {
    let mut f = f.clone();
    for fr in frames.iter().rev() {
        if b != fr.is_and {
            continue;
        }
        for x in fr.rest {
            if walk(x, &mut f).ok()? != fr.is_and {
                b = !fr.is_and;
                break;
            }
        }
    }
    Some(b)
}
