//! The batch engine's view of a pass set, built once when it is loaded.

use crate::op::{Decoded, Field, Op, Pair};
use netsift_isa::insn::Size;
use netsift_isa::{Anchor, AnchorRule, PassKind, MAX_ANCHORS};

/// How one instruction runs over lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    /// A decoded EQ/MEQ/EQ2/RANGE/LEN, run lane-wise.
    Fast(Op),
    /// GROUP over passes `first .. first + count`, run by the walker.
    Group { first: u32, count: u32 },
    /// SET whose key table exists, run lane-wise (`super::set`).
    Set(Op),
    /// Everything else: the operation's per-packet test ([`Op::test`]), one lane
    /// at a time.
    Scalar(Op),
    /// A run of negated EQ/MEQ (`second: None`) or negated either-field EQ2s
    /// (`second: Some(delta)`) on one field, fused: "the field is in none of the
    /// sets". Operands `first` are the run's first instruction's, `all` the union of
    /// every instruction's (both `(start, n)` in [`Form::pool`]).
    ///
    /// Exact, loads included: the run passes iff no set holds the field (nor, for
    /// EQ2, the second field), and the unfused run loads the second field exactly
    /// when the first field is not in the *first* set (a later instruction is
    /// reached only then), so that is when the fused one loads it too.
    NotIn(NotIn),
    /// A run of two or more EQ/MEQ tests on fields at fixed offsets (anchor 0), not
    /// copied, in a pass without children: [`Form::directs`]`[i]`. Filters open
    /// with such runs (EtherType, IP protocol, fragment offset, addresses); under
    /// the batch's length guard every field of the run loads in one pass over the
    /// lanes (see `super::direct`).
    Direct(u32),
}

/// Most tests in one [`Kind::Direct`] run (longer runs are cut into several).
pub(crate) const DIRECT_MAX: usize = 4;

/// The tests of a [`Kind::Direct`] run, in pass order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Direct {
    /// Each test (an `Op::Eq` at anchor 0) and its negation flag; `n` are used.
    pub tests: [(Op, bool); DIRECT_MAX],
    pub n: u8,
    /// The captured bytes every packet of a batch needs for the one-pass load,
    /// which reads 4 bytes at each field's offset whatever its size.
    pub end: u64,
    /// For the one-pass load, per test: the offset, the mask moved to the field's
    /// place in the 4-byte word read there, and the operands moved likewise
    /// (`(start, n)` in [`Form::pool`]), so no lane shifts its word.
    pub words: [(u32, u32, (u32, u32)); DIRECT_MAX],
}

/// The field and operand sets of a fused run ([`Kind::NotIn`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NotIn {
    pub anchor: u8,
    pub off: u32,
    pub size: Size,
    pub mask: u32,
    pub second: Option<u32>,
    pub first: (u32, u32),
    pub all: (u32, u32),
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct BOp {
    pub kind: Kind,
    pub negate: bool,
    pub copied: bool,
    /// The instruction's index in its pass as written (for a fused run, its
    /// first's). Fusing shifts the ops after a run, so the parent's results are
    /// found by this index, not by the op's position.
    pub at: u8,
}

