//! The checked IR to eBPF, one node at a time, verifier-friendly by construction.
//!
//! An expression leaves its value in r7; a binary operator keeps its left value
//! in a stack temporary while the right one is computed (a leaf on the right is
//! loaded straight into r1), then computes `r0 = r0 op r1`. r6 holds the
//! context (the legacy packet loads need it there), r8 and r9 hold `HASH`'s
//! state and an MBuf address; r0..r5 are scratch, since a packet load clobbers
//! them.
//!
//! The checks the verifier needs to see are the language's own run-time checks:
//!
//! - a packet load first compares its offset (unsigned, so a negative one is
//!   huge) and its end with the frame's length, kept in a stack slot, then
//!   reads: with `LD_IND` from `skb->data` (the MAC header on a packet socket
//!   and in a `SCHED_CLS` test run), or on the XDP hook with
//!   `bpf_xdp_load_bytes` (the only part that depends on the hook, with the
//!   prologue and the ending, which is `xdp::epilogue`'s);
//! - an MBuf slot is compared (unsigned) with the slot count before it becomes a
//!   map value offset, so the verifier knows its range;
//! - a loop counts its runs in a stack slot of its own, a constant the verifier
//!   follows, against the loop's bound: the verifier sees every loop end.
//!
//! A failed check jumps to one place that stores result 0 and ends as a
//! result of 0 does: 0 from a socket filter, `XDP_PASS` with no copy on XDP.

use super::{Error, Maps, RESULT_WORD};
use crate::asm::{
    Alu, Asm, Cond, Insn, Label, Reg, Width, R0, R1, R10, R2, R3, R4, R6, R7, R8, R9,
};
use crate::codegen::Hook;
use crate::helpers::{XDP_GET_BUFF_LEN, XDP_LOAD_BYTES};
use crate::layout::XDP_LEN;
use netsift_fpl::hash::{FNV_OFFSET, FNV_PRIME};
use netsift_fpl::hir::{self, Expr, Loop, Place, Program, Stmt, SLOT_BYTES};
use netsift_fpl::ops::{BinOp, UnOp};

/// Stack slot of the packet's length (`__sk_buff.len`, `bpf_xdp_get_buff_len`).
const LEN: i16 = -8;
/// Stack slot `bpf_xdp_load_bytes` copies into.
const BUF: i16 = -16;
/// The most loops nested inside one another, each with a counter slot.
pub(super) const MAX_LOOPS: usize = 8;
/// The first loop counter's slot; deeper ones follow downwards.
const COUNTERS: i16 = -24;
/// The first expression temporary's slot.
const TEMPS: i16 = COUNTERS - 8 * MAX_LOOPS as i16;
/// Expression temporaries: what is left of the 512-byte stack.
pub(super) const MAX_TEMPS: usize = (512 + TEMPS as i32) as usize / 8;

// Opcodes the assembler has no method for (dst is r0 in `Asm::raw`).
/// `BPF_LD | BPF_IND | size`: r0 = the packet's bytes at `src + imm`.
const LD_IND_W: u8 = 0x40;
const LD_IND_H: u8 = 0x48;
const LD_IND_B: u8 = 0x50;
/// `BPF_ALU64 | BPF_DIV | BPF_X` and `BPF_MOD`, with `off = 1`: signed.
const SDIV_X: u8 = 0x3f;
const SMOD_X: u8 = 0x9f;
/// `BPF_ALU64 | BPF_ARSH | BPF_X` and `| BPF_K`.
const ARSH_X: u8 = 0xcf;
const ARSH_K: u8 = 0xc7;
/// `BPF_STX | BPF_ATOMIC | BPF_DW` with `imm = BPF_ADD`: `*(u64 *)(r0 + off) += src`.
const ATOMIC_ADD_DW: u8 = 0xdb;

