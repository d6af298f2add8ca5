//! `expr relop expr`: libpcap's gen_load, gen_arth, gen_neg, gen_relation.
//!
//! A load `proto[i]` brings its own protocol checks (`tcp[0]` needs an IPv4 TCP
//! first fragment); libpcap runs those checks before the comparison, and netsift
//! keeps them as separate instructions in the same order. The arithmetic itself
//! becomes one ARITH instruction, whose loads all run (there is no short-circuit
//! inside an expression, in BPF either).

use super::ir::{Pred, Tree, Val};
use super::{AnchorId, LResult, Lowerer, Rel, RelOp, P};
use crate::syntax::ast::{Arith, BinOp};
use netsift_isa::{ArithOp, IndexMode, RelOp as IsaRel, Size};

/// libpcap's scratch registers (BPF_MEMWORDS).
const BPF_MEMWORDS: u32 = 16;
const TOO_MANY_REGISTERS: &str = "too many registers needed to evaluate expression";

/// The most scratch registers libpcap's gencode holds at once while it computes `a`
/// (its `alloc_reg`/`free_reg` in gen_loadi, gen_loadlen, gen_load, gen_arth): every
/// number and `len` takes one; a binary operator holds its left value while the right
/// one is computed, then frees both and takes one for the result; a load takes the
/// register for its value before it frees the index's. netsift's ARITH stack never
/// holds more values than this, so what libpcap compiles fits `ARITH_STACK`.
fn registers(a: &Arith) -> u32 {
    match a {
        Arith::Num(..) | Arith::Len(_) => 1,
        Arith::Neg(x, _) => registers(x),
        Arith::Bin(_, x, y) => registers(x).max(registers(y).saturating_add(1)),
        Arith::Load { index, .. } => registers(index).max(2),
    }
}