#[derive(Clone, Debug)]
pub(crate) struct BPass {
    pub kind: PassKind,
    /// The parent, kept only if it is an earlier pass (as the per-packet engine
    /// requires before it reuses results).
    pub parent: Option<usize>,
    /// Whether a later pass names this one as parent: its per-instruction masks must
    /// be kept.
    pub has_child: bool,
    pub ops: Vec<BOp>,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Form {
    pub passes: Vec<BPass>,
    /// The root passes, in order.
    pub roots: Vec<usize>,
    /// Operands: the decoded set's pool, then the unions of fused runs.
    pub pool: Vec<u32>,
    /// The first root pass is empty: every packet is accepted before anything is
    /// loaded (as the per-packet engine does).
    pub accept_all: bool,
    /// Whether prefetching the next batch pays ([`crate::Compiled::prefetch`]): not
    /// for a set of at most one instruction, whose batch is over before a prefetch
    /// could help and which the hardware prefetcher keeps fed (measured: filter 2,
    /// `ip`, ran 8% slower with it; filters 3-6 ran 4-10% faster).
    pub prefetch: bool,
    /// Every pass is a root pass without parent or children and no instruction is a
    /// GROUP (most static filters): the walk needs no per-pass records
    /// (`super::walk::Run::lean`).
    pub lean: bool,
    /// The runs of fixed-offset tests ([`Kind::Direct`]).
    pub directs: Vec<Direct>,
    /// Each anchor decoded: (parent, rule, offset), or `None` for one that never
    /// resolves (no such entry, an undefined rule, a parent that is not earlier).
    pub anchors: Vec<Option<(usize, AnchorRule, u32)>>,
}

impl Form {
    pub(crate) fn new(decoded: &Decoded, anchors: &[Anchor], tables: usize) -> Form {
        let mut passes: Vec<BPass> = decoded
            .passes
            .iter()
            .enumerate()
            .map(|(i, p)| BPass {
                kind: p.kind,
                parent: p.parent.map(usize::from).filter(|&q| q < i),
                has_child: false,
                ops: p
                    .steps
                    .iter()
                    .enumerate()
                    .map(|(k, st)| BOp {
                        kind: match st.op {
                            Op::Group { first, count } => Kind::Group { first, count },
                            op @ (Op::Eq { .. }
                            | Op::Eq2 { .. }
                            | Op::Range { .. }
                            | Op::Len { .. }) => Kind::Fast(op),
                            op @ Op::Set { start, .. }
                                if (decoded.pool[start as usize] as usize) < tables =>
                            {
                                Kind::Set(op)
                            }
                            op => Kind::Scalar(op),
                        },
                        negate: st.negate,
                        copied: st.copied,
                        // A pass holds at most MAX_INSNS (32) instructions.
                        at: k as u8,
                    })
                    .collect(),
            })
            .collect();
        for i in 0..passes.len() {
            if let Some(q) = passes[i].parent {
                passes[q].has_child = true;
            }
        }
        let roots: Vec<usize> = (0..passes.len())
            .filter(|&i| passes[i].kind == PassKind::Root)
            .collect();
        let mut pool = decoded.pool.clone();
        let mut directs = Vec::new();
        for p in &mut passes {
            // A pass with children keeps one result per instruction for them to
            // reuse, so its instructions stay as they are.
            if !p.has_child {
                p.ops = fuse_direct(&fuse(&p.ops, &mut pool), &mut pool, &mut directs);
            }
        }
        let accept_all = roots.first().is_some_and(|&i| passes[i].ops.is_empty());
        let prefetch = passes.iter().map(|p| p.ops.len()).sum::<usize>() > 1;
        let anchors = (0..MAX_ANCHORS)
            .map(|a| {
                let x = anchors.get(a)?;
                let parent = x.parent() as usize;
                (parent < a).then_some((parent, x.rule()?, x.offset() as u32))
            })
            .collect();
        let lean = passes.iter().all(|p| {
            p.kind == PassKind::Root
                && p.parent.is_none()
                && !p.has_child
                && !p.ops.iter().any(|o| matches!(o.kind, Kind::Group { .. }))
        });
        Form {
            passes,
            roots,
            pool,
            accept_all,
            prefetch,
            lean,
            directs,
            anchors,
        }
    }
}

/// A tested field: anchor, offset, size, mask, and the second field's delta.
type FusedField = (u8, u32, Size, u32, Option<u32>);

/// The field a negated instruction tests, if it can join a fused run, and its
/// operands `(start, n)`.
fn negated_field(op: &BOp) -> Option<(FusedField, (u32, u32))> {
    if !op.negate || op.copied {
        return None;
    }
    match op.kind {
        Kind::Fast(Op::Eq { field: f, ops, .. }) => {
            Some(((f.anchor, f.off, f.size, f.mask, None), (ops.start, ops.n)))
        }
        // Both fields must match for `both`: a union of sets does not say that.
        Kind::Fast(Op::Eq2 {
            field: f,
            pair: Pair { delta, both: false },
            ops,
            ..
        }) => Some((
            (f.anchor, f.off, f.size, f.mask, Some(delta.into())),
            (ops.start, ops.n),
        )),
        _ => None,
    }
}

/// Replaces each run of two or more negated instructions on one field by one
/// [`Kind::NotIn`].
fn fuse(ops: &[BOp], pool: &mut Vec<u32>) -> Vec<BOp> {
    let mut out = Vec::with_capacity(ops.len());
    let mut i = 0;
    while i < ops.len() {
        let Some((field, first)) = negated_field(&ops[i]) else {
            out.push(ops[i]);
            i += 1;
            continue;
        };
        let mut j = i + 1;
        while j < ops.len() && negated_field(&ops[j]).is_some_and(|(f, _)| f == field) {
            j += 1;
        }
        if j - i < 2 {
            out.push(ops[i]);
            i += 1;
            continue;
        }
        let start = pool.len() as u32;
        for op in &ops[i..j] {
            let (_, (s, n)) = negated_field(op).expect("checked above");
            pool.extend_from_within(s as usize..(s + n) as usize);
        }
        let (anchor, off, size, mask, second) = field;
        out.push(BOp {
            kind: Kind::NotIn(NotIn {
                anchor,
                off,
                size,
                mask,
                second,
                first,
                all: (start, pool.len() as u32 - start),
            }),
            negate: false,
            copied: false,
            at: ops[i].at,
        });
        i = j;
    }
    out
}

/// The test of `op` if it can join a [`Kind::Direct`] run: an EQ/MEQ at anchor 0,
/// evaluated (not copied).
fn direct_test(op: &BOp) -> Option<(Op, bool)> {
    match op.kind {
        Kind::Fast(t @ Op::Eq { field, .. }) if field.anchor == 0 && !op.copied => {
            Some((t, op.negate))
        }
        _ => None,
    }
}

/// Replaces each run of two or more fixed-offset tests by [`Kind::Direct`] ops of
/// at most [`DIRECT_MAX`] tests each, recorded in `directs`. A single test stays
/// as it is: fused, it ran fewer instructions but measured slower (filter 2, `ip`,
/// docs/BENCHMARKS.md).
fn fuse_direct(ops: &[BOp], pool: &mut Vec<u32>, directs: &mut Vec<Direct>) -> Vec<BOp> {
    let mut out = Vec::with_capacity(ops.len());
    let mut i = 0;
    while i < ops.len() {
        let mut j = i;
        while j < ops.len() && j - i < DIRECT_MAX && direct_test(&ops[j]).is_some() {
            j += 1;
        }
        if j - i < 2 {
            out.push(ops[i]);
            i += 1;
            continue;
        }
        let mut d = Direct {
            tests: [(Op::Invalid, false); DIRECT_MAX],
            n: (j - i) as u8,
            end: 0,
            words: [(0, 0, (0, 0)); DIRECT_MAX],
        };
        for ((slot, word), op) in d.tests.iter_mut().zip(&mut d.words).zip(&ops[i..j]) {
            *slot = direct_test(op).expect("checked above");
            if let (Op::Eq { field, ops, .. }, _) = *slot {
                let Field {
                    off, size, mask, ..
                } = field;
                let (start, n) = (ops.start, ops.n);
                d.end = d.end.max(off as u64 + 4);
                // A field of `size` bytes is the top of the 4-byte word at its offset.
                let shift = 32 - 8 * size.bytes();
                let at = pool.len() as u32;
                // The test is `field & mask == v`: an operand with bits outside the
                // mask never matches, so it is left out rather than masked (masked,
                // it would match: MEQ with mask 0 and operand 0x83 is never true).
                for i in start..start + n {
                    let v = pool[i as usize];
                    if v & !mask == 0 {
                        pool.push(v << shift);
                    }
                }
                let kept = pool.len() as u32 - at;
                *word = (off, mask << shift, (at, kept));
            }
        }
        out.push(BOp {
            kind: Kind::Direct(directs.len() as u32),
            negate: false,
            copied: false,
            at: ops[i].at,
        });
        directs.push(d);
        i = j;
    }
    out
}
