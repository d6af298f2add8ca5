//! Large filters: a long disjunction of one test over many values (`host A or host B
//! or …`, `net N/24 or …`, `port 1 or port 2 or …`) compiled in linear time, as a SET
//! lookup in a key table.
//!
//! The general pipeline (`normal`, `select` and the libpcap models around them) looks
//! at pairs of tests and is quadratic on such text: 10,000 distinct hosts took 6.9 s.
//! These disjunctions need none of it. Every term is the same primitive with another
//! value, so libpcap's optimiser treats them alike: it tests the first field against
//! every value, then the second field (the src pair, then the dst pair), which is what
//! one EQ2 holding every value says, and what SET with count 2 says too (field B
//! absent). So the text is compiled as a *template*: the same primitive with three of
//! its values, through the general pipeline. Every instruction that tests exactly
//! those three values becomes a SET over all of them; the rest is the template as
//! compiled. A second template with three other values must compile to the same
//! program but for those instructions, which rules out a value that the template
//! folds with another test (a port equal to an IP protocol number, say).
//!
//! Repeated values are dropped first, keeping the first of each: a term equal to an
//! earlier one is reached only when that one was false without a fault, and then it
//! is false too, so the verdict on every packet, cut short or not, is unchanged.
//!
//! Values that fit the one instruction the template tests them with stay there
//! ([`SMALL`] says why), and the program is the one the general pipeline always
//! made. Text the SET form does not take goes to the general pipeline only up to
//! [`MAX_PRIMS`] primitives; beyond that it is refused with an error, rather than
//! compiled for minutes.

use crate::syntax::ast::{AddrType, Expr, Id, PrimKind, Primitive, Qual, Span};
use crate::Error;
use netsift_isa::insn::{build, Opcode};
use netsift_isa::{set_key, Instruction, PassSet};
use std::collections::HashSet;

/// Terms a disjunction needs before the SET form is tried: no instruction holds fewer
/// than five values (EQ2 of 32-bit fields), so up to five values never need SET.
///
/// Whether SET is used is decided on the template (`compile_set`): when the values
/// do not fit the one instruction the template tests them with (5 addresses or 10
/// ports in an EQ2, 7 or 14 in an EQ). That is where the general pipeline splits the
/// values over several passes, each trying the source and then the destination
/// against its share; libpcap tests the source against every value before it loads
/// the destination, so on packets cut after the source that split form differs from
/// libpcap (at 100 terms: 668 cut packets of `conformance/tests/large.rs` for hosts,
/// 9,312 for /24 nets, 329 for ports), and SET does not. It is also cheaper per packet
/// than the passes from a few dozen values on (docs/BENCHMARKS.md, "Large filters").
const SMALL: usize = 5;

/// Terms above which repeated values are dropped even when the SET form is not used,
/// so that `host A or host A or …` stays linear; below it the text's own tree is
/// compiled, as it always was.
const KEEP_REPEATS: usize = 256;

/// Primitives the general pipeline takes. Its cost grows with the square of the
/// number of tests of a disjunction: at 2,048 primitives the slowest shapes measured
/// take 3.6 s (`portrange` terms) and 5.4 s (`host X and port P or host Y and port
/// Q …` without parentheses, which groups left to right into a deep alternation that
/// select then refuses as nested too deeply), at 4,096 they took 16.5 s and 28 s. More
/// is refused rather than left running for minutes.
pub const MAX_PRIMS: usize = 2048;

/// Distinct values a SET form takes (one key table each, 16 MiB of slots at most).
pub(crate) const MAX_SET_VALUES: usize = 1 << 20;

/// What a term tests, besides its value: the qualifiers and the kind of literal.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    /// A dotted IPv4 address (`host`, `net` without a length, or no qualifier).
    Dotted(Qual),
    /// `net a.b.c.d/len`.
    Prefix(Qual, u32),
    /// `port N`.
    Port(Qual),
}

