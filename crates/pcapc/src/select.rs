//! Instruction selection: normal form → PassSet.
//!
//! * An AND becomes a sequence of instructions (a pass); an OR becomes alternative
//!   passes. Distribution (DNF) is used while the number of alternatives stays under
//!   [`DNF_BUDGET`]; past it, an OR becomes a GROUP instruction over sub-passes, so
//!   the program grows linearly with the expression whatever its shape.
//! * SIMD packing: an OR of equality tests on one field becomes one EQ instruction
//!   with several operands; `src or dst` pairs become EQ2; alternatives that differ
//!   only in such a last test are merged (`port (22 or 80 or 25)` is one EQ2).
//! * Hierarchical sharing: a pass that starts with the same instructions as an earlier
//!   pass becomes its child, its shared prefix marked `copied`.
//! * Faithful loads: an OR followed by more tests is distributed only if retrying a
//!   later alternative after an earlier one held cannot fault (libpcap never runs it
//!   there); otherwise it is a GROUP. `byte N & M` tests the field the previous test
//!   on its path loaded (libpcap's accumulator). Each group is laid out once, after
//!   every pass that names it.

use crate::lower::ir::{AnchorSpec, Cmp, Loc, Pred, Test, Val};
use crate::nnf::{dual, Nnf};
use netsift_isa::insn::{build, ArithOp, Opcode, MAX_OFFSET};
use netsift_isa::{
    Anchor, AnchorRule, IndexMode, Instruction, PassKind, PassSet, Size, MAX_GROUP_DEPTH, MAX_INSNS,
};
use std::collections::HashMap;
use std::rc::Rc;

/// How many earlier passes of its block a pass compares itself with to find a parent.
const PARENT_WINDOW: usize = 16;

/// Most alternatives one AND may distribute into before ORs become GROUPs.
pub(crate) const DNF_BUDGET: usize = 64;

/// Why selection failed; the caller turns it into a positioned error.
#[derive(Debug)]
pub(crate) enum SelectError {
    TooBig(String),
    RejectsAll,
}

/// An instruction before encoding.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Item {
    Lit(Pred, bool),
    /// EQ/MEQ over several values (a packed OR), not negated.
    Set {
        loc: Loc,
        size: Size,
        mask: u32,
        values: Vec<u32>,
    },
    /// EQ2: `f(loc) in values or f(loc + delta) in values`, not negated.
    Either {
        loc: Loc,
        delta: u32,
        size: Size,
        mask: u32,
        values: Vec<u32>,
    },
    Group(Rc<Vec<Seq>>),
    /// A negated `Set` or `Either`: a run of negated equalities gathered into one
    /// instruction (see [`gather_negated`]).
    NotAny(Box<Item>),
}

type Seq = Vec<Item>;

struct Selector<'a> {
    anchors: &'a [AnchorSpec],
    set: PassSet,
    anchor_map: HashMap<(usize, u32), u8>,
}

/// Selects instructions for `nnf` (whose atoms use `anchors`).
pub(crate) fn select(nnf: &Nnf, anchors: &[AnchorSpec]) -> Result<PassSet, SelectError> {
    // A program libpcap does not optimize keeps its tests in order: no merging of
    // alternatives out of order, no "rejects all" (libpcap compiles it as it is).
    let (nnf, opt) = match nnf {
        Nnf::Unoptimized(x) => (&**x, false),
        n => (n, true),
    };
    let factored;
    let nnf = if opt {
        factored = factor(nnf);
        &factored
    } else {
        nnf
    };
    let alts = match nnf {
        Nnf::Const(true) => return Ok(PassSet::accept_all()),
        Nnf::Const(false) => return Err(SelectError::RejectsAll),
        n => alternatives(n, opt, &mut HashMap::new()),
    };
    if opt && alts.iter().all(contradictory) {
        return Err(SelectError::RejectsAll);
    }
    let mut cx = AccCx {
        memo: HashMap::new(),
        copies: 64,
    };
    let alts: Vec<Seq> = alts
        .into_iter()
        .map(|s| resolve_acc(s, None, opt, &mut cx))
        .collect();
    let mut s = Selector {
        anchors,
        set: PassSet::new(),
        anchor_map: HashMap::new(),
    };
    let alts: Vec<Seq> = if opt {
        let mut memo = HashMap::new();
        alts.into_iter()
            .map(|a| gather_negated(a, &mut memo))
            .collect()
    } else {
        alts
    };
    s.layout(&alts)?;
    Ok(s.set)
}

/// A pass set that accepts no packet and loads nothing: one pass whose only test,
/// an empty range of wire lengths, always fails (as a load-free `Pred::Known(false)`
/// is selected). The empty pass set accepts nothing too, but a live set cannot take
/// a clause without passes (`Swift::add`).
pub fn reject_all() -> PassSet {
    let mut set = PassSet::new();
    let insn = build::len(&[(1, 0)]).expect("one range fits");
    set.push_pass(PassKind::Root, None)
        .and_then(|p| set.push_insn(p, insn))
        .expect("one instruction in one pass");
    set
}

