//! The flow graph gencode builds for a lowered tree, as libpcap's optimiser
//! (optimize.c) first sees it: each test a block with a true and a false edge, a
//! conjunction a chain, alternatives joined where their exits meet, `not` swapping
//! exits, and a constant a block with both its branches (opt_peep decides `ld #k;
//! jeq` in the first pass, but only after that pass has computed levels and
//! dominators with both branches).
//!
//! [`Graph`] holds the blocks and the root; [`Levels`] is libpcap's `find_levels`
//! (a block's height above the returns, and the blocks lowest first), the order in
//! which every pass visits them. The passes that move edges are `thread` and
//! `pullup`; `replay` runs them.

use crate::lower::ir::{Pred, Tree};
use crate::lower::Computed;
use crate::opt::facts::{const_subject, jumps_on_jset, test_key, TestKey};

/// A branch target: a block's index, or one of the two returns.
pub(super) type Target = u32;
pub(super) const REJECT: Target = u32::MAX - 1;
pub(super) const ACCEPT: Target = u32::MAX;
/// No block, edge or level.
pub(super) const NONE: u32 = u32::MAX;

/// The blocks of a filter and its root.
pub(super) struct Graph<'a> {
    pub blocks: Vec<Block<'a>>,
    pub root: Target,
}

impl<'a> Graph<'a> {
    /// The flow graph gencode builds for `t`.
    pub(super) fn build(t: &'a Tree, computed: &[Computed]) -> Graph<'a> {
        let mut blocks = Vec::new();
        let root = build(t, ACCEPT, REJECT, computed, &mut blocks);
        Graph { blocks, root }
    }

    /// The block `t` names, if it is not a return.
    pub(super) fn block(&self, t: Target) -> Option<&Block<'a>> {
        self.blocks.get(t as usize)
    }

    /// Which blocks the root reaches now, or (`folded`) once the second round's
    /// first pass has sent each comparison of computed constants its known way.
    pub(super) fn reachable(&self, folded: bool) -> Vec<bool> {
        let mut seen = vec![false; self.blocks.len()];
        let mut stack = vec![self.root];
        while let Some(t) = stack.pop() {
            if let Some(b) = self.block(t) {
                if !std::mem::replace(&mut seen[t as usize], true) {
                    match b.pred {
                        Some(Pred::Known(k)) if folded => {
                            stack.push(if *k { b.jt } else { b.jf });
                        }
                        _ => {
                            stack.push(b.jt);
                            stack.push(b.jf);
                        }
                    }
                }
            }
        }
        seen
    }

    /// After the first round: whether the program is `ret #0` once the second round
    /// has folded the load-free comparisons of computed constants (`Known`), which
    /// moves no edge, and `opt_root` has skipped the root blocks whose branches meet.
    pub(super) fn reaches_reject(&self) -> bool {
        let mut at = self.root;
        for _ in 0..=self.blocks.len() {
            let Some(b) = self.block(at) else { break };
            at = match b.pred {
                _ if b.jt == b.jf => b.jt,
                Some(Pred::Known(k)) => {
                    if *k {
                        b.jt
                    } else {
                        b.jf
                    }
                }
                _ => break,
            };
        }
        if at == REJECT {
            return true;
        }
        // A program whose accepting return is unreachable is reduced to `ret #0`
        // by the first round itself (every block ends with both branches there).
        !self.accept_reachable()
    }

    fn accept_reachable(&self) -> bool {
        let mut seen = vec![false; self.blocks.len()];
        let mut stack = vec![self.root];
        while let Some(t) = stack.pop() {
            if t == ACCEPT {
                return true;
            }
            if let Some(b) = self.block(t) {
                if !std::mem::replace(&mut seen[t as usize], true) {
                    stack.push(b.jt);
                    stack.push(b.jf);
                }
            }
        }
        false
    }
}

/// libpcap's levels: each reachable block's height above the returns, and the
/// reachable blocks lowest first.
#[derive(Default)]
pub(super) struct Levels {
    /// Height above the returns (libpcap's `level`), `NONE` if unreachable.
    pub level: Vec<u32>,
    /// The reachable blocks, lowest level first.
    pub order: Vec<u32>,
}

impl Levels {
    /// The levels of `g` as it is now (`find_levels`).
    pub(super) fn find(&mut self, g: &Graph) {
        self.level.clear();
        self.level.resize(g.blocks.len(), NONE);
        self.order.clear();
        if g.block(g.root).is_none() {
            return;
        }
        // Depth-first, iteratively (the graph can be as deep as the filter is long).
        const OPEN: u32 = NONE - 1;
        let mut stack = vec![g.root];
        while let Some(&b) = stack.last() {
            let blk = &g.blocks[b as usize];
            let (jt, jf) = (blk.jt, blk.jf);
            if self.level[b as usize] == NONE {
                self.level[b as usize] = OPEN;
                // libpcap recurses into its true edge first.
                for t in [blk.edge(false), blk.edge(true)] {
                    if g.block(t).is_some() && self.level[t as usize] == NONE {
                        stack.push(t);
                    }
                }
                continue;
            }
            stack.pop();
            if self.level[b as usize] != OPEN {
                continue;
            }
            let lv = |t: Target| match self.level.get(t as usize) {
                Some(&l) => l,
                None => 0,
            };
            // (Saturating: a graph bent into a loop gets odd levels, not a panic.)
            let l = lv(jt).max(lv(jf)).saturating_add(1).min(OPEN - 1);
            self.level[b as usize] = l;
            self.order.push(b);
        }
        // Lowest first (a block's successors are always lower); within a level, as
        // libpcap lists them, last finished first.
        let level = &self.level;
        let finished: Vec<(u32, u32)> = self
            .order
            .iter()
            .enumerate()
            .map(|(i, &b)| (b, i as u32))
            .collect();
        let mut keyed: Vec<(u32, std::cmp::Reverse<u32>, u32)> = finished
            .into_iter()
            .map(|(b, i)| (level[b as usize], std::cmp::Reverse(i), b))
            .collect();
        keyed.sort_unstable();
        self.order = keyed.into_iter().map(|(_, _, b)| b).collect();
    }
}