/// A term the SET form can take: its shape and value, or `Err(())` for a term of the
/// right shape whose value libpcap refuses (a port above 65535, host bits in a net):
/// the single term is then compiled alone for its error.
fn classify(e: &Expr) -> Option<(Shape, Result<u32, ()>)> {
    let Expr::Prim(Primitive {
        kind: PrimKind::Qualified { qual, id, .. },
        ..
    }) = e
    else {
        return None;
    };
    match (qual.addr, id) {
        (AddrType::Host | AddrType::Default | AddrType::Net, Id::Dotted(s)) => {
            Some((Shape::Dotted(*qual), Ok(dotted4(s)?)))
        }
        (AddrType::Net, Id::DottedPrefix(s, len)) if *len <= 32 => {
            let v = dotted4(s)?;
            let mask = if *len == 0 { 0 } else { u32::MAX << (32 - len) };
            Some((
                Shape::Prefix(*qual, *len),
                if v & !mask == 0 { Ok(v) } else { Err(()) },
            ))
        }
        (AddrType::Port, Id::Num(p)) => Some((
            Shape::Port(*qual),
            if *p <= 0xffff { Ok(*p) } else { Err(()) },
        )),
        _ => None,
    }
}

/// `a.b.c.d`, four decimal parts of at most 255, as libpcap's `__pcap_atoin` reads
/// them; anything else (fewer parts, another base) is left to the general pipeline.
fn dotted4(s: &str) -> Option<u32> {
    let mut v = 0u32;
    let mut parts = 0;
    for p in s.split('.') {
        if p.is_empty() || p.len() > 3 || !p.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let n: u32 = p.parse().ok()?;
        if n > 255 {
            return None;
        }
        v = v << 8 | n;
        parts += 1;
    }
    (parts == 4).then_some(v)
}

/// The terms of the disjunction at the top of `e`, left to right, without recursion
/// (a flat `or` of 100,000 terms is a tree 100,000 deep).
fn or_terms(e: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    let mut todo = vec![e];
    while let Some(x) = todo.pop() {
        match x {
            Expr::Or(a, b) => {
                todo.push(b);
                todo.push(a);
            }
            _ => out.push(x),
        }
    }
    out
}

/// The primitives of `e`, in text order, without recursion.
fn prims(e: &Expr) -> impl Iterator<Item = &Primitive> {
    let mut todo = vec![e];
    std::iter::from_fn(move || {
        while let Some(x) = todo.pop() {
            match x {
                Expr::And(a, b) | Expr::Or(a, b) => {
                    todo.push(b);
                    todo.push(a);
                }
                Expr::Not(a, _) => todo.push(a),
                Expr::Prim(p) => return Some(p),
            }
        }
        None
    })
}

/// Takes a tree apart without recursion: dropping a deep one node by node would
/// recurse once per level.
pub(crate) fn dismantle(e: Expr) {
    let mut todo = vec![e];
    while let Some(x) = todo.pop() {
        match x {
            Expr::And(a, b) | Expr::Or(a, b) => {
                todo.push(*a);
                todo.push(*b);
            }
            Expr::Not(a, _) => todo.push(*a),
            Expr::Prim(_) => {}
        }
    }
}

/// The terms of a list whose classes are all `Ok`, without repeated values (the first
/// of each kept).
fn distinct<'a>(terms: &[&'a Expr], classes: &[(Shape, Result<u32, ()>)]) -> Vec<&'a Expr> {
    let mut seen = HashSet::with_capacity(terms.len());
    terms
        .iter()
        .zip(classes)
        .filter(|(_, c)| seen.insert(c.1))
        .map(|(t, _)| *t)
        .collect()
}

/// A left-deep `or` of the given terms, as the parser builds `a or b or c`.
fn or_of<'a>(terms: impl IntoIterator<Item = &'a Expr>) -> Option<Expr> {
    terms.into_iter().fold(None, |acc, t| {
        Some(match acc {
            None => t.clone(),
            Some(a) => Expr::Or(Box::new(a), Box::new(t.clone())),
        })
    })
}