/// The program's instructions, for `hook`.
pub(super) fn program(p: &Program, maps: Maps, hook: Hook) -> Result<Vec<Insn>, Error> {
    let mut a = Asm::new();
    let (fault, ret) = (a.label(), a.label());
    let mut g = Gen {
        a,
        maps,
        slots: i32::try_from(p.mbuf_len() / SLOT_BYTES).unwrap_or(i32::MAX),
        fault,
        ret,
        breaks: Vec::new(),
        hook,
    };
    g.a.mov64_reg(R6, R1);
    match hook {
        Hook::Skb => g.a.ldx(Width::W, R0, R6, 0),
        Hook::Xdp { .. } | Hook::XdpVerdict => g.a.call(XDP_GET_BUFF_LEN),
    }
    g.a.stx(Width::DW, R10, LEN, R0);
    g.block(p.body())?;
    // Off the end: result 0.
    g.a.bind(g.fault);
    g.a.mov64_imm(R7, 0);
    g.a.bind(g.ret);
    g.a.ld_map_value(R1, maps.regs, (RESULT_WORD * SLOT_BYTES) as u32);
    g.a.stx(Width::DW, R1, 0, R7);
    match hook {
        // A block's answer: 0, or the frame's length (never 0 for a frame).
        Hook::Skb | Hook::XdpVerdict => {
            let out = g.a.label();
            g.a.mov64_imm(R0, 0);
            g.a.jmp_imm(Cond::Eq, R7, 0, out);
            g.a.ldx(Width::DW, R0, R10, LEN);
            g.a.bind(out);
            g.a.exit();
        }
        Hook::Xdp {
            ring,
            stats,
            cap,
            redirect,
        } => {
            // The XDP level's own ending: every frame passes on, an accepted one
            // is first copied into the ring (or, for the daemon's AF_XDP source,
            // redirected to its socket). Every slot of ours is dead by now.
            g.a.ldx(Width::DW, R1, R10, LEN);
            g.a.stx(Width::W, R10, XDP_LEN, R1);
            g.a.mov64_reg(R0, R7);
            match redirect {
                None => crate::xdp::epilogue(&mut g.a, ring, stats, cap),
                Some(map) => crate::xdp::redirect_epilogue(&mut g.a, map, stats),
            }
        }
    }
    g.a.finish()
        .map_err(|e| Error::TooLarge(format!("the program is too long for eBPF's jumps ({e})")))
}

struct Gen {
    a: Asm,
    maps: Maps,
    /// MBuf slots.
    slots: i32,
    /// Where a failed check goes.
    fault: Label,
    /// Where `RETURN` goes with its value in r7.
    ret: Label,
    /// The innermost loops' exits.
    breaks: Vec<Label>,
    /// Where the program runs: how it reads the packet and ends.
    hook: Hook,
}

/// Whether `op` is a comparison, which a test compiles to a jump.
fn compares(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
    )
}

fn temp(t: usize) -> Result<i16, Error> {
    if t >= MAX_TEMPS {
        return Err(Error::TooLarge(format!(
            "an expression nests deeper than the {MAX_TEMPS} temporaries of the kernel's 512-byte stack"
        )));
    }
    Ok(TEMPS - 8 * t as i16)
}

impl Gen {
    fn block(&mut self, body: &[Stmt]) -> Result<(), Error> {
        body.iter().try_for_each(|s| self.stmt(s))
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), Error> {
        match s {
            Stmt::Assign {
                target: Place::Reg(r),
                op,
                value,
            } => {
                self.expr(value, 0)?;
                let at = u32::from(*r) * SLOT_BYTES as u32;
                if let Some(op) = op {
                    self.a.mov64_reg(R1, R7);
                    self.a.ld_map_value(R2, self.maps.regs, at);
                    self.a.ldx(Width::DW, R0, R2, 0);
                    self.binop(*op);
                    self.a.mov64_reg(R7, R0);
                }
                self.a.ld_map_value(R1, self.maps.regs, at);
                self.a.stx(Width::DW, R1, 0, R7);
            }
            Stmt::Assign {
                target: Place::Mem(i),
                op,
                value,
            } => {
                self.expr(value, 0)?;
                let t = temp(0)?;
                self.a.stx(Width::DW, R10, t, R7);
                self.expr(i, 1)?;
                self.slot_address();
                self.a.ldx(Width::DW, R1, R10, t);
                match op {
                    // Counters stay exact when two CPUs run the filter at once.
                    Some(BinOp::Add | BinOp::Sub) => {
                        if *op == Some(BinOp::Sub) {
                            self.a.mov64_imm(R2, 0);
                            self.a.alu64_reg(Alu::Sub, R2, R1);
                            self.a.mov64_reg(R1, R2);
                        }
                        self.a.mov64_reg(R0, R8);
                        self.a.raw(ATOMIC_ADD_DW, R1, 0, 0);
                    }
                    Some(op) => {
                        self.a.ldx(Width::DW, R0, R8, 0);
                        self.binop(*op);
                        self.a.stx(Width::DW, R8, 0, R0);
                    }
                    None => self.a.stx(Width::DW, R8, 0, R1),
                }
            }
            Stmt::If { cond, then, els } => {
                let (no, end) = (self.a.label(), self.a.label());
                self.branch(cond, false, no)?;
                self.block(then)?;
                self.a.ja(end);
                self.a.bind(no);
                self.block(els)?;
                self.a.bind(end);
            }
            Stmt::Loop(l) => self.run_loop(l)?,
            Stmt::Break => {
                let exit = *self.breaks.last().ok_or_else(|| {
                    Error::TooLarge("BREAK outside a loop in a checked program".into())
                })?;
                self.a.ja(exit);
            }
            Stmt::Return(e) => {
                self.expr(e, 0)?;
                self.a.ja(self.ret);
            }
            Stmt::Eval(e) => self.expr(e, 0)?,
        }
        Ok(())
    }