/// Factors a disjunctive prefix shared by adjacent conjuncts:
/// `(a or b or X1) and (a or b or X2)` becomes `a or b or (X1 and X2)`.
///
/// This is what `not tcp port (80 or 25)` needs: each `not tcp port N` is `not tcp
/// or fragment or (src port != N and dst port != N)`, and factoring leaves one
/// protocol test and one run of port tests that `gather_negated` packs into one
/// negated EQ2, as libpcap's optimiser does. It keeps every verdict and every fault:
/// the shared tests give the same answer each time they run, and their loads
/// succeeded the first time, so dropping the repeats cannot remove a fault.
fn factor(n: &Nnf) -> Nnf {
    match n {
        Nnf::And(children) => {
            // Factored children are moved, never copied: a copy at every level of a
            // deep nesting would make this quadratic.
            let mut it = children.iter().map(factor).peekable();
            let mut out: Vec<Nnf> = Vec::with_capacity(children.len());
            while let Some(c) = it.next() {
                let first = match c {
                    Nnf::Or(v) if v.len() >= 2 => v,
                    c => {
                        out.push(c);
                        continue;
                    }
                };
                // The longest run of adjacent ORs sharing a non-empty leading prefix,
                // each with something after it.
                let mut common = first.len() - 1;
                let mut run = vec![first];
                while let Some(Nnf::Or(next)) = it.peek() {
                    let k = run[0]
                        .iter()
                        .zip(next.iter())
                        .take_while(|(a, b)| a == b)
                        .count()
                        .min(common)
                        .min(next.len().saturating_sub(1));
                    if k == 0 {
                        break;
                    }
                    common = k;
                    match it.next() {
                        Some(Nnf::Or(next)) => run.push(next),
                        _ => unreachable!("peeked an OR"),
                    }
                }
                if run.len() == 1 {
                    out.push(Nnf::Or(run.pop().expect("one")));
                    continue;
                }
                let rests: Vec<Nnf> = run
                    .iter_mut()
                    .map(|v| {
                        let mut rest = v.split_off(common);
                        match rest.len() {
                            1 => rest.pop().expect("one"),
                            _ => Nnf::Or(rest),
                        }
                    })
                    .collect();
                let mut or = run.swap_remove(0);
                or.push(Nnf::And(rests));
                out.push(Nnf::Or(or));
            }
            if out.len() == 1 {
                out.pop().expect("one")
            } else {
                Nnf::And(out)
            }
        }
        Nnf::Or(children) => Nnf::Or(children.iter().map(factor).collect()),
        Nnf::Unoptimized(x) => Nnf::Unoptimized(x.clone()),
        other => other.clone(),
    }
}

/// The group each shared node (and its negation) becomes, by node.
type SharedGroups = HashMap<(*const Nnf, bool), Rc<Vec<Seq>>>;

/// The alternatives (an OR of ANDs) for a node, distributing within the budget.
fn alternatives(n: &Nnf, opt: bool, shared: &mut SharedGroups) -> Vec<Seq> {
    match n {
        Nnf::Const(true) => vec![vec![]],
        Nnf::Const(false) => vec![],
        Nnf::Lit(p, neg) => vec![vec![Item::Lit(p.clone(), *neg)]],
        Nnf::And(children) => {
            let mut acc: Vec<Seq> = vec![vec![]];
            let last = children.len().saturating_sub(1);
            for (ci, c) in children.iter().enumerate() {
                let ca = alternatives(c, opt, shared);
                if ca.is_empty() {
                    return vec![];
                }
                // Distributing `(a or b) and c` into `a c | b c` runs `b` when `a` held
                // and `c` did not, which libpcap's program never does; that is harmless
                // only if `b` cannot fault there (it loads nothing `a` did not).
                let retry_safe = ci == last || ca.len() == 1 || retry_safe(&ca);
                if ca.len() == 1 || (retry_safe && acc.len() * ca.len() <= DNF_BUDGET) {
                    let mut next = Vec::with_capacity(acc.len() * ca.len());
                    for a in &acc {
                        for b in &ca {
                            let mut s = a.clone();
                            s.extend(b.iter().cloned());
                            next.push(s);
                        }
                    }
                    acc = next;
                } else {
                    let g = Item::Group(Rc::new(ca));
                    for a in &mut acc {
                        a.push(g.clone());
                    }
                }
            }
            acc
        }
        Nnf::Or(children) => {
            let mut out: Vec<Seq> = Vec::new();
            for c in children {
                for alt in alternatives(c, opt, shared) {
                    push_alt(&mut out, alt, opt);
                }
            }
            if out.len() > DNF_BUDGET {
                return vec![vec![Item::Group(Rc::new(out))]];
            }
            out
        }
        Nnf::Unoptimized(x) => alternatives(x, false, shared),
        // One group however many places name the node, laid out once.
        Nnf::Shared(sh) => {
            let key = (Rc::as_ptr(&sh.node), sh.neg);
            let g = match shared.get(&key) {
                Some(g) => g.clone(),
                None => {
                    let inner = if sh.neg {
                        dual(&sh.node)
                    } else {
                        (*sh.node).clone()
                    };
                    let inner = if opt { factor(&inner) } else { inner };
                    let g = Rc::new(alternatives(&inner, opt, shared));
                    shared.insert(key, g.clone());
                    g
                }
            };
            vec![vec![Item::Group(g)]]
        }
    }
}

/// Replaces each accumulator test (`byte N & M`) by a test of what the BPF
/// accumulator holds there: the field the test before it on the path loaded (A is
/// masked by an `and` before a `jeq`, but not before a `jset`, which libpcap's
/// optimizer makes of `and`+`jeq #0`), the wire length after `len`/`less`/`greater`,
/// and 0 at the start. `prev` is the item before `s` on its path.
fn resolve_acc(s: Seq, prev: Option<&Item>, opt: bool, cx: &mut AccCx) -> Seq {
    let mut out: Seq = Vec::with_capacity(s.len());
    for item in s {
        let before = match out.last() {
            Some(i) => Some(i),
            None => prev,
        };
        let item = match item {
            Item::Lit(Pred::Acc { or, val }, neg) => acc_test(or, val, neg, before, opt),
            // Each place a group is named may see a different accumulator, so a group
            // with accumulator tests is copied per place, within a bound (past it, the
            // copies left unresolved test the accumulator's initial 0).
            Item::Group(g) if cx.has_acc(&g) && cx.copies > 0 => {
                cx.copies -= 1;
                let subs = g
                    .iter()
                    .map(|sub| resolve_acc(sub.clone(), before, opt, cx))
                    .collect();
                Item::Group(Rc::new(subs))
            }
            i => i,
        };
        out.push(item);
    }
    out
}

