//! Walking the passes of a batch: the per-packet engine's order, on lane masks.

use super::form::{BOp, Form, Kind};
use super::{BatchScratch, Lanes, Mask};
use crate::op::group_range;
use crate::simd::Simd;
use netsift_isa::{PassKind, PassSet};

pub(crate) struct Run<'a> {
    pub form: &'a Form,
    /// The set's key tables, for SET.
    pub set: &'a PassSet,
    pub s: &'a mut BatchScratch,
    pub lanes: Lanes<'a>,
    pub simd: Simd,
}

impl<'a> Run<'a> {
    pub(super) fn new(
        form: &'a Form,
        set: &'a PassSet,
        simd: Simd,
        s: &'a mut BatchScratch,
        lanes: Lanes<'a>,
    ) -> Run<'a> {
        Run {
            form,
            set,
            s,
            lanes,
            simd,
        }
    }

    /// The lanes the pass set accepts: root passes in order, each run only for the
    /// lanes no earlier root pass accepted.
    pub(super) fn all(self) -> Mask {
        self.roots(|r, i, pending| r.pass(i, pending, 0))
    }

    /// [`all`](Self::all) for a [`lean`](super::form::Form::lean) set: each root
    /// pass runs once, in order, so nothing needs recording between passes (the
    /// per-pass epochs, "ran" and "accepted" masks are for GROUP members and
    /// parents).
    pub(super) fn lean(self) -> Mask {
        self.roots(|r, i, pending| {
            let mut live = pending;
            for op in &r.form.passes[i].ops {
                if live == 0 {
                    break;
                }
                live &= r.op(i, op, live, 0) & !r.s.dead;
            }
            live
        })
    }

    /// The root passes in order, `run(pass, pending lanes)` giving the lanes each
    /// accepts; a pass runs only for the lanes no earlier one accepted.
    #[inline(always)]
    fn roots(mut self, mut run: impl FnMut(&mut Self, usize, Mask) -> Mask) -> Mask {
        let form = self.form;
        let mut pending = self.lanes.all;
        let mut accepted = 0;
        for &i in &form.roots {
            if pending == 0 {
                break;
            }
            let a = run(&mut self, i, pending);
            accepted |= a;
            pending &= !a & !self.s.dead;
        }
        accepted & !self.s.dead
    }

    /// Runs pass `idx` for the lanes `want`; returns those of them it accepts. A lane
    /// that already ran it in this batch (a GROUP member named twice) gets its saved
    /// result, as in the per-packet engine.
    fn pass(&mut self, idx: usize, want: Mask, depth: usize) -> Mask {
        let form = self.form;
        let p = &form.passes[idx];
        let epoch = self.s.epoch;
        if self.s.pass_epoch[idx] != epoch {
            self.s.pass_epoch[idx] = epoch;
            self.s.ran[idx] = 0;
            self.s.accepted[idx] = 0;
            if p.has_child {
                self.s.passed[idx][..p.ops.len()].fill(0);
                self.s.failed[idx][..p.ops.len()].fill(0);
            }
        }
        let todo = want & !self.s.ran[idx] & !self.s.dead;
        let mut live = todo;
        // The parent's per-instruction results count only if it ran in this batch.
        let parent = p
            .parent
            .filter(|&q| self.s.pass_epoch[q] == epoch)
            .map(|q| (q, form.passes[q].ops.len()));
        for op in &p.ops {
            if live == 0 {
                break;
            }
            // The index as written: ops after a fused run have moved up.
            let k = op.at as usize;
            let mut ok = 0;
            let mut eval = live;
            if let Some((q, _)) = parent.filter(|&(_, qlen)| op.copied && k < qlen) {
                // Only lanes for which the parent finished: a parent still running
                // (this pass is a member of its GROUP) has no result to lend yet.
                let done = self.s.ran[q] & eval;
                let yes = self.s.passed[q][k] & done;
                let no = self.s.failed[q][k] & done;
                ok = yes;
                eval &= !(yes | no);
            }
            if eval != 0 {
                ok |= self.op(idx, op, eval, depth);
            }
            ok &= !self.s.dead;
            if p.has_child {
                self.s.passed[idx][k] |= live & ok;
                self.s.failed[idx][k] |= live & !ok & !self.s.dead;
            }
            live &= ok;
        }
        self.s.ran[idx] |= todo & !self.s.dead;
        self.s.accepted[idx] |= live;
        self.s.accepted[idx] & want & !self.s.dead
    }

    /// One instruction for the lanes `eval`: the lanes where it is true.
    fn op(&mut self, idx: usize, op: &BOp, eval: Mask, depth: usize) -> Mask {
        match op.kind {
            Kind::Fast(f) => self.fast(f, op.negate, eval),
            Kind::Group { first, count } => match self.group(idx, first, count, eval, depth) {
                // An invalid GROUP is false whatever its negation flag says.
                None => 0,
                Some(hit) if op.negate => eval & !hit & !self.s.dead,
                Some(hit) => hit,
            },
            Kind::Scalar(o) => self.scalar(o, op.negate, eval),
            Kind::Set(o) => self.set(o, op.negate, eval),
            Kind::NotIn(f) => self.not_in(f, eval),
            Kind::Direct(i) => self.direct(i as usize, eval),
        }
    }

    /// GROUP: the lanes some Sub pass of the range accepts (members in order, each
    /// only for lanes no earlier member accepted). `None` for a range the
    /// per-packet engine refuses.
    fn group(
        &mut self,
        idx: usize,
        first: u32,
        count: u32,
        eval: Mask,
        depth: usize,
    ) -> Option<Mask> {
        let range = group_range(first, count, idx, self.form.passes.len(), depth)?;
        let mut hit = 0;
        let mut rest = eval;
        for j in range {
            if rest == 0 {
                break;
            }
            if self.form.passes[j].kind != PassKind::Sub {
                continue;
            }
            let a = self.pass(j, rest, depth + 1);
            hit |= a;
            rest &= !a & !self.s.dead;
        }
        Some(hit & !self.s.dead)
    }
}