    fn run_loop(&mut self, l: &Loop) -> Result<(), Error> {
        let depth = self.breaks.len();
        if depth >= MAX_LOOPS {
            return Err(Error::TooLarge(format!(
                "loops nest deeper than {MAX_LOOPS}, the counters the kernel program keeps"
            )));
        }
        let counter = COUNTERS - 8 * depth as i16;
        self.block(&l.init)?;
        let (top, exit) = (self.a.label(), self.a.label());
        // Through a register, so the verifier tracks the spilled constant.
        self.a.mov64_imm(R1, 0);
        self.a.stx(Width::DW, R10, counter, R1);
        self.a.bind(top);
        if let Some(c) = &l.cond {
            // The exit is the side the verifier walks first (see `fails`).
            let run = self.a.label();
            self.branch(c, true, run)?;
            self.a.ja(exit);
            self.a.bind(run);
        }
        self.a.ldx(Width::DW, R1, R10, counter);
        // A constant to the verifier: decided, never a fork.
        self.a.jmp_imm(Cond::Ge, R1, l.bound as i32, self.fault);
        self.a.alu64_imm(Alu::Add, R1, 1);
        self.a.stx(Width::DW, R10, counter, R1);
        self.breaks.push(exit);
        let body = self.block(&l.body);
        self.breaks.pop();
        body?;
        self.block(&l.step)?;
        self.a.ja(top);
        self.a.bind(exit);
        Ok(())
    }

    /// A fault unless `dst cond imm` (unsigned). The passing side is the jump,
    /// so the verifier walks the fault first, which ends at once, and then the
    /// rest: a failed check never waits on its stack of pending states, whose
    /// limit (8,192) a loop's iterations would otherwise fill.
    fn fails_unless(&mut self, cond: Cond, dst: Reg, imm: i32) {
        let ok = self.a.label();
        self.a.jmp_imm(cond, dst, imm, ok);
        self.a.ja(self.fault);
        self.a.bind(ok);
    }

    /// As [`fails_unless`](Self::fails_unless), against a register.
    fn fails_unless_reg(&mut self, cond: Cond, dst: Reg, src: Reg) {
        let ok = self.a.label();
        self.a.jmp_reg(cond, dst, src, ok);
        self.a.ja(self.fault);
        self.a.bind(ok);
    }

    /// r0 = the `n` packet bytes at `at` (checked before), in network order:
    /// `LD_IND` (`code`) on a socket buffer, `bpf_xdp_load_bytes` into a stack
    /// slot on the XDP hook (which also reads a multi-buffer frame's fragments).
    /// Both clobber r1..r5.
    fn load(&mut self, n: u32, code: u8, at: Reg) {
        if self.hook == Hook::Skb {
            self.a.raw(code, at, 0, 0);
            return;
        }
        self.a.mov64_reg(R2, at);
        self.a.mov64_reg(R1, R6);
        self.a.mov64_reg(R3, R10);
        self.a.alu64_imm(Alu::Add, R3, i32::from(BUF));
        self.a.mov64_imm(R4, n as i32);
        self.a.call(XDP_LOAD_BYTES);
        self.fails_unless(Cond::Eq, R0, 0);
        let (w, bits) = match n {
            1 => (Width::B, 0),
            2 => (Width::H, 16),
            _ => (Width::W, 32),
        };
        self.a.ldx(w, R0, R10, BUF);
        if bits != 0 {
            self.a.to_be(R0, bits);
        }
    }

