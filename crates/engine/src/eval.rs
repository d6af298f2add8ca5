//! The per-packet walks: root passes in order, instructions in pass order, GROUP
//! members in range order, parents lending results to children.
//!
//! The walks run decoded operations ([`crate::op`]), which hold each instruction's
//! meaning; here is only the order in which they run and what is reused. The walk
//! is generic over [`Program`], so the same code runs a static set
//! ([`crate::Compiled`]) and a live pass set whose passes are published one at a
//! time while packets flow (`crate::live`).

use crate::op::{apply_rule, group_range, Decoded, Env, Fault, Op, Step};
use crate::scratch::{Scratch, ACCEPTED, NO_ANCHOR};
use netsift_isa::{Anchor, PassKind, PassSet};

/// The result of running a pass set over one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Some root pass accepted the packet.
    Accept,
    /// No root pass accepted it, or a load ran past its captured bytes.
    Reject,
}

/// One pass as the walk sees it.
pub(crate) struct PassRef<'a> {
    pub kind: PassKind,
    pub parent: Option<u16>,
    /// Passes of one clause share a fault: a load past the captured bytes in any of
    /// them rejects the whole clause (as one BPF program would), but not other
    /// clauses of a live set, which are independent filters.
    pub clause: u32,
    pub steps: &'a [Step],
    /// The operands the steps index.
    pub pool: &'a [u32],
    /// Live sets stamp every instruction write; a copied instruction reuses its
    /// parent's result only if the stamps agree, so an edit of either pass can never
    /// make a child use a result of a different instruction. Static sets have no
    /// stamps and trust the `copied` marks.
    pub stamps: Option<&'a [u64]>,
    /// Identifies this version of the pass (live sets); 0 for static sets.
    pub id: u64,
}

/// What the walk needs from a pass set.
pub(crate) trait Program {
    /// Pass indices are below this.
    fn slots(&self) -> usize;
    fn pass(&self, i: usize) -> Option<PassRef<'_>>;
    fn anchor(&self, a: usize) -> Option<Anchor>;
    /// Whether hash table `table` holds `key`; `None` if there is no such table.
    fn contains(&self, table: u32, key: u64) -> Option<bool>;
}

/// Whether the pass set accepts the packet. `packet` holds the captured bytes,
/// `wire_len` the packet's length on the wire (for `len`, `less`, `greater`).
///
/// This decodes the set for every call; decode it once with
/// [`Compiled`](crate::Compiled) to filter many packets.
#[inline]
pub fn matches(set: &PassSet, scratch: &mut Scratch, packet: &[u8], wire_len: u32) -> bool {
    evaluate(set, scratch, packet, wire_len) == Verdict::Accept
}

/// The verdict of `set` on one packet (see [`matches()`]).
pub fn evaluate(set: &PassSet, scratch: &mut Scratch, packet: &[u8], wire_len: u32) -> Verdict {
    let decoded = Decoded::new(set);
    run(
        &Static {
            set,
            decoded: &decoded,
        },
        scratch,
        packet,
        wire_len,
    )
}

/// A static pass set and its decoded form, as the walk sees them.
pub(crate) struct Static<'a> {
    pub set: &'a PassSet,
    pub decoded: &'a Decoded,
}

impl Program for Static<'_> {
    #[inline]
    fn slots(&self) -> usize {
        self.decoded.passes.len()
    }
    #[inline]
    fn pass(&self, i: usize) -> Option<PassRef<'_>> {
        self.decoded.passes.get(i).map(|p| PassRef {
            kind: p.kind,
            parent: p.parent,
            clause: 0,
            steps: &p.steps,
            pool: &self.decoded.pool,
            stamps: None,
            id: 0,
        })
    }
    #[inline]
    fn anchor(&self, a: usize) -> Option<Anchor> {
        self.set.anchors().get(a).copied()
    }
    #[inline]
    fn contains(&self, table: u32, key: u64) -> Option<bool> {
        self.set.table_contains(table, key)
    }
}

/// Walks the root passes in index order (depth-first order, since children follow
/// their parents) until one accepts.
pub(crate) fn run<P: Program + ?Sized>(
    prog: &P,
    scratch: &mut Scratch,
    packet: &[u8],
    wire_len: u32,
) -> Verdict {
    let slots = prog.slots();
    scratch.reset(slots);
    let mut cx = Cx {
        prog,
        pkt: packet,
        wire_len,
        s: scratch,
    };
    for i in 0..slots {
        let Some(p) = prog.pass(i) else { continue };
        if p.kind != PassKind::Root {
            continue;
        }
        if !cx.s.faulted_clauses.is_empty() && cx.s.faulted_clauses.contains(&p.clause) {
            continue;
        }
        match cx.pass(i, 0) {
            Ok(true) => return Verdict::Accept,
            Ok(false) => {}
            Err(Fault) => {
                cx.s.faulted = true;
                cx.s.faulted_clauses.push(p.clause);
            }
        }
    }
    Verdict::Reject
}