/// Compiles `expr` (the parse of `text`): the SET form where it applies, else the
/// general pipeline `general` on the text's tree, or on the tree without repeated
/// terms when that is long, within [`MAX_PRIMS`].
pub(crate) fn compile(
    expr: &Expr,
    text: &str,
    general: &dyn Fn(Option<&Expr>) -> Result<PassSet, Error>,
) -> Result<PassSet, Error> {
    let terms = or_terms(expr);
    if terms.len() > SMALL {
        if let Some(classes) = terms
            .iter()
            .map(|t| classify(t))
            .collect::<Option<Vec<_>>>()
        {
            if classes.iter().all(|c| c.0 == classes[0].0) {
                // libpcap stops at the first term it refuses: so does this.
                if let Some(i) = classes.iter().position(|c| c.1.is_err()) {
                    general(Some(terms[i]))?;
                } else {
                    let distinct = distinct(&terms, &classes);
                    if let Some(e) = distinct.get(MAX_SET_VALUES) {
                        return Err(Error::new(
                            format!(
                                "a disjunction of more than {MAX_SET_VALUES} distinct values is too large"
                            ),
                            e.span(),
                            text,
                        ));
                    }
                    if let Some(r) = compile_set(&distinct, text, general, true) {
                        return r;
                    }
                    // Repeats dropped: the same verdicts, and a short list for the
                    // general pipeline. Shorter text keeps its own tree, and so the
                    // program it always had.
                    if terms.len() > KEEP_REPEATS && distinct.len() < terms.len() {
                        return general(or_of(distinct).as_ref());
                    }
                }
            }
        }
    }
    // A long disjunction inside other operators (`not host (…)`, `tcp and port (…)`):
    // the templates are the whole text with three of its values.
    if let Some((list, distinct)) = nested_list(expr) {
        let outside = prims(expr).count() - prims(list).count();
        if outside <= MAX_PRIMS {
            let with = |t: Option<&Expr>| match t {
                Some(t) => general(Some(&replaced(expr, list, t))),
                None => general(None),
            };
            if let Some(r) = compile_set(&distinct, text, &with, false) {
                return r;
            }
        }
    }
    match too_large(expr, text) {
        Some(e) => Err(e),
        None => general(Some(expr)),
    }
}

/// The longest disjunction below the top of `expr` whose terms the SET form takes
/// (one shape, values libpcap accepts), and its distinct terms. Lists under a `not`
/// are left alone: there the general pipeline gathers negated tests into runs the
/// batch engine fuses into one set test (the seeds' filter 6, `not ip host (38
/// addresses)`), which a SET, run per lane, would make slower.
fn nested_list(expr: &Expr) -> Option<(&Expr, Vec<&Expr>)> {
    let mut best: Option<(&Expr, Vec<&Expr>)> = None;
    // (node, whether its parent is an `or`: then it is part of the parent's list)
    let mut todo = vec![(expr, true)];
    while let Some((x, in_or)) = todo.pop() {
        match x {
            Expr::Or(..) => {
                let terms = or_terms(x);
                if !in_or && terms.len() > SMALL {
                    let classes: Option<Vec<_>> = terms.iter().map(|t| classify(t)).collect();
                    if let Some(classes) =
                        classes.filter(|c| c.iter().all(|k| k.0 == c[0].0 && k.1.is_ok()))
                    {
                        let distinct = distinct(&terms, &classes);
                        if best.as_ref().is_none_or(|b| b.1.len() < distinct.len()) {
                            best = Some((x, distinct));
                        }
                    }
                }
                todo.extend(terms.into_iter().map(|t| (t, false)));
            }
            Expr::And(a, b) => todo.extend([(&**a, false), (&**b, false)]),
            Expr::Not(..) | Expr::Prim(_) => {}
        }
    }
    best.filter(|b| b.1.len() > SMALL && b.1.len() <= MAX_SET_VALUES)
}

/// `expr` with the node `list` (compared by address) replaced by `with`.
fn replaced(expr: &Expr, list: &Expr, with: &Expr) -> Expr {
    if std::ptr::eq(expr, list) {
        return with.clone();
    }
    match expr {
        Expr::And(a, b) => Expr::And(
            Box::new(replaced(a, list, with)),
            Box::new(replaced(b, list, with)),
        ),
        Expr::Or(a, b) => Expr::Or(
            Box::new(replaced(a, list, with)),
            Box::new(replaced(b, list, with)),
        ),
        Expr::Not(a, s) => Expr::Not(Box::new(replaced(a, list, with)), *s),
        Expr::Prim(_) => expr.clone(),
    }
}