/// One test of the flow graph and where its branches go now.
pub(super) struct Block<'a> {
    /// `None` for a constant (gencode's `gen_true`/`gen_false`, `ld #0; jeq #0`),
    /// whose branches the first pass already sends one way (opt_peep).
    pub pred: Option<&'a Pred>,
    /// How fold_edge compares `pred` with other tests (`None` if it never decides
    /// nor is decided).
    pub key: Option<TestKey>,
    /// The value the block leaves in the accumulator, as far as pullups compare it
    /// (`None`: one no other block leaves).
    pub subject: Option<u64>,
    pub jt: Target,
    pub jf: Target,
    /// libpcap's block jumps on `jset #k` where this one tests `f & k == 0`
    /// (gencode's fragment test, and opt_peep's rewrite of `and #k; jeq #0`,
    /// which swaps the branches): its true edge is `jf` here. The pullups walk
    /// and the passes visit libpcap's edges as they lie ([`Block::edge`]).
    pub inverted: bool,
    /// For a constant, the way its known outcome goes. gencode builds it with both
    /// branches; opt_peep points both of them that way in the first pass, after
    /// that pass has computed levels and dominators with the other branch still
    /// there (see `Replay::pass`).
    pub fold: Option<Target>,
}

impl Block<'_> {
    /// This block's sides (`true`: `jt`) in the order libpcap visits its
    /// edges, its own true edge first.
    pub(super) fn sides(&self) -> [bool; 2] {
        [!self.inverted, self.inverted]
    }

    /// libpcap's true (`jump`) or false edge: where it goes.
    pub(super) fn edge(&self, jump: bool) -> Target {
        if jump != self.inverted {
            self.jt
        } else {
            self.jf
        }
    }

    /// Points libpcap's true (`jump`) or false edge at `t`.
    pub(super) fn set_edge(&mut self, jump: bool, t: Target) {
        if jump != self.inverted {
            self.jt = t;
        } else {
            self.jf = t;
        }
    }
}

/// Builds the blocks of `t` with its true exit going to `yes` and its false exit to
/// `no`, and returns its entry.
fn build<'a>(
    t: &'a Tree,
    yes: Target,
    no: Target,
    computed: &[Computed],
    blocks: &mut Vec<Block<'a>>,
) -> Target {
    match t {
        // A constant is a block too: opt_peep points both its branches one way
        // in the first pass (`Graph::pass`), and threading then moves the edges
        // into it past it; until then it shapes levels and dominators as any block
        // does.
        Tree::Const(b) => {
            let to = if *b { yes } else { no };
            blocks.push(Block {
                pred: None,
                key: None,
                // `gen_uncond` loads `!b`: pullups compare it with what other blocks
                // leave in the accumulator.
                subject: Some(const_subject(u32::from(!*b))),
                jt: yes,
                jf: no,
                inverted: false,
                fold: Some(to),
            });
            (blocks.len() - 1) as Target
        }
        Tree::Atom(p) => {
            let mut key = test_key(p);
            if let Some(c) = computed.iter().find(|c| &c.rel == p) {
                key = key.map(|k| round0_key(k, c.lhs));
            }
            blocks.push(Block {
                pred: Some(p),
                key,
                subject: key.map(|k| k.subject),
                jt: yes,
                jf: no,
                inverted: jumps_on_jset(p),
                fold: None,
            });
            (blocks.len() - 1) as Target
        }
        Tree::Not(x) => build(x, no, yes, computed, blocks),
        Tree::And(v) => v
            .iter()
            .rev()
            .fold(yes, |next, c| build(c, next, no, computed, blocks)),
        Tree::Or(v) => v
            .iter()
            .rev()
            .fold(no, |next, c| build(c, yes, next, computed, blocks)),
        Tree::Unoptimized(x) => build(x, yes, no, computed, blocks),
    }
}

/// How fold_edge sees a relation with a side only the second round knows is constant
/// ([`Computed`]): its jump compares with X (`jeq x`), a value number no other jump
/// has, so only an identical relation decides it (the same `test`), never an
/// equality with a constant (no `eq`); with a computed left side the accumulator
/// holds a value of its own (`subject`).
fn round0_key(k: TestKey, lhs: bool) -> TestKey {
    use std::hash::{Hash, Hasher};
    let tag = |x: u64, t: &str| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (x, t).hash(&mut h);
        h.finish()
    };
    TestKey {
        subject: if lhs {
            tag(k.subject, "computed")
        } else {
            k.subject
        },
        test: tag(k.test, "jump on X"),
        eq: None,
    }
}
