//! Tests deep inside one child of an OR (dually: of an AND) whose two outcomes lead
//! the same way once the tests before them held.
//!
//! `fold::simp_or` cuts a conjunction of an OR once a prefix of it held and the rest
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

use crate::nnf::{Frame, Nnf};
use crate::opt::budget::{Budget, Fuel};
use crate::opt::facts::{learn_all, learn_fail, Facts};

/// The rest of an enclosing list, run when the child being looked at goes its
/// continuing way (holds in an AND, fails in an OR).
struct Around<'a> {
    rest: &'a [Nnf],
    is_and: bool,
    /// The facts every way into the child being looked at has (its dominators'
    /// outcomes in libpcap's flow graph), so every way into the rest too.
    entry: Facts,
    /// Whether that child is the first of its list (no earlier sibling, already
    /// pruned, is a way out of the list).
    first: bool,
}

/// `c`, a child of an OR (`top_is_and` false) or an AND followed by `tail` there,
/// with the tests that cannot change the outcome where they stand dropped. `facts`
/// hold where `c` starts.
pub(crate) fn prune(
    c: &Nnf,
    facts: &Facts,
    tail: &[Nnf],
    top_is_and: bool,
    fuel: &mut Fuel,
) -> Nnf {
    if tail.is_empty() {
        return c.clone();
    }
    let mut frames = vec![Around {
        rest: tail,
        is_and: top_is_and,
        entry: facts.clone(),
        first: true,
    }];
    node(c, facts, &mut frames, fuel)
}

fn node<'a>(n: &'a Nnf, f: &Facts, frames: &mut Vec<Around<'a>>, fuel: &mut Fuel) -> Nnf {
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
        // as the cut in `fold::simp_or` keeps it.)
        if k > 0 && fuel.burn(1) {
            // One question's parts share what every way into the lists around knows.
            let mut cut = Cut::new(frames, &fa, is_and, fuel.limits);
            let held = finish(&mut cut, true);
            // Asked only where an answer could cut.
            let failed = match held.is_some() || !is_and {
                true => finish(&mut cut, false),
                false => None,
            };
            if held.is_some() && held == failed {
                break;
            }
            // The list cut here keeps its prefix, so it then ends as that prefix went
            // (an AND holds, an OR fails): the rest may go if running it as it
            // stands always ends the same way as that.
            let kept = if is_and { held } else { failed };
            if kept.is_some()
                && v.len() - k <= fuel.limits.dead_rest
                && finish_rest(&mut cut, &v[k..]) == kept
            {
                break;
            }
        }
        frames.push(Around {
            rest: &v[k + 1..],
            is_and,
            entry: fa.clone(),
            first: k == 0,
        });
        let x = node(&v[k], &fa, frames, fuel);
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
/// with facts `f`, if every way on from here reaches the same one.
///
/// This is libpcap's bottom-up removal of a test whose two edges reach the same
/// block. Threading moves an edge past every test its facts decide, so those go their
/// way with the path's facts. A test they do not decide is a block libpcap keeps for
/// now, and it is followed both ways; what its two edges know is what every way into
/// it knows (its dominators: the facts where its list started, plus what each earlier
/// sibling's continuing way out of it establishes), and the edge's own outcome, not the
/// facts of the path taken to get there, which a join in libpcap's flow graph forgets.
/// The outcome counts only if both ways end alike.
///
/// Sound whatever libpcap does: every fact used holds for every packet that gets past
/// the prefix, whichever way the list in question ends, so when both endings give the
/// same outcome on every way on, the rest of the list cannot change the verdict. What
/// the lists around the one in question establish is read with that list cut after
/// its prefix and ending either way ([`Cut::base`]), never from its tests past the
/// cut: which ways those allow is what is in question.
fn finish(cut: &mut Cut, b: bool) -> Option<bool> {
    let k = outer(cut);
    let mut f = cut.facts.clone();
    let mut branches = cut.limits.dead_branches;
    run(k, Step::Ret(b), &mut f, cut, &mut branches)
}

/// The outcome of the outermost list when the rest of the innermost one, `rest`,
/// runs as it stands, if every way through it and on reaches the same one. Where the
/// rest can only end in ways that decide what follows (a last alternative whose every
/// way contradicts the conjunct after the OR), this sees what [`finish`], asking
/// about either ending whatever the rest allows, cannot.
fn finish_rest(cut: &mut Cut, rest: &[Nnf]) -> Option<bool> {
    let mut k = outer(cut);
    k.push(Frame::new(rest, cut.is_and, Base::Cut));
    let mut f = cut.facts.clone();
    let is_and = cut.is_and;
    let mut branches = cut.limits.dead_branches;
    run(k, Step::Ret(is_and), &mut f, cut, &mut branches)
}