impl Lowerer<'_> {
    /// Takes `n` registers for the rest of the filter, or fails as libpcap's
    /// alloc_reg does when there are no more.
    pub(crate) fn hold_registers(&mut self, n: u32) -> LResult<()> {
        self.regs_held = self.regs_held.saturating_add(n);
        // These registers are the ones a relation before left its value in.
        self.wlan_regs.pending = None;
        if self.regs_held > BPF_MEMWORDS {
            return self.err(TOO_MANY_REGISTERS);
        }
        Ok(())
    }

    pub(crate) fn relation(&mut self, op: RelOp, lhs: &Arith, rhs: &Arith) -> LResult<Tree> {
        // libpcap holds the left side's value in a register while it computes the
        // right side.
        let need = registers(lhs).max(registers(rhs).saturating_add(1));
        if self.regs_held.saturating_add(need) > BPF_MEMWORDS {
            return self.err(TOO_MANY_REGISTERS);
        }
        self.rel_error = None;
        // A relation before the payload's first use allocates registers of its own:
        // which one the payload offset then gets is no longer known.
        if !self.pflog_payload_used {
            self.pflog_pending = None;
            self.pflog_clobbered = false;
        }
        self.wlan_regs.pending = None;
        let (a0, c0) = self.arith(lhs)?;
        let taken = self.wlan_regs.taken();
        let (a1, c1) = self.arith(rhs)?;
        self.pflog_clobber(&a1);
        self.wlan_clobber(&a1, taken);
        let (rel, reversed) = match op {
            RelOp::Gt => (IsaRel::Gt, false),
            RelOp::Ge => (IsaRel::Ge, false),
            RelOp::Eq => (IsaRel::Eq, false),
            RelOp::Le => (IsaRel::Gt, true),
            RelOp::Lt => (IsaRel::Ge, true),
            RelOp::Ne => (IsaRel::Eq, true),
        };
        let mut b = match (&a0, &a1) {
            // Both sides constant. Two numbers: libpcap's optimizer decides the
            // comparison at once and drops the tests that only lead to it. A computed
            // constant (`0 / 1`, `-15`) is known only a round later, when its optimizer
            // has stopped moving branches: the comparison is decided (both branches go
            // to one place) but the block stays, so the tests before it still run and
            // may fault; a load-free test does the same.
            (Val::Const(x), Val::Const(y)) => {
                let v = match rel {
                    IsaRel::Eq => x == y,
                    IsaRel::Gt => x > y,
                    IsaRel::Ge => x >= y,
                };
                let literal = |a: &Arith| matches!(a, Arith::Num(..));
                if (literal(lhs) && literal(rhs)) || self.unopt {
                    Tree::Const(v)
                } else {
                    super::ir::loadless(v)
                }
            }
            // libpcap's optimizer turns `x & K == 0` into `jset #K`, then treats
            // `jset #0xffffffff` as always taken: `x & 0xffffffff == 0` is always false
            // in libpcap 1.10 (and `!= 0` always true). Agree with it.
            (Val::Bin(ArithOp::And, _, k), Val::Const(0))
                if rel == IsaRel::Eq && **k == Val::Const(u32::MAX) && !self.unopt =>
            {
                Tree::Const(false)
            }
            _ => Tree::Atom(Pred::Rel {
                rel,
                lhs: a0,
                rhs: a1,
            }),
        };
        if let Tree::Atom(p @ Pred::Rel { lhs: l, rhs: r, .. }) = &b {
            // A constant the text does not give as a number is one only the
            // optimizer's second round knows (see `Computed`).
            let computed =
                |v: &Val, a: &Arith| matches!(v, Val::Const(_)) && !matches!(a, Arith::Num(..));
            let (cl, cr) = (computed(l, lhs), computed(r, rhs));
            if !self.unopt && (cl || cr) {
                self.computed.push(super::Computed {
                    rel: p.clone(),
                    lhs: cl,
                });
            }
        }
        if let Some((error, late)) = self.rel_error.take() {
            let rel = match &b {
                Tree::Atom(p @ Pred::Rel { .. }) => Some(p.clone()),
                _ => None,
            };
            self.opt_errors.push(super::OptError { rel, error, late });
        }
        if reversed {
            b = Tree::not(b);
        }
        let checks = and_opt(c0, c1);
        Ok(match checks {
            Some(c) => Tree::and(c, b),
            None => b,
        })
    }

    /// An arithmetic expression and the protocol checks its loads need.
    fn arith(&mut self, a: &Arith) -> LResult<(Val, Option<Tree>)> {
        Ok(match a {
            Arith::Num(v, _) => (Val::Const(*v), None),
            Arith::Len(_) => match self.len_as_read(0) {
                0 => (Val::Len, None),
                // The frame is read with a tag the kernel took out put back.
                tag => (
                    Val::Bin(ArithOp::Sub, Box::new(Val::Len), Box::new(Val::Const(tag))),
                    None,
                ),
            },
            Arith::Neg(x, _) => {
                let (v, c) = self.arith(x)?;
                match v {
                    Val::Const(k) => (Val::Const(k.wrapping_neg()), c),
                    v => (Val::Neg(Box::new(v)), c),
                }
            }
            Arith::Bin(op, x, y) => {
                let (vx, cx) = self.arith(x)?;
                match (op, first_imm(y)) {
                    (BinOp::Div, Some(0)) => return self.err_at("division by zero", y.span()),
                    (BinOp::Mod, Some(0)) => return self.err_at("modulus by zero", y.span()),
                    (BinOp::Shl | BinOp::Shr, Some(k)) if k > 31 => {
                        return self.err_at("shift by more than 31 bits", y.span())
                    }
                    _ => {}
                }
                let (vy, cy) = self.arith(y)?;
                let aop = match op {
                    BinOp::Add => ArithOp::Add,
                    BinOp::Sub => ArithOp::Sub,
                    BinOp::Mul => ArithOp::Mul,
                    BinOp::Div => ArithOp::Div,
                    BinOp::Mod => ArithOp::Mod,
                    BinOp::And => ArithOp::And,
                    BinOp::Or => ArithOp::Or,
                    BinOp::Xor => ArithOp::Xor,
                    BinOp::Shl => ArithOp::Shl,
                    BinOp::Shr => ArithOp::Shr,
                };
                // libpcap 1.10's gen_arth keeps only the left operand's protocol checks
                // (`ip[0] + tcp[0]` has no TCP check); netsift agrees with it.
                let _ = cy;
                if !self.unopt && self.rel_error.is_none() {
                    // The optimizer's own refusals, once value numbering knows the
                    // right operand (`opt_stmt`, `fold_op`): dividing by a constant 0,
                    // and shifting a value it does not know by a constant over 31 (a
                    // known value shifted that far folds to 0). Kept for the end of
                    // lowering (see `OptError`).
                    let msg = match (aop, &vx, &vy) {
                        (ArithOp::Div, _, Val::Const(0)) => Some("division by zero"),
                        (ArithOp::Mod, _, Val::Const(0)) => Some("modulus by zero"),
                        (ArithOp::Shl | ArithOp::Shr, x, Val::Const(k))
                            if *k > 31 && !matches!(x, Val::Const(_)) =>
                        {
                            Some("shift by more than 31 bits")
                        }
                        _ => None,
                    };
                    if let Some(m) = msg {
                        // A division of a value it does not know by a known 0 becomes
                        // `div #0` in one pass and is refused in the next (opt_stmt's
                        // check of a zero constant); the others are refused at once.
                        let late = matches!(aop, ArithOp::Div | ArithOp::Mod)
                            && !matches!(vx, Val::Const(_));
                        self.rel_error = self.err_at::<()>(m, y.span()).err().map(|e| (e, late));
                    }
                }
                (fold(aop, vx, vy, !self.unopt), cx)
            }
            Arith::Load {
                proto,
                index,
                size,
                span,
            } => {
                self.span = *span;
                let size = match Size::from_bytes(*size as u32) {
                    Some(s) => s,
                    None => return self.err_at("data size must be 1, 2, or 4", *span),
                };
                let (idx, ci) = self.arith(index)?;
                self.load(*proto, idx, ci, size)?
            }
        })
    }

    fn load(
        &mut self,
        proto: P,
        idx: Val,
        ci: Option<Tree>,
        size: Size,
    ) -> LResult<(Val, Option<Tree>)> {
        // libpcap loads `proto[i]` with `ld [x + k]`, k being the constant part of
        // the header's offset. The optimizer folds a constant index into k, where it
        // wraps alone; otherwise the index goes into X with the variable part (and
        // the IPv4 header length), where that sum wraps.
        // `ether[14]` past a tag put back reads 4 bytes further on (see `loc`); an
        // index computed from the packet reads the frame as it is delivered.
        let idx = match (proto, idx) {
            (P::Link, Val::Const(k)) if k >= 12 && self.stripped_tag() => {
                Val::Const(k.saturating_add(4))
            }
            (_, v) => v,
        };
        // The fold is opt_peep's `ld #k; [ldxms;] add x; tax; ld [x + k]` (or X a
        // known constant). Where X gets the variable part of a link header or payload
        // offset from its register first (`ldx M[r]` between `ld #k` and `add x`: a
        // header libpcap measures per packet, PFLOG's, 802.11's, Geneve's), the pattern
        // does not match and the constant stays in X (`ip[-44]` on PFLOG reads 44
        // bytes before the payload) - unless the protocol test just before loaded
        // through that register, so that X holds it already and the optimizer drops
        // the `ldx` (`icmp6[-4]` on PFLOG, after the next-header test, folds).
        let konst = matches!(idx, Val::Const(_)) && !self.unopt;
        let mode_at = |lw: &Self, loc: super::ir::Loc, check: Option<&Tree>| {
            let base = lw.measured(loc.anchor);
            let held = check.and_then(last_anchor).map(|a| lw.measured(a)) == Some(base);
            if konst && (held || base == 0) {
                IndexMode::InK
            } else {
                IndexMode::InX
            }
        };
        let mk = |loc: super::ir::Loc, mode: IndexMode| match idx {
            // An absolute base past what an anchor holds (a Juniper link type's
            // unset payload offset, -1 + -1): libpcap folds the index into k,
            // where the sum wraps (`ip[8]` at 6).
            Val::Const(i) if mode == IndexMode::InK && loc.anchor == 0 && loc.off > 0xffff => {
                Val::Load {
                    anchor: 0,
                    off: loc.off.wrapping_add(i),
                    index: Box::new(Val::Const(0)),
                    size,
                    mode,
                }
            }
            idx => Val::Load {
                anchor: loc.anchor,
                off: loc.off,
                index: Box::new(idx),
                size,
                mode,
            },
        };
        match proto {
            P::Link => {
                let loc = self.loc(Rel::LinkHdr, 0)?;
                let mode = mode_at(self, loc, None);
                Ok((mk(loc, mode), ci))
            }
            P::Ip
            | P::Arp
            | P::Rarp
            | P::Atalk
            | P::Decnet
            | P::Sca
            | P::Lat
            | P::Moprc
            | P::Mopdl
            | P::Ip6 => {
                let loc = self.loc(Rel::LinkPl, 0)?;
                let b = self.proto_abbrev(proto)?;
                let mode = mode_at(self, loc, Some(&b));
                Ok((mk(loc, mode), Some(and_opt(ci, Some(b)).expect("some"))))
            }
            P::Sctp
            | P::Tcp
            | P::Udp
            | P::Icmp
            | P::Igmp
            | P::Igrp
            | P::Pim
            | P::Vrrp
            | P::Carp => {
                let loc = self.loc(Rel::TranIpv4, 0)?;
                let mode = if konst {
                    IndexMode::InK
                } else {
                    IndexMode::InX
                };
                let pa = self.proto_abbrev(proto)?;
                let frag = self.ipfrag()?;
                let mut b = Tree::and(pa, frag);
                if let Some(c) = ci {
                    b = Tree::and(c, b);
                }
                let ip = self.proto_abbrev(P::Ip)?;
                Ok((mk(loc, mode), Some(Tree::and(ip, b))))
            }
            P::Icmp6 => {
                let mut b = self.proto_abbrev(P::Ip6)?;
                if let Some(c) = ci {
                    b = Tree::and(c, b);
                }
                let is58 = self.cmp(Rel::LinkPl, 6, Size::B1, 58)?;
                b = Tree::and(b, is58);
                let loc = self.loc(Rel::TranIpv6, 0)?;
                let mode = mode_at(self, loc, Some(&b));
                Ok((mk(loc, mode), Some(b)))
            }
            P::Radio => self.err("radio information not present in capture"),
            _ => self.err("unsupported index operation"),
        }
    }
}

