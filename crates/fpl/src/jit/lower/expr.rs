//! Expressions: values, packet and MBuf accesses with their checks,
//! operators as [`crate::ops`] defines them, and the calls to the trampolines.

use super::{checked, offset32, Lower, PANIC_CODE};
use crate::hir::{Expr, Width};
use crate::interp::Fault;
use crate::jit::{tramp, Env};
use crate::ops::{BinOp, UnOp};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I16, I32, I64, I8};
use cranelift_codegen::ir::{BlockArg, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;
use std::mem::offset_of;

impl Lower<'_, '_> {
    /// The address of `MEM[i]`, after checking the slot is in MBuf.
    pub(super) fn slot(&mut self, i: &Expr) -> Value {
        let i = self.expr(i);
        let ok = self.b.ins().icmp(IntCC::UnsignedLessThan, i, self.slots);
        self.check(ok, Fault::MemBounds);
        let at = self.b.ins().ishl_imm_s(i, 3);
        self.address(self.mbuf, at)
    }

    /// The little-endian slot at `at`.
    pub(super) fn load_slot(&mut self, at: Value) -> Value {
        let v = self.b.ins().load(I64, checked(), at, 0);
        if self.little {
            v
        } else {
            self.b.ins().bswap(v)
        }
    }

    /// Stores `v` little-endian at `at`.
    pub(super) fn store_slot(&mut self, at: Value, v: Value) {
        let v = if self.little {
            v
        } else {
            self.b.ins().bswap(v)
        };
        self.b.ins().store(checked(), v, at, 0);
    }

    /// `base + offset` for an in-range `i64` offset.
    fn address(&mut self, base: Value, offset: Value) -> Value {
        let offset = if self.ptr == I64 {
            offset
        } else {
            self.b.ins().ireduce(self.ptr, offset)
        };
        self.b.ins().iadd(base, offset)
    }

    pub(super) fn expr(&mut self, e: &Expr) -> Value {
        match e {
            Expr::Const(v) => self.b.ins().iconst(I64, *v),
            Expr::Reg(r) => {
                let var = self.reg(*r);
                self.b.use_var(var)
            }
            Expr::Mem(i) => {
                let at = self.slot(i);
                self.load_slot(at)
            }
            Expr::Load { width, offset } => self.load(*width, offset),
            Expr::Field {
                base,
                base_bits,
                bits,
                signed,
                index,
            } => {
                let v = self.expr(base);
                let m = self.expr(index);
                self.field(v, *base_bits, *bits, *signed, m)
            }
            Expr::Unary(op, a) => {
                let a = self.expr(a);
                match op {
                    UnOp::Neg => self.b.ins().ineg(a),
                    UnOp::BitNot => self.b.ins().bnot(a),
                    UnOp::Not => {
                        let z = self.b.ins().icmp_imm_s(IntCC::Equal, a, 0);
                        self.b.ins().uextend(I64, z)
                    }
                }
            }
            Expr::Binary(op, a, b) => {
                let a = self.expr(a);
                let b = self.expr(b);
                self.binary(*op, a, b)
            }
            Expr::And(a, b) => self.short_circuit(a, b, true),
            Expr::Or(a, b) => self.short_circuit(a, b, false),
            Expr::Hash { start, len, size } => {
                let start = self.expr(start);
                let len = self.b.ins().iconst(I64, i64::from(*len));
                let size = self.b.ins().iconst(I64, i64::from(*size));
                let h = self.call(tramp::hash as *const () as usize, [start, len, size]);
                let ok = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, h, 0);
                self.check(ok, Fault::PacketBounds);
                h
            }
            Expr::Extern {
                func,
                input,
                output,
            } => self.extern_call(*func, *input, *output),
            // A callee is an external function of the compiled program.
            Expr::Call {
                filter,
                input,
                output,
            } => self.extern_call(self.callees_at + filter, *input, *output),
        }
    }

    /// A packet load in network byte order, zero-extended.
    fn load(&mut self, width: Width, offset: &Expr) -> Value {
        let w = width.bytes() as i64;
        let (off, ok) = match offset {
            // A constant offset: the packet must hold `c + w` bytes.
            Expr::Const(c) if (0..=i64::from(u32::MAX)).contains(c) => {
                let ok =
                    self.b
                        .ins()
                        .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, self.pkt_len, c + w);
                (self.b.ins().iconst(I64, *c), ok)
            }
            // Otherwise the offset, unsigned (so a negative one is huge), must
            // be below the limit for `w` bytes.
            _ => {
                let off = self.expr(offset);
                let limit = self.limits[w.trailing_zeros() as usize];
                (off, self.b.ins().icmp(IntCC::UnsignedLessThan, off, limit))
            }
        };
        self.check(ok, Fault::PacketBounds);
        let at = self.address(self.pkt, off);
        let ty = match width {
            Width::Byte => I8,
            Width::Word => I16,
            Width::DWord => I32,
        };
        // The packet does not change during the run; the load stays below its
        // check (no `can_move`).
        let v = self.b.ins().load(ty, checked().with_readonly(), at, 0);
        // Cranelift's x64 back end has no big-endian loads: swap by hand.
        let v = if self.little && ty != I8 {
            self.b.ins().bswap(v)
        } else {
            v
        };
        self.b.ins().uextend(I64, v)
    }

    /// The `m`-th `bits`-wide field of the `base_bits`-wide `v`, from the top,
    /// after checking `m` (as [`crate::interp::field`]).
    fn field(&mut self, v: Value, base_bits: u8, bits: u8, signed: bool, m: Value) -> Value {
        let fields = i64::from(base_bits / bits.max(1));
        let ok = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, m, fields);
        self.check(ok, Fault::Selector);
        let ins = &mut self.b;
        // shift = base_bits - bits * (m + 1)
        let top = ins
            .ins()
            .iconst(I64, i64::from(base_bits) - i64::from(bits));
        let below = ins.ins().imul_imm_s(m, i64::from(bits));
        let shift = ins.ins().isub(top, below);
        let raw = ins.ins().ushr(v, shift);
        let raw = ins
            .ins()
            .band_imm_s(raw, (u64::MAX >> (64 - u32::from(bits))) as i64);
        if signed {
            let up = ins.ins().ishl_imm_s(raw, 64 - i64::from(bits));
            ins.ins().sshr_imm_s(up, 64 - i64::from(bits))
        } else {
            raw
        }
    }

    /// `a op b` as [`BinOp::apply`] defines it.
    pub(super) fn binary(&mut self, op: BinOp, a: Value, b: Value) -> Value {
        let ins = &mut self.b;
        let cmp = |ins: &mut FunctionBuilder<'_>, cc: IntCC| {
            let c = ins.ins().icmp(cc, a, b);
            ins.ins().uextend(I64, c)
        };
        match op {
            BinOp::Add => ins.ins().iadd(a, b),
            BinOp::Sub => ins.ins().isub(a, b),
            BinOp::Mul => ins.ins().imul(a, b),
            BinOp::Div | BinOp::Rem => {
                // Divide by 1 where the hardware would trap (0, and -1 which
                // overflows on i64::MIN), then put in the defined results:
                // x / 0 = 0, x / -1 = -x (wrapping); x % 0 = x, x % -1 = 0.
                let zero = ins.ins().icmp_imm_s(IntCC::Equal, b, 0);
                let minus1 = ins.ins().icmp_imm_s(IntCC::Equal, b, -1);
                let odd = ins.ins().bor(zero, minus1);
                let one = ins.ins().iconst(I64, 1);
                let d = ins.ins().select(odd, one, b);
                if op == BinOp::Div {
                    let q = ins.ins().sdiv(a, d);
                    let neg = ins.ins().ineg(a);
                    let q = ins.ins().select(minus1, neg, q);
                    let z = ins.ins().iconst(I64, 0);
                    ins.ins().select(zero, z, q)
                } else {
                    // x % 1 == 0, which is also x % -1.
                    let r = ins.ins().srem(a, d);
                    ins.ins().select(zero, a, r)
                }
            }
            // Cranelift takes shift counts modulo the width, as FPL does.
            BinOp::Shl => ins.ins().ishl(a, b),
            BinOp::Shr => ins.ins().sshr(a, b),
            BinOp::BitAnd => ins.ins().band(a, b),
            BinOp::BitOr => ins.ins().bor(a, b),
            BinOp::BitXor => ins.ins().bxor(a, b),
            BinOp::Eq => cmp(ins, IntCC::Equal),
            BinOp::Ne => cmp(ins, IntCC::NotEqual),
            BinOp::Lt => cmp(ins, IntCC::SignedLessThan),
            BinOp::Le => cmp(ins, IntCC::SignedLessThanOrEqual),
            BinOp::Gt => cmp(ins, IntCC::SignedGreaterThan),
            BinOp::Ge => cmp(ins, IntCC::SignedGreaterThanOrEqual),
        }
    }

    /// `a && b` (`and`) or `a || b`: 1 or 0, `b` only when needed.
    fn short_circuit(&mut self, a: &Expr, b: &Expr, and: bool) -> Value {
        let a = self.expr(a);
        let (rhs, done) = (self.b.create_block(), self.b.create_block());
        let result = self.b.append_block_param(done, I64);
        let known = self.b.ins().iconst(I64, i64::from(!and));
        let known = [BlockArg::Value(known)];
        if and {
            self.b.ins().brif(a, rhs, &[], done, &known);
        } else {
            self.b.ins().brif(a, done, &known, rhs, &[]);
        }
        self.b.seal_block(rhs);
        self.b.switch_to_block(rhs);
        let b = self.expr(b);
        let nz = self.b.ins().icmp_imm_s(IntCC::NotEqual, b, 0);
        let nz = self.b.ins().uextend(I64, nz);
        self.b.ins().jump(done, &[BlockArg::Value(nz)]);
        self.b.seal_block(done);
        self.b.switch_to_block(done);
        result
    }

    /// Calls the trampoline at `addr` with `env` and three values.
    fn call(&mut self, addr: usize, args: [Value; 3]) -> Value {
        let f = self.b.ins().iconst(self.ptr, addr as i64);
        let [a, b, c] = args;
        let inst = self
            .b
            .ins()
            .call_indirect(self.tramp, f, &[self.env, a, b, c]);
        self.b.inst_results(inst)[0]
    }

    /// `EXTERN(func, input, output)`: the regions checked against this run's
    /// MBuf, the call, and a way out if the function panicked.
    fn extern_call(&mut self, func: usize, input: u32, output: u32) -> Value {
        let f = &self.externs[func];
        let need = (u64::from(input) + f.input_len() as u64)
            .max(u64::from(output) + f.output_len() as u64);
        let ok = self.b.ins().icmp_imm_s(
            IntCC::UnsignedGreaterThanOrEqual,
            self.mbuf_len,
            i64::try_from(need).unwrap_or(i64::MAX),
        );
        self.check(ok, Fault::ExternBounds);
        let args =
            [func as i64, i64::from(input), i64::from(output)].map(|v| self.b.ins().iconst(I64, v));
        let v = self.call(tramp::call as *const () as usize, args);
        let panicked = self.b.ins().load(
            I64,
            MemFlagsData::trusted(),
            self.env,
            offset32(offset_of!(Env, panicked)),
        );
        let fine = self.b.ins().icmp_imm_s(IntCC::Equal, panicked, 0);
        let out = self.fault_block(5, PANIC_CODE);
        self.branch_on(fine, out);
        v
    }
}