/// The lean form of a static set: root passes only, no GROUP, at most
/// [`LEAN_MAX_PASSES`] (most static filters). It runs the same walk as [`run`] with
/// the parents' progress in a local array instead of the scratch space's
/// epoch-stamped records.
#[derive(Clone, Debug)]
pub(crate) struct Lean {
    passes: Vec<LeanPass>,
    /// Whether some pass has a parent; without one, no progress is kept.
    hier: bool,
}

/// Most root passes a [`Lean`] form holds.
pub(crate) const LEAN_MAX_PASSES: usize = 64;

#[derive(Clone, Debug)]
struct LeanPass {
    /// Whether a later pass is this one's child (its progress must be kept).
    has_child: bool,
    /// The parent's index, if it is an earlier pass.
    parent: Option<u8>,
}

impl Lean {
    /// The lean form of `d`, if every pass is a root pass without GROUP.
    pub(crate) fn new(d: &Decoded) -> Option<Lean> {
        if d.passes.len() > LEAN_MAX_PASSES {
            return None;
        }
        let group = |s: &Step| matches!(s.op, Op::Group { .. });
        if d.passes
            .iter()
            .any(|p| p.kind != PassKind::Root || p.steps.iter().any(group))
        {
            return None;
        }
        let mut passes: Vec<LeanPass> = d
            .passes
            .iter()
            .enumerate()
            .map(|(i, p)| LeanPass {
                has_child: false,
                parent: p.parent.filter(|&q| (q as usize) < i).map(|q| q as u8),
            })
            .collect();
        for i in 0..passes.len() {
            if let Some(q) = passes[i].parent {
                passes[q as usize].has_child = true;
            }
        }
        let hier = passes.iter().any(|p| p.parent.is_some());
        Some(Lean { passes, hier })
    }

    pub(crate) fn run(
        &self,
        prog: &Static<'_>,
        scratch: &mut Scratch,
        packet: &[u8],
        wire_len: u32,
    ) -> Verdict {
        // An empty first pass accepts every packet before anything is loaded.
        if prog
            .decoded
            .passes
            .first()
            .is_some_and(|p| p.steps.is_empty())
        {
            scratch.reset_anchors();
            return Verdict::Accept;
        }
        if self.hier {
            self.walk::<true>(prog, scratch, packet, wire_len)
        } else {
            self.walk::<false>(prog, scratch, packet, wire_len)
        }
    }

    fn walk<const HIER: bool>(
        &self,
        prog: &Static<'_>,
        scratch: &mut Scratch,
        packet: &[u8],
        wire_len: u32,
    ) -> Verdict {
        scratch.reset_anchors();
        let mut cx = Cx {
            prog,
            pkt: packet,
            wire_len,
            s: scratch,
        };
        let pool = &prog.decoded.pool[..];
        // Where each pass failed (`u8::MAX`: not run). A pass that accepts ends the walk.
        let mut failed_at = [u8::MAX; LEAN_MAX_PASSES];
        'passes: for (i, (p, d)) in self.passes.iter().zip(&prog.decoded.passes).enumerate() {
            // The parent always ran (an earlier root pass that did not accept).
            let parent = if HIER {
                p.parent.map(|q| failed_at[q as usize] as usize)
            } else {
                None
            };
            for (k, st) in d.steps.iter().enumerate() {
                let ok = if let Some(parent) = parent.filter(|&f| st.copied && k <= f) {
                    // The parent passed this instruction, or failed on it.
                    k < parent
                } else {
                    cx.s.steps += 1;
                    match st.op.test(st.negate, pool, &mut cx) {
                        Ok(b) => b,
                        Err(Fault) => {
                            cx.s.faulted = true;
                            return Verdict::Reject;
                        }
                    }
                };
                if !ok {
                    if HIER && p.has_child {
                        failed_at[i] = k as u8;
                    }
                    continue 'passes;
                }
            }
            return Verdict::Accept;
        }
        Verdict::Reject
    }
}

struct Cx<'a, P: Program + ?Sized> {
    prog: &'a P,
    pkt: &'a [u8],
    wire_len: u32,
    s: &'a mut Scratch,
}

