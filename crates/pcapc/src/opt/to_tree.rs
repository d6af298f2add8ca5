//! The program libpcap's optimiser leaves, read off the replayed flow graph as a
//! normal form for selection.
//!
//! After the first round (`replay`), the second round's constants go their known
//! way (`opt_peep` on a comparison of computed constants) and `opt_root` skips root
//! blocks whose branches meet, keeping the first root's loads ([`root::keep_root_load`]).
//! What is left is read as a tree, preserving the order of the tests on every path,
//! which is all that decides where a packet cut short faults:
//!
//! - an OR where every way from a block to the false exit passes the same blocks in
//!   turn (the cut vertices of those paths): each stretch between two of them is an
//!   alternative, whose false exit is the next one;
//! - dually an AND, along the ways to the true exit;
//! - a block whose branches are the two exits is a literal;
//! - anything else (an edge threading moved into the middle of another
//!   alternative) is split on its first test, `(p and A) or (not p and B)`. `p` runs
//!   again on the second way, but it loaded without a fault on the first, so the
//!   verdicts and faults are the graph's. Where `p` holding decides `B` false, the
//!   second `p` is left out, `(p and A) or B` (`ip6` after `ip`); where it decides `B`
//!   true without a load of its own, `(not p or A) and B`. Shared code is copied
//!   there, which `Budget::read_blocks` bounds. Past it, the graph is read again
//!   with each region read once and named from every way to it ([`share`]), which
//!   selection lays out as one group.
//!
//! Last, alternatives that end in the same code are joined ([`shared_tails`]), and a
//! graph with no path to acceptance on which every test can hold is `false`.

use crate::fasthash::FastMap;
use crate::lower::ir::{Pred, Tree};
use crate::lower::Computed;
use crate::nnf::{dual, join, Nnf};
use crate::opt::budget::Budget;
use crate::opt::facts::{learn_all, Facts};
use crate::opt::flowgraph::{Graph, Target, ACCEPT, REJECT};
use crate::opt::rejects::consistent_path;
use crate::opt::replay::Replay;
use crate::opt::root;

mod share;

/// The program libpcap's optimiser makes of `t`, as a normal form; `None` where the
/// flow graph is not one this reads within the budget, even sharing code.
pub(crate) fn optimize(t: &Tree, computed: &[Computed], budget: &Budget) -> Option<Nnf> {
    let mut r = Replay::new(Graph::build(t, computed), budget);
    // A graph the budget's passes leave unsettled is still a sound program: every
    // pass keeps every verdict.
    r.first_round();
    // No path to acceptance on which the tests can all hold: libpcap's program
    // rejects every packet (it still runs its loads, but a fault rejects too), and
    // so does one load-free test that always fails (`select::reject_all`).
    if consistent_path(&r.graph.blocks, r.graph.root) == Some(false) {
        return Some(Nnf::Const(false));
    }
    let reader = |share| Reader {
        g: &r.graph,
        reads: budget.read_blocks.min(
            budget
                .read_copies
                .saturating_mul(r.graph.blocks.len().max(1)),
        ),
        walks: budget.read_walk,
        share,
    };
    // Where copying shared code outgrows the budget, the same reading with each
    // region read once and named from every way to it (`Nnf::Shared`).
    let n = match reader(None).program() {
        Some(n) => n,
        None => share::unshare(reader(Some(Default::default())).program()?),
    };
    Some(shared_tails(n, budget.tail_run))
}

/// Alternatives that end in the same code, `(a and X) or (b and X)`, as `(a or b)
/// and X`: libpcap's program has a copy of `X` behind each (threading gave each its
/// own facts), but where `b` is decided false, without a load of its own, on every
/// way on which `a` held, the two programs run the same loads in the same order on
/// every packet, and the shared form is what selection packs (`port 20 or 23`: one
/// protocol test and one port test for the three protocols). Dually for an AND.
/// Bottom up.
fn shared_tails(n: Nnf, run: usize) -> Nnf {
    let inner = |v: Vec<Nnf>| v.into_iter().map(|x| shared_tails(x, run)).collect();
    match n {
        Nnf::Or(v) => tails_of(inner(v), false, run),
        Nnf::And(v) => tails_of(inner(v), true, run),
        n => n,
    }
}