/// The anchor the last test of `t` loads through, on every way out of it.
fn last_anchor(t: &Tree) -> Option<AnchorId> {
    match t {
        Tree::Atom(Pred::Cmp(c)) => Some(c.loc.anchor),
        Tree::Not(x) => last_anchor(x),
        Tree::And(v) => v.last().and_then(last_anchor),
        Tree::Or(v) => {
            let first = v.first().and_then(last_anchor)?;
            v.iter()
                .all(|x| last_anchor(x) == Some(first))
                .then_some(first)
        }
        _ => None,
    }
}

/// The constant of the first statement libpcap's gencode emits for `a`, if that is
/// `ld #k`. `gen_arth` refuses a division, modulus or shift by looking at the right
/// operand's *first statement*, not at its value: its leftmost leaf, since an
/// operation's code starts with its left operand's and a load's with its index's.
/// So `x << (40 - 10)` and `x << ip[40]` are shifts by more than 31 bits, and
/// `x / (0 + 5)` is a division by zero, as tcpdump reports them.
fn first_imm(a: &Arith) -> Option<u32> {
    match a {
        Arith::Num(k, _) => Some(*k),
        Arith::Len(_) => None,
        Arith::Load { index, .. } => first_imm(index),
        Arith::Neg(x, _) | Arith::Bin(_, x, _) => first_imm(x),
    }
}

