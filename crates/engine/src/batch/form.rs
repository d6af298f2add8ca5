//! The batch engine's view of a pass set, built once when it is loaded.

use crate::compiled::Op;
use netsift_isa::insn::Opcode;
use netsift_isa::{PassKind, PassSet};

/// How one instruction runs over lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    /// A decoded EQ/MEQ/EQ2/RANGE/LEN, run lane-wise.
    Fast(Op),
    /// GROUP over passes `first .. first + count`, run by the walker.
    Group { first: u32, count: u32 },
    /// Everything else: the per-packet interpreter, one lane at a time, from the image.
    Image,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct BOp {
    pub kind: Kind,
    pub negate: bool,
    pub copied: bool,
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
}

impl Form {
    pub fn new(set: &PassSet, ops: &[Vec<Op>]) -> Form {
        let mut passes: Vec<BPass> = set
            .passes()
            .iter()
            .zip(ops)
            .enumerate()
            .map(|(i, (p, ops))| BPass {
                kind: p.kind,
                parent: p.parent.map(usize::from).filter(|&q| q < i),
                has_child: false,
                ops: p
                    .instructions()
                    .iter()
                    .zip(ops)
                    .map(|(insn, &op)| {
                        let d = insn.decode();
                        let kind = match (op, d.opcode) {
                            (_, Some(Opcode::Group)) => Kind::Group {
                                first: insn.p(1),
                                count: insn.p(2),
                            },
                            (Op::Image, _) => Kind::Image,
                            (op, _) => Kind::Fast(op),
                        };
                        BOp {
                            kind,
                            negate: insn.negated(),
                            copied: insn.copied(),
                        }
                    })
                    .collect(),
            })
            .collect();
        for i in 0..passes.len() {
            if let Some(q) = passes[i].parent {
                passes[q].has_child = true;
            }
        }
        let roots = (0..passes.len())
            .filter(|&i| passes[i].kind == PassKind::Root)
            .collect();
        Form { passes, roots }
    }
}
