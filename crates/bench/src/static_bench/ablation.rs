//! The paper's ablation (Table 7) as transforms of a compiled [`PassSet`]:
//! [`no_simd`] ("less-optimised": no SIMD operands) and [`no_simd_no_hierarchy`]
//! ("unoptimised": no SIMD operands and no hierarchical execution).
//!
//! **No SIMD.** Every EQ, MEQ or EQ2 instruction with `n > 1` operands becomes `n`
//! single-operand instructions:
//!
//! - a negated one (`not f in {a, b, c}`) becomes `n` negated instructions in the
//!   same pass, one after the other (an AND of "not equal");
//! - a non-negated one splits its pass into `n` passes that differ only in that
//!   instruction, one per value (an OR of passes). Passes `2..n` become children of
//!   the first, with the shared prefix marked `copied`, so hierarchical execution
//!   reuses the prefix's results as the seeds' FTPCap pass duplication does.
//!
//! A pass that grows past [`MAX_INSNS`] keeps its first 31 instructions and moves the
//! rest into a sub-pass reached by a GROUP instruction (recursively if the rest is
//! still too long). Sub-passes, old (named by GROUP instructions of the input) and new,
//! are laid out after all root passes, each GROUP's range contiguous, and GROUP
//! operands are renumbered. A `copied` mark is kept only where the parent holds the
//! same image at the same index, which is exactly when reusing the parent's result
//! is sound; everything else is evaluated.
//!
//! **No hierarchy** additionally clears every `copied` mark and every parent.
//!
//! Both transforms keep the verdict of every packet whose fields all lie inside the
//! captured bytes (checked on generated traces by `tests/static_bench.rs`). They can
//! differ on one kind of truncated packet only: an EQ2 (`host`/`port` without a
//! direction) reads its second field only when the first matches none of its values;
//! a single-value split reads it when the first field differs from *that* value, so a
//! packet cut between the two fields may fault (reject) where the original decided on
//! the first field.

use std::collections::{HashMap, VecDeque};

use netsift_isa::insn::{build, Opcode};
use netsift_isa::{Instruction, PassKind, PassSet, UpdateError, MAX_INSNS};

/// The set without SIMD operands (see the module documentation).
pub fn no_simd(set: &PassSet) -> Result<PassSet, UpdateError> {
    Layout::new(set).run()
}

/// The set without SIMD operands and without hierarchical execution.
pub fn no_simd_no_hierarchy(set: &PassSet) -> Result<PassSet, UpdateError> {
    Ok(no_hierarchy(&no_simd(set)?))
}

/// The set with every `copied` mark and every parent removed: each pass evaluates
/// all its instructions itself.
pub fn no_hierarchy(set: &PassSet) -> PassSet {
    let passes = set
        .passes()
        .iter()
        .map(|p| {
            let insns = p
                .instructions()
                .iter()
                .map(|i| i.with_copied(false))
                .collect();
            (p.kind, None, insns)
        })
        .collect();
    let out =
        PassSet::from_raw(passes, set.anchors().to_vec()).expect("same structure as a valid set");
    with_tables(out, set).expect("as many tables as a valid set")
}

/// `out` with `from`'s key tables, at the same indices: a SET stays a SET (a table
/// lookup, not SIMD operands), and its p1 must still name its table.
fn with_tables(mut out: PassSet, from: &PassSet) -> Result<PassSet, UpdateError> {
    for t in from.tables() {
        out.add_table(t.keys().iter().copied())?;
    }
    Ok(out)
}

/// The single-operand instructions an EQ/MEQ/EQ2 image with more than one operand
/// splits into; `None` for anything else.
fn singles(insn: &Instruction) -> Option<Vec<Instruction>> {
    let (first, size, n, _cap) = insn.operand_slots()?;
    if n <= 1 {
        return None;
    }
    let mut base = insn.with_count(1);
    for word in first..8 {
        base.0[word] = 0;
    }
    Some(
        (0..n)
            .map(|i| base.with_operand(first, size, 0, insn.operand(first, size, i)))
            .collect(),
    )
}