/// The error for text past the general pipeline's limit, [`MAX_PRIMS`], pointing at
/// the first primitive past it.
pub(crate) fn too_large(expr: &Expr, text: &str) -> Option<Error> {
    let p = prims(expr).nth(MAX_PRIMS)?;
    Some(Error::new(
        format!(
            "expression too large: more than {MAX_PRIMS} primitives (past that, only an \
             'or' of one host, net or port test over many values compiles, as a table lookup)"
        ),
        p.span,
        text,
    ))
}

/// The values a term tests, as its instructions hold them.
fn value_of(t: &Expr) -> u32 {
    match classify(t) {
        Some((_, Ok(v))) => v,
        _ => unreachable!("only classified terms reach the SET form"),
    }
}

/// An instruction of a template that tests a field against exactly `vals`: its
/// field's mask and, for EQ2, the delta to the second field.
fn tests_values(insn: &Instruction, vals: &[u32]) -> Option<(u32, Option<u32>)> {
    let d = insn.decode();
    let (first, size, n, _) = insn.operand_slots()?;
    let (mask, delta) = match d.opcode? {
        Opcode::Eq => (size.max(), None),
        Opcode::MEq => (insn.p(1), None),
        Opcode::Eq2 => (insn.p(2), Some(insn.p(1))),
        _ => return None,
    };
    let mut ops: Vec<u32> = (0..n).map(|i| insn.operand(first, size, i)).collect();
    let mut want: Vec<u32> = vals.iter().map(|v| v & mask & size.max()).collect();
    ops.sort_unstable();
    want.sort_unstable();
    want.dedup();
    (ops == want && want.len() == vals.len()).then_some((mask, delta))
}

/// The same instruction with another value list in the operand slots, for comparing
/// two templates.
fn without_values(insn: &Instruction) -> Instruction {
    let Some((first, size, n, _)) = insn.operand_slots() else {
        return *insn;
    };
    (0..n).fold(*insn, |i, k| i.with_operand(first, size, k, 0))
}

/// Compiles distinct terms of one shape as the template with a SET over all values.
/// `None` when the two templates disagree beyond their values (the general pipeline
/// then decides).
///
/// `compile` compiles the text with the disjunction replaced by the tree it is given.
/// `top`: the disjunction is the whole text, so a term can be compiled alone for its
/// error, and the SET forms around a zero value joined as alternatives; inside other
/// operators neither holds, and those cases go to the general pipeline.
fn compile_set(
    terms: &[&Expr],
    text: &str,
    compile: &dyn Fn(Option<&Expr>) -> Result<PassSet, Error>,
    top: bool,
) -> Option<Result<PassSet, Error>> {
    let n = terms.len();
    if n <= SMALL {
        return None;
    }
    let pick = |idx: [usize; 3]| idx.map(|i| terms[i]);
    let (ta, tb) = (pick([0, 1, 2]), pick([n - 3, n - 2, n - 1]));
    let a = match compile(or_of(ta).as_ref()) {
        Ok(a) => a,
        // The first term's own error is the whole text's (libpcap stops there);
        // anything else is for the general pipeline to find.
        Err(_) if top => return compile(Some(terms[0])).err().map(Err),
        Err(_) => return None,
    };
    let b = compile(or_of(tb).as_ref()).ok()?;
    let (va, vb) = (ta.map(value_of), tb.map(value_of));
    if a.anchors() != b.anchors() || a.passes().len() != b.passes().len() {
        return None;
    }
    let t = Templates {
        a: &a,
        b: &b,
        va: &va,
        vb: &vb,
    };
    let (out, mask, swaps) = merged(&t).or_else(|| per_value(&t))?;
    // Values that fit the template's instruction stay there (see `SMALL`).
    let fits = swaps.iter().all(|(_, _, insn, _)| {
        let d = insn.decode();
        matches!((d.opcode, d.size), (Some(op), Some(size)) if n <= Instruction::capacity(op, size))
    });
    if fits {
        return None;
    }
    // libpcap's optimiser turns `x & m == 0` into `jset #m`, another kind of block,
    // which its pull-ups do not merge with the `jeq`s around it: the src-then-dst run
    // breaks there (`net 0.0.0.0/24` among 1,000 nets: src x149, dst x149, src x1,
    // dst x1, src x850, dst x850). So the values before the zero are one SET form, the
    // zero term is compiled alone, and the values after it another SET form, in that
    // order: the same loads in the same order.
    let masked = swaps.iter().any(|(_, _, insn, delta)| {
        delta.is_some()
            && insn
                .decode()
                .size
                .is_some_and(|sz| mask & sz.max() != sz.max())
    });
    let zero = terms.iter().position(|t| value_of(t) & mask == 0);
    let Some(z) = zero.filter(|_| masked) else {
        return Some(with_sets(out, mask, swaps, terms, text));
    };
    if !top {
        return None;
    }
    let whole = Span::new(0, text.len());
    let mut joined = PassSet::new();
    for (k, part) in [&terms[..z], &terms[z..=z], &terms[z + 1..]]
        .into_iter()
        .enumerate()
    {
        let set = match (k, part) {
            (_, []) => continue,
            (1, [zero]) => compile(Some(zero)),
            _ => with_sets(out.clone(), mask, swaps.clone(), part, text),
        };
        let appended = set.and_then(|p| {
            append(&mut joined, &p).map_err(|e| Error::new(e.to_string(), whole, text))
        });
        if let Err(e) = appended {
            return Some(Err(e));
        }
    }
    Some(Ok(joined))
}