    /// r8 = the address of MBuf slot r7, or a fault.
    fn slot_address(&mut self) {
        self.fails_unless(Cond::Lt, R7, self.slots);
        self.a.alu64_imm(Alu::Lsh, R7, 3);
        self.a.ld_map_value(R8, self.maps.mbuf, 0);
        self.a.alu64_reg(Alu::Add, R8, R7);
    }

    /// A fault unless the packet's bytes `r7 .. r7 + len` exist.
    fn packet_check(&mut self, len: u32) {
        self.a.ldx(Width::DW, R1, R10, LEN);
        self.fails_unless_reg(Cond::Le, R7, R1);
        self.a.mov64_reg(R2, R7);
        self.a.alu64_imm(Alu::Add, R2, len as i32);
        self.fails_unless_reg(Cond::Le, R2, R1);
    }

    fn constant(&mut self, dst: Reg, v: i64) {
        match i32::try_from(v) {
            Ok(v) => self.a.mov64_imm(dst, v),
            Err(_) => self.a.ld_imm64(dst, v as u64),
        }
    }

    /// Loads a leaf (a constant or a register) into `dst` without touching r7.
    fn leaf(&mut self, e: &Expr, dst: Reg) -> bool {
        match e {
            Expr::Const(v) => self.constant(dst, *v),
            Expr::Reg(r) => {
                self.a
                    .ld_map_value(dst, self.maps.regs, u32::from(*r) * SLOT_BYTES as u32);
                self.a.ldx(Width::DW, dst, dst, 0);
            }
            _ => return false,
        }
        true
    }

    /// r7 = the value of `e`, with temporaries from `t` up.
    fn expr(&mut self, e: &Expr, t: usize) -> Result<(), Error> {
        match e {
            Expr::Const(_) | Expr::Reg(_) => {
                self.leaf(e, R7);
            }
            Expr::Mem(i) => {
                self.expr(i, t)?;
                self.slot_address();
                self.a.ldx(Width::DW, R7, R8, 0);
            }
            Expr::Load { width, offset } => {
                self.expr(offset, t)?;
                let (n, code) = match width {
                    hir::Width::Byte => (1, LD_IND_B),
                    hir::Width::Word => (2, LD_IND_H),
                    hir::Width::DWord => (4, LD_IND_W),
                };
                self.packet_check(n);
                self.load(n, code, R7);
                self.a.mov64_reg(R7, R0);
            }
            Expr::Field {
                base,
                base_bits,
                bits,
                signed,
                index,
            } => self.field(base, *base_bits, *bits, *signed, index, t)?,
            Expr::Unary(op, a) => {
                self.expr(a, t)?;
                match op {
                    UnOp::Neg => {
                        self.a.mov64_imm(R0, 0);
                        self.a.alu64_reg(Alu::Sub, R0, R7);
                        self.a.mov64_reg(R7, R0);
                    }
                    UnOp::Not => self.truth(Cond::Eq),
                    UnOp::BitNot => self.a.alu64_imm(Alu::Xor, R7, -1),
                }
            }
            Expr::Binary(op, a, b) => {
                self.operands(a, b, t)?;
                self.binop(*op);
                self.a.mov64_reg(R7, R0);
            }
            Expr::And(a, b) | Expr::Or(a, b) => {
                // `&&` is decided by a zero, `||` by a non-zero.
                let decide = if matches!(e, Expr::And(..)) {
                    Cond::Eq
                } else {
                    Cond::Ne
                };
                let (decided, end) = (self.a.label(), self.a.label());
                self.expr(a, t)?;
                self.a.jmp_imm(decide, R7, 0, decided);
                self.expr(b, t)?;
                self.truth(Cond::Ne);
                self.a.ja(end);
                self.a.bind(decided);
                self.a.mov64_imm(R7, i32::from(decide == Cond::Ne));
                self.a.bind(end);
            }
            Expr::Hash { start, len, size } => {
                self.expr(start, t)?;
                self.packet_check(*len);
                self.hash(*len, *size);
            }
            Expr::Extern { .. } | Expr::Call { .. } => {
                return Err(Error::TooLarge(
                    "EXTERN in a program the kernel check let through".into(),
                ))
            }
        }
        Ok(())
    }

    /// r0 = `a`, r1 = `b`, evaluated in that order.
    fn operands(&mut self, a: &Expr, b: &Expr, t: usize) -> Result<(), Error> {
        self.expr(a, t)?;
        self.a.mov64_reg(R0, R7);
        if !self.leaf(b, R1) {
            let slot = temp(t)?;
            self.a.stx(Width::DW, R10, slot, R7);
            self.expr(b, t + 1)?;
            self.a.mov64_reg(R1, R7);
            self.a.ldx(Width::DW, R0, R10, slot);
        }
        Ok(())
    }