/// Memo and budget for [`resolve_acc`] (groups are shared, so the alternatives are
/// a DAG; walking it as a tree could take exponential time).
struct AccCx {
    memo: HashMap<*const Vec<Seq>, bool>,
    copies: usize,
}

impl AccCx {
    fn has_acc(&mut self, g: &Rc<Vec<Seq>>) -> bool {
        let p = Rc::as_ptr(g);
        if let Some(&b) = self.memo.get(&p) {
            return b;
        }
        let mut b = false;
        for i in g.iter().flatten() {
            b = match i {
                Item::Lit(Pred::Acc { .. }, _) => true,
                Item::Group(h) => self.has_acc(h),
                _ => false,
            };
            if b {
                break;
            }
        }
        self.memo.insert(p, b);
        b
    }
}

/// `(A | val) != 0` (`or`) or `(A & val) != 0`, negated if `neg`, with A as the
/// item before it leaves it.
fn acc_test(or: bool, val: u32, neg: bool, before: Option<&Item>, opt: bool) -> Item {
    let konst = |b: bool| {
        Item::Lit(
            Pred::Len(if b != neg {
                Test::Ge(0)
            } else {
                Test::Gt(u32::MAX)
            }),
            false,
        )
    };
    if or && val != 0 {
        return konst(true);
    }
    // The field A holds: (loc, size, the mask applied to it).
    let field = match before {
        Some(Item::Lit(
            Pred::Cmp(Cmp {
                loc,
                size,
                mask,
                test,
            }),
            _,
        )) => {
            let m = mask & size.max();
            let jset = opt && *test == Test::Eq(0) && m != size.max();
            Some((*loc, *size, if jset { size.max() } else { m }))
        }
        Some(Item::Set {
            loc, size, mask, ..
        }) => Some((*loc, *size, mask & size.max())),
        Some(Item::Lit(Pred::Len(_) | Pred::Known(_), _)) => {
            // A is the wire length.
            let a = if or {
                Val::Len
            } else {
                Val::Bin(ArithOp::And, Box::new(Val::Len), Box::new(Val::Const(val)))
            };
            return Item::Lit(
                Pred::Rel {
                    rel: netsift_isa::RelOp::Eq,
                    lhs: a,
                    rhs: Val::Const(0),
                },
                !neg,
            );
        }
        None => return konst(false),
        // Unknown (A after a computed test or a group): as at the start.
        Some(_) => return konst(false),
    };
    let (loc, size, amask) = field.expect("a field");
    let m = if or { amask } else { amask & val };
    if m == 0 {
        return konst(false);
    }
    Item::Lit(
        Pred::Cmp(Cmp {
            loc,
            size,
            mask: m,
            test: Test::Eq(0),
        }),
        !neg,
    )
}

/// A load of `size` bytes at `anchor + off`.
type LoadAt = (usize, u32, u32);

/// The loads an alternative surely made if it held (`guaranteed`), or every load it
/// may make (`None` if some load's place is not known at compile time).
fn seq_loads(s: &Seq, guaranteed: bool) -> Option<Vec<LoadAt>> {
    let mut out = Vec::new();
    for i in s {
        match i {
            Item::Lit(Pred::Cmp(c), _) => out.push((c.loc.anchor, c.loc.off, c.size.bytes())),
            Item::Lit(Pred::Len(_) | Pred::Known(_) | Pred::Acc { .. }, _) => {}
            Item::Lit(Pred::Rel { lhs, rhs, .. }, _) => {
                let known = val_loads(lhs, &mut out);
                let known = val_loads(rhs, &mut out) && known;
                if !known && !guaranteed {
                    return None;
                }
            }
            Item::Set { loc, size, .. } => out.push((loc.anchor, loc.off, size.bytes())),
            Item::Either {
                loc, delta, size, ..
            } => {
                out.push((loc.anchor, loc.off, size.bytes()));
                if !guaranteed {
                    out.push((loc.anchor, loc.off.wrapping_add(*delta), size.bytes()));
                }
            }
            _ if guaranteed => {}
            _ => return None,
        }
    }
    Some(out)
}

/// Adds the loads of `v` with constant places; false if some place is computed.
fn val_loads(v: &Val, out: &mut Vec<LoadAt>) -> bool {
    match v {
        Val::Const(_) | Val::Len => true,
        Val::Load {
            anchor,
            off,
            index,
            size,
            ..
        } => match **index {
            Val::Const(k) => {
                out.push((*anchor, off.wrapping_add(k), size.bytes()));
                true
            }
            _ => false,
        },
        Val::Neg(x) => val_loads(x, out),
        Val::Bin(_, x, y) => {
            let a = val_loads(x, out);
            val_loads(y, out) && a
        }
    }
}