/// An OR (an AND if `is_and`) of `v` with adjacent alternatives that share their
/// last part joined (see [`shared_tails`]).
fn tails_of(v: Vec<Nnf>, is_and: bool, run: usize) -> Nnf {
    // The dual of an AND is an OR: factor that, and take the dual back.
    if is_and {
        let d: Vec<Nnf> = v.iter().map(dual).collect();
        return dual(&tails_of(d, false, run));
    }
    let split = |n: &Nnf| -> Option<(Nnf, Nnf)> {
        match n {
            Nnf::And(w) if w.len() >= 2 => {
                let (last, first) = w.split_last().expect("two");
                let head = match first {
                    [one] => one.clone(),
                    more => Nnf::And(more.to_vec()),
                };
                Some((head, last.clone()))
            }
            _ => None,
        }
    };
    let mut out: Vec<Nnf> = Vec::with_capacity(v.len());
    let mut i = 0;
    let mut changed = false;
    while i < v.len() {
        let Some((head, tail)) = split(&v[i]) else {
            out.push(v[i].clone());
            i += 1;
            continue;
        };
        let mut heads = vec![head];
        let mut j = i + 1;
        while j < v.len() && heads.len() < run {
            match split(&v[j]) {
                Some((h, t)) if t == tail && heads.iter().all(|a| excluded(a, &h)) => {
                    heads.push(h);
                    j += 1;
                }
                _ => break,
            }
        }
        if heads.len() == 1 {
            out.push(v[i].clone());
        } else {
            changed = true;
            let heads = tails_of(heads, false, run);
            out.push(join(vec![heads, tail], true));
        }
        i = j;
    }
    let n = join(out, false);
    match n {
        Nnf::Or(w) if changed => tails_of(w, false, run),
        n => n,
    }
}

/// Whether `b` is decided false, by tests alone, wherever `a` held.
fn excluded(a: &Nnf, b: &Nnf) -> bool {
    let mut f = Facts::default();
    learn_all(a, &mut f);
    run(b, &mut f) == Some(false)
}

/// Which splits a region may still make: the parts of an OR are not ORs again at
/// their top (their ways to the false exit share no more cut blocks), nor an AND's
/// parts ANDs.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Split {
    Any,
    NotOr,
    NotAnd,
}

struct Reader<'g, 'a> {
    g: &'g Graph<'a>,
    /// Blocks still to be read: each block once, and the copies the splits on a
    /// first test make of code two ways share.
    reads: usize,
    /// Blocks still to be visited by the walks that find a region's cut blocks.
    walks: usize,
    /// When set, each region read once: what `read` made of each, by its arguments.
    share: Option<FastMap<(Target, Target, Target, Split), Nnf>>,
}

impl Reader<'_, '_> {
    fn program(&mut self) -> Option<Nnf> {
        let first = self.g.root;
        let mut at = first;
        // `opt_root`: the root moves past blocks whose branches meet, which by then
        // include the comparisons of computed constants (the second round's
        // `opt_peep` sends both their branches the known way; elsewhere they stay,
        // read as the load-free tests they are).
        for _ in 0..=self.g.blocks.len() {
            match self.g.block(at) {
                Some(b) if b.jt == b.jf => at = b.jt,
                Some(b) => match b.pred {
                    Some(Pred::Known(k)) => at = if *k { b.jt } else { b.jf },
                    _ => break,
                },
                None => break,
            }
        }
        // A return at the root runs no statements.
        if at == ACCEPT || at == REJECT {
            return Some(Nnf::Const(at == ACCEPT));
        }
        let n = self.read(at, ACCEPT, REJECT, Split::Any)?;
        if at == first {
            return Some(n);
        }
        // The first root's statements move to the new root.
        let pred = self.g.block(first).and_then(|b| b.pred).cloned();
        Some(root::keep_root_load(pred, n))
    }

    fn read_one(&mut self) -> Option<()> {
        self.reads = self.reads.checked_sub(1)?;
        Some(())
    }

    fn walk_one(&mut self) -> Option<()> {
        self.walks = self.walks.checked_sub(1)?;
        Some(())
    }

    /// The region from `b` whose every way ends at `yes` or `no`, as a tree (or,
    /// when sharing, a node read once and named again from every other way to it).
    fn read(&mut self, b: Target, yes: Target, no: Target, allow: Split) -> Option<Nnf> {
        if b == yes {
            return Some(Nnf::Const(true));
        }
        if b == no {
            return Some(Nnf::Const(false));
        }
        let key = (b, yes, no, allow);
        if let Some(n) = self.share.as_ref().and_then(|m| m.get(&key)) {
            return Some(n.clone());
        }
        let n = self.read_region(b, yes, no, allow)?;
        match &mut self.share {
            Some(m) => {
                let n = share::name(n);
                m.insert(key, n.clone());
                Some(n)
            }
            None => Some(n),
        }
    }