impl<P: Program + ?Sized> Env for Cx<'_, P> {
    /// Anchor `a`, from the per-packet cache or resolved into it.
    #[inline(always)]
    fn anchor(&mut self, a: u8) -> Result<Option<u32>, Fault> {
        if a == 0 {
            // The packet start: no cache lookup.
            return Ok(Some(0));
        }
        let a = a as usize;
        if self.s.anchor_valid & (1 << a) != 0 {
            let v = self.s.anchor_val[a];
            return Ok((v != NO_ANCHOR).then_some(v));
        }
        let v = self.resolve(a)?;
        self.s.anchor_valid |= 1 << a;
        self.s.anchor_val[a] = v.unwrap_or(NO_ANCHOR);
        Ok(v)
    }
    fn anchor_offset(&self, a: u8) -> Option<u32> {
        self.prog.anchor(a as usize).map(|x| x.offset() as u32)
    }
    #[inline(always)]
    fn packet(&self) -> &[u8] {
        self.pkt
    }
    #[inline(always)]
    fn wire_len(&self) -> u32 {
        self.wire_len
    }
    fn contains(&self, table: u32, key: u64) -> Option<bool> {
        self.prog.contains(table, key)
    }
}

impl<P: Program + ?Sized> Cx<'_, P> {
    /// Runs pass `idx` (once per packet: a second call returns the saved result).
    fn pass(&mut self, idx: usize, depth: usize) -> Result<bool, Fault> {
        if let Some(st) = self.s.state(idx) {
            return Ok(st & ACCEPTED != 0);
        }
        let Some(pass) = self.prog.pass(idx) else {
            return Ok(false);
        };
        // The parent's progress, if it ran for this packet as the version visible now:
        // copied instructions below it succeeded there, the one at it failed there.
        let parent = pass
            .parent
            .map(|p| p as usize)
            .filter(|&p| p < idx)
            .and_then(|p| {
                let st = self.s.state(p)?;
                let pp = self.prog.pass(p)?;
                (self.s.pass_node[p] == pp.id).then_some((st & !ACCEPTED, pp))
            });
        for (i, step) in pass.steps.iter().enumerate() {
            let reuse = match &parent {
                Some((progress, pp)) if (i as u32) <= *progress && step.copied => {
                    // Every slot the instruction reads (an ARITH's CONT slots too)
                    // must be the parent's version.
                    let same = match (pass.stamps, pp.stamps) {
                        (Some(a), Some(b)) => (i..i + step.span as usize)
                            .all(|j| b.get(j).is_some_and(|&s| a.get(j) == Some(&s))),
                        _ => true,
                    };
                    (same && i < pp.steps.len()).then_some((i as u32) < *progress)
                }
                _ => None,
            };
            let ok = match (reuse, step.op) {
                (Some(r), _) => r,
                (None, Op::Group { first, count }) => {
                    self.s.steps += 1;
                    match self.group(first, count, idx, depth)? {
                        Some(hit) => hit != step.negate,
                        None => false,
                    }
                }
                (None, op) => {
                    self.s.steps += 1;
                    op.test(step.negate, pass.pool, self)?
                }
            };
            if !ok {
                self.s.set_state(idx, i as u32, pass.id);
                return Ok(false);
            }
        }
        self.s
            .set_state(idx, pass.steps.len() as u32 | ACCEPTED, pass.id);
        Ok(true)
    }

    fn resolve(&mut self, a: usize) -> Result<Option<u32>, Fault> {
        let Some(anchor) = self.prog.anchor(a) else {
            return Ok(None);
        };
        let parent = anchor.parent();
        let Some(rule) = anchor.rule() else {
            return Ok(None);
        };
        if parent as usize >= a {
            return Ok(None);
        }
        let Some(pv) = self.anchor(parent)? else {
            return Ok(None);
        };
        let h = pv.checked_add(anchor.offset() as u32).ok_or(Fault)?;
        apply_rule(rule, self.pkt, h).map(Some)
    }

    /// GROUP: whether a Sub pass of its range accepts; `None` for an invalid range.
    fn group(
        &mut self,
        first: u32,
        count: u32,
        pass: usize,
        depth: usize,
    ) -> Result<Option<bool>, Fault> {
        let Some(range) = group_range(first, count, pass, self.prog.slots(), depth) else {
            return Ok(None);
        };
        for j in range {
            if self.prog.pass(j).map(|p| p.kind) != Some(PassKind::Sub) {
                continue;
            }
            if self.pass(j, depth + 1)? {
                return Ok(Some(true));
            }
        }
        Ok(Some(false))
    }
}