/// Whether every alternative after the first loads only what each earlier one
/// surely loaded when it held, so that trying it after an earlier one held cannot
/// fault.
fn retry_safe(alts: &[Seq]) -> bool {
    let sure: Vec<Vec<LoadAt>> = alts
        .iter()
        .map(|a| seq_loads(a, true).unwrap_or_default())
        .collect();
    for (j, a) in alts.iter().enumerate().skip(1) {
        let Some(mine) = seq_loads(a, false) else {
            return false;
        };
        for &(an, off, n) in &mine {
            let covered = |l: &Vec<LoadAt>| {
                l.iter().any(|&(bn, boff, bsz)| {
                    bn == an && boff <= off && (off as u64 + n as u64) <= (boff as u64 + bsz as u64)
                })
            };
            if !sure[..j].iter().all(covered) {
                return false;
            }
        }
    }
    true
}

/// A negated equality test: (place, width, mask, value). A value with bits outside the
/// masked field (`ip proto 256`: libpcap compares the byte with 0x100, which never holds)
/// is not one: a SIMD operand holds the field's width, so gathering it would compare
/// with the value cut to that width (0) instead.
fn neg_eq(i: &Item) -> Option<(Loc, Size, u32, u32)> {
    match i {
        Item::Lit(
            Pred::Cmp(Cmp {
                loc,
                size,
                mask,
                test: Test::Eq(v),
            }),
            true,
        ) if v & !(mask & size.max()) == 0 => Some((*loc, *size, *mask, *v)),
        _ => None,
    }
}

/// Gathers runs of negated equalities in an AND into negated SIMD instructions, in
/// the order they run: `f != a, f != b` becomes one negated EQ; `src != A, dst != A`
/// one negated EQ2; and `src != A, src != B, dst != A, dst != B`, the order libpcap's
/// `and_pullup` leaves `not host (A or B)` in (`opt`), one negated EQ2 over {A, B}
/// (load the source, compare with both; then the destination). Inside groups too.
///
/// `memo` maps each original group to its rewritten one, so a group that several
/// alternatives share stays one block of sub-passes.
fn gather_negated(seq: Seq, memo: &mut HashMap<*const Vec<Seq>, Rc<Vec<Seq>>>) -> Seq {
    let mut out: Seq = Vec::with_capacity(seq.len());
    let mut i = 0;
    while i < seq.len() {
        if let Item::Group(g) = &seq[i] {
            let key = Rc::as_ptr(g);
            let new = match memo.get(&key) {
                Some(n) => n.clone(),
                None => {
                    let inner: Vec<Seq> =
                        g.iter().cloned().map(|s| gather_negated(s, memo)).collect();
                    let n = Rc::new(inner);
                    memo.insert(key, n.clone());
                    n
                }
            };
            out.push(Item::Group(new));
            i += 1;
            continue;
        }
        let Some((loc, size, mask, v)) = neg_eq(&seq[i]) else {
            out.push(seq[i].clone());
            i += 1;
            continue;
        };
        let pair_at = |j: usize| -> Option<(u32, u32)> {
            // (src != v, dst != v) at j, j+1: the second at a later offset, same anchor.
            let (l1, s1, m1, v1) = neg_eq(seq.get(j)?)?;
            let (l2, s2, m2, v2) = neg_eq(seq.get(j + 1)?)?;
            (l1 == loc
                && s1 == size
                && m1 == mask
                && (s2, m2, v2) == (s1, m1, v1)
                && l2.anchor == l1.anchor
                && l2.off > l1.off
                && l2.off - l1.off <= 0xffff)
                // `then`, not `then_some`: the difference is only defined once the
                // condition holds (a pair in reverse order would underflow).
                .then(|| (l2.off - l1.off, v1))
        };
        let op_cap = |op| Instruction::capacity(op, size);
        let eq_op = if mask & size.max() == size.max() {
            netsift_isa::Opcode::Eq
        } else {
            netsift_isa::Opcode::MEq
        };
        // `src` not in V, then `dst` not in V, the order libpcap's `and_pullup` leaves
        // `not host (V)` in: negated EQ2s of V, five values each past five. (Past one
        // instruction this tests the second share's sources after the first share's
        // destinations: on a packet cut inside the destination whose source is in a
        // later share, the list faults where libpcap's is false. This keeps the seeds'
        // negated host lists at the size the batch engine fuses.)
        if let Some((delta, values, end)) = pulled_pair(&seq, i) {
            for share in values.chunks(op_cap(netsift_isa::Opcode::Eq2)) {
                out.push(Item::NotAny(Box::new(Item::Either {
                    loc,
                    delta,
                    size,
                    mask,
                    values: share.to_vec(),
                })));
            }
            i = end;
            continue;
        }
        // One pair only: a second would be tested on its source before the first
        // pair's destination.
        if let Some((delta, v)) = pair_at(i) {
            out.push(Item::NotAny(Box::new(Item::Either {
                loc,
                delta,
                size,
                mask,
                values: vec![v],
            })));
            i += 2;
            continue;
        }
        let mut values = vec![v];
        let mut j = i + 1;
        while let Some((l, s2, m, v2)) = seq.get(j).and_then(neg_eq) {
            if l != loc || s2 != size || m != mask || values.len() == op_cap(eq_op) {
                break;
            }
            if !values.contains(&v2) {
                values.push(v2);
            }
            j += 1;
        }
        let set = Item::Set {
            loc,
            size,
            mask,
            values,
        };
        // After `src` not in V, `dst` not in V: one negated EQ2 of V.
        let pair = match out.last() {
            Some(Item::NotAny(a)) => merge(a, &set).filter(|m| matches!(m, Item::Either { .. })),
            _ => None,
        };
        match pair {
            Some(m) => *out.last_mut().expect("a last") = Item::NotAny(Box::new(m)),
            None if j == i + 1 => out.push(seq[i].clone()),
            None => out.push(Item::NotAny(Box::new(set))),
        }
        i = j;
    }
    out
}