    /// Goes to `to` when `e`'s truth is `when`, on otherwise: an `IF`'s or a
    /// loop's test as conditional jumps, with `&&`, `||`, `!` and comparisons
    /// never made into a 0 or 1 first. Evaluation order and short-circuits are
    /// the value's.
    fn branch(&mut self, e: &Expr, when: bool, to: Label) -> Result<(), Error> {
        match e {
            Expr::And(a, b) | Expr::Or(a, b) => {
                // `a && b` is false as soon as `a` is, `a || b` true as soon as
                // `a` is: then `a` may go straight to `to`; otherwise its
                // deciding value skips `b`.
                let and = matches!(e, Expr::And(..));
                if and != when {
                    self.branch(a, when, to)?;
                    self.branch(b, when, to)?;
                } else {
                    let skip = self.a.label();
                    self.branch(a, !and, skip)?;
                    self.branch(b, when, to)?;
                    self.a.bind(skip);
                }
            }
            Expr::Unary(UnOp::Not, a) => self.branch(a, !when, to)?,
            Expr::Binary(op, a, b) if compares(*op) => {
                self.operands(a, b, 0)?;
                self.jump_on(*op, when, to);
            }
            _ => {
                self.expr(e, 0)?;
                let c = if when { Cond::Ne } else { Cond::Eq };
                self.a.jmp_imm(c, R7, 0, to);
            }
        }
        Ok(())
    }

    /// Goes to `to` when `r0 op r1` is `when` (signed), on otherwise. Only
    /// signed less-than exists among the assembler's conditions: the others are
    /// it with the operands swapped, or a jump over a `goto`.
    fn jump_on(&mut self, op: BinOp, when: bool, to: Label) {
        // (condition, left, right, whether the jump means `op` holds)
        let (cond, x, y, holds) = match op {
            BinOp::Eq => (Cond::Eq, R0, R1, true),
            BinOp::Ne => (Cond::Ne, R0, R1, true),
            BinOp::Lt => (Cond::Slt, R0, R1, true),
            BinOp::Gt => (Cond::Slt, R1, R0, true),
            BinOp::Le => (Cond::Slt, R1, R0, false),
            _ => (Cond::Slt, R0, R1, false), // Ge
        };
        if holds == when {
            self.a.jmp_reg(cond, x, y, to);
        } else if matches!(cond, Cond::Eq | Cond::Ne) {
            let other = if cond == Cond::Eq { Cond::Ne } else { Cond::Eq };
            self.a.jmp_reg(other, x, y, to);
        } else {
            let on = self.a.label();
            self.a.jmp_reg(cond, x, y, on);
            self.a.ja(to);
            self.a.bind(on);
        }
    }

    /// r7 = 1 if `r7 cond 0` (`Eq` or `Ne`), else 0, without a branch.
    fn truth(&mut self, cond: Cond) {
        self.nonzero(R7);
        if cond == Cond::Eq {
            self.a.alu64_imm(Alu::Xor, R0, 1);
        }
        self.a.mov64_reg(R7, R0);
    }

    /// r0 = 1 if `r != 0`, else 0: the sign bit of `r | -r`. Comparisons are
    /// computed without branches, so that they add no fork for the verifier
    /// to keep pending through the iterations of a loop.
    fn nonzero(&mut self, r: Reg) {
        self.a.mov64_imm(R3, 0);
        self.a.alu64_reg(Alu::Sub, R3, r);
        self.a.alu64_reg(Alu::Or, R3, r);
        self.a.alu64_imm(Alu::Rsh, R3, 63);
        self.a.mov64_reg(R0, R3);
    }

    /// r0 = 1 if `x < y` (signed), else 0: the sign of `x - y`, corrected
    /// where the subtraction overflows (Hacker's Delight, 2-12).
    fn less(&mut self, x: Reg, y: Reg) {
        self.a.mov64_reg(R2, x);
        self.a.alu64_reg(Alu::Sub, R2, y);
        self.a.mov64_reg(R3, x);
        self.a.alu64_reg(Alu::Xor, R3, y);
        self.a.mov64_reg(R4, R2);
        self.a.alu64_reg(Alu::Xor, R4, x);
        self.a.alu64_reg(Alu::And, R3, R4);
        self.a.alu64_reg(Alu::Xor, R2, R3);
        self.a.alu64_imm(Alu::Rsh, R2, 63);
        self.a.mov64_reg(R0, R2);
    }

