//! The lowering's output: a boolean tree of field predicates, the same atoms
//! libpcap's code generator emits (load, mask, compare), in the same order.

use netsift_isa::Size;

/// Index into `Lowerer`'s anchor list; 0 is the start of the packet.
pub(crate) type AnchorId = usize;

/// An anchor as the lowering sees it, before it becomes a pass-set anchor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct AnchorSpec {
    pub rule: netsift_isa::AnchorRule,
    pub parent: AnchorId,
    pub offset: u32,
}

/// Where a field is: `anchor + off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Loc {
    pub anchor: AnchorId,
    pub off: u32,
}

/// BPF's conditional jumps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Test {
    /// `f & mask == k`
    Eq(u32),
    /// `f & mask > k` (unsigned)
    Gt(u32),
    /// `f & mask >= k` (unsigned)
    Ge(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Cmp {
    pub loc: Loc,
    pub size: Size,
    pub mask: u32,
    pub test: Test,
}

/// An arithmetic expression over packet fields (`expr relop expr`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Val {
    Const(u32),
    Len,
    /// Field at `anchor + off + index`, the index added as `mode` says (how
    /// libpcap's `ld [x + k]` splits it; see [`netsift_isa::IndexMode`]).
    Load {
        anchor: AnchorId,
        off: u32,
        index: Box<Val>,
        size: Size,
        mode: netsift_isa::IndexMode,
    },
    Neg(Box<Val>),
    Bin(netsift_isa::ArithOp, Box<Val>, Box<Val>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Pred {
    Cmp(Cmp),
    /// Wire length test.
    Len(Test),
    /// A comparison whose outcome is known but which libpcap's program still runs
    /// (see [`loadless`]): loads nothing. Kept apart from `Len` so that `greater 0`,
    /// which libpcap does not fold, is not taken for one.
    Known(bool),
    /// `lhs rel rhs`, rel being Eq/Gt/Ge with the constants unused.
    Rel {
        rel: netsift_isa::RelOp,
        lhs: Val,
        rhs: Val,
    },
    /// libpcap 1.10's `byte N & M` / `byte N | M`: no load at all, `(A op M) != 0` on
    /// whatever its BPF accumulator holds there (the last field loaded on the path).
    /// Instruction selection resolves it against the test before it on each path.
    Acc {
        or: bool,
        val: u32,
    },
    /// `protochain`: the IP header at `nl` of `version` 4 or 6 chains to `proto`.
    Protochain {
        nl: Loc,
        version: u32,
        proto: u32,
    },
}

/// A boolean tree; children of `And`/`Or` are evaluated left to right.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Tree {
    Const(bool),
    Atom(Pred),
    Not(Box<Tree>),
    And(Vec<Tree>),
    Or(Vec<Tree>),
    /// The whole filter, for a program libpcap does not optimize (`geneve`,
    /// `protochain`): every test runs as generated, so later steps must not fold or
    /// reorder tests the way libpcap's optimizer would. Only ever at the root; its
    /// tree has no `Const` (a constant is a load-free `Known` test there, so that the
    /// tests before it still run).
    Unoptimized(Box<Tree>),
}

impl Tree {
    /// `a and b`, `a` first (libpcap's `gen_and(a, b)`).
    pub(crate) fn and(a: Tree, b: Tree) -> Tree {
        Tree::And(vec![a, b])
    }
    /// `a or b`, `a` first (libpcap's `gen_or(a, b)`).
    pub(crate) fn or(a: Tree, b: Tree) -> Tree {
        Tree::Or(vec![a, b])
    }
    /// `not a` (a constructor, not `std::ops::Not`: it builds a tree node).
    #[allow(clippy::should_implement_trait)]
    pub(crate) fn not(a: Tree) -> Tree {
        Tree::Not(Box::new(a))
    }
    pub(crate) fn and_all(v: Vec<Tree>) -> Tree {
        Tree::And(v)
    }
}

/// A constant that still runs as a test (libpcap's unoptimized gen_true/gen_false):
/// a wire-length test that loads nothing.
pub(crate) fn loadless(b: bool) -> Tree {
    Tree::Atom(Pred::Known(b))
}

/// Replaces the constants of `t` by [`loadless`] tests (see [`Tree::Unoptimized`]).
pub(crate) fn keep_constants(t: Tree) -> Tree {
    match t {
        Tree::Const(b) => loadless(b),
        Tree::Atom(_) => t,
        Tree::Not(x) => Tree::Not(Box::new(keep_constants(*x))),
        Tree::And(v) => Tree::And(v.into_iter().map(keep_constants).collect()),
        Tree::Or(v) => Tree::Or(v.into_iter().map(keep_constants).collect()),
        Tree::Unoptimized(x) => Tree::Unoptimized(Box::new(keep_constants(*x))),
    }
}