/// Appends `src`'s passes to `dst` as further alternatives, with its anchors, GROUP
/// ranges and key tables renumbered into `dst`'s.
fn append(dst: &mut PassSet, src: &PassSet) -> Result<(), netsift_isa::UpdateError> {
    let mut anchors = vec![0u8; src.anchors().len().max(1)];
    for (i, a) in src.anchors().iter().enumerate().skip(1) {
        let parent = anchors.get(a.parent() as usize).copied().unwrap_or(0);
        anchors[i] = dst.anchor(netsift_isa::Anchor(
            (a.0 & !(0xff << 16)) | (parent as u32) << 16,
        ))?;
    }
    let tables = src
        .tables()
        .iter()
        .map(|t| dst.add_table(t.keys().iter().copied()))
        .collect::<Result<Vec<u32>, _>>()?;
    let base = dst.passes().len();
    for p in src.passes() {
        let i = dst.push_pass(p.kind, p.parent.map(|q| q as usize + base))?;
        for insn in p.instructions() {
            let mut im = insn.map_anchors(|a| anchors.get(a as usize).copied().unwrap_or(a));
            match im.decode().opcode {
                Some(Opcode::Group) => im.0[1] = im.0[1].wrapping_add(base as u32),
                Some(Opcode::Set) => {
                    im.0[1] = tables.get(im.0[1] as usize).copied().unwrap_or(u32::MAX)
                }
                _ => {}
            }
            dst.push_insn(i, im)?;
        }
    }
    Ok(())
}

/// An instruction of the template to replace by a SET: pass, index, the image, and
/// for EQ2 the delta to its second field.
type Swap = (usize, usize, Instruction, Option<u32>);

/// The two templates and the values each holds.
#[derive(Clone, Copy)]
struct Templates<'a> {
    a: &'a PassSet,
    b: &'a PassSet,
    va: &'a [u32; 3],
    vb: &'a [u32; 3],
}

/// A template to rewrite: the program, the values' mask, the value tests.
type Rewrite = (PassSet, u32, Vec<Swap>);

/// The templates as the optimiser leaves a disjunction over one field pair (`host`,
/// `port`, `net`): each test of the values is one instruction holding all three.
fn merged(t: &Templates) -> Option<Rewrite> {
    let Templates { a, b, va, vb } = *t;
    let out = a.clone();
    let mut mask_of_table = None;
    let mut swaps = Vec::new();
    for (pi, (pa, pb)) in a.passes().iter().zip(b.passes()).enumerate() {
        if pa.kind != pb.kind || pa.parent != pb.parent || pa.len() != pb.len() {
            return None;
        }
        for (k, (ia, ib)) in pa.instructions().iter().zip(pb.instructions()).enumerate() {
            match (tests_values(ia, va), tests_values(ib, vb)) {
                (None, None) if ia == ib => {}
                (Some(x), Some(y)) if x == y && without_values(ia) == without_values(ib) => {
                    let (mask, delta) = x;
                    // src-and-dst (the ALL bit) is not what SET's second pair means.
                    if delta.is_some_and(|d| d > 0xffff) {
                        return None;
                    }
                    if mask_of_table.is_some_and(|m| m != mask) {
                        return None;
                    }
                    mask_of_table = Some(mask);
                    swaps.push((pi, k, *ia, delta));
                }
                _ => return None,
            }
        }
    }
    Some((out, mask_of_table?, swaps))
}