    /// r7 = FNV-1a of the `len` packet bytes from r7 (checked), modulo `size`:
    /// `netsift_fpl::hash`, byte for byte, on 32 bits.
    fn hash(&mut self, len: u32, size: u32) {
        let (top, done) = (self.a.label(), self.a.label());
        self.a.alu32_imm(Alu::Mov, R8, FNV_OFFSET as i32);
        self.a.mov64_imm(R9, 0);
        self.a.bind(top);
        self.a.jmp_imm(Cond::Ge, R9, len as i32, done);
        self.a.mov64_reg(R1, R7);
        self.a.alu64_reg(Alu::Add, R1, R9);
        self.load(1, LD_IND_B, R1);
        self.a.alu32_reg(Alu::Xor, R8, R0);
        self.a.alu32_imm(Alu::Mul, R8, FNV_PRIME as i32);
        self.a.alu64_imm(Alu::Add, R9, 1);
        self.a.ja(top);
        self.a.bind(done);
        self.a.alu32_imm(Alu::Mod, R8, size.max(1) as i32);
        self.a.mov64_reg(R7, R8);
    }

    /// r7 = field `index` of `base`, as `netsift_fpl::interp::field`: the field's
    /// top bit shifted to bit 63, then back down, logically or arithmetically.
    fn field(
        &mut self,
        base: &Expr,
        base_bits: u8,
        bits: u8,
        signed: bool,
        index: &Expr,
        t: usize,
    ) -> Result<(), Error> {
        let bits = bits.max(1);
        let fields = i32::from(base_bits / bits);
        self.expr(base, t)?;
        let slot = temp(t)?;
        self.a.stx(Width::DW, R10, slot, R7);
        self.expr(index, t + 1)?;
        self.fails_unless(Cond::Lt, R7, fields);
        self.a.mov64_reg(R1, R7);
        self.a.alu64_imm(Alu::Mul, R1, i32::from(bits));
        self.a.alu64_imm(Alu::Add, R1, 64 - i32::from(base_bits));
        self.a.ldx(Width::DW, R0, R10, slot);
        self.a.alu64_reg(Alu::Lsh, R0, R1);
        let down = 64 - i32::from(bits);
        if signed {
            self.a.raw(ARSH_K, R0, 0, down);
        } else {
            self.a.alu64_imm(Alu::Rsh, R0, down);
        }
        self.a.mov64_reg(R7, R0);
        Ok(())
    }

    /// r0 = r0 op r1, as `netsift_fpl::ops`.
    fn binop(&mut self, op: BinOp) {
        let alu = |g: &mut Gen, o: Alu| g.a.alu64_reg(o, R0, R1);
        match op {
            BinOp::Add => alu(self, Alu::Add),
            BinOp::Sub => alu(self, Alu::Sub),
            BinOp::Mul => alu(self, Alu::Mul),
            BinOp::BitAnd => alu(self, Alu::And),
            BinOp::BitOr => alu(self, Alu::Or),
            BinOp::BitXor => alu(self, Alu::Xor),
            // eBPF's signed division gives FPL's edges: x / 0 = 0, x % 0 = x,
            // MIN / -1 = MIN, MIN % -1 = 0.
            BinOp::Div => self.a.raw(SDIV_X, R1, 1, 0),
            BinOp::Rem => self.a.raw(SMOD_X, R1, 1, 0),
            BinOp::Shl => {
                self.a.alu64_imm(Alu::And, R1, 63);
                alu(self, Alu::Lsh);
            }
            BinOp::Shr => {
                self.a.alu64_imm(Alu::And, R1, 63);
                self.a.raw(ARSH_X, R1, 0, 0);
            }
            BinOp::Eq | BinOp::Ne => {
                self.a.alu64_reg(Alu::Xor, R0, R1);
                self.nonzero(R0);
                if op == BinOp::Eq {
                    self.a.alu64_imm(Alu::Xor, R0, 1);
                }
            }
            BinOp::Lt => self.less(R0, R1),
            BinOp::Gt => self.less(R1, R0),
            BinOp::Le => {
                self.less(R1, R0);
                self.a.alu64_imm(Alu::Xor, R0, 1);
            }
            BinOp::Ge => {
                self.less(R0, R1);
                self.a.alu64_imm(Alu::Xor, R0, 1);
            }
        }
    }
}