/// The lists around the cut, for [`run`].
fn outer<'a>(cut: &Cut<'_, 'a>) -> Vec<Frame<'a, Base>> {
    (0..cut.frames.len())
        .map(|i| Frame::new(cut.frames[i].rest, cut.frames[i].is_and, Base::Around(i)))
        .collect()
}

/// The question [`finish`] answers: the lists around the one being cut, the facts
/// where it is cut, and that list's kind.
struct Cut<'c, 'a> {
    frames: &'c [Around<'a>],
    facts: &'c Facts,
    is_and: bool,
    /// What every way into each frame's rest has, once a test needs it.
    bases: Option<Vec<Facts>>,
    limits: &'c Budget,
}

impl<'c, 'a> Cut<'c, 'a> {
    fn new(
        frames: &'c [Around<'a>],
        facts: &'c Facts,
        is_and: bool,
        limits: &'c Budget,
    ) -> Cut<'c, 'a> {
        Cut {
            frames,
            facts,
            is_and,
            bases: None,
            limits,
        }
    }

    /// What every way into the rest of frame `i` has: the facts every way out of its
    /// child (the list around the cut, or the one being cut) in the continuing
    /// direction establishes, where the list being cut ends either way after the
    /// prefix that held. Earlier siblings inside these lists are already pruned, so
    /// what they establish is taken only from the facts where the next one starts;
    /// later siblings stand as they are.
    fn base(&mut self, i: usize) -> Facts {
        if self.bases.is_none() {
            self.bases = Some(self.all_bases());
        }
        self.bases.as_ref().expect("just set")[i].clone()
    }

    fn all_bases(&self) -> Vec<Facts> {
        let fr = self.frames;
        let m = fr.len() - 1;
        // (held, failed): what every way through the innermost frame's child, the
        // list being cut, has when it ends that way. Its own direction ("all
        // children went it": held for an AND) after the prefix: the prefix's facts.
        // The other: some child went it, perhaps in the pruned prefix: just its entry.
        let mut w = if self.is_and {
            (self.facts.clone(), fr[m].entry.clone())
        } else {
            (fr[m].entry.clone(), self.facts.clone())
        };
        let mut out = vec![Facts::default(); fr.len()];
        out[m] = if fr[m].is_and {
            w.0.clone()
        } else {
            w.1.clone()
        };
        for i in (0..m).rev() {
            // Frame i's child is the list whose elements frame i + 1 walks.
            let inner = &fr[i + 1];
            let mut nodes = self.limits.dead_nodes;
            let all = |d: bool, base: Facts, nodes: &mut u32| {
                inner.rest.iter().fold(base, |f, c| settled(c, d, f, nodes))
            };
            let some = |d: bool, w: &(Facts, Facts), nodes: &mut u32| {
                if !inner.first {
                    return fr[i].entry.clone();
                }
                let (wd, wo) = if d { (&w.0, &w.1) } else { (&w.1, &w.0) };
                let mut ways = vec![wd.clone()];
                let mut before = wo.clone();
                for c in inner.rest {
                    ways.push(settled(c, d, before.clone(), nodes));
                    before = settled(c, !d, before, nodes);
                }
                Facts::shared(ways)
            };
            w = if inner.is_and {
                (
                    all(true, w.0.clone(), &mut nodes),
                    some(false, &w, &mut nodes),
                )
            } else {
                (
                    some(true, &w, &mut nodes),
                    all(false, w.1.clone(), &mut nodes),
                )
            };
            out[i] = if fr[i].is_and {
                w.0.clone()
            } else {
                w.1.clone()
            };
        }
        out
    }
}