/// Constant folding as libpcap's optimizer does it: both operands constant, a
/// multiplication/AND by the constant 0, or an operation that leaves a left operand 0
/// unchanged (whose other operand's loads are then dead).
fn fold(op: ArithOp, x: Val, y: Val, optimize: bool) -> Val {
    match (&x, &y) {
        (Val::Const(a), Val::Const(b)) => {
            let (a, b) = (*a, *b);
            let v = match op {
                ArithOp::Add => Some(a.wrapping_add(b)),
                ArithOp::Sub => Some(a.wrapping_sub(b)),
                ArithOp::Mul => Some(a.wrapping_mul(b)),
                ArithOp::Div => a.checked_div(b),
                ArithOp::Mod => a.checked_rem(b),
                ArithOp::And => Some(a & b),
                ArithOp::Or => Some(a | b),
                ArithOp::Xor => Some(a ^ b),
                ArithOp::Shl => Some(a.checked_shl(b).unwrap_or(0)),
                ArithOp::Shr => Some(a.checked_shr(b).unwrap_or(0)),
                _ => None,
            };
            match v {
                Some(v) => Val::Const(v),
                None => Val::Bin(op, Box::new(x), Box::new(y)),
            }
        }
        (_, Val::Const(0)) if optimize && matches!(op, ArithOp::Mul | ArithOp::And) => {
            Val::Const(0)
        }
        // An accumulator known to be 0 (opt_stmt's "doing something to an accumulator
        // that is 0"): `0 * x`, `0 / x`, `0 % x`, `0 & x`, `0 << x`, `0 >> x` are 0, and
        // `x`'s loads are dead (not even a division by a zero `x` faults).
        (Val::Const(0), _)
            if optimize
                && matches!(
                    op,
                    ArithOp::Mul
                        | ArithOp::Div
                        | ArithOp::Mod
                        | ArithOp::And
                        | ArithOp::Shl
                        | ArithOp::Shr
                ) =>
        {
            Val::Const(0)
        }
        _ => Val::Bin(op, Box::new(x), Box::new(y)),
    }
}

fn and_opt(a: Option<Tree>, b: Option<Tree>) -> Option<Tree> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Tree::and(a, b)),
        (a, None) => a,
        (None, b) => b,
    }
}