/// One pass of the output being built: `want[i]` says instruction `i` may keep a
/// `copied` mark (it is validated against the parent at the end).
#[derive(Clone, Debug)]
struct Variant {
    insns: Vec<Instruction>,
    want: Vec<bool>,
    /// Parent among the variants of the same input pass (local index); `None` for the
    /// first variant, which inherits the input pass's parent.
    parent: Option<usize>,
}

/// The variants one input pass expands into, parents before children.
fn expand(insns: &[Instruction]) -> Vec<Variant> {
    let mut vs = vec![Variant {
        insns: Vec::new(),
        want: Vec::new(),
        parent: None,
    }];
    for insn in insns {
        match singles(insn) {
            None => {
                for v in &mut vs {
                    v.insns.push(*insn);
                    v.want.push(insn.copied());
                }
            }
            Some(list) if insn.negated() => {
                for v in &mut vs {
                    for s in &list {
                        v.insns.push(*s);
                        v.want.push(insn.copied());
                    }
                }
            }
            Some(list) => {
                let mut out = Vec::with_capacity(vs.len() * list.len());
                let mut remap = vec![0usize; vs.len()];
                for (k, v) in vs.into_iter().enumerate() {
                    let first = out.len();
                    remap[k] = first;
                    for (j, s) in list.iter().enumerate() {
                        let mut insns = v.insns.clone();
                        insns.push(*s);
                        let (mut want, parent) = if j == 0 {
                            (v.want.clone(), v.parent.map(|p| remap[p]))
                        } else {
                            (vec![true; v.insns.len()], Some(first))
                        };
                        want.push(j == 0 && insn.copied());
                        out.push(Variant {
                            insns,
                            want,
                            parent,
                        });
                    }
                }
                vs = out;
            }
        }
    }
    vs
}

/// A pass of the output.
struct Out {
    kind: PassKind,
    parent: Option<usize>,
    insns: Vec<Instruction>,
    want: Vec<bool>,
}

/// A GROUP instruction of the output whose operands are not known yet.
enum Pending {
    /// Names the input's sub-passes `first .. first + count`.
    Input {
        at: (usize, usize),
        first: u32,
        count: u32,
    },
    /// The tail of a pass that was too long.
    Tail {
        at: (usize, usize),
        insns: Vec<Instruction>,
    },
}

struct Layout<'a> {
    input: &'a PassSet,
    out: Vec<Out>,
    pending: VecDeque<Pending>,
    /// Input GROUP ranges already laid out, so GROUPs naming the same range (a
    /// child's copy of its parent's GROUP) keep identical images.
    ranges: HashMap<(u32, u32), (u32, u32)>,
}