/// At `i`, a run of negated equalities on one field followed by a run with the same
/// values on a field after it (same anchor, size and mask): the distance between the
/// fields, the values, and where the runs end.
fn pulled_pair(seq: &Seq, i: usize) -> Option<(u32, Vec<u32>, usize)> {
    let run = |from: usize| -> Option<(Loc, Vec<u32>, usize)> {
        let (loc, size, mask, _) = neg_eq(seq.get(from)?)?;
        let mut values = Vec::new();
        let mut j = from;
        while let Some((l, s2, m, v)) = seq.get(j).and_then(neg_eq) {
            if (l, s2, m) != (loc, size, mask) {
                break;
            }
            if !values.contains(&v) {
                values.push(v);
            }
            j += 1;
        }
        Some((loc, values, j))
    };
    let (first, values, k) = run(i)?;
    let (second, again, end) = run(k)?;
    let same_kind =
        neg_eq(&seq[i]).map(|(_, s, m, _)| (s, m)) == neg_eq(&seq[k]).map(|(_, s, m, _)| (s, m));
    (values.len() > 1
        && same_kind
        && values == again
        && second.anchor == first.anchor
        && second.off > first.off
        && second.off - first.off <= 0xffff)
        .then(|| (second.off - first.off, values, end))
}

/// Appends an alternative, packing it into the one before when they differ only in a
/// last equality test on the same field (SIMD packing). Every packing keeps the order
/// of the loads: libpcap's reorderings (`or_pullup` testing every source value before
/// any destination) are already in the normal form (`opt`), so two src-or-dst pairs
/// are not merged here, which would test the second pair's source before the first
/// pair's destination.
fn push_alt(out: &mut Vec<Seq>, alt: Seq, opt: bool) {
    if let Some(last) = out.last_mut() {
        if let (Some(a), Some(b)) = (last.last(), alt.last()) {
            let reorders = matches!((a, b), (Item::Either { .. }, Item::Either { .. }));
            if last.len() == alt.len()
                && last[..last.len() - 1] == alt[..alt.len() - 1]
                && !reorders
            {
                if let Some(m) = merge(a, b) {
                    let n = last.len();
                    let pair = matches!(m, Item::Either { .. });
                    last[n - 1] = m;
                    // `src in V or dst in V` completed: one src-or-dst test of V.
                    if !pair && out.len() > 1 {
                        join_pair(out);
                    }
                    return;
                }
            }
        }
    }
    if opt && absorb(out, &alt) {
        return;
    }
    out.push(alt);
}

/// Joins the last two alternatives into one when they differ only in a last test of
/// the same values on two fields, the second after the first: EQ2 tries every value
/// on the first field before it loads the second, the order of the two alternatives.
fn join_pair(out: &mut Vec<Seq>) -> bool {
    let k = out.len();
    let (a, b) = (&out[k - 2], &out[k - 1]);
    let n = b.len();
    if a.len() != n || a[..n - 1] != b[..n - 1] {
        return false;
    }
    match merge(&a[n - 1], &b[n - 1]) {
        Some(m @ Item::Either { .. }) => {
            out.pop();
            let last = out.last_mut().expect("two");
            last[n - 1] = m;
            true
        }
        _ => false,
    }
}

/// Merges an alternative into the one before when they are equal but for one earlier
/// equality on the same field (`arp` and `rarp` before the same address test: one SIMD
/// test of both values). Exact: where the first value held and the rest failed, the
/// second alternative tests the value already loaded, which fails, and rejects too.
fn absorb(out: &mut [Seq], alt: &Seq) -> bool {
    let Some(last) = out.last_mut() else {
        return false;
    };
    let Some(i) = single_difference(last, alt) else {
        return false;
    };
    match merge(&last[i], &alt[i]) {
        Some(m @ Item::Set { .. }) => {
            last[i] = m;
            true
        }
        _ => false,
    }
}

/// The one position where two equally long sequences differ, if exactly one (and not
/// the last: that case is the src-or-dst merge above).
fn single_difference(a: &Seq, b: &Seq) -> Option<usize> {
    if a.len() != b.len() || a.len() < 2 {
        return None;
    }
    let mut diff = a
        .iter()
        .zip(b)
        .enumerate()
        .filter(|(_, (x, y))| x != y)
        .map(|(i, _)| i);
    let i = diff.next()?;
    (diff.next().is_none() && i + 1 < a.len()).then_some(i)
}

fn eq_parts(i: &Item) -> Option<(Loc, Size, u32, Vec<u32>)> {
    match i {
        Item::Lit(
            Pred::Cmp(Cmp {
                loc,
                size,
                mask,
                test: Test::Eq(v),
            }),
            false,
        ) => Some((*loc, *size, *mask, vec![*v])),
        Item::Set {
            loc,
            size,
            mask,
            values,
        } => Some((*loc, *size, *mask, values.clone())),
        _ => None,
    }
}