/// `f` plus the facts every way through `x` that ends `held` has: the literals of a
/// list that must all go that way, and the facts shared by every alternative of a
/// list any one of whose children may. The alternatives' ways meet again after the
/// list, where libpcap's dominators keep just what they share (`host A` is two
/// alternatives, each after its own IPv4 test: past it, IPv4 is known).
fn settled(x: &Nnf, held: bool, mut f: Facts, nodes: &mut u32) -> Facts {
    if *nodes == 0 {
        return f;
    }
    *nodes -= 1;
    match x {
        Nnf::Lit(p, neg) => {
            f.learn(p, if held { *neg } else { !*neg });
            f
        }
        // Every child goes the way the list does.
        Nnf::And(v) if held => v.iter().fold(f, |f, c| settled(c, held, f, nodes)),
        Nnf::Or(v) if !held => v.iter().fold(f, |f, c| settled(c, held, f, nodes)),
        // Some child does, after the ones before it went the other way.
        Nnf::And(v) | Nnf::Or(v) if !v.is_empty() => {
            let mut before = f;
            let mut ways = Vec::with_capacity(v.len());
            for c in v {
                ways.push(settled(c, held, before.clone(), nodes));
                before = settled(c, !held, before, nodes);
            }
            Facts::shared(ways)
        }
        _ => f,
    }
}

/// `entry` plus what every way out of `x` that continues its list (holds in an AND,
/// fails in an OR) establishes: the literals that must all have gone that way.
fn continued(mut entry: Facts, x: &Nnf, is_and: bool) -> Facts {
    if is_and {
        learn_all(x, &mut entry);
    } else {
        learn_fail(x, &mut entry);
    }
    entry
}

/// Where the facts every way into a list [`run`] is inside have come from (its
/// frame's `extra`). They are worked out only where a test is followed both ways,
/// which is rare: most questions end on tests the path decides.
#[derive(Clone, Copy)]
enum Base {
    /// A list around the cut: frame `i` of [`Cut::frames`].
    Around(usize),
    /// A list met on the way: its parent's facts at it.
    Parent,
    /// The rest of the list being cut: the facts where it is cut.
    Cut,
}

/// What every way into the child of `k`'s innermost list that runs now (the one
/// before its `next`) knows: each list's entry facts plus what its earlier children's
/// continuing ways out establish, from the outermost list with known entry facts in.
fn dominators(k: &[Frame<Base>], cut: &mut Cut) -> Facts {
    let start = k
        .iter()
        .rposition(|fr| !matches!(fr.extra, Base::Parent))
        .unwrap_or(0);
    let mut f = Facts::default();
    for (i, fr) in k.iter().enumerate().skip(start) {
        match (i == start, &fr.extra) {
            (true, Base::Around(o)) => f = cut.base(*o),
            (true, Base::Cut) => f = cut.facts.clone(),
            _ => {}
        }
        for x in fr.passed() {
            f = continued(f, x, fr.is_and);
        }
    }
    f
}

/// What [`run`] does next: evaluate a node, or hand a list's value outward.
enum Step<'a> {
    Eval(&'a Nnf),
    Ret(bool),
}

/// Runs `s` with continuation `k` (the lists being evaluated, innermost last), in a
/// loop so that long lists cannot deepen the stack; it recurses only where it follows
/// an undecided test both ways, at most `branches` times.
fn run<'a>(
    mut k: Vec<Frame<'a, Base>>,
    mut s: Step<'a>,
    f: &mut Facts,
    cut: &mut Cut,
    branches: &mut u32,
) -> Option<bool> {
    loop {
        s = match s {
            Step::Ret(b) => match k.last_mut() {
                None => return Some(b),
                // The list goes on: an AND whose child held, an OR whose child failed.
                Some(fr) if fr.goes_on(b) => Step::Eval(fr.advance()),
                // Decided, or out of children: `b` is the list's value.
                Some(_) => {
                    k.pop();
                    Step::Ret(b)
                }
            },
            Step::Eval(x) => match x {
                Nnf::Const(c) => Step::Ret(*c),
                Nnf::Lit(p, neg) => match f.decide(p, *neg) {
                    Some(r) => {
                        f.learn(p, if r { *neg } else { !*neg });
                        Step::Ret(r)
                    }
                    None => {
                        if *branches == 0 {
                            return None;
                        }
                        *branches -= 1;
                        let dom = dominators(&k, cut);
                        let mut held = dom.clone();
                        held.learn(p, *neg);
                        let held = run(k.clone(), Step::Ret(true), &mut held, cut, branches)?;
                        let mut failed = dom;
                        failed.learn(p, !*neg);
                        let failed = run(k, Step::Ret(false), &mut failed, cut, branches)?;
                        return (held == failed).then_some(held);
                    }
                },
                Nnf::And(v) | Nnf::Or(v) => {
                    let is_and = matches!(x, Nnf::And(_));
                    k.push(Frame::new(v, is_and, Base::Parent));
                    Step::Ret(is_and)
                }
                Nnf::Decided(_, y) => Step::Eval(y),
                Nnf::Unoptimized(_) => return None,
            },
        };
    }
}