    /// [`Reader::read`] of a region not read before.
    fn read_region(&mut self, b: Target, yes: Target, no: Target, allow: Split) -> Option<Nnf> {
        let blk = self.g.block(b)?;
        self.read_one()?;
        if blk.jt == blk.jf && !blk.pred.is_some_and(|p| !matches!(p, Pred::Known(_))) {
            // A constant: it loads nothing.
            return self.read(blk.jt, yes, no, allow);
        }
        for (is_or, skip) in [(true, Split::NotOr), (false, Split::NotAnd)] {
            if allow == skip {
                continue;
            }
            let (to, other) = if is_or { (no, yes) } else { (yes, no) };
            let chain = self.cuts(b, to, other)?;
            if chain.len() > 1 {
                let mut parts = Vec::with_capacity(chain.len());
                let mut from = b;
                for c in chain {
                    let part = if is_or {
                        self.read(from, yes, c, skip)?
                    } else {
                        self.read(from, c, no, skip)?
                    };
                    parts.push(part);
                    from = c;
                }
                return Some(join(parts, !is_or));
            }
        }
        let p = blk.pred?.clone();
        let (jt, jf) = (blk.jt, blk.jf);
        if jt == yes && jf == no {
            return Some(Nnf::Lit(p, false));
        }
        if jt == no && jf == yes {
            return Some(Nnf::Lit(p, true));
        }
        let held = self.read(jt, yes, no, Split::Any)?;
        let failed = self.read(jf, yes, no, Split::Any)?;
        // Where `p` holding decides the second way false (`ip6` after `ip`), that
        // way may run without testing `p` again: on a packet where `p` held it only
        // loads fields and fails, as libpcap's program, which rejects there.
        let mut f = Facts::default();
        f.learn(&p, false);
        if false_under(&failed, &f) {
            let first = join(vec![Nnf::Lit(p, false), held], true);
            return Some(join(vec![first, failed], false));
        }
        // Dually, where `p` holding decides it true without a load of its own
        // (`not ip6` after `ip`), `(not p or A) and B`.
        if run(&failed, &mut f) == Some(true) {
            let first = join(vec![Nnf::Lit(p, true), held], false);
            return Some(join(vec![first, failed], true));
        }
        Some(join(
            vec![
                join(vec![Nnf::Lit(p.clone(), false), held], true),
                join(vec![Nnf::Lit(p, true), failed], true),
            ],
            false,
        ))
    }

    /// The blocks every way from `b` to `to` passes, in order, after `b`, ending
    /// with `to` itself; ways end at `to` or `other`. `None` if some way reaches a
    /// return that is neither, or the graph loops.
    fn cuts(&mut self, b: Target, to: Target, other: Target) -> Option<Vec<Target>> {
        // Depth first from `b`, stopping at the two exits: a postorder.
        let mut post: Vec<Target> = Vec::new();
        let mut state: FastMap<Target, bool> = Default::default();
        let mut stack: Vec<(Target, bool)> = vec![(b, false)];
        while let Some((v, done)) = stack.pop() {
            if done {
                state.insert(v, true);
                post.push(v);
                continue;
            }
            if v == to || v == other {
                continue;
            }
            match state.get(&v) {
                Some(true) => continue,
                Some(false) => return None, // on the stack: a loop
                None => {}
            }
            let blk = self.g.block(v)?;
            self.walk_one()?;
            state.insert(v, false);
            stack.push((v, true));
            for s in [blk.jf, blk.jt] {
                match state.get(&s) {
                    Some(false) => return None,
                    Some(true) => {}
                    None => stack.push((s, false)),
                }
            }
        }
        // Reverse postorder is topological; keep the blocks on some way to `to`.
        let mut reaches: FastMap<Target, bool> = Default::default();
        for &v in &post {
            let blk = self.g.block(v)?;
            let r = [blk.jt, blk.jf]
                .iter()
                .any(|&s| s == to || reaches.get(&s).copied().unwrap_or(false));
            reaches.insert(v, r);
        }
        let order: Vec<Target> = post
            .iter()
            .rev()
            .copied()
            .filter(|v| reaches[v])
            .chain(std::iter::once(to))
            .collect();
        let pos: FastMap<Target, usize> = order.iter().enumerate().map(|(i, &v)| (v, i)).collect();
        // A block is on every way iff no edge jumps over it in this order.
        let mut reach = 0;
        let mut out = Vec::new();
        for (i, &v) in order.iter().enumerate() {
            if i > 0 && reach <= i {
                out.push(v);
            }
            if v == to {
                break;
            }
            let blk = self.g.block(v)?;
            for s in [blk.jt, blk.jf] {
                if let Some(&j) = pos.get(&s) {
                    reach = reach.max(j);
                }
            }
        }
        Some(out)
    }
}

/// Whether `n` is false on every packet with the facts `f` (as fold_edge decides
/// tests from them).
fn false_under(n: &Nnf, f: &Facts) -> bool {
    match n {
        Nnf::Const(b) => !b,
        Nnf::Lit(p, neg) => f.decide(p, *neg) == Some(false),
        Nnf::And(v) => v.iter().any(|x| false_under(x, f)),
        Nnf::Or(v) => v.iter().all(|x| false_under(x, f)),
        _ => false,
    }
}

/// The outcome of `n` run in order where `f` decides every test it runs (so it
/// loads nothing the facts' tests did not), else `None`.
fn run(n: &Nnf, f: &mut Facts) -> Option<bool> {
    match n {
        Nnf::Const(b) => Some(*b),
        Nnf::Lit(p, neg) => f.decide(p, *neg),
        Nnf::And(v) => {
            for x in v {
                if !run(x, f)? {
                    return Some(false);
                }
            }
            Some(true)
        }
        Nnf::Or(v) => {
            for x in v {
                if run(x, f)? {
                    return Some(true);
                }
            }
            Some(false)
        }
        _ => None,
    }
}