/// Merges two OR-ed items into one instruction if possible.
fn merge(a: &Item, b: &Item) -> Option<Item> {
    let cap = |op, size| Instruction::capacity(op, size);
    if let (Some((la, sa, ma, va)), Some((lb, sb, mb, vb))) = (eq_parts(a), eq_parts(b)) {
        if sa != sb || ma != mb || la.anchor != lb.anchor {
            return None;
        }
        let fits = |v: &[u32]| v.iter().all(|&x| x & !(ma & sa.max()) == 0);
        if !fits(&va) || !fits(&vb) {
            return None;
        }
        let op = if ma & sa.max() == sa.max() {
            netsift_isa::Opcode::Eq
        } else {
            netsift_isa::Opcode::MEq
        };
        if la == lb {
            let mut values = va;
            for x in vb {
                if !values.contains(&x) {
                    values.push(x);
                }
            }
            if values.len() > cap(op, sa) {
                return None;
            }
            return Some(Item::Set {
                loc: la,
                size: sa,
                mask: ma,
                values,
            });
        }
        // src-or-dst: the same values at two places, the second after the first
        // (EQ2 tries every value on the first field before it loads the second, which
        // is also the order of `src in V or dst in V`).
        if va == vb && lb.off > la.off && lb.off - la.off <= 0xffff {
            return Some(Item::Either {
                loc: la,
                delta: lb.off - la.off,
                size: sa,
                mask: ma,
                values: va,
            });
        }
        return None;
    }
    if let (
        Item::Either {
            loc: la,
            delta: da,
            size: sa,
            mask: ma,
            values: va,
        },
        Item::Either {
            loc: lb,
            delta: db,
            size: sb,
            mask: mb,
            values: vb,
        },
    ) = (a, b)
    {
        if la == lb && da == db && sa == sb && ma == mb {
            let mut values = va.clone();
            values.extend(vb.iter().copied().filter(|x| !va.contains(x)));
            if values.len() > cap(netsift_isa::Opcode::Eq2, *sa) {
                return None;
            }
            return Some(Item::Either {
                loc: *la,
                delta: *da,
                size: *sa,
                mask: *ma,
                values,
            });
        }
    }
    None
}

/// Whether a conjunction can never hold: two different values required of one field,
/// or a test and its negation. (libpcap's optimizer finds these too, and refuses a
/// filter all of whose paths are impossible: "expression rejects all packets".)
fn contradictory(s: &Seq) -> bool {
    // A comparison of constants that fails, with no test before it: libpcap's
    // optimizer folds the whole path away.
    if matches!(
        s.first(),
        Some(Item::Lit(Pred::Known(false), false) | Item::Lit(Pred::Known(true), true))
    ) {
        return true;
    }
    let lits: Vec<(&Pred, bool)> = s
        .iter()
        .filter_map(|i| match i {
            Item::Lit(p, n) => Some((p, *n)),
            _ => None,
        })
        .collect();
    for (i, (p, n)) in lits.iter().enumerate() {
        for (q, m) in &lits[i + 1..] {
            if p == q && n != m {
                return true;
            }
            if let (Pred::Cmp(a), Pred::Cmp(b)) = (p, q) {
                if let (Test::Eq(x), Test::Eq(y)) = (a.test, b.test) {
                    if !n && !m && a.loc == b.loc && a.size == b.size && a.mask == b.mask && x != y
                    {
                        return true;
                    }
                }
            }
        }
    }
    false
}

type Placed = HashMap<*const Vec<Seq>, (u32, u32)>;