/// The templates as the optimiser leaves a disjunction over one field (`src host`,
/// `tcp dst port`): the passes of the first value, then the same passes for each next
/// value, each testing the value last. They become the first value's passes with the
/// value test a SET over all values. Exact on cut packets too: the tests before the
/// value are the same for every value, so each runs (or faults) in the first value's
/// passes before any later pass could run it; a SET over one field loads it once, as
/// every value's test does. A two-field test (EQ2: src, then dst) per value is not
/// taken, since SET tries the first field against every value before the second.
fn per_value(t: &Templates) -> Option<Rewrite> {
    let Templates { a, b, va, vb } = *t;
    let np = a.passes().len();
    if !np.is_multiple_of(3) || np == 0 {
        return None;
    }
    let k = np / 3;
    let mut mask_of_table = None;
    let mut swaps = Vec::new();
    let mut keep = Vec::with_capacity(k);
    for j in 0..k {
        let p0 = &a.passes()[j];
        if p0.parent.is_some_and(|q| q as usize >= j) {
            return None;
        }
        keep.push((p0.kind, p0.parent));
        // Every block's pass j must be the first block's, but for a value test in
        // its last place.
        let last = p0.len().checked_sub(1)?;
        let mut value_test = true;
        let mut same_last = true;
        for (set, vals) in [(a, va), (b, vb)] {
            for (blk, &v) in vals.iter().enumerate() {
                let p = &set.passes()[blk * k + j];
                if p.kind != p0.kind || p.len() != p0.len() {
                    return None;
                }
                let bare = |i: &Instruction| i.with_copied(false);
                let (x, y) = (p.instructions(), p0.instructions());
                if x[..last].iter().map(bare).ne(y[..last].iter().map(bare)) {
                    return None;
                }
                same_last &= bare(&x[last]) == bare(&y[last]);
                match tests_values(&x[last], &[v]) {
                    Some((mask, None))
                        if without_values(&x[last]).with_copied(false)
                            == without_values(&y[last]).with_copied(false)
                            && mask_of_table.is_none_or(|m| m == mask) =>
                    {
                        mask_of_table = Some(mask);
                    }
                    _ => value_test = false,
                }
            }
        }
        match (value_test, same_last) {
            (true, false) => swaps.push((j, last, p0.instructions()[last], None)),
            (false, true) => {}
            _ => return None,
        }
    }
    if swaps.is_empty() {
        return None;
    }
    let mut out = PassSet::new();
    for (j, &(kind, parent)) in keep.iter().enumerate() {
        out.push_pass(kind, parent.map(|q| q as usize)).ok()?;
        for insn in a.passes()[j].instructions() {
            out.push_insn(j, *insn).ok()?;
        }
    }
    for an in a.anchors().iter().skip(1) {
        out.anchor(*an).ok()?;
    }
    (out.anchors() == a.anchors()).then_some((out, mask_of_table?, swaps))
}

/// The template `out` with each of `swaps` a SET over the values of `terms`.
fn with_sets(
    mut out: PassSet,
    mask: u32,
    swaps: Vec<Swap>,
    terms: &[&Expr],
    text: &str,
) -> Result<PassSet, Error> {
    let whole = Span::new(0, text.len());
    let keys = terms.iter().map(|t| set_key(value_of(t) & mask, 0));
    let table = out
        .add_table(keys)
        .map_err(|e| Error::new(e.to_string(), whole, text))?;
    for (pi, k, orig, delta) in swaps {
        let d = orig.decode();
        let set = d
            .size
            .and_then(|size| {
                let field = build::Field {
                    anchor: d.anchor,
                    offset: d.offset as u32,
                    size,
                };
                build::set(table, field, mask, None, 0, delta.map(|d| (d as u16, 0)))
            })
            .ok_or_else(|| Error::new("no SET for a table's field", whole, text))?
            .with_negate(orig.negated())
            .with_copied(orig.copied());
        out.set_insn(pi, k, set)
            .map_err(|e| Error::new(e.to_string(), whole, text))?;
    }
    Ok(out)
}