impl<'a> Layout<'a> {
    fn new(input: &'a PassSet) -> Layout<'a> {
        Layout {
            input,
            out: Vec::new(),
            pending: VecDeque::new(),
            ranges: HashMap::new(),
        }
    }

    fn run(mut self) -> Result<PassSet, UpdateError> {
        let input = self.input;
        // Root passes, in order; an input pass's first variant stands for it as a
        // parent of later passes.
        let mut first_of: HashMap<usize, usize> = HashMap::new();
        for (i, p) in input.passes().iter().enumerate() {
            if p.kind != PassKind::Root {
                continue;
            }
            let parent = p.parent.and_then(|q| first_of.get(&(q as usize)).copied());
            let idx = self.emit_variants(PassKind::Root, p.instructions(), parent);
            first_of.insert(i, idx);
        }
        while let Some(job) = self.pending.pop_front() {
            match job {
                Pending::Input { at, first, count } => {
                    let (f, c) = match self.ranges.get(&(first, count)) {
                        Some(&r) => r,
                        None => {
                            let r = self.lay_out_range(first, count);
                            self.ranges.insert((first, count), r);
                            r
                        }
                    };
                    self.patch_group(at, f, c);
                }
                Pending::Tail { at, insns } => {
                    let want = vec![false; insns.len()];
                    let idx = self.push(PassKind::Sub, None, insns, want);
                    self.patch_group(at, idx as u32, 1);
                }
            }
        }
        self.finish()
    }

    /// Lays out the input's sub-passes `first .. first + count` (each expanded),
    /// contiguously at the end; returns the new range.
    fn lay_out_range(&mut self, first: u32, count: u32) -> (u32, u32) {
        let input = self.input;
        let start = self.out.len();
        let end = (first as usize).saturating_add(count as usize);
        let mut first_of: HashMap<usize, usize> = HashMap::new();
        for j in first as usize..end.min(input.passes().len()) {
            let p = &input.passes()[j];
            if p.kind != PassKind::Sub {
                // The engine skips roots inside a GROUP range.
                continue;
            }
            let parent = p.parent.and_then(|q| first_of.get(&(q as usize)).copied());
            let idx = self.emit_variants(PassKind::Sub, p.instructions(), parent);
            first_of.insert(j, idx);
        }
        (start as u32, (self.out.len() - start) as u32)
    }

    /// Emits the variants of one input pass; returns the index of the first.
    fn emit_variants(
        &mut self,
        kind: PassKind,
        insns: &[Instruction],
        parent: Option<usize>,
    ) -> usize {
        let base = self.out.len();
        for v in expand(insns) {
            let parent = match v.parent {
                Some(local) => Some(base + local),
                None => parent,
            };
            self.push(kind, parent, v.insns, v.want);
        }
        base
    }

    /// Appends a pass, splitting a long one and queueing its GROUPs; returns its index.
    fn push(
        &mut self,
        kind: PassKind,
        parent: Option<usize>,
        mut insns: Vec<Instruction>,
        mut want: Vec<bool>,
    ) -> usize {
        let idx = self.out.len();
        let mut tail = None;
        if insns.len() > MAX_INSNS {
            let rest = insns.split_off(MAX_INSNS - 1);
            want.truncate(MAX_INSNS - 1);
            insns.push(build::group(0, 0));
            want.push(false);
            tail = Some(rest);
        }
        for (i, insn) in insns.iter().enumerate() {
            if tail.is_some() && i == MAX_INSNS - 1 {
                break;
            }
            if insn.decode().opcode == Some(Opcode::Group) {
                self.pending.push_back(Pending::Input {
                    at: (idx, i),
                    first: insn.p(1),
                    count: insn.p(2),
                });
            }
        }
        if let Some(rest) = tail {
            self.pending.push_back(Pending::Tail {
                at: (idx, MAX_INSNS - 1),
                insns: rest,
            });
        }
        self.out.push(Out {
            kind,
            parent,
            insns,
            want,
        });
        idx
    }

    fn patch_group(&mut self, at: (usize, usize), first: u32, count: u32) {
        let insn = &mut self.out[at.0].insns[at.1];
        insn.0[1] = first;
        insn.0[2] = count;
    }

    /// Validates the `copied` marks against the parents and builds the set.
    fn finish(self) -> Result<PassSet, UpdateError> {
        let strip = |i: &Instruction| i.with_copied(false);
        let mut passes = Vec::with_capacity(self.out.len());
        for (idx, p) in self.out.iter().enumerate() {
            let parent = p.parent.filter(|&q| q < idx);
            let insns = p
                .insns
                .iter()
                .enumerate()
                .map(|(i, insn)| {
                    let same = parent.is_some_and(|q| {
                        self.out[q]
                            .insns
                            .get(i)
                            .is_some_and(|pi| strip(pi) == strip(insn))
                    });
                    insn.with_copied(p.want[i] && same)
                })
                .collect();
            passes.push((p.kind, parent.map(|q| q as u16), insns));
        }
        with_tables(
            PassSet::from_raw(passes, self.input.anchors().to_vec())?,
            self.input,
        )
    }
}