impl Selector<'_> {
    /// Lays out the roots, then every group once, level by level: a group comes after
    /// every pass that names it (the engine only follows a GROUP to later passes), at
    /// the deepest nesting it is named from.
    fn layout(&mut self, roots: &[Seq]) -> Result<(), SelectError> {
        let roots: Vec<Seq> = roots.iter().cloned().map(split_long).collect();
        let mut nodes: Vec<GroupNode> = Vec::new();
        let mut index: HashMap<*const Vec<Seq>, usize> = HashMap::new();
        visit_groups(&roots, 0, &mut nodes, &mut index)?;
        let mut order: Vec<usize> = (0..nodes.len()).collect();
        order.sort_by_key(|&i| (nodes[i].depth, i));
        let reserve = |sel: &mut Self, kind, n: usize| -> Result<usize, SelectError> {
            let first = sel.set.passes().len();
            for _ in 0..n {
                sel.set
                    .push_pass(kind, None)
                    .map_err(|e| SelectError::TooBig(e.to_string()))?;
            }
            Ok(first)
        };
        let root_first = reserve(self, PassKind::Root, roots.len())?;
        let mut placed = Placed::new();
        let mut starts = vec![0usize; nodes.len()];
        for &i in &order {
            let first = reserve(self, PassKind::Sub, nodes[i].seqs.len())?;
            starts[i] = first;
            placed.insert(nodes[i].ptr, (first as u32, nodes[i].seqs.len() as u32));
        }
        self.fill_block(root_first, &roots, &placed)?;
        for &i in &order {
            let seqs = std::mem::take(&mut nodes[i].seqs);
            self.fill_block(starts[i], &seqs, &placed)?;
        }
        Ok(())
    }

    fn fill_block(
        &mut self,
        first: usize,
        seqs: &[Seq],
        placed: &Placed,
    ) -> Result<(), SelectError> {
        for (k, seq) in seqs.iter().enumerate() {
            let mut insns = Vec::with_capacity(seq.len());
            for item in seq {
                self.encode(item, placed, &mut insns)?;
            }
            self.fill_pass(first + k, first, insns)?;
        }
        Ok(())
    }

    /// Stores a pass's instructions, making it a child of the earlier pass in its block
    /// with which it shares the longest prefix.
    fn fill_pass(
        &mut self,
        idx: usize,
        block_start: usize,
        mut insns: Vec<Instruction>,
    ) -> Result<(), SelectError> {
        // Alternatives come in the order of the choices that made them, so the
        // longest shared prefix is with a recent pass: looking back a bounded distance
        // keeps layout linear in the number of passes.
        let mut best: Option<(usize, usize)> = None;
        for p in block_start.max(idx.saturating_sub(PARENT_WINDOW))..idx {
            let other = self.set.passes()[p].instructions();
            let mut k = other
                .iter()
                .zip(&insns)
                .take_while(|(a, b)| a.with_copied(false) == **b)
                .count();
            // A shared prefix never ends inside an ARITH's CONT slots: the head
            // stays the child's own when its continuation differs.
            while k > 0 && insns.get(k).and_then(|i| i.decode().opcode) == Some(Opcode::ArithCont) {
                k -= 1;
            }
            if k > 0 && best.is_none_or(|(_, bk)| k > bk) {
                best = Some((p, k));
            }
        }
        let e = |e: netsift_isa::UpdateError| SelectError::TooBig(e.to_string());
        if let Some((parent, k)) = best {
            self.set.set_parent(idx, Some(parent)).map_err(e)?;
            for i in insns.iter_mut().take(k) {
                *i = i.with_copied(true);
            }
        }
        for i in insns {
            self.set.push_insn(idx, i).map_err(e)?;
        }
        Ok(())
    }

    /// The pass-set anchor for lowering anchor `a` plus a constant too large for an
    /// instruction's offset field.
    fn isa_anchor(&mut self, a: usize, extra: u32) -> Result<u8, SelectError> {
        if let Some(&x) = self.anchor_map.get(&(a, extra)) {
            return Ok(x);
        }
        // Offsets are 16 bits in an anchor; larger ones chain Const anchors, a bounded
        // number of them.
        // Past 1 MiB no capture has bytes (libpcap's largest snapshot is 256 KiB):
        // clamp, keeping "this load always faults" without a long anchor chain.
        let extra = extra.min(16 * 0xffff);
        let base = if extra == 0 {
            if a == 0 {
                return Ok(0);
            }
            let spec = self.anchors[a];
            let step = spec.offset.min(0xffff);
            let parent = self.isa_anchor(spec.parent, spec.offset - step)?;
            self.push_anchor(Anchor::new(spec.rule, parent, step as u16))?
        } else {
            let step = extra.min(0xffff);
            let parent = self.isa_anchor(a, extra - step)?;
            self.push_anchor(Anchor::new(AnchorRule::Const, parent, step as u16))?
        };
        self.anchor_map.insert((a, extra), base);
        Ok(base)
    }

    /// The anchor of an ARITH load at `a + off`. Its offset field must be libpcap's
    /// constant part, which the index modes add apart: `off` for a field counted
    /// from a header (`ip[i]`), the anchor's own offset for one counted from the
    /// IPv4 payload (`off` 0). So a header field at `off` 0 past a variable-length
    /// header gets a Const anchor of offset 0 of its own.
    fn load_anchor(&mut self, a: usize, off: u32, mode: IndexMode) -> Result<u8, SelectError> {
        let from_payload = self.anchors[a].rule == AnchorRule::Ipv4Payload;
        if off != 0 || a == 0 || from_payload || mode == IndexMode::Plain {
            return self.isa_anchor(a, off);
        }
        // (a, u32::MAX) never names an offset: isa_anchor clamps them far below.
        if let Some(&x) = self.anchor_map.get(&(a, u32::MAX)) {
            return Ok(x);
        }
        let parent = self.isa_anchor(a, 0)?;
        let x = self.push_anchor(Anchor::new(AnchorRule::Const, parent, 0))?;
        self.anchor_map.insert((a, u32::MAX), x);
        Ok(x)
    }

    fn push_anchor(&mut self, a: Anchor) -> Result<u8, SelectError> {
        self.set.anchor(a).map_err(|e| {
            SelectError::TooBig(format!(
                "{e} (the filter addresses too many distinct headers)"
            ))
        })
    }

    /// Anchor and in-instruction offset for a location.
    fn place(&mut self, loc: Loc) -> Result<(u8, u32), SelectError> {
        if loc.off <= MAX_OFFSET {
            Ok((self.isa_anchor(loc.anchor, 0)?, loc.off))
        } else {
            Ok((self.isa_anchor(loc.anchor, loc.off)?, 0))
        }
    }

    /// Appends the instructions of `item` to `out`: one, or an ARITH and its CONT
    /// slots (negation goes on the head, which computes the result).
    fn encode(
        &mut self,
        item: &Item,
        placed: &Placed,
        out: &mut Vec<Instruction>,
    ) -> Result<(), SelectError> {
        let too_big =
            |what: &str| SelectError::TooBig(format!("{what} does not fit one instruction"));
        let insn = match item {
            Item::Lit(Pred::Rel { rel, lhs, rhs }, neg) => {
                let chain = self.encode_rel(*rel, lhs, rhs)?;
                out.push(chain[0].with_negate(*neg));
                out.extend_from_slice(&chain[1..]);
                return Ok(());
            }
            Item::Lit(p, neg) => self.encode_pred(p)?.with_negate(*neg),
            Item::Set {
                loc,
                size,
                mask,
                values,
            } => {
                let (a, off) = self.place(*loc)?;
                build::eq(a, off, *size, *mask, values).ok_or_else(|| too_big("value set"))?
            }
            Item::Either {
                loc,
                delta,
                size,
                mask,
                values,
            } => {
                let (a, off) = self.place(*loc)?;
                build::eq2(a, off, *delta as u16, false, *size, *mask, values)
                    .ok_or_else(|| too_big("address pair"))?
            }
            Item::Group(g) => {
                let (first, count) = placed[&Rc::as_ptr(g)];
                build::group(first, count)
            }
            Item::NotAny(inner) => {
                let at = out.len();
                self.encode(inner, placed, out)?;
                out[at] = out[at].with_negate(true);
                return Ok(());
            }
        };
        out.push(insn);
        Ok(())
    }

    fn encode_pred(&mut self, p: &Pred) -> Result<Instruction, SelectError> {
        let never = |s: &mut Self, loc: Loc, size: Size| -> Result<Instruction, SelectError> {
            // A test that can never hold still loads its field (and may fault).
            let (a, off) = s.place(loc)?;
            Ok(build::range(a, off, size, u32::MAX, &[(1, 0)]).expect("fits"))
        };
        match p {
            Pred::Cmp(Cmp {
                loc,
                size,
                mask,
                test,
            }) => {
                let m = mask & size.max();
                let (a, off) = self.place(*loc)?;
                match *test {
                    Test::Eq(v) if v & !m != 0 => never(self, *loc, *size),
                    Test::Eq(v) => Ok(build::eq(a, off, *size, m, &[v]).expect("one value fits")),
                    Test::Gt(k) if k >= m => never(self, *loc, *size),
                    Test::Gt(k) => Ok(build::range(a, off, *size, m, &[(k + 1, m)]).expect("fits")),
                    Test::Ge(k) if k > m => never(self, *loc, *size),
                    Test::Ge(k) => Ok(build::range(a, off, *size, m, &[(k, m)]).expect("fits")),
                }
            }
            Pred::Known(b) => Ok(if *b {
                build::len(&[(0, u32::MAX)])
            } else {
                build::len(&[(1, 0)])
            }
            .expect("one range fits")),
            Pred::Len(t) => Ok(match *t {
                Test::Eq(v) => build::len(&[(v, v)]),
                Test::Gt(u32::MAX) => build::len(&[(1, 0)]),
                Test::Gt(k) => build::len(&[(k + 1, u32::MAX)]),
                Test::Ge(k) => build::len(&[(k, u32::MAX)]),
            }
            .expect("one range fits")),
            // Left unresolved (see resolve_acc): the accumulator's initial 0.
            Pred::Acc { or, val } => Ok(if *or && *val != 0 {
                build::len(&[(0, u32::MAX)])
            } else {
                build::len(&[(1, 0)])
            }
            .expect("one range fits")),
            Pred::Protochain { nl, version, proto } => {
                let (a, off) = self.place(*nl)?;
                build::protochain(a, off, *version, *proto)
                    .ok_or_else(|| SelectError::TooBig("protochain".into()))
            }
            Pred::Rel { .. } => unreachable!("encode() emits relations"),
        }
    }

    /// `lhs rel rhs`: an ARITH head and the CONT slots its micro-ops need.
    fn encode_rel(
        &mut self,
        rel: netsift_isa::RelOp,
        lhs: &Val,
        rhs: &Val,
    ) -> Result<Vec<Instruction>, SelectError> {
        let ops = crate::micro::emit(lhs, rhs, &mut |a, off, mode| self.load_anchor(a, off, mode))?;
        crate::micro::pack(rel, &ops).map_err(|e| SelectError::TooBig(e.to_string()))
    }
}

