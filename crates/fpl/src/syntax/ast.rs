//! The syntax tree: what the text says, with spans, before names are resolved
//! and anything is checked. Every expression knows its depth, so that the
//! recursive passes after the parser have a bound on their stack.

use crate::error::Span;
use crate::ops::{BinOp, UnOp};

/// A packet load's width, as `PKT.B`, `PKT.W` and `PKT.DW` name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Width {
    /// `B`: one byte.
    Byte,
    /// `W`: a 16-bit word, network byte order.
    Word,
    /// `DW`: a 32-bit double word, network byte order.
    DWord,
}

impl Width {
    /// Bytes the load reads.
    pub fn bytes(self) -> usize {
        match self {
            Width::Byte => 1,
            Width::Word => 2,
            Width::DWord => 4,
        }
    }
}

/// An expression and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Expr {
    pub(crate) kind: ExprKind,
    pub(crate) span: Span,
    /// 1 for a leaf; 1 + the deepest operand otherwise.
    pub(crate) depth: u32,
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ExprKind {
    Int(i64),
    /// A bare name: a field macro or a constant.
    Name(String),
    /// `PKT.NAME`: a field macro.
    Field(String),
    /// `PKT.B[e]`, `PKT.W[e]`, `PKT.DW[e]`.
    Pkt(Width, Box<Expr>),
    /// `R[e]`
    Reg(Box<Expr>),
    /// `MEM[e]` or `M[e]`
    Mem(Box<Expr>),
    /// `base.U<bits>[index]` or `base.S<bits>[index]`.
    Select {
        base: Box<Expr>,
        signed: bool,
        bits: u8,
        index: Box<Expr>,
    },
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `&&`
    And(Box<Expr>, Box<Expr>),
    /// `||`
    Or(Box<Expr>, Box<Expr>),
    /// `HASH(start, len, size)`
    Hash(Box<[Expr; 3]>),
    /// `EXTERN(name, in, out)`
    Extern {
        name: String,
        name_span: Span,
        input: Box<Expr>,
        output: Box<Expr>,
    },
}

impl Expr {
    pub(crate) fn new(kind: ExprKind, span: Span) -> Expr {
        let depth = 1 + match &kind {
            ExprKind::Int(_) | ExprKind::Name(_) | ExprKind::Field(_) => 0,
            ExprKind::Pkt(_, e) | ExprKind::Reg(e) | ExprKind::Mem(e) | ExprKind::Unary(_, e) => {
                e.depth
            }
            ExprKind::Select {
                base: a, index: b, ..
            }
            | ExprKind::Binary(_, a, b)
            | ExprKind::And(a, b)
            | ExprKind::Or(a, b)
            | ExprKind::Extern {
                input: a,
                output: b,
                ..
            } => a.depth.max(b.depth),
            ExprKind::Hash(args) => args.iter().map(|a| a.depth).max().unwrap_or(0),
        };
        Expr { kind, span, depth }
    }
}

/// A statement and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stmt {
    pub(crate) kind: StmtKind,
    pub(crate) span: Span,
}

/// The kinds of statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum StmtKind {
    /// `target = value`, or `target op= value` with `op`.
    Assign {
        target: Expr,
        op: Option<BinOp>,
        value: Expr,
    },
    /// `target++` (`+1`) or `target--` (`-1`), prefix or postfix.
    Step {
        target: Expr,
        delta: i64,
    },
    If {
        cond: Expr,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    For {
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        step: Option<Box<Stmt>>,
        body: Vec<Stmt>,
    },
    Break,
    Return(Option<Expr>),
    /// An `EXTERN` call for its effect on MBuf.
    Eval(Expr),
}