/// A sequence longer than a pass holds keeps as many items as fit in `MAX_INSNS - 1`
/// instruction slots (at least one) and moves the rest into a single-pass GROUP.
fn split_long(seq: Seq) -> Seq {
    // Most items take one slot: only relations need counting.
    let multi = |i: &Item| match i {
        Item::NotAny(inner) => matches!(**inner, Item::Lit(Pred::Rel { .. }, _)),
        i => matches!(i, Item::Lit(Pred::Rel { .. }, _)),
    };
    if seq.len() <= MAX_INSNS && !seq.iter().any(multi) {
        return seq;
    }
    let mut used = 0usize;
    let mut keep = None;
    for (i, item) in seq.iter().enumerate() {
        used = used.saturating_add(item_slots(item));
        if keep.is_none() && used > MAX_INSNS - 1 {
            keep = Some(i.max(1));
        }
    }
    // One item too long for a pass stays as it is: encoding it fails with a size error.
    if used <= MAX_INSNS || seq.len() < 2 {
        return seq;
    }
    let mut head = seq;
    let tail = head.split_off(keep.expect("set once over the limit").min(head.len() - 1));
    head.push(Item::Group(Rc::new(vec![split_long(tail)])));
    head
}

/// The instruction slots an item takes: one, or an ARITH's head and CONT slots.
fn item_slots(item: &Item) -> usize {
    match item {
        Item::Lit(Pred::Rel { lhs, rhs, .. }, _) => crate::micro::slots(lhs, rhs),
        Item::NotAny(inner) => item_slots(inner),
        _ => 1,
    }
}

/// A group to lay out: its alternatives (split to pass length) and the deepest
/// nesting it is named from.
struct GroupNode {
    ptr: *const Vec<Seq>,
    seqs: Vec<Seq>,
    depth: usize,
}

fn visit_groups(
    seqs: &[Seq],
    depth: usize,
    nodes: &mut Vec<GroupNode>,
    index: &mut HashMap<*const Vec<Seq>, usize>,
) -> Result<(), SelectError> {
    for item in seqs.iter().flatten() {
        let Item::Group(g) = item else { continue };
        let d = depth + 1;
        if d >= MAX_GROUP_DEPTH - 1 {
            return Err(SelectError::TooBig(format!(
                "and/or nesting deeper than {} levels after distribution",
                MAX_GROUP_DEPTH - 1
            )));
        }
        let p = Rc::as_ptr(g);
        let i = match index.get(&p) {
            Some(&i) if nodes[i].depth >= d => continue,
            Some(&i) => {
                nodes[i].depth = d;
                i
            }
            None => {
                index.insert(p, nodes.len());
                nodes.push(GroupNode {
                    ptr: p,
                    seqs: g.iter().cloned().map(split_long).collect(),
                    depth: d,
                });
                nodes.len() - 1
            }
        };
        let inner = nodes[i].seqs.clone();
        visit_groups(&inner, d, nodes, index)?;
    }
    Ok(())
}
